"""The oke-rdma policy pack: its name, default enforcement level and the list of policies.

Imported two ways, and both must work:

* by the Pulumi CLI, which runs ``policies/__main__.py`` with ``policies/`` as the working directory and on
  ``sys.path`` (modules are top-level: ``pack``, ``placement``, ``network``, ``_rules``);
* as the package ``policies`` from the repository root (tests and ``offline/``: ``policies.pack``).

Every module therefore picks relative or top-level imports from ``__package__``. Nothing here starts the gRPC
server: only ``__main__.py`` builds the ``PolicyPack`` (whose constructor serves and blocks).

| policy                             | kind     | checks                                                          |
|------------------------------------|----------|-----------------------------------------------------------------|
| rdma-node-pool-placement           | resource | a Compute Cluster pool has one placement config, no fault domains |
| rdma-cluster-enhanced              | stack    | the cluster of a Compute Cluster pool is ENHANCED_CLUSTER       |
| kubernetes-api-not-public          | resource | no public endpoint without NSG; no TCP 6443 from 0.0.0.0/0      |
| kubernetes-api-endpoint-restricted | stack    | a public endpoint's NSGs are in the stack, closed to the internet |
| no-internet-ssh-or-all-ports       | resource | no SSH or all-ports rule from 0.0.0.0/0 or ::/0                 |
| oke-required-nsg-rules             | stack    | control-plane/worker NSGs hold 6443, 12250, 10250, ICMP 3/4     |
| no-internet-ingress                | resource | from 0.0.0.0/0 only ICMP 3/4 and public listener ports          |
| node-subnets-private               | stack    | subnets hosting workers or pods prohibit public IPs             |

All are MANDATORY (the pack default is MANDATORY too); ``--policy-pack-config`` can lower them per stack.
"""
from __future__ import annotations

from pulumi_policy import EnforcementLevel, Policy

if __package__:  # imported as the package `policies`
    from . import network, node_subnets, oke_network, placement
else:  # run by the Pulumi CLI from inside policies/
    import network
    import node_subnets
    import oke_network
    import placement

PACK_NAME = "oke-rdma-policies"
PACK_DESCRIPTION = "Placement and exposure guardrails for OKE GPU/RDMA clusters on OCI."
PACK_ENFORCEMENT_LEVEL = EnforcementLevel.MANDATORY

POLICIES: list[Policy] = [*placement.POLICIES, *network.POLICIES, *oke_network.POLICIES, *node_subnets.POLICIES]

_names = [p.name for p in POLICIES]
if len(_names) != len(set(_names)):  # policy names are the keys of policy config; they must be unique
    raise RuntimeError(f"duplicate policy names in {PACK_NAME}: {sorted(_names)}")
