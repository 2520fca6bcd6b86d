"""GPU health: a failing GPU leaves the schedule by itself, and a node with one is flagged for repair.

Two layers (docs/monitoring.md, "GPU health"):

1. **GPU level, automatic — the NVIDIA device plugin's health check** (on by default in the GPU Operator's device
   plugin). On a critical XID event (every XID except the application errors 13, 31, 43, 45, 68, 109) the plugin
   reports that GPU ``Unhealthy`` to the kubelet, which drops it from the node's allocatable ``nvidia.com/gpu``: the
   scheduler places no new pod on it, and Kueue's topology-aware scheduling, which counts allocatable GPUs per node,
   stops admitting gang jobs that need the whole node there. The config refuses turning that check off
   (``DP_DISABLE_HEALTHCHECKS`` in ``platform.gpuOperator.values``). The ``GpuNodeUnhealthyGpus`` alert fires on it.
2. **Node level — node-problem-detector with a GPU XID monitor** (this component). A DaemonSet on the GPU pools
   reads the kernel log (``/dev/kmsg``) and sets the node condition ``GpuXidCritical=True`` (reason
   ``GpuXidNeedsReset`` or ``GpuFallenOffBus``) when the NVIDIA driver logs an XID that needs a GPU reset or a
   reboot (:data:`oke_rdma.monitoring.facts.XID_NEEDS_RESET`, XID 79). The condition stays until the node restarts
   (NPD ``permanent`` rule); the ``GpuNodeXidCondition`` alert fires on it. Kubernetes does not act on custom
   conditions, so a second container in the same pod (``oke_rdma/files/gpu_node_cordoner.py``, standard-library
   Python, non-root, no capabilities) cordons its node when the condition turns ``True`` and annotates why
   (``okerdma.io/cordoned-by``): the scheduler and Kueue's topology-aware scheduling then leave the node out.
   Draining, repairing (reboot or replace the node in the Compute Cluster) and uncordoning stay the operator's
   steps (docs/monitoring.md, "Repair").

node-problem-detector runs privileged (it reads ``/dev/kmsg``, as its upstream DaemonSet does) in the GPU Operator's
namespace, which is already ``privileged``; the cordoner container runs unprivileged. The ClusterRole may read and
patch nodes (the cordon), patch their status (the condition) and write events.

Sources (checked 2026-11-30): NVIDIA k8s-device-plugin ``internal/rm/health.go`` (XID-based health check,
``DP_DISABLE_HEALTHCHECKS``, ignored application XIDs); kubernetes/node-problem-detector ``docs/system_log_monitor.md``
and ``config/kernel-monitor.json`` (kmsg plugin, ``conditions``, ``permanent`` rules), ``deployment/`` (DaemonSet,
RBAC, image :data:`oke_rdma.facts.images.NPD_IMAGE`); NVIDIA "Xid Errors" (the
``NVRM: Xid (PCI:<bus id>): <xid>, ...`` kernel log line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.facts.images import NPD_IMAGE as _NPD_IMAGE, PYTHON_IMAGE
from oke_rdma.monitoring.facts import XID_FALLEN_OFF_BUS, XID_NEEDS_RESET

NPD_IMAGE = _NPD_IMAGE
#: The cordoner's image: the same pinned Python image the RDMA topology labeler uses.
CORDONER_IMAGE = PYTHON_IMAGE
CORDONER_SCRIPT = Path(__file__).resolve().parent / "files" / "gpu_node_cordoner.py"
CONDITION = "GpuXidCritical"
NAME = "gpu-node-problem-detector"
#: Node label every GPU pool carries (``oke_rdma.sharing.SHARING_LABEL``): the DaemonSet runs where it exists.
GPU_NODE_LABEL = "okerdma.io/gpu-sharing"


def _xid_pattern(xids: Sequence[int]) -> str:
    return r"NVRM: Xid \(PCI:[0-9A-Fa-f:.]+\): (" + "|".join(str(x) for x in sorted(xids)) + r"),.*"


def xid_monitor() -> dict[str, Any]:
    """node-problem-detector system-log-monitor config (kmsg): the ``GpuXidCritical`` condition and its rules."""
    return {
        "plugin": "kmsg", "logPath": "/dev/kmsg", "lookback": "5m", "bufferSize": 10, "source": "gpu-xid-monitor",
        "conditions": [{"type": CONDITION, "reason": "NoCriticalGpuXid",
                        "message": "the NVIDIA driver logged no XID that needs a GPU reset"}],
        "rules": [
            {"type": "permanent", "condition": CONDITION, "reason": "GpuXidNeedsReset",
             "pattern": _xid_pattern(list(XID_NEEDS_RESET))},
            {"type": "permanent", "condition": CONDITION, "reason": "GpuFallenOffBus",
             "pattern": _xid_pattern([XID_FALLEN_OFF_BUS])},
        ],
    }


class GpuHealthArgs:
    """Inputs of :class:`GpuHealth`.

    :param name_prefix: the stack's name prefix.
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param namespace: the GPU Operator's namespace (``privileged``).
    :param depends_on: that namespace.
    """

    def __init__(self, *, name_prefix: str, provider: pulumi.ProviderResource, namespace: str,
                 depends_on: Sequence[pulumi.Resource] = ()):
        self.name_prefix = name_prefix
        self.provider = provider
        self.namespace = namespace
        self.depends_on = list(depends_on)


class GpuHealth(pulumi.ComponentResource):
    """node-problem-detector with the GPU XID monitor on the GPU pools (type ``oke-rdma:health:GpuHealth``).

    Attributes: ``daemon_set``. Raises nothing.
    """

    def __init__(self, name: str, args: GpuHealthArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:health:GpuHealth", name, None, opts)
        prefix = args.name_prefix
        labels = {"app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": prefix,
                  "app.kubernetes.io/managed-by": "pulumi"}
        base = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=args.depends_on)
        meta = lambda namespaced: k8s.meta.v1.ObjectMetaArgs(  # noqa: E731
            name=NAME if namespaced else f"{prefix}-{NAME}", namespace=args.namespace if namespaced else None,
            labels=labels)
        sa = k8s.core.v1.ServiceAccount(f"{prefix}-npd-sa", metadata=meta(True), opts=base)
        role = k8s.rbac.v1.ClusterRole(f"{prefix}-npd-role", metadata=meta(False), rules=[
            k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["nodes"], verbs=["get", "patch"]),
            k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["nodes/status"], verbs=["patch"]),
            k8s.rbac.v1.PolicyRuleArgs(api_groups=["", "events.k8s.io"], resources=["events"],
                                       verbs=["create", "patch", "update"])], opts=base)
        binding = k8s.rbac.v1.ClusterRoleBinding(
            f"{prefix}-npd-binding", metadata=meta(False),
            role_ref=k8s.rbac.v1.RoleRefArgs(api_group="rbac.authorization.k8s.io", kind="ClusterRole",
                                             name=role.metadata.name),
            subjects=[k8s.rbac.v1.SubjectArgs(kind="ServiceAccount", name=sa.metadata.name,
                                              namespace=args.namespace)], opts=base)
        config = k8s.core.v1.ConfigMap(f"{prefix}-npd-config", metadata=meta(True),
                                       data={"gpu-xid-monitor.json": json.dumps(xid_monitor(), indent=1),
                                             "gpu_node_cordoner.py": CORDONER_SCRIPT.read_text()},
                                       opts=base)
        container = k8s.core.v1.ContainerArgs(
            name="node-problem-detector", image=NPD_IMAGE,
            command=["/node-problem-detector", "--logtostderr",
                     "--config.system-log-monitor=/config/gpu-xid-monitor.json"],
            env=[k8s.core.v1.EnvVarArgs(name="NODE_NAME", value_from=k8s.core.v1.EnvVarSourceArgs(
                field_ref=k8s.core.v1.ObjectFieldSelectorArgs(field_path="spec.nodeName")))],
            resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "10m", "memory": "80Mi"},
                                                           limits={"cpu": "100m", "memory": "160Mi"}),
            security_context=k8s.core.v1.SecurityContextArgs(privileged=True, read_only_root_filesystem=True),
            volume_mounts=[k8s.core.v1.VolumeMountArgs(name="kmsg", mount_path="/dev/kmsg", read_only=True),
                           k8s.core.v1.VolumeMountArgs(name="config", mount_path="/config", read_only=True)])
        cordoner = k8s.core.v1.ContainerArgs(
            name="cordoner", image=CORDONER_IMAGE, command=["python3", "/config/gpu_node_cordoner.py"],
            env=[k8s.core.v1.EnvVarArgs(name="NODE_NAME", value_from=k8s.core.v1.EnvVarSourceArgs(
                field_ref=k8s.core.v1.ObjectFieldSelectorArgs(field_path="spec.nodeName")))],
            resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "10m", "memory": "32Mi"},
                                                           limits={"cpu": "100m", "memory": "64Mi"}),
            security_context=k8s.core.v1.SecurityContextArgs(
                allow_privilege_escalation=False, read_only_root_filesystem=True, run_as_non_root=True,
                run_as_user=65534, capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"]),
                seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault")),
            volume_mounts=[k8s.core.v1.VolumeMountArgs(name="config", mount_path="/config", read_only=True)])
        affinity = k8s.core.v1.AffinityArgs(node_affinity=k8s.core.v1.NodeAffinityArgs(
            required_during_scheduling_ignored_during_execution=k8s.core.v1.NodeSelectorArgs(node_selector_terms=[
                k8s.core.v1.NodeSelectorTermArgs(match_expressions=[k8s.core.v1.NodeSelectorRequirementArgs(
                    key=GPU_NODE_LABEL, operator="Exists")])])))
        self.daemon_set = k8s.apps.v1.DaemonSet(f"{prefix}-npd", metadata=meta(True), spec=k8s.apps.v1.DaemonSetSpecArgs(
            selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"app.kubernetes.io/name": NAME}),
            template=k8s.core.v1.PodTemplateSpecArgs(
                metadata=k8s.meta.v1.ObjectMetaArgs(labels=labels),
                spec=k8s.core.v1.PodSpecArgs(
                    service_account_name=sa.metadata.name, affinity=affinity, priority_class_name="system-node-critical",
                    tolerations=[k8s.core.v1.TolerationArgs(operator="Exists", effect="NoSchedule"),
                                 k8s.core.v1.TolerationArgs(operator="Exists", effect="NoExecute")],
                    containers=[container, cordoner],
                    volumes=[k8s.core.v1.VolumeArgs(name="kmsg", host_path=k8s.core.v1.HostPathVolumeSourceArgs(
                                 path="/dev/kmsg", type="CharDevice")),
                             k8s.core.v1.VolumeArgs(name="config", config_map=k8s.core.v1.ConfigMapVolumeSourceArgs(
                                 name=config.metadata.name))]))),
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider,
                                        depends_on=[*args.depends_on, binding, config]))
        self.register_outputs({"condition": CONDITION})
