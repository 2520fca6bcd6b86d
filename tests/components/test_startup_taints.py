"""Node-level enforcement in place before tenant pods land: with Cilium on, every node of every pool registers with
Cilium's agent-not-ready taint (kubelet --register-with-taints through OKE's bootstrap), so no pod starts on a node
before the agent that enforces the walls is ready there; cilium-operator, which removes the taint, tolerates it; a
user's values that would drop that toleration are refused. With Cilium off, nodes register untainted."""
from __future__ import annotations

import base64
import os
import subprocess

import pytest

from oke_rdma import adapter, node_init
from tests.components.nodeinit_sandbox import node_init_sandbox
from oke_rdma.addons import cilium
from oke_rdma.addons.cilium import AGENT_NOT_READY_TAINT, CiliumRelease, tolerates
from oke_rdma.compute import USER_DATA_KEY, Compute, ComputeArgs, node_metadata
from oke_rdma.config import load_stack_config as load_config
from tests.componenttest import of_type, run_component
from tests.stackcfg import dev_config, edited

RAW, SECRET_KEYS = dev_config()
TAINT_ARG = f"--register-with-taints={AGENT_NOT_READY_TAINT}"
SUBNETS = {r: f"ocid1.subnet.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods")}
NSGS = {r: f"ocid1.networksecuritygroup.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods")}


def _build(cfg):
    Compute("cmp", adapter.compute_args(cfg, "ocid1.cluster.oc1.sa-saopaulo-1.c", "v1.34.1", SUBNETS, NSGS))


def _scripts(raw):
    run = run_component(raw, _build)
    pools = of_type(run, "oci:ContainerEngine/nodePool:NodePool")
    assert len(pools) >= 2  # dev: a CPU pool and an RDMA GPU pool
    return {p.name: base64.b64decode(p.inputs["nodeMetadata"].get(USER_DATA_KEY, "")).decode() for p in pools}


def test_with_cilium_on_every_pool_registers_its_nodes_with_the_agent_not_ready_taint():
    """The CPU (system) pool, which has no other user data, and the RDMA GPU pool alike."""
    scripts = _scripts(RAW)
    for name, script in scripts.items():
        assert f"REGISTER_TAINTS={AGENT_NOT_READY_TAINT}" in script, name
        assert "oke_init_script" in script and "oke bootstrap" in script, name  # OKE's bootstrap still runs


def test_with_cilium_off_no_pool_is_tainted_but_every_pool_keeps_its_script():
    """A pool with no NVMe, no Lustre and no taint still gets the script (it grows the root file system)."""
    raw = edited(RAW, "platform", ("cilium",), {"enabled": False})
    assert adapter.startup_taints(load_config(raw)) == ()
    scripts = _scripts(raw)
    assert all("\nREGISTER_TAINTS=''\n" in s and TAINT_ARG not in s for s in scripts.values())
    assert all("grow_root_fs ||" in s and "oke_init_script" in s for s in scripts.values())


def test_a_malformed_taint_is_refused_by_the_script_renderer_and_the_compute_args():
    cfg = load_config(RAW)
    for bad in ("node.cilium.io/agent-not-ready=true", "x:NoRun", "=v:NoExecute", "a b=c:NoSchedule"):
        with pytest.raises(ValueError, match="taint"):
            node_init.render(nvme=False, taints=[bad])
        with pytest.raises(ValueError, match=r"startup_taints\[0\]"):
            ComputeArgs("ocid1.compartment.oc1..c", "c", "v1.34.1", SUBNETS, NSGS, cfg.node_pools,
                        availability_domains=cfg.availability_domains, compute_cluster=cfg.compute_cluster,
                        startup_taints=[bad])
    node_init.render(nvme=False, taints=[AGENT_NOT_READY_TAINT, "example.com/x:NoSchedule"])  # well-formed: accepted


@pytest.fixture
def fake_node(tmp_path):
    """Runs a rendered script on a fake Oracle Linux or Ubuntu node whose bootstrap logs its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    (bin_dir / "curl").write_text(f"#!/usr/bin/env bash\nprintf 'echo \"oke-init-ran $*\" >> {calls}\\n' | base64\n")
    (bin_dir / "oke").write_text(f'#!/usr/bin/env bash\necho "oke $*" >> {calls}\n')
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    os_release = tmp_path / "os-release"

    def run(os_id: str, **kwargs) -> str:
        os_release.write_text(f"ID={os_id}\n")
        paths = node_init.Paths(os_release=str(os_release), lustre_work_dir=str(tmp_path / "work"),
                                **node_init_sandbox(tmp_path))
        script = tmp_path / "node-init.sh"
        script.write_text(node_init.render(paths=paths, **kwargs).replace("/var/run/oke-init.sh",
                                                                          str(tmp_path / "oke-init.sh")))
        out = subprocess.run(["bash", str(script)], env={"PATH": f"{bin_dir}:{os.environ['PATH']}"},
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        lines = calls.read_text().splitlines()
        calls.unlink()
        [bootstrap] = [c for c in lines if c.startswith(("oke-init-ran", "oke bootstrap"))]
        return bootstrap

    return run


@pytest.mark.parametrize("os_id, head", [("ol", "oke-init-ran"), ("ubuntu", "oke bootstrap")])
def test_the_kubelet_registers_the_node_with_the_taint_on_both_bootstraps(fake_node, os_id, head):
    assert fake_node(os_id, nvme=False, taints=[AGENT_NOT_READY_TAINT]) == f"{head} --kubelet-extra-args {TAINT_ARG}"
    assert fake_node(os_id, nvme=False).strip() == head  # no taint: no extra arguments


def test_taints_and_the_lustre_label_share_one_kubelet_extra_args(fake_node, tmp_path):
    """An image whose Lustre client works gets both: taint first, then the label, in one argument."""
    lfs = tmp_path / "bin" / "lfs"
    lfs.write_text("#!/usr/bin/env bash\ntrue\n")
    lfs.chmod(0o755)
    (tmp_path / "bin" / "modprobe").write_text("#!/usr/bin/env bash\ntrue\n")
    (tmp_path / "bin" / "modprobe").chmod(0o755)
    line = fake_node("ol", nvme=False, lustre_client={}, taints=[AGENT_NOT_READY_TAINT])
    assert line == (f"oke-init-ran --kubelet-extra-args {TAINT_ARG} "
                    f"--node-labels={node_init.LUSTRE_CLIENT_LABEL}=true")


def test_node_metadata_carries_the_taint_only_when_asked():
    pool = load_config(RAW).node_pools
    plain = next(p for p in pool.values() if not p.local_nvme.enabled)
    assert "REGISTER_TAINTS=''" in base64.b64decode(node_metadata(plain)[USER_DATA_KEY]).decode()
    assert TAINT_ARG.split("=")[0] in base64.b64decode(
        node_metadata(plain, None, [AGENT_NOT_READY_TAINT])[USER_DATA_KEY]).decode()


# --- who must run on a tainted node: Cilium's agent and operator -----------------------------------------------------
def test_the_operator_tolerates_the_taint_and_keeps_the_charts_default_tolerations():
    values = cilium.values(CiliumRelease(), None)
    assert tolerates(values["operator"]["tolerations"], AGENT_NOT_READY_TAINT)
    keys = {t["key"] for t in values["operator"]["tolerations"]}
    assert {"node-role.kubernetes.io/control-plane", "node.kubernetes.io/not-ready",
            "node.cloudprovider.kubernetes.io/uninitialized"} <= keys
    assert "tolerations" not in values  # the agent keeps the chart's default: every taint (operator: Exists)


@pytest.mark.parametrize("path", [("tolerations",), ("operator", "tolerations")])
@pytest.mark.parametrize("tolerations, refused", [
    ([{"key": "dedicated", "operator": "Exists"}], True),
    ([{"operator": "Exists", "effect": "NoSchedule"}], True),  # the taint is NoExecute
    ("all", True),  # not a list: cannot be read, refused
    ([{"operator": "Exists"}], False),
    ([{"key": "node.cilium.io/agent-not-ready", "operator": "Exists", "effect": "NoExecute"}], False),
    ([{"key": "node.cilium.io/agent-not-ready", "operator": "Equal", "value": "true"}], False),
])
def test_user_tolerations_for_the_agent_or_operator_must_tolerate_the_taint(path, tolerations, refused):
    values: dict = {}
    node = values
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = tolerations
    problems = [p for p in cilium.checks(CiliumRelease(values=values), ("platform", "cilium"))
                if "agent-not-ready" in p]
    assert bool(problems) is refused, problems
    if refused:
        assert problems[0].startswith(f"oke-rdma:platform.cilium.values.{'.'.join(path)}: must tolerate")
