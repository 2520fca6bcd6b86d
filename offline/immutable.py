"""What cannot change in place, per resource type: the tables the offline plan decides replacements with.

Paths use Pulumi's property path syntax on the engine's camelCase inputs: ``a.b``, ``a[0].b``, ``a[*].b``.

* :data:`FORCE_NEW` — what OCI cannot change in place for the OCI types this program declares. Each entry is an
  input that pulumi_oci 5.5.0 documents *without* "(Updatable)" (its Args docstrings follow the OCI API's Update*
  models; ``tests/offline/test_replacement.py`` checks every entry against them). Entries the docstrings mark
  non-updatable but the OCI API does update (a cluster endpoint's ``nsgIds``, through
  ``UpdateClusterEndpointConfig``) are left out, so the preview never cries wolf.
* :data:`KUBERNETES_FORCE_NEW` — the fields pulumi-kubernetes itself replaces on (its ``forceNew`` table:
  ``provider/pkg/provider/diff.go``, pulumi-kubernetes v4.32.0-27-g9497796, checked 2026-11-30), plus
  ``metadata.name``/``metadata.namespace`` for every kind (``metadataForceNewProperties``). A replaced object with a
  fixed name is deleted before it is created again (``provider.go`` ``Diff``: ``deleteBeforeReplace`` when the
  object is named, not auto-named, and keeps its name and namespace).
* :data:`API_IMMUTABLE` — fields the Kubernetes API server (or a CRD's ``x-kubernetes-validations`` transition
  rule such as ``self == oldSelf``) refuses to change in place but pulumi-kubernetes does not know: ``pulumi
  preview`` shows a clean update and ``pulumi up`` fails on it. The offline preview refuses such a change unless the
  program declares the field in ``replaceOnChanges`` (then it is a replacement).
* :data:`STATEFUL` — resource types holding state or data a replacement or deletion destroys (``--fail-on-replace``).
"""

from __future__ import annotations

import re
from typing import Any, Optional

#: Resource type → input paths OCI cannot change in place (changing one replaces the resource).
FORCE_NEW: dict[str, tuple[str, ...]] = {
    "oci:ContainerEngine/nodePool:NodePool": (
        "clusterId", "compartmentId", "nodeConfigDetails.computeClusterId"),
    "oci:ContainerEngine/cluster:Cluster": (
        "compartmentId", "vcnId", "kmsKeyId", "clusterPodNetworkOptions[*].cniType", "endpointConfig.subnetId",
        "options.kubernetesNetworkConfig.servicesCidr", "options.kubernetesNetworkConfig.podsCidr"),
    "oci:Core/computeCluster:ComputeCluster": ("availabilityDomain",),
    "oci:Core/vcn:Vcn": ("dnsLabel",),
    "oci:Core/subnet:Subnet": (
        "vcnId", "availabilityDomain", "dnsLabel", "prohibitInternetIngress", "prohibitPublicIpOnVnic"),
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": ("vcnId",),
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": ("networkSecurityGroupId",),
    "oci:Core/routeTable:RouteTable": ("vcnId",),
    "oci:Core/serviceGateway:ServiceGateway": ("vcnId",),
    "oci:Core/internetGateway:InternetGateway": ("vcnId",),
    "oci:FileStorage/fileSystem:FileSystem": ("availabilityDomain",),
    "oci:FileStorage/mountTarget:MountTarget": ("availabilityDomain", "subnetId", "hostnameLabel"),
    "oci:FileStorage/export:Export": ("exportSetId", "fileSystemId", "path"),
    "oci:Identity/policy:Policy": ("compartmentId", "name"),
    "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping": ("clusterId", "namespace"),
    "oci:Identity/dynamicGroup:DynamicGroup": ("compartmentId", "name"),
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": (
        "availabilityDomain", "fileSystemName", "performanceTier", "subnetId", "clusterPlacementGroupId"),
    "oci:Core/natGateway:NatGateway": ("vcnId", "publicIpId"),
    "oci:ObjectStorage/bucket:Bucket": ("name", "namespace", "storageTier"),
}

_SELECTOR = ("matchExpressions", "matchLabels")


def _selector(prefix: str) -> tuple[str, ...]:
    return (prefix, *(f"{prefix}.{k}" for k in _SELECTOR))


_CONTAINER = ("args", "command", "env", "image", "imagePullPolicy", "lifecycle", "livenessProbe", "ports",
              "readinessProbe", "resources", "securityContext", "stdin", "stdinOnce", "terminationMessagePath",
              "terminationMessagePolicy", "tty", "volumeDevices", "volumeMounts", "workingDir")
_POD = ("affinity", "automountServiceAccountToken", "dnsConfig", "dnsPolicy", "enableServiceLinks", "hostAliases",
        "hostIPC", "hostNetwork", "hostPID", "hostname", "imagePullSecrets", "nodeName", "nodeSelector", "overhead",
        "preemptionPolicy", "priority", "priorityClassName", "readinessGates", "restartPolicy", "runtimeClassName",
        "schedulerName", "securityContext", "serviceAccount", "serviceAccountName", "shareProcessNamespace",
        "subdomain", "terminationGracePeriodSeconds", "volumes")
_PV_SOURCES = ("awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "csi", "fc", "flexVolume",
               "flocker", "gcePersistentDisk", "glusterfs", "hostPath", "iscsi", "local", "nfs",
               "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume")
_STATEFUL_SET = ("spec.podManagementPolicy", "spec.revisionHistoryLimit", "spec.serviceName",
                 "spec.volumeClaimTemplates", *_selector("spec.selector"))

#: pulumi-kubernetes' ``forceNew`` table (diff.go, v4.32.0-27-g9497796, checked 2026-11-30) as engine type tokens.
KUBERNETES_FORCE_NEW: dict[str, tuple[str, ...]] = {
    **{f"kubernetes:apps/{v}:{k}": _selector("spec.selector") for v in ("v1", "v1beta2")
       for k in ("DaemonSet", "Deployment")},
    **{f"kubernetes:apps/{v}:StatefulSet": _STATEFUL_SET for v in ("v1", "v1beta1", "v1beta2")},
    "kubernetes:core/v1:PersistentVolume": tuple(f"spec.{s}" for s in _PV_SOURCES),
    "kubernetes:core/v1:PersistentVolumeClaim": ("spec.accessModes", "spec.storageClassName", "spec.volumeName",
                                                 *_selector("spec.selector")),
    "kubernetes:core/v1:Pod": (*(f"spec.{p}" for p in _POD),
                               *(f"spec.{c}[*].{f}" for c in ("containers", "initContainers") for f in _CONTAINER)),
    "kubernetes:core/v1:ResourceQuota": ("spec.scopes",),
    # ConfigMaps and Secrets: pulumi-kubernetes replaces them on a data change unless the provider sets
    # enableConfigMapMutable / enableSecretMutable (both off by default, and this program's provider leaves them off).
    "kubernetes:core/v1:ConfigMap": ("binaryData", "data"),
    "kubernetes:core/v1:Secret": ("type", "stringData", "data"),
    "kubernetes:core/v1:Service": ("spec.clusterIP",),
    "kubernetes:policy/v1beta1:PodDisruptionBudget": ("spec",),
    **{f"kubernetes:rbac.authorization.k8s.io/{v}:{k}": ("roleRef",) for v in ("v1", "v1beta1", "v1alpha1")
       for k in ("RoleBinding", "ClusterRoleBinding")},
    "kubernetes:storage.k8s.io/v1:StorageClass": ("parameters", "provisioner"),
    **{f"kubernetes:batch/{v}:Job": ("spec.completions", "spec.parallelism", "spec.template",
                                     *_selector("spec.selector")) for v in ("v1", "v1beta1", "v2alpha1")},
}
#: What pulumi-kubernetes replaces on for every kind: the object's identity.
KUBERNETES_IDENTITY = ("metadata.name", "metadata.namespace")

_K8S_VALIDATION = "Kubernetes pkg/apis/{}/validation/validation.go {} (v1.34, checked 2026-11-30)"
_KUEUE = "Kueue v0.18.2 CRD config/components/crd/bases/kueue.x-k8s.io_{}.yaml x-kubernetes-validations (checked 2026-11-30)"

#: Type → ``(path, condition, reason)``: what the API server refuses to change in place although pulumi-kubernetes
#: would plan an update. ``condition`` names an input path that must be set in the *previous* inputs for the rule to
#: apply (a transition rule guarded by ``has(oldSelf.x)``), or "".
API_IMMUTABLE: dict[str, tuple[tuple[str, str, str], ...]] = {
    "kubernetes:core/v1:PersistentVolumeClaim": tuple(
        (p, "", "a claim's spec is immutable except resources.requests and volumeAttributesClassName ("
         + _K8S_VALIDATION.format("core", "ValidatePersistentVolumeClaimUpdate") + ")")
        for p in ("spec.volumeMode", "spec.dataSource", "spec.dataSourceRef", "spec.resources.limits")),
    "kubernetes:core/v1:PersistentVolume": tuple(
        (p, "", "a volume's source, volumeMode and nodeAffinity are immutable ("
         + _K8S_VALIDATION.format("core", "ValidatePersistentVolumeUpdate") + ")")
        for p in ("spec.volumeMode", "spec.nodeAffinity")),
    "kubernetes:core/v1:Service": (
        ("spec.clusterIPs", "", "a Service's cluster IPs are immutable ("
         + _K8S_VALIDATION.format("core", "ValidateServiceUpdate") + ")"),),
    "kubernetes:storage.k8s.io/v1:StorageClass": tuple(
        (p, "", "a StorageClass's parameters, provisioner, reclaimPolicy and volumeBindingMode are immutable ("
         + _K8S_VALIDATION.format("storage", "ValidateStorageClassUpdate") + ")")
        for p in ("reclaimPolicy", "volumeBindingMode")),
    "kubernetes:kueue.x-k8s.io/v1beta2:Topology": (
        ("spec.levels", "", "Topology levels: rule self == oldSelf, 'field is immutable' ("
         + _KUEUE.format("topologies") + ")"),),
    "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor": tuple(
        (p, "spec.topologyName", f"{p.split('.')[-1]} is immutable when topologyName is set ("
         + _KUEUE.format("resourceflavors") + ")") for p in ("spec.nodeLabels", "spec.tolerations",
                                                             "spec.topologyName")),
    "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue": (
        ("spec.clusterQueue", "", "a LocalQueue's clusterQueue: rule self == oldSelf, 'field is immutable' ("
         + _KUEUE.format("localqueues") + ")"),),
}

#: Type → ``(path, kind, reason)``: values the service never lowers in place (an update that lowers one fails at
#: ``pulumi up``). ``kind``: ``number`` (compared as numbers), ``version`` (a Kubernetes ``v1.x.y``, compared as
#: versions) or ``quantity`` (a Kubernetes resource quantity such as ``100Gi``, ``107374182400`` or ``0.1Ti``,
#: compared by value with the Kubernetes client's ``parse_quantity``).
#:
#: The Kubernetes members of the class, among the kinds the stacks declare: a PersistentVolumeClaim's storage
#: request (the tenants' shared-storage claims, the File Storage preparation claim, the Lustre claim). Not members: a
#: PersistentVolume's ``spec.capacity`` (ValidatePersistentVolumeUpdate lets it change either way), a
#: ResourceQuota's ``spec.hard`` and container ``resources`` (updated in place either way), a StatefulSet's
#: ``volumeClaimTemplates`` (replaced by pulumi-kubernetes, :data:`KUBERNETES_FORCE_NEW`).
NO_DECREASE: dict[str, tuple[tuple[str, str, str], ...]] = {
    "kubernetes:core/v1:PersistentVolumeClaim": (
        ("spec.resources.requests.storage", "quantity", "Kubernetes refuses to lower a claim's storage request "
         "(\"spec.resources.requests.storage: Forbidden: field can not be less than previous value\", or below the "
         "bound volume's status.capacity with RecoverVolumeExpansionFailure; "
         + _K8S_VALIDATION.format("core", "ValidatePersistentVolumeClaimUpdate")
         + "); keep the size, or create a new claim and volume and copy the data"),),
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": (
        ("capacityInGbs", "number", "a Lustre file system's capacity can only grow (File Storage with Lustre docs, "
         "\"Increasing File System Capacity\": you can't decrease the capacity, checked 2026-11-30)"),),
    "oci:ContainerEngine/cluster:Cluster": (
        ("kubernetesVersion", "version", "OKE upgrades a cluster's control plane and never downgrades it (OKE docs, "
         "\"Upgrading Clusters to Newer Kubernetes Versions\", checked 2026-11-30)"),),
    "oci:ContainerEngine/nodePool:NodePool": (
        ("kubernetesVersion", "version", "OKE upgrades a node pool's Kubernetes version and never downgrades it (OKE "
         "docs, \"Upgrading Managed Nodes\", checked 2026-11-30)"),),
}


#: Type → (path, reason) of a Kubernetes version raised one minor version at a time: a control plane upgrade from
#: v1.34 straight to v1.36 would run, during OKE's rolling upgrade of its HA API servers, instances two minors apart,
#: which the Kubernetes project does not support (Kubernetes docs "Version Skew Policy": the newest and oldest
#: kube-apiserver instances must be within one minor version; "Supported component upgrade order": from 1.n to
#: 1.n+1; checked 2026-12-01). Node pools may jump: their kubelets may lag the control plane by three minors.
ONE_MINOR_AT_A_TIME: dict[str, tuple[str, str]] = {
    "oci:ContainerEngine/cluster:Cluster": (
        "kubernetesVersion", "a control plane is upgraded one minor version at a time (Kubernetes docs \"Version "
        "Skew Policy\": HA kube-apiserver instances within one minor version, upgrades from 1.n to 1.n+1; checked "
        "2026-12-01); set cluster.kubernetesVersion to the next minor version OKE offers, pulumi up, then the next"),
}


#: How the plan shows a value it cannot see (offline.values ``UNKNOWN_SHOWN``, ``SECRET_SHOWN``).
_UNSEEN = ("[unknown]", "[secret]")


def lowered(typ: str, old_inputs: dict[str, Any], new_inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, reason)`` of the :data:`NO_DECREASE` values of a ``typ`` resource that the new inputs lower, in
    display form (``[unknown]``/``[secret]`` values are not compared: the engine cannot see them either). A ``quantity``
    that is not a Kubernetes quantity is refused too (the API server would refuse the object): ``(path, "... is not a
    Kubernetes quantity")``. A :data:`ONE_MINOR_AT_A_TIME` version raised by more than one minor is refused too."""
    from packaging.version import InvalidVersion, Version
    out = []
    for path, kind, reason in NO_DECREASE.get(typ, ()):
        old, new = _get(old_inputs, path), _get(new_inputs, path)
        if old is None or new is None or old == new or old in _UNSEEN or new in _UNSEEN:
            continue
        if kind == "quantity":
            values = [_quantity(v) for v in (old, new)]
            bad = [v for v, q in zip((old, new), values) if q is None]
            if bad:
                out.append((path, f"{bad[-1]!r} is not a Kubernetes quantity (e.g. 500Gi, 1Ti, 107374182400): the "
                                  "API server refuses it"))
                continue
            down = values[1] < values[0]
        else:
            try:
                if kind == "number":
                    down = float(new) < float(old)
                else:
                    down = Version(str(new).lstrip("v")) < Version(str(old).lstrip("v"))
            except (TypeError, ValueError, InvalidVersion):
                continue  # an unreadable number or version: the config model reports those itself
        if down:
            out.append((path, f"{old} -> {new}: {reason}"))
    if typ in ONE_MINOR_AT_A_TIME:
        path, reason = ONE_MINOR_AT_A_TIME[typ]
        old, new = _get(old_inputs, path), _get(new_inputs, path)
        before, after = _minor(old), _minor(new)
        if before is not None and after is not None and after[0] == before[0] and after[1] > before[1] + 1:
            out.append((path, f"{old} -> {new}: {reason}"))
    return out


def _minor(version: Any) -> Optional[tuple[int, int]]:
    """``v1.34.1`` → ``(1, 34)``; None for anything else (unknown, secret, not a version)."""
    m = re.match(r"^v?([0-9]+)\.([0-9]+)\.[0-9]+$", version) if isinstance(version, str) else None
    return (int(m[1]), int(m[2])) if m else None


def _quantity(value: Any) -> Any:
    """``value`` as a Kubernetes quantity (a ``Decimal``, e.g. ``100Gi`` → 107374182400), or None when it is not one.
    Parsed by the Kubernetes client (``kubernetes.utils.parse_quantity``, kubernetes 35.0.0), imported only here."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    from kubernetes.utils.quantity import parse_quantity

    try:
        return parse_quantity(value)
    except (ValueError, ArithmeticError):
        return None


#: Type → why a replacement or deletion destroys something (``--fail-on-replace``). Sources: OCI docs "Overview of
#: Container Engine", "Managing Node Pools", "Compute Clusters", "Overview of File Storage", "VCNs and Subnets",
#: "Object Storage Buckets" (deleting a bucket: it must hold no object, version or multipart upload).
STATEFUL: dict[str, str] = {
    "oci:ContainerEngine/cluster:Cluster": "the cluster: its etcd (every Kubernetes object) and API endpoint",
    "oci:ContainerEngine/nodePool:NodePool": "the pool's nodes: every pod and GPU job running on them",
    "oci:Core/computeCluster:ComputeCluster": "the Compute Cluster: its RDMA placement; its instances must go first",
    "oci:FileStorage/fileSystem:FileSystem": "the file system: all data stored on it",
    "oci:FileStorage/mountTarget:MountTarget": "the mount target: its IP (every client's mounts) and its "
                                               "throughput tier's billing commitment",
    "oci:FileStorage/export:Export": "the export: clients mounting its path lose it",
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem": "the Lustre file system: all data on it",
    "oci:ObjectStorage/bucket:Bucket": "the bucket: every object and object version in it (OCI deletes only an "
                                       "empty bucket, so the replacement fails until it is emptied)",
    "oci:Core/vcn:Vcn": "the VCN: every subnet, gateway and instance in it",
    "oci:Core/subnet:Subnet": "the subnet: every VNIC, node and mount target in it",
    "kubernetes:core/v1:PersistentVolume": "the volume's binding to its data",
    "kubernetes:core/v1:PersistentVolumeClaim": "the claim: pods using it lose their volume",
    "kubernetes:core/v1:Namespace": "the namespace: every object in it is deleted with it",
    "pulumi:providers:kubernetes": "the Kubernetes provider: every object it manages is replaced with it",
}


#: A Helm release is replaced when its name or namespace changes, and never deleted first (helm_release.go ``Diff``:
#: ``forceNewFields := []string{".name", ".namespace"}``, ``DeleteBeforeReplace: false``; same version).
HELM_RELEASE_FORCE_NEW = ("name", "namespace")


def kubernetes_force_new(typ: str) -> tuple[str, ...]:
    """The paths pulumi-kubernetes replaces a ``typ`` object on (its identity for every kind)."""
    if typ == "kubernetes:helm.sh/v3:Release":
        return HELM_RELEASE_FORCE_NEW
    if not typ.startswith("kubernetes:") or typ.startswith(("kubernetes:helm.sh/", "kubernetes:yaml/",
                                                            "kubernetes:kustomize/")):
        return ()
    return KUBERNETES_IDENTITY + KUBERNETES_FORCE_NEW.get(typ, ())


def force_new(typ: str) -> tuple[str, ...]:
    """Every path the engine replaces a ``typ`` resource on (provider knowledge only, not ``replaceOnChanges``)."""
    return FORCE_NEW.get(typ, ()) + kubernetes_force_new(typ)


def api_immutable(typ: str, old_inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, reason)`` of the fields the API server refuses to change on a ``typ`` object with ``old_inputs``."""
    out = []
    for path, condition, reason in API_IMMUTABLE.get(typ, ()):
        if condition and _get(old_inputs, condition) is None:
            continue
        out.append((path, reason))
    return out


def _get(value: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
