"""The offline preview's report with ``--previous``: only what changes and the findings, the same in a terminal and
in CI. Each changed resource with its changed properties ``old → new`` (secrets masked, a long value named rather
than printed), wrapped at the width and never cut inside a word; the counts, the Replacements (with the API
endpoint's in-place way when a subnet's public-IP setting replaces it), stateful, error and node-pool blocks of
:mod:`offline.report`; the warnings the program logged (info messages counted); the policy findings; the IAM
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


def change_lines(change: Change, old: Optional[dict], new: Optional[dict], width: int) -> list[str]:
    """One changed resource: its operation, type and name, then each changed path ``old → new`` (at most
    :data:`MAX_PATHS`, the rest counted), wrapped at ``width`` without cutting a word."""
    from offline.replacement import _value_at

    head = f" {OP_SYMBOLS[change.op]} {change.type} {change.name} ({change.op})"
    lines = _wrap(head, width, "      ")
    if change.op not in ("update", "replace"):
        return lines
    paths = list(change.changed)
    immutable = set(change.replace_because)
    for path in paths[:MAX_PATHS]:
        before = _value_at(old or {}, path)
        after = _value_at(new or {}, path)
        mark = "  [forces replacement]" if path in immutable else ""
        lines += _wrap(f"      {path}: {_value(before)} → {_value(after)}{mark}", width, "          ")
    if len(paths) > MAX_PATHS:
        lines.append(f"      … and {len(paths) - MAX_PATHS} more changed paths (--details, the JSON plan)")
    return lines


#: A subnet replaced because its public-IP setting changed (immutable): what it means for the API endpoint, and the
#: in-place way where the program has one (oke-rdma's ``network.apiEndpoint.publicSubnet``).
PUBLIC_SUBNET_HINT = (
    "hint: a subnet's public-IP setting (prohibitPublicIpOnVnic) cannot change in place, so a subnet turned public "
    "or private is replaced with everything in it; for the control-plane subnet that is the cluster. The API "
    "endpoint's public IP itself is switched in place by OKE (UpdateClusterEndpointConfig) when its subnet is "
    "already public: a stack created with network.apiEndpoint.publicSubnet: true turns network.apiEndpoint.public "
    "on and off as an update (docs/networking.md)")


#: The config-level cause and fix when a subnet's public-IP setting replaces it: first line of the report and last
#: error line of the preview (the refusal's own text names resource options, which a stack's config cannot set).
PUBLIC_SUBNET_CAUSE = (
    "{name}: its public-IP setting (prohibitPublicIpOnVnic) changed, which replaces the subnet and everything in it "
    "(for the control-plane subnet: the cluster and every Kubernetes object); to keep the cluster, keep "
    "network.apiEndpoint.public at its value in this stack — the endpoint is switched in place only on a stack "
    "created with network.apiEndpoint.publicSubnet: true (docs/networking.md)")


def public_subnet_replaced(changes: Optional[list[Change]]) -> list[Change]:
    """The subnets replaced (or refused) because their ``prohibitPublicIpOnVnic`` changed."""
    return [c for c in changes or [] if c.type == "oci:Core/subnet:Subnet" and c.op == "replace"
            and "prohibitPublicIpOnVnic" in c.changed]


def endpoint_cause(changes: Optional[list[Change]]) -> list[str]:
    """:data:`PUBLIC_SUBNET_CAUSE` for each subnet :func:`public_subnet_replaced` finds."""
    return [PUBLIC_SUBNET_CAUSE.format(name=f"{c.type} {c.name}") for c in public_subnet_replaced(changes)]


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
    causes = endpoint_cause(changes)
    if causes:  # the cause and the config-level fix first, not after hundreds of replacements
        lines += [line for cause in causes for line in _wrap(f"CAUSE: {cause}", width, "    ")] + [""]
    changed = [c for c in changes if c.op != "same"]
    lines.append(f"Changes ({len(changed)}; {len(changes) - len(changed) + 1} unchanged not listed):")
    followers = [c for c in changed if c.op == "replace" and c.replace_because == ("provider",)]
    for c in changed:
        if c in followers:
            continue
        old = before.get(c.urn, before.get(aliases.get(c.urn, ""), None))
        lines += change_lines(c, old, now.get(c.urn), width)
    if followers:  # replaced only because their provider is: one count line (Replacements, --details list them)
        lines += _wrap(f" +- {len(followers)} objects replaced because their provider is replaced "
                       f"({', '.join(sorted(set(c.caused_by[0] for c in followers if c.caused_by)))}; see Replacements)",
                       width, "      ")
    if not changed:
        lines.append("    no resource changes")
    lines += _counts(run, changes) + replacements_block(changes) + stateful_block(changes) + errors_block(changes)
    lines += [w for line in manual_block(changes) for w in (_wrap(line, width, '      ') if line else [line])]
    lines += node_pool_block(changes, run, previous_plan)
    lines += diagnostics_block(run, stack, width, count_infos=True)
    lines += _policy_lines(run, report)
    old_outputs = (previous_plan or {}).get("outputs") or {}
    new_outputs = {k: mask(v) for k, v in run.outputs.items()}
    if any(json.dumps(old_outputs.get(k), sort_keys=True) != json.dumps(new_outputs.get(k), sort_keys=True)
           for k in IAM_OUTPUTS if k in new_outputs or k in old_outputs):
        lines += iam_section(run)
    moved = [k for k in sorted(set(old_outputs) | set(new_outputs)) if k not in IAM_OUTPUTS
             and json.dumps(old_outputs.get(k), sort_keys=True) != json.dumps(new_outputs.get(k), sort_keys=True)]
    lines += ["", f"Outputs changed ({len(moved)}):" if moved else "Outputs: none changed"]
    from offline.replacement import _value_at, changed_paths
    for key in moved:
        before, after = {key: old_outputs.get(key)}, {key: new_outputs.get(key)}
        paths = changed_paths(before, after)
        for path in paths[:MAX_PATHS]:
            lines += _wrap(f"    {path}: {_value(_value_at(before, path))} → {_value(_value_at(after, path))}",
                           width, "        ")
        if len(paths) > MAX_PATHS:
            lines.append(f"    … and {len(paths) - MAX_PATHS} more changed paths under {key} (--details)")
    return "\n".join(lines)


def render(stack: str, run: ProgramRun, report, unknowns: bool, changes: Optional[list[Change]] = None,
           previous: Optional[str] = None, details: bool = False, width: Optional[int] = None,
           previous_plan: Optional[dict] = None) -> str:
    """The human report: the summary view (only the changes when compared with ``previous_plan``), or the full
    tree with ``details``."""
    if details:
        return render_details(stack, run, report, unknowns, changes, previous)
    if changes is not None:
        return render_changes(stack, run, report, unknowns, changes, previous, previous_plan,
                              width or terminal_width())
    return render_summary(stack, run, report, unknowns, changes, previous, width or terminal_width())
