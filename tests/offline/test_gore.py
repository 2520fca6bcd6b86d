"""JSON-schema ``pattern`` with Go's meaning (offline/gore.py): every place Go's RE2 and Python's ``re`` read a
pattern differently, each with a text Go accepts and one it refuses; patterns Go cannot compile are refused."""
from __future__ import annotations

import re

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from offline.gore import GoRegexError, go_pattern_validator, go_search, translate

# (pattern, text, Go's verdict) — Python's re.search gives the other verdict on every row marked "differs".
CASES = [
    ("^a$", "a", True),
    ("^a$", "a\n", False),  # differs: Python's $ also matches before a final newline
    (r"^(https://|oci://)[^\s/]+(/\S*)?$", "https://charts.example.com/x", True),
    (r"^(https://|oci://)[^\s/]+(/\S*)?$", "https://charts.example.com/x\n", False),  # differs
    (r"^\d+$", "123", True),
    (r"^\d+$", "١٢٣", False),  # differs: Arabic-Indic digits are \d in Python only
    (r"^\w+$", "naïve", False),  # differs: ï is a word character in Python only
    (r"^\s$", "\v", False),  # differs: Go's \s is [\t\n\f\r ]
    (r"^\s$", "\t", True),
    (r"^a{,2}$", "a{,2}", True),  # differs: Go reads {,2} as literal text
    (r"^a{,2}$", "aa", False),
    (r"^[[:alpha:]]+$", "abc", True),  # differs: Python reads [[:alpha:]] as a set of characters plus "]"
    (r"^[[:digit:]]$", "7", True),
    (r"\Qa.b\E", "a.b", True),
    (r"\Qa.b\E", "axb", False),
    (r"(?<n>x)y", "xy", True),
    (r"^a\z", "a", True),
    (r"^a\z", "a\n", False),
    (r"(?i)^abc$", "ABC", True),
    (r"^[]a]$", "]", True),
    (r"^a+?b*?$", "aab", True),
    (r"^\x{41}$", "A", True),
]

GO_REFUSES = [r"(?=a)", r"(?!a)", r"(?<=a)b", r"(?<!a)b", r"(a)\1", r"(?P<n>a)(?P=n)", r"a\Z", r"a*+", r"a++",
              r"a?+", r"a**", r"a{2}{3}", r"(?>a)", r"(?(1)a|b)", r"(?#comment)", r"a{1001}", r"[a", r"\q"]
NOT_INTERPRETED = [r"\pL", r"\p{Greek}", r"(?U)a*", r"(?m)^a$", r"x(?i)y", r"[[:^alpha:]]", r"[\p{L}]"]


@pytest.mark.parametrize("pattern,text,expected", CASES)
def test_patterns_mean_what_they_mean_to_go(pattern, text, expected):
    assert go_search(pattern, text) is expected


@pytest.mark.parametrize("pattern", GO_REFUSES + NOT_INTERPRETED)
def test_patterns_go_refuses_or_that_cannot_be_interpreted_are_refused(pattern):
    with pytest.raises(GoRegexError):
        translate(pattern)


def test_the_schema_validator_refuses_a_trailing_newline_and_an_uninterpretable_pattern():
    validator = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": go_pattern_validator})
    schema = {"type": "array", "items": {"pattern": "^[a-z]+$"}}
    assert not list(validator(schema).iter_errors(["ok", 1]))  # non-strings are not the keyword's business
    [error] = validator(schema).iter_errors(["ok", "no\n"])
    assert error.message == "'no\\n' does not match '^[a-z]+$' (Go regexp: $ is the end of the text)"
    [error] = validator({"type": "string", "pattern": r"(?=x)"}).iter_errors("x")
    assert "cannot be evaluated as the Pulumi CLI does" in error.message


_PLAIN = st.text(alphabet="abcxyz019.-_", max_size=12)


@given(st.lists(st.sampled_from(["a", "b", "[a-c]", "x*", "(ab|c)", "\\.", "[0-9]+", "y?"]), max_size=6), _PLAIN)
def test_where_go_and_python_agree_the_translation_changes_nothing(parts, text):
    """Patterns made only of constructs both engines read alike match the same texts as Python's re."""
    pattern = "".join(parts)
    assert go_search(pattern, text) == (re.search(pattern, text) is not None)


@given(_PLAIN)
def test_an_anchored_pattern_never_accepts_a_trailing_newline(text):
    assert not go_search(r"^[a-z0-9._-]*$", text + "\n")
