"""The security pack's config a consumer stack needs to deploy into the platform's tenant namespaces, generated from
the platform stack's plan by ``offline.consumer_policy_config``: the chosen tenants' namespaces as external, the
privileged ones (RDMA tenants) as privileged; nothing listed on a guess."""

from __future__ import annotations

import json
from pathlib import Path

from offline.consumer_policy_config import main
from tests.inprocess import run_main

ROOT = Path(__file__).resolve().parents[2]


def test_the_config_for_the_dev_stacks_rdma_tenant_is_the_examples_own(dev_plan_file):
    """For tenant research of the dev plan it is exactly examples/training-job/policy-config.json, which the
    consumer preview passes with."""
    code, out, err = run_main(main, ["--plan", str(dev_plan_file[0]), "--tenant", "research"])
    assert code == 0, err
    assert json.loads(out) == json.loads((ROOT / "examples" / "training-job" / "policy-config.json").read_text())


def test_a_restricted_tenant_is_external_but_not_privileged(dev_plan_file):
    """analytics (podSecurity restricted) is listed as external only; without --tenant every tenant is."""
    code, out, _ = run_main(main, ["--plan", str(dev_plan_file[0]), "--tenant", "analytics"])
    assert (code, json.loads(out)) == (0, {"workload-namespace-declared": {"externalNamespaces": ["analytics"]}})
    code, out, _ = run_main(main, ["--plan", str(dev_plan_file[0])])
    assert json.loads(out)["workload-namespace-declared"]["externalNamespaces"] == ["analytics", "research"]
    assert json.loads(out)["rdma-pods-in-privileged-namespaces"]["privilegedNamespaces"] == ["research"]


def test_an_outputs_object_works_like_a_plan(tmp_path, dev_plan_file):
    outputs = json.loads(dev_plan_file[0].read_text())["outputs"]
    (tmp_path / "outputs.json").write_text(json.dumps(outputs))
    code, out, _ = run_main(main, ["--plan", str(tmp_path / "outputs.json"), "--tenant", "research"])
    assert code == 0 and json.loads(out)["workload-namespace-declared"] == {"externalNamespaces": ["research"]}


def test_an_unknown_tenant_is_refused_with_a_suggestion(dev_plan_file):
    code, out, err = run_main(main, ["--plan", str(dev_plan_file[0]), "--tenant", "reserch"])
    assert code == 2 and out == ""
    assert err.strip() == ("error: --tenant reserch: the platform stack has no such tenant; did you mean research? "
                           "its tenants: analytics, research")


def test_a_plan_without_known_tenants_is_refused(tmp_path):
    """No tenants output, an unknown one (a first preview) or a tenant whose namespace is unknown: exit 2, one
    line, nothing printed on stdout; a missing file too."""
    cases = {"none.json": {"clusterId": "x"}, "unknown.json": {"tenants": "[unknown]"},
             "ns.json": {"tenants": {"t": {"namespace": "[unknown]", "podSecurity": "privileged"}}}}
    for name, doc in cases.items():
        (tmp_path / name).write_text(json.dumps(doc))
        code, out, err = run_main(main, ["--plan", str(tmp_path / name)])
        assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, (name, err)
    code, _, err = run_main(main, ["--plan", str(tmp_path / "missing.json")])
    assert code == 2 and "cannot read the file" in err
