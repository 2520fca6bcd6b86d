"""The plan's JSON writer gives the text of ``json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)`` byte for
byte, for every value ``json.dumps`` accepts, and refuses what it refuses."""

import enum
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline import indented_json, plan


def reference(doc):
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


class Name(str):
    pass


class Level(enum.IntEnum):
    LOW = 1


class Ratio(float):
    pass


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(),
    st.text().map(Name), st.just(Level.LOW), st.floats(allow_nan=False).map(Ratio))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.lists(inner, max_size=4).map(tuple),
                            st.dictionaries(st.text(), inner, max_size=5)),
    max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(values)
def test_any_json_value_is_written_as_json_dumps_writes_it(value):
    assert indented_json.dumps(value) == reference(value)


def test_the_cases_that_differ_in_form_are_written_alike():
    """Empty containers nested at every depth, escapes, non-ASCII text, the float specials, tuples and subclasses."""
    doc = {"b": [{}, [], {"x": []}, [[]], ()], "a": {"z": "é\n\"\\\u2028\x00", "y": (1, 2.5, -0.0)},
           "c": [math.nan, math.inf, -math.inf, 1e300, 0.1, True, False, None, Level.LOW, Name("n")],
           "": {"deep": [[[[{"k": [1]}]]]]}}
    assert indented_json.dumps(doc) == reference(doc)
    for top in ({}, [], (), "text", 3, 2.5, None, True, [{}], {"k": {}}):
        assert indented_json.dumps(top) == reference(top)


def test_keys_that_are_not_strings_are_left_to_json_dumps():
    """json.dumps turns int, float, bool and None keys into strings after sorting: the same text comes out."""
    for doc in ({2: "b", 1: "a"}, {"x": {1.5: [1], 0.5: [2]}}, {True: 1, False: 0}, {None: 1}):
        assert indented_json.dumps(doc) == reference(doc)


def test_what_json_dumps_refuses_is_refused_alike():
    """Values that are not JSON, keys that cannot be sorted and cycles raise what json.dumps raises."""
    cycle: list = []
    cycle.append(cycle)
    for doc, error in (({"k": object()}, TypeError), ({"k": {1, 2}}, TypeError), ({1: "a", "b": 2}, TypeError),
                       (cycle, ValueError)):
        with pytest.raises(error):
            reference(doc)
        with pytest.raises(error):
            indented_json.dumps(doc)


def test_the_dev_plan_is_written_as_before(dev_plan_file):
    """The dev stack's plan, read back and written again, is the text json.dumps gives (what --json wrote before)."""
    path, _ = dev_plan_file
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert len(doc["resources"]) > 100
    assert plan.dumps(doc) == reference(doc) + "\n" == text


def test_a_plan_written_to_a_file_a_part_at_a_time_is_the_same_text(tmp_path, monkeypatch):
    """The file holds dumps(doc) and the final newline, however often the pieces were written out; a document whose
    keys json.dumps must convert is rewritten whole by json.dumps."""
    monkeypatch.setattr(indented_json, "_FLUSH_EVERY", 3)
    doc = {"resources": [{"urn": f"u{i}", "inputs": {"list": list(range(i)), "map": {"k": "é"}}} for i in range(20)],
           "stack": "dev"}
    target = tmp_path / "plan.json"
    plan.write(doc, target)
    assert target.read_text(encoding="utf-8") == reference(doc) + "\n"
    late = {"a": [{"x": list(range(10))} for _ in range(5)], "z": {2: "two", 1: "one"}}  # found after flushes
    plan.write(late, target)
    assert target.read_text(encoding="utf-8") == reference(late) + "\n"
