"""Property: whatever is done to Pulumi.dev.yaml, the offline preview exits 0/1, or 2 with every line naming a key.

Each example applies 1-4 mutations to the dev stack's config — delete a key, change a value's type, inject an
unknown key (random or a near-miss typo of a valid one), swap two values, put a wrong-kind OCID or a malformed CIDR
somewhere, write a YAML 1.1 scalar (``yes``, ``010``, ``1:20``) unquoted, move a key to a look-alike namespace — writes
the file and runs ``offline.preview.main`` in-process: the Pulumi-faithful reader, the config loader and the whole
program under mocks, then the policy pack. Any exception escaping ``main`` (a traceback for the user) fails.

``make test`` runs ``FUZZ_EXAMPLES`` (default 20, derandomised so CI is repeatable); ``make fuzz`` runs 1,000 random
ones (``FUZZ_EXAMPLES=5000 make fuzz`` for more).
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from offline import preview

ROOT = Path(__file__).resolve().parents[2]
DEV = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
FULL_RUN = "FUZZ_EXAMPLES" in os.environ
RAW = "@@RAW:"  # a string value written unquoted into the YAML (to reach yaml.v3's own scalar resolution)
YAML11 = ["yes", "no", "on", "off", "Y", "010", "0x1F", "1_0", "1:20", "0o17", "2024-01-01", "~", ".inf", "1e3",
          "+5", "09", "true", "FALSE"]
OCIDS = ["ocid1.subnet.oc1.sa-saopaulo-1.aaaaaaaabc", "ocid1.compartment.oc1..aaaaaaaaxyz",
         "ocid1.image.oc1.us-ashburn-1.aaaaaaaaimg", "ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaacc",
         "ocid1.tenancy.oc1..aaaaaaaaten", "ocid1.vcn.oc1.iad.aaaaaaaavcn", "ocid1..", "ocid2.image.oc1..x"]
CIDRS = ["10.0.0.1/16", "10.0.0.0/33", "300.0.0.0/8", "10.0.0.0", "::/0", "0.0.0.0/0", "10.0.0.0/30", "10.0.128.0/25",
         "192.168.0.0/24", "10.0.0.0/8", "a.b.c.d/16", ""]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                    st.text(max_size=12), st.sampled_from(YAML11 + OCIDS + CIDRS).map(lambda s: RAW + s))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=6)


def paths(node: Any, at: tuple = ()) -> list[tuple]:
    """Every path into the config (dict keys and list indexes), the top-level keys included."""
    out = [at] if at else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths(v, at + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths(v, at + (i,))
    return out


def parent_and_key(doc: dict, path: tuple) -> tuple[Any, Any]:
    node = doc
    for p in path[:-1]:
        node = node[p]
    return node, path[-1]


def near_miss(word: str, data: st.DataObject) -> str:
    """A typo of ``word``: one character dropped, doubled, swapped or case-flipped."""
    if len(word) < 2:
        return word + "x"
    i = data.draw(st.integers(0, len(word) - 2))
    how = data.draw(st.sampled_from(["drop", "double", "swap", "case"]))
    if how == "drop":
        return word[:i] + word[i + 1:]
    if how == "double":
        return word[:i] + word[i] + word[i:]
    if how == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return word[:i] + word[i].swapcase() + word[i + 1:]


def mutate(doc: dict, data: st.DataObject) -> None:
    all_paths = paths(doc)
    if not all_paths:
        doc["oke-rdma:" + data.draw(st.text(min_size=1, max_size=8))] = data.draw(VALUES)
        return
    path = data.draw(st.sampled_from(all_paths))
    parent, key = parent_and_key(doc, path)
    op = data.draw(st.sampled_from(["delete", "retype", "unknown", "typo", "swap", "ocid", "cidr", "yaml11",
                                    "namespace"]))
    if op == "delete":
        del parent[key]
    elif op == "retype":
        parent[key] = data.draw(VALUES)
    elif op in ("unknown", "typo"):
        target = parent if isinstance(parent, dict) else doc
        name = near_miss(str(key), data) if op == "typo" else data.draw(st.text(min_size=1, max_size=10))
        if target is doc and ":" not in name:
            name = "oke-rdma:" + name
        target[name] = copy.deepcopy(parent[key]) if op == "typo" else data.draw(VALUES)
    elif op == "swap":
        other = data.draw(st.sampled_from(all_paths))
        if other[:len(path)] != path and path[:len(other)] != other:  # neither inside the other
            o_parent, o_key = parent_and_key(doc, other)
            parent[key], o_parent[o_key] = o_parent[o_key], parent[key]
    elif op == "ocid":
        parent[key] = data.draw(st.sampled_from(OCIDS))
    elif op == "cidr":
        parent[key] = data.draw(st.sampled_from(CIDRS))
    elif op == "yaml11":
        parent[key] = RAW + data.draw(st.sampled_from(YAML11))
    elif op == "namespace" and len(path) == 1 and str(key).startswith("oke-rdma:"):
        ns = data.draw(st.sampled_from(["okerdma", "oke_rdma", "oke-rdm", "OKE-RDMA"]))
        doc[ns + ":" + str(key).split(":", 1)[1]] = doc.pop(key)


def dump(doc: dict) -> str:
    text = yaml.safe_dump({"config": doc}, sort_keys=False, allow_unicode=True)
    return re.sub(r"'" + re.escape(RAW) + r"([^']*)'", r"\1", text)


def run_preview(path: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = preview.main(["--config-file", str(path)])
    return code, err.getvalue()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not FULL_RUN, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_stack_previews_or_names_every_problem(data):
    doc = copy.deepcopy(DEV)
    for _ in range(data.draw(st.integers(1, 4))):
        mutate(doc, data)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "Pulumi.fuzz.yaml"
        path.write_text(dump(doc), encoding="utf-8")
        code, stderr = run_preview(path)
        keys = {str(k) for k in yaml.safe_load(path.read_text())["config"] or {}}
        keys |= {json.dumps(k) for k in keys}  # keys with spaces or control characters are quoted
    assert code in (0, 1, 2), code
    event(f"exit {code}")  # the outcome mix, shown by make fuzz (--hypothesis-show-statistics)
    if code != 2:
        return
    lines = stderr.splitlines()
    assert lines and lines[0].startswith("error: "), stderr
    if "invalid stack configuration" not in lines[0]:
        assert len(lines) == 1 and str(path) in lines[0], stderr  # a stack-file error: names the file (and line)
        return
    for line in lines[1:]:  # each names a key: ours, the OCI provider's, or the look-alike one written in the file
        assert line.startswith("  ") and line.strip().startswith(("oke-rdma:", "oci:", *keys)), line
