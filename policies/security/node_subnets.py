"""Subnets that host worker nodes or pods prohibit public IPs (``node-subnets-private``).

Sources: OKE docs "Network Resource Configuration" (worker and pod subnets should be private; the pod subnet must be);
OCI Networking docs "VCNs and Subnets" (``prohibitPublicIpOnVnic``; ``prohibitInternetIngress`` is its alias).
Property names checked against pulumi_oci 5.5.0 (``core/_inputs.py``, ``containerengine/_inputs.py``).

Which subnets: a node pool's ``nodeConfigDetails`` references only its worker subnets (``placementConfigs[].subnetId``)
and pod subnets (``nodePoolPodNetworkOptionDetails.podSubnetIds``), so every subnet it depends on through that
property hosts workers or pods; known OCIDs are matched too (and name the role). Subnets given by OCID and not
managed in this stack pass unless the policy config sets ``externalResources: "fail"``.
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs, \
    StackValidationPolicy

if __package__:  # imported as the package `policies` (tests, offline/)
    from . import _rules as R
    from .oke_network import _DOC, _EXTERNAL, _id
else:  # run by the Pulumi CLI from inside policies/
    import _rules as R
    from oke_network import _DOC, _EXTERNAL, _id

UNKNOWN = R.UNKNOWN
SUBNET = "oci:Core/subnet:Subnet"


def _pool_subnet_ids(pool: Any) -> tuple[Any, Any]:
    """(worker subnet OCIDs, pod subnet OCIDs) of a node pool, each a list or UNKNOWN."""
    details = R.read(pool.props, "nodeConfigDetails")
    placements = R.elements(R.read(details, "placementConfigs"))
    workers = UNKNOWN if placements is UNKNOWN else [R.read(p, "subnetId") for p in placements]
    pods = R.elements(R.read(pool.props, "nodeConfigDetails", "nodePoolPodNetworkOptionDetails", "podSubnetIds"))
    return workers, pods


def validate_node_subnets_private(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``node-subnets-private``: every subnet of this stack that hosts a node pool's workers or pods has
    ``prohibitPublicIpOnVnic`` (or ``prohibitInternetIngress``) true. Subnets found through the pool's
    ``nodeConfigDetails`` dependencies or OCIDs; unknown flags fail closed; external subnets as for
    ``oke-required-nsg-rules``."""
    external_fails = (args.get_config() or {}).get("externalResources", "pass") == "fail"
    subnets = [r for r in args.resources if r.resource_type == SUBNET]
    for pool in (r for r in args.resources if r.resource_type == R.NODE_POOL):
        workers, pods = _pool_subnet_ids(pool)
        known = [i for i in (workers if isinstance(workers, list) else []) + (pods if isinstance(pods, list) else [])
                 if isinstance(i, str)]
        deps = [s for s in pool.property_dependencies.get("nodeConfigDetails", []) if s.resource_type == SUBNET]
        hosted = {s.urn: s for s in deps}
        hosted.update((s.urn, s) for s in subnets if _id(s) in known)
        unmatched = [i for i in known if i not in {_id(s) for s in hosted.values()}]
        spare = [s for s in deps if _id(s) not in known]
        external = unmatched if len(spare) < len(unmatched) else []
        if external and external_fails:
            report_violation(f"Node pool '{pool.name}': subnet(s) {', '.join(external)} are not managed in this stack, "
                             "so whether they allow public IPs cannot be verified.", pool.urn)
        for subnet in hosted.values():
            role = ("workers" if isinstance(workers, list) and _id(subnet) in workers else
                    "pods" if isinstance(pods, list) and _id(subnet) in pods else "workers or pods")
            private = R.any3(*(UNKNOWN if v is UNKNOWN else v is True for v in
                               (R.read(subnet.props, "prohibitPublicIpOnVnic"),
                                R.read(subnet.props, "prohibitInternetIngress"))))
            if private is False:
                report_violation(f"Subnet '{subnet.name}' hosts the {role} of node pool '{pool.name}' but allows "
                                 "public IPs (prohibitPublicIpOnVnic is not true). Set prohibitPublicIpOnVnic: true.",
                                 subnet.urn)
            elif private is UNKNOWN:
                report_violation(f"Subnet '{subnet.name}' hosts the {role} of node pool '{pool.name}', and whether it "
                                 "allows public IPs is unknown during preview. Set prohibitPublicIpOnVnic to the "
                                 "literal true.", subnet.urn)


node_subnets_private = StackValidationPolicy(
    name="node-subnets-private",
    description="Subnets that host worker nodes or pods prohibit public IPs.",
    validate=validate_node_subnets_private,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set prohibitPublicIpOnVnic: true on the worker and pod subnets and reach nodes through the "
                       "OCI Bastion service; only load balancer (and, if public, API endpoint) subnets may be "
                       f"public. Source: {_DOC}; OCI docs: VCNs and Subnets."),
    tags=["oke", "network", "security"],
    config_schema=PolicyConfigSchema(properties=dict(_EXTERNAL)),
)

POLICIES = [node_subnets_private]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "node-subnets-private": "fails closed: an unknown prohibitPublicIpOnVnic on a subnet hosting workers or pods is a "
                            "violation.",
}
