"""A resource whose inputs nest deeper than a policy pack can read (pulumi_policy turns them into a dict with
protobuf's recursive MessageToDict, which exceeds Python's recursion limit near 200 levels): the offline preview
refuses it with one line naming the resource and the path, exit 3 — never a traceback — and a value within the limit
previews."""
from __future__ import annotations

import sys
import threading

from google.protobuf import json_format, struct_pb2

from offline.nesting import MAX_LEVELS, deepest, too_deep, truncated
from offline.preview import main

PROGRAM = """import pulumi_kubernetes as k8s
deep = {{"v": 1}}
for i in range({n}):
    deep = {{"x": deep}}
k8s.apiextensions.CustomResource("rf", api_version="kueue.x-k8s.io/v1beta1", kind="ResourceFlavor",
                                 metadata={{"name": "deep"}}, spec={{"deep": deep}})
"""


def _struct(levels: int) -> struct_pb2.Struct:
    deep: dict = {"v": 1}
    for _ in range(levels - 1):
        deep = {"x": deep}
    s = struct_pb2.Struct()
    s.update(deep)
    return s


def _preview(tmp_path, capsys, n: int) -> tuple[int, str]:
    path = tmp_path / "p.py"
    path.write_text(PROGRAM.format(n=n))
    code = main(["--program", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_four_hundred_levels_are_refused_in_one_line(tmp_path, capsys):
    code, out = _preview(tmp_path, capsys, 400)
    assert code == 3 and "Traceback" not in out and "RecursionError" not in out, out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("error:")]
    assert "'rf'" in line and "levels deep (at spec.deep.x.x" in line and "flatten" in line


def test_a_value_within_the_limit_previews(tmp_path, capsys):
    code, out = _preview(tmp_path, capsys, MAX_LEVELS - 10)
    assert code == 0, out


def test_the_limit_is_below_what_the_packs_conversion_survives():
    """MessageToDict (what pulumi_policy calls) reads MAX_LEVELS levels in a fresh thread, and fails far deeper, under
    Python's default recursion limit (1000, set here: other code in the process may have raised it): the measured
    fact the limit rests on."""
    results = {}
    limit = sys.getrecursionlimit()

    def convert(levels: int) -> None:
        try:
            json_format.MessageToDict(_struct(levels))
            results[levels] = True
        except RecursionError:
            results[levels] = False
    sys.setrecursionlimit(1000)
    try:
        for levels in (MAX_LEVELS, 400):
            t = threading.Thread(target=convert, args=(levels,))
            t.start()
            t.join()
    finally:
        sys.setrecursionlimit(limit)
    assert results == {MAX_LEVELS: True, 400: False}


def _built(levels: int) -> struct_pb2.Struct:
    """A Struct nested ``levels`` deep, built from the inside without recursion (Struct.update recurses)."""
    s = struct_pb2.Struct()
    node = s
    for _ in range(levels - 1):
        node = node.fields["x"].struct_value
    node.fields["v"].number_value = 1
    return s


def test_deepest_and_truncated_walk_without_recursion():
    s = _built(5000)
    assert deepest(s)[0] == 5000 and too_deep(s)
    cut = truncated(s)
    assert deepest(cut)[0] == MAX_LEVELS and too_deep(cut) is None
    assert too_deep(_struct(MAX_LEVELS)) is None



def _mixed(levels: int) -> struct_pb2.Struct:
    """A struct whose deepest value is ``levels`` levels down, lists and maps alternating."""
    value: object = 1
    for i in range(levels - 1):
        value = [value] if i % 2 else {"m": value}
    s = struct_pb2.Struct()
    s.update({"top": value})
    return s


def test_too_deep_counts_lists_and_maps_alike_at_the_limit():
    """The depth check that runs on every registration counts a list level as a map level, exactly at the limit:
    MAX_LEVELS levels pass, one more is refused naming the levels and the deepest value's path."""
    assert deepest(_mixed(MAX_LEVELS))[0] == MAX_LEVELS and too_deep(_mixed(MAX_LEVELS)) is None
    reason = too_deep(_mixed(MAX_LEVELS + 1))
    assert deepest(_mixed(MAX_LEVELS + 1))[0] == MAX_LEVELS + 1
    assert reason and f"nest {MAX_LEVELS + 1} levels deep (at top[0].m[0].m" in reason
