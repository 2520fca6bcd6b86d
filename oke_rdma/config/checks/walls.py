"""Rules of the tenants' network walls (``tenants.<t>.network``, ``platform.cilium``) that read other keys of the
stack config. The models are ``oke_rdma.config.tenants.TenantNetwork`` and the Cilium add-on
(``oke_rdma.addons.cilium``).

Sources (checked 2026-12-01): Cilium docs "Oracle Kubernetes Engine (OKE) VCN-Native Pod Networking" (chaining onto
OKE's ``oci`` conflist needs VCN-native pod networking, not Flannel; Cilium's own pool ``100.64.0.0/16``); RFC 6598
(100.64.0.0/10, shared address space).
"""

from __future__ import annotations

from oke_rdma.addons.cilium import CILIUM_POOL_CIDR, overlaps_pool

from .._base import _key
from ..stack import StackConfig


def check_walls(cfg: StackConfig) -> list[str]:
    """A stack with tenants uses VCN-native pod networking (``cluster.cniType: FLANNEL_OVERLAY`` gives pods the node's
    address, which voids every wall that trusts node addresses: docs/threat-model.md, "The UID wall on shared
    storage"); ``allowFrom`` names other tenants of the stack (an unknown name, or the tenant itself, is refused naming the
    list item); Cilium chains onto VCN-native pod networking only (``cluster.cniType`` must be
    ``OCI_VCN_IP_NATIVE``); Cilium's own range (``100.64.0.0/16``) overlaps neither ``network.vcnCidr`` nor
    ``cluster.servicesCidr``."""
    problems: list[str] = []
    names = sorted(cfg.tenants)
    for name, tenant in cfg.tenants.items():
        seen: set[str] = set()
        for i, other in enumerate(tenant.network.allow_from):
            at = _key(("tenants", name, "network", "allowFrom", i))
            if other == name:
                problems.append(f"{at}: {other!r} is the tenant itself (its own pods always reach each other); "
                                f"remove it")
            elif other not in cfg.tenants:
                problems.append(f"{at}: there is no tenant {other!r}; name one of {', '.join(names)} or remove it")
            elif other in seen:
                problems.append(f"{at}: {other!r} is listed twice; remove one")
            seen.add(other)
    if cfg.cluster.cni_type != "OCI_VCN_IP_NATIVE" and cfg.tenants:
        problems.append(f"{_key(('cluster', 'cniType'))}: {cfg.cluster.cni_type} sends every pod out with its node's "
                        f"address (SNAT), so the walls that trust only node addresses (the FSS exports and storage "
                        f"NSG rules admitting the workers, Lustre) and Cilium's walls (which chain onto VCN-native "
                        f"networking only) no longer tell tenant {names[0]!r} from the others; set cluster.cniType "
                        f"OCI_VCN_IP_NATIVE (a new cluster: changing it replaces the cluster) or remove the tenants")
    cilium = cfg.platform.cilium
    if not cilium.enabled:
        return problems
    if cfg.cluster.cni_type != "OCI_VCN_IP_NATIVE":
        problems.append(f"{_key(('platform', 'cilium', 'enabled'))}: Cilium chains onto OKE's VCN-native pod "
                        f"networking, but cluster.cniType is {cfg.cluster.cni_type}; set cluster.cniType "
                        f"OCI_VCN_IP_NATIVE or platform.cilium.enabled false (no network policy is then enforced)")
    for key, cidr in ((("network", "vcnCidr"), cfg.network.vcn_cidr),
                      (("cluster", "servicesCidr"), cfg.cluster.services_cidr)):
        if overlaps_pool(cidr):
            problems.append(f"{_key(key)}: {cidr} overlaps {CILIUM_POOL_CIDR}, the range Cilium numbers its host "
                            f"interfaces from under chaining; pick a range outside 100.64.0.0/16")
    return problems
