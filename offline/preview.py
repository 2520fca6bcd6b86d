"""``python -m offline.preview``: what ``pulumi preview --policy-pack policies/security --policy-pack
policies/placement`` would show, with no cloud.

Runs ``__main__.py`` under the OCI mocks of :mod:`offline.engine` with a stack's config file, has each policy pack
(``--policy-pack DIR``, repeatable; default both) judge what it declared through the pack's own analyzer server
(:mod:`offline.policy_eval`, :mod:`offline.analyzer`) and prints a report shaped like ``pulumi preview``: the resource
tree, a count by type, the policy findings, the IAM statements (when the stack exports ``policyStatements``) and the
stack outputs (secrets shown as ``[secret]``).

With ``--previous PATH`` (a ``--json`` file of an earlier run) the plan column compares with it: create, update,
**replace** (naming the immutable property that changed, see :mod:`offline.replacement`), delete.

With ``--stack-outputs NAME=PATH`` (repeatable) a program's ``pulumi.StackReference("NAME")`` is answered from PATH: a
``--json`` plan of another preview (its ``outputs``; ``[secret]`` values come back as secret outputs) or a JSON object
of outputs. With ``--program`` beside a ``Pulumi.yaml``, the program runs as that project (its config namespace).

Exit codes: 0 clean (advisory findings allowed), 1 at least one mandatory policy violation, 2 invalid configuration
(one line per problem naming the config key path; no traceback), a referenced stack's outputs missing or unreadable
(``--stack-outputs``), a program that stopped itself with ``pulumi.RunError`` (its message is printed, as the Pulumi
CLI prints it: a program refusing its input, like our ``ConfigError``), or an unusable argument (``--json`` not
writable, ``--program`` missing, ``--previous`` or ``--policy-config`` malformed, a ``--policy-pack`` that is no pack,
a ``--policy-config`` count that is not one per pack), 3 the program failed (any other exception, a syntax error,
``sys.exit``): ``error: the program failed: <Type>: <message>`` and the traceback of the program's own frames; or a
policy pack failed (it did not start, or a rule raised): one line ``error: policy pack <dir>: ...``. ``pulumi preview`` reports a failed program with exit 255, the same code it uses for every other
error; 3 keeps the cases apart. A program that calls ``os._exit(n)`` ends this process at once (it cannot be caught
in-process): the preview then prints nothing and exits ``n``.
"""

from __future__ import annotations

import gc

if __name__ == "__main__":  # the command-line process only; importing this module changes nothing
    # A preview is one short-lived run whose objects live until it exits; the cyclic garbage collector would only
    # re-walk the tens of thousands of classes the Pulumi SDKs define at import, about a quarter of the CPU time
    # (docs/benchmark.md, "The preview's own process"). Reference counting still frees all acyclic garbage; the
    # benchmark keeps the peak memory in view.
    gc.disable()
    import sys

    from offline import prestart  # the standard library only

    prestart.spawn(sys.argv[1:])  # the packs' analyzer servers import on the other core while this process does

import argparse
import asyncio
import json
import os
import re
import runpy
import sys
import traceback
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import pulumi
import yaml

from offline.engine import PROJECT, PROJECT_DIR, ProgramRun, StackOutputsMissing, run_program
from offline.policy_eval import (PolicyConfigError, PolicyRuntimeError, check_pack_config_count, evaluate_packs,
                                 has_mandatory, pack_problem, start_analyzers)
from offline.replacement import Change, compare, summary
from offline.stackfile import SECRET_PLACEHOLDER, StackFileError  # noqa: F401 (SECRET_PLACEHOLDER: re-exported)
from offline.stackfile import read_stack_file as _read_stack_file

EXIT_OK, EXIT_POLICY, EXIT_CONFIG = 0, 1, 2
#: The program raised (not a ``ConfigError``), did not compile, raised ``pulumi.RunError`` or called ``sys.exit``.
EXIT_PROGRAM = 3
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")


def read_stack_file(path: Path) -> tuple[dict[str, str], list[str]]:
    """Read a ``Pulumi.<stack>.yaml`` file into raw config the way the Pulumi CLI (Go yaml.v3) hands it to a
    program; see :func:`offline.stackfile.read_stack_file`.

    :returns: ``(config, secret_keys)``.
    :raises StackFileError: if the file is missing, is not YAML (line and column given), defines a key twice, or
        has no ``config:`` mapping.
    """
    return _read_stack_file(path, PROJECT)


def read_stack_outputs(specs: list[str]) -> dict[str, dict[str, Any]]:
    """Parse ``--stack-outputs NAME=PATH`` values: stack name → the outputs in the JSON file at PATH.

    The file holds a stack's outputs as a JSON object, or a whole plan written by ``--json`` (its ``outputs`` are
    used). Values shown as ``[unknown]`` stay unknown; ``[secret]`` values (masked in a plan) cannot be recovered:
    they come back as secrets holding the text ``[secret]``, so the program sees a secret output as it would.

    :raises StackFileError: on a malformed spec, a missing or unreadable file, or JSON that is not an object.
    """
    found: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise StackFileError(f"--stack-outputs {spec!r}: expected NAME=PATH, e.g. organization/oke-rdma/dev=plan.json")
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise StackFileError(f"--stack-outputs {name}={path}: cannot read the file ({e.strerror})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise StackFileError(f"--stack-outputs {name}={path}: not a JSON file ({e})") from None
        if isinstance(doc, dict) and {"stack", "resources", "outputs"} <= set(doc):
            doc = doc["outputs"]  # a whole plan written by --json
        if not isinstance(doc, dict):
            raise StackFileError(f"--stack-outputs {name}={path}: expected a JSON object of stack outputs")
        found[name] = _unmask(doc)
    return found


def _unmask(value: Any) -> Any:
    """A plan's display values back to wire form: ``[unknown]`` → the unknown sentinel, ``[secret]`` → a secret."""
    if isinstance(value, dict):
        return {k: _unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    if value == "[secret]":
        return {SECRET_SIG[0]: SECRET_SIG[1], "value": "[secret]"}
    return UNKNOWN if value == "[unknown]" else value


def program_project(program: Optional[Path]) -> str:
    """The Pulumi project a program belongs to: ``name`` of the ``Pulumi.yaml`` beside it, else this project."""
    project_file = program.resolve().parent / "Pulumi.yaml" if program else None
    if project_file and project_file.is_file():
        doc = yaml.safe_load(project_file.read_text(encoding="utf-8")) or {}
        if isinstance(doc, dict) and isinstance(doc.get("name"), str):
            return doc["name"]
    return PROJECT


def mask(value: Any) -> Any:
    """Wire-form value → display value: secrets become ``[secret]``, unknowns ``[unknown]``.

    A plain string that holds the stand-in for a ``secure:`` config value (:data:`SECRET_PLACEHOLDER`) is shown as
    ``[secret]`` too: the program passed a secret config value on without ``pulumi.Output.secret`` (see
    :func:`secret_leaks`), and the plan must not show it as if it were plain data."""
    if isinstance(value, str) and SECRET_PLACEHOLDER in value:
        return "[secret]"
    if isinstance(value, dict):
        if value.get(SECRET_SIG[0]) == SECRET_SIG[1]:
            return "[secret]"
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # the wire has one number type; show 3, not 3.0
    return "[unknown]" if value == UNKNOWN else value


def _hide(text: str) -> str:
    """Free text (a diagnostic, a policy message, a tree summary) with any secure: stand-in shown as ``[secret]``."""
    return text.replace(SECRET_PLACEHOLDER, "[secret]")


def secret_leaks(run: ProgramRun) -> list[str]:
    """Where a ``secure:`` config value reaches a resource input or a stack output as plain text (not wrapped as a
    Pulumi secret): one ``<type> <name>: <path>`` per place. ``pulumi up`` would store such a value unencrypted in
    the state and show it in diffs; the offline preview can see it because it stands in :data:`SECRET_PLACEHOLDER`
    for every ``secure:`` value. Values the program wrapped with ``pulumi.Output.secret`` are not listed."""
    found: list[str] = []

    def walk(value: Any, path: str, where: str) -> None:
        if isinstance(value, dict):
            if value.get(SECRET_SIG[0]) == SECRET_SIG[1]:
                return  # a Pulumi secret: encrypted in state
            for k, v in value.items():
                walk(v, f"{path}.{k}" if path else str(k), where)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]", where)
        elif isinstance(value, str) and SECRET_PLACEHOLDER in value:
            found.append(f"{where}: {path}")

    for r in run.resources:
        walk(r.inputs, "", f"{r.type} {r.name}")
    walk(run.outputs, "", "stack output")
    return found


def _is_secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(SECRET_SIG[0]) == SECRET_SIG[1]


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
    if isinstance(policies, dict):  # masked already: any level may be "[unknown]" or "[secret]" instead of its shape
        for name, doc in sorted(policies.items()):
            state = "created" if name in created else "not created"
            where = doc.get("compartmentId") if isinstance(doc, dict) else doc
            lines.append(f"    {name} ({state}; attach to {where or 'the root compartment (set iam.tenancyId)'})")
            texts = doc.get("statements") if isinstance(doc, dict) else doc
            lines += [f"      {text}" for text in (texts if isinstance(texts, list) else [texts or "[unknown]"])]
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
OP_SYMBOLS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}


def render(stack: str, run: ProgramRun, report, unknowns: bool, changes: Optional[list[Change]] = None,
           previous: Optional[str] = None) -> str:
    """The human report: tree, counts, policy findings, warnings and outputs; with ``changes`` (from
    :func:`offline.replacement.compare`), the plan against ``previous`` instead of "create" everywhere."""
    by_urn = {c.urn: c for c in changes or []}
    lines = [f"Previewing update ({stack}) — offline: Pulumi mocks, no cloud, no credentials"
             + (" [first preview: computed values unknown]" if unknowns else "")
             + (f" [compared with {previous}]" if previous else ""), ""]
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
            extra = ("[protect] " if r.protect else "") + _summary(r)
            change = by_urn.get(r.urn)
            op = change.op if change else "create"
            if change and change.op == "replace":
                extra = f"[diff: {', '.join('~' + p for p in change.replace_because)}] " + extra
            elif change and change.op == "update":
                extra = f"[diff: {', '.join('~' + p for p in change.changed)}] " + extra
            lines.append(f" {OP_SYMBOLS[op]}  {label:<{width}} {r.name:<42} {op:<7} {_hide(extra)}".rstrip())
            walk(r.urn, indent + ("   " if last else "│  "))

    walk(None, "")
    deleted = [c for c in changes or [] if c.op == "delete"]
    for c in deleted:
        lines.append(f" -   {c.type:<{width}} {c.name:<42} delete")
    if changes is None:
        lines += ["", "Resources:", f"    + {len(run.resources) + 1} to create"]
    else:
        counts = summary(changes)
        counts["same"] = counts.get("same", 0) + 1  # the root stack
        lines += ["", "Resources:"] + [f"    {OP_SYMBOLS[op].strip() or ' '} {counts[op]} to {op}" if op != "same"
                                      else f"      {counts[op]} unchanged" for op in OP_SYMBOLS if counts.get(op)]
        replaced = [c for c in changes if c.op == "replace"]
        if replaced:
            lines += ["", f"Replacements ({len(replaced)}): each resource below is DESTROYED and CREATED AGAIN "
                          "because a property OCI cannot change in place changed:"]
            for c in replaced:
                lines.append(f"    +- {c.type}: {c.name}  (changed: {', '.join(c.replace_because)})")
            if any(c.type == "oci:ContainerEngine/nodePool:NodePool" for c in replaced):
                lines.append("       a replaced node pool loses every node (and every GPU job running on it)")
        lines.append("")
        lines.append("Types:")
    for typ, n in sorted(Counter(["pulumi:pulumi:Stack"] + [r.type for r in run.resources]).items()):
        lines.append(f"      {n:>4}  {typ}")
    if run.diagnostics:
        lines += ["", "Diagnostics:", f"  pulumi:pulumi:Stack ({project}-{stack}):"]
        lines += [f"    {severity}: {_hide(message)}" for severity, message in run.diagnostics]
    lines += ["", "Policies:"]
    names = {r.urn: f"{r.type}: {r.name}" for r in run.analyzed_resources()}
    for pack in report.packs:
        violations = [v for v in report.violations if v.pack == pack.name]
        not_run = [n for n in report.not_run if n.pack == pack.name]
        mandatory = any(v.enforcement_level == "mandatory" for v in violations)
        icon = "❌" if mandatory else ("⚠️" if violations else "✅")
        lines.append(f"    {icon} {pack.name}@v{pack.version} (local: {pack.path})")
        for v in violations:
            where = f" ({names.get(v.urn, v.urn)})" if v.urn else ""
            lines.append(f"        - [{v.enforcement_level}]  {v.policy}{where}")
            lines += [f"          {_hide(m)}" for m in v.message.splitlines()]
        for n in not_run:
            lines.append(f"        - [advisory]  {n.policy}: {n.reason}")
        if not violations and not not_run:
            lines.append("        no violations")
    lines += iam_section(run)
    lines += ["", "Outputs:"]
    for key, value in sorted(run.outputs.items()):
        shown = mask(value)
        text = shown if isinstance(shown, str) else json.dumps(shown, indent=2, sort_keys=True)
        lines.append(f"    {key}: " + text.replace("\n", "\n    "))
    return "\n".join(lines)


def to_json(stack: str, run: ProgramRun, report, changes: Optional[list[Change]] = None) -> dict:
    """The machine-readable plan (secrets masked). ``replaceOnChanges`` per resource lets a later run's
    ``--previous`` compare with it; ``changes`` is present only when this run was compared with a previous one."""
    doc = {
        "stack": stack,
        "resources": [{"urn": r.urn, "type": r.type, "name": r.name, "parent": r.parent, "inputs": mask(r.inputs),
                       "dependencies": r.dependencies, "protect": r.protect, "custom": r.custom,
                       "provider": r.provider, "replaceOnChanges": run.replace_on_changes.get(r.urn, [])}
                      for r in run.resources],
        "outputs": mask(run.outputs),
        "policyViolations": [{"policy": v.policy, "enforcementLevel": v.enforcement_level, "urn": v.urn,
                              "message": _hide(v.message)} for v in report.violations],
        "diagnostics": [{"severity": severity, "message": _hide(message)} for severity, message in run.diagnostics],
    }
    if changes is not None:
        doc["changes"] = [{"urn": c.urn, "type": c.type, "name": c.name, "op": c.op,
                           "replaceBecause": list(c.replace_because), "changed": list(c.changed)} for c in changes]
    return doc


def json_target_problem(path: Path) -> Optional[str]:
    """Why the plan cannot be written to ``path`` (checked before the program runs), or None."""
    if path.is_dir():
        return "is a directory; give a file path such as plan.json"
    parent = path.parent
    if not parent.exists():
        return f"the directory {parent} does not exist; create it first"
    if not parent.is_dir():
        return f"{parent} is not a directory"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is not writable (permission denied)"
    if not path.exists() and not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot create a file in {parent} (permission denied)"
    return None


def program_problem(path: Path) -> Optional[str]:
    """Why ``--program PATH`` cannot be run, or None. A directory must hold a ``__main__.py`` (what Pulumi runs for
    a Python project directory): ``runpy`` would otherwise import the next ``__main__`` on ``sys.path`` — this
    project's own program."""
    if not path.exists():
        return "no such file or directory"
    if path.is_dir():
        if not (path / "__main__.py").is_file():
            return "is a directory without a __main__.py; give the program file, or a directory holding __main__.py"
        path = path / "__main__.py"
    if not os.access(path, os.R_OK):
        return "cannot read the file (permission denied)"
    return None


#: Where the frames of the offline engine, the Pulumi runtime and the interpreter's program loading live: left out of
#: a failed program's traceback, which keeps only the program's own frames.
_PLUMBING = tuple(str(p) for p in (Path(__file__).resolve().parent, Path(asyncio.__file__).resolve().parent,
                                   Path(runpy.__file__).resolve()))


def _plumbing(filename: str) -> bool:
    import pulumi

    if filename.startswith("<"):  # <frozen runpy>, <string>
        return True
    real = os.path.realpath(filename)  # the virtualenv may be a symlink
    return real.startswith(_PLUMBING) or real.startswith(str(Path(pulumi.__file__).resolve().parent))


def _trim(te: traceback.TracebackException, seen: set[int]) -> None:
    """Drop the leading plumbing frames of ``te`` and of the exceptions chained to it."""
    if id(te) in seen:
        return
    seen.add(id(te))
    frames = list(te.stack)
    while frames and _plumbing(frames[0].filename):
        frames.pop(0)
    te.stack = traceback.StackSummary.from_list(frames)
    for chained in (te.__cause__, te.__context__):
        if chained is not None:
            _trim(chained, seen)


def program_failure(error: BaseException) -> str:
    """The report of a failed program: ``error: the program failed: <Type>: <message>`` and, except for
    ``pulumi.RunError`` (printed without traceback, as the Pulumi CLI does), the traceback of the program's own
    frames (the engine's, the Pulumi runtime's and ``runpy``'s leading frames are left out)."""
    import pulumi

    if isinstance(error, SystemExit):
        code = error.code
        message = f"the program called sys.exit({code!r})" if code is not None else "the program called sys.exit()"
        message += " before it finished"
    else:
        message = str(error) or "(no message)"
    head = f"error: the program failed: {type(error).__name__}: {message}"
    if isinstance(error, pulumi.RunError):
        return head
    te = traceback.TracebackException.from_exception(error)
    _trim(te, set())
    return head + "\n" + "".join(te.format()).rstrip("\n")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline.preview", description=__doc__.splitlines()[0])
    parser.add_argument("--stack", default="dev", help="stack name; reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--config-file", type=Path, help="a stack config file in Pulumi's format (any path)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the plan as JSON to PATH")
    parser.add_argument("--unknowns", action="store_true",
                        help="simulate a stack's first preview: ids and computed outputs are unknown")
    parser.add_argument("--policy-pack", type=Path, action="append", default=[], metavar="DIR",
                        help="a policy pack directory, as for pulumi preview --policy-pack; repeatable (default: "
                             "policies/security and policies/placement)")
    parser.add_argument("--policy-config", type=Path, action="append", default=[], metavar="PATH",
                        help="policy pack config, as for pulumi preview --policy-pack-config: one per --policy-pack, "
                             "in the same order")
    parser.add_argument("--program", type=Path, metavar="PATH",
                        help="a Pulumi program file to run instead of this project's __main__.py (e.g. another "
                             "team's stack, to check it with this policy pack)")
    parser.add_argument("--previous", type=Path, metavar="PATH",
                        help="a --json file of an earlier run: show update/replace/delete against it")
    parser.add_argument("--stack-outputs", action="append", default=[], metavar="NAME=PATH",
                        help="outputs of a stack the program reads through pulumi.StackReference(NAME): another "
                             "preview's --json plan or a JSON object of outputs; repeatable")
    args = parser.parse_args(argv)
    for flag, value, check in (("--json", args.json, json_target_problem), ("--program", args.program,
                                                                             program_problem)):
        problem = check(value) if value is not None else None
        if problem:
            print(f"error: {flag} {value}: {problem}", file=sys.stderr)
            return EXIT_CONFIG

    from oke_rdma.config import ConfigError
    from policies import PACK_DIRS

    packs = args.policy_pack or [d.relative_to(PROJECT_DIR) if Path.cwd() == PROJECT_DIR else d for d in PACK_DIRS]
    problem = check_pack_config_count(packs, args.policy_config, "--policy-config")
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_CONFIG
    for pack_dir in args.policy_pack:
        problem = pack_problem(pack_dir)
        if problem:
            print(f"error: --policy-pack {pack_dir}: {problem}", file=sys.stderr)
            return EXIT_CONFIG

    path = args.config_file or PROJECT_DIR / f"Pulumi.{args.stack}.yaml"
    named = re.fullmatch(r"Pulumi\.(.+)\.ya?ml", path.name)
    stack = named.group(1) if args.config_file and named else args.stack  # Pulumi.<stack>.yaml names its stack
    project = program_project(args.program)
    with start_analyzers(packs) as analyzers:  # the packs start (or were started) while the program runs
        return _preview(args, packs, analyzers, path, stack, project)


def _preview(args: argparse.Namespace, packs: list[Path], analyzers: Any, path: Path, stack: str,
             project: str) -> int:
    """The preview after argument checks, with the packs' analyzer servers already starting."""
    from oke_rdma.config import ConfigError

    try:
        config, secret_keys = _read_stack_file(path, project)
        stack_outputs = read_stack_outputs(args.stack_outputs)
    except StackFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CONFIG
    policy_configs = []
    for config_path in args.policy_config:
        try:
            policy_configs.append(json.loads(config_path.read_text()))
        except (OSError, json.JSONDecodeError) as e:
            print(f"error: --policy-config {config_path}: {e}", file=sys.stderr)
            return EXIT_CONFIG
    try:
        previous = json.loads(args.previous.read_text(encoding="utf-8")) if args.previous else None
        if previous is not None:
            compare(previous, {"resources": []})  # validates its shape before the program runs
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        print(f"error: --previous {args.previous}: {e}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        program = {"program": args.program.resolve()} if args.program else {}
        run = run_program(config, secret_keys, stack, unknowns=args.unknowns, stack_outputs=stack_outputs,
                          project=project, **program)
    except KeyboardInterrupt:
        raise
    except StackOutputsMissing as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as e:
        count = f"{len(e.problems)} problem" + ("s" if len(e.problems) != 1 else "")
        print(f"error: {path.name}: invalid stack configuration ({count}):", file=sys.stderr)
        for problem in e.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_CONFIG
    except pulumi.RunError as e:  # the program refused its input (printed like the CLI does: the message only)
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CONFIG
    except BaseException as e:  # noqa: BLE001 (the program's own failure, SystemExit included, is reported)
        print(program_failure(e), file=sys.stderr)
        return EXIT_PROGRAM
    try:
        report = evaluate_packs(packs, run.analyzed_resources(), policy_configs, analyzers=analyzers,
                                project=project, stack=stack)
    except PolicyConfigError as e:  # printed like the Pulumi CLI prints policy config errors
        for pack, problem in e.by_pack:
            where = (f" (--policy-config {args.policy_config[packs.index(pack.path)]})"
                     if pack is not None and args.policy_config else "")
            head = f"validating policy config: {pack.name} {pack.version}  " if pack is not None else ""
            print(f"error: {head}{problem}{where}", file=sys.stderr)
        return EXIT_CONFIG
    except PolicyRuntimeError as e:  # a pack that does not start, or a rule that raised: the engine fails too
        print(f"error: {e}", file=sys.stderr)
        return EXIT_PROGRAM
    for pack, warning in report.config_warnings_by_pack:
        where = f"--policy-config {args.policy_config[packs.index(pack.path)]}" if args.policy_config else pack.name
        print(f"warning: {where}: {warning}", file=sys.stderr)
    for leak in secret_leaks(run):
        print(f"warning: a secure: config value reaches {leak} as plain text, not as a Pulumi secret: pulumi up "
              "would store it unencrypted in the state (shown here as [secret]); wrap it with "
              "pulumi.Output.secret in the program", file=sys.stderr)
    if not args.program and not args.unknowns:  # this project's outputs against its contract (outputs.contract.json)
        from oke_rdma.outputs import check_outputs
        for problem in check_outputs(run.outputs):
            print(f"warning: stack outputs do not honour outputs.contract.json: {problem}", file=sys.stderr)
    changes = compare(previous, to_json(stack, run, report)) if previous is not None else None
    print(render(stack, run, report, args.unknowns, changes, str(args.previous) if args.previous else None))
    if args.json:
        try:
            args.json.write_text(json.dumps(to_json(stack, run, report, changes), indent=2) + "\n")
        except OSError as e:  # checked before the run; this is a race (the directory went away, the disk is full)
            print(f"error: --json {args.json}: {e.strerror or e}", file=sys.stderr)
            return EXIT_CONFIG
    return EXIT_POLICY if has_mandatory(report) else EXIT_OK


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        prestart.release()  # servers spawned for a command line that never reached the policy evaluation
