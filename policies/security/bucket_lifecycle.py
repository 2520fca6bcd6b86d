"""Lifecycle rules never delete what the stack protects: ``bucket-lifecycle-keeps-protected-data`` (MANDATORY, stack).

An ``oci:ObjectStorage/objectLifecyclePolicy:ObjectLifecyclePolicy`` whose bucket is one the stack declares with the
``protect`` resource option may move objects between tiers (``ARCHIVE``, ``INFREQUENT_ACCESS``: the data stays) and
abort uncommitted multipart uploads (``ABORT``: no object was ever committed), but a rule with action ``DELETE`` —
on ``objects`` or ``previous-object-versions``, whatever its ``objectNameFilter`` or age — is refused: OCI deletes
those objects (or the old versions versioning keeps) permanently, which is what ``protect`` and the versioning rule
are there to prevent. A disabled rule (``isEnabled`` literally false) does nothing and passes.

The policy's bucket is linked by a property dependency on ``bucket`` to a Bucket of the stack, else by its name (and
namespace) equal to a protected Bucket's. Fail closed: with a protected bucket in the stack, a policy whose bucket,
rules, a rule's action or its ``isEnabled`` is unknown during preview (or not a text/boolean value) is refused.
Buckets the stack does not protect (scratch, logs) keep any lifecycle. ``retainOnDelete`` is not visible to the
analyzer (pulumi_policy ``PolicyResourceOptions`` carries ``protect`` only), so only ``protect`` marks data to keep.

Sources (checked 2026-12-02): pulumi_oci 5.5.0 ``objectstorage.ObjectLifecyclePolicy`` (``bucket``, ``namespace``,
``rules[].action`` ARCHIVE | INFREQUENT_ACCESS | DELETE | ABORT, ``target`` objects | previous-object-versions |
multipart-uploads, ``isEnabled``); Object Storage docs "Object Lifecycle Management"; pulumi_policy 1.21.0
``PolicyResourceOptions``.
"""
from __future__ import annotations

from typing import Any, Iterator

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read

POLICY_NAME = "bucket-lifecycle-keeps-protected-data"
BUCKET = "oci:ObjectStorage/bucket:Bucket"
LIFECYCLE = "oci:ObjectStorage/objectLifecyclePolicy:ObjectLifecyclePolicy"
DELETING_ACTIONS = ("DELETE",)


def _protected_buckets(resources: list[Any]) -> list[Any]:
    return [r for r in resources if r.resource_type == BUCKET and getattr(r.opts, "protect", False)]


def _targets(policy: Any, protected: list[Any]) -> Any:
    """The protected buckets ``policy`` governs: a list, or UNKNOWN when its bucket cannot be told apart."""
    deps = [d for d in (policy.property_dependencies or {}).get("bucket", []) if d.resource_type == BUCKET]
    if deps:
        return [d for d in deps if d in protected]
    name, namespace = read(policy.props, "bucket"), read(policy.props, "namespace")
    if name is UNKNOWN or not isinstance(name, str):
        return UNKNOWN
    return [b for b in protected if read(b.props, "name") in (name, UNKNOWN)
            and read(b.props, "namespace") in (namespace, UNKNOWN, None)]


def deleting_rules(props: Any) -> Iterator[str]:
    """Why a lifecycle policy's rules may delete objects or old versions (nothing when none does)."""
    rules = elements(read(props, "rules"))
    if rules is UNKNOWN:
        yield "its rules are unknown during preview"
        return
    for i, rule in enumerate(rules):
        action, enabled = read(rule, "action"), read(rule, "isEnabled")
        label = f"rules[{i}]" + (f" '{read(rule, 'name')}'" if isinstance(read(rule, "name"), str) else "")
        if enabled is False:
            continue
        if action is UNKNOWN or not isinstance(action, str):
            yield f"{label} has an action {'unknown during preview' if action is UNKNOWN else 'that is no text'}"
        elif action.strip().upper() in DELETING_ACTIONS:
            if enabled is not True:
                yield f"{label} deletes and its isEnabled is not the literal true or false"
            else:
                target = read(rule, "target")
                what = target if isinstance(target, str) else "objects"
                yield f"{label} deletes {what} permanently (action {action})"


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``bucket-lifecycle-keeps-protected-data`` (see the module docstring)."""
    protected = _protected_buckets(args.resources)
    if not protected:
        return
    for policy in args.resources:
        if policy.resource_type != LIFECYCLE:
            continue
        targets = _targets(policy, protected)
        if targets is not UNKNOWN and not targets:
            continue
        which = ("a bucket unknown during preview (the stack protects "
                 + ", ".join(f"'{b.name}'" for b in protected) + ")") if targets is UNKNOWN else \
            "protected bucket " + ", ".join(f"'{b.name}'" for b in targets)
        for why in deleting_rules(policy.props):
            report_violation(f"Object lifecycle policy '{policy.name}' on {which}: {why}. The stack protects that "
                             f"data; use ARCHIVE or INFREQUENT_ACCESS, or keep deletion out of this bucket.",
                             policy.urn)


bucket_lifecycle_keeps_protected_data = StackValidationPolicy(
    name=POLICY_NAME,
    description=("An object lifecycle policy on a bucket the stack protects never deletes its objects or their "
                 "previous versions."),
    validate=validate,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Remove the DELETE rules (or set isEnabled: false) from the lifecycle policy of a protected "
                       "bucket; ARCHIVE, INFREQUENT_ACCESS and ABORT (of multipart uploads) keep the data. Source: "
                       "Object Storage docs, Object Lifecycle Management."),
    tags=["storage", "data"],
)

POLICIES = [bucket_lifecycle_keeps_protected_data]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: ("fails closed: with a protected bucket in the stack, an unknown bucket, rules list, action or "
                  "isEnabled of a deleting rule is a violation"),
}
