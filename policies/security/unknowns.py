"""IAM statements hidden by an unknown value: refused unless they are derived from resources of this stack.

* ``iam-statements-readable`` (MANDATORY, stack): an ``oci:Identity/policy:Policy`` whose ``statements`` (the list or
  an item) are unknown during preview must have a property dependency on a resource of this stack for
  ``statements``. The identity and node-access rules (``iam-no-identity-escalation``, ``iam-no-node-access``,
  ``iam-no-manage-all-resources``, ...) cannot read an unknown statement; the engine reports them as not run
  (advisory).

Why not refuse every unknown statement: Pulumi resolves ``Output.concat`` of known text and an unknown OCID to one
unknown string, so a statement that names a resource the same stack creates (a workload statement pinned to the
cluster's OCID, OKE docs "Granting Workloads Access to OCI Resources") is unknown at every first preview; ``pulumi
up`` previews first and stops on a mandatory violation, so refusing it would make such a stack impossible to deploy.
Its text is known when ``pulumi up`` registers the policy, and the engine runs the identity rules on it then, before
the policy is created. A statement unknown *without* a dependency on any resource of the stack comes from nothing
the update will resolve before it is judged (an unknown value the program made up, an invoke or a value of another
stack unknown at preview) and is refused: the class "a property a rule reads hidden by an unknown value" fails
closed wherever waiting for ``pulumi up`` is not what hides it.

Sources: Pulumi docs "Inputs and Outputs" (unknown outputs during preview), "Policy as Code: enforcement levels"
(a mandatory violation fails the preview of ``pulumi up``); pulumi-policy 1.21 ``policy.py`` (an
``UnknownValueError`` becomes the advisory "can't run policy ... during preview").
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import (EnforcementLevel, ReportViolation, Severity, StackValidationArgs,
                           StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read

POLICY_NAME = "iam-statements-readable"
POLICY = "oci:Identity/policy:Policy"


def unknown_statements(props: Any) -> list[str]:
    """Where the statements of a policy are unknown: ``["statements"]`` for the whole list, else each item."""
    items = elements(read(props, "statements"))
    if items is UNKNOWN:
        return ["statements"]
    return [f"statements[{i}]" for i, s in enumerate(items) if s is UNKNOWN]


def validate_statements_readable(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse unknown statements that depend on no resource of the stack (see the module docstring)."""
    urns = {r.urn for r in args.resources}
    for r in args.resources:
        if r.resource_type != POLICY:
            continue
        where = unknown_statements(r.props)
        if not where:
            continue
        deps = [d for d in (r.property_dependencies or {}).get("statements", []) if getattr(d, "urn", None) in urns]
        if deps:
            continue  # known when pulumi up registers the policy; the identity rules judge it then
        report_violation(
            f"Policy '{r.name}': {', '.join(where)} are unknown during preview and derive from no resource of this "
            f"stack, so no identity or node-access rule can read them before they take effect. Give the statements "
            f"as literal text (an OCID of this stack's resources may be interpolated).", r.urn)


iam_statements_readable = StackValidationPolicy(
    name=POLICY_NAME,
    description="IAM statements unknown during preview are refused unless they derive from resources of this "
                "stack (they are then judged at pulumi up).",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Write the statements as literal text; interpolate only OCIDs of resources this stack "
                       "declares. A statement nobody can read at preview is refused, never passed."),
    tags=["identity", "node-access", "fail-closed"],
    validate=validate_statements_readable,
)

POLICIES = [iam_statements_readable]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: an unknown statement is a violation unless its property dependencies name a "
                 "resource of this stack",
}
