"""Principal sets and targets wider than they read: a dynamic group whose matching rule admits every instance or
resource of a type, and a grant pinned by name to the very bucket the stack protects.

* **A dynamic group is its matching rule.** ``ANY {resource.type = 'instance'}`` is every instance of the tenancy —
  every tenant's nodes, every self-managed VM — the same principal set ``iam-principal-type-pinned`` refuses when it
  is written as ``any-user`` with ``request.principal.type = 'instance'``. A matching rule (IAM docs "Writing Matching
  Rules to Define Dynamic Groups", read 2026-12-02: ``variable = | != 'value'``, ``any|all {<condition>, ...}``;
  variables ``instance.id``, ``instance.compartment.id``, ``resource.id``, ``resource.compartment.id``,
  ``resource.type`` — the type segment of the resource's OCID, ``fnfunc``, ``apigateway``, ``domain``, ... — and
  ``tag.<namespace>.<key>.value``) pins its members when every request it admits carries an exact ``=`` on an
  id or compartment id (:data:`MEMBER_PINS`): a leaf ``instance.compartment.id = '<ocid>'``, ``all {...}`` with one
  such member, ``any {...}`` whose every member pins. ``resource.type`` alone, ``!=`` and tags do not pin: a tag is
  on whatever anyone allowed to tag a resource puts it on. A rule the pack cannot read is refused (fail closed).
* **A name pin to the protected bucket.** ``iam-no-run-time-undo`` lets ``manage objects`` pinned by
  ``target.bucket.name`` through — what a tenant's own bucket needs. Pinned to a bucket the stack declares
  ``protect``-ed, the same grant deletes every object and every old version ``bucket-protected-data-versioned``
  keeps (OBJECT_DELETE, OBJECT_VERSION_DELETE), and ``use``/``manage buckets`` suspends its versioning, makes it
  public or mints pre-authenticated requests (BUCKET_UPDATE, PAR_MANAGE) — IAM docs "Details for Object Storage,
  Archive Storage, and Data Transfer" (read 2026-12-02). Names compare case-insensitively: OCI "Conditions" —
  condition matching is case-insensitive, so ``'MODEL-WEIGHTS'`` is ``model-weights``. ``target.bucket.id`` pins
  compare with the bucket's id. A bucket the stack brings rather than declares (the weights bucket of
  ``storage.objectStorage.bucket``) is listed by name in the rule's ``protectedBuckets`` config (the pack cannot
  read stack config). Subjects: everyone but a provider's own service (``Allow service ...``) and the groups this
  rule's ``adminGroups`` lists.

| rule                         | kind     | checks                                                                   |
|------------------------------|----------|--------------------------------------------------------------------------|
| iam-dynamic-group-pinned     | resource | a DynamicGroup's matching rule pins its members to ids or compartments   |
| iam-protected-bucket-kept    | stack    | no grant pinned to a protected bucket of the stack deletes its objects   |
|                              |          | or versions, changes its access or versioning, or mints PARs             |
"""
from __future__ import annotations

from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, read
    from .iam import (POLICY, Condition, Group, Leaf, StatementSyntaxError, _known_statements, _parse_condition,
                      parse_statement)
    from .node_access import VERBS, pinned_values
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, read
    from iam import (POLICY, Condition, Group, Leaf, StatementSyntaxError, _known_statements, _parse_condition,
                     parse_statement)
    from node_access import VERBS, pinned_values

DYNAMIC_GROUP = "oci:Identity/dynamicGroup:DynamicGroup"
BUCKET = "oci:ObjectStorage/bucket:Bucket"
#: Matching-rule variables that pin a dynamic group's members to one resource or one compartment's.
MEMBER_PINS = frozenset({"instance.id", "instance.compartment.id", "resource.id", "resource.compartment.id"})
#: Object Storage permissions that destroy or expose a bucket's data (IAM "Details for Object Storage ..."):
#: deleting objects and old versions, the bucket's update (versioning, public access type), deletion, PARs,
#: retention rules.
DESTRUCTIVE = frozenset({"OBJECT_DELETE", "OBJECT_VERSION_DELETE", "BUCKET_UPDATE", "BUCKET_DELETE", "PAR_MANAGE",
                         "RETENTION_RULE_MANAGE", "RETENTION_RULE_LOCK_OVERRIDE"})
_BUCKET_MANAGE = frozenset({"BUCKET_UPDATE", "BUCKET_DELETE", "PAR_MANAGE", "RETENTION_RULE_MANAGE",
                            "RETENTION_RULE_LOCK_OVERRIDE"})
_OBJECT_MANAGE = frozenset({"OBJECT_DELETE", "OBJECT_VERSION_DELETE"})
#: resource type -> verb -> the :data:`DESTRUCTIVE` permissions it holds (``use buckets``: BUCKET_UPDATE; ``manage
#: buckets``: deletion, PARs, retention rules; ``manage objects``: OBJECT_DELETE, OBJECT_VERSION_DELETE; the family
#: and all-resources hold their members').
HELD: dict[str, dict[str, frozenset[str]]] = {
    "objects": {"manage": _OBJECT_MANAGE},
    "buckets": {"use": frozenset({"BUCKET_UPDATE"}), "manage": _BUCKET_MANAGE},
    **{t: {"use": frozenset({"BUCKET_UPDATE"}), "manage": _BUCKET_MANAGE | _OBJECT_MANAGE}
       for t in ("object-family", "all-resources")},
}
_DOC = ("OCI IAM docs: Writing Matching Rules to Define Dynamic Groups, Conditions, Details for Object Storage, "
        "Archive Storage, and Data Transfer")


def pins_members(condition: Condition) -> bool:
    """Does every principal the matching rule admits carry an exact ``=`` on one of :data:`MEMBER_PINS`?"""
    if isinstance(condition, Leaf):
        return (condition.variable in MEMBER_PINS and condition.operator == "=" and not condition.pattern
                and "*" not in condition.value and bool(condition.value.strip()))
    assert isinstance(condition, Group)
    if condition.quantifier == "all":
        return any(pins_members(c) for c in condition.items)
    return bool(condition.items) and all(pins_members(c) for c in condition.items)


def matching_rule_problem(rule: Any) -> Optional[str]:
    """Why a matching rule admits principals pinned to no id or compartment, or None."""
    if rule is UNKNOWN:
        return "has a matching rule unknown during preview, so its members cannot be judged; write it from known values"
    if not isinstance(rule, str) or not rule.strip():
        return "has no matching rule text the pack can read"
    try:
        condition, end = _parse_condition(rule.strip())
    except StatementSyntaxError as e:
        return f"has a matching rule the pack cannot read ({e}), so its members cannot be judged"
    if rule.strip()[end:].strip():
        return f"has text after its matching rule ({rule.strip()[end:].strip()[:30]!r}), so it cannot be judged"
    if pins_members(condition):
        return None
    return (f"has the matching rule {rule.strip()!r}, which admits principals pinned to no instance, resource or "
            f"compartment id (resource.type, tags and != never pin: {{resource.type = 'instance'}} is every instance "
            f"of the tenancy, every tenant's)")


def validate_dynamic_group_pinned(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``iam-dynamic-group-pinned``: see the module docstring."""
    if args.resource_type != DYNAMIC_GROUP:
        return
    problem = matching_rule_problem(read(args.props, "matchingRule"))
    if problem:
        report_violation(f"DynamicGroup '{args.name}' {problem}. Add instance.compartment.id, resource.compartment.id, "
                         "instance.id or resource.id = '<ocid>' inside all {...} (for every member of any {...}).",
                         None)


def _protected_buckets(resources: list[Any]) -> tuple[set[str], set[str], bool]:
    """(lowercased names, ids, whether a protected bucket's name is unknown) of the stack's protected buckets."""
    names, ids, unknown = set(), set(), False
    for r in resources:
        if r.resource_type != BUCKET or not getattr(getattr(r, "opts", None), "protect", False):
            continue
        name, rid = read(r.props, "name"), read(r.props, "id")
        if isinstance(name, str):
            names.add(name.lower())
        else:
            unknown = True
        if isinstance(rid, str):
            ids.add(rid)
    return names, ids, unknown


def destroys(st: Any) -> list[str]:
    """The :data:`DESTRUCTIVE` permissions one statement holds (verb or permission list, narrowed by a
    ``request.permission`` pin); [] when none."""
    if st.verb in VERBS and st.resource:
        held = HELD.get(st.resource, {}).get(st.verb, frozenset())
    else:
        held = frozenset(st.permissions) & DESTRUCTIVE
    pinned = pinned_values(st.condition, "request.permission")
    if pinned is not None:
        held = held & {p.upper() for p in pinned}
    return sorted(held)


def _admin(st: Any, admins: set[str]) -> bool:
    words = st.subject.split()
    if not words or words[0].lower() not in {"group", "dynamic-group"}:
        return False
    names = {w.strip(",'\"").lower() for w in words[1:] if w.lower() != "id"}
    return bool(names) and names <= admins


def protected_bucket_grants(resources: list[Any], admins: set[str],
                            brought: frozenset[str] = frozenset()) -> list[tuple[Any, str]]:
    """(policy resource, problem) for every statement pinned to a protected bucket — declared with ``protect`` in
    the stack, or named in ``brought`` (lowercased: buckets that exist outside the stack) — that destroys or exposes
    it."""
    names, ids, unknown = _protected_buckets(resources)
    names |= brought
    if not names and not ids and not unknown:
        return []
    found = []
    for p in resources:
        if p.resource_type != POLICY:
            continue
        for i, text in _known_statements(p.props)[0]:
            try:
                st = parse_statement(text)
            except StatementSyntaxError:
                continue  # refused by iam-no-identity-escalation
            if st.action != "allow" or st.subject.lower().startswith("service ") or _admin(st, admins):
                continue
            held = destroys(st)
            pinned = {n.lower() for n in pinned_values(st.condition, "target.bucket.name") or ()}
            pinned_ids = set(pinned_values(st.condition, "target.bucket.id") or ())
            if not held or not (pinned or pinned_ids):
                continue  # unpinned grants: iam-no-run-time-undo
            hit = sorted(pinned & names) + sorted(pinned_ids & ids)
            if hit:
                found.append((p, f"statements[{i}] pins the protected bucket {', '.join(map(repr, hit))} (names "
                                 f"match case-insensitively) and holds {', '.join(held)}: {text!r}"))
            elif unknown and pinned:
                found.append((p, f"statements[{i}] holds {', '.join(held)} on a bucket it names, and a protected "
                                 f"bucket's name is unknown during preview, so it may be that bucket: {text!r}"))
    return found


def validate_protected_bucket_kept(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``iam-protected-bucket-kept``: see the module docstring."""
    config = args.get_config() or {}
    admins = {str(a).strip().lower() for a in (config.get("adminGroups") or ())}
    brought = frozenset(str(b).strip().lower() for b in (config.get("protectedBuckets") or ()))
    for policy, problem in protected_bucket_grants(list(args.resources), admins, brought):
        report_violation(f"Policy '{policy.name}' {problem}. That deletes or exposes at run time the data the stack "
                         "protects; grant read objects (and {OBJECT_CREATE, OBJECT_OVERWRITE} under a prefix for "
                         "writes), or pin request.permission to permissions that delete nothing.", policy.urn)


iam_dynamic_group_pinned = ResourceValidationPolicy(
    name="iam-dynamic-group-pinned",
    description=("A dynamic group's matching rule pins its members to instance/resource ids or compartment ids "
                 "(resource.type, tags and != admit every such principal of the tenancy)."),
    validate=validate_dynamic_group_pinned,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Write the rule as ALL {resource.type = '<type>', resource.compartment.id = '<ocid>'} (or "
                       f"instance.compartment.id / instance.id / resource.id). Source: {_DOC}."),
    tags=["iam", "least-privilege"],
)

iam_protected_bucket_kept = StackValidationPolicy(
    name="iam-protected-bucket-kept",
    description=("No grant pinned by name or id to a bucket the stack protects may delete its objects or old "
                 "versions, change its access or versioning, or mint pre-authenticated requests (names match "
                 "case-insensitively)."),
    validate=validate_protected_bucket_kept,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Grant read objects/buckets on the protected bucket, writes as {OBJECT_CREATE, "
                       "OBJECT_OVERWRITE} pinned to a target.object.name prefix; list the platform administrators' "
                       f"groups in this rule's adminGroups. Source: {_DOC}."),
    tags=["iam", "data"],
    config_schema=PolicyConfigSchema(properties={
        "adminGroups": {"type": "array", "items": {"type": "string"}, "default": [],
                        "description": "groups (names or OCIDs) of the platform's administrators, whose grants this "
                                       "rule allows"},
        "protectedBuckets": {"type": "array", "items": {"type": "string"}, "default": [],
                             "description": "names of buckets outside the stack that are protected too (a brought "
                                            "weights bucket: storage.objectStorage.bucket.name)"}}),
)

POLICIES = [iam_dynamic_group_pinned, iam_protected_bucket_kept]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "iam-dynamic-group-pinned": "fails closed: an unknown or unreadable matching rule is a violation",
    "iam-protected-bucket-kept": ("fails closed: a destructive grant naming a bucket while a protected bucket's "
                                  "name is unknown is a violation; a statement unknown during preview is judged at "
                                  "pulumi up"),
}
