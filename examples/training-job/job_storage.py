"""The training Job's storage containers: the weights copy into the node's NVMe before training, and the upload of
the last checkpoint to the bucket after it. Plain builders of ``pulumi_kubernetes`` arguments from explicit values
(the program checks the platform's outputs and its config first).

All of them run ``stage_weights.py`` (mounted from the Job's ConfigMap at :data:`SCRIPT_MOUNT`) in an image with
Python 3 and the OCI Python SDK, sign in with the pod's OKE Workload Identity (:func:`workload_identity_env`: no key,
no secret, no credential variable), and are locked down: no privilege escalation, read-only root file system,
RuntimeDefault seccomp, every capability dropped (``nvme-prepare`` adds back CHOWN and FOWNER only).
"""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s

SCRIPT_MOUNT = "/opt/train"
#: Where the containers see the node's local NVMe: the init containers mount the pool's localNvme.mountPath at
#: NVME_MOUNT, the training container the tenant's directory on it (<mountPath>/<namespace>) at LOCAL_MOUNT.
NVME_MOUNT, LOCAL_MOUNT = "/nvme", "/local"
#: A memory-backed emptyDir shared by the training and upload containers: the training writes its exit code there.
SIGNAL_MOUNT = "/run/okerdma"
EXIT_FILE = f"{SIGNAL_MOUNT}/train-exit"


def workload_identity_env(region: str) -> dict[str, str]:
    """What OCI SDK clients in the pod need for OKE Workload Identity: the resource principal version and the region
    (OKE docs, "Granting Workloads Access to OCI Resources", contenggrantingworkloadaccesstoresources.htm, checked
    2026-12-01; the token is the pod's projected ServiceAccount token)."""
    return {"OCI_RESOURCE_PRINCIPAL_VERSION": "2.2", "OCI_RESOURCE_PRINCIPAL_REGION": region}


def _env(values: dict[str, str]) -> list[k8s.core.v1.EnvVarArgs]:
    return [k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in values.items()]


def _locked_down(**extra: Any) -> k8s.core.v1.SecurityContextArgs:
    caps = extra.pop("add", None)
    return k8s.core.v1.SecurityContextArgs(
        allow_privilege_escalation=False, read_only_root_filesystem=True,
        seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault"),
        capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"], add=caps), **extra)


def _script_mount() -> k8s.core.v1.VolumeMountArgs:
    return k8s.core.v1.VolumeMountArgs(name="script", mount_path=SCRIPT_MOUNT, read_only=True)


def weights_init_containers(image: str, namespace: str, uid: int, gid: int, bucket: dict[str, Any], prefix: str,
                            region: str) -> list[k8s.core.v1.ContainerArgs]:
    """``nvme-prepare`` then ``weights``.

    ``nvme-prepare`` (root, CHOWN and FOWNER only) checks that the hostPath is the NVMe file system, not a directory
    of the boot volume on a node whose RAID failed, and gives the tenant its own directory ``<namespace>`` on it,
    owned by ``uid:gid``, mode 0700 (the NVMe root belongs to root, and other RDMA tenants share the node).
    ``weights`` then copies ``prefix`` of ``bucket`` (``{namespace, bucket, region}``) into
    ``<namespace>/weights/<prefix>`` as the tenant.

    :param region: the platform's region (the resource principal's); the bucket's own region picks the endpoint.
    """
    nvme = k8s.core.v1.VolumeMountArgs(name="nvme", mount_path=NVME_MOUNT)
    run = ["python3", f"{SCRIPT_MOUNT}/stage_weights.py"]
    return [
        k8s.core.v1.ContainerArgs(
            name="nvme-prepare", image=image, command=run,
            args=["prepare", "--mount", NVME_MOUNT, "--directory", namespace, "--owner", f"{uid}:{gid}"],
            security_context=_locked_down(run_as_user=0, run_as_group=0, run_as_non_root=False,
                                          add=["CHOWN", "FOWNER"]),
            resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "100m", "memory": "128Mi"},
                                                           limits={"memory": "128Mi"}),
            volume_mounts=[nvme, _script_mount()]),
        k8s.core.v1.ContainerArgs(
            name="weights", image=image, command=run,
            args=["copy", "--namespace", bucket["namespace"], "--bucket", bucket["bucket"], "--region",
                  bucket["region"], "--prefix", prefix, "--dest", f"{NVME_MOUNT}/{namespace}/weights/{prefix}"],
            env=_env(workload_identity_env(region)),
            security_context=_locked_down(),  # runs as the pod's user: the tenant
            # 16 parallel 128 MiB ranges are held in memory while written
            resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "8", "memory": "8Gi"},
                                                           limits={"memory": "8Gi"}),
            volume_mounts=[nvme, _script_mount()])]


def upload_container(image: str, bucket: dict[str, Any], region: str, source: str, object_prefix: str,
                     shared_mount: k8s.core.v1.VolumeMountArgs) -> k8s.core.v1.ContainerArgs:
    """``checkpoint-upload``: beside the training container, waits for its exit code in :data:`EXIT_FILE`; on the
    Job's first pod, after a successful run, uploads the last ``step-*.pt`` of ``source`` to
    ``<object_prefix><file name>`` (the SDK's ``UploadManager``: multipart, parallel parts); then exits, so the pod
    completes. ``object_prefix`` lies under the grant's ``checkpointPrefix``: the only names the tenant may create.

    :param shared_mount: the checkpoint volume's mount in the training container (mounted read-only here)."""
    return k8s.core.v1.ContainerArgs(
        name="checkpoint-upload", image=image, command=["python3", f"{SCRIPT_MOUNT}/stage_weights.py"],
        args=["upload", "--namespace", bucket["namespace"], "--bucket", bucket["bucket"], "--region",
              bucket["region"], "--source", source, "--object-prefix", object_prefix, "--exit-file", EXIT_FILE],
        env=_env(workload_identity_env(region)),
        security_context=_locked_down(),
        resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "1", "memory": "2Gi"},
                                                       limits={"memory": "2Gi"}),
        volume_mounts=[_script_mount(), k8s.core.v1.VolumeMountArgs(name="signal", mount_path=SIGNAL_MOUNT),
                       k8s.core.v1.VolumeMountArgs(name=shared_mount.name, mount_path=shared_mount.mount_path,
                                                   sub_path=shared_mount.sub_path, read_only=True)])


def signal_volume() -> k8s.core.v1.VolumeArgs:
    return k8s.core.v1.VolumeArgs(name="signal", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(
        medium="Memory", size_limit="1Mi"))


def record_exit(command: str) -> str:
    """``command`` (bash) that writes its exit code to :data:`EXIT_FILE` however it ends, for the upload container."""
    return f"trap 'echo $? > {EXIT_FILE}' EXIT; {command}"
