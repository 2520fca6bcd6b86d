"""Red-team programs (pass 6, pod settings through Helm values): the pod rules that refuse a setting in a pod spec
refuse it in a release's values too — the privileged-port floor (keda's ``podSecurityContext.operator.sysctls``), a
system priority, a toleration of every taint, an inline NFS volume, GPU device requests outside the tenants, and
``namespaceOverride`` sending the same tolerations into a tenant. Registered in ``programs.CASES`` on import; each
control differs only in what makes the input unsafe. More members, without a preview each:
``tests/policies/test_values_pods.py``."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case
from tests.policies.redteam.programs_tenants import tenant

PSA = "pod-security.kubernetes.io/enforce"


def _keda(ns: str, values: dict) -> None:
    k8s.helm.v3.Release("rel", chart="keda", version="2.20.2", namespace=ns,
                        repository_opts={"repo": "https://kedacore.github.io/charts"}, values=values)


def _platform_namespace(name: str) -> None:
    k8s.core.v1.Namespace(f"ns-{name}", metadata={"name": name, "labels": {PSA: "restricted"}})


@case("pod", "pods-keep-the-privileged-port-floor")
def helm_values_port_floor(bad):
    """keda's operator pod lowers the privileged-port floor through podSecurityContext.operator.sysctls."""
    _platform_namespace("keda")
    _keda("keda", {"podSecurityContext": {"operator": {"sysctls": [
        {"name": "net.ipv4.ip_unprivileged_port_start", "value": "0" if bad else "1024"}]}}})


@case("pod", "system-priority-only-for-node-agents")
def helm_values_system_priority_in_tenant(bad):
    """A release in a tenant namespace runs its pods at system-node-critical through its values."""
    tenant("research")
    _keda("research", {"priorityClassName": "system-node-critical"} if bad else {})


@case("placement", "tenant-pods-scheduled-by-the-platform")
def helm_values_namespace_override_tolerates_all_in_tenant(bad):
    """A release in a platform namespace whose values send its pods (namespaceOverride) into a tenant's namespace,
    tolerating every taint."""
    tenant("research")
    _platform_namespace("keda")
    _keda("keda", {"tolerations": [{"operator": "Exists"}], **({"namespaceOverride": "research"} if bad else {})})


@case("data", "tenant-volumes-through-claims")
def helm_values_inline_nfs_in_tenant(bad):
    """A release in a tenant namespace mounts the shared export directly through keda's extraVolumes."""
    tenant("research")
    volume = {"name": "s", **({"nfs": {"server": "10.0.20.5", "path": "/shared"}} if bad else {"emptyDir": {}})}
    _keda("research", {"volumes": {"keda": {"extraVolumes": [volume]}}})


@case("placement", "gpu-pods-only-in-tenant-namespaces")
def helm_values_gpu_requests_outside_tenants(bad):
    """A platform release takes GPUs through its values' resources, outside every tenant's quota and queue."""
    _platform_namespace("keda")
    _keda("keda", {"resources": {"operator": {"limits": {"nvidia.com/gpu" if bad else "cpu": 1}}}})


# --- host paths: deny by default (``_pss.HARMLESS_HOST_PATHS``) ---------------------------------------------------
def _rdma_root_pod(path: str) -> None:
    """A root pod of the RDMA tenant (privileged level, GPU quota) mounting host ``path`` read-write."""
    tenant("research", "privileged")
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "research"}, spec={
        "volumes": [{"name": "h", "hostPath": {"path": path}}],
        "containers": [{"name": "c", "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                        "volumeMounts": [{"name": "h", "mountPath": "/h"}]}]})


@case("pod", "node-escape-only-in-node-agent-namespaces")
def host_path_cloud_init_per_boot(bad):
    """cloud-init runs /var/lib/cloud/scripts/per-boot/* as root at every boot of the node."""
    _rdma_root_pod("/var/lib/cloud" if bad else "/dev/infiniband")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def host_path_raw_block_device(bad):
    """The node's boot disk as a raw device: writing it rewrites the node's root file system."""
    _rdma_root_pod("/dev/sda" if bad else "/mnt/localdisk")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def host_path_systemd_units(bad):
    """A unit file under /etc/systemd/system runs as root at the next boot (or daemon-reload)."""
    _rdma_root_pod("/etc/systemd/system" if bad else "/mnt/localdisk/cache")
