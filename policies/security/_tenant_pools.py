"""Where a tenant's GPU pods may land, and whether that is inside its pools — the deploy-time half of the guard's
``tenant-pools-<tenant>`` policy (``oke_rdma/guard.py``).

**A tenant's pools.** A tenant's ClusterQueue selects its namespace (``namespaceSelector.matchLabels
["kubernetes.io/metadata.name"]``, as ``oke_rdma/scheduling.py`` writes it) and names flavors
(``spec.resourceGroups[].flavors[].name``); each ResourceFlavor's ``spec.nodeLabels["okerdma.io/node-pool"]`` is a
pool. With no ClusterQueue of the stack selecting the namespace its pools cannot be known.

**A GPU pod** takes a GPU-class device (``_gpu_pods``: any extended resource — ``nvidia.com/gpu``, MIG slices, a
renamed time-sliced resource —, or DRA ``resourceClaims``) or tolerates the GPU taint (key ``nvidia.com/gpu``, or a
key-less ``Exists``).

**Where it may land** (``_node_selection``): each branch of its node selection — ``nodeSelector`` on any label AND
one required node-affinity term — reaches

* when it pins ``okerdma.io/node-pool`` to a finite set (``nodeSelector``, ``In``): those pools, less the ones whose
  declared labels it definitely fails (a pool's nodes carry its NodePool's ``initialNodeLabels`` and the labels OKE
  sets from the pool's declaration: ``node.kubernetes.io/instance-type`` = ``nodeShape``, and ``kubernetes.io/os``);
* otherwise (``NotIn``, ``Exists``, another label such as the instance type, preferred terms only, no selection at
  all): every declared pool it does not definitely fail **and nodes the stack does not declare** — a pool of another
  stack, a node joined by hand — whose labels are unknown: the set cannot be bounded (fail closed).

The pools the stack declares: its OKE NodePools (named by their ``okerdma.io/node-pool`` initial label), the pools
its ResourceFlavors name (labels beyond the pool's own unknown), and self-managed nodes (an instance whose cloud-init
runs ``oke bootstrap`` or passes ``--node-labels``: labels unknown). A pool whose labels cannot be read — unknown
``initialNodeLabels``, cloud-init that passes kubelet ``--node-labels``, ``#include``s another file or is not plain
text — may carry any label and is never ruled out. The zone label (``topology.kubernetes.io/zone``) is not derived:
OKE writes a shortened AD name whose form has regional exceptions (OKE docs "Supported Labels for Different
Usecases").

**The verdict.** A GPU pod of tenant namespace ``t`` is refused when the pools it may land on are not all ``t``'s,
or cannot be bounded. A workload labelled ``kueue.x-k8s.io/queue-name`` is Kueue's: Kueue adds the admitted flavor's
``nodeLabels`` to its pods' node selector, so it lands on a flavor of a ClusterQueue selecting its namespace (and
the guard refuses it at admission otherwise); only the pools it pins itself are judged.

Sources (checked 2026-12-02): Kueue docs "Cluster Queue" (``namespaceSelector``, ``resourceGroups``), "Resource
Flavor" (``nodeLabels`` added to admitted workloads), "Run Jobs"; Kubernetes docs "Assigning Pods to Nodes",
"Well-Known Labels, Annotations and Taints" (``node.kubernetes.io/instance-type``, ``kubernetes.io/os``); OKE docs
"Supported Labels for Different Usecases", "Using Custom Cloud-init Initialization Scripts to Set Up Managed Nodes";
pulumi_oci ``containerengine`` NodePool (``initialNodeLabels``, ``nodeShape``, ``nodeMetadata.user_data``).
"""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

if __package__:  # imported as the package `policies.security`
    from ._gpu_pods import device_resources, queued
    from ._node_selection import Branch, branches, excludes, pin
    from ._rules import NODE_POOL, UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _gpu_pods import device_resources, queued
    from _node_selection import Branch, branches, excludes, pin
    from _rules import NODE_POOL, UNKNOWN, elements, read

POOL_LABEL, GPU = "okerdma.io/node-pool", "nvidia.com/gpu"
INSTANCE = "oci:Core/instance:Instance"
#: Labels OKE's nodes carry from their pool's declaration (Kubernetes "Well-Known Labels": the cloud controller sets
#: the instance type from the shape, the kubelet the OS; OKE's managed nodes run Oracle Linux or Ubuntu images).
SHAPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
OS_LABEL = "kubernetes.io/os"
#: What in a node's cloud-init makes its labels unreadable from the declaration: kubelet labels, included files.
_UNREADABLE = ("node-labels", "#include", "Content-Type")
_KUEUE = re.compile(r"^kubernetes:kueue\.x-k8s\.io/[^:]+:(ClusterQueue|ResourceFlavor)(Patch)?$")
OUTSIDE = "nodes the stack does not declare"


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


@dataclass(frozen=True)
class Pool:
    """A set of nodes the stack declares: ``name`` (its pool label, or ``<resource name>`` when unknown) and
    ``labels`` (a dict of what its nodes surely carry, or UNKNOWN: any label, the pool label too)."""

    name: str
    labels: Any


def _readable_cloud_init(props: Any, key: str) -> bool:
    """True when the node's cloud-init leaves its labels as declared: none, or plain text without kubelet labels or
    included files."""
    text = read(props, key, "user_data")
    if text is None or text == "":
        return True
    if not isinstance(text, str):
        return False
    try:
        decoded = base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        decoded = text  # plain text user data (not base64)
    return not any(mark in decoded for mark in _UNREADABLE)


def _node_pool(r: Any) -> Pool:
    items = elements(read(r.props, "initialNodeLabels"))
    if items is UNKNOWN or not _readable_cloud_init(r.props, "nodeMetadata"):
        return Pool(f"<{r.name}>", UNKNOWN)
    labels: dict[str, str] = {}
    for item in items:
        key, value = read(item, "key"), read(item, "value")
        if not isinstance(key, str) or not isinstance(value, str):
            return Pool(f"<{r.name}>", UNKNOWN)
        labels[key] = value
    shape = read(r.props, "nodeShape")
    for key in (*SHAPE_LABELS, OS_LABEL):
        value = shape if key in SHAPE_LABELS else "linux"
        if not isinstance(value, str) or labels.get(key, value) != value:
            labels.pop(key, None)  # unknown shape, or a label contradicting OKE's: not known
        else:
            labels[key] = value
    name = labels.get(POOL_LABEL)
    return Pool(name if isinstance(name, str) else f"<{r.name}>", labels)


def declared_pools(resources: list) -> list[Pool]:
    """The node pools the stack declares (see the module docstring), each once."""
    out = [_node_pool(r) for r in resources if r.resource_type == NODE_POOL]
    for r in resources:
        if r.resource_type == INSTANCE:
            text = read(r.props, "metadata", "user_data")
            if text is UNKNOWN or (isinstance(text, str) and not _readable_cloud_init(r.props, "metadata")) or (
                    isinstance(text, str) and "oke bootstrap" in _decoded(text)):
                out.append(Pool(f"<{r.name}>", UNKNOWN))
    named = {p.name for p in out}
    for r in resources:
        m = _KUEUE.match(r.resource_type)
        value = read(r.props, "spec", "nodeLabels", POOL_LABEL) if m and m.group(1) == "ResourceFlavor" else None
        if isinstance(value, str) and value not in named:
            out.append(Pool(value, {POOL_LABEL: value}))
            named.add(value)
    return out


def _decoded(text: str) -> str:
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return text


def _branch_landing(branch: Branch, pools: list[Pool]) -> tuple[set, list]:
    """(pool names, unbounded reasons) one branch may land on."""
    pinned = pin(branch, POOL_LABEL)
    unreadable = [p for p in pools if p.labels is UNKNOWN]
    if pinned is not None:
        reached = set()
        for value in pinned:
            named = [p for p in pools if p.name == value]
            if not named or unreadable or any(not excludes(branch, p.labels) for p in named):
                reached.add(value)
        return reached, []
    reached = {p.name for p in pools if p.labels is not UNKNOWN and not excludes(branch, p.labels)}
    return reached | {p.name for p in unreadable}, [OUTSIDE]


def landing(spec: Any, pools: list[Pool]) -> tuple[set, bool, set]:
    """(the pools a pod spec may land on, whether it may also land on nodes the stack does not declare, the pools
    it pins itself by ``okerdma.io/node-pool``)."""
    reached: set = set()
    outside = False
    pinned: set = set()
    for branch in branches(spec):
        names, open_ = _branch_landing(branch, pools)
        reached |= names
        outside = outside or bool(open_)
        values = pin(branch, POOL_LABEL)
        pinned |= set(values or ())
    return reached, outside, pinned


def _wants_gpu(spec: Any) -> bool:
    devices = device_resources(spec)
    if devices is UNKNOWN or devices:
        return True
    tolerations = elements(read(spec, "tolerations"))
    return tolerations is UNKNOWN or any(
        read(t, "key") == GPU or (read(t, "key") in (None, "") and read(t, "operator") == "Exists")
        for t in tolerations or [])


def _names(values: Any) -> str:
    return ", ".join(sorted(x for x in values if isinstance(x, str))) or "none"


def pool_problems(spec: Any, home: str, pools: dict[str, set], declared: list[Pool], props: Any = None,
                  gpu: Any = None, template: bool = False) -> list[str]:
    """Why a GPU pod spec of tenant namespace ``home`` may land outside its tenant's pools (``pools``: namespace →
    pools, :func:`tenant_pools`; ``declared``: :func:`declared_pools`; ``props``: the workload, for its queue
    label; ``gpu``: whether the pods take GPUs when the spec alone does not tell, None to read it from the spec;
    ``template``: the spec is a template other objects' pods are made from, judged there, so only its own pins
    count)."""
    if spec is UNKNOWN or spec is None or not (_wants_gpu(spec) if gpu is None else gpu):
        return []
    reached, outside, pinned = landing(spec, declared)
    own = pools.get(home)
    if template or queued(props):
        reached, outside = pinned, False  # Kueue pins the rest to a flavor of the namespace's ClusterQueue
        if not reached:
            return []
    if own is None:
        return [f"is a GPU pod that may land on {_names(reached) if reached else 'any pool'}"
                f"{' and ' + OUTSIDE if outside else ''}, but no ClusterQueue of the stack selects this namespace, "
                "so its pools cannot be known (another tenant's dedicated pool?)"]
    found = [f"may land on pool {p}, which is not one of its tenant's pools ({_names(own)}): another tenant's "
             "dedicated GPUs" for p in sorted(reached) if p not in own]
    if outside:
        found.append(f"may land on {OUTSIDE}: its node selection (nodeSelector and required node affinity; "
                     f"preferred terms do not restrict) does not pin {POOL_LABEL} to its tenant's pools "
                     f"({_names(own)}), so any node whose taints it tolerates is a candidate; set nodeSelector "
                     f"{POOL_LABEL}: <pool>, or submit it through its LocalQueue (label kueue.x-k8s.io/queue-name)")
    return found


TRAINER_GROUP = "trainer.kubeflow.org"
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
_PLACEMENT = ("nodeSelector", "affinity", "tolerations")


def trainer_kind(resource_type: str) -> Any:
    """The kind (without ``Patch``) of a Kubeflow Trainer resource type, None for any other type."""
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[1].split("/")[0] == TRAINER_GROUP:
        return parts[2].removesuffix("Patch")
    return None


def _runtime(job: Any, resources: list) -> Any:
    """The (Cluster)TrainingRuntime resource a TrainJob's ``spec.runtimeRef`` names, None when the stack does not
    declare it, UNKNOWN when the reference is unknown (Trainer's default kind: ClusterTrainingRuntime)."""
    ref = read(job.props, "spec", "runtimeRef")
    kind, name = read(ref, "kind", default="ClusterTrainingRuntime"), read(ref, "name")
    ns = read(job.props, "metadata", "namespace", default="default")
    if UNKNOWN in (ref, kind, name):
        return UNKNOWN
    for r in resources:
        if trainer_kind(r.resource_type) == kind and read(r.props, "metadata", "name") == name and (
                kind == "ClusterTrainingRuntime" or read(r.props, "metadata", "namespace", default="default") == ns):
            return r
    return None


def trainjob_pool_problems(job: Any, home: str, pools: dict[str, set], declared: list[Pool], resources: list,
                           overrides: list, specs_of: Any) -> list[str]:
    """Why a TrainJob's pods — its runtime's templates (``specs_of``: the pack's pod-spec reader), each also with the
    placement fields (``nodeSelector``, ``affinity``, ``tolerations``) of every override the TrainJob carries
    (``overrides``: its own partial pod specs) — may land outside its tenant's pools. A runtime the stack does not
    declare may hold GPU pods anywhere: without the TrainJob's queue label that is refused."""
    runtime = _runtime(job, resources)
    if runtime is None or runtime is UNKNOWN:
        if queued(job.props):
            return [p for w, o in overrides for p in pool_problems(o, home, pools, declared, job.props, gpu=True)]
        what = "unknown during preview" if runtime is UNKNOWN else "not declared in this stack"
        return [f"is not queued through Kueue (label kueue.x-k8s.io/queue-name) and its runtime (spec.runtimeRef) is "
                f"{what}: its pods may take GPUs on any pool; label it with the tenant's LocalQueue"]
    found = []
    for where, spec in specs_of(runtime.resource_type, runtime.props):
        variants = [spec] + [{**spec, **{k: read(o, k) for k in _PLACEMENT if read(o, k) is not None}}
                             for _, o in overrides if spec is not UNKNOWN and hasattr(spec, "keys")]
        for v in variants:
            found += [f"runtime {runtime.name}{' ' + where if where else ''}: {p}"
                      for p in pool_problems(v, home, pools, declared, job.props)]
    return list(dict.fromkeys(found))
