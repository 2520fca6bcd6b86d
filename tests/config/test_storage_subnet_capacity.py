"""The storage subnet must hold the FSS mount target's addresses and the Lustre file system's (an upper bound per
started 100 TB of capacity), in a network this stack creates, a brought one (``network.existing``) and another stack's
(``network.fromStack``, checked when its outputs are read); too small a subnet is refused with its key path and the
prefix that would do."""
from __future__ import annotations

import pytest

from offline.engine import run_program
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.network import smallest_prefix, storage_ip_demands
from oke_rdma.facts.storage import LUSTRE_SUBNET_IPS_PER_BLOCK, lustre_subnet_ips
from tests.config.test_network_byo import CIDRS, NET_STACK, NSGS, RAW, SECRETS, SUBNETS, VCN, existing
from tests.stackcfg import edited

KEY = "oke-rdma:network.subnets.storage"


def _lustre(raw, capacity_gb=31200, fss=True):
    raw = edited(raw, "storage", ("lustre",), {"capacityGb": capacity_gb})
    return raw if fss else edited(raw, "storage", ("fss", "enabled"), False)


def _storage_problems(raw) -> list[str]:
    try:
        load_stack_config(raw)
    except ConfigError as err:
        return [p for p in err.problems if "storage" in p.split(":", 2)[1]]
    return []


@pytest.mark.parametrize("capacity_gb, ips", [(31200, 60), (41600, 60), (100_000, 60), (124800, 120),
                                               (166400, 120), (208000, 180), (1_000_000, 600)])
def test_the_lustre_figure_is_counted_per_started_100_tb(capacity_gb, ips):
    assert lustre_subnet_ips(capacity_gb) == ips


@pytest.mark.parametrize("bad", [0, -31200, 31200.0, True, "31200"])
def test_the_lustre_figure_refuses_what_is_not_a_capacity(bad):
    with pytest.raises(ValueError, match="capacity_gb"):
        lustre_subnet_ips(bad)


@pytest.mark.parametrize("ips, prefix", [(1, 30), (3, 29), (13, 28), (14, 27), (61, 26), (63, 25), (253, 24),
                                         (65533, 16), (65534, None)])
def test_smallest_prefix_is_the_smallest_subnet_whose_usable_addresses_suffice(ips, prefix):
    assert smallest_prefix(ips) == prefix


@pytest.mark.parametrize("cidr", ["10.0.3.0/28", "10.0.3.0/27", "10.0.3.0/26"])
def test_a_storage_subnet_without_room_for_mount_target_and_lustre_is_refused(cidr):
    raw = edited(_lustre(RAW), "network", ("subnets", "storage"), cidr)
    [p] = _storage_problems(raw)
    usable = 2 ** (32 - int(cidr.split("/")[1])) - 3
    assert p.startswith(f"{KEY}: {cidr} has {usable} usable IPs (OCI reserves 3) but the storage subnet needs 63: the "
                        f"FSS mount target's 3 + the Lustre file system's 60 ")
    assert p.endswith("; use a /25 or larger")
    assert "\n" not in p


@pytest.mark.parametrize("cidr", ["10.0.3.0/25", "10.0.3.0/24"])
def test_a_storage_subnet_with_room_for_both_is_accepted(cidr):
    assert _storage_problems(edited(_lustre(RAW), "network", ("subnets", "storage"), cidr)) == []


def test_lustre_alone_needs_only_its_own_addresses():
    raw = _lustre(RAW, fss=False)
    assert _storage_problems(edited(raw, "network", ("subnets", "storage"), "10.0.3.0/26")) == []  # 61 >= 60
    [p] = _storage_problems(edited(raw, "network", ("subnets", "storage"), "10.0.3.0/27"))
    assert "needs 60: the Lustre file system's 60" in p and "FSS" not in p and p.endswith("use a /26 or larger")


def test_a_larger_file_system_needs_a_larger_subnet():
    raw = edited(_lustre(RAW, capacity_gb=208000), "network", ("subnets", "storage"), "10.0.3.0/25")
    [p] = _storage_problems(raw)
    assert "needs 183" in p and "storage.lustre.capacityGb 208000" in p and p.endswith("use a /24 or larger")


def test_fss_alone_still_needs_only_the_mount_targets_three():
    [p] = _storage_problems(edited(RAW, "network", ("subnets", "storage"), "10.0.3.0/30"))
    assert p == f"{KEY}: 10.0.3.0/30 has 1 usable IPs (OCI reserves 3) but the storage subnet needs 3: the FSS mount " \
                f"target's 3; use a /29 or larger"
    assert _storage_problems(edited(RAW, "network", ("subnets", "storage"), "10.0.3.0/29")) == []


def test_the_default_plan_of_a_small_vcn_has_no_room_for_lustre():
    """A /20 VCN's default plan gives the storage subnet a /28: enough for FSS, not for Lustre."""
    raw = edited(RAW, "network", ("vcnCidr",), "10.0.0.0/20")
    assert _storage_problems(raw) == []
    [p] = _storage_problems(_lustre(raw))
    assert p.startswith(f"{KEY}: ") and "/28 has 13 usable IPs" in p and p.endswith("use a /25 or larger")


def test_the_demand_lists_what_takes_the_addresses():
    cfg = load_stack_config(edited(_lustre(RAW, capacity_gb=124800), "network", ("subnets", "storage"),
                                   "10.0.3.0/24"))
    assert [n for n, _ in storage_ip_demands(cfg)] == [3, 2 * LUSTRE_SUBNET_IPS_PER_BLOCK]


def test_a_brought_storage_subnet_too_small_is_refused_with_its_existing_key():
    raw = _lustre(edited(RAW, "network", (), existing(subnetCidrs={**CIDRS, "storage": "10.1.3.0/27"})))
    [p] = _storage_problems(raw)
    assert p.startswith("oke-rdma:network.existing.subnetCidrs.storage: 10.1.3.0/27 has 29 usable IPs") and \
        "needs 63" in p and p.endswith("use a /25 or larger")
    assert _storage_problems(_lustre(edited(RAW, "network", (), existing()))) == []  # CIDRS gives it a /24


def test_a_brought_subnet_serving_workers_and_storage_counts_both():
    ids = {**SUBNETS, "storage": SUBNETS["workers"]}
    cidrs = {**CIDRS, "workers": "10.1.16.0/26", "storage": "10.1.16.0/26"}
    raw = _lustre(edited(RAW, "network", (), existing(subnetIds=ids, subnetCidrs=cidrs)))
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    found = [p for p in err.value.problems if "10.1.16.0/26 serves" in p]
    assert len(found) == 1 and "storage: 63 (the FSS mount target's 3 + the Lustre file system's 60" in found[0]


def test_another_stacks_storage_subnet_is_checked_when_its_outputs_are_read():
    raw = _lustre(edited(RAW, "network", (), {"fromStack": {"stack": NET_STACK}}))
    outputs = {"vcnId": VCN, "subnetIds": SUBNETS, "subnetCidrs": {**CIDRS, "storage": "10.1.3.0/28"}, "nsgIds": NSGS}
    with pytest.raises(ConfigError) as err:
        run_program(raw, SECRETS, "gpu", stack_outputs={NET_STACK: outputs})
    [p] = [p for p in err.value.problems if "storage" in p]
    assert p.startswith(f"oke-rdma:network.fromStack.stack: stack '{NET_STACK}' output subnetCidrs.storage: "
                        "10.1.3.0/28 has 13 usable IPs") and "needs 63" in p
