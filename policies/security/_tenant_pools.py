"""Which node pools a tenant's GPU pods may select: the pools of the Kueue flavors its ClusterQueue covers — the
deploy-time half of the guard's ``tenant-pools-<tenant>`` policy (``oke_rdma/guard.py``).

A tenant's ClusterQueue selects its namespace (``namespaceSelector.matchLabels["kubernetes.io/metadata.name"]``, as
``oke_rdma/scheduling.py`` writes it) and names flavors (``spec.resourceGroups[].flavors[].name``); each
ResourceFlavor's ``spec.nodeLabels["okerdma.io/node-pool"]`` is a pool. A GPU pod (requests or limits
``nvidia.com/gpu``, or a toleration of the ``nvidia.com/gpu`` taint) that selects a pool by ``nodeSelector`` or a
required node affinity on ``okerdma.io/node-pool`` must select one of its tenant's pools; when no ClusterQueue of the
stack selects the namespace its pools cannot be known and any selection is refused (fail closed).

Sources (checked 2026-12-02): Kueue docs "Cluster Queue" (``namespaceSelector``, ``resourceGroups``), "Resource
Flavor" (``nodeLabels`` added to admitted workloads); Kubernetes docs "Assigning Pods to Nodes".
"""
from __future__ import annotations

import re
from typing import Any

if __package__:  # imported as the package `policies.security`
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read

POOL_LABEL, GPU = "okerdma.io/node-pool", "nvidia.com/gpu"
_KUEUE = re.compile(r"^kubernetes:kueue\.x-k8s\.io/[^:]+:(ClusterQueue|ResourceFlavor)(Patch)?$")
_CONTAINERS = ("initContainers", "containers", "ephemeralContainers")


def tenant_pools(resources: list) -> dict[str, set]:
    """Namespace → the pools of the flavors its ClusterQueues cover (UNKNOWN members for unknown parts)."""
    flavors: dict[Any, Any] = {}
    queues = []
    for r in resources:
        m = _KUEUE.match(r.resource_type)
        if not m:
            continue
        if m.group(1) == "ResourceFlavor":
            flavors[read(r.props, "metadata", "name")] = read(r.props, "spec", "nodeLabels", POOL_LABEL)
        else:
            queues.append(r)
    out: dict[str, set] = {}
    for q in queues:
        ns = read(q.props, "spec", "namespaceSelector", "matchLabels", "kubernetes.io/metadata.name")
        if not isinstance(ns, str):
            continue
        pools = out.setdefault(ns, set())
        groups = elements(read(q.props, "spec", "resourceGroups"))
        for g in groups if groups is not UNKNOWN else [UNKNOWN]:
            names = UNKNOWN if g is UNKNOWN else elements(read(g, "flavors"))
            for f in names if names is not UNKNOWN else [UNKNOWN]:
                pools.add(UNKNOWN if f is UNKNOWN else flavors.get(read(f, "name"), UNKNOWN))
    return out


def _wants_gpu(spec: Any) -> bool:
    for key in _CONTAINERS:
        for c in elements(read(spec, key)) or []:
            for part in ("requests", "limits"):
                amounts = read(c, "resources", part)
                if amounts is not UNKNOWN and hasattr(amounts, "get") and amounts.get(GPU) not in (None, 0, "0"):
                    return True
    tolerations = elements(read(spec, "tolerations"))
    return tolerations is not UNKNOWN and any(read(t, "key") == GPU for t in tolerations or [])


def selected_pools(spec: Any) -> list[Any]:
    """The pools a pod spec selects by ``nodeSelector`` and required node affinity on ``okerdma.io/node-pool``."""
    found = []
    selector = read(spec, "nodeSelector", POOL_LABEL)
    if selector is not None:
        found.append(selector)
    terms = read(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                 "nodeSelectorTerms")
    for t in elements(terms) if terms not in (None, UNKNOWN) else []:
        for e in elements(read(t, "matchExpressions")) or []:
            if read(e, "key") == POOL_LABEL and read(e, "operator") == "In":
                found += list(elements(read(e, "values")) or [])
    return found


def pool_problems(spec: Any, home: str, pools: dict[str, set]) -> list[str]:
    """Why a GPU pod spec of tenant namespace ``home`` selects a pool that is not its tenant's."""
    if spec is UNKNOWN or spec is None or not _wants_gpu(spec):
        return []
    chosen = selected_pools(spec)
    if not chosen:
        return []
    own = pools.get(home)
    if own is None:
        return [f"selects pool {', '.join(map(str, chosen))} for GPU pods, but no ClusterQueue of the stack selects "
                "this namespace, so its pools cannot be known (another tenant's dedicated pool?)"]
    return [f"selects pool {p if isinstance(p, str) else '(unknown)'} for GPU pods, which is not one of its "
            f"tenant's pools ({', '.join(sorted(x for x in own if isinstance(x, str))) or 'none'}): another "
            "tenant's dedicated GPUs" for p in chosen if not isinstance(p, str) or p not in own]
