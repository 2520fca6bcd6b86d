"""What each configuration change costs, derived by the preview's own replacement model: ``python -m
offline.changecost --write`` (``make docs``).

For every key of the config reference (:func:`oke_rdma.config.reference.iter_rows`) and a few structural changes
(a new tenant, a new node pool, a pool removed), a :class:`Case` changes one value of a base stack (the dev stack,
or the dev stack with a Lustre file system for ``storage.lustre.*``), runs the program under the offline mocks
against the base's steady plan (:func:`baseline`: the plan of a run that was itself compared with a first plan, so
the second-apply updates of a fresh stack — the mount target's throughput upgrade — are not counted) and sorts the
planned changes (:func:`outcome`) into

* ``none``: the program declares the same resources with the same inputs;
* ``in place``: updates, creations and deletions of stateless resources only;
* ``replaces``: something is replaced, or a resource holding data is deleted — the summary names what (the cluster,
  node pools, file systems, ...) and what is lost (:data:`offline.immutable.STATEFUL`);
* ``manual``: in place, but the update does not land without a manual step (:mod:`offline.stuck_updates`: an
  operator-owned StatefulSet's claims keep their size); the summary names the step;
* ``refused``: ``pulumi up`` would fail (a change the service refuses in place, a protected resource destroyed);
* ``invalid``: no value was found that the config model accepts with the base's other keys (the key needs others
  set with it, e.g. ``network.existing.*``): nothing is derived, the reference says so.

The value each case sets is chosen by :func:`candidates` (the other enum member, the flipped boolean, a larger
number, another OCID of the same kind, ...): the first one the config model accepts is previewed. Results go to
:data:`RESULTS` (JSON, one entry per case with the value, the base and a digest of both); ``--write`` previews only
cases whose digest changed or that have no entry (``--refresh``: all), saving after each one, so an interrupted run
resumes. ``tests/offline/test_change_cost.py`` keeps it honest: every key has an entry, and a sample of cases is
previewed again and must give the stored result. The docs render from :data:`RESULTS` (``oke_rdma.docs``).
"""

from __future__ import annotations

import argparse
import copy
import functools
import hashlib
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

import yaml

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "offline" / "change_cost.json"
NS = "oke-rdma"
#: Map keys the cases change (the dev stack's): a pool, a tenant, a tenant's service account.
MAP_NAMES = {"<pool>": "gpu", "<tenant>": "analytics", "<serviceAccount>": "gpu-metrics"}
#: The Lustre section of the ``lustre`` base (the dev stack with a file system for research).
LUSTRE = {"capacityGb": 31200, "tenants": ["research"]}
#: Values a case sets where none can be derived from the current one (an unset key): the first the model accepts.
HINTS: dict[str, list[Any]] = {
    "kmsKeyId": ["ocid1.key.oc1.sa-saopaulo-1.bbpr4kqzaafaq.abzxiljr9q1s3u5w7y2a4c6e8g1i3k5m7o9q2s4u6w8y1chgkey"],
    "existingId": ["ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cc"],
    "tenancyId": ["ocid1.tenancy.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4c6v8tenancy"],
    "vaultCompartmentId": ["ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cvault"],
    "imageVerificationKeyIds": [["ocid1.key.oc1.sa-saopaulo-1.bbpr4kqzaafaq.abzxiljr9q1s3u5w7y2a4c6e8g1i3k5m7oimgkey"]],
    "availabilityDomain": ["bxtG:SA-SAOPAULO-1-AD-1"],
    "availabilityDomains": [["bxtG:SA-SAOPAULO-1-AD-1"]],
    "faultDomains": [["FAULT-DOMAIN-1", "FAULT-DOMAIN-2"]],
    "subPath": ["team-x"],
    "namespace": ["changed-ns"],
    "retention": ["30d"],
    "graceDuration": ["PT30M"],
    "maxSurge": ["2"], "maxUnavailable": ["1"],
    "pricePerGpuHour": [2.5], "currency": ["EUR"], "poolPrices": [{"gpu": 9.5}],
    "tenants": [["research", "analytics"]],
    "pools": [["gpu"]],
    "topologyLevels": [["oci.oraclecloud.com/rdma.local_block_id", "kubernetes.io/hostname"]],
    "storageClass": ["oci-bv-encrypted"],
    "grafanaAdminPassword": [],  # a secret: offline previews cannot see a change inside it
    "throughputGbps": [20], "shape": ["BM.GPU.H200.8"],
    "allow": [["read metrics in compartment id ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i"
               "5o7a2dfev where target.metrics.namespace = 'oci_computeagent'",
               "read buckets in compartment id ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i"
               "5o7a2dfev"]],
    "profile": ["1g.10gb"], "mode": ["timeSlicing"], "replicas": [4],
    # network.subnets.*: a CIDR other than the default plan's (10.0.0.0/28, 10.0.16.0/20, 10.0.128.0/17, 10.0.1.0/24,
    # 10.0.3.0/24 in the dev VCN) that overlaps none of the others
    "controlPlane": ["10.0.0.16/28"], "workers": ["10.0.32.0/20"], "pods": ["10.0.64.0/18"],
    "internalLoadBalancers": ["10.0.2.0/24"], "publicLoadBalancers": ["10.0.4.0/24"], "storage": ["10.0.5.0/24"],
}
#: Keys changed on another map member than :data:`MAP_NAMES` names (Flex sizing exists on the CPU pool only).
KEY_MEMBERS = {"nodePools.<pool>.ocpus": {"<pool>": "system"}, "nodePools.<pool>.memoryGb": {"<pool>": "system"}}


@dataclass(frozen=True)
class Case:
    """One change: ``key`` (the reference's path, ``nodePools.<pool>.size``), the ``base`` stack it changes (``dev``
    or ``lustre``), a ``label`` for structural changes (else None) and ``edit`` (the YAML ``config:`` map → None)
    applying ``value``."""

    key: str
    base: str
    value: Any
    edit: Callable[[dict], None]
    label: Optional[str] = None

    @property
    def id(self) -> str:
        return self.label or self.key

    def digest(self) -> str:
        text = json.dumps([self.key, self.base, self.value, self.label], sort_keys=True, default=str)
        return hashlib.sha256((text + base_text(self.base)).encode()).hexdigest()[:16]


def base_doc(base: str) -> dict:
    """The ``config:`` map of a base stack as YAML reads it (a fresh copy: callers edit it)."""
    return json.loads(base_text(base))


@functools.lru_cache(maxsize=None)
def _base_text(base: str, stack_file: str) -> str:
    doc = yaml.safe_load(stack_file)["config"]
    if base == "lustre":
        doc.setdefault(f"{NS}:storage", {})["lustre"] = copy.deepcopy(LUSTRE)
    return json.dumps(doc, sort_keys=True)


def base_text(base: str) -> str:
    """The base stack's config as canonical JSON (read from Pulumi.dev.yaml each time, parsed once per content)."""
    return _base_text(base, (ROOT / "Pulumi.dev.yaml").read_text())


def _parts(key: str) -> tuple[str, list[str]]:
    """``nodePools.<pool>.size`` → (``oke-rdma:nodePools``, ``["gpu", "size"]``); ``oci:region`` → itself."""
    if key == "oci:region":
        return key, []
    head, *rest = key.split(".")
    names = {**MAP_NAMES, **KEY_MEMBERS.get(key, {})}
    return f"{NS}:{head}", [names.get(p, p) for p in rest]


def _get(doc: dict, key: str) -> Any:
    top, path = _parts(key)
    node: Any = doc.get(top)
    for p in path:
        node = node.get(p) if isinstance(node, dict) else None
    return node


def _setter(key: str, value: Any) -> Callable[[dict], None]:
    top, path = _parts(key)

    def edit(doc: dict) -> None:
        if not path:
            doc[top] = value
            return
        node = doc.setdefault(top, {})
        for p in path[:-1]:
            node = node.setdefault(p, {}) if isinstance(node.get(p), dict) or p not in node else node[p]
        node[path[-1]] = value
    return edit


def _mutate(text: str) -> list[Any]:
    """Other strings of the same kind as ``text``."""
    if text.startswith("ocid1."):
        return [text[:-4] + "wxyz"]
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)\.(\d+)/(\d+)", text)
    if m:
        a, b, c, d, n = map(int, m.groups())
        return [f"{a}.{b}.{c + 128 if c < 128 else c - 128}.{d}/{n}", f"{a}.{(b + 1) % 256}.{c}.{d}/{n}",
                f"{a}.{b}.{c}.{d}/{n - 1}", f"{a}.{b}.{c}.{d}/{n + 1}"]
    m = re.fullmatch(r"(\d+)(Mi|Gi|Ti|Pi)", text)
    if m:
        return [f"{int(m[1]) * 2}{m[2]}"]
    m = re.fullmatch(r"(\d+)([smhdwy])", text)
    if m:
        return [f"{int(m[1]) * 2}{m[2]}"]
    m = re.fullmatch(r"(v?)(\d+)\.(\d+)\.(\d+)", text)
    if m:
        return [f"{m[1]}{m[2]}.{m[3]}.{int(m[4]) + 1}", f"{m[1]}{m[2]}.{int(m[3]) + 1}.0"]
    if text.startswith("/"):
        return [text + "2"]
    return [text + "2", text + "-b"]


def candidates(row, current: Any) -> list[Any]:
    """Values to try for a reference row whose value in the base is ``current`` (None: unset, the default)."""
    leaf = row.path.rsplit(".", 1)[-1]
    typ = row.type
    if typ.startswith("map") and "any YAML" in typ:
        return [{**(current or {}), "okerdmaChangeCost": True}]
    if typ.startswith("map of name → string"):
        return [{**(current or {}), "okerdma.io/change-cost" if "labels" in leaf else "change-cost": "x"}]
    if typ.startswith("map of name → number"):
        return HINTS.get(leaf, [])
    if typ.startswith("map"):
        return []  # a section: its keys have their own rows
    if current is None and row.default not in ("—", "**required**"):
        try:
            current = yaml.safe_load(row.default.strip("`"))
        except yaml.YAMLError:
            current = None
    out: list[Any] = []
    if typ.startswith("boolean"):
        out = [not current] if isinstance(current, bool) else [True, False]
    elif typ.startswith("one of"):
        out = [v for v in re.findall(r"`([^`]+)`", typ) if v != current]
    elif typ.startswith(("integer", "number")):
        if isinstance(current, (int, float)) and not isinstance(current, bool):
            out = [current + 1, current * 2, current - 1, current + 10400]
        else:
            out = [1, 2, 8, 100]
    elif typ.startswith("list"):
        if isinstance(current, list) and current and all(isinstance(v, str) for v in current):
            out = [current + [m] for m in _mutate(current[-1])] + [current[:-1]]
    elif typ.startswith("string") and "secret" not in typ and isinstance(current, str):
        out = _mutate(current)
    if leaf == "kubernetesVersion":
        return upgrade_one_minor(current if isinstance(current, str) else None)
    return [v for v in HINTS.get(leaf, []) if v != current] + out


def upgrade_one_minor(current: Optional[str]) -> list[str]:
    """The change a Kubernetes version key sees in real life: an upgrade by one minor version, to the newest patch
    OKE offers of it (:func:`oke_rdma.facts.kubernetes.offered_versions`); a downgrade is never a day-two change
    (OKE refuses it). Empty when ``current`` is unknown or no newer minor is offered."""
    from oke_rdma.facts.kubernetes import offered_versions, parse_version

    now = parse_version(current) if current else None
    if now is None:
        return []
    nxt = [v for v in offered_versions() if (parse_version(v) or (0, 0, 0))[:2] == (now[0], now[1] + 1)]
    return sorted(nxt, key=lambda v: parse_version(v) or (0, 0, 0))[-1:]


def _structural() -> Iterator[Case]:
    def new_tenant(doc: dict) -> None:
        doc[f"{NS}:tenants"]["newteam"] = {"rdma": False, "quota": {"gpu": 2, "cpu": 20, "memoryGb": 100}}

    def new_pool(doc: dict) -> None:
        pools = doc[f"{NS}:nodePools"]
        pools["cpu2"] = {**copy.deepcopy(pools["system"]), "labels": {"okerdma.io/role": "batch"}, "size": 1}

    def drop_tenant(doc: dict) -> None:
        del doc[f"{NS}:tenants"]["analytics"]

    yield Case("tenants", "dev", "newteam", new_tenant, "a new tenant")
    yield Case("tenants", "dev", "-analytics", drop_tenant, "a tenant removed")
    yield Case("nodePools", "dev", "cpu2", new_pool, "a new node pool")


def cases() -> list[Case]:
    """Every case: one per reference key a value can be found for, then the structural ones. Keys with no candidate
    get a case with value None (recorded as ``invalid``)."""
    from oke_rdma.config.reference import iter_rows

    out: list[Case] = []
    for row in iter_rows():
        if row.type.startswith("map") and not ("any YAML" in row.type or "→ string" in row.type
                                               or "→ number" in row.type):
            continue
        base = "lustre" if row.path.startswith("storage.lustre") else "dev"
        current = _get(base_doc(base), row.path)
        if current is None and row.path.endswith(".kubernetesVersion"):  # a pool runs the cluster's by default
            current = _get(base_doc(base), "cluster.kubernetesVersion")
        options = candidates(row, current)
        out.append(Case(row.path, base, options, _setter(row.path, None)))
    first = {key: i for i, key in enumerate(EVERYDAY)}
    return sorted(list(_structural()) + out, key=lambda c: first.get(c.id, len(first)))


#: The changes users make every week (docs/operations.md's day-two table lists them first): previewed first.
EVERYDAY = ("nodePools.<pool>.size", "nodePools.<pool>.imageId", "tenants.<tenant>.quota.gpu", "a new tenant",
            "a new node pool", "a tenant removed", "platform.kubePrometheusStack.retention",
            "platform.kubePrometheusStack.retentionSizeGb", "platform.kubePrometheusStack.storageGb",
            "platform.kueue.values", "platform.gpuOperator.values", "platform.keda.version",
            "tenants.<tenant>.sharedStorage.capacity", "storage.lustre.capacityGb", "network.apiEndpoint.public",
            "network.apiEndpoint.allowedCidrs", "cluster.kubernetesVersion", "nodePools.<pool>.kubernetesVersion",
            "nodePools.<pool>.labels", "nodePools.<pool>.shape", "storage.fss.throughputGbps",
            "tenants.<tenant>.quota.cpu", "tenants.<tenant>.serviceAccounts.<serviceAccount>.allow",
            "cluster.kmsKeyId", "cluster.cniType", "freeformTags")
#: What kind of change a listed key is, where it is not an everyday change (docs/operations.md's "change" column):
#: a Kubernetes upgrade (one minor at a time, docs/operations.md "Kubernetes minor upgrade"), or a choice made when
#: the stack is created (changing it later replaces the cluster or is refused).
UPGRADE, CREATION = "an upgrade (one minor)", "a creation-time choice"
CATEGORIES: dict[str, str] = {"cluster.kubernetesVersion": UPGRADE, "nodePools.<pool>.kubernetesVersion": UPGRADE,
                              "cluster.kmsKeyId": CREATION, "cluster.cniType": CREATION,
                              "network.apiEndpoint.public": CREATION}


def baseline(base: str, run) -> dict:
    """The steady plan of ``base``: a first plan, then the plan of a run compared with it."""
    first = run(base_doc(base), None)
    return run(base_doc(base), first)


def outcome(changes: Iterable) -> dict[str, Any]:
    """``{kind, summary, changes}`` of a run's planned changes (see the module docstring): ``changes`` holds each
    changed resource as ``[op, type, name, refused reasons, protected]`` so the summary can be rendered again
    (:func:`summarize`) without previewing again."""
    from offline.replacement import protected_destroyed

    changed = [c for c in changes if c.op != "same"]
    blocked = {c.urn for c in protected_destroyed(changed)}
    detail = sorted([c.op, c.type, c.name, [r.split(":")[0] for r in c.refused], c.urn in blocked,
                     [m.split(":")[0] for m in getattr(c, "manual", ())]] for c in changed)
    return {**summarize(detail), "changes": detail}


#: Kubernetes kinds whose replacement loses nothing: a one-off Job runs again (its pod template is immutable, so a
#: new image or script is a new Job), a ConfigMap holding a script is written again, a StorageClass (its parameters
#: are immutable) is created again and applies to claims made afterwards, volumes it provisioned are untouched.
RERUN_KINDS = ("kubernetes:batch/v1:Job", "kubernetes:core/v1:ConfigMap", "kubernetes:storage.k8s.io/v1:StorageClass")


def summarize(detail: list) -> dict[str, str]:
    """``{kind, summary}`` from stored change details ``[op, type, name, refused, protected, manual]`` (``manual``:
    the paths of an update that needs a manual step to land, :mod:`offline.stuck_updates`; older entries lack it)."""
    from offline.immutable import STATEFUL
    from offline.stuck_updates import STUCK_UPDATES

    counts: dict[str, int] = {}
    for op, *_ in detail:
        counts[op] = counts.get(op, 0) + 1
    steps = {p: row.step for row in STUCK_UPDATES for p in row.paths}  # how an update that never lands is done
    refused = _refusals([_refusal(op, t, name, r, steps) for op, t, name, reasons, *_ in detail for r in reasons])
    refused += [f"{name} is protected (pulumi up stops before destroying it)"
                for _, _, name, _, protected, *_ in detail if protected]
    manual = [(t, name, path) for _, t, name, _, _, *rest in detail for path in (rest[0] if rest else [])]
    replaced = [(t, n) for op, t, n, *_ in detail if op == "replace"]
    deleted = [(t, n) for op, t, n, *_ in detail if op == "delete" and t in STATEFUL]
    costly = [(t, n) for t, n in replaced if not t.startswith(RERUN_KINDS)]
    reruns = [(t, n) for t, n in replaced if t.startswith(RERUN_KINDS)]
    text = ""
    if costly or deleted:
        parts = ([f"replaces {_names(costly)}"] if costly else []) + ([f"deletes {_names(deleted)}"]
                                                                      if deleted else [])
        lost = sorted({STATEFUL[t].split(":")[0] for t, _ in costly + deleted if t in STATEFUL
                       and not t.startswith("pulumi:")})
        text = "; ".join(parts) + (f"; loses {', '.join(lost[:4])}" if lost else "")
        if reruns:
            text += f"; re-creates {_names(reruns)}"
    if refused:  # what the change would destroy first, then why pulumi up stops on it
        more = f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""
        reason = "refused: " + "; ".join(refused[:3]) + more
        return {"kind": "refused", "summary": f"{text}; {reason}" if text else reason}
    if text:
        return {"kind": "replaces", "summary": text}
    if not detail:
        return {"kind": "none", "summary": "no resource changes"}
    shown = ", ".join(f"{n} {op}{'d' if op.endswith('e') else 'ed'}" for op, n in sorted(counts.items())
                      if op != "replace")
    text = "in place" + (f" ({shown})" if shown else "")
    if reruns:
        text += f"; re-creates {_names(reruns)} (nothing is lost)"
    if manual:
        text += "; does not land without a manual step: " + "; ".join(
            f"{name} {path}: {steps.get(path, 'see the preview with --previous')}" for _, name, path in manual[:2])
        return {"kind": "manual", "summary": text}
    return {"kind": "in place", "summary": text}


#: How a unique name's scope (:data:`offline.immutable.UNIQUE_NAMES`) reads in a summary.
_SCOPES = {"vcnId": "its VCN", "subnetId": "its subnet", "namespace": "its Object Storage namespace"}


def _refusal(op: str, typ: str, name: str, path: str, steps: dict[str, str]) -> tuple[str, str]:
    """Why ``pulumi up`` stops on one change, in a few words, as ``(why, name)`` (the same ``why`` for several
    resources is said once, :func:`_refusals`): a replacement that keeps a name OCI requires to be unique
    (:data:`offline.immutable.UNIQUE_NAMES`: the new one is created while the old one holds it), a Helm release
    replaced (Helm refuses to adopt the old release's objects), or an update refused behind the provider (the path,
    and the step that makes it land, :mod:`offline.stuck_updates`)."""
    from offline.immutable import HELM_RELEASE, UNIQUE_NAMES

    field, scope = UNIQUE_NAMES.get(typ, ("", ()))
    if op == "replace" and path == field:
        where = " and ".join(_SCOPES.get(s, f"its {s}") for s in scope) or "the tenancy"
        return (f"the replacement keeps its {field}, which OCI requires unique in {where}: the new one is created "
                "while the old one still holds it and OCI refuses the duplicate"), name
    if op == "replace" and typ == HELM_RELEASE:
        return (f"a Helm release replaced ({path}): the new release cannot adopt the old one's cluster-scoped objects "
                "(disable the add-on first, then enable it again)"), name
    if path in steps:
        return f"{path} ({steps[path]})", name
    if typ.startswith("kubernetes:"):
        return f"{path} (the API server refuses to change it in place)", name
    return path, name


def _refusals(found: list[tuple[str, str]]) -> list[str]:
    """``name: why`` per distinct reason, the names of the resources sharing it listed together."""
    names: dict[str, list[str]] = {}
    for why, name in found:
        names.setdefault(why, []).append(name)
    return [f"{', '.join(sorted(set(n)))}: {why}" for why, n in names.items()]


#: How :func:`outcome` names replaced resources, most important first.
_TYPE_NAMES = (("oci:ContainerEngine/cluster:Cluster", "the cluster"),
               ("oci:ContainerEngine/nodePool:NodePool", "node pool"),
               ("oci:Core/computeCluster:ComputeCluster", "the Compute Cluster"),
               ("oci:Core/vcn:Vcn", "the VCN"), ("oci:Core/subnet:Subnet", "subnet"),
               ("oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem", "the Lustre file system"),
               ("oci:FileStorage/fileSystem:FileSystem", "the FSS file system"),
               ("oci:FileStorage/mountTarget:MountTarget", "the mount target"),
               ("oci:ObjectStorage/bucket:Bucket", "bucket"), ("kubernetes:core/v1:Namespace", "namespace"))


def _names(gone: list) -> str:
    """What ``gone`` (``(type, name)`` pairs) is, most important first: "the cluster, 2 node pools and 3 Kubernetes
    objects (2 Job, 1 ConfigMap)"."""
    parts = []
    seen: set[tuple[str, str]] = set()
    for typ, noun in _TYPE_NAMES:
        members = [c for c in gone if c[0] == typ]
        seen.update(members)
        if members:
            parts.append(noun if noun.startswith("the ") else f"{len(members)} {noun}" + ("s" if len(members) > 1
                                                                                          else ""))
    rest = [c for c in gone if c not in seen]
    kinds: dict[str, int] = {}
    for typ, _ in rest:
        if typ.startswith("kubernetes:"):
            kind = typ.rsplit(":", 1)[-1]
            kinds[kind] = kinds.get(kind, 0) + 1
    k8s = sum(kinds.values())
    other = len(rest) - k8s
    if k8s:
        listed = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
        more = ", ..." if len(kinds) > 3 else ""
        parts.append(f"{k8s} Kubernetes object" + ("s" if k8s > 1 else "") + f" ({listed}{more})")
    if other:
        parts.append(f"{other} other resource" + ("s" if other > 1 else ""))
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def raw_config(config: dict) -> tuple[dict[str, str], list[str]]:
    """A ``config:`` map as the Pulumi CLI hands it to the program (read back from a stack file)."""
    from offline.stackfile import read_stack_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "Pulumi.dev.yaml"
        path.write_text(yaml.safe_dump({"config": config}))
        return read_stack_file(path)


def runner() -> Callable[..., Any]:
    """``run(config_map, previous, plan=True)``: the program under mocks (no policy packs: they never change what is
    replaced) against ``previous`` (a plan, or None); returns the run's plan with ``plan``, else its changes. A
    config the model refuses raises ``ConfigError``."""
    from offline.engine import run_program
    from offline.plan import to_json

    class _NoReport:
        violations: list = []

    def run(config: dict, previous: Optional[dict], plan: bool = True):
        raw, secret = raw_config(config)
        result = run_program(raw, secret, "dev", previous=previous)
        if result.errors:
            raise RuntimeError("; ".join(result.errors))
        return to_json("dev", result, _NoReport(), result.changes) if plan else result.changes
    return run


def evaluate(case: Case, plans: dict[str, dict], run) -> dict[str, Any]:
    """Preview ``case`` against its base's steady plan: the first candidate value the model accepts."""
    from oke_rdma.config import ConfigError, load_stack_config

    problems: list[str] = []
    for value in case.value if case.label is None else [case.value]:
        doc = base_doc(case.base)
        (case.edit if case.label else _setter(case.key, value))(doc)
        try:
            load_stack_config(*raw_config(doc))  # the model's answer first: no program run for a refused value
            changes = run(doc, plans[case.base], plan=False)
        except ConfigError as e:
            problems = e.problems
            continue
        return {"value": value, **outcome(changes)}
    why = problems[0] if problems else "no other value to try (a secret, or a section)"
    return {"value": None, "kind": "invalid", "summary": f"not derived: {why}"[:300], "counts": {}}


def load() -> dict[str, Any]:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {"entries": {}}


def save(doc: dict[str, Any]) -> None:
    doc["everyday"] = list(EVERYDAY)
    doc["categories"] = dict(CATEGORIES)
    RESULTS.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def write(refresh: bool = False, only: Iterable[str] = (), log=print) -> int:
    """Preview every case whose entry is missing or stale (all with ``refresh``; just ``only`` when given)."""
    doc = load()
    entries = doc.setdefault("entries", {})
    todo = [c for c in cases() if (not only or c.id in only)
            and (refresh or only or entries.get(c.id, {}).get("digest") != c.digest()
                 or ("changes" not in entries[c.id] and entries[c.id]["kind"] != "invalid"))]
    known = {c.id for c in cases()}
    for stale in [k for k in entries if k not in known]:
        del entries[stale]
    for entry in entries.values():  # the wording follows summarize(), without previewing again
        if "changes" in entry:
            entry.update(summarize(entry["changes"]))
    if not todo:
        save(doc)
        return 0
    run = runner()
    plans: dict[str, dict] = {}
    for i, case in enumerate(todo, 1):
        if case.base not in plans:
            plans[case.base] = baseline(case.base, run)
        result = evaluate(case, plans, run)
        entries[case.id] = {"key": case.key, "base": case.base, "label": case.label, "digest": case.digest(),
                            **result}
        save(doc)
        log(f"[{i}/{len(todo)}] {case.id}: {result['summary']}")
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline.changecost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="preview the missing and stale cases, save results")
    parser.add_argument("--refresh", action="store_true", help="with --write: preview every case again")
    parser.add_argument("--only", nargs="*", default=(), help="with --write: just these keys (or labels)")
    args = parser.parse_args(argv)
    if not args.write:
        parser.error("nothing to do: pass --write")
    return write(args.refresh, args.only)


if __name__ == "__main__":
    sys.exit(main())
