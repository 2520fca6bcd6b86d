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
    return problems
