"""``python -m offline.preview``: what ``pulumi preview --policy-pack policies/security --policy-pack
policies/placement`` would show, with no cloud.

Runs ``__main__.py`` (or ``--program``) under the OCI mocks of :mod:`offline.engine` with a stack's config (a stack
file, or ``--config-json`` for a stack using Pulumi ESC), has each policy pack (``--policy-pack DIR``, repeatable;
default both) judge what it declared through the pack's own analyzer server (:func:`evaluate_policies`, the one call
into :mod:`offline.policy_eval` / :mod:`offline.analyzer`), prints the report (:mod:`offline.report`: a summary, or
the whole tree with ``--details``) and writes the plan (:mod:`offline.plan`, ``--json``).

With ``--previous PATH`` (an earlier ``--json`` plan) every registration is planned against that state as the
engine would (:mod:`offline.replacement`): create, update, **replace** with its cause (cascades included), delete.

Exit codes (docs/preview.md): 0 clean, 1 a mandatory policy violation or a resource hook, error hook or state
migration (program code the engine runs unseen by the packs: :mod:`offline.engine_code`), 2 invalid configuration or an unusable
argument (one line per problem, before anything is declared; no traceback; a ``--policy-pack`` that is no pack, a
``--policy-config`` count that is not one per pack), 3 the program failed (``pulumi preview`` reports that with 255; a remote component holding an object the Kubernetes
provider refuses included)
or a policy pack failed (it did not start, or a rule raised: one line ``error: policy pack <dir>: ...``), 4 the plan cannot be applied (a protected resource replaced or deleted, a
Kubernetes change the API server refuses), 5 ``--fail-on-replace`` and a stateful resource replaced or deleted.
A program that calls ``os._exit(n)`` ends this process at once: the preview then prints nothing and exits ``n``.
"""

from __future__ import annotations

import gc

if __name__ == "__main__":  # the command-line process only; importing this module changes nothing
    # The cyclic garbage collector is off while the modules import (what they allocate lives to the end) and, once
    # they are imported, that is frozen and the collector turned back on (collect_after_imports): it never walks the
    # tens of thousands of classes the Pulumi SDKs define at import again (that was about a quarter of the CPU
    # time), and the cycles the program leaves behind are still freed, so the peak memory stays bounded
    # (docs/benchmark.md, "The preview's own process").
    gc.disable()
    import sys

    # One thread per policy pack sends each registration to its analyzer server while the main thread runs the
    # program (offline.streaming). Each call needs the GIL twice (to send, and to take the answer); with CPython's
    # default 5 ms switch interval a pack thread waits up to that long behind the busy main thread every time, and
    # the packs fall behind the program. 1 ms keeps them in step (make bench: about 0.1 s less on the dev stack).
    sys.setswitchinterval(0.001)

    from offline import prestart, timings  # the standard library only

    timings.mark("start")
    prestart.spawn(sys.argv[1:])  # the packs' analyzer servers import on the other core while this process does

import argparse
import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import pulumi
import yaml

from offline.configjson import read_config_json
from offline.cni_changes import cni_changes
from offline.kms_changes import kms_changes
from offline.crds import crd_changes, removed_addon_objects
from offline.engine import PROJECT, PROJECT_DIR, ProgramRun, StackOutputsMissing, run_program, skipped_on_first_preview
from offline.failure import program_failure
from offline.node_images import image_version_warnings
from offline.plan import dumps, to_json  # noqa: F401 (dumps, to_json: re-exported)
from offline.plan import write as write_plan
from offline.policy_eval import (PolicyConfigError, PolicyRuntimeError, check_pack_config_count, evaluate_packs,
                                 has_mandatory, pack_problem, start_analyzers)
from offline.replacement import check_plan, check_plan_stack, protected_destroyed, stateful_destroyed
from offline.report import _summary, iam_section, protect_hint  # noqa: F401 (re-exported)
from offline.report_changes import endpoint_cause, render  # noqa: F401 (render: re-exported)
from offline.stackfile import SECRET_PLACEHOLDER, StackFileError  # noqa: F401 (SECRET_PLACEHOLDER: re-exported)
from offline.stackfile import read_stack_file as _read_stack_file
from offline.streaming import AnalysisStream
from offline.versions import withdrawn_creations
from offline.values import SECRET_SIG, UNKNOWN, mask, unmask  # noqa: F401 (re-exported)
from offline.values import unmask as _unmask  # noqa: F401 (the name earlier callers import)
from offline import timings

EXIT_OK, EXIT_POLICY, EXIT_CONFIG = 0, 1, 2
#: The program raised (not a ``ConfigError``), did not compile, raised ``pulumi.RunError`` or called ``sys.exit``.
EXIT_PROGRAM = 3
#: The plan cannot be applied: a protected resource would be replaced or deleted, or a Kubernetes change the API
#: server refuses in place (``pulumi preview`` fails on the first; ``pulumi up`` on the second).
EXIT_PLAN = 4
#: ``--fail-on-replace``: a resource holding state would be replaced or deleted.
EXIT_DESTROYS = 5


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
        found[name] = unmask(doc)
    return found


def program_project(program: Optional[Path]) -> str:
    """The Pulumi project a program belongs to: ``name`` of the ``Pulumi.yaml`` in it (a program directory) or beside
    it (a program file), else this project."""
    # a program directory holds its Pulumi.yaml; a program file sits beside it
    project_file = (program.resolve() if program.is_dir() else program.resolve().parent) / "Pulumi.yaml" \
        if program else None
    if project_file and project_file.is_file():
        doc = yaml.safe_load(project_file.read_text(encoding="utf-8")) or {}
        if isinstance(doc, dict) and isinstance(doc.get("name"), str):
            return doc["name"]
    return PROJECT


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
        if _may_hold_placeholder(r.inputs):
            walk(r.inputs, "", f"{r.type} {r.name}")
    walk(run.outputs, "", "stack output")
    return found


def _may_hold_placeholder(value: Any) -> bool:
    """False only when no string in ``value`` (a resource's inputs as the engine got them: JSON values) can contain
    :data:`SECRET_PLACEHOLDER`: one pass of the C JSON encoder instead of walking every value with its path (most
    resources hold no secret; the walk built a path string for each of the 64 × 200 benchmark stack's 96 000 values).
    The placeholder is plain ASCII that JSON writes unchanged, so a string holding it shows it in the text."""
    try:
        return SECRET_PLACEHOLDER in json.dumps(value, ensure_ascii=False, check_circular=False, default=repr)
    except (TypeError, ValueError, RecursionError):  # not JSON after all: walk it
        return True



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


def derived_policy_configs(packs: list[Path], config: dict, secret_keys: Any) -> tuple[list[Any], list[str]]:
    """One policy config per pack (None = the pack's defaults) holding what the stack config implies — for the
    placement pack (:func:`oke_rdma.placement_allowances.placement_policy_config`: its pools with ``rdma: false`` on
    an RDMA-capable shape in ``allowedOutsideComputeCluster``) and for the security pack
    (:func:`oke_rdma.brought_keys.security_policy_config`: its own ``kmsKeyId`` values in
    ``protected-data-keys-kept.broughtKeys``) — and the lines the report shows about them; ``([], [])`` when it
    implies nothing or the config is refused (the program run reports that)."""
    from oke_rdma.brought_keys import BROUGHT_KEY, KEYS_POLICY, security_policy_config
    from oke_rdma.config import ConfigError, load_stack_config
    from oke_rdma.placement_allowances import placement_policy_config
    from policies import POLICIES_DIR

    try:
        stack_config = load_stack_config(config, secret_keys)
    except ConfigError:
        return [], []
    configs: list[Any] = [None] * len(packs)
    notes: list[str] = []
    for name, derived in (("placement", placement_policy_config(stack_config)),
                          ("security", security_policy_config(stack_config))):
        at = [i for i, pack in enumerate(packs) if Path(pack).resolve() == (POLICIES_DIR / name).resolve()]
        if not derived or not at:
            continue
        configs[at[0]] = derived
        if name == "placement":
            names = ", ".join(next(iter(derived.values()))["allowedOutsideComputeCluster"])
            notes.append(f"oke-rdma-placement runs with the policy config the stack config implies: "
                         f"rdma-shape-in-compute-cluster.allowedOutsideComputeCluster [{names}] (pools with rdma: "
                         f"false on an RDMA-capable shape); for pulumi preview/up pass `python -m "
                         f"offline.placement_config --stack <stack>` output as the placement pack's "
                         f"--policy-pack-config (docs/policy-config.md)")
        else:
            notes.append(f"oke-rdma-security runs with the policy config the stack config implies: {KEYS_POLICY}."
                         f"{BROUGHT_KEY} [{', '.join(derived[KEYS_POLICY][BROUGHT_KEY])}] (the stack config's "
                         f"kmsKeyId values); for pulumi preview/up pass `python -m offline.security_config --stack "
                         f"<stack>` output as the security pack's --policy-pack-config (docs/policy-config.md)")
    return (configs, notes) if notes else ([], [])


def evaluate_policies(run: ProgramRun, packs: list[Path], policy_configs: list[Any], analyzers: Any, project: str,
                      stack: str, stream: Any = None):
    """The policy packs' verdict on ``run``: the one place the preview calls policy evaluation (its seam).
    ``stream`` is the :class:`offline.streaming.AnalysisStream` the program's registrations were sent to as they
    were recorded (None: every resource is sent now).

    :raises PolicyConfigError: when a policy config is invalid (printed like the CLI does).
    :raises PolicyRuntimeError: when a pack does not start or a rule raised.
    """
    return evaluate_packs(packs, run.analyzed_resources(), policy_configs, analyzers=analyzers, project=project,
                          stack=stack, stream=stream)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m offline.preview", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--stack", default=None, help=(
        "stack name; reads Pulumi.<stack>.yaml (default: dev). With --config-file, the stack previewed (URNs, "
        "--previous); default: <stack> of a file named Pulumi.<stack>.yaml, else dev"))
    parser.add_argument("--config-file", type=Path, help="a stack config file in Pulumi's format (any path)")
    parser.add_argument("--config-json", type=Path, metavar="PATH",
                        help="the stack's config as written by `pulumi config --json` (or `esc open` of an ESC "
                             "environment) instead of a stack file: how to preview a stack using ESC")
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
                        help="a --json file of an earlier run: the state to plan against (update/replace/delete)")
    parser.add_argument("--fail-on-replace", action="store_true",
                        help="exit 5 when a resource holding state (cluster, node pool, file system...) would be "
                             "replaced or deleted")
    parser.add_argument("--details", action="store_true",
                        help="show the whole resource tree, every finding and every output in full instead of the "
                             "summary (with --previous: the warnings unchanged since the previous plan too)")
    parser.add_argument("--timings", action="store_true",
                        help="print where the time went to stderr: each phase of the preview and each pack's "
                             "analyzer calls (docs/benchmark.md)")
    parser.add_argument("--timings-json", type=Path, metavar="PATH",
                        help="write the --timings figures as JSON: each phase, the CPU time and peak memory of this "
                             "process and of each pack's analyzer server (make bench reads it)")
    parser.add_argument("--stack-outputs", action="append", default=[], metavar="NAME=PATH",
                        help="outputs of a stack the program reads through pulumi.StackReference(NAME): another "
                             "preview's --json plan or a JSON object of outputs; repeatable")
    fleet = parser.add_argument_group("fleet (docs/fleet.md)")
    fleet.add_argument("--fleet", type=Path, metavar="FLEET_YAML",
                       help="preview every stack of a fleet file (landing zones first, feeding the clusters) and "
                            "print one table; the exit code is the worst stack's (offline/fleetpreview.py)")
    fleet.add_argument("--previous-dir", type=Path, metavar="DIR",
                       help="with --fleet: the base branch's plans (<stack>.json and fleet.json, from --json-dir)")
    fleet.add_argument("--json-dir", type=Path, metavar="DIR",
                       help="with --fleet: write each stack's plan as DIR/<stack>.json, and DIR/fleet.json")
    fleet.add_argument("--summary", type=Path, metavar="PATH",
                       help="with --fleet: append the table to PATH (e.g. $GITHUB_STEP_SUMMARY)")
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    if len(timings.MARKS) != 1:  # not a fresh command-line process (its start was marked before the imports)
        timings.reset()
        timings.mark("start")
    timings.mark("imports")
    args = _parser().parse_args(argv)
    fleet_only = [f for f, v in (("--previous-dir", args.previous_dir), ("--json-dir", args.json_dir),
                                 ("--summary", args.summary)) if v is not None]
    single_only = [f for f, v in (("--stack", args.stack), ("--config-file", args.config_file), ("--config-json",
                   args.config_json), ("--json", args.json), ("--previous", args.previous), ("--program",
                   args.program), ("--stack-outputs", args.stack_outputs or None)) if v is not None]
    if (args.fleet is None and fleet_only) or (args.fleet is not None and single_only):
        flags = fleet_only if args.fleet is None else single_only
        print(f"error: {', '.join(flags)}: {'only with --fleet' if args.fleet is None else 'not with --fleet'} "
              "(the fleet file names every stack, its config and its landing zone; docs/fleet.md)", file=sys.stderr)
        return EXIT_CONFIG
    if args.fleet is not None:
        from offline.fleetpreview import main as fleet_main
        return fleet_main(args, main)
    global _SHOW_TIMINGS, _TIMINGS_JSON
    _SHOW_TIMINGS, _TIMINGS_JSON = args.timings, args.timings_json
    for flag, value, check in (("--json", args.json, json_target_problem), ("--timings-json", args.timings_json,
                               json_target_problem), ("--program", args.program, program_problem)):
        problem = check(value) if value is not None else None
        if problem:
            print(f"error: {flag} {value}: {problem}", file=sys.stderr)
            return EXIT_CONFIG

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

    path = args.config_file or PROJECT_DIR / f"Pulumi.{args.stack or 'dev'}.yaml"
    named = re.fullmatch(r"Pulumi\.(.+)\.ya?ml", path.name)
    # an explicit --stack names the stack; else a Pulumi.<stack>.yaml file names it; else dev
    stack = args.stack or (named.group(1) if args.config_file and named else "dev")
    project = program_project(args.program)
    # the packs start (or were started) while the program runs; the stream, closed first, feeds them
    with start_analyzers(packs) as analyzers, contextlib.ExitStack() as streams:
        return _preview(args, packs, analyzers, path, stack, project, streams)


def _preview(args: argparse.Namespace, packs: list[Path], analyzers: Any, path: Path, stack: str,
             project: str, streams: contextlib.ExitStack) -> int:
    """The preview after argument checks, with the packs' analyzer servers already starting; the stream that sends
    them each registration while the program runs is entered into ``streams`` (closed when the preview ends)."""
    from oke_rdma.config import ConfigError

    try:
        if args.config_json:
            config, secret_keys = read_config_json(args.config_json, project)
            path = args.config_json
        else:
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
            check_plan(previous)  # its shape, before the program runs
            check_plan_stack(previous, stack, project)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        print(f"error: --previous {args.previous}: {e}", file=sys.stderr)
        return EXIT_CONFIG
    derived_notes: list[str] = []
    if not args.policy_config and not args.program:  # the placement allowances the stack config implies
        policy_configs, derived_notes = derived_policy_configs(packs, config, secret_keys)
    stream = streams.enter_context(AnalysisStream(analyzers, packs, policy_configs, stack=stack, project=project))
    try:
        program = {"program": args.program.resolve()} if args.program else {}
        run = run_program(config, secret_keys, stack, unknowns=args.unknowns, stack_outputs=stack_outputs,
                          project=project, previous=previous, on_record=stream.submit, **program)
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
    timings.mark("program")
    if args.unknowns and not run.errors:  # resources created inside applies whose value is unknown: name them
        run.advisories += skipped_on_first_preview(run, config, secret_keys, stack, stack_outputs=stack_outputs,
                                                   project=project, previous=previous, **program)
    if run.errors:  # the provider fails the registration: pulumi preview stops there
        for problem in run.errors:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_PROGRAM
    withdrawn = withdrawn_creations(run, str(config.get("oke-rdma:namePrefix", "")))
    if withdrawn and not args.program:  # suggest only versions the pinned add-ons support (config loaded again)
        from oke_rdma.config import load_stack_config
        from oke_rdma.config.checks.chart_versions import kubernetes_versions_supported
        withdrawn = withdrawn_creations(run, str(config.get("oke-rdma:namePrefix", "")),
                                        kubernetes_versions_supported(load_stack_config(config, secret_keys)))
    if args.program:  # OKE's versions are this project's facts; another program's clusters are not judged
        withdrawn = []
    try:
        report = evaluate_policies(run, packs, policy_configs, analyzers, project, stack, stream)
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
    # What the preview finds beside the program goes into the report's Diagnostics with the program's own messages
    # (not on stderr above the report, where a reader scrolling to the summary misses it).
    found: list[tuple[str, str]] = []
    # OKE refuses to create these: a config problem (exit 2, docs/preview.md), found once the plan is known
    found += [("error", problem) for problem in withdrawn]
    for pack, warning in report.config_warnings_by_pack:
        where = f"--policy-config {args.policy_config[packs.index(pack.path)]}" if args.policy_config else pack.name
        found.append(("warning", f"{where}: {warning}"))
    for leak in secret_leaks(run):
        found.append(("warning", f"a secure: config value reaches {leak} as plain text, not as a Pulumi secret: "
                                 "pulumi up would store it unencrypted in the state (shown here as [secret]); wrap it "
                                 "with pulumi.Output.secret in the program"))
    if not args.program and not args.unknowns:  # this project's outputs against its contract (outputs.contract.json)
        from oke_rdma.outputs import check_outputs
        for problem in check_outputs(run.outputs):
            found.append(("warning", f"stack outputs do not honour outputs.contract.json: {problem}"))
    timings.mark("policies")
    changes = run.changes
    # OKE refuses these updates (409): the plan cannot be applied as it stands
    image_errors = image_version_warnings(changes, {r.urn: r.inputs for r in run.resources})
    found += [("error", problem) for problem in image_errors]
    for warning in cni_changes(run, previous):  # the step pulumi up leaves undone (docs/operations.md)
        found.append(("warning", warning))
    if not args.program:  # a store's key switched in the update that drops the old key's grant (docs/operations.md)
        found += [("warning", warning) for warning in kms_changes(previous, config)]
    if not args.program:  # an add-on switched off takes its CRDs' objects with it (docs/operations.md)
        found += [("warning", warning) for warning in removed_addon_objects(run, previous)]
    found += [("info", note) for note in derived_notes]
    given = args.config_json or args.config_file
    if given and not args.stack and not re.fullmatch(r"Pulumi\.(.+)\.ya?ml", Path(given).name):
        # the stack name sets every URN and what --previous is compared with: never chosen silently
        found.append(("warning", f"stack name defaulted to dev ({Path(given).name} is not named Pulumi.<stack>.yaml): "
                                 "the URNs and a --previous comparison are those of stack dev; pass --stack <name>"))
    from oke_rdma.new_stack import placeholder_keys
    left = placeholder_keys(config)
    if left:  # new_stack's fake OCIDs: pulumi up would fail on each (or create in no real compartment)
        found.append(("warning", f"{path.name} still holds {len(left)} placeholder{'s' if len(left) != 1 else ''} "
                                 f"(values containing 'replacewith', written by new_stack for you to replace): "
                                 f"{', '.join(left)}; replace each with the real value before pulumi up"))
    # program code the engine would run at deploy time that no pack is shown (offline.engine_code): refused, exit 1
    found += [("error", refusal) for refusal in run.refusals]
    # a plan Helm would apply with the old CRDs (docs/operations.md): refused (exit 4) with the step to take
    notes, refusals = crd_changes(run, previous, config) if not args.program else ([], [])
    found += [("error", problem) for problem in refusals]
    run.diagnostics[:0] = found
    code, causes, unreported = exit_causes(run, report, args.fail_on_replace, config_errors=withdrawn,
                                           plan_errors=image_errors + refusals)
    # every cause of a non-zero exit is in the report (causes no other block shows: in Diagnostics) and in the
    # plan's diagnostics, so a reader of either — a pull request's job summary — sees why (docs/preview.md)
    run.diagnostics += [("error", line.removeprefix("error: ")) for line in unreported]
    if args.json:
        try:
            write_plan(with_causes(to_json(stack, run, report, changes), causes), args.json)
        except OSError as e:  # checked before the run; this is a race (the directory went away, the disk is full)
            problem = f"error: --json {args.json}: {e.strerror or e}; the plan was not written"
            run.diagnostics.append(("error", problem.removeprefix("error: ")))
            causes.append(problem)
            code = code or EXIT_CONFIG
    print(render(stack, run, report, args.unknowns, changes, str(args.previous) if args.previous else None,
                 details=args.details, previous_plan=previous))
    timings.mark("report")
    for note in notes:
        print(f"CRDs: {note}")
    repeat_causes(causes, code)
    return code


def with_causes(doc: dict, causes: list[str]) -> dict:
    """The plan ``doc`` with every cause of the exit code (``error: ...`` lines) among its ``diagnostics`` as an
    error, unless a diagnostic already says it: a reader of the plan alone learns why the preview failed."""
    from offline.values import hide

    have = {d["message"] for d in doc["diagnostics"]}
    for line in causes:
        message = hide(line.removeprefix("error: "))
        if message not in have:
            have.add(message)
            doc["diagnostics"].append({"severity": "error", "message": message})
    return doc


def same_stream() -> bool:
    """True when stdout and stderr are the same open file (one terminal, or ``2>&1`` into one file or pipe): what is
    repeated on stderr would then be read twice in a row."""
    try:
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno()))
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor (a test's capture)
        return False


def repeat_causes(lines: list[str], code: int) -> None:
    """Repeat on stderr the causes of a non-zero exit that the report printed (its ``error:`` lines, the mandatory
    policy findings, the CAUSE):
    each line when stderr is read on its own (CI keeps it apart), one line pointing at the report when stdout and
    stderr are the same stream (:func:`same_stream`), so no problem is printed twice where one reader sees both."""
    if not lines:
        return
    if same_stream():
        count = f"{len(lines)} problem{'s' if len(lines) != 1 else ''}"
        print(f"error: exit {code}: {count} above (the report's error: lines and mandatory policy findings, and "
              "CAUSE: at its top when a config change replaces a subnet)", file=sys.stderr)
        return
    for line in lines:
        print(line, file=sys.stderr)


def exit_causes(run: ProgramRun, report, fail_on_replace: bool = False, config_errors: list[str] = (),
                plan_errors: list[str] = ()) -> tuple[int, list[str], list[str]]:
    """``(code, causes, unreported)``: the preview's exit code once the plan is known, every cause of it as an
    ``error: ...`` line (what is repeated on stderr and added to the plan's diagnostics), and those causes no block of
    the report shows otherwise (added to its Diagnostics). ``config_errors`` (a Kubernetes version OKE withdrew:
    :data:`EXIT_CONFIG`) and ``plan_errors`` (an image kept across a version change, a CRD upgrade refused:
    :data:`EXIT_PLAN`) are already among the run's diagnostics. Precedence: 2, 4, 1, 5 (:func:`exit_code`)."""
    causes: list[str] = [f"error: {p}" for p in config_errors]
    unreported: list[str] = []
    code = exit_code(run, report, fail_on_replace, causes.append, unreported.append)
    causes += [f"error: {p}" for p in plan_errors]
    if plan_errors and code != EXIT_PLAN:
        code = EXIT_PLAN
    if config_errors:
        code = EXIT_CONFIG
    return code, causes, unreported


def exit_code(run: ProgramRun, report, fail_on_replace: bool = False,
              repeat: Optional[Callable[[str], None]] = None,
              unreported: Optional[Callable[[str], None]] = None) -> int:
    """The preview's exit code once the plan is printed: :data:`EXIT_PLAN` when it cannot be applied (a protected
    resource replaced or deleted, a change the API server refuses), else :data:`EXIT_POLICY` on a mandatory policy
    violation or a resource binding program code the engine runs unseen by the packs (a hook, a state migration:
    :mod:`offline.engine_code`), else :data:`EXIT_DESTROYS` with ``fail_on_replace`` when a stateful resource is
    replaced or deleted, else :data:`EXIT_OK`. Each cause is handed to ``repeat`` (default: printed to stderr); a
    cause no block of the report shows (the ``--fail-on-replace`` verdict: the Stateful block lists what is lost, not
    that it fails the preview) is handed to ``unreported`` as well."""
    from offline.report import _in_config_terms

    say = repeat or (lambda line: print(line, file=sys.stderr))
    changes = run.changes or []
    changed = getattr(run, "config_changed", None)
    blocked = protected_destroyed(changes)
    refused = [c for c in changes if c.refused]
    for c in blocked:  # the report's errors block
        say(f"error: {c.type} {c.name} is protected and would be {c.op}d; to proceed, {protect_hint(c)}run "
            f"pulumi up, or run pulumi state unprotect '{c.urn}'")
    for c in refused:
        say(f"error: {c.type} {c.name}: {'; '.join(_in_config_terms(c, r, changed) for r in c.refused)}")
    if blocked or refused:
        for cause in endpoint_cause(changes, changed):  # last: the line a reader sees first (CAUSE: in the report)
            say(f"error: {cause}")
        return EXIT_PLAN
    engine_code = getattr(run, "refusals", None) or []
    for refusal in engine_code:  # the report's Diagnostics
        say(f"error: {refusal}")
    mandatory = mandatory_violations(run, report)
    for line in mandatory:  # the report's Policies block
        say(line)
    if mandatory or engine_code:
        return EXIT_POLICY
    destroyed = stateful_destroyed(changes) if fail_on_replace else []
    for c, reason in destroyed:
        line = f"error: --fail-on-replace: {c.type} {c.name} would be {c.op}d: it loses {reason}"
        say(line)
        if unreported:
            unreported(line)
    return EXIT_DESTROYS if destroyed else EXIT_OK


def mandatory_violations(run: ProgramRun, report) -> list[str]:
    """One ``error:`` line per mandatory policy violation (pack, policy, resource): the causes of exit 1."""
    if not has_mandatory(report):
        return []
    names = {r.urn: f"{r.type} {r.name}" for r in run.resources}
    lines = []
    for v in report.violations:
        if v.enforcement_level == "mandatory":
            where = f" on {names.get(v.urn, v.urn)}" if v.urn else " on the stack"
            lines.append(f"error: mandatory policy violation: {v.pack} {v.policy}{where} (Policies, in the report)")
    return lines


#: ``--timings`` was given: :func:`exit_now` prints where the time went (:mod:`offline.timings`).
_SHOW_TIMINGS = False
#: ``--timings-json PATH``: :func:`exit_now` writes the same figures there as JSON (``offline.timings.as_dict``).
_TIMINGS_JSON: Optional[Path] = None


def exit_now(code: int) -> None:
    """End the command-line process with ``code`` once the preview is printed, without the interpreter's
    finalization: the ``atexit`` handlers run (the packs' servers are stopped and waited for, logging is flushed),
    stdout and stderr are flushed, then ``os._exit``. Tearing down the tens of thousands of classes the SDKs define at
    import (module by module, then a last garbage collection the disabled collector does not skip) took about 0.5 s
    of a 2.5 s dev preview and changes nothing the preview reports (docs/benchmark.md). A flush that fails (stdout
    closed by the reader) exits 120, as the interpreter does."""
    import atexit

    timings.mark("exit")
    atexit._run_exitfuncs()  # noqa: SLF001 (documented in the atexit module's source as what the interpreter runs)
    if _SHOW_TIMINGS:
        for line in timings.report():
            print(line, file=sys.stderr)
    if _TIMINGS_JSON is not None:
        try:
            _TIMINGS_JSON.write_text(json.dumps(timings.as_dict(), indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            print(f"error: --timings-json {_TIMINGS_JSON}: {e.strerror or e}", file=sys.stderr)
            code = code or EXIT_CONFIG
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        code = code or 120
    os._exit(code)


def collect_after_imports() -> None:
    """Freeze every object alive now (the imports': ``gc.freeze`` moves them to the permanent generation, which no
    collection walks) and turn the cyclic collector back on at :data:`GC_THRESHOLDS`, for what the program
    allocates. The command-line
    process calls it once its imports are done; a process that imports this module (the tests) keeps its own
    collector settings."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


#: The collector's thresholds once the imports are frozen (CPython's defaults: 700, 10, 10): a young collection every
#: 100 000 allocations frees the cycles the program leaves without walking the registrations alive at the time
#: again and again (the packs' servers use the same, ``policies/<pack>/_serve.py``).
GC_THRESHOLDS = (100_000, 20, 10)


if __name__ == "__main__":
    collect_after_imports()
    try:
        status = main()
    finally:
        prestart.release()  # servers spawned for a command line that never reached the policy evaluation
    exit_now(status)
