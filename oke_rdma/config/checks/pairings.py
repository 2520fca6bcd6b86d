"""Pairings that the config accepts but that cannot work on the nodes declared: each is a warning the program logs
on every preview and update (``pulumi.log.warn``), naming the key and the fix, because the next step — a pod
mounting a volume, a job starting — would fail while ``pulumi up`` succeeds. They are warnings, not errors: a node
image prepared outside oke-rdma can make each of them work, which the config cannot see.

Members (sources checked 2026-12-01):

* **Lustre volumes with no client to install**: ``storage.lustre.tenants`` with ``client.enabled`` and no archive in
  ``client.packages``. OKE's node images carry no Lustre client (OKE docs "Provisioning PVCs on the File Storage with
  Lustre Service"; docs/storage.md), so no node gets the ``okerdma.io/lustre-client`` label the volumes require, and
  every pod mounting Lustre stays Pending.
* **A Lustre client pool on Arm**: the Lustre CSI driver supports x86_64 only (same OKE page: Oracle Linux 8 x86 and
  Ubuntu 22.04 x86), and the node installs nothing there (``oke_rdma.config.lustre.LustreClientPackages``): that
  pool's nodes never get the label.
* **FSS in-transit TLS on nodes oke-rdma does not prepare for it**: ``storage.fss.inTransitTls`` makes every volume
  mount through ``oci-fss-utils`` (OKE docs "Provisioning PVCs on the File Storage Service", in-transit encryption:
  the package must be installed on each worker node); oke-rdma installs nothing for it, so mounts fail on nodes whose
  image lacks it.
* **An RDMA tenant with no RDMA pool**: ``tenants.<t>.rdma`` with no node pool with ``rdma: true``: the tenant's
  namespace is privileged for RDMA pods and its ClusterQueue has no RDMA flavor, so its RDMA jobs never start.
"""

from __future__ import annotations

from ...facts.shapes import ARM, cpu_arch
from ..stack import StackConfig
from .._base import _key


def pairing_warnings(cfg: StackConfig) -> list[str]:
    """One warning per declared pairing that cannot work on the declared nodes (see the module docstring)."""
    from .storage import lustre_client_pools

    out: list[str] = []
    lustre = cfg.storage.lustre
    if lustre is not None and lustre.tenants and lustre.client.enabled:
        packages = lustre.client.packages
        if packages.oracle_linux8 is None and packages.ubuntu2204 is None:
            out.append(f"{_key(('storage', 'lustre', 'client', 'packages'))}: no client archive, and OKE's node "
                       f"images carry no Lustre client: no node of {', '.join(lustre_client_pools(cfg)) or 'any pool'} "
                       f"gets the okerdma.io/lustre-client label, so every pod of {', '.join(lustre.tenants)} that "
                       f"mounts Lustre stays Pending; set storage.lustre.client.packages.oracleLinux8 (or ubuntu2204: "
                       f"docs/storage.md), or use node images that carry the client")
        for pool in lustre_client_pools(cfg):
            shape = cfg.node_pools[pool].shape
            arch = cpu_arch(shape)  # the shape table's fact (VM.GPU.A10.2 is x86 despite '.A10.'), never the name
            if arch == ARM:
                out.append(f"{_key(('storage', 'lustre', 'client', 'pools'))}: pool {pool} ({shape}) is Arm, and the "
                           f"Lustre CSI driver supports x86_64 only: its nodes never get the client label; list x86 "
                           f"pools only")
            elif arch is None:
                out.append(f"{_key(('storage', 'lustre', 'client', 'pools'))}: pool {pool} ({shape}): its CPU "
                           f"architecture is not in oke_rdma/facts/shapes.py (CPU_ARCH), and the Lustre CSI driver "
                           f"supports x86_64 only, so whether its nodes get the client label is unknown; list pools of "
                           f"known x86 shapes, or add the shape's row")
    fss = cfg.storage.fss
    if fss.enabled and fss.in_transit_tls and any(t.shared_storage is not None for t in cfg.tenants.values()):
        out.append(f"{_key(('storage', 'fss', 'inTransitTls'))}: every FSS volume mounts through oci-fss-utils, "
                   f"which oke-rdma does not install and OKE's images may lack: mounts fail on nodes without it; "
                   f"install it on the nodes (OKE docs, in-transit encryption for FSS) or turn inTransitTls off")
    rdma_pools = [n for n, p in cfg.node_pools.items() if p.rdma]
    for name, tenant in cfg.tenants.items():
        if tenant.rdma and not rdma_pools:
            out.append(f"{_key(('tenants', name, 'rdma'))}: no node pool has rdma: true, so the tenant's RDMA jobs "
                       f"have no node to run on; add an RDMA pool or set rdma: false")
    return out
