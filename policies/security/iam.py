"""IAM rules: least-privilege policy statements for OKE platforms (any stack, not only oke-rdma's).

Rules read the ``statements`` of ``oci:Identity/policy:Policy`` resources and parse each one with
:func:`parse_statement`, a small parser of OCI's policy syntax (IAM docs "Policy Syntax", "Conditions"):

    statement := ("Allow" | "Endorse" | "Admit") subject "to" (verb resource | "{" PERMISSION, ... "}")
                 "in" location [ "where" condition ]
    condition := leaf | ("all" | "any") "{" condition { "," condition } "}"
    leaf      := variable operator value        (value '...', "..." (same meaning), a pattern /.../ or a bare word)

A condition *restricts* a variable when every request it admits has that variable pinned to an exact value with
``=``: a leaf ``v = 'x'`` (a pattern such as ``v = /*/`` matches many values and never restricts); ``all {...}`` when any member restricts it; ``any {...}`` when every member does.

| rule                                   | kind     | checks                                                        |
|----------------------------------------|----------|---------------------------------------------------------------|
| iam-no-manage-all-resources            | resource | no statement grants ``manage all-resources``                  |
| iam-any-user-restricts-principal-type  | resource | every ``any-user`` statement restricts request.principal.type |
| iam-workload-statement-scoped          | resource | a workload statement restricts cluster_id, namespace and      |
|                                        |          | service_account (and the type to 'workload')                  |
| iam-compute-cluster-launch-statement   | stack    | a node pool in a Compute Cluster has the launch statement     |

The same parser (cached: each statement text is parsed once) serves ``identity.py``, which judges what a statement
lets a principal do to IAM itself (``iam-no-identity-escalation``, ``iam-no-admin-group-membership``).

Unknown values. A statement that embeds an OCID not yet known (e.g. the cluster's, in a workload condition) is
unknown *as a whole* during preview: Pulumi resolves an ``Output.concat`` of known text and an unknown id to one
unknown string. The resource rules therefore check every known statement of the policy first, then let the engine
report the rule as not run for the unknown ones ("can't run policy ... during preview", advisory); at ``pulumi up``
the statements are known before the policy is created and the rule runs on them for real. The stack rule fails
closed: a stack rule is the last check before resources exist, and the launch statement never needs an unknown value.

Sources: OCI IAM docs "Policy Syntax", "Conditions", "Verbs"; OKE docs "Granting Workloads Access to OCI Resources"
(workload conditions), "Using Compute Clusters to Provision Managed Nodes" and oracle-quickstart/oci-hpc-oke (launch
statement ``{COMPUTE_CLUSTER_LAUNCH_INSTANCE}`` for ``request.principal.type = 'nodepool'``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from typing import Any, Optional, Union

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies` (tests, offline/)
    from ._rules import NODE_POOL, UNKNOWN, elements, is_set, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/
    from _rules import NODE_POOL, UNKNOWN, elements, is_set, read
    from _gate import examines

POLICY = "oci:Identity/policy:Policy"
LAUNCH_PERMISSION = "COMPUTE_CLUSTER_LAUNCH_INSTANCE"
WORKLOAD_SCOPE = ("request.principal.cluster_id", "request.principal.namespace", "request.principal.service_account")
_STATEMENT = re.compile(
    r"^(?P<action>allow|endorse|admit)\s+(?P<subject>.+?)\s+to\s+(?:\{(?P<perms>[^}]*)\}|(?P<verb>\S+)\s+"
    r"(?P<resource>\S+))\s+in\s+(?P<location>.+?)(?:\s+where\s+(?P<where>.+))?$", re.IGNORECASE | re.DOTALL)
_LEAF = re.compile(r"\s*(?P<var>[A-Za-z0-9_.\-]+)\s*(?P<op>!=|=)\s*(?:'(?P<q>[^']*)'|\"(?P<dq>[^\"]*)\"|"
                   r"/(?P<pattern>[^/]*)/|(?P<bare>[^\s,{}'\"/]+))\s*")
_DOC = "OCI IAM docs: Policy Syntax, Conditions; OKE docs: Granting Workloads Access to OCI Resources"
#: How deep ``all {...}``/``any {...}`` groups may nest before the parser refuses the statement (a statement it cannot
#: read is refused by the rules, never passed, and never a crash). OCI documents no limit; real conditions nest two or
#: three levels (IAM docs "Conditions", "Advanced Policy Features").
MAX_CONDITION_DEPTH = 16
#: The locations OCI's policy syntax allows (IAM docs "Policy Syntax": ``in tenancy``, ``in compartment <name>``,
#: ``in compartment id <ocid>``, a path ``<a>:<b>``; Endorse/Admit statements name a defined tenancy alias or
#: ``any-tenancy``: IAM docs "Cross-Tenancy Access Policies"). Anything
#: else after ``in`` — such as a second statement run into the first — is outside the grammar.
_LOCATION = re.compile(r"^(any-tenancy|tenancy(\s+\S+)?|compartment(\s+id)?\s+\S+)$", re.IGNORECASE)
#: A line break or ';' followed by a statement verb: one string holding more than one statement.
_SECOND_STATEMENT = re.compile(r"[\n\r;]\s*(allow|endorse|admit|define|deny)\b", re.IGNORECASE)


class StatementSyntaxError(ValueError):
    """The statement is outside the grammar :func:`parse_statement` understands."""


@dataclass(frozen=True)
class Leaf:
    """``variable operator value`` (variable lowercased; value without its single or double quotes).

    ``pattern`` is True for an OCI pattern value ``/.../`` (``value`` is then the text between the slashes): a
    pattern matches a set of values, so it never pins a variable.
    """

    variable: str
    operator: str
    value: str
    pattern: bool = False


@dataclass(frozen=True)
class Group:
    """``all {...}`` or ``any {...}``."""

    quantifier: str  # "all" | "any"
    items: tuple[Union["Leaf", "Group"], ...]


Condition = Union[Leaf, Group]


@dataclass(frozen=True)
class Statement:
    """A parsed policy statement. ``verb``/``resource`` are None for a permission list (``permissions``)."""

    action: str  # "allow" | "endorse" | "admit"
    subject: str  # as written, single-spaced: "any-user", "group id ocid1.group...", "service oke"
    verb: Optional[str]
    resource: Optional[str]
    permissions: tuple[str, ...]
    location: str  # single-spaced: "tenancy", "compartment id <ocid>", "compartment <name>"
    condition: Optional[Condition]

    @property
    def compartment_id(self) -> Optional[str]:
        """The OCID of a ``compartment id <ocid>`` location, else None."""
        words = self.location.split()
        return words[2] if len(words) == 3 and [w.lower() for w in words[:2]] == ["compartment", "id"] else None


def _parse_condition(text: str, pos: int = 0, depth: int = 1) -> tuple[Condition, int]:
    group = re.compile(r"\s*(all|any)\s*\{", re.IGNORECASE).match(text, pos)
    if group:
        if depth > MAX_CONDITION_DEPTH:
            raise StatementSyntaxError(f"its condition nests all/any groups deeper than {MAX_CONDITION_DEPTH} levels, "
                                       f"the most this parser reads")
        items: list[Condition] = []
        pos = group.end()
        while True:
            item, pos = _parse_condition(text, pos, depth + 1)
            items.append(item)
            sep = re.compile(r"\s*([,}])").match(text, pos)
            if not sep:
                raise StatementSyntaxError(f"expected ',' or '}}' at {text[pos:pos + 20]!r}")
            pos = sep.end()
            if sep.group(1) == "}":
                return Group(group.group(1).lower(), tuple(items)), pos
    leaf = _LEAF.match(text, pos)
    if not leaf:
        raise StatementSyntaxError(f"expected <variable> = <value> at {text[pos:pos + 30]!r}")
    value = next(leaf.group(g) for g in ("q", "dq", "pattern", "bare") if leaf.group(g) is not None)
    return Leaf(leaf.group("var").lower(), leaf.group("op"), value, leaf.group("pattern") is not None), leaf.end()


@lru_cache(maxsize=4096)  # every IAM rule reads the same statements: each text is parsed once
def parse_statement(text: str) -> Statement:
    """Parse one OCI policy statement (see the module docstring for the grammar).

    :raises StatementSyntaxError: when the statement is outside that grammar (``Define`` statements, operators
        other than ``=``/``!=``, unbalanced braces, a location OCI does not define, more than one statement in the
        string, conditions nested deeper than :data:`MAX_CONDITION_DEPTH`).
    """
    if _SECOND_STATEMENT.search(text):
        raise StatementSyntaxError("one string holds more than one statement; give each statement its own list item")
    flat = " ".join(text.split())
    m = _STATEMENT.match(flat)
    if not m:
        raise StatementSyntaxError("not 'Allow <subject> to <verb> <resource-type> in <location> [where ...]'")
    if not _LOCATION.match(m.group("location")):
        raise StatementSyntaxError(f"its location {m.group('location')!r} is not 'tenancy', 'compartment <name>' or "
                                   f"'compartment id <ocid>' (a second statement run into the first?)")
    condition = None
    if m.group("where"):
        condition, end = _parse_condition(m.group("where"))
        if m.group("where")[end:].strip():
            raise StatementSyntaxError(f"unexpected text after the condition: {m.group('where')[end:]!r}")
    perms = tuple(p.strip().upper() for p in (m.group("perms") or "").split(",") if p.strip())
    return Statement(m.group("action").lower(), m.group("subject"), (m.group("verb") or "").lower() or None,
                     (m.group("resource") or "").lower() or None, perms, m.group("location"), condition)


def restricts(condition: Optional[Condition], variable: str, values: Optional[set[str]] = None) -> bool:
    """Does ``condition`` pin ``variable`` to an exact value (one of ``values``, when given) for every request it
    admits? ``!=`` and pattern values (``/.../``) never pin."""
    if condition is None:
        return False
    if isinstance(condition, Leaf):
        return (condition.variable == variable and condition.operator == "=" and not condition.pattern
                and (values is None or condition.value.lower() in values))
    if condition.quantifier == "all":
        return any(restricts(c, variable, values) for c in condition.items)
    return bool(condition.items) and all(restricts(c, variable, values) for c in condition.items)


def mentions(condition: Optional[Condition], variable: str, value: Optional[str] = None) -> bool:
    """Does ``condition`` test ``variable`` anywhere (with ``value``, when given)?"""
    if condition is None:
        return False
    if isinstance(condition, Leaf):
        return condition.variable == variable and (value is None or condition.value.lower() == value)
    return any(mentions(c, variable, value) for c in condition.items)


def _known_statements(props: Any) -> tuple[list[tuple[int, str]], list[int]]:
    """(index, text) of every known statement, and the indexes of unknown ones (props read without raising)."""
    items = elements(read(props, "statements"))
    if items is UNKNOWN:
        return [], [-1]
    known = [(i, s) for i, s in enumerate(items) if isinstance(s, str)]
    return known, [i for i, s in enumerate(items) if s is UNKNOWN]


def _leave_unknowns_to_engine(props: Any, unknown: list[int]) -> None:
    """Read the first unknown statement through the engine's proxy, which raises its "can't run" error."""
    if unknown:
        statements = props["statements"]
        _ = statements[unknown[0]] if unknown[0] >= 0 else statements


def _statement_problems(text: str) -> tuple[list[str], list[str], list[str]]:
    """(manage-all-resources, any-user, workload) problems of one known statement."""
    manage_all: list[str] = []  # an unparseable statement is refused by iam-no-identity-escalation
    try:
        st = parse_statement(text)
    except StatementSyntaxError as e:
        any_user = ([f"is an any-user statement this rule cannot parse ({e}), so its where clause cannot be "
                     f"verified"] if re.match(r"\s*allow\s+any-(user|group)\b", text, re.IGNORECASE) else [])
        workload = ([f"mentions workload principals but cannot be parsed ({e})"]
                    if re.search(r"request\.principal\.(type\s*=\s*['\"/]?workload|namespace|service_account|"
                                 r"cluster_id)", text, re.IGNORECASE) else [])
        return manage_all, any_user, workload
    if st.verb == "manage" and st.resource == "all-resources":
        manage_all = ["grants 'manage all-resources'"]
    any_user = []
    broad = {"any-user", "any-group"} & {part.strip().lower() for part in st.subject.split(",")}
    if broad:  # also "group A, any-user"; any-group (every user in any group) is as broad as any-user
        who = sorted(broad)[-1]
        if st.condition is None:
            any_user = [f"lets {who} in with no where clause"]
        elif not restricts(st.condition, "request.principal.type"):
            any_user = [f"lets {who} in with a where clause that does not restrict request.principal.type"]
    workload = []
    if mentions(st.condition, "request.principal.type", "workload") or any(
            mentions(st.condition, v) for v in WORKLOAD_SCOPE):
        missing = [v.rsplit(".", 1)[1] for v in WORKLOAD_SCOPE if not restricts(st.condition, v)]
        if not restricts(st.condition, "request.principal.type", {"workload"}):
            missing.insert(0, "type = 'workload'")
        if missing:
            workload = [f"is a workload statement that does not restrict {', '.join(missing)}"]
        elif restricts(st.condition, "request.principal.service_account", {"default"}):
            # Kubernetes docs "Service Accounts": a pod that names no ServiceAccount runs as "default" (2026-12-01).
            workload = ["is a workload statement pinned to the ServiceAccount 'default', which every pod of the "
                        "namespace that names no ServiceAccount runs as"]
    return manage_all, any_user, workload


def _policy_rule(which: int, fix: str):
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type != POLICY:
            return
        known, unknown = _known_statements(args.props)
        for i, text in known:
            for problem in _statement_problems(text)[which]:
                report_violation(f"Policy '{args.name}' statements[{i}] {problem}: {text!r}. {fix}", None)
        _leave_unknowns_to_engine(args.props, unknown)
    return validate


validate_no_manage_all_resources = _policy_rule(
    0, "Name the resource types the principal needs (e.g. 'manage objects') instead of all-resources.")
validate_any_user_principal_type = _policy_rule(
    1, "Add where request.principal.type = '<workload|cluster|nodepool|...>' (inside 'where all {...}' with any "
       "other conditions).")
validate_workload_scoped = _policy_rule(
    2, "Pin the workload with where all {request.principal.type = 'workload', request.principal.namespace = "
       "'<ns>', request.principal.service_account = '<sa>', request.principal.cluster_id = '<cluster OCID>'}.")


def _launch_covers(st: Statement, compartment: Any) -> bool:
    if st.action != "allow" or st.subject.lower() != "any-user" or LAUNCH_PERMISSION not in st.permissions:
        return False
    if not restricts(st.condition, "request.principal.type", {"nodepool"}):
        return False
    return st.location.lower() == "tenancy" or st.compartment_id == compartment


def validate_launch_statement(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``iam-compute-cluster-launch-statement``.

    Every node pool with ``nodeConfigDetails.computeClusterId`` needs, in some policy of the stack, ``Allow
    any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in <tenancy | compartment id <the pool's compartment>> where
    request.principal.type = 'nodepool'`` (or inside ``where all {...}``). Config ``statementsManagedOutsideStack:
    true`` (for stacks whose administrators apply the statements, ``iam.createPolicies: false``) turns it off.
    Unknowns fail closed: an unknown pool compartment, or no known launch statement while some statements are
    unknown, is a violation.
    """
    if (args.get_config() or {}).get("statementsManagedOutsideStack"):
        return
    statements: list[Statement] = []
    unknown_in: list[str] = []
    for r in args.resources:
        if r.resource_type != POLICY:
            continue
        known, unknown = _known_statements(r.props)
        if unknown:
            unknown_in.append(r.name)
        for _, text in known:
            try:
                statements.append(parse_statement(text))
            except StatementSyntaxError:
                continue
    for pool in args.resources:
        if pool.resource_type != NODE_POOL or not is_set(pool.props, "nodeConfigDetails", "computeClusterId"):
            continue
        compartment = read(pool.props, "compartmentId")
        if compartment is UNKNOWN:
            report_violation(f"Node pool '{pool.name}' is placed in a Compute Cluster but its compartmentId is "
                             "unknown during preview, so its launch statement cannot be matched; pass the "
                             "compartment OCID as a literal.", pool.urn)
            continue
        if any(_launch_covers(st, compartment) for st in statements):
            continue
        why = (f"; the statements of {', '.join(unknown_in)} are unknown during preview and cannot be searched"
               if unknown_in else "")
        report_violation(f"Node pool '{pool.name}' is placed in a Compute Cluster, but no policy of the stack has "
                         f"\"Allow any-user to {{{LAUNCH_PERMISSION}}} in compartment id {compartment} where "
                         f"request.principal.type = 'nodepool'\"{why}. Without it OKE cannot launch the pool's nodes "
                         f"into the Compute Cluster. If an administrator applies it outside the stack "
                         f"(iam.createPolicies: false), give this pack the config "
                         f"{{\"iam-compute-cluster-launch-statement\": {{\"statementsManagedOutsideStack\": true}}}} "
                         f"(docs/policy-config.md).", pool.urn)


iam_no_manage_all_resources = ResourceValidationPolicy(
    name="iam-no-manage-all-resources",
    description="No IAM policy statement grants 'manage all-resources'.",
    validate=validate_no_manage_all_resources,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Replace 'manage all-resources' with the verbs and resource types the principal needs "
                       f"(e.g. 'read objects', 'use virtual-network-family'). Source: {_DOC}."),
    tags=["iam", "least-privilege"],
)

iam_any_user_restricts_principal_type = ResourceValidationPolicy(
    name="iam-any-user-restricts-principal-type",
    description="Every 'Allow any-user' IAM statement has a where clause restricting request.principal.type.",
    validate=validate_any_user_principal_type,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("any-user matches every principal, users of other tenancies' endorsements included: add "
                       "where request.principal.type = '<workload|cluster|nodepool|...>' (with further conditions "
                       f"inside 'where all {{...}}'). Source: {_DOC}."),
    tags=["iam", "least-privilege"],
)

iam_workload_statement_scoped = ResourceValidationPolicy(
    name="iam-workload-statement-scoped",
    description=("Every Workload Identity statement restricts request.principal.cluster_id, namespace and "
                 "service_account."),
    validate=validate_workload_scoped,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("A workload is identified by cluster, namespace and service account together; without all "
                       "three, any pod of another cluster or namespace with that name gets the access. Write where "
                       "all {request.principal.type = 'workload', request.principal.namespace = '<ns>', "
                       "request.principal.service_account = '<sa>', request.principal.cluster_id = '<OCID>'}. "
                       f"Source: {_DOC}."),
    tags=["iam", "workload-identity", "least-privilege"],
)

iam_compute_cluster_launch_statement = StackValidationPolicy(
    name="iam-compute-cluster-launch-statement",
    description=("A stack with a node pool in an OCI Compute Cluster has the statement that lets node pools "
                 "launch into it."),
    validate=validate_launch_statement,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Add a policy with 'Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id "
                       "<node pool compartment> where request.principal.type = 'nodepool'' and make the node pools "
                       "depend on it. If an administrator applies it outside the stack (oke-rdma: "
                       "iam.createPolicies: false), set statementsManagedOutsideStack: true for this policy in the "
                       "policy pack config. Source: OKE docs, Using Compute Clusters to Provision Managed Nodes."),
    tags=["iam", "oke", "rdma"],
    config_schema=PolicyConfigSchema(properties={"statementsManagedOutsideStack": {
        "type": "boolean", "default": False,
        "description": "the launch statement is applied by an administrator, outside the stack"}}),
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(iam_no_manage_all_resources, POLICY)
examines(iam_any_user_restricts_principal_type, POLICY)
examines(iam_workload_statement_scoped, POLICY)

POLICIES = [iam_no_manage_all_resources, iam_any_user_restricts_principal_type, iam_workload_statement_scoped,
            iam_compute_cluster_launch_statement]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "iam-no-manage-all-resources": ("engine note: can't run on a statement unknown at preview (it embeds an OCID "
                                    "not known yet); the known statements are checked, all of them at pulumi up"),
    "iam-any-user-restricts-principal-type": ("engine note: can't run on a statement unknown at preview; the known "
                                              "statements are checked, all of them at pulumi up"),
    "iam-workload-statement-scoped": ("engine note: can't run on a statement unknown at preview (workload "
                                      "statements embed the cluster OCID); all are checked at pulumi up"),
    "iam-compute-cluster-launch-statement": ("fails closed: an unknown pool compartment, or no known launch "
                                             "statement while some statements are unknown, is a violation"),
}
