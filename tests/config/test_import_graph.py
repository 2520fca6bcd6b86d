"""The config package's modules form no import circle (counting imports under TYPE_CHECKING and inside functions),
the section modules import neither the stack model, the cross-field rules nor the loader, and the strict base and the
add-on registry never import the config package."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "oke_rdma"
SECTIONS = ("network", "compute", "storage", "tenants", "workload_identity", "platform")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every ``oke_rdma`` module ``path`` imports anywhere in its text (module level, TYPE_CHECKING, functions)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("oke_rdma")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("oke_rdma"):
                continue
            found.add(module)
            for alias in node.names:  # ``from . import x`` imports a submodule
                sub = f"{module}.{alias.name}"
                if (PACKAGE.parent / (sub.replace(".", "/") + ".py")).exists() or \
                        (PACKAGE.parent / sub.replace(".", "/")).is_dir():
                    found.add(sub)
    return found


def _graph(root: Path) -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in root.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def _closure(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _whole_graph() -> dict[str, set[str]]:
    """Imports among every module of ``oke_rdma``, where importing ``a.b.c`` first runs ``a/__init__`` and
    ``a/b/__init__``: those package edges count too, except to the importer's own packages (already being imported
    when one of their modules runs)."""
    graph = _graph(PACKAGE)
    for name in list(graph):
        own = {".".join(name.split(".")[:i]) for i in range(1, len(name.split(".")) + 1)}
        for target in list(graph[name]):
            parts = target.split(".")
            graph[name] |= {".".join(parts[:i]) for i in range(2, len(parts)) if ".".join(parts[:i]) in graph}
        graph[name] -= own
    return graph


def test_the_config_package_has_no_import_circle():
    """A topological order of the config package's modules exists (graphlib raises CycleError on a circle)."""
    graph = {k: {m for m in v if m.startswith("oke_rdma.config")} for k, v in _whole_graph().items()
             if k.startswith("oke_rdma.config.")}
    list(graphlib.TopologicalSorter(graph).static_order())


@pytest.mark.parametrize("section", SECTIONS)
def test_section_models_import_nothing_back(section: str):
    """A section module reaches neither StackConfig, the cross-field rules nor the loader, even indirectly."""
    graph = _whole_graph()
    reached = _closure(graph, f"oke_rdma.config.{section}")
    assert not {m for m in reached if m in ("oke_rdma.config.stack", "oke_rdma.config.loader")
                or m.startswith("oke_rdma.config.checks")}, reached


@pytest.mark.parametrize("leaf", ["oke_rdma.schema", "oke_rdma.addons", "oke_rdma.addons._registry",
                                  "oke_rdma.addons.kueue"])
def test_the_strict_base_and_the_addon_registry_never_import_the_config_package(leaf: str):
    """The add-on modules hold config models built on oke_rdma.schema; reaching oke_rdma.config from them would
    close a circle through oke_rdma.config.platform, which builds the platform model from the registry."""
    reached = _closure(_whole_graph(), leaf)
    assert not any(m == "oke_rdma.config" or m.startswith("oke_rdma.config.") for m in reached), reached


def test_the_whole_package_has_no_import_circle():
    """No module of oke_rdma imports, directly or through a package __init__, a module that imports it back."""
    list(graphlib.TopologicalSorter(_whole_graph()).static_order())


def test_the_graph_sees_a_circle_when_there_is_one(tmp_path: Path):
    """The parser finds relative and TYPE_CHECKING imports: a two-module circle of that kind is a cycle."""
    pkg = tmp_path / "oke_rdma" / "cfg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n")
    (pkg / "b.py").write_text("from . import a\n")
    global ROOT, PACKAGE
    saved = ROOT, PACKAGE
    ROOT, PACKAGE = tmp_path, tmp_path / "oke_rdma"
    try:
        graph = _graph(PACKAGE)
    finally:
        ROOT, PACKAGE = saved
    assert graph["oke_rdma.cfg.a"] == {"oke_rdma.cfg.b"} and "oke_rdma.cfg.a" in graph["oke_rdma.cfg.b"]
    with pytest.raises(graphlib.CycleError):
        list(graphlib.TopologicalSorter(graph).static_order())
