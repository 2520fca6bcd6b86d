"""Tenant directories on a shared file system, owned by each tenant's non-root UID/GID: the one preparation step
FSS (``oke_rdma.volumes``) and Lustre (``oke_rdma.lustre``) share.

A tenant's pods run as its UID/GID (``runAsUser``/``runAsGroup``), and both file systems squash root, so a tenant
can write only in a directory that already belongs to it. The platform creates those directories with a one-off
``Job`` in the platform namespace ``oke-rdma-storage`` (:data:`~oke_rdma.config.storage.PREPARATION_NAMESPACE`):

* the namespace (:func:`preparation_namespace`): Pod Security ``baseline`` (enforce, audit, warn). The Job runs as
  root with only the ``CHOWN``, ``DAC_OVERRIDE`` and ``FOWNER`` capabilities added to an ``ALL`` drop — baseline
  allows root and those capabilities, ``restricted`` allows neither (Kubernetes docs "Pod Security Standards",
  Baseline "Capabilities" list and Restricted "Running as Non-root"; checked 2026-12-01);
* the Job (:func:`preparation_job`) mounts the file system through a claim of a platform-only volume (the caller's:
  FSS's unsquashed workers-only export, or the Lustre file system from nodes in ``clientExceptions``) and runs
  ``oke_rdma/files/fss_prepare.py`` with the plan ``PREPARE_PLAN`` (:func:`tenant_directory` entries) and the
  mount ``PREPARE_ROOT``: each directory created if missing, given its owner and mode, nothing else touched;
  no ServiceAccount token, read-only root file system, no privilege escalation, ``RuntimeDefault`` seccomp;
* its name ``<kind>-prepare-<10 hex>`` is a digest of the plan and the script (:func:`preparation_job_name`): a new
  tenant, ID or script version is a new Job (a Job's pod template is immutable), and every tenant claim waits for
  it, so no pod mounts a directory before it exists with its owner.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.config.storage import PREPARATION_NAMESPACE

PREPARE_SCRIPT = Path(__file__).resolve().parent / "files" / "fss_prepare.py"
#: Tenant directories: owner rwx, group rwx + setgid (new files keep the tenant's group), others nothing.
TENANT_DIR_MODE = "2770"
#: The top directory when tenants share it: writable by all, sticky (only an entry's owner may remove it).
SHARED_TOP_MODE = "1777"
#: Pod Security level of the preparation namespace (the module docstring says why).
PREPARATION_POD_SECURITY = "baseline"
#: Capabilities the preparation container adds back after dropping ALL: chown, write and chmod what root does not own.
PREPARATION_CAPABILITIES = ("CHOWN", "DAC_OVERRIDE", "FOWNER")

#: The storage request of every claim bound to a static volume (FSS's and Lustre's): a fixed nominal value, never
#: the file system's size. A static claim cannot grow (the PersistentVolumeClaimResize admission plugin grows only a
#: claim provisioned by a StorageClass with ``allowVolumeExpansion``) and no claim's request may shrink, while a
#: PersistentVolume's ``spec.capacity`` is mutable (``ValidatePersistentVolumeUpdate`` keeps only the volume source,
#: ``volumeMode`` and a set ``nodeAffinity`` immutable). So the size lives on the volume alone, and the claim asks for
#: the smallest quantity the config accepts (1Mi), which every volume satisfies (the binder checks request <=
#: capacity even for a pre-bound claim). The PV controller resyncs a bound claim (``syncBoundClaim`` → ``bind``) and
#: copies the volume's capacity into the claim's ``status.capacity``, so ``kubectl get pvc`` shows the grown size.
#: Sources: kubernetes pkg/apis/core/validation/validation.go ``ValidatePersistentVolumeUpdate``;
#: plugin/pkg/admission/storage/persistentvolume/resize/admission.go; pkg/controller/volume/persistentvolume/
#: pv_controller.go ``syncBoundClaim``; checked 2026-12-01.
STATIC_CLAIM_REQUEST = "1Mi"
#: ``ignoreChanges`` of those claims: a claim created by an earlier version (its request was the capacity) keeps
#: its request, since lowering it to :data:`STATIC_CLAIM_REQUEST` is refused by the API server.
STATIC_CLAIM_IGNORE = ("spec.resources.requests.storage",)


def tenant_directory(path: str, uid: int, gid: int) -> dict[str, Any]:
    """One plan entry: ``path`` (relative to the file system's top) owned by ``uid:gid``, mode
    :data:`TENANT_DIR_MODE`."""
    return {"path": path, "uid": uid, "gid": gid, "mode": TENANT_DIR_MODE}


def preparation_job_name(plan: list[dict[str, Any]], script: str, kind: str = "fss") -> str:
    """``<kind>-prepare-<10 hex>``: a digest of the plan and the script, so any change runs a new Job."""
    digest = hashlib.sha256((json.dumps(plan, sort_keys=True) + script).encode()).hexdigest()[:10]
    return f"{kind}-prepare-{digest}"


def preparation_namespace(name_prefix: str, labels: dict[str, str], opts: pulumi.ResourceOptions
                          ) -> k8s.core.v1.Namespace:
    """The ``Namespace`` ``oke-rdma-storage`` (resource ``<prefix>-ns-oke-rdma-storage``) at Pod Security
    :data:`PREPARATION_POD_SECURITY`. One per stack: FSS creates it when it prepares directories, Lustre reuses it."""
    return k8s.core.v1.Namespace(f"{name_prefix}-ns-{PREPARATION_NAMESPACE}", k8s.core.v1.NamespaceInitArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(name=PREPARATION_NAMESPACE, labels={
            **labels, **{f"pod-security.kubernetes.io/{m}": PREPARATION_POD_SECURITY
                         for m in ("enforce", "audit", "warn")}})), opts)


def preparation_job(kind: str, *, name_prefix: str, plan: list[dict[str, Any]], image: str, claim_name:
                    pulumi.Input[str], namespace: pulumi.Input[str], labels: dict[str, str],
                    parent: pulumi.Resource, provider: pulumi.ProviderResource, depends_on: Sequence[pulumi.Resource],
                    mount_path: str = "/fss", tolerations: Optional[list[dict[str, str]]] = None) -> k8s.batch.v1.Job:
    """The ``ConfigMap`` (resource ``<prefix>-<kind>-prepare-script``) holding the script and the one-off ``Job``
    (``<prefix>-<kind>-prepare-job``) that runs it over the claim ``claim_name`` mounted at ``mount_path``.

    :param kind: ``fss`` or ``lustre``: names the resources and the Job.
    :param plan: ``[{path, uid, gid, mode}]`` (:func:`tenant_directory`; ``""`` is the top directory).
    :param image: a pinned image with ``python3``.
    :param tolerations: taints of the nodes that can mount the volume (GPU nodes' ``nvidia.com/gpu``), or None.
    """
    opts = pulumi.ResourceOptions(parent=parent, provider=provider)
    script = PREPARE_SCRIPT.read_text()
    job_name = preparation_job_name(plan, script, kind)
    script_cm = k8s.core.v1.ConfigMap(f"{name_prefix}-{kind}-prepare-script", k8s.core.v1.ConfigMapInitArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(name=job_name, namespace=namespace, labels=labels),
        data={"prepare.py": script}), opts)
    env = [k8s.core.v1.EnvVarArgs(name="PREPARE_PLAN", value=json.dumps(plan, separators=(",", ":")))]
    if mount_path != "/fss":
        env.append(k8s.core.v1.EnvVarArgs(name="PREPARE_ROOT", value=mount_path))
    container = k8s.core.v1.ContainerArgs(
        name="prepare", image=image, command=["python3", "/opt/prepare/prepare.py"], env=env,
        resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "10m", "memory": "32Mi"},
                                                       limits={"cpu": "200m", "memory": "128Mi"}),
        security_context=k8s.core.v1.SecurityContextArgs(
            run_as_user=0, run_as_group=0, run_as_non_root=False, allow_privilege_escalation=False,
            read_only_root_filesystem=True,
            capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"], add=list(PREPARATION_CAPABILITIES))),
        volume_mounts=[k8s.core.v1.VolumeMountArgs(name=kind, mount_path=mount_path),
                       k8s.core.v1.VolumeMountArgs(name="script", mount_path="/opt/prepare", read_only=True)])
    return k8s.batch.v1.Job(f"{name_prefix}-{kind}-prepare-job", k8s.batch.v1.JobInitArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(name=job_name, namespace=namespace, labels=labels),
        spec=k8s.batch.v1.JobSpecArgs(
            backoff_limit=6, active_deadline_seconds=1800,
            template=k8s.core.v1.PodTemplateSpecArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(labels=labels),
                spec=k8s.core.v1.PodSpecArgs(
                    restart_policy="Never", automount_service_account_token=False,
                    security_context=k8s.core.v1.PodSecurityContextArgs(
                        seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault")),
                    tolerations=tolerations, containers=[container],
                    volumes=[k8s.core.v1.VolumeArgs(
                                 name=kind, persistent_volume_claim=k8s.core.v1.PersistentVolumeClaimVolumeSourceArgs(
                                     claim_name=claim_name)),
                             k8s.core.v1.VolumeArgs(name="script", config_map=k8s.core.v1.ConfigMapVolumeSourceArgs(
                                 name=script_cm.metadata.name))])))),
        pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=[*depends_on, script_cm],
                               replace_on_changes=["spec.template"],  # force-new in pulumi-kubernetes too
                               custom_timeouts=pulumi.CustomTimeouts(create="40m", update="40m")))
