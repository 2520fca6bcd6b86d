"""Every StorageClass the stack config names must exist in the cluster: the stack's own (the File Storage class,
when ``storage.fss`` is enabled) or one OKE creates in every cluster (``oke_rdma.facts.storage``). A claim naming a
class nobody creates never binds (it stays ``Pending``; Prometheus never starts), and the API server accepts it, so
nothing else fails before.

The keys that name a class: ``platform.kubePrometheusStack.storageClass`` and, in every add-on's ``values``, any
``storageClassName`` or ``storageClass`` string (a chart's persistence settings: Grafana's
``persistence.storageClassName``, Alertmanager's ``volumeClaimTemplate.spec.storageClassName``...). An empty string
(no dynamic provisioning) and ``"-"`` (the charts' spelling of it) name no class.

A named class that provisions block volumes must also attach them to the nodes its pods can land on: the Block
Volume CSI driver refuses to attach a volume over iSCSI to a node with in-transit encryption
(``isPvEncryptionInTransitEnabled``, on by default on every pool) — only ``attachment-type: paravirtualized`` attaches
there (``oke_rdma.facts.storage``). OKE's ``oci-bv`` and ``oci`` attach over iSCSI, so while any node pool has
in-transit encryption a claim of theirs is refused, naming the key: its pod stays ContainerCreating with
"node ... has in transit encryption enabled, but attachment type is not paravirtualized". The stack's own
``oke-rdma-bv`` (paravirtualized, the default) attaches everywhere.
"""

from __future__ import annotations

from typing import Any, Iterator

from oke_rdma.addons import REGISTRY
from oke_rdma.facts.storage import (BLOCK_VOLUME_CLASS, ISCSI, OKE_BUILTIN_STORAGE_CLASSES, block_volume_attachment,
                                    fss_storage_class)
from .._base import _key
from ..stack import StackConfig

#: Keys whose string value names a StorageClass in a chart's values.
_CLASS_KEYS = ("storageClassName", "storageClass")
_NO_CLASS = ("", "-")


def _named(values: Any, at: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(key path, class name) for every StorageClass named in ``values``, depth first."""
    if isinstance(values, dict):
        for k, v in values.items():
            if k in _CLASS_KEYS and isinstance(v, str):
                yield at + (str(k),), v
            else:
                yield from _named(v, at + (str(k),))
    elif isinstance(values, list):
        for i, v in enumerate(values):
            yield from _named(v, at + (i,))


def known_storage_classes(cfg: StackConfig) -> tuple[str, ...]:
    """The classes the cluster will have: the stack's own, then OKE's built-in ones."""
    own = (fss_storage_class(cfg.name_prefix),) if cfg.storage.fss.enabled else ()
    return (BLOCK_VOLUME_CLASS,) + own + OKE_BUILTIN_STORAGE_CLASSES


def named_storage_classes(cfg: StackConfig) -> list[tuple[tuple[Any, ...], str]]:
    """(config key path, class name) for every StorageClass the config names (module docstring), empty names and
    ``"-"`` included."""
    named: list[tuple[tuple[Any, ...], str]] = []
    for addon in REGISTRY:
        release = getattr(cfg.platform, addon.field)
        at = ("platform", addon.key)
        own = getattr(release, "storage_class", None)
        if isinstance(own, str):
            named.append((at + ("storageClass",), own))
        named += _named(getattr(release, "values", None) or {}, at + ("values",))
    return named


def check_storage_classes(cfg: StackConfig) -> list[str]:
    """One problem per config key naming a StorageClass that is neither the stack's nor built into OKE, or a block
    volume class that attaches over iSCSI while a node pool has in-transit encryption (module docstring)."""
    known = known_storage_classes(cfg)
    encrypted = [n for n, p in cfg.node_pools.items() if p.is_pv_encryption_in_transit_enabled]
    problems = []
    for path, name in named_storage_classes(cfg):
        if name in _NO_CLASS:
            continue
        if name not in known:
            problems.append(f"{_key(path)}: StorageClass {name!r} does not exist in the cluster (neither the stack's "
                            f"own nor one OKE creates), so the claim would never bind; use one of {list(known)}")
        elif block_volume_attachment(name) == ISCSI and encrypted:
            problems.append(f"{_key(path)}: StorageClass {name!r} attaches block volumes over iSCSI, which the Block "
                            f"Volume CSI driver refuses on nodes with in-transit encryption (node pools "
                            f"{', '.join(encrypted)}: isPvEncryptionInTransitEnabled), so the volume never attaches "
                            f"and its pod never starts; use {BLOCK_VOLUME_CLASS!r} (paravirtualized, the default)")
    return problems


def unattachable_classes(cfg: StackConfig) -> tuple[str, ...]:
    """OKE's block-volume classes that cannot attach to this stack's nodes: the iSCSI ones while any node pool has
    in-transit encryption (``()`` otherwise). The guard refuses tenant claims naming them (``oke_rdma.guard``)."""
    if not any(p.is_pv_encryption_in_transit_enabled for p in cfg.node_pools.values()):
        return ()
    return tuple(c for c in OKE_BUILTIN_STORAGE_CLASSES if block_volume_attachment(c) == ISCSI)
