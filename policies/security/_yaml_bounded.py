"""YAML a stack's author wrote, read with the work it may cost bounded: ``yaml.safe_load`` / ``safe_load_all`` that
refuse alias expansion past a budget and anchors that contain themselves.

An alias makes the loaded object share the anchored node, so a few lines (``a: &a [x, x]``, ``b: &b [*a, *a]``, ...)
load as a graph whose tree — what every rule's walk visits — doubles with each line ("billion laughs"), and an
anchor whose value holds its own alias loads as a cycle no walk ends. Go's YAML readers, which the Kubernetes provider,
kubectl and the Pulumi CLI use, refuse both ("document contains excessive aliasing", "anchor ... value contains
itself"; go-yaml v3 ``decode.go`` ``allowedAliasRatio``). Here the size of a document as a tree is counted once per
distinct node (a memo over the composed nodes, so the count itself costs no more than the document); a document is
refused when aliases add more than :data:`MAX_ALIAS_NODES` nodes and more than its own size, or when an anchor
contains itself. Nesting past Python's recursion limit is refused as well (the composer recurses).

Errors: :class:`BoundedYAMLError` (a ``yaml.YAMLError``, so callers that handle malformed YAML handle it too), with
one line saying why. This module is kept identical in both packs (each is published alone;
``tests/policies/test_walk_bounds.py`` keeps the copies equal).
"""
from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

#: Nodes alias expansion may add to a document beyond its own size (go-yaml v3 allows ~99% aliases below 400,000
#: decoded nodes and less as documents grow).
MAX_ALIAS_NODES = 100_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class BoundedYAMLError(yaml.YAMLError):
    """A document whose aliases expand past the budget, an anchor that contains itself, or nesting too deep."""


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def expanded_size(root: Node) -> tuple[int, int]:
    """(nodes of the document as a tree, distinct nodes): each distinct node sized once (iterative, memoised).
    Raises :class:`BoundedYAMLError` for an anchor whose value contains itself."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            active.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            continue
        if key in sizes:
            continue
        if key in active:
            raise BoundedYAMLError("an anchor's value contains an alias to itself")
        active.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in active:
                raise BoundedYAMLError("an anchor's value contains an alias to itself")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)], len(sizes)


def _check(node: Node) -> None:
    tree, distinct = expanded_size(node)
    extra = tree - distinct
    if extra > MAX_ALIAS_NODES and extra > distinct:
        raise BoundedYAMLError(f"aliases expand the document to {tree} nodes from {distinct} (excessive aliasing)")


def safe_load_all(text: Any) -> list[Any]:
    """Every document of ``text`` as ``yaml.safe_load_all`` builds them, after checking each (module docstring)."""
    loader = _LOADER(text)
    docs: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            _check(node)
            docs.append(loader.construct_document(node))
    except RecursionError:
        raise BoundedYAMLError("the document nests too deeply to be read") from None
    finally:
        loader.dispose()
    return docs


def safe_load(text: Any) -> Any:
    """The one document of ``text`` (None when empty), as ``yaml.safe_load`` builds it, checked likewise."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check(node)
        return loader.construct_document(node)
    except RecursionError:
        raise BoundedYAMLError("the document nests too deeply to be read") from None
    finally:
        loader.dispose()
