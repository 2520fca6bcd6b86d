"""The generated parts of the documentation: ``python -m oke_rdma.docs --write`` rewrites them, ``--check`` lists the
stale ones (exit 1).

Each part sits in a page between ``<!-- <name>:begin -->`` and ``<!-- <name>:end -->`` lines (in Pulumi.yaml: below
the line :data:`PULUMI_YAML_MARKER`) and is rendered from the code it documents:

- ``docs/configuration.md`` ``config-table``: every config key (:mod:`oke_rdma.config.reference`), with what
  changing it costs as the offline preview plans it (:data:`CHANGE_COST`, written by ``python -m offline.changecost
  --write``);
- ``docs/library.md`` ``components``: every component, its ``*Args`` and outputs (:mod:`oke_rdma.components_doc`);
- ``docs/scheduling.md`` ``nccl-values``: the smoke test's NCCL settings per RDMA shape (:mod:`oke_rdma.facts.nccl`);
- ``docs/operations.md`` ``day-two``: the everyday changes and every change that replaces or is refused;
- ``Pulumi.yaml``: the ``config:`` schema and the list of map-valued keys (same source);
- ``docs/networking.md`` ``nsg-rules``: every NSG rule (:func:`oke_rdma.network.rule_table_markdown`);
- ``docs/outputs.md`` ``outputs-table``: the output contract (:func:`oke_rdma.outputs.render_table`);
- ``docs/constraints.md`` ``constraints-ledger``: the constraints ledger and its coverage figure
  (:mod:`oke_rdma.facts.constraints`);
- ``docs/tenants.md`` ``tenant-roles``: what each tenant role may do (:func:`oke_rdma.tenant_access.role_table`).

``make docs`` runs this and ``python -m policies.doc --write`` (the policy packs document themselves, without
importing this package); ``tests/components/test_docs.py`` fails when any generated part is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PULUMI_YAML = ROOT / "Pulumi.yaml"
#: Everything in Pulumi.yaml below this line is generated.
PULUMI_YAML_MARKER = ("# --- generated from oke_rdma/config by `python -m oke_rdma.docs --write` (make docs): "
                      "do not edit below ---")


@dataclass(frozen=True)
class Part:
    """One generated part: the file it lives in, its marker name (None: the tail of Pulumi.yaml) and its renderer."""

    path: Path
    name: Optional[str]
    render: Callable[[], str]

    def markers(self) -> tuple[str, str]:
        return f"<!-- {self.name}:begin -->\n", f"<!-- {self.name}:end -->"

    def current(self, text: str) -> Optional[str]:
        """The part as it stands in ``text``, or None when its markers are missing."""
        if self.name is None:
            head, sep, tail = text.partition(PULUMI_YAML_MARKER + "\n")
            return tail if sep else None
        begin, end = self.markers()
        m = re.search(re.escape(begin) + r"(.*?)" + re.escape(end), text, re.S)
        return m.group(1) if m else None

    def replaced(self, text: str) -> str:
        """``text`` with the part regenerated; ``ValueError`` when its markers are missing."""
        old = self.current(text)
        if old is None:
            where = PULUMI_YAML_MARKER if self.name is None else "{} ... {}".format(*self.markers())
            raise ValueError(f"{self.path.relative_to(ROOT)} lacks the marker(s) {where!r}")
        new = self.render()
        if self.name is None:
            return text.partition(PULUMI_YAML_MARKER + "\n")[0] + PULUMI_YAML_MARKER + "\n" + new
        begin, end = self.markers()
        return text.replace(begin + old + end, begin + new + end, 1)


#: What each config change costs, previewed by ``python -m offline.changecost --write`` (make docs).
CHANGE_COST = ROOT / "offline" / "change_cost.json"


def change_cost() -> dict:
    """The change-cost results (``offline/change_cost.json``): ``{"entries": {id: {key, label, value, kind,
    summary}}, "everyday": [id...]}``; empty when not generated yet."""
    import json
    return json.loads(CHANGE_COST.read_text()) if CHANGE_COST.exists() else {"entries": {}, "everyday": []}


def _cost_cell(entry: Optional[dict]) -> str:
    if not entry:
        return "not previewed yet (make docs)"
    if entry["kind"] == "invalid":
        return "not derived (needs other keys set with it: preview your stack with --previous)"
    value = entry.get("value")
    shown = (str(value).lower() if isinstance(value, bool) else value if isinstance(value, (str, int, float))
             else "a changed map" if isinstance(value, dict) else "a changed list")
    return f"{entry['summary']} (previewed: set to `{shown}`)" if entry["kind"] != "none" else entry["summary"]


def _config_table() -> str:
    from .config.reference import render_table
    entries = change_cost()["entries"]
    return render_table({key: _cost_cell(entries.get(key)) for key in entries} | {
        row: _cost_cell(None) for row in _reference_keys() if row not in entries})


def _reference_keys() -> list[str]:
    from .config.reference import iter_rows
    return [row.path for row in iter_rows() if not (row.type.startswith("map") and not (
        "any YAML" in row.type or "→ string" in row.type or "→ number" in row.type))]


def _day_two_table() -> str:
    """docs/operations.md's day-two table: the everyday changes first, then every key whose change replaces or is
    refused or needs a manual step, each with what it costs (from :data:`CHANGE_COST`)."""
    doc = change_cost()
    entries = doc["entries"]
    lines = ["| change | key | what the preview plans |", "|---|---|---|"]
    everyday = [i for i in doc.get("everyday", []) if i in entries]
    costly = [i for i, e in sorted(entries.items()) if e["kind"] in ("replaces", "refused", "manual")
              and i not in everyday]
    for ident in everyday + costly:
        entry = entries[ident]
        what = entry.get("label") or doc.get("categories", {}).get(ident) or (
            "an everyday change" if ident in everyday else "")
        cell = _cost_cell(entry).replace("|", "\\|")
        if entry["kind"] == "invalid" and ident in doc.get("categories", {}) and \
                entry.get("summary", "").startswith("not derived: oke-rdma:"):  # the config check's own reason
            reason = entry["summary"].removeprefix("not derived: ").split(" (", 1)[0].split(";", 1)[0]
            cell = f"refused on the dev stack by the config check: {reason}".replace("|", "\\|")
        lines.append(f"| {what} | `{entry['key']}` | {cell} |")
    return "\n".join(lines) + "\n"


def _pulumi_schema() -> str:
    from .config.reference import pulumi_config_schema
    return pulumi_config_schema()


def _nsg_rules() -> str:
    from .network import rule_table_markdown
    return rule_table_markdown()


def _tenant_roles() -> str:
    from .tenant_access import role_table
    return role_table()


def _outputs_table() -> str:
    from .outputs import render_table
    return render_table() + "\n"


def _constraints() -> str:
    from .facts.constraints import render_markdown
    return render_markdown()


def _components() -> str:
    from .components_doc import render_table
    return render_table()


def _nccl_values() -> str:
    from .facts.nccl import render_table
    return render_table()


PARTS = (
    Part(DOCS / "configuration.md", "config-table", _config_table),
    Part(DOCS / "scheduling.md", "nccl-values", _nccl_values),
    Part(DOCS / "library.md", "components", _components),
    Part(DOCS / "operations.md", "day-two", _day_two_table),
    Part(PULUMI_YAML, None, _pulumi_schema),
    Part(DOCS / "networking.md", "nsg-rules", _nsg_rules),
    Part(DOCS / "outputs.md", "outputs-table", _outputs_table),
    Part(DOCS / "constraints.md", "constraints-ledger", _constraints),
    Part(DOCS / "tenants.md", "tenant-roles", _tenant_roles),
)


def stale_parts() -> list[str]:
    """One line per generated part that differs from what the code renders (or whose markers are missing)."""
    stale = []
    for part in PARTS:
        text = part.path.read_text(encoding="utf-8") if part.path.exists() else ""
        current = part.current(text)
        label = f"{part.path.relative_to(ROOT)}" + (f" ({part.name})" if part.name else " (config schema)")
        if current is None:
            stale.append(f"{label}: markers missing")
        elif current != part.render():
            stale.append(f"{label}: stale")
    return stale


def write_all() -> list[Path]:
    """Regenerate every part in place; returns the files that changed."""
    changed = []
    for part in PARTS:
        text = part.path.read_text(encoding="utf-8")
        new = part.replaced(text)
        if new != text:
            part.path.write_text(new, encoding="utf-8")
            changed.append(part.path)
    return changed


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oke_rdma.docs", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate every generated part in place")
    mode.add_argument("--check", action="store_true", help="exit 1 when a generated part is stale")
    args = parser.parse_args(argv)
    if args.write:
        try:
            for path in write_all():
                print(f"updated {path.relative_to(ROOT)}")
            from .facts.constraints import coverage
            checked, total = coverage()
            print(f"constraints ledger: {checked} of {total} rows held by a check (docs/constraints.md)")
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    stale = stale_parts()
    for line in stale:
        print(f"error: {line}; run `make docs` (python -m oke_rdma.docs --write)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
