"""Versions quoted in the docs stay those of the pins: a chart citation (``<chart> v<version>``,
``<chart> values.yaml@<version>``) names the add-on's pinned version, and a Kubernetes version given as an example
(``e.g. `vX.Y.Z```) is one OKE offers today (not a withdrawn one)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from oke_rdma.addons import REGISTRY
from oke_rdma.facts import kubernetes

ROOT = Path(__file__).resolve().parents[2]
TEXTS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "outputs.contract.json", ROOT / "Pulumi.yaml", ROOT / "README.md"]
# docs that record history or compatibility ranges on purpose (every version there is a fact with its source)
# (there only the ``values.yaml@`` citations, which say where a value oke-rdma sets was read, are held to the pins);
# configuration.md's rule examples quote messages about other versions on purpose
HISTORY = {"charts.md", "constraints.md", "facts.md", "operations.md", "threat-model.md", "configuration.md"}


def _charts() -> dict[str, str]:
    return {a.chart.rsplit("/", 1)[-1]: a.defaults.version for a in REGISTRY if a.chart}


def chart_citations(text: str, values_only: bool = False) -> list[tuple[str, str]]:
    """(chart, version) of every ``<chart> <version>`` / ``<chart> values.yaml@<version>`` / ``<chart>@<version>``
    citation of an add-on's chart in ``text`` (``values_only``: the ``values.yaml@`` ones)."""
    names = "|".join(re.escape(n) for n in sorted(_charts(), key=len, reverse=True))
    joint = r" values\.yaml@" if values_only else r"(?: values\.yaml@|@| )"
    return re.findall(rf"\b({names}){joint}(v?\d+\.\d+\.\d+)\b", text)


def test_the_pattern_finds_citations_and_ignores_other_text():
    text = "gpu-operator values.yaml@v25.10.1; gpu-operator v26.7.0; keda 2.20.2; read at v25.10.1"
    assert chart_citations(text) == [("gpu-operator", "v25.10.1"), ("gpu-operator", "v26.7.0"), ("keda", "2.20.2")]
    assert chart_citations(text, values_only=True) == [("gpu-operator", "v25.10.1")]


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_chart_citations_name_the_pinned_version(path):
    pins = _charts()
    text = path.read_text(encoding="utf-8")
    stale = [(c, v) for c, v in chart_citations(text, values_only=path.name in HISTORY)
             if v.removeprefix("v") != pins[c].removeprefix("v")]  # a git tag v2.3.0 is chart version 2.3.0
    assert not stale, f"{path.name} cites {stale}; the pins are {[(c, pins[c]) for c, _ in stale]}"


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_kubernetes_examples_are_offered_versions(path):
    examples = re.findall(r"e\.g\. `(v1\.\d+\.\d+)`", path.read_text(encoding="utf-8"))
    assert all(kubernetes.is_offered(v) for v in examples), (path.name, examples)
