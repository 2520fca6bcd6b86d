"""A Kubernetes version OKE has withdrawn: a new cluster (and its pools) on it is refused by the offline preview (exit
2, naming the key and the offered versions); an existing cluster still running it previews with a warning that
names the upgrade target."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
import yaml

from offline import preview

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp: Path, name: str, version: str, previous: Path | None = None) -> tuple[int, str, str]:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:cluster"]["kubernetesVersion"] = version
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    args = ["--config-file", str(cfg), "--json", str(tmp / f"{name}.json")]
    args += ["--previous", str(previous)] if previous else []
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = preview.main(args)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("withdrawn")


def test_a_new_cluster_on_a_withdrawn_version_is_refused(tmp):
    """Refused naming the offered versions the pinned add-ons support (v1.36.1 is outside the KEDA pin's range); the
    refusal is in the report's Diagnostics and the plan's diagnostics too, not only on stderr."""
    code, out, err = _run(tmp, "new", "v1.34.1")
    assert code == preview.EXIT_CONFIG
    said = " ".join(out[out.index("\nDiagnostics:"):].split())
    assert "error: oke-rdma:cluster.kubernetesVersion: OKE no longer offers Kubernetes v1.34.1" in said
    plan = json.loads((tmp / "new.json").read_text())
    assert any(d["severity"] == "error" and d["message"].startswith(
        "oke-rdma:cluster.kubernetesVersion: OKE no longer offers") for d in plan["diagnostics"])
    assert "error: oke-rdma:cluster.kubernetesVersion: OKE no longer offers Kubernetes v1.34.1" in err
    assert "gone by 2026-05-25" in err and "the pinned add-ons support: v1.34.2, v1.35.2 (" in err
    assert "error: oke-rdma:nodePools.gpu.kubernetesVersion (or cluster.kubernetesVersion)" in err


def test_an_existing_cluster_on_a_withdrawn_version_previews_with_a_warning(tmp):
    """The state of a cluster created on v1.34.1 while OKE offered it (the plan of v1.34.2 with its versions set
    back), previewed with the same version: nothing is created on it, so it passes with the warning."""
    code, _, err = _run(tmp, "base", "v1.34.2")
    assert code == 0, err
    plan = json.loads((tmp / "base.json").read_text())
    text = json.dumps(plan).replace('"v1.34.2"', '"v1.34.1"')
    (tmp / "existing.json").write_text(text)
    code, out, err = _run(tmp, "existing", "v1.34.1", tmp / "existing.json")
    assert code == 0, err
    said = " ".join((out + err).split())  # the report wraps long diagnostics at the terminal's width
    assert "which OKE no longer offers" in said and "upgrade to v1.34.2" in said
