"""Stack-config variants of the dev stack an attacker might try; the config model must refuse each (exit 2) with one
line naming the key path, while the safe control previews clean (exit 0).

``CONFIG_CASES`` maps a case name to (threat class, the key path the refusal names, edit for the unsafe variant,
edit for the safe control); an edit takes and changes the parsed ``Pulumi.dev.yaml`` document.
"""
from __future__ import annotations

from typing import Any, Callable

Edit = Callable[[dict[str, Any]], None]
TRAINER = ("oke-rdma:tenants", "research", "serviceAccounts", "trainer", "allow")
DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"


def _set(*path: Any, value: Any) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        node = doc["config"]
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return edit


def _api(cidrs: list[str]) -> Edit:
    return _set("oke-rdma:network", "apiEndpoint", value={"public": True, "allowedCidrs": cidrs})


def _grant(text: str) -> Edit:
    return _set(*TRAINER, value=[text])


CONFIG_CASES: dict[str, tuple[str, str, Edit, Edit]] = {
    "api_clients_119_public_slash8s": (
        "network", "oke-rdma:network.apiEndpoint.allowedCidrs",
        _api([f"{i}.0.0.0/8" for i in range(1, 121) if i != 10]), _api(["10.0.0.0/16", "203.0.113.0/24"])),
    "api_clients_two_halves_of_the_internet": (
        "network", "oke-rdma:network.apiEndpoint.allowedCidrs", _api(["0.0.0.0/1", "128.0.0.0/1"]),
        _api(["10.0.0.0/16"])),
    "workload_grant_manage_policies": (
        "identity", "oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]", _grant("manage policies in tenancy"),
        _grant(f"read objects in compartment id {DATA} where target.bucket.name = 'research-datasets'")),
    "workload_grant_use_all_resources": (
        "identity", "oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]",
        _grant(f"use all-resources in compartment id {DATA}"), _grant(f"read buckets in compartment id {DATA}")),
    "workload_grant_use_groups": (
        "identity", "oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]", _grant(f"use groups in compartment id {DATA}"),
        _grant(f"inspect groups in compartment id {DATA}")),
    "rdma_pool_fault_domains": (
        "placement", "oke-rdma:nodePools.gpu.faultDomains",
        _set("oke-rdma:nodePools", "gpu", "faultDomains", value=["FAULT-DOMAIN-1"]),
        _set("oke-rdma:nodePools", "gpu", "faultDomains", value=[])),
}


def _load_sibling_cases() -> None:
    """Import every ``configs_<area>.py`` beside this file; each adds its variants to ``CONFIG_CASES``."""
    import importlib
    from pathlib import Path
    for path in sorted(Path(__file__).parent.glob("configs_*.py")):
        importlib.import_module(f"{__package__}.{path.stem}")


_load_sibling_cases()
