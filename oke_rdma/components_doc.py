"""docs/library.md's component table, generated from the code: every ``pulumi.ComponentResource`` of the package, its
type token, the arguments of its ``*Args`` (from the class's signature: ``name=`` marks one with a default) and its
outputs (every public attribute the component sets on itself, read from its source).

``python -m oke_rdma.docs --write`` renders it between ``<!-- components:begin -->`` and ``<!-- components:end -->``;
``tests/components/test_docs.py`` fails when it is stale, so a new component, argument or output cannot be left out.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Iterator

PACKAGE = Path(__file__).resolve().parent


def _components() -> Iterator[tuple[str, ast.ClassDef, str]]:
    """(module name, class node, type token) of every ComponentResource subclass in the package, by module path."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = "oke_rdma." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "pulumi.ComponentResource" for b in node.bases):
                token = next((c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call)
                              and ast.unparse(c.func) == "super().__init__" and c.args
                              and isinstance(c.args[0], ast.Constant)), "")
                yield module, node, token


def _outputs(node: ast.ClassDef) -> list[str]:
    """Public attributes assigned on ``self`` anywhere in the class, in order of first assignment."""
    names: dict[str, None] = {}
    for sub in ast.walk(node):
        targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(
            sub, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" \
                        and not t.attr.startswith("_"):
                    names.setdefault(t.attr, None)
    return list(names)


def _args(module: str, node: ast.ClassDef) -> str:
    """``XArgs(a, b, c=)`` of the class the component's ``args`` parameter is annotated with."""
    init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    annotation = next((ast.unparse(a.annotation) for a in (init.args.args if init else [])
                       if a.arg == "args" and a.annotation is not None), None)
    if annotation is None:
        return ""
    cls = getattr(importlib.import_module(module), annotation.strip("'\""), None)
    if cls is None:
        return annotation
    params = [p for p in inspect.signature(cls).parameters.values() if p.name != "self"]
    shown = [p.name + ("=" if p.default is not inspect.Parameter.empty else "") for p in params]
    return f"{cls.__name__}({', '.join(shown)})"


def render_table() -> str:
    """The Markdown table: component, type token, ``*Args``, outputs."""
    lines = ["| component | type | arguments | outputs (attributes) |", "|---|---|---|---|"]
    for module, node, token in _components():
        outputs = ", ".join(f"`{o}`" for o in _outputs(node))
        lines.append(f"| `{module}.{node.name}` | `{token}` | `{_args(module, node)}` | {outputs} |")
    return "\n".join(lines) + "\n"
