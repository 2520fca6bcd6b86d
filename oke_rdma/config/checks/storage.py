"""Rules of the ``storage`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.storage``, which imports nothing back."""

from __future__ import annotations


from .._base import _key
from ..stack import StackConfig


def check_storage(cfg: StackConfig) -> list[str]:
    """Cross-field rules of shared storage: a tenant that asks for it needs ``storage.fss.enabled``, and the
    availability domain of the file system must be one of ``availabilityDomains``."""
    problems: list[str] = []
    fss = cfg.storage.fss
    for name, tenant in cfg.tenants.items():
        if tenant.shared_storage is not None and not fss.enabled:
            problems.append(f"{_key(('tenants', name, 'sharedStorage'))}: asks for the shared FSS volume but "
                            f"storage.fss.enabled is false; enable FSS or remove sharedStorage")
    if fss.enabled and fss.availability_domain and fss.availability_domain not in cfg.availability_domains:
        problems.append(f"{_key(('storage', 'fss', 'availabilityDomain'))}: {fss.availability_domain!r} is not in "
                        f"availabilityDomains; use one of {', '.join(cfg.availability_domains)}")
    problems += check_lustre(cfg)
    return problems


def lustre_availability_domain(cfg: StackConfig) -> str:
    """The AD of the Lustre file system: ``storage.lustre.availabilityDomain``, else the Compute Cluster's (where the
    RDMA nodes that read it run), else the first of ``availabilityDomains``."""
    lustre = cfg.storage.lustre
    if lustre is not None and lustre.availability_domain:
        return lustre.availability_domain
    if cfg.compute_cluster is not None:
        return cfg.compute_cluster.availability_domain
    return cfg.availability_domains[0]


def check_lustre(cfg: StackConfig) -> list[str]:
    """``storage.lustre``: its AD is one of ``availabilityDomains``; every tenant it lists exists; a brought network
    provides the storage subnet the file system's addresses come from."""
    lustre = cfg.storage.lustre
    if lustre is None:
        return []
    problems = []
    at = ("storage", "lustre")
    if lustre.availability_domain and lustre.availability_domain not in cfg.availability_domains:
        problems.append(f"{_key((*at, 'availabilityDomain'))}: {lustre.availability_domain!r} is not in "
                        f"availabilityDomains; use one of {', '.join(cfg.availability_domains)}")
    for i, tenant in enumerate(lustre.tenants):
        if tenant not in cfg.tenants:
            problems.append(f"{_key((*at, 'tenants', i))}: no tenant named {tenant!r}; use one of "
                            f"{', '.join(sorted(cfg.tenants)) or '(no tenants defined)'}, or remove it")
    if len(set(lustre.tenants)) != len(lustre.tenants):
        problems.append(f"{_key((*at, 'tenants'))}: lists a tenant twice; list each once")
    return problems
