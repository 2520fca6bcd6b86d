"""docs/deploying.md's "Production stack" section describes what Pulumi.prod.yaml declares: every node pool (shape
and size), local NVMe and its mount path, the Lustre file system (capacity, tier, name, tenants), the weights
bucket, every enabled add-on at its version, every tenant. A change to the prod stack that the section does not
follow fails here."""

from __future__ import annotations

import re

import pytest

from oke_rdma.config import load_stack_config
from oke_rdma.config.checks.object_storage import weights_bucket_name
from oke_rdma.config.network import subnet_plan
from tests.stackcfg import ROOT, read_stack_file

CFG = load_stack_config(*read_stack_file(ROOT / "Pulumi.prod.yaml"))


def section() -> str:
    text = (ROOT / "docs" / "deploying.md").read_text()
    start = text.index("## Production stack")
    nxt = text.find("\n## ", start + 5)
    return text[start:] if nxt == -1 else text[start:nxt]


def _n(number: int) -> str:
    return f"{number:,}"


def facts() -> list[str]:
    """What the section must name, read from the prod config."""
    out = [CFG.region, CFG.network.vcn_cidr, subnet_plan(CFG.network)["workers"], CFG.cluster.kubernetes_version]
    for name, pool in CFG.node_pools.items():
        out += [f"`{name}`", f"{pool.size} × {pool.shape}"]
        if pool.local_nvme.enabled:
            out += ["local NVMe", pool.local_nvme.mount_path]
    lustre = CFG.storage.lustre
    if lustre is not None:
        out += ["Lustre", f"{_n(lustre.capacity_gb)} GB", f"{lustre.performance_tier} MB/s per TB",
                f"`{lustre.file_system_name}`", *(f"`/{t}`" for t in lustre.tenants)]
    if CFG.storage.object_storage.enabled:
        out += ["Weights bucket", weights_bucket_name(CFG)]
    fss = CFG.storage.fss
    if fss.enabled:
        out += [f"{fss.throughput_gbps} Gbps", f"`{fss.export_path}`"]
    for key, addon in CFG.platform:  # every add-on field of the platform section
        if getattr(addon, "enabled", False) and getattr(addon, "version", None):
            out.append(str(addon.version))
    out += [f"`{t}`" for t in CFG.tenants]
    return out


@pytest.mark.parametrize("fact", facts())
def test_the_production_section_names_what_the_prod_stack_declares(fact):
    assert fact in section(), f"docs/deploying.md, Production stack: {fact!r} is declared in Pulumi.prod.yaml"


def test_the_check_reads_the_features_the_prod_stack_turns_on():
    """The list above is not vacuous: the prod stack has NVMe, Lustre, the bucket and the MPI Operator (Trainer is
    off beside Kueue 0.19, and the section says why)."""
    names = facts()
    assert "local NVMe" in names and "Lustre" in names and "Weights bucket" in names
    assert CFG.platform.mpi_operator.version in names and not CFG.platform.trainer.enabled
    assert "**Kubeflow Trainer** is off" in section()
    assert not re.search(r"\bTODO\b", section())
