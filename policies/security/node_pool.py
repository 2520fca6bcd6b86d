"""Hardening rules for OKE managed node pools: IMDSv2 only, and in-transit encryption of paravirtualized volumes.

Both are ADVISORY: they protect against credential theft through the instance metadata service (a pod that can
reach ``169.254.169.254`` over IMDSv1 needs no session token) and against plaintext volume traffic, but an image
without IMDSv2 support, or a bare metal shape where OCI handles in-transit encryption itself, can be a deliberate
choice.

Sources: OKE docs "Configuring IMDS for Kubernetes Clusters" (contengconfiguringimds.htm: node metadata
``areLegacyImdsEndpointsDisabled: "true"``); OKE docs "Encrypting Data At Rest and Data In Transit with the Block
Volume Service" (``isPvEncryptionInTransitEnabled`` on the node pool); pulumi_oci 5.5.0 ``containerengine.NodePool``.

| rule                               | kind     | unknown during preview                 | behaviour             |
|------------------------------------|----------|----------------------------------------|-----------------------|
| node-pool-imds-v2-only             | resource | ``nodeMetadata`` or its IMDS key       | fail closed: violation |
| node-pool-pv-encryption-in-transit | resource | ``nodeConfigDetails`` or the flag      | fail closed: violation |
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies` (tests, offline/)
    from ._rules import NODE_POOL, UNKNOWN, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/
    from _rules import NODE_POOL, UNKNOWN, read
    from _gate import examines

#: The node metadata key OKE applies to the instances' launch options.
IMDS_KEY = "areLegacyImdsEndpointsDisabled"


def imds_problem(props: Any) -> str | None:
    """Why a node pool's instances keep the legacy IMDSv1 endpoints (None = IMDSv2 only)."""
    metadata = read(props, "nodeMetadata")
    if metadata is UNKNOWN:
        return "its nodeMetadata is unknown during preview, so IMDSv2-only cannot be verified"
    value = read(props, "nodeMetadata", IMDS_KEY)
    if value is UNKNOWN:
        return f"nodeMetadata.{IMDS_KEY} is unknown during preview, so IMDSv2-only cannot be verified"
    if value is None:
        return f"nodeMetadata has no {IMDS_KEY}, so the legacy IMDSv1 endpoints stay open"
    if str(value).strip().lower() != "true":
        return f"nodeMetadata.{IMDS_KEY} is '{value}', so the legacy IMDSv1 endpoints stay open"
    return None


def pv_encryption_problem(props: Any) -> str | None:
    """Why a node pool's paravirtualized volume traffic is not encrypted in transit (None = it is)."""
    details = read(props, "nodeConfigDetails")
    if details is UNKNOWN:
        return "its nodeConfigDetails are unknown during preview, so in-transit encryption cannot be verified"
    if details is None:
        return ("it has no nodeConfigDetails (the legacy subnetIds form), which cannot enable in-transit "
                "encryption")
    value = read(details, "isPvEncryptionInTransitEnabled")
    if value is UNKNOWN:
        return "nodeConfigDetails.isPvEncryptionInTransitEnabled is unknown during preview"
    if value is not True:
        return "nodeConfigDetails.isPvEncryptionInTransitEnabled is not true (OCI's default is false)"
    return None


def validate_imds_v2_only(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``node-pool-imds-v2-only`` on node pool inputs: ``nodeMetadata.areLegacyImdsEndpointsDisabled``
    is ``"true"``. Unknown values fail closed."""
    if args.resource_type != NODE_POOL:
        return
    problem = imds_problem(args.props)
    if problem:
        report_violation(f"Node pool '{args.name}': {problem}.", None)


def validate_pv_encryption(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``node-pool-pv-encryption-in-transit`` on node pool inputs:
    ``nodeConfigDetails.isPvEncryptionInTransitEnabled`` is true. Unknown values fail closed."""
    if args.resource_type != NODE_POOL:
        return
    problem = pv_encryption_problem(args.props)
    if problem:
        report_violation(f"Node pool '{args.name}': {problem}.", None)


node_pool_imds_v2_only = ResourceValidationPolicy(
    name="node-pool-imds-v2-only",
    description="A node pool's instances serve instance metadata over IMDSv2 only (legacy endpoints disabled).",
    validate=validate_imds_v2_only,
    enforcement_level=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation_steps=(f'Set node_metadata={{"{IMDS_KEY}": "true"}} on the node pool (its image must support '
                       "IMDSv2; OKE images do). Source: OKE docs, Configuring IMDS for Kubernetes Clusters."),
    tags=["oke", "node-pool", "hardening"],
)

#: Resource type → path of its ``instanceOptions`` (OCI API "InstanceOptions": ``areLegacyImdsEndpointsDisabled``,
#: default false; checked 2026-11-30).
INSTANCE_OPTIONS = {"oci:Core/instance:Instance": ("instanceOptions",),
                    "oci:Core/instanceConfiguration:InstanceConfiguration": ("instanceDetails", "launchDetails",
                                                                             "instanceOptions")}


def validate_instance_imds_v2_only(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``instance-imds-v2-only``: an instance (or instance configuration) has
    ``instanceOptions.areLegacyImdsEndpointsDisabled: true``. Unknown values fail closed."""
    path = INSTANCE_OPTIONS.get(args.resource_type)
    if path is None:
        return
    value = read(args.props, *path, IMDS_KEY)
    if value is UNKNOWN:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}': {'.'.join(path)}.{IMDS_KEY} is unknown "
                         "during preview, so IMDSv2-only cannot be verified.", None)
    elif value is not True:
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}': {'.'.join(path)}.{IMDS_KEY} is not "
                         "true (OCI's default is false), so the legacy IMDSv1 endpoints stay open.", None)


instance_imds_v2_only = ResourceValidationPolicy(
    name="instance-imds-v2-only",
    description="A plain instance or instance configuration serves instance metadata over IMDSv2 only.",
    validate=validate_instance_imds_v2_only,
    enforcement_level=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation_steps=(f"Set instance_options={{'{IMDS_KEY}': True}}. Source: OCI Compute docs, Upgrading to the "
                       "Instance Metadata Service v2; API reference: InstanceOptions."),
    tags=["compute", "hardening"],
)

node_pool_pv_encryption_in_transit = ResourceValidationPolicy(
    name="node-pool-pv-encryption-in-transit",
    description="A node pool encrypts its paravirtualized boot and block volume traffic in transit.",
    validate=validate_pv_encryption,
    enforcement_level=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation_steps=("Set node_config_details.is_pv_encryption_in_transit_enabled=True on the node pool. Source: "
                       "OKE docs, Encrypting Data At Rest and Data In Transit with the Block Volume Service."),
    tags=["oke", "node-pool", "encryption"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(node_pool_imds_v2_only, NODE_POOL)
examines(instance_imds_v2_only, *INSTANCE_OPTIONS)
examines(node_pool_pv_encryption_in_transit, NODE_POOL)

POLICIES = [node_pool_imds_v2_only, instance_imds_v2_only, node_pool_pv_encryption_in_transit]

#: How each rule behaves when a value it reads is unknown during preview.
UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "node-pool-imds-v2-only": "fails closed: an unknown nodeMetadata or IMDS key is an (advisory) violation",
    "instance-imds-v2-only": "fails closed: an unknown areLegacyImdsEndpointsDisabled is an (advisory) violation",
    "node-pool-pv-encryption-in-transit": ("fails closed: an unknown nodeConfigDetails or flag is an (advisory) "
                                           "violation"),
}
