"""The offline preview's report with ``--previous``: only what changes and the findings, the same in a terminal and
in CI. Each changed resource with its changed properties ``old → new`` (secrets masked, a long value named rather
than printed), wrapped at the width and never cut inside a word; the counts, the Replacements (with the API
endpoint's in-place way when a subnet's public-IP setting replaces it), stateful, error and node-pool blocks of
:mod:`offline.report`; the warnings the program logged (info messages counted, and those the previous plan already
had); the policy findings (advisory ones the previous plan had counted); the IAM
statements only when they change; and only the stack outputs that change, path by path.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from offline.engine import ProgramRun
from offline.replacement import Change
from offline.stuck_updates import manual_block
from offline.report import (DEFAULT_WIDTH, IAM_OUTPUTS, OP_SYMBOLS, _counts, _header, _hide, _policy_lines,
                            diagnostics_block, errors_block, iam_section, node_pool_block, render_details,
                            render_summary, replacements_block, stateful_block, terminal_width, wrap)
from offline.config_diff import UNSET
from offline.values import mask


_wrap = wrap


#: A value longer than this is not printed in the change list (the JSON plan and --details hold it).
LONG_VALUE = 160
#: At most this many changed paths are listed per resource; the rest are counted.
MAX_PATHS = 6


def _value(value: Any) -> str:
    """A changed value for the change list: masked (secrets ``[secret]``), compact JSON for objects, ``(none)``
    for an absent one, ``(N characters)`` when longer than :data:`LONG_VALUE`."""
    if value is None:
        return "(none)"
    shown = mask(value)
    text = shown if isinstance(shown, str) else json.dumps(shown, sort_keys=True, separators=(",", ":"))
    text = _hide(text)
    return text if len(text) <= LONG_VALUE else f"({len(text)} characters: see --details or the JSON plan)"


#: A list item longer than this (compact JSON for a map) is not itemized: the list's changed paths are shown instead.
LONG_ITEM = 400


def _item_text(item: Any) -> str:
    shown = mask(item)
    return _hide(shown if isinstance(shown, str) else json.dumps(shown, sort_keys=True, separators=(",", ":")))


def _itemizable(value: Any) -> bool:
    """A list whose items read one per line: text, or flat maps (scalars or lists of scalars: RBAC rules, subjects)
    no longer than :data:`LONG_ITEM`."""
    def flat(item: Any) -> bool:
        if isinstance(item, dict):
            return all(not isinstance(v, (dict, list)) or (isinstance(v, list) and all(
                not isinstance(x, (dict, list)) for x in v)) for v in item.values())
        return not isinstance(item, list)
    return isinstance(value, list) and all(flat(i) and len(_item_text(i)) <= LONG_ITEM for i in value)


def _list_root(path: str, old: Optional[dict], new: Optional[dict]) -> Optional[str]:
    """The deepest list on ``path`` (the path itself or an ancestor) that is a list before and after and whose items
    are :func:`_itemizable`: its changes read as items added and removed."""
    from offline.replacement import _value_at, path_parts

    parts = path_parts(path)
    for end in range(len(parts), 0, -1):
        if end < len(parts) and not isinstance(parts[end], int):
            continue  # an ancestor counts only when the path goes on into one of its items
        prefix = path[:_prefix_length(path, end)]
        a, b = _value_at(old or {}, prefix), _value_at(new or {}, prefix)
        if isinstance(a, list) and isinstance(b, list) and _itemizable(a) and _itemizable(b) and (
                len(a) != len(b) or all(not isinstance(i, dict) for i in a + b)):
            return prefix  # maps of a list whose length holds read better by the field that changed (env[0].value)
    return None


def _prefix_length(path: str, parts: int) -> int:
    """The length of ``path``'s text covering its first ``parts`` parts."""
    import re as _re

    count = 0
    for m in _re.finditer(r'\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.\[\]]+)', path):
        count += 1
        if count == parts:
            return m.end()
    return len(path)


def list_change_lines(path: str, before: list, after: list, width: int, note: str = "") -> list[str]:
    """A list that changed, as its items removed (``-``) and added (``+``), multiset-wise (order changes alone are
    named, not itemized); a list that becomes unknown is one line. At most :data:`MAX_PATHS` item lines, the rest
    counted."""
    from collections import Counter

    if after and all(_item_text(i) == "[unknown]" for i in after):
        return _wrap(f"      {path}: {len(before)} items → [unknown] (known once the resources they name exist)",
                     width, "          ")
    old, new = Counter(_item_text(i) for i in before), Counter(_item_text(i) for i in after)
    removed, added = list((old - new).elements()), list((new - old).elements())
    if not removed and not added:
        return [f"      {path}: the same {len(after)} items in another order"]
    counts = ", ".join(filter(None, [f"{len(added)} added" if added else "", f"{len(removed)} removed"
                                     if removed else ""]))
    lines = _wrap(f"      {path}: {counts}{note}", width, "          ")
    if note:
        return lines
    items = [("-", t) for t in sorted(removed)] + [("+", t) for t in sorted(added)]
    for mark, text in items[:MAX_PATHS]:  # one word (a map as JSON) runs past the width rather than off its mark
        lines += _wrap(f"        {mark} {text}", width, "            ") if " " in text else [f"        {mark} {text}"]
    if len(items) > MAX_PATHS:
        lines.append(f"        … and {len(items) - MAX_PATHS} more (--details, the JSON plan)")
    return lines


def unused_reasons(changes: list[Change], previous_plan: Optional[dict],
                   config_changed: Optional[list] = None) -> dict[str, str]:
    """URN → why a deleted resource goes, where the report would otherwise leave it unsaid: every resource that
    depended on it in the previous plan (its ``dependencies``/``propertyDependencies``) is deleted too, so nothing
    uses it any more (a shared ClusterRole whose last RoleBinding goes: no tenant member has that role any more).
    A resource named after a map the config no longer has (``tenants.nlp``: Config changed says so above) and any
    other gets no reason."""
    import re as _re

    deleted = {c.urn for c in changes if c.op == "delete"}
    removed = [path for path, _old, new in config_changed or [] if new == UNSET and "." in path]
    named: dict[str, str] = {}
    for c in changes:
        for path in removed:
            member = path.rsplit(".", 1)[-1].strip('"[]')
            if c.op == "delete" and _re.search(rf"(^|-){_re.escape(member)}(-|$)", c.name):
                named[c.urn] = f"{path} was removed from the config"
                break
    users: dict[str, list[str]] = {}
    for r in (previous_plan or {}).get("resources", []):
        deps = set(r.get("dependencies") or []) | {u for v in (r.get("propertyDependencies") or {}).values()
                                                  for u in v or []}
        for dep in deps & deleted:
            users.setdefault(dep, []).append(r)
    out: dict[str, str] = {}  # a resource a removed config map explains gets no line of its own (Config changed)
    for urn, used_by in users.items():
        if urn not in named and used_by and all(r["urn"] in deleted for r in used_by):
            names = sorted({r["name"] for r in used_by})
            out[urn] = (f"nothing uses it any more: {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}, "
                        f"which {'did' if len(names) > 1 else 'was its last user'}, "
                        f"{'are' if len(names) > 1 else 'is'} deleted too")
    return out


def change_lines(change: Change, old: Optional[dict], new: Optional[dict], width: int,
                 listed_elsewhere: frozenset[str] = frozenset(), why: str = "") -> list[str]:
    """One changed resource: its operation, type and name, then each changed path ``old → new`` (at most
    :data:`MAX_PATHS`, the rest counted), wrapped at ``width`` without cutting a word. A list of text or flat maps
    (IAM statements, RBAC rules and subjects, CIDRs) reads as the items added and removed (``+``/``-``); the
    statements of a policy in ``listed_elsewhere`` are counted only (the IAM statements block shows them)."""
    from offline.replacement import _value_at

    head = f" {OP_SYMBOLS[change.op]} {change.type} {change.name} ({change.op})" + (f": {why}" if why else "")
    lines = _wrap(head, width, "      ")
    if change.op not in ("update", "replace"):
        return lines
    immutable = set(change.replace_because)
    entries: list[tuple[str, Optional[str]]] = []  # (path, list root or None), each list root once
    seen: set[str] = set()
    for path in change.changed:
        root = _list_root(path, old, new)
        if root is None:
            entries.append((path, None))
        elif root not in seen:
            seen.add(root)
            entries.append((root, root))
    for path, root in entries[:MAX_PATHS]:
        before = _value_at(old or {}, path)
        after = _value_at(new or {}, path)
        if root is not None:
            elsewhere = change.type == "oci:Identity/policy:Policy" and change.name in listed_elsewhere
            lines += list_change_lines(path, before, after, width, " (listed under IAM statements below)"
                                       if elsewhere and path == "statements" else "")
            continue
        mark = "  [forces replacement]" if path in immutable else ""
        lines += _wrap(f"      {path}: {_value(before)} → {_value(after)}{mark}", width, "          ")
    if len(entries) > MAX_PATHS:
        lines.append(f"      … and {len(entries) - MAX_PATHS} more changed paths (--details, the JSON plan)")
    return lines


#: A subnet replaced because its public-IP setting changed (immutable): what it means for the API endpoint, and the
#: in-place way where the program has one (oke-rdma's ``network.apiEndpoint.publicSubnet``).
PUBLIC_SUBNET_HINT = (
    "hint: a subnet's public-IP setting (prohibitPublicIpOnVnic) cannot change in place, so a subnet turned public "
    "or private is replaced with everything in it; for the control-plane subnet that is the cluster. The API "
    "endpoint's public IP itself is switched in place by OKE (UpdateClusterEndpointConfig) when its subnet is "
    "already public: a stack created with network.apiEndpoint.publicSubnet: true turns network.apiEndpoint.public "
    "on and off as an update (docs/networking.md)")


#: Why a subnet's public-IP setting replaced it: the first line of the report and the last error line of the
#: preview (the refusal's own text names resource options, which a stack's config cannot set). The config keys it
#: names are the ones that changed since the previous plan (:func:`offline.config_diff.config_changes`).
PUBLIC_SUBNET_CAUSE = (
    "{name}: its public-IP setting (prohibitPublicIpOnVnic) changed, which replaces the subnet and everything in it "
    "(for the control-plane subnet: the cluster and every Kubernetes object); {behind}")
#: What undoing each config key that can turn a subnet public or private means (docs/networking.md).
PUBLIC_SUBNET_KEYS = {
    "network.apiEndpoint.public": (
        "to keep the cluster, keep network.apiEndpoint.public at its previous value — the endpoint is switched in "
        "place only on a stack created with network.apiEndpoint.publicSubnet: true (docs/networking.md)"),
    "network.apiEndpoint.publicSubnet": (
        "network.apiEndpoint.publicSubnet is a creation-time choice (the control-plane subnet is created public so "
        "that network.apiEndpoint.public can later switch in place); to keep the cluster, undo it on this stack and "
        "set it only on a stack being created (docs/networking.md)"),
}


def _config_behind(changed: Optional[list]) -> str:
    """The config change(s) behind a subnet's public-IP change, from the keys that differ between the previous
    plan's config and this one (``changed``: :func:`offline.config_diff.config_changes`, None when the previous
    plan records no config)."""
    from offline.config_diff import attribute, describe, forcing_changes

    if changed is None:
        return ("the previous plan records no config (written by an older version), so the config key cannot be "
                "named: compare the two stack files (network.apiEndpoint.public and network.apiEndpoint.publicSubnet "
                "set a subnet's public IPs; docs/networking.md)")
    if not changed:
        return ("no config key changed since the previous plan, so the program itself (another version of it) made "
                "this change: preview the same config with the version that wrote the previous plan")
    # only the keys whose change replaces a subnet (the change-cost reference): network.apiEndpoint.allowedCidrs
    # changed beside network.apiEndpoint.public adds NSG rules and is no part of the cause
    forcing, unknown = forcing_changes(changed, SUBNET)
    # none known to replace a subnet alone: the network keys (a combination of them may), else every key
    named = forcing or unknown or [c for c in changed if c[0].startswith("network.")] or changed
    known = [PUBLIC_SUBNET_KEYS[path] for path, *_ in named if path in PUBLIC_SUBNET_KEYS]
    text = f"the config change behind it: {attribute(changed, SUBNET) if forcing or unknown else describe(named)}"
    return text + ("; " + "; ".join(known) if known else "; to keep the cluster, undo it")


SUBNET = "oci:Core/subnet:Subnet"


def public_subnet_replaced(changes: Optional[list[Change]]) -> list[Change]:
    """The subnets replaced (or refused) because their ``prohibitPublicIpOnVnic`` changed."""
    return [c for c in changes or [] if c.type == "oci:Core/subnet:Subnet" and c.op == "replace"
            and "prohibitPublicIpOnVnic" in c.changed]


def endpoint_cause(changes: Optional[list[Change]], changed: Optional[list] = None) -> list[str]:
    """:data:`PUBLIC_SUBNET_CAUSE` for each subnet :func:`public_subnet_replaced` finds, naming the config keys
    that changed (``changed``: :attr:`offline.engine.ProgramRun.config_changed`)."""
    return [PUBLIC_SUBNET_CAUSE.format(name=f"{c.type} {c.name}", behind=_config_behind(changed))
            for c in public_subnet_replaced(changes)]


def config_block(changed: Optional[list], width: int) -> list[str]:
    """``Config changed (N):`` with each changed key ``old → new`` (secrets ``[secret]``), or the line saying the
    previous plan records no config: what every attribution in the report is made from. A map unset before reads as
    its leaf keys against the defaults they replace (:func:`offline.config_diff.expand`); a list as its items removed
    (``-``) and added (``+``), maps included (a tenant's members)."""
    from offline.config_diff import SECRET, expand, secret_key, shown

    if changed is None:
        return _wrap("Config changed: not known (the previous plan records no config; plans written by this version "
                     "do)", width, "    ") + [""]
    if not changed:
        return ["Config changed: none", ""]
    entries = expand(changed)
    # the count is of what is listed (one line per changed value), with the keys they belong to when those differ
    lines = [f"Config changed ({_count(len(entries), len(changed), 'key')}):"]
    for path, old, new in entries[:MAX_PATHS * 2]:
        if secret_key(path):
            old, new = (v if v in (UNSET, SECRET) else SECRET for v in (old, new))
        if isinstance(old, list) and isinstance(new, list) and _itemizable(old) and _itemizable(new):
            lines += [line[2:] for line in list_change_lines(path, old, new, width + 2)]
            continue
        lines += _wrap(f"    {path}: {_value_text(_hide(shown(old)))} → {_value_text(_hide(shown(new)))}", width,
                       "        ")
    if len(entries) > MAX_PATHS * 2:
        lines.append(f"    … and {len(entries) - MAX_PATHS * 2} more (the JSON plans' config)")
    return lines + [""]


def _count(values: int, groups: int, what: str) -> str:
    """The count of a block: ``values`` changed values listed under it, in ``groups`` keys or outputs (``what``):
    ``3`` when they are as many, else ``6 values in 1 key``."""
    if values == groups:
        return str(values)
    return f"{values} value{'s' if values != 1 else ''} in {groups} {what}{'s' if groups != 1 else ''}"


def _value_text(text: str) -> str:
    return text if len(text) <= LONG_VALUE else f"({len(text)} characters)"


def endpoint_hint(changes: Optional[list[Change]]) -> list[str]:
    """:data:`PUBLIC_SUBNET_HINT` when a subnet is replaced (or refused) for a changed ``prohibitPublicIpOnVnic``."""
    return ["", PUBLIC_SUBNET_HINT] if public_subnet_replaced(changes) else []


def render_changes(stack: str, run: ProgramRun, report, unknowns: bool, changes: list[Change],
                   previous: Optional[str], previous_plan: Optional[dict], width: int = DEFAULT_WIDTH) -> str:
    """The summary with ``--previous``: only what changes and the findings. Each changed resource with its changed
    properties ``old → new`` (masked, wrapped, never cut inside a word), the counts, the Replacements, stateful,
    error and node-pool blocks, the warnings the program logged (info messages counted), the policy findings, the
    IAM statements only when they change, and only the stack outputs that change (``old → new``)."""
    before = {r["urn"]: r.get("inputs") for r in (previous_plan or {}).get("resources", [])}
    aliases = dict(getattr(run, "aliased", {}) or {})
    now = {r.urn: r.inputs for r in run.resources}
    lines = _header(stack, unknowns, previous)
    changed_config = getattr(run, "config_changed", None)
    causes = endpoint_cause(changes, changed_config)
    if causes:  # the cause and the config-level fix first, not after hundreds of replacements
        lines += [line for cause in causes for line in _wrap(f"CAUSE: {cause}", width, "    ")] + [""]
    lines += config_block(changed_config, width)
    changed = [c for c in changes if c.op != "same"]
    lines.append(f"Changes ({len(changed)}; {len(changes) - len(changed) + 1} unchanged not listed):")
    followers = [c for c in changed if c.op == "replace" and c.replace_because == ("provider",)]
    unused = unused_reasons(changes, previous_plan, changed_config)
    iam = run.outputs.get("iamPolicies")
    listed = frozenset(iam) if isinstance(iam, dict) else frozenset()  # their statements: the IAM block
    for c in changed:
        if c in followers:
            continue
        old = before.get(c.urn, before.get(aliases.get(c.urn, ""), None))
        lines += change_lines(c, old, now.get(c.urn), width, listed, unused.get(c.urn, ""))
    if followers:  # replaced only because their provider is: one count line (Replacements, --details list them)
        lines += _wrap(f" +- {len(followers)} objects replaced because their provider is replaced "
                       f"({', '.join(sorted(set(c.caused_by[0] for c in followers if c.caused_by)))}; see Replacements)",
                       width, "      ")
    if not changed:
        lines.append("    no resource changes")
    lines += _counts(run, changes) + replacements_block(changes) + stateful_block(changes, {**now, **{
        c.urn: before.get(c.urn) for c in changes if c.op == "delete"}}) + errors_block(changes, changed_config)
    lines += [w for line in manual_block(changes) for w in (_wrap(line, width, '      ') if line else [line])]
    lines += node_pool_block(changes, run, previous_plan)
    # what the previous plan already said, word for word, is counted, not repeated (errors and mandatory findings
    # always printed; --details and the JSON plan keep everything)
    lines += diagnostics_block(run, stack, width, count_infos=True, previous_plan=previous_plan)
    lines += _policy_lines(run, report, previous_plan)
    old_outputs = (previous_plan or {}).get("outputs") or {}
    new_outputs = {k: mask(v) for k, v in run.outputs.items()}
    if any(json.dumps(old_outputs.get(k), sort_keys=True) != json.dumps(new_outputs.get(k), sort_keys=True)
           for k in IAM_OUTPUTS if k in new_outputs or k in old_outputs):
        lines += iam_changes(run, old_outputs)
    moved = [k for k in sorted(set(old_outputs) | set(new_outputs)) if k not in IAM_OUTPUTS
             and json.dumps(old_outputs.get(k), sort_keys=True) != json.dumps(new_outputs.get(k), sort_keys=True)]
    from offline.replacement import _value_at, changed_paths
    moved_paths = {key: changed_paths({key: old_outputs.get(key)}, {key: new_outputs.get(key)}) for key in moved}
    total = sum(len(p) for p in moved_paths.values())
    lines += ["", f"Outputs changed ({_count(total, len(moved), 'output')}):" if moved else "Outputs: none changed"]
    for key in moved:
        before, after = {key: old_outputs.get(key)}, {key: new_outputs.get(key)}
        paths = moved_paths[key]
        for path in paths[:MAX_PATHS]:
            lines += _wrap(f"    {path}: {_value(_value_at(before, path))} → {_value(_value_at(after, path))}",
                           width, "        ")
        if len(paths) > MAX_PATHS:
            lines.append(f"    … and {len(paths) - MAX_PATHS} more changed paths under {key} (--details)")
    return "\n".join(lines)


def _statements(doc: Any) -> Optional[list]:
    texts = doc.get("statements") if isinstance(doc, dict) else None
    return texts if isinstance(texts, list) else None


def iam_changes(run: ProgramRun, old_outputs: dict) -> list[str]:
    """With ``--previous``, the IAM statements that change, policy by policy: ``+`` added and ``-`` removed
    statements, printed whole (an administrator copies them), a policy created or deleted with all of its, one line
    for statements not known yet, and the unchanged policies counted. A stack without the ``iamPolicies`` output
    gets the whole block (:func:`offline.report.iam_section`)."""
    from collections import Counter

    new = mask(run.outputs.get("iamPolicies"))
    old = old_outputs.get("iamPolicies")
    if not isinstance(new, dict) or not isinstance(old, dict):
        return iam_section(run)
    lines = ["", "IAM statements changed (- removed, + added; every statement: --details):"]
    same = 0
    for name in sorted(set(old) | set(new)):
        before, after = _statements(old.get(name)), _statements(new.get(name))
        if json.dumps(old.get(name), sort_keys=True) == json.dumps(new.get(name), sort_keys=True):
            same += 1
            continue
        where = (new.get(name) or old.get(name) or {}).get("compartmentId") if isinstance(
            new.get(name) or old.get(name), dict) else None
        state = "created" if name not in old else "deleted" if name not in new else "updated"
        lines.append(f"    {name} ({state}; attach to {where or 'the root compartment (set iam.tenancyId)'})")
        if after is not None and after and all(t == "[unknown]" for t in after):
            lines.append(f"      [unknown] ({len(after)} statements, known once the resources they name exist)")
            continue
        was, now = Counter(before or []), Counter(after or [])
        changed = ([("-", t) for t in sorted((was - now).elements())]
                   + [("+", t) for t in sorted((now - was).elements())])
        lines += [f"      {mark} {text}" for mark, text in changed] or ["      (the same statements; another "
                                                                           "compartment or description)"]
    if same:
        lines.append(f"    ({same} polic{'y' if same == 1 else 'ies'} unchanged)")
    return lines


def render(stack: str, run: ProgramRun, report, unknowns: bool, changes: Optional[list[Change]] = None,
           previous: Optional[str] = None, details: bool = False, width: Optional[int] = None,
           previous_plan: Optional[dict] = None) -> str:
    """The human report: the summary view (only the changes when compared with ``previous_plan``), or the full
    tree with ``details``."""
    if details:  # the CAUSE opens every view of a --previous report (it is the last error line on stderr)
        lines = render_details(stack, run, report, unknowns, changes, previous).split("\n")
        causes = [f"CAUSE: {cause}" for cause in endpoint_cause(changes, getattr(run, "config_changed", None))]
        return "\n".join(lines[:2] + causes + ([""] if causes else []) + lines[2:])
    if changes is not None:
        return render_changes(stack, run, report, unknowns, changes, previous, previous_plan,
                              width or terminal_width())
    return render_summary(stack, run, report, unknowns, changes, previous, width or terminal_width())
