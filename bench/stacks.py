"""Synthetic stacks for the benchmark, generated from ``Pulumi.dev.yaml``.

``synthetic_stack(base, pools=N, tenants=T)`` keeps everything of the base stack and changes only:

* ``nodePools`` — exactly ``N`` pools. The base's RDMA pools come first, then its other pools, then copies of the
  base's first RDMA pool (``gpu-002``, ``gpu-003``, ...: same shape, size, image and labels). So every stack, even
  with one pool, has the Compute Cluster, the launch policy and an RDMA pool, and ``N >= 2`` keeps the dev stack's
  system pool for the platform add-ons.
* ``tenants`` — exactly ``T`` tenants: the base's, then ``team-003``, ``team-004``, ... (namespace = name, unique,
  never a system or platform namespace); every fourth generated tenant has ``rdma: true`` and a quota of no GPU,
  a GPU borrowing limit of 1, 1 core and 1 GB (a privileged namespace must be a GPU tenant's,
  ``privileged-namespace-purpose``; the config refuses a GPU allowance without CPU and memory).
* ``network.vcnCidr`` — only when the pools' pod-IP demand (``Σ size × maxPodsPerNode``) no longer fits the pod
  subnet of the default plan: the VCN prefix is shortened one bit at a time (same base address) until it fits, up
  to a /16 (OCI's largest VCN CIDR block, Networking docs "VCNs and Subnets"; beyond it the stack cannot exist). The
  dev stack's 10.0.0.0/16 has a /17 pod subnet (32 765 IPs); 64 dev-sized GPU pools need 64 × 2 × 64 = 8 192, so
  no benchmark stack needs it today. A stack with explicit ``network.subnets`` overrides is never widened.

Each generated stack is checked with the config model (:func:`oke_rdma.config.load_stack_config`) before it is
measured, so a benchmark never times an error path.
"""

from __future__ import annotations

import copy
import ipaddress
from pathlib import Path
from typing import Any

import yaml

from oke_rdma.config import load_stack_config
from oke_rdma.config.network import default_subnet_plan
from offline.engine import PROJECT_DIR

BASE_STACK = PROJECT_DIR / "Pulumi.dev.yaml"
NS = "oke-rdma"


def _key(cfg: dict[str, Any], name: str) -> str:
    """The key under which ``name`` is written in the stack file (``oke-rdma:name`` or bare ``name``)."""
    return f"{NS}:{name}" if f"{NS}:{name}" in cfg or name not in cfg else name


def _pools(base_pools: dict[str, Any], n: int) -> dict[str, Any]:
    rdma = [k for k, p in base_pools.items() if p.get("rdma")]
    other = [k for k in base_pools if k not in rdma]
    order = rdma + other
    pools = {k: copy.deepcopy(base_pools[k]) for k in order[:n]}
    template = base_pools[(rdma or order)[0]]
    i = len(pools)
    while len(pools) < n:
        i += 1
        pools[f"gpu-{i:03d}"] = copy.deepcopy(template)
    return pools


def _tenants(base_tenants: dict[str, Any], n: int) -> dict[str, Any]:
    tenants = {k: copy.deepcopy(v) for k, v in list(base_tenants.items())[:n]}
    i = len(tenants)
    while len(tenants) < n:
        i += 1
        rdma = i % 4 == 0
        # an RDMA tenant's privileged namespace needs a GPU ResourceQuota above 0 (the security pack's
        # privileged-namespace-purpose): it may borrow 1 GPU and holds 1 core and 1 GB (no GPU of its own)
        quota = {"gpuBorrowingLimit": 1, "cpu": 1, "memoryGb": 1}
        tenants[f"team-{i:03d}"] = {"rdma": True, "quota": quota} if rdma else {"rdma": False}
    return tenants


def _pod_demand(pools: dict[str, Any]) -> int:
    return sum(int(p.get("size", 0)) * int(p.get("maxPodsPerNode", 31)) for p in pools.values())


def _fit_vcn(network: dict[str, Any], demand: int) -> dict[str, Any]:
    """``network`` with ``vcnCidr`` widened until the default plan's pod subnet holds ``demand`` pod IPs."""
    vcn = ipaddress.IPv4Network(network.get("vcnCidr", "10.0.0.0/16"))
    while ipaddress.IPv4Network(default_subnet_plan(str(vcn))["pods"]).num_addresses - 3 < demand:
        if network.get("subnets"):
            raise ValueError("the base stack overrides network.subnets: widen its pod subnet by hand")
        if vcn.prefixlen <= 16:
            raise ValueError(f"{demand} pod IPs do not fit even a /16 VCN (OCI's largest); lower maxPodsPerNode or "
                             f"size")
        vcn = ipaddress.IPv4Network(f"{vcn.network_address}/{vcn.prefixlen - 1}", strict=False)
    return {**network, "vcnCidr": str(vcn)}


def synthetic_stack(base: dict[str, Any], pools: int, tenants: int) -> dict[str, Any]:
    """A stack config document (``{"config": {...}}``) like ``base`` with ``pools`` node pools and ``tenants`` tenants.

    :raises ValueError: if ``pools`` < 1, ``tenants`` < 0, or the pools' pod IPs cannot fit any VCN.
    """
    if pools < 1 or tenants < 0:
        raise ValueError("a stack needs at least one node pool and zero or more tenants")
    doc = copy.deepcopy(base)
    cfg = doc["config"]
    pk, tk, nk = _key(cfg, "nodePools"), _key(cfg, "tenants"), _key(cfg, "network")
    cfg[pk] = _pools(cfg.get(pk) or {}, pools)
    cfg[tk] = _tenants(cfg.get(tk) or {}, tenants)
    network = cfg.get(nk) or {}
    widened = _fit_vcn(network, _pod_demand(cfg[pk]))
    if widened["vcnCidr"] != network.get("vcnCidr", "10.0.0.0/16"):
        cfg[nk] = widened
        note = f"{nk}.vcnCidr widened to {widened['vcnCidr']} for {_pod_demand(cfg[pk])} pod IPs"
        doc.setdefault("x-bench-notes", []).append(note)
    return doc


def check(path: Path) -> None:
    """Validate a written stack file exactly as the offline preview reads it (before any resource is declared).

    :raises oke_rdma.config.ConfigError: if the generator produced an invalid stack.
    :raises offline.preview.StackFileError: if the file cannot be read as a stack file.
    """
    from offline.preview import read_stack_file

    config, _ = read_stack_file(path)
    load_stack_config(config)


def write_stack(doc: dict[str, Any], directory: Path, stack: str) -> Path:
    """Write ``doc`` as ``<directory>/Pulumi.<stack>.yaml`` (the preview names the stack after the file)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"Pulumi.{stack}.yaml"
    doc = {k: v for k, v in doc.items() if not k.startswith("x-")}
    path.write_text("# generated by bench/stacks.py — do not edit\n" + yaml.safe_dump(doc, sort_keys=False))
    return path


def load_base(path: Path = BASE_STACK) -> dict[str, Any]:
    """The base stack file as a YAML document."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))
