"""Inputs the rules cannot read are refused, never passed: a property another rule reads, given in another shape
than the provider takes.

* ``input-shape-readable`` (MANDATORY): each property in :data:`SHAPES` — the lists, maps and strings the identity,
  exposure, node-access and data rules read — must have the shape the provider's schema gives it when its value is
  known. A string where OCI takes a list (``statements: "Allow ..."``, ``nsgIds: "ocid1..."``), a list where it takes
  a string, a number where a statement should be: the other rules' readers (``_rules.read``/``elements``) see such a
  value as absent, so without this rule it would pass them all. Unknown values are left to each rule's own
  unknown-value behaviour.

Sources (checked 2026-12-01): pulumi_oci 5.5.0 input types (``identity/policy.py`` ``statements:
Sequence[str]``; ``core/_inputs.py``, ``containerengine/_inputs.py``, ``filestorage/_inputs.py``,
``loadbalancer``, ``networkloadbalancer``, ``bastion``, ``lustre``); Kubernetes API reference (``rules``,
``subjects``, ``spec.externalIPs`` are arrays). ``tests/policies/test_shapes.py`` checks the OCI rows against the
installed SDK's type annotations.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Iterator

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, read
    from _gate import examines

POLICY_NAME = "input-shape-readable"
LIST, MAP, STRING = "list", "map", "string"
_NSG_IDS = (("nsgIds", LIST), ("nsgIds[]", STRING))

#: Type → (property path, shape). ``a.b`` reads ``b`` inside the map ``a``; ``a[]`` is every item of the list ``a``.
SHAPES: dict[str, tuple[tuple[str, str], ...]] = {
    "oci:Identity/policy:Policy": (("statements", LIST), ("statements[]", STRING), ("compartmentId", STRING)),
    "oci:Identity/userGroupMembership:UserGroupMembership": (("groupId", STRING), ("userId", STRING)),
    "oci:Identity/idpGroupMapping:IdpGroupMapping": (("groupId", STRING),),
    "oci:Identity/domainsGroup:DomainsGroup": (("members", LIST), ("members[]", MAP), ("displayName", STRING)),
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": (
        ("direction", STRING), ("source", STRING), ("sourceType", STRING), ("destination", STRING),
        ("tcpOptions", MAP), ("udpOptions", MAP), ("tcpOptions.destinationPortRange", MAP),
        ("udpOptions.destinationPortRange", MAP), ("networkSecurityGroupId", STRING)),
    **{t: (("ingressSecurityRules", LIST), ("ingressSecurityRules[]", MAP), ("egressSecurityRules", LIST),
           ("egressSecurityRules[]", MAP), ("ingressSecurityRules[].source", STRING),
           ("ingressSecurityRules[].tcpOptions", MAP), ("ingressSecurityRules[].udpOptions", MAP))
       for t in ("oci:Core/securityList:SecurityList", "oci:Core/defaultSecurityList:DefaultSecurityList")},
    "oci:Core/subnet:Subnet": (("securityListIds", LIST), ("securityListIds[]", STRING), ("cidrBlock", STRING)),
    "oci:Core/instance:Instance": (("createVnicDetails", MAP), ("createVnicDetails.nsgIds", LIST),
                                   ("instanceOptions", MAP), ("metadata", MAP)),
    "oci:Core/vnicAttachment:VnicAttachment": (("createVnicDetails", MAP), ("createVnicDetails.nsgIds", LIST)),
    "oci:ContainerEngine/cluster:Cluster": (("endpointConfig", MAP), ("endpointConfig.nsgIds", LIST),
                                            ("endpointConfig.nsgIds[]", STRING)),
    "oci:ContainerEngine/nodePool:NodePool": (("nodeConfigDetails", MAP), ("nodeConfigDetails.nsgIds", LIST),
                                              ("nodeConfigDetails.nsgIds[]", STRING),
                                              ("nodeConfigDetails.placementConfigs", LIST),
                                              ("nodeConfigDetails.placementConfigs[]", MAP), ("nodeMetadata", MAP),
                                              ("nodeShape", STRING)),
    "oci:FileStorage/mountTarget:MountTarget": _NSG_IDS,
    "oci:FileStorage/export:Export": (("exportOptions", LIST), ("exportOptions[]", MAP),
                                      ("exportOptions[].source", STRING)),
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": (
        ("rootSquashConfiguration", MAP), ("rootSquashConfiguration.clientExceptions", LIST), *_NSG_IDS),
    "oci:Bastion/bastion:Bastion": (("clientCidrBlockAllowLists", LIST), ("clientCidrBlockAllowLists[]", STRING)),
    "oci:LoadBalancer/loadBalancer:LoadBalancer": (("networkSecurityGroupIds", LIST),),
    "oci:NetworkLoadBalancer/networkLoadBalancer:NetworkLoadBalancer": (("networkSecurityGroupIds", LIST),),
    "oci:ObjectStorage/bucket:Bucket": (("accessType", STRING), ("versioning", STRING)),
    "oci:Database/autonomousDatabase:AutonomousDatabase": (("whitelistedIps", LIST), ("whitelistedIps[]", STRING)),
    "oci:ContainerEngine/containerInstance:ContainerInstance": (("vnics", LIST), ("vnics[]", MAP)),
    **{f"kubernetes:rbac.authorization.k8s.io/v1:{k}": (("rules", LIST), ("rules[]", MAP)) for k in
       ("Role", "ClusterRole")},
    **{f"kubernetes:rbac.authorization.k8s.io/v1:{k}": (("subjects", LIST), ("subjects[]", MAP), ("roleRef", MAP))
       for k in ("RoleBinding", "ClusterRoleBinding")},
    "kubernetes:core/v1:Service": (("spec", MAP), ("spec.externalIPs", LIST), ("metadata", MAP),
                                   ("metadata.annotations", MAP)),
}
_PYTHON = {LIST: (Sequence, "a list"), MAP: (Mapping, "a map"), STRING: (str, "a string")}


def _values(props: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(concrete path, value) of every known value at ``path``; parents of another shape yield nothing (their own
    row reports them)."""
    current: list[tuple[str, Any]] = [("", props)]
    for step in path.split("."):
        many = step.endswith("[]")
        key = step[:-2] if many else step
        following = []
        for where, value in current:
            child = read(value, key) if isinstance(value, Mapping) else None
            name = f"{where}.{key}" if where else key
            if child is None or child is UNKNOWN:
                continue
            if not many:
                following.append((name, child))
            elif isinstance(child, Sequence) and not isinstance(child, str):
                following += [(f"{name}[{i}]", read(child, i)) for i in range(len(child))]
        current = following
    yield from ((where, value) for where, value in current if value is not UNKNOWN and value is not None)


def shape_problems(resource_type: str, props: Any) -> list[str]:
    """One line per property of :data:`SHAPES` whose known value has another shape than the provider takes."""
    problems = []
    for path, shape in SHAPES.get(resource_type, ()):
        kind, words = _PYTHON[shape]
        for where, value in _values(props, path):
            wrong = not isinstance(value, kind) or (shape == LIST and isinstance(value, str))
            if wrong:
                problems.append(f"{where} is {_shape_of(value)}, where the provider takes {words}")
    return problems


def _shape_of(value: Any) -> str:
    """``a string 'Allow ...'``, ``a list``, ``a map``, ``a number 5``, ``a boolean True`` (for messages)."""
    if isinstance(value, str):
        return f"a string {value[:77] + '...' if len(value) > 80 else value!r}"
    if isinstance(value, bool):
        return f"a boolean {value}"
    if isinstance(value, (int, float)):
        return f"a number {value:g}"
    return "a map" if isinstance(value, Mapping) else "a list" if isinstance(value, Sequence) else "a value"


def validate_input_shape(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse properties the rules read when they have another shape than the provider takes."""
    for problem in shape_problems(args.resource_type, args.props):
        report_violation(f"Resource '{args.name}': {problem}. The pack's rules cannot read it, so it is refused, "
                         f"not passed; give the value in the provider's shape (one list item per IAM "
                         f"statement, a list of NSG OCIDs, ...).", None)


input_shape_readable = ResourceValidationPolicy(
    name=POLICY_NAME,
    description="The properties the rules read have the shape the provider takes (a value no rule can read is "
                "refused, never passed).",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("A string where OCI takes a list (IAM statements, NSG ids, export options) is read by no "
                       "rule. Give the value in the provider's shape: one statement per list item, a list of NSG "
                       "OCIDs."),
    tags=["identity", "exposure", "fail-closed"],
    validate=validate_input_shape,
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(input_shape_readable, *SHAPES)

POLICIES = [input_shape_readable]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "reads only inputs known at preview: an unknown value is left to the unknown-value behaviour of "
                 "the rule that reads it",
}
