"""Test helper: the metric names a PromQL expression reads, parsed with promql-parser (a Rust port of Prometheus'
own parser), never with regular expressions."""

from __future__ import annotations

import promql_parser


def metric_names(expr: str) -> set[str]:
    """Metric names of every vector selector in ``expr`` (``__name__`` matchers included).

    :raises ValueError: the expression does not parse (promql-parser's message).
    """
    names: set[str] = set()

    def visit(node: object) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            if node.name:
                names.add(node.name)
            for m in node.matchers.matchers:
                if m.name == "__name__":
                    names.add(m.value)

    promql_parser.walk(promql_parser.parse(expr), visit)
    return names
