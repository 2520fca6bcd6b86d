"""The offline preview's text report: what ``pulumi preview`` would print, for a reviewer.

Two views of one run (:func:`render`):

* with ``--previous``, only what changes and the findings (:mod:`offline.report_changes`);
* the default **summary**: one line per component with its resources counted by type (NSG rules counted per NSG),
  only the changed resources when compared with a previous plan (plus the count of unchanged ones), the counts, the
  Replacements block grouped by cause, the errors, diagnostics, policy findings, what was not checked, the IAM
  statements once and one line per stack output; every line cut to the terminal width (100 columns when the output
  is not a terminal);
* ``--details``: the whole resource tree with each resource's plan and summary, the count by type and every output
  in full.

The JSON plan (:mod:`offline.plan`) keeps everything.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections import Counter
from typing import Any, Optional

from offline.engine import ProgramRun, topological
from offline.plan import ordered_violations
from offline.reachability import reachability_lines
from offline.replacement import Change, protected_destroyed, retained, stateful_destroyed, summary
from offline.values import UNKNOWN, hide, mask
from offline.values import is_secret as _is_secret

_hide = hide



def _at(value: Any, *keys: str) -> Any:
    """``value[k1][k2]...`` for display, assuming no shape: :data:`UNKNOWN` when a level on the way is unknown (a
    whole object built in ``.apply()`` at a first preview), the secret itself when a level is a secret (never
    looked into), None when a level is missing or not an object."""
    for key in keys:
        if value == UNKNOWN or _is_secret(value):
            return value
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _show(value: Any) -> str:
    """One value in a one-line summary: ``[unknown]``, ``[secret]``, a list joined with commas, else its text."""
    shown = mask(value)
    if isinstance(shown, list):
        return ",".join(_show(v) for v in value)
    if isinstance(shown, dict):
        return json.dumps(shown, sort_keys=True)
    return str(shown)


def _flag(value: Any, yes: str, no: str) -> str:
    """A yes/no property in a summary: ``?`` when unknown or secret (the plan cannot tell)."""
    if value == UNKNOWN or _is_secret(value):
        return "?"
    return yes if value else no


def _count(value: Any, noun: str) -> str:
    """``N <noun>s`` of a list property; ``? <noun>s`` when the list itself is unknown or secret."""
    if isinstance(value, list):
        n = len(value)
        return f"{n} {noun}" + ("s" if n != 1 else "")
    if value is None:
        return f"0 {noun}s"
    return f"? {noun}s"


def _summary(res) -> str:
    """A few identifying properties per resource, for the tree. Any value, a whole input object included, may be
    unknown (``[unknown]``, or ``?`` for a yes/no) or secret (``[secret]``): nothing here assumes a known shape."""
    p = res.inputs
    if res.type == "oci:ContainerEngine/cluster:Cluster":
        public = _flag(_at(p, "endpointConfig", "isPublicIpEnabled"), "public", "private")
        return f"type={_show(_at(p, 'type'))} {_show(_at(p, 'kubernetesVersion'))} endpoint={public}"
    if res.type == "oci:ContainerEngine/nodePool:NodePool":
        cc = _at(p, "nodeConfigDetails", "computeClusterId")
        rdma = {"set": " computeClusterId=set", "?": " computeClusterId=?"}.get(_flag(cc, "set", ""), "")
        return f"{_show(_at(p, 'nodeShape'))} ×{_show(_at(p, 'nodeConfigDetails', 'size'))}{rdma}"
    if res.type in ("oci:Core/subnet:Subnet", "oci:Core/vcn:Vcn"):
        block = _at(p, "cidrBlock")
        return _show(block) if block is not None else _show(_at(p, "cidrBlocks") or [])
    if res.type == "kubernetes:helm.sh/v3:Release":
        return f"{_show(_at(p, 'chart'))}@{_show(_at(p, 'version'))} in {_show(_at(p, 'namespace'))}"
    if res.type == "oci:Identity/policy:Policy":
        return _count(_at(p, "statements"), "statement")
    if res.type == "oci:FileStorage/mountTarget:MountTarget":
        throughput = _at(p, "requestedThroughput")
        return f"{_show(1 if throughput is None else throughput)} Gbps"
    if res.type == "kubernetes:core/v1:PersistentVolume":
        return f"{_show(_at(p, 'spec', 'csi', 'driver'))} {_show(_at(p, 'spec', 'csi', 'volumeHandle'))}"
    if res.type == "kubernetes:core/v1:PersistentVolumeClaim":
        return (f"{_show(_at(p, 'metadata', 'namespace'))}/{_show(_at(p, 'metadata', 'name'))} → volume "
                f"{_show(_at(p, 'spec', 'volumeName'))}")
    if res.type == "kubernetes:storage.k8s.io/v1:StorageClass":
        mount_target = _flag(_at(p, "parameters", "mountTargetOcid"), "set", "none")
        return f"{_show(_at(p, 'provisioner'))} mountTargetOcid={mount_target}"
    return ""


def iam_section(run: ProgramRun) -> list[str]:
    """The IAM statements of a stack that exports ``policyStatements``, policy by policy when it also exports
    ``iamPolicies`` (name → ``{compartmentId, description, statements}``) and its dynamic groups
    (``iamDynamicGroups``): what an administrator applies when the stack creates no policies. Empty otherwise."""
    outputs = run.outputs
    if "policyStatements" not in outputs:
        return []
    statements = mask(outputs["policyStatements"])
    policies = mask(outputs.get("iamPolicies"))
    created = {r.name for r in run.resources if r.type == "oci:Identity/policy:Policy"}
    count = len(statements) if isinstance(statements, list) else "?"
    lines = ["", f"IAM statements ({count}):"]
    if not created:
        lines.append("    no policy is created by this stack: an administrator creates these policies "
                     "(iam.createPolicies: false)")
    # With --previous, a policy the stack already has is "updated" or "unchanged", not "created".
    ops = {c.name: c.op for c in getattr(run, "changes", None) or [] if c.type == "oci:Identity/policy:Policy"}
    verbs = {"create": "created", "update": "updated", "replace": "replaced", "same": "unchanged"}
    if isinstance(policies, dict):  # masked already: any level may be "[unknown]" or "[secret]" instead of its shape
        for name, doc in sorted(policies.items()):
            state = verbs.get(ops.get(name, "create"), "created") if name in created else "not created"
            where = doc.get("compartmentId") if isinstance(doc, dict) else doc
            lines.append(f"    {name} ({state}; attach to {where or 'the root compartment (set iam.tenancyId)'})")
            texts = doc.get("statements") if isinstance(doc, dict) else doc
            texts = texts if isinstance(texts, list) else [texts or "[unknown]"]
            if len(texts) > 1 and all(t == "[unknown]" for t in texts):  # one line, not one "[unknown]" per statement
                lines.append(f"      [unknown] ({len(texts)} statements, known once the resources they name exist)")
            else:
                lines += [f"      {text}" for text in texts]
    elif isinstance(statements, list):
        lines += [f"    {text}" for text in statements]
    else:
        lines.append(f"    {statements}")
    groups = mask(outputs.get("iamDynamicGroups"))
    for name, doc in sorted(groups.items()) if isinstance(groups, dict) else []:
        lines.append(f"    dynamic group {name}: {doc.get('matchingRule') if isinstance(doc, dict) else doc}")
    if groups is not None and not isinstance(groups, dict):
        lines.append(f"    dynamic groups: {groups}")
    return lines


#: Plan operation → the symbol ``pulumi preview`` prints for it.
#: Plan operation → the symbol ``pulumi preview`` prints for it.
OP_SYMBOLS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}
#: The summary's width when the output is not a terminal.
DEFAULT_WIDTH = 100
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
NSG = "oci:Core/networkSecurityGroup:NetworkSecurityGroup"
#: Stack outputs the summary does not repeat: the IAM block shows them.
IAM_OUTPUTS = ("iamPolicies", "policyStatements", "iamDynamicGroups")


def terminal_width() -> int:
    """The terminal's width, or :data:`DEFAULT_WIDTH` when stdout is not a terminal (a file, a pipe, CI)."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns if sys.stdout.isatty() else DEFAULT_WIDTH


def _cut(line: str, width: int) -> str:
    """``line`` shortened to ``width`` at a word boundary (a space or a comma), never inside a word, with ``…``."""
    if len(line) <= width:
        return line
    head = line[:max(width - 1, 1)]
    indent = len(line) - len(line.lstrip()) + 4
    stop = head.rfind(", ")  # between list items first ("1 Job, 3 Pod…" would leave a count without its noun)
    if stop <= indent:
        stop = head.rfind(" ")
    if stop > indent and head[:stop].rstrip().endswith(":") and " " not in line[stop + 1:].strip():
        return line  # "key: <one long word>" (an OCID, an address): the word is the value; it is never cut
    if stop > indent:
        head = head[:stop + (1 if head[stop] == "," else 0)]
    return head.rstrip() + "…"


def _header(stack: str, unknowns: bool, previous: Optional[str]) -> list[str]:
    return [f"Previewing update ({stack}) — offline: Pulumi mocks, no cloud, no credentials"
            + (" [first preview: computed values unknown]" if unknowns else "")
            + (f" [compared with {previous}]" if previous else ""), ""]


def _diff_note(change: Optional[Change]) -> str:
    if change and change.op == "replace":
        note = f"[diff: {', '.join('~' + p for p in change.replace_because)}] "
        return note + ("[delete before replace] " if change.delete_before_replace else "")
    if change and change.op == "update":
        return f"[diff: {', '.join('~' + p for p in change.changed)}] "
    return ""


def _counts(run: ProgramRun, changes: Optional[list[Change]]) -> list[str]:
    if changes is None:
        return ["", "Resources:", f"    + {len(run.resources) + 1} to create"]
    counts = summary(changes)
    counts["same"] = counts.get("same", 0) + 1  # the root stack
    return ["", "Resources:"] + [f"    {OP_SYMBOLS[op].strip() or ' '} {counts[op]} to {op}" if op != "same"
                                 else f"      {counts[op]} unchanged" for op in OP_SYMBOLS if counts.get(op)]


def replacements_block(changes: Optional[list[Change]]) -> list[str]:
    """The Replacements block: every replaced resource, grouped by cause (a changed immutable property, or the
    replaced resource or provider it follows from), causes in plan order."""
    replaced = [c for c in changes or [] if c.op == "replace"]
    if not replaced:
        return []
    lines = ["", f"Replacements ({len(replaced)}): each resource below is DESTROYED and CREATED AGAIN:"]
    groups: dict[str, list[Change]] = {}
    for c in replaced:
        groups.setdefault(c.cause, []).append(c)
    for cause, members in groups.items():
        # Everything a replaced provider manages is replaced with it: one count line, not hundreds (--details and
        # the JSON plan list them; the stateful ones are in the Stateful block).
        followers = [c for c in members if c.replace_because == ("provider",)]
        if followers:
            dbr = sum(c.delete_before_replace for c in followers)
            kinds = len({c.type for c in followers})
            lines.append(f"  {cause} ({len(members)}): every object that provider manages, {kinds} kinds"
                         + (f", {dbr} deleted before they are created again" if dbr else "")
                         + " (--details or the JSON plan list them)")
            members = [c for c in members if c not in followers]
            if not members:
                continue
        else:
            lines.append(f"  {cause} ({len(members)}):")
        for c in members:
            dbr = "  [delete before replace: gone until it is created again]" if c.delete_before_replace else ""
            why = f"  (changed: {', '.join(c.replace_because)})" if c.caused_by else ""
            kept = "  [retainOnDelete: the old one is left in the cloud, not destroyed]" if c.retained else ""
            lines.append(f"    +- {c.type}: {c.name}{why}{dbr}{kept}")
    if any(c.type == "oci:ContainerEngine/nodePool:NodePool" for c in replaced):
        lines.append("  a replaced node pool loses every node (and every GPU job running on it)")
    return lines


#: Node pool inputs that OKE applies to nodes created after the update only; existing nodes keep the old value
#: until they are replaced — by node cycling (``nodePoolCyclingDetails``, enhanced clusters) or by hand (OKE docs,
#: "Modifying Node Pool and Worker Node Properties" and "Performing an In-Place Worker Node Update by Cycling Nodes";
#: checked 2026-12-01).
NODE_PROPERTIES = ("nodeMetadata", "initialNodeLabels", "nodeSourceDetails", "nodeShape", "nodeShapeConfig",
                   "kubernetesVersion", "sshPublicKey", "nodeConfigDetails.nsgIds",
                   "nodeConfigDetails.isPvEncryptionInTransitEnabled", "nodeConfigDetails.kmsKeyId",
                   "nodeConfigDetails.nodePoolPodNetworkOptionDetails", "nodeConfigDetails.placementConfigs")


def node_pool_block(changes: Optional[list[Change]], run: ProgramRun, previous_plan: Optional[dict] = None) -> list[str]:
    """Node pools updated in place on a node property: whether existing nodes get it (node cycling) or keep theirs,
    and, with ``previous_plan``, what the plan removes that the existing nodes still reference
    (:func:`offline.node_references.dangling_references`)."""
    from offline.node_references import dangling_references

    inputs = {r.urn: r.inputs for r in run.resources}
    olds = (previous_plan or {}).get("resources", [])
    before = {r["urn"]: r.get("inputs") for r in olds}
    ids = {r["urn"]: r.get("id") for r in olds}
    lines: list[str] = []
    for c in changes or []:
        if c.op != "update" or c.type != "oci:ContainerEngine/nodePool:NodePool":
            continue
        touched = sorted({p for p in c.changed for prop in NODE_PROPERTIES if p == prop or p.startswith(prop + ".")
                          or p.startswith(prop + "[")})
        if not touched:
            continue
        cycling = (inputs.get(c.urn) or {}).get("nodePoolCyclingDetails") or {}
        if cycling.get("isNodeCyclingEnabled") is True:
            lines.append(f"    {c.name}: {', '.join(touched)} changed; node cycling replaces the existing nodes "
                         f"(maxSurge {cycling.get('maximumSurge')}, maxUnavailable "
                         f"{cycling.get('maximumUnavailable')} at a time): jobs on them are evicted")
        else:
            placement = [t for t in touched if t.startswith("nodeConfigDetails.placementConfigs")]
            where = (" (existing nodes stay in their fault domains and ADs)" if placement else "")
            lines.append(f"    {c.name}: {', '.join(touched)} changed; only nodes created from now on get it — the "
                         f"existing nodes keep the old value{where} until replaced: set "
                         f"nodePools.<pool>.cycling.enabled (node cycling) or replace them")
            for ref in dangling_references(c, changes or [], before, inputs, ids):
                lines.append(f"      ! {ref}; cycle the pool first (or keep the old one until its nodes are "
                             f"replaced), then remove it")
        if "nodeShape" in touched:
            mixed = mixed_generations(before.get(c.urn) or {}, inputs.get(c.urn) or {})
            if mixed:
                lines.append(f"      ! {mixed}")
    return ["", "Node pools updated in place (OKE applies node properties to new nodes):"] + lines if lines else []


def mixed_generations(old: dict, new: dict) -> str:
    """What a node pool's shape changed in place leaves, when the two shapes' GPUs differ (model or count per node,
    :data:`oke_rdma.facts.shapes.SHAPES`; an unknown GPU shape counts as different): until every node is replaced
    the pool — one Kueue flavor, so one job's ranks — holds both generations, and in a Compute Cluster its RDMA
    network joins them; a collective runs at the pace of its slowest rank. Empty for shapes whose GPUs match, or
    two CPU shapes."""
    from oke_rdma.facts.shapes import SHAPES

    was, now = old.get("nodeShape"), new.get("nodeShape")
    if not isinstance(was, str) or not isinstance(now, str) or was == now:
        return ""

    def gpus(shape: str) -> Optional[tuple[Optional[str], int]]:
        row = SHAPES.get(shape)
        if row is None:
            return None if ".GPU" in shape.upper() else (None, 0)
        return row.gpu_model, row.gpus

    a, b = gpus(was), gpus(now)
    if a is not None and b is not None and a == b:
        return ""
    if a == (None, 0) and b == (None, 0):
        return ""

    def said(shape: str, g: Optional[tuple[Optional[str], int]]) -> str:
        return f"{shape} ({g[1]} × {g[0]})" if g and g[0] else f"{shape} (GPUs unknown)" if g is None else shape

    details = new.get("nodeConfigDetails") if isinstance(new.get("nodeConfigDetails"), dict) else {}
    fabric = (" and, in its Compute Cluster, one RDMA network joins them" if details.get("computeClusterId")
              else "")
    count = (f" (and the GPUs per node differ, {a[1]} and {b[1]}: a job sized per node no longer fits both)"
             if a and b and a[1] != b[1] else "")
    return (f"nodeShape {said(was, a)} → {said(now, b)}: until every node is replaced the pool mixes GPU "
            f"generations{fabric}; it is one Kueue flavor, so one job's ranks can land on both, and a collective "
            f"runs at the pace of its slowest rank{count}: cycle the "
            f"pool now (nodePools.<pool>.cycling, maxSurge 0 / maxUnavailable 1 in a Compute Cluster) or add a new "
            f"pool with the new shape and retire this one")


#: The oke-rdma config key that protects a resource of each type the program protects (oke_rdma/storage.py,
#: lustre.py, object_storage.py): how a user of this project removes ``protect``.
PROTECT_KEYS = {
    "oci:FileStorage/fileSystem:FileSystem": "oke-rdma:storage.fss.protect",
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": "oke-rdma:storage.lustre.protect",
    "oci:ObjectStorage/bucket:Bucket": "oke-rdma:storage.objectStorage.protect",
}


def protect_hint(change: Change) -> str:
    """``"set oke-rdma:storage.fss.protect: false and "`` for a resource of this project (its URN names project
    ``oke-rdma``) protected through a config key, else ``"remove `protect` from it in the program and "``."""
    key = PROTECT_KEYS.get(change.type)
    if key and change.urn.split("::")[1:2] == ["oke-rdma"]:
        return f"set {key}: false and "
    return "remove `protect` from it in the program and "


def errors_block(changes: Optional[list[Change]], changed: Optional[list] = None) -> list[str]:
    """The plan's errors: protected resources replaced or deleted, Kubernetes changes the API server refuses
    (``changed``: the config keys that changed since the previous plan, which a refusal's fix names)."""
    lines: list[str] = []
    for c in protected_destroyed(changes or []):
        verb = "replace" if c.op == "replace" else "delete"
        lines.append(f"error: unable to {verb} {c.type} {c.name} ({c.urn}): it is protected. To proceed, "
                     f"{protect_hint(c)}run pulumi up, or run pulumi state unprotect '{c.urn}'; "
                     f"first make sure its data may be lost")
    for c in changes or []:
        for refused in c.refused:
            # replaceOnChanges is the way out for a Kubernetes object; for a cloud resource (a cluster's version, a
            # Lustre capacity) a replacement would destroy it, so only the value's own fix is offered.
            fix = ("" if "; " in refused and (not c.type.startswith("kubernetes:") or c.type.startswith(
                       "kubernetes:helm.sh/")) else  # the reason names its own way out (offline.stuck_updates)
                   " Declare the field in replaceOnChanges (the object is then replaced) or keep its old value"
                   if c.type.startswith("kubernetes:") else " Keep its old value")
            lines.append(f"error: {c.type} {c.name}: {_in_config_terms(c, refused, changed)}; pulumi up would fail on "
                         f"this update.{fix}")
    return [""] + lines if lines else []


#: Resources whose unique label oke-rdma derives with no config key to change it (subnet roles' DNS labels, the
#: mount target's hostname label).
_DERIVED_LABELS = ("oci:Core/subnet:Subnet", "oci:FileStorage/mountTarget:MountTarget")
#: The program-level advice of :func:`offline.immutable.name_conflict`, which no oke-rdma config key can follow.
_PROGRAM_ADVICE = re.compile(r"; set deleteBeforeReplace on it \(it is then gone until created again\) or give it "
                             r"another (\w+)$")


def _in_config_terms(change: Change, reason: str, changed: Optional[list] = None) -> str:
    """``reason`` with advice only a program author can follow (set ``deleteBeforeReplace``, rename a field the
    program derives) replaced, for a resource of this project (its URN names project ``oke-rdma``), by the fix a
    stack's user has: avoid the replacement by undoing the config change behind it — named from ``changed`` (the
    config keys that differ from the previous plan's, :func:`offline.config_diff.config_changes`) when known."""
    from offline.config_diff import attribute

    if change.urn.split("::")[1:2] != ["oke-rdma"] or change.type not in _DERIVED_LABELS:
        return reason
    which = (f"undo the config change that causes it ({attribute(changed, change.type)})" if changed
             else "undo the config change that causes it (Config changed and CAUSE above, or Replacements)")
    return _PROGRAM_ADVICE.sub(lambda m: f"; oke-rdma derives the {m.group(1)} itself (no config key changes it): "
                                         f"avoid the replacement instead — {which}", reason)


def what_stays(typ: str, inputs: Optional[dict]) -> str:
    """What a destroyed resource leaves behind, from its inputs: a PersistentVolume whose reclaim policy is
    ``Retain`` leaves its data where it is (Kubernetes docs "Persistent Volumes", Reclaiming: "the data ... remains"
    when the PersistentVolume object is deleted; checked 2026-12-02), one with ``Delete`` has its storage deleted by
    the provisioner. Empty when nothing can be said."""
    if typ != "kubernetes:core/v1:PersistentVolume" or not isinstance(inputs, dict):
        return ""
    spec = inputs.get("spec") if isinstance(inputs.get("spec"), dict) else {}
    policy = spec.get("persistentVolumeReclaimPolicy")
    handle = (spec.get("csi") or {}).get("volumeHandle") if isinstance(spec.get("csi"), dict) else None
    nfs = spec.get("nfs") if isinstance(spec.get("nfs"), dict) else None
    where = (f" (export {handle.rsplit(':', 1)[-1]})" if isinstance(handle, str) and ":" in handle
             else f" ({nfs.get('server')}:{nfs.get('path')})" if nfs else "")
    if policy == "Retain":
        return (f"; its files stay on the file system{where}: reclaim policy Retain deletes no data, and a volume "
                "declared again with the same handle finds them")
    if policy in ("Delete", None):
        return "; reclaim policy Delete: the storage behind it is deleted with it"
    return ""


def stateful_block(changes: Optional[list[Change]], inputs: Optional[dict] = None) -> list[str]:
    """What ``--fail-on-replace`` refuses: replaced or deleted resources holding state, with the reason and what
    stays behind (:func:`what_stays`, from ``inputs``: URN → the resource's inputs, the previous plan's for a
    deletion)."""
    found = stateful_destroyed(changes or [])
    kept = retained(changes or [])
    lines = ["", f"Stateful resources destroyed ({len(found)}):"] if found else []
    lines += [f"    {OP_SYMBOLS[c.op]} {c.type}: {c.name} ({c.op}): loses {reason}"
              f"{what_stays(c.type, (inputs or {}).get(c.urn))}" for c, reason in found]
    if kept:
        lines += ["", f"Retained, not destroyed ({len(kept)}): retainOnDelete keeps each in the cloud with its data, "
                  "no longer managed by this stack (delete it by hand once it is not needed):"]
        lines += [f"    {OP_SYMBOLS[c.op]} {c.type}: {c.name} ({c.op})" for c in kept]
    return lines


def _policy_lines(run: ProgramRun, report, previous_plan: Optional[dict] = None) -> list[str]:
    """The policy findings, pack by pack, and what could not be checked offline. With ``previous_plan`` an advisory
    finding or a not-checked note the previous plan already had, word for word, is counted instead of printed (a
    mandatory finding is always printed)."""
    lines = ["", "Policies:"]
    names = {r.urn: f"{r.type}: {r.name}" for r in run.analyzed_resources()}
    resources = topological(run.resources)
    ordered = ordered_violations(report.violations, resources)
    position = {r.urn: i for i, r in enumerate(resources)}
    before = standing(previous_plan, "policyViolations")
    for pack in report.packs:
        violations = [v for v in ordered if v.pack == pack.name]
        not_run = sorted((n for n in report.not_run if n.pack == pack.name),
                         key=lambda n: (n.policy, position.get(n.urn, -1), n.reason))
        mandatory = any(v.enforcement_level == "mandatory" for v in violations)
        icon = "❌" if mandatory else ("⚠️" if violations else "✅")
        lines.append(f"    {icon} {pack.name}@v{pack.version} (local: {pack.path})")
        folded = [v for v in violations if v.enforcement_level == "advisory"
                  and (v.policy, v.urn, _hide(v.message)) in before]
        for v in violations:
            if v in folded:
                continue
            where = f" ({names.get(v.urn, v.urn)})" if v.urn else ""
            lines.append(f"        - [{v.enforcement_level}]  {v.policy}{where}")
            lines += [f"          {_hide(m)}" for m in v.message.splitlines()]
        if folded:
            lines.append(f"        ({len(folded)} advisory finding{'s' if len(folded) != 1 else ''} unchanged since "
                         f"the previous plan: {UNCHANGED_WHERE})")
        # one line per reason: the rules that could not judge it and on how many resources (a value unknown until
        # apply, such as IAM statements naming a cluster being replaced, stops every IAM rule alike)
        by_reason: dict[str, list[str]] = {}
        for n in not_run:
            by_reason.setdefault(n.reason, []).append(n.policy)
        for reason, policies in by_reason.items():
            rules = list(dict.fromkeys(policies))
            times = max(Counter(policies).values())
            who = rules[0] if len(rules) == 1 else f"{len(rules)} rules ({', '.join(rules)})"
            lines.append(f"        - [advisory]  {who}: {reason}" + (f" ({times} resources)" if times > 1 else ""))
        if not violations and not not_run:
            lines.append("        no violations")
    if run.advisories:
        advisories = list(dict.fromkeys(run.advisories))
        noted = standing(previous_plan, "notChecked")
        new = [a for a in advisories if _hide(a) not in noted]
        lines += ["", f"Not checked offline ({len(advisories)}):"]
        lines += [f"    - [advisory]  {_hide(a)}" for a in new]
        if len(new) < len(advisories):
            same = len(advisories) - len(new)
            lines.append(f"    ({same} note{'s' if same != 1 else ''} unchanged since the previous plan: "
                         f"{UNCHANGED_WHERE})")
    return lines


def wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` wrapped to ``width`` at spaces (a word longer than a line keeps its own line, whole), every line
    after the first indented by ``indent``."""
    import textwrap

    return textwrap.wrap(text, width=width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [text]


def diagnostics_block(run: ProgramRun, stack: str, width: Optional[int] = None, count_infos: bool = False,
                      previous_plan: Optional[dict] = None) -> list[str]:
    """The program's diagnostics under the stack, each wrapped at ``width`` (None: not wrapped, the --details
    tree) by the same rule in every view; with ``count_infos`` the info messages are one count line. With
    ``previous_plan`` a warning the previous plan already had, word for word, is one count line too (a standing
    warning is read once, not in every --previous report), and a warning it had that this run no longer gives is
    counted as resolved, each named by its first 100 characters; an error is always printed."""
    infos = [m for severity, m in run.diagnostics if severity == "info"] if count_infos else []
    shown = [(sev, m) for sev, m in run.diagnostics if not (count_infos and sev == "info")]
    before = standing(previous_plan, "diagnostics")
    folded = [m for sev, m in shown if sev == "warning" and ("warning", _hide(m)) in before]
    shown = [(sev, m) for sev, m in shown if not (sev == "warning" and ("warning", _hide(m)) in before)]
    now = {_hide(m) for sev, m in run.diagnostics if sev == "warning"}
    resolved = sorted(m for sev, m in before if sev == "warning" and isinstance(m, str) and m not in now)
    if not shown and not infos and not folded and not resolved:
        return []
    project = run.stack_urn.split("::")[1]
    lines = ["", "Diagnostics:", f"  pulumi:pulumi:Stack ({project}-{stack}):"]
    for severity, message in shown:
        text = f"    {severity}: {_hide(message)}"
        lines += wrap(text, width, "      ") if width else [text]
    if folded:
        lines.append(f"    ({len(folded)} warning{'s' if len(folded) != 1 else ''} unchanged since the previous "
                     f"plan: {UNCHANGED_WHERE})")
    if resolved:  # what this change fixed is said, not left to be noticed by its absence
        lines.append(f"    ({len(resolved)} warning{'s' if len(resolved) != 1 else ''} of the previous plan "
                     f"resolved:)")
        for message in resolved:
            lines.append(f"      resolved: {message if len(message) <= 100 else message[:99] + '…'}")
    if infos:
        lines.append(f"    ({len(infos)} info message{'s' if len(infos) != 1 else ''}: --details)")
    return lines


#: Where a --previous report's folded findings are printed in full.
UNCHANGED_WHERE = "--details, or the JSON plan"


def standing(previous_plan: Optional[dict], kind: str) -> set:
    """What ``previous_plan`` already reported, to fold in a --previous report: its ``diagnostics`` as ``(severity,
    message)``, its ``notChecked`` notes, or its advisory ``policyViolations`` as ``(policy, urn, message)``; empty
    without a previous plan or when it holds none (a plan of an older version)."""
    if not isinstance(previous_plan, dict):
        return set()
    items = previous_plan.get(kind)
    if not isinstance(items, list):
        return set()
    if kind == "diagnostics":
        return {(d.get("severity"), d.get("message")) for d in items if isinstance(d, dict)}
    if kind == "policyViolations":
        return {(v.get("policy"), v.get("urn"), v.get("message")) for v in items if isinstance(v, dict)
                and v.get("enforcementLevel") == "advisory"}
    return {a for a in items if isinstance(a, str)}


def _diagnostics(run: ProgramRun, stack: str, width: Optional[int] = None) -> list[str]:
    return diagnostics_block(run, stack, width)


def _short(typ: str) -> str:
    return typ.rsplit(":", 1)[-1]


def _component_lines(members: list, nsg_names: dict[str, str], by_urn: dict[str, Change]) -> tuple[str, str]:
    """A component's resources counted by type (with their plan), and its NSG rules counted per NSG ("" if none)."""
    counts = Counter(_short(r.type) for r in members if r.type != NSG_RULE)
    ops = Counter(by_urn[r.urn].op for r in members if r.urn in by_urn)
    plan = ", ".join(f"{n} {op}" for op, n in sorted(ops.items())) if by_urn else ""
    line = (f"[{plan}] " if plan else "") + ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))
    rules = Counter(nsg_names.get(str(mask(r.inputs.get("networkSecurityGroupId"))), "?") for r in members
                    if r.type == NSG_RULE)
    nsg = (f"NSG rules: {sum(rules.values())} NSG rules (" + ", ".join(f"{k} {n}" for k, n in sorted(rules.items()))
           + ")") if rules else ""
    return line, nsg


def render_summary(stack: str, run: ProgramRun, report, unknowns: bool, changes: Optional[list[Change]] = None,
                   previous: Optional[str] = None, width: int = DEFAULT_WIDTH) -> str:
    """The default view (see the module docstring); every line at most ``width`` characters."""
    by_urn = {c.urn: c for c in changes or []}
    lines = _header(stack, unknowns, previous)
    top = {r.urn: r for r in run.resources if not r.parent or r.parent == run.stack_urn}
    owner: dict[str, str] = {}
    parents = {r.urn: r.parent for r in run.resources}
    for r in run.resources:
        up = r.urn
        while parents.get(up) and parents[up] != run.stack_urn:
            up = parents[up]
        owner[r.urn] = up
    nsg_names = {str(mask(run.ids.get(r.urn, ""))): r.name.removesuffix("-nsg").rsplit("-", 1)[-1]
                 for r in run.resources if r.type == NSG}
    project = run.stack_urn.split("::")[1]
    lines.append(f"Components and top-level resources ({len(top)}) of pulumi:pulumi:Stack {project}-{stack}:")
    for urn, comp in sorted(top.items(), key=lambda kv: kv[1].name):
        members = [r for r in run.resources if owner[r.urn] == urn and r.urn != urn]
        op = by_urn[urn].op if urn in by_urn else ("create" if changes is None else "same")
        detail, nsg = _component_lines(members, nsg_names, by_urn) if members else (_summary(comp), "")
        kind = comp.type if comp.custom else _short(comp.type)  # a resource outside any component: its full type
        lines.append(f" {OP_SYMBOLS.get(op, '  ')} {comp.name} ({kind}): {detail}".rstrip(": "))
        if nsg:
            lines.append(f"      {nsg}")
    if changes is not None:
        changed = [c for c in changes if c.op != "same"]
        lines += ["", f"Changes ({len(changed)}; {len(changes) - len(changed) + 1} unchanged not listed):"]
        by_res = {r.urn: r for r in run.resources}
        for c in changed:
            res = by_res.get(c.urn)
            extra = _diff_note(c) + (_summary(res) if res is not None else "")
            lines.append(f" {OP_SYMBOLS[c.op]}  {c.type} {c.name} {c.op} {_hide(extra)}".rstrip())
    lines = lines[:2] + [_cut(line, width) for line in lines[2:]]  # the header is never cut
    # What a reviewer must read whole is never cut (a terminal wraps it): the counts, every replacement and its
    # cause, the errors, the diagnostics, the policy findings and the IAM statements.
    lines += _counts(run, changes) + replacements_block(changes) + stateful_block(changes) + errors_block(changes)
    lines += node_pool_block(changes, run)
    lines += _diagnostics(run, stack, width) + _policy_lines(run, report) + iam_section(run)
    tail = ["", "Outputs:"]
    for key, value in sorted(run.outputs.items()):
        if key in IAM_OUTPUTS and "policyStatements" in run.outputs:
            tail.append(f"    {key}: (see IAM statements)")
            continue
        shown = mask(value)
        text = shown if isinstance(shown, str) else json.dumps(shown, sort_keys=True, separators=(", ", ": "))
        tail.append(f"    {key}: {_hide(str(text))}")
    return "\n".join(lines + [_cut(line, width) for line in tail])


def render_details(stack: str, run: ProgramRun, report, unknowns: bool, changes: Optional[list[Change]] = None,
                   previous: Optional[str] = None) -> str:
    """The ``--details`` view: the whole resource tree with each resource's plan, counts by type, every finding and
    every output in full (no line is cut)."""
    by_urn = {c.urn: c for c in changes or []}
    lines = _header(stack, unknowns, previous)
    children: dict[Optional[str], list] = {}
    for r in run.resources:
        children.setdefault(r.parent if r.parent != run.stack_urn else None, []).append(r)
    width = max((len(r.type) for r in run.resources), default=30) + 8
    lines.append(f"     {'Type':<{width}} {'Name':<42} Plan")
    stack_op = "create" if changes is None else "same"
    project = run.stack_urn.split("::")[1]
    lines.append(f" {OP_SYMBOLS[stack_op]}  {'pulumi:pulumi:Stack':<{width}} {project + '-' + stack:<42} {stack_op}")

    def walk(parent: Optional[str], indent: str) -> None:
        kids = sorted(children.get(parent, []), key=lambda r: (r.type, r.name))
        for i, r in enumerate(kids):
            last = i == len(kids) - 1
            label = indent + ("└─ " if last else "├─ ") + r.type
            change = by_urn.get(r.urn)
            op = change.op if change else "create"
            extra = _diff_note(change) + ("[protect] " if r.protect else "") + _summary(r)
            lines.append(f" {OP_SYMBOLS[op]}  {label:<{width}} {r.name:<42} {op:<7} {_hide(extra)}".rstrip())
            walk(r.urn, indent + ("   " if last else "│  "))

    walk(None, "")
    for c in changes or []:
        if c.op == "delete":
            lines.append(f" -   {c.type:<{width}} {c.name:<42} delete")
    lines += _counts(run, changes)
    lines += replacements_block(changes)
    lines += stateful_block(changes)
    lines += errors_block(changes, getattr(run, "config_changed", None))  # the fix names the key, as the summary's
    lines += node_pool_block(changes, run)
    lines += ["", "Types:"]
    for typ, n in sorted(Counter(["pulumi:pulumi:Stack"] + [r.type for r in run.resources]).items()):
        lines.append(f"      {n:>4}  {typ}")
    lines += _diagnostics(run, stack)
    lines += _policy_lines(run, report)
    lines += iam_section(run)
    lines += reachability_lines(run.resources)
    lines += ["", "Outputs:"]
    for key, value in sorted(run.outputs.items()):
        shown = mask(value)
        text = shown if isinstance(shown, str) else json.dumps(shown, indent=2, sort_keys=True)
        lines.append(f"    {key}: " + _hide(str(text)).replace("\n", "\n    "))
    return "\n".join(lines)
