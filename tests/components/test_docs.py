"""The documentation stays true and navigable: every generated part (config reference, Pulumi.yaml schema, NSG rules,
output contract, policy rules) matches the code, every relative link and anchor resolves, the README stays short,
and no file cites a document outside the repository."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from oke_rdma import docs

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_every_generated_part_is_current():
    """One check for every generated part: the package's (python -m oke_rdma.docs) and the policy packs' tables
    (python -m policies.doc, which imports nothing from oke_rdma)."""
    assert docs.stale_parts() == [], "run `make docs`"
    out = subprocess.run([sys.executable, "-m", "policies.doc", "--check"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr


def test_a_stale_or_unmarked_part_is_reported(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text("intro\n<!-- demo:begin -->\nold\n<!-- demo:end -->\noutro\n")
    part = docs.Part(page, "demo", lambda: "new\n")
    monkeypatch.setattr(docs, "ROOT", tmp_path)
    monkeypatch.setattr(docs, "PARTS", (part,))
    assert docs.stale_parts() == ["page.md (demo): stale"]
    assert docs.main(["--check"]) == 1
    assert docs.main(["--write"]) == 0
    assert page.read_text() == "intro\n<!-- demo:begin -->\nnew\n<!-- demo:end -->\noutro\n"
    assert docs.stale_parts() == [] and docs.main(["--check"]) == 0
    page.write_text("no markers\n")
    assert docs.stale_parts() == ["page.md (demo): markers missing"]
    assert docs.main(["--write"]) == 2


def test_pulumi_yaml_keeps_its_hand_written_head():
    text = (ROOT / "Pulumi.yaml").read_text()
    head, marker, _ = text.partition(docs.PULUMI_YAML_MARKER + "\n")
    assert marker and head.startswith("name: oke-rdma\nruntime:")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped (but '-' and '_'), spaces to '-'."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_and_anchors_resolve(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+://", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.exists(), f"{page.name}: link to {target} (no such file)"
        if anchor:
            assert anchor in _anchors(dest), f"{page.name}: link to {target} (no such heading)"


def test_every_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text()
    for page in PAGES[1:]:
        assert f"(docs/{page.name})" in readme, f"{page.name} is not linked from the README"


def test_readme_is_short_and_keeps_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    assert "make preview" in readme and "make test" in readme


def test_no_file_cites_a_document_outside_the_repository():
    outside = "DESIGN" + ".md"  # the shared design notes the repository's own docs/ replaced
    skip = {".git", ".venv", "venv", ".hypothesis", "__pycache__", ".pytest_cache"}
    files = []
    for top, dirs, names in os.walk(ROOT):  # skipped directories are never entered (the virtualenv is large)
        dirs[:] = [d for d in dirs if d not in skip]
        files += [Path(top) / n for n in names
                  if Path(n).suffix in {".py", ".md", ".yaml", ".yml", ".json", ".toml", ".txt", ".cfg", ".ini", ""}]
    assert len(files) > 50
    hits = [str(p.relative_to(ROOT)) for p in files if outside in p.read_text(encoding="utf-8", errors="replace")]
    assert hits == []


def test_tests_describe_behaviour_not_where_the_request_came_from():
    pattern = re.compile(r"\b(issue \d+|issue #\d+|done[- ]when)\b", re.I)
    hits = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").rglob("*"))
            if path.is_file() and path.suffix in {".py", ".yaml", ".json"}
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line) and path.name != Path(__file__).name]
    assert hits == []
