"""The oke-rdma policy pack: its name, default enforcement level and the list of policies.

Imported two ways, and both must work:

* by the Pulumi CLI, which runs ``policies/__main__.py`` with ``policies/`` as the working directory and on
  ``sys.path`` (modules are top-level: ``pack``, ``placement``, ``network``, ``_rules``);
* as the package ``policies`` from the repository root (tests and ``offline/``: ``policies.pack``).

Every module therefore picks relative or top-level imports from ``__package__``. Nothing here starts the gRPC
server: only ``__main__.py`` builds the ``PolicyPack`` (whose constructor serves and blocks).

Which policies exist, their kind, level, severity, parameters and behaviour on unknown values: the generated table
in README.md ("Policy pack"; ``python -m policies.doc --write`` rewrites it, a test fails when it is stale). Most are
MANDATORY (the pack default); a few hardening checks are ADVISORY; ``--policy-pack-config`` can change any per stack.
"""
from __future__ import annotations

from pulumi_policy import EnforcementLevel, Policy

if __package__:  # imported as the package `policies`
    from . import (iam, identity, kubernetes, network, node_pool, node_subnets, oke_network, placement,
                   pod_security, public_endpoints, reachability, storage)
else:  # run by the Pulumi CLI from inside policies/
    import iam
    import identity
    import kubernetes
    import network
    import node_pool
    import node_subnets
    import oke_network
    import placement
    import pod_security
    import public_endpoints
    import reachability
    import storage

PACK_NAME = "oke-rdma-policies"
PACK_DESCRIPTION = "Placement and exposure guardrails for OKE GPU/RDMA clusters on OCI."
PACK_ENFORCEMENT_LEVEL = EnforcementLevel.MANDATORY

POLICIES: list[Policy] = [*placement.POLICIES, *node_pool.POLICIES, *network.POLICIES, *oke_network.POLICIES,
                          *reachability.POLICIES, *public_endpoints.POLICIES,
                          *node_subnets.POLICIES, *storage.POLICIES, *iam.POLICIES, *identity.POLICIES,
                          *kubernetes.POLICIES, *pod_security.POLICIES]

_names = [p.name for p in POLICIES]
if len(_names) != len(set(_names)):  # policy names are the keys of policy config; they must be unique
    raise RuntimeError(f"duplicate policy names in {PACK_NAME}: {sorted(_names)}")
