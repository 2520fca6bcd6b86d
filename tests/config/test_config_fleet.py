"""GPU sharing (nodePools.<p>.gpuSharing), tenant isolation and the metering tariff: what the config accepts, what
it refuses (one line naming the key path and the fix), and how shared pools enter quotas and flavors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from oke_rdma.config import ConfigError
from oke_rdma.config.checks.fleet import pool_gpu_units, shared_pools, tenant_pools
from oke_rdma.config.fleet import MIG_GPU_OF_SHAPE, MIG_PROFILES, mig_instances
from oke_rdma.adapter import flavor_quotas
from tests.stackcfg import load_dev_config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"


def shared_pool(shape: str = "BM.GPU.A100-v2.8", **sharing) -> dict:
    return {"shared": {"shape": shape, "size": 1, "imageId": IMAGE, "gpuSharing": sharing}}


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as e:
        load_dev_config(**overrides)
    return e.value.problems


def test_default_is_exclusive_and_dedicated():
    """Without gpuSharing/isolation every pool is exclusive and every tenant dedicated: no shared pool at all."""
    cfg = load_dev_config()
    assert {p.gpu_sharing.mode for p in cfg.node_pools.values()} == {"exclusive"}
    assert {t.isolation for t in cfg.tenants.values()} == {"dedicated"}
    assert shared_pools(cfg) == []


def test_time_sliced_pool_for_a_shared_tenant():
    """A time-sliced GPU pool offers size × GPUs × replicas and only the shared tenant's flavors include it."""
    cfg = load_dev_config(nodePools=shared_pool(mode="timeSlicing", replicas=4),
                          tenants={"analytics": {"isolation": "shared"}})
    assert shared_pools(cfg) == ["shared"]
    assert pool_gpu_units(cfg, "shared") == 1 * 8 * 4
    assert tenant_pools(cfg, "analytics") == ["shared", "gpu"]
    assert tenant_pools(cfg, "research") == ["gpu"]
    assert "shared" not in flavor_quotas(cfg, "research")
    assert set(flavor_quotas(cfg, "analytics")) == {"gpu", "shared"}


def test_each_tenants_pools_follow_isolation_and_the_dedicated_tenants_lists():
    """A dedicated tenant listing pools gets those; another dedicated tenant without a list gets every RDMA pool no
    other dedicated tenant lists; a shared tenant the shared pools first, then the RDMA pools not listed by others;
    the answers are the same asked tenant by tenant, again, and for a second config of the same stack."""
    from oke_rdma.config.checks.fleet import tenants_pools

    gpu = load_dev_config().node_pools["gpu"].model_dump(by_alias=True, exclude_none=True)
    pools = {**shared_pool(mode="timeSlicing", replicas=2), "gpu-b": gpu, "gpu-c": gpu}
    tenants = {"research": {"nodePools": ["gpu-b"]}, "analytics": {"isolation": "shared"},
               "vision": {"quota": {"gpu": 0, "cpu": 1, "memoryGb": 1}}}
    cfg = load_dev_config(nodePools=pools, tenants=tenants)
    expected = {"research": ["gpu-b"], "analytics": ["shared", "gpu", "gpu-c"], "vision": ["gpu", "gpu-c"]}
    assert {t: tenant_pools(cfg, t) for t in expected} == expected
    assert {t: tenants_pools(cfg)[t] for t in expected} == expected
    again = load_dev_config(nodePools=pools, tenants={**tenants, "research": {"nodePools": ["gpu-c"]}})
    assert tenant_pools(again, "vision") == ["gpu", "gpu-b"] and tenant_pools(cfg, "vision") == ["gpu", "gpu-c"]
    with pytest.raises(KeyError):
        tenant_pools(cfg, "nobody")


@pytest.mark.parametrize("shape,profile,per_gpu", [
    ("BM.GPU.H100.8", "1g.10gb", 7), ("BM.GPU.H100.8", "3g.40gb", 2), ("BM.GPU.A100-v2.8", "1g.20gb", 4),
    ("BM.GPU4.8", "1g.5gb", 7), ("BM.GPU.H200.8", "7g.141gb", 1)])
def test_mig_pool_counts_instances(shape, profile, per_gpu):
    """A MIG pool offers size × GPUs × instances of the profile per GPU."""
    cfg = load_dev_config(nodePools=shared_pool(shape, mode="mig", profile=profile))
    assert pool_gpu_units(cfg, "shared") == 8 * per_gpu


@pytest.mark.parametrize("pool,needle", [
    ({"gpu": {"gpuSharing": {"mode": "timeSlicing", "replicas": 2}}},
     "oke-rdma:nodePools.gpu.gpuSharing.mode: RDMA pools stay exclusive"),
    (shared_pool(mode="timeSlicing"), "oke-rdma:nodePools.shared.gpuSharing.replicas: timeSlicing needs"),
    (shared_pool(mode="mig"), "oke-rdma:nodePools.shared.gpuSharing.profile: is missing; pick one of 1g.10gb"),
    (shared_pool(mode="mig", profile="1g.5gb"),
     "oke-rdma:nodePools.shared.gpuSharing.profile: '1g.5gb' is not a MIG profile of the A100-SXM4-80GB"),
    (shared_pool("BM.GPU.GB200.4", mode="mig", profile="1g.23gb"),
     "oke-rdma:nodePools.shared.gpuSharing.mode: BM.GPU.GB200.4 has no MIG-capable GPU oke-rdma knows"),
    (shared_pool("BM.GPU.B200.8", mode="mig", profile="1g.23gb"), "BM.GPU.B200.8 has no MIG-capable GPU"),
    ({"system": {"gpuSharing": {"mode": "timeSlicing", "replicas": 2}}},
     "oke-rdma:nodePools.system.gpuSharing.mode: VM.Standard.E5.Flex has no NVIDIA GPUs to share"),
    (shared_pool(mode="exclusive", replicas=4), "oke-rdma:nodePools.shared.gpuSharing.replicas: only for mode"),
    (shared_pool(mode="timeSlicing", replicas=4, profile="1g.10gb"),
     "oke-rdma:nodePools.shared.gpuSharing.profile: only for mode mig"),
    (shared_pool(mode="mig", profile="1g.10gb", replicas=3),
     "oke-rdma:nodePools.shared.gpuSharing.replicas: only for mode timeSlicing"),
    (shared_pool(mode="timeSlicing", replicas=1), "oke-rdma:nodePools.shared.gpuSharing.replicas"),
    (shared_pool(mode="timeSlicing", replicas=65), "oke-rdma:nodePools.shared.gpuSharing.replicas"),
    (shared_pool(mode="timeslicing", replicas=4), "oke-rdma:nodePools.shared.gpuSharing.mode"),
    (shared_pool(mode="timeSlicing", replicas="4"), "oke-rdma:nodePools.shared.gpuSharing.replicas"),
])
def test_bad_sharing_is_refused_with_its_key(pool, needle):
    """Sharing on an RDMA pool or a CPU pool, a missing/misplaced replicas or profile, a profile the shape's GPU does
    not offer, a GPU without MIG, and out-of-range or mistyped values are refused, naming the key."""
    found = problems(nodePools=pool)
    assert any(needle in p for p in found), found


def test_label_the_program_derives_from_sharing_is_refused():
    """A user label that the program sets from gpuSharing (MIG config, device-plugin config) is refused."""
    found = problems(nodePools={"gpu": {"labels": {"nvidia.com/mig.config": "all-1g.10gb"}}})
    assert any("oke-rdma:nodePools.gpu.labels" in p and "gpuSharing" in p for p in found), found


def test_isolation_takes_only_dedicated_or_shared():
    """tenants.<t>.isolation is dedicated or shared; anything else names the key."""
    found = problems(tenants={"analytics": {"isolation": "private"}})
    assert any(p.startswith("oke-rdma:tenants.analytics.isolation") for p in found), found


def test_shared_tenant_quota_counts_the_shared_pool_and_dedicated_does_not():
    """A shared tenant's quota may use a shared pool's capacity; the same quota for a dedicated tenant (RDMA pools
    only) is refused."""
    big = {"gpu": 40, "gpuBorrowingLimit": 0}
    ok = load_dev_config(nodePools=shared_pool(mode="timeSlicing", replicas=4),
                         tenants={"analytics": {"isolation": "shared", "quota": big}})
    quotas = flavor_quotas(ok, "analytics")
    assert sum(q.gpu for q in quotas.values()) == 40 and quotas["shared"].gpu == 32  # shared pool first
    found = problems(nodePools=shared_pool(mode="timeSlicing", replicas=4), tenants={"analytics": {"quota": big}})
    assert any(p.startswith("oke-rdma:tenants.analytics.quota.gpu: 40 GPUs") and "RDMA pools" in p
               for p in found), found


def test_metering_tariff():
    """metering: price per GPU-hour, per-pool prices and an ISO 4217 currency; a price for an unknown pool, a
    negative price and a malformed currency are refused."""
    cfg = load_dev_config(metering={"pricePerGpuHour": 2.5, "poolPrices": {"gpu": 3}, "currency": "EUR"})
    assert cfg.metering.price_per_gpu_hour == 2.5 and cfg.metering.pool_prices == {"gpu": 3} and \
        cfg.metering.currency == "EUR"
    found = problems(metering={"poolPrices": {"gpux": 3}})
    assert any(p.startswith("oke-rdma:metering.poolPrices.gpux: there is no node pool") for p in found), found
    assert any("oke-rdma:metering.pricePerGpuHour" in p for p in problems(metering={"pricePerGpuHour": -1}))
    assert any("oke-rdma:metering.currency" in p for p in problems(metering={"currency": "euro"}))
    assert any("oke-rdma:metering.poolPrices" in p for p in problems(metering={"poolPrices": {"gpu": -2}}))


def test_mig_profiles_exist_in_the_gpu_operators_mig_parted_configs():
    """Every MIG profile oke-rdma accepts has an ``all-<profile>`` configuration in the MIG manager's default
    ConfigMap of the pinned GPU Operator (v25.10.1), which the node label selects."""
    cm = yaml.safe_load((FIXTURES / "gpu-operator-v25.10.1-mig-parted-config.yaml").read_text())
    configs = yaml.safe_load(cm["data"]["config.yaml"])["mig-configs"]
    for gpu, profiles in MIG_PROFILES.items():
        for profile in profiles:
            assert f"all-{profile}" in configs, (gpu, profile)
    assert set(MIG_GPU_OF_SHAPE.values()) == set(MIG_PROFILES)
    assert mig_instances("BM.GPU.H100.8", "nope") is None and mig_instances("BM.GPU.GB200.4", "1g.10gb") is None


@pytest.mark.parametrize("platform,mode,needle", [
    ({"gpuOperator": {"enabled": False}}, {"mode": "timeSlicing", "replicas": 4}, "device plugin, which is off"),
    ({"gpuOperator": {"values": {"devicePlugin": {"enabled": False}}}}, {"mode": "mig", "profile": "1g.10gb"},
     "device plugin, which is off"),
    ({"gpuOperator": {"values": {"migManager": {"enabled": False}}}}, {"mode": "mig", "profile": "1g.10gb"},
     "MIG needs the GPU Operator's MIG manager"),
])
def test_sharing_needs_the_operator_parts_that_do_it(platform, mode, needle):
    """Sharing without the GPU Operator's device plugin (or MIG without its MIG manager) would silently not happen:
    refused, naming the pool's gpuSharing.mode."""
    found = problems(platform=platform, nodePools=shared_pool(**mode))
    assert any(p.startswith("oke-rdma:nodePools.shared.gpuSharing.mode") and needle in p for p in found), found


@pytest.mark.parametrize("field, quota", [("cpu", {"cpu": 0}), ("memoryGb", {"memoryGb": 0})])
def test_a_gpu_quota_without_cpu_or_memory_is_refused(field, quota):
    """Kueue admits a GPU job only if its CPU and memory requests fit the quota too: a tenant with GPUs and 0 CPU or
    memory could never run one. The dev quota (GPUs, CPU and memory) passes."""
    found = problems(tenants={"research": {"quota": quota}})
    assert any(p.startswith(f"oke-rdma:tenants.research.quota.{field}: 0 with 16 GPUs") for p in found), found
    assert load_dev_config().tenants["research"].quota.cpu > 0  # the control loads


def test_the_mig_profile_example_of_the_reference_is_accepted_on_its_shape():
    """The reference's example (1g.10gb on H100, 1g.18gb on H200) passes the MIG rule on those shapes."""
    from oke_rdma.config.fleet import mig_instances
    assert mig_instances("BM.GPU.H100.8", "1g.10gb") == 7 and mig_instances("BM.GPU.H200.8", "1g.18gb") == 7
    assert mig_instances("BM.GPU.H100.8", "all-1g.10gb") is None  # the label's form is not a profile


def test_a_refused_mig_setting_adds_no_follow_on_quota_error():
    """MIG on a shape without MIG-capable GPUs is refused once, on its own key: the tenant quota check does not add
    a false 'GPUs per node unknown; set gpusPerNode' (the shape's GPUs are known; only the MIG profile is not)."""
    found = problems(nodePools=shared_pool("VM.GPU.A10.2", mode="mig", profile="1g.10gb"),
                     tenants={"analytics": {"isolation": "shared"}})  # a tenant whose quota covers the pool
    assert any("VM.GPU.A10.2 has no MIG-capable GPU" in p for p in found), found
    assert not any("cannot check the quota" in p or "gpusPerNode" in p for p in found), found


def test_a_shape_with_unknown_gpus_still_asks_for_gpus_per_node():
    """The quota check still names gpusPerNode when the shape's GPU count is truly unknown."""
    found = problems(nodePools=shared_pool("BM.GPU.Unknown.8", mode="timeSlicing", replicas=2),
                     tenants={"analytics": {"isolation": "shared"}})
    assert any("gpusPerNode" in p for p in found), found


@pytest.mark.parametrize("sharing", [{"mode": "exclusive"}, None])
def test_a_tenant_listing_a_pool_made_exclusive_gets_one_line(sharing):
    """A shared pool switched back to exclusive (or its gpuSharing removed) while a shared tenant lists it: one line on
    the tenant's nodePools entry naming the pool's gpuSharing key, no follow-on quota claim."""
    pools = shared_pool("VM.GPU.A10.2", mode="timeSlicing", replicas=4)
    if sharing is None:
        del pools["shared"]["gpuSharing"]
    else:
        pools["shared"]["gpuSharing"] = sharing
    (line,) = problems(nodePools=pools, tenants={"analytics": {"isolation": "shared", "nodePools": ["shared"],
                                                               "quota": {"gpu": 4, "cpu": 4, "memoryGb": 16}}})
    assert line.startswith("oke-rdma:tenants.analytics.nodePools[0]: 'shared' is a plain GPU pool")
    assert "nodePools.shared.gpuSharing.mode: timeSlicing or mig" in line
