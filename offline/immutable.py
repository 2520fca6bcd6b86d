"""What cannot change in place, per resource type: the tables the offline plan decides replacements with.

Paths use Pulumi's property path syntax on the engine's camelCase inputs: ``a.b``, ``a[0].b``, ``a[*].b``.

* :data:`FORCE_NEW` — what the OCI provider cannot change in place for the OCI types this program declares: every
  field terraform-provider-oci (the provider pulumi-oci bridges; its ``ForceNew`` marks are what the bridge's
  ``Diff`` answers "replace" for) marks ``ForceNew`` in its resource schema, read from its Go source by
  :mod:`offline.tfschema` into ``offline/oci_force_new.json`` — derived, not picked by hand. Fields pulumi_oci's
  docstrings mark non-updatable but the provider updates in place (a cluster endpoint's ``nsgIds``, through
  ``UpdateClusterEndpointConfig``) are not ForceNew there, so the preview never cries wolf.
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

import json
import re
from pathlib import Path
from typing import Any, Optional

def _oci_force_new() -> dict[str, tuple[str, ...]]:
    """The OCI provider's replace-on fields per type, from ``offline/oci_force_new.json`` (written by
    :mod:`offline.tfschema` from terraform-provider-oci's Go source; the file names the version and commit)."""
    doc = json.loads(Path(__file__).with_name("oci_force_new.json").read_text(encoding="utf-8"))
    return {typ: tuple(paths) for typ, paths in doc["types"].items()}


#: Resource type → input paths OCI cannot change in place (changing one replaces the resource): every field
#: terraform-provider-oci (which pulumi-oci bridges) marks ``ForceNew`` or forces with ``ForceNewIfChange``.
FORCE_NEW: dict[str, tuple[str, ...]] = _oci_force_new()

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
_KUEUE = ("Kueue v0.18.2 CRD config/components/crd/bases/kueue.x-k8s.io_{}.yaml x-kubernetes-validations, every "
          "'oldSelf' rule of the kinds v0.18.2 defines (checked 2026-12-01)")

#: Type → ``(path, condition, reason)``: what the API server refuses to change in place although pulumi-kubernetes
#: would plan an update. ``condition`` names an input path that must be set (and not false or empty) in the
#: *previous* inputs for the rule to apply (a transition rule guarded by ``has(oldSelf.x)``, a ConfigMap's
#: ``immutable: true``), or "". The fields the API reference itself describes as immutable
#: (``offline/k8s_immutable.json``, :mod:`offline.k8sschema`) are added after the table.
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
    "kubernetes:batch/v1:Job": tuple(
        (p, "", "a Job's " + p.split(".")[-1] + " is immutable (" + _K8S_VALIDATION.format("batch", "ValidateJobSpecUpdate")
         + ")") for p in ("spec.completionMode", "spec.podFailurePolicy", "spec.successPolicy")),
    **{f"kubernetes:core/v1:{kind}": (
        ("immutable", "immutable", f"a {kind} marked immutable: true can never be unmarked, nor its data changed ("
         + _K8S_VALIDATION.format("core", f"Validate{kind}Update") + ")"),) for kind in ("ConfigMap", "Secret")},
    # Kueue serves v1beta1 and v1beta2 of its kinds; both carry the same transition rules.
    **{f"kubernetes:kueue.x-k8s.io/{v}:{kind}": rules for v in ("v1beta1", "v1beta2") for kind, rules in {
        "Topology": (("spec.levels", "", "Topology levels: rule self == oldSelf, 'field is immutable' ("
                      + _KUEUE.format("topologies") + ")"),),
        "ResourceFlavor": tuple(
            (p, "spec.topologyName", f"{p.split('.')[-1]} is immutable when topologyName is set ("
             + _KUEUE.format("resourceflavors") + ")") for p in ("spec.nodeLabels", "spec.tolerations",
                                                                 "spec.topologyName")),
        "LocalQueue": (("spec.clusterQueue", "", "a LocalQueue's clusterQueue: rule self == oldSelf, 'field is "
                        "immutable' (" + _KUEUE.format("localqueues") + ")"),),
        "AdmissionCheck": (("spec.controllerName", "", "an AdmissionCheck's controllerName: rule self == oldSelf, "
                            "'field is immutable' (" + _KUEUE.format("admissionchecks") + ")"),),
    }.items()},
}


def _documented_immutable() -> dict[str, tuple[tuple[str, str, str], ...]]:
    """The fields the Kubernetes API reference describes as immutable, per type (``offline/k8s_immutable.json``,
    derived by :mod:`offline.k8sschema` from the OpenAPI descriptions the kubernetes client ships)."""
    doc = json.loads(Path(__file__).with_name("k8s_immutable.json").read_text(encoding="utf-8"))
    return {typ: tuple((p, "", f"described as immutable in the Kubernetes API reference ({doc['source']})")
                       for p in paths) for typ, paths in doc["types"].items()}


for _typ, _rules in _documented_immutable().items():
    API_IMMUTABLE[_typ] = API_IMMUTABLE.get(_typ, ()) + tuple(r for r in _rules
                                                               if r[0] not in {x[0] for x in API_IMMUTABLE.get(_typ, ())})

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


#: Type → (path, the values an update may set, why): one-way settings. The service accepts a change of the value only
#: to one of these; any other change is refused by the API at ``pulumi up`` (the provider updates in place, so
#: nothing is replaced and nothing is caught by ForceNew).
UPDATE_VALUES: dict[str, tuple[tuple[str, frozenset[str], str], ...]] = {
    "oci:ContainerEngine/cluster:Cluster": (
        ("type", frozenset({"ENHANCED_CLUSTER"}), "a basic cluster can be upgraded to an enhanced one, an enhanced "
         "cluster never made basic again (OKE docs \"Enhanced Clusters and Basic Clusters\", checked 2026-12-01); keep "
         "cluster.type ENHANCED_CLUSTER, or create a new cluster (a new stack)"),),
    "oci:ObjectStorage/bucket:Bucket": (
        ("versioning", frozenset({"Enabled", "Suspended"}), "once created, a bucket's versioning can only be set to "
         "Enabled or Suspended (OCI API UpdateBucketDetails.versioning: allowed update values Enabled, Suspended; "
         "checked 2026-12-01): versioning once enabled is never disabled; suspend it instead"),),
}


#: How the plan shows a value it cannot see (offline.values ``UNKNOWN_SHOWN``, ``SECRET_SHOWN``).
_UNSEEN = ("[unknown]", "[secret]")


def lowered(typ: str, old_inputs: dict[str, Any], new_inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, reason)`` of the :data:`NO_DECREASE` values of a ``typ`` resource that the new inputs lower, in
    display form (``[unknown]``/``[secret]`` values are not compared: the engine cannot see them either). A ``quantity``
    that is not a Kubernetes quantity is refused too (the API server would refuse the object): ``(path, "... is not a
    Kubernetes quantity")``. A :data:`ONE_MINOR_AT_A_TIME` version raised by more than one minor is refused too, and
    so is a change of an :data:`UPDATE_VALUES` setting to a value the service does not accept on update."""
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
    for path, allowed, reason in UPDATE_VALUES.get(typ, ()):
        old, new = _get(old_inputs, path), _get(new_inputs, path)
        if old is None or new is None or old == new or old in _UNSEEN or new in _UNSEEN:
            continue
        if new not in allowed:
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


#: Type → (input that must be unique, the inputs naming its scope): a replacement keeping the name in the same
#: scope is created while the old resource still holds the name, so OCI refuses the create (409 conflict) unless the
#: old one is deleted first (``deleteBeforeReplace``). pulumi-oci sets no auto-naming (provider/resources.go, no
#: ``AutoName``, v4.20.0, checked 2026-12-01), so the bridge never turns on delete-before-replace by itself. The
#: members: every input of the types this program declares that pulumi_oci 5.5.0 documents as unique (a test
#: derives them from its docstrings): a policy's and a dynamic group's ``name`` ("must be unique across all
#: policies/groups in the tenancy"), a bucket's ``name`` ("unique within an Object Storage namespace"), a subnet's
#: ``dnsLabel`` ("unique within the VCN"), a mount target's ``hostnameLabel`` ("unique across all VNICs in the
#: subnet").
UNIQUE_NAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "oci:Identity/policy:Policy": ("name", ()),
    "oci:Identity/dynamicGroup:DynamicGroup": ("name", ()),
    "oci:ObjectStorage/bucket:Bucket": ("name", ("namespace",)),
    "oci:Core/subnet:Subnet": ("dnsLabel", ("vcnId",)),
    "oci:FileStorage/mountTarget:MountTarget": ("hostnameLabel", ("subnetId",)),
}


def name_conflict(typ: str, old_inputs: dict[str, Any], new_inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, reason)`` when replacing a ``typ`` resource (created before the old one is deleted) keeps a unique
    name (:data:`UNIQUE_NAMES`) in the same scope: both known and equal before and after."""
    if typ not in UNIQUE_NAMES:
        return []
    field, scope = UNIQUE_NAMES[typ]
    values = [(_get(old_inputs, k), _get(new_inputs, k)) for k in (field, *scope)]
    if any(a is None or a in _UNSEEN or a != b for a, b in values):
        return []
    where = f" in the same {', '.join(scope)}" if scope else " in the tenancy"
    return [(field, f"{values[0][0]!r} is kept{where}: the replacement is created while the old resource still holds "
                    "the name, and OCI refuses a duplicate (pulumi up fails with a conflict); set deleteBeforeReplace "
                    f"on it (it is then gone until created again) or give it another {field}")]


STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
_CLAIM = "kubernetes:core/v1:PersistentVolumeClaim"
_RESIZE = ("the API server grows a claim only when it was dynamically provisioned by a StorageClass with "
           "allowVolumeExpansion: true (PersistentVolumeClaimResize admission plugin, kubernetes "
           "plugin/pkg/admission/storage/persistentvolume/resize/admission.go: \"only dynamically provisioned pvc can be "
           "resized and the storageclass that provisions the pvc must support resize\"; Kubernetes docs \"Persistent "
           "Volumes\", Expanding Persistent Volumes Claims; checked 2026-12-01)")


def resize_refused(typ: str, old_inputs: dict[str, Any], new_inputs: dict[str, Any],
                   classes: dict[str, dict]) -> list[tuple[str, str]]:
    """``(path, reason)`` when a PersistentVolumeClaim's storage request grows where the resize admission refuses it:
    the claim has no StorageClass (``storageClassName: ""``, a statically bound volume), changes it, or names one in
    ``classes`` (name → inputs) without ``allowVolumeExpansion: true``. A class that ``classes`` does not hold (one
    the cluster provides) cannot be judged offline and is not refused."""
    path = "spec.resources.requests.storage"
    if typ != _CLAIM:
        return []
    old, new = _quantity(_get(old_inputs, path)), _quantity(_get(new_inputs, path))
    if old is None or new is None or new <= old:
        return []
    before, after = _get(old_inputs, "spec.storageClassName"), _get(new_inputs, "spec.storageClassName")
    if before in _UNSEEN or after in _UNSEEN:
        return []
    shown = f"{_get(old_inputs, path)} -> {_get(new_inputs, path)}"
    if not before or before != after:
        return [(path, f"{shown}: the claim is bound to a statically provisioned volume (storageClassName "
                       f"{before!r}): {_RESIZE}; to grow it, declare {path} in replaceOnChanges (a new claim and "
                       "volume) or keep the size")]
    expandable = (classes.get(before) or {}).get("allowVolumeExpansion") if before in classes else True
    if expandable is not True and expandable not in _UNSEEN:
        return [(path, f"{shown}: StorageClass {before} does not set allowVolumeExpansion: true: {_RESIZE}")]
    return []


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
    # Members the program may declare beyond the list above (sources checked 2026-12-01): Kubernetes docs "Extend the
    # Kubernetes API with CustomResourceDefinitions" (deleting a CRD deletes every custom object of it); OCI docs
    # "Deleting a Master Encryption Key" / "Deleting a Vault" (data encrypted with the key can no longer be
    # decrypted), "Deleting a Block Volume", "Terminating an Instance" (its boot volume is deleted unless preserved),
    # "Managing Instance Pools", "Managing Cluster Networks", "Managing Snapshots" (File Storage), "Managing Objects",
    # "Deleting a Secret" (Vault), "Deleting an Autonomous Database", "Deleting a DB System" (Base Database, MySQL
    # HeatWave, PostgreSQL), "Deleting a Table" (NoSQL), "Deleting a Stream", OKE "Managing Virtual Node Pools",
    # "Compute GPU Memory Clusters".
    "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition": "every custom object of the kind: deleting a "
                                                                   "CRD deletes them all",
    "oci:Kms/key:Key": "the key: every volume, bucket, file system and secret encrypted with it becomes unreadable",
    "oci:Kms/vault:Vault": "the vault: every key in it, so all data encrypted with them",
    "oci:Vault/secret:Secret": "the secret and all its versions",
    "oci:Core/volume:Volume": "the block volume: all data on it",
    "oci:Core/bootVolume:BootVolume": "the boot volume: all data on it",
    "oci:Core/volumeBackup:VolumeBackup": "the volume backup",
    "oci:Core/bootVolumeBackup:BootVolumeBackup": "the boot volume backup",
    "oci:Core/instance:Instance": "the instance: its boot volume (deleted unless preserveBootVolume) and workloads",
    "oci:Core/instancePool:InstancePool": "the pool's instances and their boot volumes",
    "oci:Core/clusterNetwork:ClusterNetwork": "the cluster network's RDMA instances and their boot volumes",
    "oci:Core/computeGpuMemoryCluster:ComputeGpuMemoryCluster": "the GPU memory cluster's instances",
    "oci:ContainerEngine/virtualNodePool:VirtualNodePool": "the virtual node pool: every pod running on it",
    "oci:FileStorage/snapshot:Snapshot": "the snapshot: the file system's data as of that time",
    "oci:ObjectStorage/storageObject:StorageObject": "the object's data",
    "oci:Database/autonomousDatabase:AutonomousDatabase": "the database: all data in it",
    "oci:Database/dbSystem:DbSystem": "the DB system: its databases",
    "oci:Mysql/mysqlDbSystem:MysqlDbSystem": "the MySQL DB system: its databases",
    "oci:Psql/dbSystem:DbSystem": "the PostgreSQL DB system: its databases",
    "oci:Nosql/table:Table": "the table: all rows in it",
    "oci:Streaming/stream:Stream": "the stream: every message retained in it",
}


#: A Helm release is replaced when its name or namespace changes, and never deleted first (helm_release.go ``Diff``:
#: ``forceNewFields := []string{".name", ".namespace"}``, ``DeleteBeforeReplace: false``; same version).
HELM_RELEASE_FORCE_NEW = ("name", "namespace")
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


def release_takeover_conflict(typ: str, old_inputs: dict[str, Any], new_inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, reason)`` when a Helm release is replaced without ``deleteBeforeReplace``: the new release is
    installed while the old one still owns its chart's cluster-scoped objects — ClusterRoles and webhook
    configurations named after the release (a new namespace keeps every name), CRDs under ``templates/`` (a new
    name keeps those) — and Helm refuses to adopt an object another release owns ("... exists and cannot be
    imported into the current release: invalid ownership metadata", Helm pkg/action/validate.go; pulumi-kubernetes
    #2509; checked 2026-12-01). Every add-on of oke-rdma renders such objects."""
    if typ != HELM_RELEASE:
        return []
    changed = [k for k in HELM_RELEASE_FORCE_NEW if _get(old_inputs, k) != _get(new_inputs, k)]
    if not changed or any(_get(old_inputs, k) in _UNSEEN for k in changed):
        return []
    shown = ", ".join(f"{k} {_get(old_inputs, k)!r} -> {_get(new_inputs, k)!r}" for k in changed)
    return [(changed[0], f"{shown}: the new release is installed while the old one still owns its chart's "
                         "cluster-scoped objects (ClusterRoles, webhook configurations, CRDs in templates), and Helm "
                         "refuses to adopt them (pulumi up fails with 'exists and cannot be imported into the current "
                         "release'); move it in two steps: disable the add-on and pulumi up (a CRD the chart templates "
                         "is deleted with every object of its kinds), then enable it with the new name or namespace")]


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
        if condition and _get(old_inputs, condition) in (None, False, "", [], {}):
            continue  # the rule's guard (``has(oldSelf.x)``, ``immutable: true``) does not hold
        out.append((path, reason))
    return out


def _get(value: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
