"""Each add-on's upgrade from the pins of 2026-11-30 to today's defaults, previewed with --previous against a plan of
the dev stack on the old pins (docs/operations.md, 'Upgrading the add-ons'): exactly that add-on's release changes
version, the preview says how its CRDs change, and an upgrade that would leave old CRDs in place or skip a major is
refused with the step to take."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
import yaml

from offline import preview
from tests.stackcfg import pinned_knowingly

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "kubernetes:helm.sh/v3:Release"
GROUP = "kubernetes:yaml/v2:ConfigGroup"
#: The pins of 2026-11-30 (the dev stack then, and the MPI Operator's default then).
OLD = {"kubePrometheusStack": "87.2.1", "gpuOperator": "v25.10.1", "kueue": "0.18.2", "keda": "2.20.2",
       "mpiOperator": "0.8.0", "jobset": "0.12.0"}


def _edit(versions: dict[str, str | None], extra=None):
    def edit(cfg: dict) -> None:
        platform = cfg["oke-rdma:platform"]
        for key, version in versions.items():
            section = platform.setdefault(key, {})
            if key in ("mpiOperator", "jobset"):
                section["enabled"] = True
            section.pop("acceptedBugs", None)
            if version is None:
                section.pop("version", None)  # the add-on's default: today's pin
            elif key in ("mpiOperator",):
                section["version"] = version
            else:  # an old pin on purpose: its known bugs accepted (the known-bug check would refuse it)
                section.update({k: v for k, v in pinned_knowingly(key, version).items() if v})
        if extra:
            extra(platform)
    return edit


def _plan(tmp: Path, name: str, edit, previous: Path | None = None) -> tuple[int, dict | None, str, str]:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    edit(doc["config"])
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    out = tmp / f"{name}.json"
    args = ["--config-file", str(cfg), "--json", str(out)] + (["--previous", str(previous)] if previous else [])
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = preview.main(args)
    return code, (json.loads(out.read_text()) if out.exists() else None), stdout.getvalue(), stderr.getvalue()


def _changed(plan: dict) -> dict[tuple[str, str], dict]:
    return {(c["type"], c["name"]): c for c in plan["changes"] if c["op"] != "same"}


@pytest.fixture(scope="module")
def old(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("addon-upgrades")
    code, _, _, err = _plan(tmp, "old", _edit(OLD))
    assert code == 0, err
    return tmp


def _upgrade(old: Path, name: str, key: str, version: str | None, base: Path | None = None, extra=None):
    versions = {**OLD, key: version}
    return _plan(old, name, _edit(versions, extra), base or old / "old.json")


@pytest.fixture(scope="module")
def gpu_step1(old):
    """The GPU Operator to the newest 26.3 (its next major), the first step of its upgrade."""
    code, plan, out, err = _upgrade(old, "step1", "gpuOperator", "v26.3.3")
    assert code == 0, err
    return plan, out


def test_a_chart_upgrade_changes_only_its_release_and_shows_how_its_crds_change(gpu_step1):
    """One add-on moved a version: its release is updated in place (nothing replaced, no other release's version
    changes), and the preview says how the chart's CRDs are upgraded with it."""
    plan, out = gpu_step1
    changes = _changed(plan)
    mine = changes[(RELEASE, "okerdma-dev-gpu-operator")]
    assert mine["op"] == "update" and "version" in mine["changed"]
    assert [c for c in changes.values() if c["op"] in ("replace", "delete")] == []
    assert [n for (t, n), c in changes.items() if t == RELEASE and "version" in c["changed"]] == \
        ["okerdma-dev-gpu-operator"]
    assert "CRDs: gpuOperator v25.10.1 -> v26.3.3: the chart's pre-upgrade Job (operator.upgradeCRD)" in out


def test_the_gpu_operator_goes_one_major_at_a_time(old, gpu_step1):
    """v25.10.1 → v26.7.0 skips 26.3 (NVIDIA supports an upgrade to the next major only): refused (exit 4) naming
    the major to go through; from v26.3.3 the step to v26.7.0 previews clean."""
    code, plan, out, err = _upgrade(old, "skip", "gpuOperator", None)
    assert code == preview.EXIT_PLAN
    assert "skips the major release 26.3" in " ".join(out[out.index("\nDiagnostics:"):].split())
    assert any(d["severity"] == "error" and "skips the major release 26.3" in d["message"]
               for d in plan["diagnostics"])
    assert "v25.10.1 -> v26.7.0 skips the major release 26.3" in err and "upgrade to the newest 26.3.x first" in err
    code, plan, out, err = _upgrade(old, "step2", "gpuOperator", None, base=old / "step1.json")
    assert code == 0, err
    assert _changed(plan)[(RELEASE, "okerdma-dev-gpu-operator")]["op"] == "update"
    assert "CRDs: gpuOperator v26.3.3 -> v26.7.0" in out


def test_a_crds_dir_chart_bump_is_refused_until_its_crds_are_applied(old):
    """JobSet's CRD is in its chart's crds/ (Helm never upgrades it): 0.12.0 → 0.13.0 is refused with the step
    (helm show crds ... | kubectl apply --server-side); with platform.jobset.crdsApplied: 0.13.0 it previews. The
    refusal is in the report's Diagnostics and the plan's diagnostics as well as on stderr."""
    code, plan, out, err = _upgrade(old, "jobset", "jobset", "0.13.0")
    assert code == preview.EXIT_PLAN
    refusal = "error: oke-rdma:platform.jobset.version: 0.12.0 -> 0.13.0 leaves the old CRDs in place"
    assert refusal in " ".join(out[out.index("\nDiagnostics:"):].split())
    assert [d["severity"] for d in plan["diagnostics"] if "leaves the old CRDs in place" in d["message"]] == ["error"]
    assert "oke-rdma:platform.jobset.version: 0.12.0 -> 0.13.0 leaves the old CRDs in place" in err
    assert "helm show crds oci://registry.k8s.io/jobset/charts/jobset --version 0.13.0" in err
    assert "platform.jobset.crdsApplied: 0.13.0" in err
    code, _, out, err = _upgrade(old, "jobset-ok", "jobset", "0.13.0",
                                 extra=lambda p: p["jobset"].update(crdsApplied="0.13.0"))
    assert code == 0, err
    assert "applied beforehand (platform.jobset.crdsApplied: 0.13.0)" in out


def test_today_s_pins_all_at_once_preview_from_the_old_pins(old, gpu_step1):
    """Every add-on on today's default (the GPU Operator through 26.3 first): kube-prometheus-stack, Kueue and the
    GPU Operator releases updated in place with their CRD path shown, the MPI Operator's manifest (its CRD and the
    controllers' exact 0.8.2 image) updated in place, nothing replaced or deleted."""
    new = {k: None for k in OLD if k != "jobset"}
    code, plan, out, err = _plan(old, "all", _edit({**new, "jobset": "0.12.0"}), old / "step1.json")
    assert code == 0, err
    changes = _changed(plan)
    assert [c for c in changes.values() if c["op"] in ("replace", "delete")] == []
    for release in ("okerdma-dev-kube-prometheus-stack", "okerdma-dev-kueue", "okerdma-dev-gpu-operator"):
        assert "version" in changes[(RELEASE, release)]["changed"]
    assert "CRDs: kubePrometheusStack 87.2.1 -> 88.5.3: the chart's pre-upgrade Job (crds.upgradeJob)" in out
    assert "CRDs: kueue 0.18.2 -> 0.19.7: the kueue.x-k8s.io CRDs are chart templates" in out
    groups = [c for (t, _), c in changes.items() if t == GROUP]
    assert groups and all(c["op"] == "update" for c in groups)
    assert (RELEASE, "okerdma-dev-keda") not in changes  # KEDA 2.20.2 stays: the newest KEDA tested on 1.35


#: The pins of 2026-12-01 (the dev stack before Kueue's known bugs were fixed).
TODAY = {"kueue": "0.19.2"}


def test_kueue_from_the_previous_pin_to_the_fixed_patch(tmp_path):
    """0.19.2 is refused on its own (three quota bugs the tenants' settings trigger, each naming its fix); previewed
    with --previous from a plan of it, the default 0.19.7 updates only Kueue's release in place: the version, the
    manager configuration (the chart's new Cohort concurrency) and the succeeded-pods feature gate; its CRDs move
    with the release."""
    code, _, _, err = _plan(tmp_path, "refused", lambda c: c["oke-rdma:platform"]["kueue"].update(version="0.19.2"))
    assert code == preview.EXIT_CONFIG
    assert "kubernetes-sigs/kueue#16401" in err and "set 0.19.7 or newer" in err
    code, _, out, err = _plan(tmp_path, "before", _edit(TODAY))
    assert code == 0, err
    assert "kubernetes-sigs/kueue#15350" in out.replace("\n      ", " ")  # accepted: a warning on every preview
    code, plan, out, err = _plan(tmp_path, "after", _edit({"kueue": None}), tmp_path / "before.json")
    assert code == 0, err
    changes = _changed(plan)
    assert [n for (t, n), c in changes.items() if t == RELEASE] == ["okerdma-dev-kueue"]
    kueue = changes[(RELEASE, "okerdma-dev-kueue")]
    assert kueue["op"] == "update" and "version" in kueue["changed"]
    assert [c for c in changes.values() if c["op"] in ("replace", "delete")] == []
    assert "CRDs: kueue 0.19.2 -> 0.19.7: the kueue.x-k8s.io CRDs are chart templates" in out
    # no known bug left to warn about: the old pin's warnings are listed as resolved, no longer as warnings
    warned = [line for line in out.splitlines() if "kueue#" in line and "resolved:" not in line]
    assert warned == [] and "resolved: oke-rdma:platform.kueue.version" in out
