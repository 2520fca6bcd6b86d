"""Kubernetes versions OKE has withdrawn, against what the plan creates: OKE refuses to create a cluster or a node pool
on a version it no longer offers, while an existing one keeps running it (the program warns). The offline preview
refuses such a creation (exit 2) in one line naming the config key and the versions OKE offers
(:mod:`oke_rdma.facts.kubernetes`, each row sourced and dated)."""

from __future__ import annotations

from typing import Any, Optional

from oke_rdma.facts import kubernetes

CLUSTER, POOL = "oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool"


def withdrawn_creations(run: Any, name_prefix: str = "", supported: Optional[list[str]] = None) -> list[str]:
    """One line per cluster or node pool the plan creates (every one without ``--previous``; ``create`` or
    ``replace`` against it) on a Kubernetes version OKE has withdrawn.

    :param run: an :class:`offline.engine.ProgramRun`.
    :param name_prefix: the stack's ``namePrefix``, to name a pool's config key (``<prefix>-<pool>`` → ``<pool>``).
    :param supported: the versions to suggest (those the pinned add-ons support:
        :func:`oke_rdma.config.checks.chart_versions.kubernetes_versions_supported`); default every offered one.
    """
    created = None if run.changes is None else {c.urn for c in run.changes if c.op in ("create", "replace")}
    offered = ", ".join(supported or kubernetes.offered_versions())
    problems = []
    for res in run.resources:
        if res.type not in (CLUSTER, POOL) or (created is not None and res.urn not in created):
            continue
        version = res.inputs.get("kubernetesVersion")
        row = kubernetes.withdrawn(version) if isinstance(version, str) else None
        if row is None:
            continue
        if res.type == CLUSTER:
            key, what = "cluster.kubernetesVersion", f"a new cluster ({res.name})"
        else:
            pool = res.name[len(name_prefix) + 1:] if name_prefix and res.name.startswith(f"{name_prefix}-") \
                else res.name
            key, what = f"nodePools.{pool}.kubernetesVersion (or cluster.kubernetesVersion)", \
                f"a new node pool ({res.name})"
        problems.append(f"oke-rdma:{key}: OKE no longer offers Kubernetes {version} (last seen offered "
                        f"{row.last_seen}, gone by {row.withdrawn}: {row.source}), so it refuses {what} on it; set "
                        f"one it offers that the pinned add-ons support: {offered} (`oci ce cluster-options get "
                        f"--cluster-option-id all` shows today's)")
    return problems
