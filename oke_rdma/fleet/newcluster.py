"""``python -m oke_rdma.fleet new-cluster``: a team's request for a cluster, as the pull request's content.

    python -m oke_rdma.fleet new-cluster --fleet fleet/fleet.yaml --name gpu-ash-b --region us-ashburn-1 \\
        --wave main --landing-zone lz-ashburn -- --availability-domains Uocm:US-ASHBURN-AD-3 --nodes 4

Writes the stack file with :mod:`oke_rdma.new_stack` (every argument after ``--`` goes to it), then keeps in it only
what the fleet does not already give: ``oci:region`` (the fleet sets it), the network when the cluster takes a
landing zone's, and every value the fleet's ``defaults`` set (a copied default would pin that stack: a later bump
of the defaults would pass it by), unless a flag after ``--`` set it. A cluster with its own VCN gets a range no other
stack of the fleet uses (``--vcn-cidr`` after ``--`` overrides). Appends the entry to ``clusters:``, checks the whole fleet (the fleet file's rules
and each stack through the product's config model) and renders it. Any problem: one line naming the key, exit 2, and
nothing is left written.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path
from typing import Any, Optional

import yaml

from .load import FleetError, did_you_mean, load_fleet, read_yaml
from .write import render_command


def strip_defaults(own: Any, defaults: Any, keep: frozenset[str] = frozenset(), path: str = "") -> Any:
    """``own`` without the leaves the fleet's ``defaults`` own (any value at a path ``defaults`` sets: new_stack's
    own default there would pin the stack, and a later bump of the defaults would pass it by), except the paths in
    ``keep`` (``oke-rdma:cluster.kubernetesVersion``: set by a flag the user gave) and what is under them. Mappings
    emptied by that are dropped; lists and scalars are compared whole. Returns ``...`` (Ellipsis) when nothing is
    left."""
    if path in keep:
        return own
    if isinstance(own, dict) and isinstance(defaults, dict):
        kept = {}
        for k, v in own.items():
            sub = f"{path}.{k}" if path else str(k)
            rest = strip_defaults(v, defaults[k], keep, sub) if k in defaults else v
            if rest is not ...:
                kept[k] = rest
        return kept if kept else ...
    return ...


def _given_paths(passthrough: list[str]) -> frozenset[str]:
    """The config key paths set by a flag the user passed to new_stack (after ``--``)."""
    from oke_rdma.new_stack import FLAGS

    given = {a.split("=", 1)[0] for a in passthrough if a.startswith("--")}
    return frozenset(key for key, flag in FLAGS.items() if flag in given)


def _append_entry(fleet_text: str, entry: dict[str, Any]) -> Optional[str]:
    """The fleet file's text with ``entry`` appended to ``clusters:`` (at the indentation of its items) — only when
    ``clusters:`` is its last top-level key (so appending keeps the YAML and its comments); None otherwise."""
    lines = fleet_text.rstrip("\n").splitlines()
    tops = [i for i, line in enumerate(lines) if line and not line[0].isspace() and line[0] not in "#-"]
    if not tops or not lines[tops[-1]].startswith("clusters:"):
        return None
    items = [line for line in lines[tops[-1] + 1:] if line.lstrip().startswith("- ")]
    indent = (len(items[0]) - len(items[0].lstrip())) if items else 2
    item = yaml.safe_dump([entry], sort_keys=False, default_flow_style=False).splitlines()
    return "\n".join(lines + [" " * indent + line for line in item]) + "\n"


def request_warnings(fleet, region: str) -> list[str]:
    """What the fleet would give a new cluster in ``region`` that does not hold there: across OCI realms
    (:func:`oke_rdma.fleet.resolve.cross_realm`) the management cluster's ``egressCidrs`` are not added to the
    stack's ``network.apiEndpoint.allowedCidrs`` (no route crosses realms) and its credentials do not reach the
    realm's tenancy (:func:`oke_rdma.fleet.load.realm_notes`). OCIDs in the fleet's defaults of another realm are
    refused by the config model afterwards, naming the defaults file."""
    from oke_rdma.facts.regions import realm_of

    from .resolve import cross_realm

    management = fleet.spec.management
    if management is None or not cross_realm(management.region, region):
        return []
    theirs, home = realm_of(region), realm_of(management.region)
    return [f"--region {region} is in realm {theirs}, the management cluster {management.name} "
            f"({management.region}) in {home}: a realm is a separate cloud, so its egressCidrs "
            f"({', '.join(management.egress_cidrs)}) are not added to this stack's network.apiEndpoint.allowedCidrs "
            f"(no route or peering crosses realms), and its operator's credentials do not reach the {theirs} tenancy: "
            f"list the network the operator reaches the API from in allowedCidrs (--api-client-cidr after --), give it "
            f"a credential of the {theirs} tenancy, or run a management cluster in {theirs} (docs/fleet.md)"]


def main(argv: list[str]) -> int:
    own, _, passthrough = (argv[:argv.index("--")], None, argv[argv.index("--") + 1:]) if "--" in argv else \
        (argv, None, [])
    p = argparse.ArgumentParser(prog="python -m oke_rdma.fleet new-cluster", description=__doc__.splitlines()[0])
    p.add_argument("--fleet", type=Path, default=Path("fleet/fleet.yaml"),
                   help="the fleet file (default fleet/fleet.yaml); the stack file goes to <its dir>/stacks/")
    p.add_argument("--name", required=True, help="the new cluster's stack name (stacks/Pulumi.<name>.yaml)")
    p.add_argument("--region", required=True, help="its OCI region, e.g. us-ashburn-1")
    p.add_argument("--wave", required=True, help="the fleet wave it is rolled out in (one of the fleet's waves)")
    p.add_argument("--landing-zone", help="the landing zone whose network it takes (then no network of its own)")
    p.epilog = "Every argument after -- goes to python -m oke_rdma.new_stack (see its --help)."
    args = p.parse_args(own)
    from oke_rdma import new_stack

    fleet = load_fleet(args.fleet)  # the fleet as it is must be valid first (FleetError: exit 2 in __main__)
    # the enumerated arguments are checked before anything is written, each with the closest choice
    waves, zones = list(fleet.spec.waves), [z.name for z in fleet.spec.landing_zones]
    if args.wave not in waves:
        print(f"error: --wave: {args.wave!r} is not a wave of {args.fleet}{did_you_mean(args.wave, waves)}; use one "
              f"of {', '.join(waves)} or add it to waves", file=sys.stderr)
        return 2
    if args.landing_zone and args.landing_zone not in zones:
        print(f"error: --landing-zone: {args.landing_zone!r} is not a landing zone of {args.fleet}"
              f"{did_you_mean(args.landing_zone, zones)}; use one of {', '.join(zones) or '(none declared)'} or "
              f"leave it out (the cluster gets its own network)", file=sys.stderr)
        return 2
    for warning in request_warnings(fleet, args.region):  # before anything is written: the team reads it first
        print(f"warning: {warning}", file=sys.stderr)
    rel = f"stacks/Pulumi.{args.name}.yaml"
    path = fleet.root / rel
    if path.exists():
        print(f"error: --name: {rel} exists; pick another name", file=sys.stderr)
        return 2
    original = args.fleet.read_text(encoding="utf-8")
    entry = {"name": args.name, "region": args.region, "wave": args.wave, "stackFile": rel}
    if args.landing_zone:
        entry["landingZone"] = args.landing_zone
    appended = _append_entry(original, entry)
    if appended is None:
        print(f"error: {args.fleet}: clusters: is not the file's last key; add the entry by hand: {entry}",
              file=sys.stderr)
        return 2
    path.parent.mkdir(parents=True, exist_ok=True)
    if not args.landing_zone and not any(a.split("=", 1)[0] == "--vcn-cidr" for a in passthrough):
        # its own VCN, reached from the management cluster like every other one: a range no other stack uses
        from .resolve import free_vcn_cidr, resolve
        passthrough = [*passthrough, "--vcn-cidr", free_vcn_cidr(resolve(fleet, validate=False))]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = new_stack.main(["--stack", args.name, "--region", args.region, "--output", str(path), *passthrough])
    if code != 0:
        sys.stderr.write(err.getvalue())
        return code
    try:
        written = read_yaml(path, rel)["config"]
        defaults = read_yaml(fleet.file(fleet.spec.defaults), "defaults").get("config", {}) \
            if fleet.spec.defaults else {}
        written.pop("oci:region", None)
        if args.landing_zone:
            written.pop("oke-rdma:network", None)
        kept = strip_defaults(written, defaults, _given_paths(passthrough))
        placeholders = new_stack.placeholder_keys(kept if kept is not ... else {})
        listed = "".join(f"#   {k}\n" for k in placeholders)
        path.write_text(
            f"# Stack {args.name} of fleet {fleet.spec.name}: written by python -m oke_rdma.fleet new-cluster (from\n"
            "# python -m oke_rdma.new_stack, keeping only what the fleet's defaults do not give). Placeholders\n"
            "# ('replacewith') must be replaced before the pull request is merged; docs/fleet.md."
            + (" They are:\n" + listed if placeholders else "\n")
            + yaml.safe_dump({"config": kept if kept is not ... else {}}, sort_keys=False, width=120),
            encoding="utf-8")
        args.fleet.write_text(appended, encoding="utf-8")
        code = render_command(args.fleet)
    except FleetError as e:
        for problem in e.problems:
            print(f"error: {problem}", file=sys.stderr)
        code = 2
    if code != 0:  # nothing is left half-written
        args.fleet.write_text(original, encoding="utf-8")
        path.unlink(missing_ok=True)
        return code
    if placeholders:
        print(f"wrote {rel}, added clusters entry {args.name!r} (wave {args.wave}); replace its "
              f"{len(placeholders)} placeholder{'s' if len(placeholders) != 1 else ''} (values containing "
              f"'replacewith'): {', '.join(placeholders)}; then open the pull request")
    else:
        print(f"wrote {rel}, added clusters entry {args.name!r} (wave {args.wave}); then open the pull request")
    return 0
