"""The offline preview's modules import each other in one direction: no import circle among ``offline/``'s modules
(imports inside functions and under TYPE_CHECKING count), and the policy modules keep the order policy_eval →
streaming → analyzer → policy_types. The policy packs and the benchmark have no circle either."""
from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path, root: Path, package: str) -> set[str]:
    """Every module of ``package`` that ``path`` imports anywhere in its text (``from offline import x`` imports the
    module ``offline.x``)."""
    name = ".".join(path.relative_to(root).with_suffix("").parts)
    here = name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = here.split(".")[:len(here.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            found |= {f"{module}.{a.name}" for a in node.names}
    return {m for m in found if m == package or m.startswith(package + ".")}


def graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module → the modules of the same package it imports (package ``__init__`` files left out: they are empty
    here or import nothing back)."""
    modules = {".".join(p.relative_to(root).with_suffix("").parts): p for p in (root / package).rglob("*.py")
               if p.name != "__init__.py"}
    return {name: {m for m in _imports(path, root, package) if m in modules and m != name}
            for name, path in modules.items()}


@pytest.mark.parametrize("package", ["offline", "bench", "policies"])
def test_no_import_circle(package):
    """A topological order exists (graphlib raises CycleError on a circle)."""
    list(graphlib.TopologicalSorter(graph(ROOT, package)).static_order())


def test_the_policy_modules_import_in_one_direction():
    """The analyzer driver and the streaming conversation never import the evaluation entry point back, and the
    types at the bottom import none of the three."""
    g = graph(ROOT, "offline")
    assert "offline.policy_eval" not in g["offline.analyzer"] | g["offline.streaming"]
    assert "offline.streaming" not in g["offline.analyzer"]
    assert not g["offline.policy_types"] & {"offline.policy_eval", "offline.streaming", "offline.analyzer"}
    assert {"offline.streaming", "offline.analyzer"} <= g["offline.policy_eval"]  # the edges are seen at all


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    """The parser sees imports inside functions: the shape the policy modules had (a module-level import one way,
    a function-level import back) is a cycle."""
    pkg = tmp_path / "offline"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "policy_eval.py").write_text("def evaluate_packs():\n    from offline.streaming import AnalysisStream\n")
    (pkg / "streaming.py").write_text("from offline.policy_eval import EngineResource\n")
    (pkg / "analyzer.py").write_text("from offline import policy_eval\n")
    g = graph(tmp_path, "offline")
    assert g["offline.analyzer"] == {"offline.policy_eval"}
    with pytest.raises(graphlib.CycleError):
        list(graphlib.TopologicalSorter(g).static_order())
