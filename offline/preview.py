"""``python -m offline.preview``: what ``pulumi preview --policy-pack policies`` would show, with no cloud.

Runs ``__main__.py`` under the OCI mocks of :mod:`offline.engine` with a stack's config file, evaluates the policy
pack on what it declared (:mod:`offline.policy_eval`) and prints a report shaped like ``pulumi preview``: the resource
tree, a count by type, the policy findings and the stack outputs (secrets shown as ``[secret]``).

Exit codes: 0 clean (advisory findings allowed), 1 at least one mandatory policy violation, 2 invalid configuration
(one line per problem naming the config key path; no traceback) or a referenced stack's outputs missing or unreadable
(``--stack-outputs``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import yaml

from offline.engine import PROJECT, PROJECT_DIR, ProgramRun, StackOutputsMissing, run_program
from offline.policy_eval import evaluate, has_mandatory

EXIT_OK, EXIT_POLICY, EXIT_CONFIG = 0, 1, 2
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")
#: What the offline preview stands in for a ``secure:`` config value it cannot decrypt.
SECRET_PLACEHOLDER = "offline-placeholder-secret"


class StackFileError(Exception):
    """The stack config file is missing or is not a Pulumi stack config file."""


def read_stack_file(path: Path) -> tuple[dict[str, str], list[str]]:
    """Read a ``Pulumi.<stack>.yaml`` file into raw config the way the Pulumi CLI hands it to a program.

    Keys without a namespace get the project's (``oke-rdma:``); strings stay strings, other scalars become their
    YAML/JSON text, objects and lists become JSON; ``secure:`` values (which cannot be decrypted offline) become a
    placeholder and their keys are reported as secret.

    :returns: ``(config, secret_keys)``.
    :raises StackFileError: if the file is missing, is not YAML, or has no ``config:`` mapping.
    """
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise StackFileError(f"{path}: not UTF-8 text (byte {e.start}); save the file as UTF-8") from None
    except OSError as e:
        raise StackFileError(f"{path}: cannot read the stack config file ({e.strerror})") from None
    except yaml.YAMLError as e:
        raise StackFileError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    doc = doc or {}
    if not isinstance(doc, dict) or not isinstance(doc.get("config", {}), dict):
        raise StackFileError(f"{path}: expected a mapping with a 'config:' mapping of key: value")
    config: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in (doc.get("config") or {}).items():
        key = str(key) if ":" in str(key) else f"{PROJECT}:{key}"
        value, secret = _unsecure(value)
        if secret:
            secret_keys.append(key)
        if isinstance(value, (datetime.date, datetime.datetime)):
            value = value.isoformat()  # YAML read an unquoted date; Pulumi hands the program text
        if isinstance(value, str):
            config[key] = value
        elif isinstance(value, bool):
            config[key] = "true" if value else "false"
        else:
            try:
                config[key] = json.dumps(value, default=_plain)
            except (TypeError, ValueError) as e:
                raise StackFileError(f"{key}: cannot be read as Pulumi config ({e}); quote the value") from None
    return config, secret_keys


def _plain(value: Any) -> str:
    """JSON fallback for YAML-only scalars: dates become ISO text; anything else (binary) is refused."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    raise TypeError(f"a {type(value).__name__} value is not a string, number, boolean, list or map")


def _unsecure(value: Any) -> tuple[Any, bool]:
    """Replace every ``{secure: ...}`` inside ``value`` with a placeholder; say whether there was one."""
    if isinstance(value, dict) and set(value) == {"secure"}:
        return SECRET_PLACEHOLDER, True
    if isinstance(value, dict):
        pairs = {k: _unsecure(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_unsecure(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def read_stack_outputs(specs: list[str]) -> dict[str, dict[str, Any]]:
    """Parse ``--stack-outputs NAME=PATH`` values: stack name → the outputs in the JSON file at PATH.

    The file holds a stack's outputs as a JSON object, or a whole plan written by ``--json`` (its ``outputs`` are
    used). Values shown as ``[unknown]`` stay unknown; ``[secret]`` values cannot be recovered and stay that text.

    :raises StackFileError: on a malformed spec, a missing or unreadable file, or JSON that is not an object.
    """
    found: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise StackFileError(f"--stack-outputs {spec!r}: expected NAME=PATH, e.g. org/oke-rdma/net=net.json")
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
    """``[unknown]`` in a plan's outputs back to the engine's unknown sentinel."""
    if isinstance(value, dict):
        return {k: _unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    return UNKNOWN if value == "[unknown]" else value


def mask(value: Any) -> Any:
    """Wire-form value → display value: secrets become ``[secret]``, unknowns ``[unknown]``."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG[0]) == SECRET_SIG[1]:
            return "[secret]"
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # the wire has one number type; show 3, not 3.0
    return "[unknown]" if value == UNKNOWN else value


def _pack_version() -> str:
    meta = yaml.safe_load((PROJECT_DIR / "policies" / "PulumiPolicy.yaml").read_text()) or {}
    return str(meta.get("version", "0.0.1"))


def _summary(res) -> str:
    """A few identifying properties per resource, for the tree."""
    p = res.inputs
    if res.type == "oci:ContainerEngine/cluster:Cluster":
        public = (p.get("endpointConfig") or {}).get("isPublicIpEnabled")
        return f"type={p.get('type')} {p.get('kubernetesVersion')} endpoint={'public' if public else 'private'}"
    if res.type == "oci:ContainerEngine/nodePool:NodePool":
        details = p.get("nodeConfigDetails") or {}
        rdma = " computeClusterId=set" if details.get("computeClusterId") else ""
        return f"{p.get('nodeShape')} ×{mask(details.get('size'))}{rdma}"
    if res.type in ("oci:Core/subnet:Subnet", "oci:Core/vcn:Vcn"):
        return str(p.get("cidrBlock") or ",".join(p.get("cidrBlocks") or []))
    if res.type == "kubernetes:helm.sh/v3:Release":
        return f"{p.get('chart')}@{p.get('version')} in {p.get('namespace')}"
    if res.type == "oci:Identity/policy:Policy":
        n = len(p.get("statements") or [])
        return f"{n} statement" + ("s" if n != 1 else "")
    if res.type == "oci:FileStorage/mountTarget:MountTarget":
        return f"{p.get('requestedThroughput', 1)} Gbps"
    return ""


def render(stack: str, run: ProgramRun, report, unknowns: bool) -> str:
    """The human report: tree, counts, policy findings and outputs."""
    lines = [f"Previewing update ({stack}) — offline: Pulumi mocks, no cloud, no credentials"
             + (" [first preview: computed values unknown]" if unknowns else ""), ""]
    children: dict[Optional[str], list] = {}
    for r in run.resources:
        children.setdefault(r.parent if r.parent != run.stack_urn else None, []).append(r)
    width = max((len(r.type) for r in run.resources), default=30) + 8
    lines.append(f"     {'Type':<{width}} {'Name':<42} Plan")
    lines.append(f" +   {'pulumi:pulumi:Stack':<{width}} {PROJECT + '-' + stack:<42} create")

    def walk(parent: Optional[str], indent: str) -> None:
        kids = sorted(children.get(parent, []), key=lambda r: (r.type, r.name))
        for i, r in enumerate(kids):
            last = i == len(kids) - 1
            label = indent + ("└─ " if last else "├─ ") + r.type
            extra = ("[protect] " if r.protect else "") + _summary(r)
            lines.append(f" +   {label:<{width}} {r.name:<42} create  {extra}".rstrip())
            walk(r.urn, indent + ("   " if last else "│  "))

    walk(None, "")
    lines += ["", "Resources:", f"    + {len(run.resources) + 1} to create"]
    for typ, n in sorted(Counter(["pulumi:pulumi:Stack"] + [r.type for r in run.resources]).items()):
        lines.append(f"      {n:>4}  {typ}")
    lines += ["", "Policies:"]
    icon = "❌" if has_mandatory(report) else ("⚠️" if report.violations else "✅")
    lines.append(f"    {icon} oke-rdma-policies@v{_pack_version()} (local: policies)")
    names = {r.urn: f"{r.type}: {r.name}" for r in run.resources}
    for v in report.violations:
        where = f" ({names.get(v.urn, v.urn)})" if v.urn else ""
        lines.append(f"        - [{v.enforcement_level}]  {v.policy}{where}")
        lines += [f"          {m}" for m in v.message.splitlines()]
    for n in report.not_run:
        lines.append(f"        - [advisory]  {n.policy}: {n.reason}")
    if not report.violations and not report.not_run:
        lines.append("        no violations")
    lines += ["", "Outputs:"]
    for key, value in sorted(run.outputs.items()):
        shown = mask(value)
        text = shown if isinstance(shown, str) else json.dumps(shown, indent=2, sort_keys=True)
        lines.append(f"    {key}: " + text.replace("\n", "\n    "))
    return "\n".join(lines)


def to_json(stack: str, run: ProgramRun, report) -> dict:
    """The machine-readable plan (secrets masked)."""
    return {
        "stack": stack,
        "resources": [{"urn": r.urn, "type": r.type, "name": r.name, "parent": r.parent, "inputs": mask(r.inputs),
                       "dependencies": r.dependencies, "protect": r.protect} for r in run.resources],
        "outputs": mask(run.outputs),
        "policyViolations": [{"policy": v.policy, "enforcementLevel": v.enforcement_level, "urn": v.urn,
                              "message": v.message} for v in report.violations],
    }


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline.preview", description=__doc__.splitlines()[0])
    parser.add_argument("--stack", default="dev", help="stack name; reads Pulumi.<stack>.yaml (default: dev)")
    parser.add_argument("--config-file", type=Path, help="a stack config file in Pulumi's format (any path)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the plan as JSON to PATH")
    parser.add_argument("--unknowns", action="store_true",
                        help="simulate a stack's first preview: ids and computed outputs are unknown")
    parser.add_argument("--policy-config", type=Path, metavar="PATH",
                        help="policy pack config, as for pulumi preview --policy-pack-config")
    parser.add_argument("--stack-outputs", action="append", default=[], metavar="NAME=PATH",
                        help="outputs of a stack the program reads through pulumi.StackReference (network.fromStack):"
                             " a JSON file of outputs, or another preview's --json plan; repeatable")
    args = parser.parse_args(argv)

    from components.config import ConfigError
    from policies.pack import PACK_ENFORCEMENT_LEVEL, PACK_NAME, POLICIES

    path = args.config_file or PROJECT_DIR / f"Pulumi.{args.stack}.yaml"
    named = re.fullmatch(r"Pulumi\.(.+)\.ya?ml", path.name)
    stack = named.group(1) if args.config_file and named else args.stack  # Pulumi.<stack>.yaml names its stack
    try:
        config, secret_keys = read_stack_file(path)
        stack_outputs = read_stack_outputs(args.stack_outputs)
        policy_config = json.loads(args.policy_config.read_text()) if args.policy_config else None
    except StackFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CONFIG
    except (OSError, json.JSONDecodeError) as e:
        print(f"error: --policy-config {args.policy_config}: {e}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        run = run_program(config, secret_keys, stack, unknowns=args.unknowns, stack_outputs=stack_outputs)
    except StackOutputsMissing as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as e:
        count = f"{len(e.problems)} problem" + ("s" if len(e.problems) != 1 else "")
        print(f"error: {path.name}: invalid stack configuration ({count}):", file=sys.stderr)
        for problem in e.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        report = evaluate(POLICIES, run.resources, PACK_NAME, policy_config=policy_config,
                          pack_enforcement_level=PACK_ENFORCEMENT_LEVEL)
    except ValueError as e:
        print(f"error: --policy-config {args.policy_config}: {e}", file=sys.stderr)
        return EXIT_CONFIG
    print(render(stack, run, report, args.unknowns))
    if args.json:
        args.json.write_text(json.dumps(to_json(stack, run, report), indent=2) + "\n")
    return EXIT_POLICY if has_mandatory(report) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
