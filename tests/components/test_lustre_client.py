"""The Lustre client on the worker nodes (``storage.lustre.client``): which pools get the node-init Lustre step (the
listed tenants' pools by default, or the pools named), what their cloud-init carries, the Lustre volumes' node
affinity on the label a node sets only when its client works, and the config mistakes refused with their key path."""

from __future__ import annotations

import base64
import json

import pytest

from oke_rdma import adapter
from oke_rdma.compute import USER_DATA_KEY, node_labels, node_metadata
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.storage import lustre_client_pools
from oke_rdma.config.lustre import Lustre
from oke_rdma.node_init import LUSTRE_CLIENT_LABEL
from tests.components.test_lustre import _run, _with_lustre
from tests.stackcfg import dev_raw_config, edited

SHA = "0123456789abcdef" * 4
OL8_URL = "https://objectstorage.sa-saopaulo-1.oraclecloud.com/p/token/n/ns/b/lustre/o/ol8-lustre-client-2.15.5.tar.gz"
PV = "kubernetes:core/v1:PersistentVolume"


def _cfg(client=None, tenants=("research",), **lustre):
    value = {"capacityGb": 31200, "tenants": list(tenants), **lustre}
    if client is not None:
        value["client"] = client
    return load_stack_config(edited(dev_raw_config(), "storage", ("lustre",), value))


def _problems(client, tenants=("research",)) -> list[str]:
    with pytest.raises(ConfigError) as err:
        _cfg(client, tenants)
    return err.value.problems


def _script(cfg, pool: str) -> str:
    data = node_metadata(cfg.node_pools[pool], adapter.lustre_clients(cfg).get(pool)).get(USER_DATA_KEY)
    return base64.b64decode(data).decode() if data else ""


def test_by_default_the_pools_of_the_listed_tenants_get_the_client():
    """The dev stack's research tenant is dedicated: its Kueue flavors cover the RDMA pool only."""
    cfg = _cfg()
    assert lustre_client_pools(cfg) == ("gpu",)
    script = _script(cfg, "gpu")
    assert "LUSTRE_ENABLED=1" in script and f"LUSTRE_LABEL={LUSTRE_CLIENT_LABEL}" in script
    assert "oke_init_script" in script and "NVME_ENABLED=0" in script
    assert "LUSTRE_ENABLED=0" in _script(cfg, "system")  # the system pool: no Lustre step


def test_named_pools_replace_the_default_and_carry_the_archives():
    cfg = _cfg({"pools": ["system", "gpu"], "packages": {"oracleLinux8": {"url": OL8_URL, "sha256": SHA}}})
    assert lustre_client_pools(cfg) == ("system", "gpu")
    for pool in ("system", "gpu"):
        script = _script(cfg, pool)
        assert f"LUSTRE_OL8_URL={OL8_URL}" in script and f"LUSTRE_OL8_SHA256={SHA}" in script
        assert "LUSTRE_UBUNTU2204_URL=''" in script


def test_no_tenants_or_a_disabled_client_means_no_lustre_step():
    assert lustre_client_pools(_cfg(tenants=())) == ()
    cfg = _cfg({"enabled": False})
    assert lustre_client_pools(cfg) == () and "LUSTRE_ENABLED=0" in _script(cfg, "gpu")
    assert lustre_client_pools(load_stack_config(dev_raw_config())) == ()  # no storage.lustre at all


def test_the_pool_label_is_never_set_at_pool_level():
    """Only a node whose client works may carry the label: the pool's initial labels never include it."""
    cfg = _cfg()
    assert LUSTRE_CLIENT_LABEL not in node_labels(cfg.node_pools["gpu"], "gpu", True)


def test_local_nvme_and_the_lustre_client_share_one_script():
    raw = edited(dev_raw_config(), "nodePools", ("gpu", "localNvme"), {"enabled": True})
    cfg = load_stack_config(edited(raw, "storage", ("lustre",), {"capacityGb": 31200, "tenants": ["research"]}))
    script = _script(cfg, "gpu")
    assert "NVME_ENABLED=1" in script and "LUSTRE_ENABLED=1" in script and script.count("#!/usr/bin/env bash") == 1


def test_the_volume_requires_the_label_and_asks_the_driver_to_set_up_lnet():
    run = _run(Lustre(capacityGb=31200, tenants=("research",)))
    [pv] = [r for r in run.resources if r.type == PV and r.name == "t-research-lustre"]
    csi = pv.inputs["spec"]["csi"]
    assert csi["fsType"] == "lustre" and csi["volumeAttributes"] == {"setupLnet": "true"}
    terms = pv.inputs["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": LUSTRE_CLIENT_LABEL, "operator": "In", "values": ["true"]}]}]


def test_with_the_client_prepared_elsewhere_the_volume_requires_no_label():
    run = _run(Lustre.model_validate({"capacityGb": 31200, "tenants": ["research"], "client": {"enabled": False}}))
    pvs = [r for r in run.resources if r.type == PV]
    assert {pv.name for pv in pvs} == {"t-research-lustre", "t-lustre-prepare"}  # the tenant's and the preparation's
    assert all("nodeAffinity" not in pv.inputs["spec"] for pv in pvs)
    assert all(pv.inputs["spec"]["csi"]["volumeAttributes"]["setupLnet"] == "true" for pv in pvs)


@pytest.mark.parametrize("client, key, needle", [
    ({"pools": ["nope"]}, "oke-rdma:storage.lustre.client.pools[0]", "no node pool named 'nope'"),
    ({"pools": ["gpu", "gpu"]}, "oke-rdma:storage.lustre.client.pools", "lists a pool twice"),
    ({"packages": {"oracleLinux8": {"url": "http://example.com/x.tar.gz", "sha256": SHA}}},
     "oke-rdma:storage.lustre.client.packages.oracleLinux8.url", "https://"),
    ({"packages": {"oracleLinux8": {"url": "https://example.com/x$(id).tar.gz", "sha256": SHA}}},
     "oke-rdma:storage.lustre.client.packages.oracleLinux8.url", "'$'"),
    ({"packages": {"ubuntu2204": {"url": OL8_URL, "sha256": SHA.upper()}}},
     "oke-rdma:storage.lustre.client.packages.ubuntu2204.sha256", "64 lowercase hex"),
    ({"packages": {"ubuntu2204": {"url": OL8_URL}}}, "oke-rdma:storage.lustre.client.packages.ubuntu2204.sha256", ""),
    ({"packages": {"rhel9": {"url": OL8_URL, "sha256": SHA}}}, "oke-rdma:storage.lustre.client.packages", "rhel9"),
])
def test_client_mistakes_are_one_line_naming_the_key(client, key, needle):
    found = [p for p in _problems(client) if p.startswith(key)]
    assert len(found) == 1 and needle in found[0] and "\n" not in found[0]


def test_a_user_label_cannot_take_the_lustre_client_label():
    raw = edited(dev_raw_config(), "nodePools", ("gpu", "labels"), {LUSTRE_CLIENT_LABEL: "true"})
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    [p] = [p for p in err.value.problems if LUSTRE_CLIENT_LABEL in p]
    assert p.startswith(f'oke-rdma:nodePools.gpu.labels["{LUSTRE_CLIENT_LABEL}"]: is set by oke-rdma on each node')
    assert "Lustre client works" in p


def test_the_dev_stack_with_lustre_previews_clean_with_the_client_step_on_the_tenants_pool(tmp_path):
    from tests.inprocess import preview
    from tests.offline.test_cli import stack_file
    lustre = {"capacityGb": 31200, "tenants": ["research"],
              "client": {"packages": {"oracleLinux8": {"url": OL8_URL, "sha256": SHA}}}}
    out = preview("--config-file", str(stack_file(tmp_path, _with_lustre(lustre))), "--json", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    plan = json.loads((tmp_path / "p.json").read_text())
    pools = {r["name"]: r for r in plan["resources"] if r["type"] == "oci:ContainerEngine/nodePool:NodePool"}
    data = {n: (p["inputs"].get("nodeMetadata") or {}).get(USER_DATA_KEY) for n, p in pools.items()}
    [gpu] = [n for n in data if n.endswith("-gpu")]
    assert f"LUSTRE_OL8_URL={OL8_URL}" in base64.b64decode(data[gpu]).decode()
    # every pool has user data with Cilium on (its startup taint); only the tenant's GPU pool gets the Lustre step
    assert [n for n, d in data.items() if "LUSTRE_ENABLED=1" in base64.b64decode(d or "").decode()] == [gpu]


def test_tenants_whose_volumes_no_pool_could_mount_are_refused():
    """Listed tenants without any pool in their Kueue flavors and no client.pools: the volumes' label would never
    appear on a node; naming a pool or turning the client off resolves it."""
    raw = edited(dev_raw_config(), "nodePools", ("gpu", "rdma"), False)
    raw = edited(raw, "tenants", ("research", "quota"), {})
    raw = edited(raw, "tenants", ("analytics", "quota"), {})
    lustre = {"capacityGb": 31200, "tenants": ["research"]}
    with pytest.raises(ConfigError) as err:
        load_stack_config(edited(raw, "storage", ("lustre",), lustre))
    assert err.value.problems == [
        "oke-rdma:storage.lustre.client.pools: no node pool gets the Lustre client (tenants research have no pool in "
        "their Kueue flavors), so their Lustre volumes could never be mounted; name the pools in "
        "storage.lustre.client.pools, or set storage.lustre.client.enabled false if the nodes are prepared outside "
        "oke-rdma"]
    cfg = load_stack_config(edited(raw, "storage", ("lustre",), {**lustre, "client": {"pools": ["gpu"]}}))
    assert lustre_client_pools(cfg) == ("gpu",)
    load_stack_config(edited(raw, "storage", ("lustre",), {**lustre, "client": {"enabled": False}}))


def test_the_workers_reach_the_package_archives_without_new_rules():
    """The client step downloads over HTTPS (any host, through the NAT gateway) or from Object Storage (the service
    gateway); the workers' NSG already allows both."""
    from oke_rdma.network import ANYWHERE, TCP, oke_rules
    egress = [r for r in oke_rules(()) if r.nsg == "workers" and r.direction == "EGRESS" and r.protocol == TCP]
    assert any(r.peer == ANYWHERE and r.ports == (443, 443) for r in egress)
    assert any(r.peer == "services" and r.ports is None for r in egress)
