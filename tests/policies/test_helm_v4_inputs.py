"""A helm.sh/v4 Chart reaches the policy packs as ``pulumi preview`` sends it: without its inputs (the Kubernetes
provider constructs it and registers the component with none), so neither resource nor stack rules can read its
chart, version, repository or values. The offline preview analyses it the same way, and ``helm-release-pinned``
refuses it with that reason; a helm.sh/v3 Release with the same inputs is read and passes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline.preview import main
from tests.policies.test_policies import messages, res, run

CHART4, RELEASE = "kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Release"
PINNED = {"chart": "keda", "version": "2.20.2", "namespace": "apps",
          "repositoryOpts": {"repo": "https://kedacore.github.io/charts"}, "values": {}}
PROGRAM = """import pulumi_kubernetes as k8s
k8s.core.v1.Namespace("ns", metadata={{"name": "apps", "labels": {{"pod-security.kubernetes.io/enforce": "restricted"}}}})
k8s.helm.{module}("keda", chart="keda", version="2.20.2", namespace="apps",
                  repository_opts={{"repo": "https://kedacore.github.io/charts"}}, values={{"hostNetwork": True}})
"""


def test_a_v4_chart_without_inputs_is_refused_with_the_reason():
    got = messages(run(res(CHART4, "c", {}, {}), policy="helm-release-pinned"), "helm-release-pinned")
    assert len(got) == 1 and "without its inputs" in got[0] and "helm.sh/v3 Release" in got[0], got


def test_inputs_that_do_reach_the_pack_are_judged_as_a_release():
    assert messages(run(res(CHART4, "c", PINNED), policy="helm-release-pinned"), "helm-release-pinned") == []
    got = messages(run(res(RELEASE, "r", {}, {}), policy="helm-release-pinned"), "helm-release-pinned")
    assert got and not any("without its inputs" in m for m in got), got


def test_stack_rules_do_not_misplace_a_v4_chart_whose_namespace_they_cannot_see():
    ns = res("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": "apps", "labels": {
        "pod-security.kubernetes.io/enforce": "restricted"}}})
    assert messages(run(ns, res(CHART4, "c", PINNED, {}), policy="workload-namespace-declared"),
                    "workload-namespace-declared") == []


@pytest.fixture(scope="module")
def previews(tmp_path_factory) -> dict:
    out = {}
    for module in ("v4.Chart", "v3.Release"):
        folder = tmp_path_factory.mktemp(module.replace(".", "_"))
        program, plan = folder / "main.py", folder / "plan.json"
        program.write_text(PROGRAM.format(module=module))
        import contextlib
        import io
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            code = main(["--program", str(program), "--json", str(plan)])
        out[module] = (code, buffer.getvalue(), json.loads(Path(plan).read_text()))
    return out


def test_the_offline_preview_shows_the_packs_a_v4_chart_as_the_engine_does(previews):
    code, out, plan = previews["v4.Chart"]
    assert code == 1 and "Chart 'keda' (helm.sh/v4) reaches the policy packs without its inputs" in out, out
    chart = next(r for r in plan["resources"] if r["type"] == CHART4)
    assert chart["inputs"]["version"] == "2.20.2"  # the plan keeps what the program declared


def test_the_same_chart_as_a_v3_release_is_read_by_every_rule(previews):
    code, out, _ = previews["v3.Release"]
    assert code == 1 and "helm-values-pod-security" in out and "without its inputs" not in out, out
