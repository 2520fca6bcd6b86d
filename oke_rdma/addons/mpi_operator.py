"""MPI Operator (kubeflow/mpi-operator): ``MPIJob`` (``kubeflow.org/v2beta1``), a launcher running ``mpirun`` over
SSH into worker pods; Kueue admits an MPIJob as one workload (``kubeflow.org/mpijob``) in the tenant's LocalQueue.

Off by default. No Helm chart exists: the project publishes one release manifest per tag
(``deploy/v2beta1/mpi-operator.yaml``), vendored here unmodified (``manifests/mpi-operator-v<version>.yaml``, its
sha256 pinned in :data:`MANIFESTS`; a version without a vendored file is refused). oke-rdma applies its objects with
a ``yaml/v2:ConfigGroup`` (``objs``), changed as follows, each change explicit (:func:`objects` raises on any object
it does not expect, so a new manifest version is reviewed, never applied half-understood):

* The manifest's own ``Namespace`` (``mpi-operator``, no Pod Security labels) is dropped: the platform creates the
  operator's namespace (``platform.mpiOperator.namespace``) with its Pod Security labels like every add-on's.
* One controller per tenant namespace instead of one cluster-wide. Upstream the controller watches Secrets in every
  namespace (client-go informers on ConfigMaps, Secrets, Services, Jobs, Pods, MPIJobs; cmd/mpi-operator/app/
  server.go@v0.8.0) through a ClusterRole — a service account able to read every Secret of the cluster, which the
  security pack refuses (``kubernetes-rbac-no-escalation``). The controller's ``--namespace`` flag scopes it to one
  namespace (cmd/mpi-operator/app/options/options.go@v0.8.0), so each tenant namespace gets its own Deployment
  (``mpi-operator-<namespace>``, ``--namespace=<namespace>``, ``--lock-namespace=<namespace>``: its leader-election
  Lease lives there) and service account; the upstream ClusterRole's rules on namespaced resources become a Role
  ``mpi-operator`` in each tenant namespace, bound to that tenant's service account only, and its rules on
  cluster-scoped resources (PriorityClasses, Volcano Queues) stay in the ClusterRole; its rule on
  CustomResourceDefinitions (create, get) is dropped: the controller's code never touches CRDs (no Go file of cmd/
  or pkg/ at v0.8.0 names them), and creating CRDs is a cluster-wide escalation the security pack refuses.
  A stack without tenants gets the CRD and the ClusterRoles only (no controller: no namespace to run MPIJobs in).
* The user-facing ClusterRoles aggregate into Kubernetes' built-in ``edit``/``admin`` and ``view`` instead of
  Kubeflow Platform's roles, which oke-rdma does not install (:data:`_BUILT_IN_AGGREGATION`);
  ``kubeflow-mpijobs-admin`` is not applied.
* The controller's image names its registry host: the manifest's ``mpioperator/mpi-operator:<tag>`` is Docker Hub's
  by implication (distribution/reference ``normalize.go``), written as ``docker.io/mpioperator/mpi-operator:<tag>``
  — the same image — because the security pack refuses an image whose registry is implied
  (``container-image-pinned``).
* Everything else (the ``mpijobs.kubeflow.org`` CRD, the Deployment's pod template) is the manifest's.

Namespace Pod Security ``baseline``: the Deployment sets no security context (no non-root user, no seccomp profile),
and its image is ``gcr.io/distroless/base-debian12`` (root by default; Dockerfile@v0.8.0), so ``restricted`` would
reject the pod; it uses no host namespace, hostPath or added capability, which ``baseline`` allows.

Kueue: MPIJob support needs MPI Operator v0.8.0 or newer (Kueue docs "Run a MPIJob"). Kueue sets up an integration
whose CRD is missing later, polling for the API with a backoff (pkg/controller/jobframework/setup.go@v0.18.2,
``waitForAPI``); the kueue add-on waits for this one anyway, so the CRD exists when Kueue starts.

The MPIJob kind is also served by the old Kubeflow Training Operator (``kubeflow.org/v1`` MPIJob, with its own
controller; Kueue docs "Run a MPIJob": with both installed, the Training Operator's MPIJob controller must be
disabled). oke-rdma installs no Training Operator; Kubeflow Trainer v2 (``platform.trainer``) serves only the
``trainer.kubeflow.org`` kinds (TrainJob runs MPI itself through its runtimes), so both add-ons may be on together.

Sources: kubeflow/mpi-operator v0.8.0 (deploy/v2beta1/mpi-operator.yaml, cmd/mpi-operator/app/server.go and
options/options.go, Dockerfile); Kueue docs "Run a MPIJob" and kueue pkg/controller/jobframework/setup.go@v0.18.2;
Kubernetes docs "Pod Security Standards", "Using RBAC Authorization"; ``kubectl api-resources`` of Kubernetes v1.34
and the Volcano/scheduler-plugins CRDs for which resources are cluster-scoped — checked 2026-12-01.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from pydantic import Field

from oke_rdma.addons._registry import BASELINE, AddOn, ManifestRelease, ValuesContext
from oke_rdma import yamlsafe
from oke_rdma.schema import _key

#: Where vendored release manifests live (package data).
MANIFEST_DIR = Path(__file__).resolve().parent / "manifests"


@dataclass(frozen=True)
class VendoredManifest:
    """One release manifest vendored in :data:`MANIFEST_DIR`: ``file`` (its name there), the upstream ``url``, ``tag``
    and ``commit`` it was taken from, and the ``sha256`` of the vendored file (header comment included). ``image``:
    the exact controller image oke-rdma runs when the manifest names a moving tag (``mpioperator/mpi-operator:0.8``,
    re-pushed by every 0.8 patch release); None keeps the manifest's own."""

    file: str
    url: str
    tag: str
    commit: str
    sha256: str
    image: Optional[str] = None

    @property
    def path(self) -> Path:
        return MANIFEST_DIR / self.file


#: Release version → its vendored manifest. v0.8.2 (2026-07-03; kubeflow/mpi-operator#820: the launcher fixes #787,
#: #810, #819 and Kubernetes 1.35 libraries) is the latest release on 2026-12-01; v0.8.0 stays vendored so a stack
#: pinned to it previews its upgrade. v0.8.2's file is the release-0.8 branch at the commit preparing the release
#: (#826): the stored snapshot held no v0.8.2 tag object, and that commit's manifest differs from v0.8.0's only in
#: the controller image, which names the moving tag ``0.8``; oke-rdma runs the exact ``0.8.2`` tag instead (the
#: project's image workflow .github/workflows/mpi-operator-docker-image-publish.yml pushes ``{{version}}`` and
#: ``{{major}}.{{minor}}`` tags for every ``v*`` tag).
MANIFESTS: dict[str, VendoredManifest] = {
    "0.8.0": VendoredManifest(
        file="mpi-operator-v0.8.0.yaml",
        url="https://github.com/kubeflow/mpi-operator/blob/v0.8.0/deploy/v2beta1/mpi-operator.yaml",
        tag="v0.8.0", commit="101db144e019e1de65aaded07745e9d805c2852a",
        sha256="43ad4cf7027c24fcf58c3a5649864b94c1afb7dedcd8a6e4007af26dca6801c5"),
    "0.8.2": VendoredManifest(
        file="mpi-operator-v0.8.2.yaml",
        url="https://github.com/kubeflow/mpi-operator/blob/b10758da23ce5d9b9efa6f42f7b050dc8605f5f5/deploy/v2beta1/mpi-operator.yaml",
        tag="v0.8.2", commit="b10758da23ce5d9b9efa6f42f7b050dc8605f5f5",
        sha256="cbf8fa551b35d8d7b8d4891db9453e61e62930d901a721df8aae3e44e3abcc81",
        # renovate: datasource=docker depName=docker.io/mpioperator/mpi-operator
        image="mpioperator/mpi-operator:0.8.2"),
}

#: The Kueue integrations this add-on's kinds need (Kueue's ``integrations.frameworks`` names).
KUEUE_FRAMEWORKS = ("kubeflow.org/mpijob",)
#: The label telling the per-namespace controllers apart (their Deployments' selectors).
SCOPE_LABEL = "okerdma.io/mpi-operator-scope"
#: The manifest's controller names: its Namespace, ServiceAccount, ClusterRole(Binding) and Deployment.
UPSTREAM_NAME = "mpi-operator"
#: (API group, resource) of the rules in the controller's ClusterRole that are cluster-scoped; every other resource
#: of its rules must be in :data:`NAMESPACED_RESOURCES` (else :func:`objects` refuses the manifest). Sources:
#: ``kubectl api-resources`` (Kubernetes v1.34: customresourcedefinitions, priorityclasses cluster-scoped; configmaps,
#: secrets, services, pods, endpoints, events, jobs, leases namespaced), the mpijobs CRD (``scope: Namespaced``),
#: Volcano's Queue (cluster-scoped) and PodGroup (namespaced) CRDs and scheduler-plugins' PodGroup (namespaced) —
#: checked 2026-12-01.
CLUSTER_RESOURCES = frozenset({("apiextensions.k8s.io", "customresourcedefinitions"),
                               ("scheduling.k8s.io", "priorityclasses"),
                               ("scheduling.incubator.k8s.io", "queues"), ("scheduling.sigs.dev", "queues"),
                               ("scheduling.volcano.sh", "queues")})
NAMESPACED_RESOURCES = frozenset({"configmaps", "secrets", "services", "pods", "pods/exec", "endpoints", "events",
                                  "jobs", "mpijobs", "mpijobs/finalizers", "mpijobs/status", "leases", "podgroups"})
_USER_ROLES = ("kubeflow-mpijobs-admin", "kubeflow-mpijobs-edit", "kubeflow-mpijobs-view")


class MpiOperatorRelease(ManifestRelease):
    """MPI Operator, default 0.8.2 (a vendored release manifest) in ``mpi-operator``; off unless enabled."""

    enabled: bool = Field(False, description="Install the MPI Operator (off by default).")
    # renovate: datasource=github-releases depName=kubeflow/mpi-operator extractVersion=^v(?<version>.+)$
    version: str = Field("0.8.2", description=(
        "MPI Operator release; a manifest of that version must be vendored in oke_rdma/addons/manifests/."))
    namespace: str = Field("mpi-operator", description="Namespace of the MPI Operator's controllers.")


class ManifestError(ValueError):
    """The vendored manifest changed (checksum) or holds an object :func:`objects` does not know how to scope."""


@lru_cache(maxsize=None)
def _parsed(version: str) -> tuple[dict[str, Any], ...]:
    vendored = MANIFESTS[version]
    data = vendored.path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != vendored.sha256:
        raise ManifestError(f"{vendored.path}: sha256 {digest} is not the pinned {vendored.sha256}; the vendored "
                            f"manifest was edited: restore it from {vendored.url} or vendor a new version")
    return tuple(d for d in yamlsafe.load_all(data) if d)


def upstream_objects(version: str) -> list[dict[str, Any]]:
    """The objects of the vendored manifest of ``version``, as released (deep copies).

    :raises KeyError: no manifest of ``version`` is vendored. :raises ManifestError: its checksum does not match."""
    return copy.deepcopy(list(_parsed(version)))


def _split_rule(rule: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A ClusterRole rule → (its part on cluster-scoped resources, its part on namespaced ones)."""
    groups, resources = rule.get("apiGroups") or [""], rule.get("resources") or []
    cluster, namespaced = [], []
    for resource in resources:
        if all((g, resource) in CLUSTER_RESOURCES for g in groups):
            cluster.append(resource)
        elif resource in NAMESPACED_RESOURCES and not any((g, resource) in CLUSTER_RESOURCES for g in groups):
            namespaced.append(resource)
        else:
            raise ManifestError(f"the controller's ClusterRole grants {resource!r} in {groups}, not known as "
                                f"cluster-scoped or namespaced; review the manifest and CLUSTER_RESOURCES")
    if rule.get("nonResourceURLs") or rule.get("resourceNames"):
        raise ManifestError(f"the controller's ClusterRole has a rule {rule} with nonResourceURLs or resourceNames; "
                            f"review the manifest")
    part = lambda rs: {**rule, "resources": rs} if rs else None  # noqa: E731
    return part(cluster), part(namespaced)


#: The upstream user-facing roles aggregate into Kubeflow Platform's ``kubeflow-{admin,edit,view}`` (labels
#: ``rbac.authorization.kubeflow.org/aggregate-to-kubeflow-*``), which oke-rdma does not install. Relabelled to
#: aggregate into Kubernetes' built-in roles instead, as operators' CRD roles do (Kubernetes docs "Using RBAC
#: Authorization", "Default roles and role bindings": ``rbac.authorization.k8s.io/aggregate-to-<role>``), so a
#: tenant user holding ``edit`` or ``admin`` in the tenant's namespace may submit MPIJobs there:
#: ``kubeflow-mpijobs-edit`` → edit and admin, ``kubeflow-mpijobs-view`` → view. ``kubeflow-mpijobs-admin`` (it only
#: aggregates ``-edit`` for Kubeflow's admin) is not applied: bound by nothing, it would be a role granting MPIJob
#: creation to whoever binds it cluster-wide.
_BUILT_IN_AGGREGATION = {"kubeflow-mpijobs-edit": ("edit", "admin"), "kubeflow-mpijobs-view": ("view",)}


def _user_role(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """An upstream user-facing ClusterRole as applied here (see :data:`_BUILT_IN_AGGREGATION`)."""
    name = obj["metadata"]["name"]
    if name not in _BUILT_IN_AGGREGATION:
        return []
    if obj.get("aggregationRule"):
        raise ManifestError(f"ClusterRole {name} now aggregates other roles; review the manifest")
    labels = {k: v for k, v in (obj["metadata"].get("labels") or {}).items()
              if not k.startswith("rbac.authorization.kubeflow.org/")}
    labels.update({f"rbac.authorization.k8s.io/aggregate-to-{role}": "true" for role in _BUILT_IN_AGGREGATION[name]})
    return [{**obj, "metadata": {**obj["metadata"], "labels": labels}}]


def controller_name(namespace: str) -> str:
    """The Deployment and service account of the controller watching tenant ``namespace``."""
    return f"{UPSTREAM_NAME}-{namespace}"


def docker_hub_explicit(image: str) -> str:
    """``image`` with Docker Hub written out when its registry is implied: ``mpioperator/mpi-operator:<tag>`` →
    ``docker.io/mpioperator/mpi-operator:<tag>``, ``busybox`` → ``docker.io/library/busybox``; a reference whose first
    component is a host (it has a ``.`` or ``:``, or is ``localhost``) is returned as it is (distribution/reference
    ``normalize.go``, checked 2026-12-01)."""
    first, slash, _ = image.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return image
    return f"docker.io/{image}" if slash else f"docker.io/library/{image}"


def objects(cfg: MpiOperatorRelease, context: ValuesContext) -> list[dict[str, Any]]:
    """The objects applied for ``cfg`` (see the module docstring): the manifest without its Namespace, one controller
    per tenant namespace of ``context``, all namespaced objects in ``cfg.namespace``.

    :raises ManifestError: the manifest is not the pinned one, or holds an object or rule not handled here.
    """
    ns, tenants = cfg.namespace, context.tenant_namespaces
    by_kind: dict[tuple[str, str], dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for obj in upstream_objects(cfg.version):
        kind, name = obj.get("kind"), (obj.get("metadata") or {}).get("name")
        if (kind, name) in by_kind:
            raise ManifestError(f"the manifest declares {kind} {name} twice")
        by_kind[(kind, name)] = obj
        if kind == "CustomResourceDefinition":
            out.append(obj)
        elif kind == "ClusterRole" and name in _USER_ROLES:
            out += _user_role(obj)
        elif (kind, name) not in {(k, UPSTREAM_NAME) for k in ("Namespace", "ServiceAccount", "ClusterRole",
                                                                 "ClusterRoleBinding", "Deployment")}:
            raise ManifestError(f"the manifest holds {kind} {name}, which oke-rdma does not know how to install; "
                                f"review the manifest and oke_rdma/addons/mpi_operator.py")
    missing = [k for k in ("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment")
               if (k, UPSTREAM_NAME) not in by_kind]
    if missing:
        raise ManifestError(f"the manifest has no {', '.join(missing)} named {UPSTREAM_NAME}; review it")
    role = by_kind[("ClusterRole", UPSTREAM_NAME)]
    cluster_rules, namespaced_rules = [], []
    for rule in role.get("rules") or []:
        c, n = _split_rule(rule)
        if c and c.get("apiGroups") == ["apiextensions.k8s.io"]:
            # Vestigial: no Go file of cmd/ or pkg/ at v0.8.0 names apiextensions or CustomResourceDefinition (git
            # grep, checked 2026-12-01); the CRD comes with these objects. Creating CRDs cluster-wide would let the
            # controller's account define conversion webhooks (the RBAC rule refuses it).
            c = None
        cluster_rules += [c] if c else []
        namespaced_rules += [n] if n else []
    out.append({**role, "rules": cluster_rules})
    account = by_kind[("ServiceAccount", UPSTREAM_NAME)]
    deployment = by_kind[("Deployment", UPSTREAM_NAME)]
    containers = deployment["spec"]["template"]["spec"].get("containers") or []
    if len(containers) != 1 or not any(str(a).startswith("--lock-namespace=") for a in containers[0].get("args", [])):
        raise ManifestError("the manifest's Deployment is not one container with a --lock-namespace argument; "
                            "review it")
    subjects = []
    for tenant_ns in tenants:
        name = controller_name(tenant_ns)
        sa = copy.deepcopy(account)
        sa["metadata"].update(name=name, namespace=ns)
        out.append(sa)
        subjects.append({"kind": "ServiceAccount", "name": name, "namespace": ns})
        meta = {"name": UPSTREAM_NAME, "namespace": tenant_ns, "labels": dict(role["metadata"].get("labels") or {})}
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta,
                    "rules": copy.deepcopy(namespaced_rules)})
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": copy.deepcopy(meta),
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": UPSTREAM_NAME},
                    "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}]})
        d = copy.deepcopy(deployment)
        d["metadata"].update(name=name, namespace=ns)
        for labels in (d["metadata"].setdefault("labels", {}), d["spec"]["selector"].setdefault("matchLabels", {}),
                       d["spec"]["template"]["metadata"].setdefault("labels", {})):
            labels[SCOPE_LABEL] = tenant_ns
        pod = d["spec"]["template"]["spec"]
        pod["serviceAccountName"] = name
        (container,) = pod["containers"]
        pinned = MANIFESTS[cfg.version].image
        if pinned:
            if str(container.get("image", "")).rsplit(":", 1)[0] != pinned.rsplit(":", 1)[0]:
                raise ManifestError(f"the manifest's controller image {container.get('image')!r} is not of "
                                    f"{pinned.rsplit(':', 1)[0]}; review MANIFESTS[{cfg.version!r}].image")
            container["image"] = pinned
        args = [a for a in container.get("args", []) if not str(a).startswith(("--lock-namespace=", "--namespace="))]
        container["args"] = [*args, f"--namespace={tenant_ns}", f"--lock-namespace={tenant_ns}"]
        container["image"] = docker_hub_explicit(container["image"])
        out.append(d)
    if subjects:
        binding = copy.deepcopy(by_kind[("ClusterRoleBinding", UPSTREAM_NAME)])
        binding["subjects"] = subjects
        out.append(binding)
    return out


def checks(cfg: MpiOperatorRelease, at: tuple[str, ...]) -> list[str]:
    """The version must name a vendored manifest."""
    if cfg.version not in MANIFESTS:
        return [f"{_key(at + ('version',))}: no MPI Operator manifest of version {cfg.version!r} is vendored (have "
                f"{', '.join(sorted(MANIFESTS))}); use one of those, or vendor deploy/v2beta1/mpi-operator.yaml of "
                f"that tag into oke_rdma/addons/manifests/ and pin its sha256 in MANIFESTS"]
    return []


ADDON = AddOn(
    key="mpiOperator",
    release_name="mpi-operator",
    chart="",
    repository=None,
    config=MpiOperatorRelease,
    pod_security=BASELINE,
    values=lambda cfg, context: {},
    manifest=objects,
    crds=("kubeflow.org",),
    checks=checks,
    kueue_frameworks=KUEUE_FRAMEWORKS,
    # Each tenant's controller (labelled with its namespace) is applied with that namespace's Role, after the
    # namespaces, so the tenant namespaces can wait for Kueue, which waits for the MPIJob CRD.
    tenant_scope=lambda obj: ((obj.get("metadata") or {}).get("labels") or {}).get(SCOPE_LABEL),
    source="kubeflow/mpi-operator v0.8.2 release manifest (v0.8.0 source for the controller's flags); Kueue docs Run a MPIJob; kueue "
           "jobframework/setup.go@v0.18.2; checked 2026-12-01",
)
