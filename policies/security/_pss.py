"""Pod Security Standards facts shared by the pod-privilege rules: what the *baseline* level allows, and which
settings hand a container its node (node escape), with the helpers that classify them.

Source: Kubernetes docs "Pod Security Standards" (baseline controls "Capabilities", "Seccomp", "AppArmor", "SELinux",
"/proc Mount Type", "Sysctls", "HostProcess"; checked 2026-11-30).
"""
from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import posixpath
import re
from typing import Any

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._clusters import visible_platform_namespaces
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _clusters import visible_platform_namespaces
    from _rules import UNKNOWN, elements, read

#: Capabilities Pod Security baseline allows to be added (Kubernetes docs "Pod Security Standards", "Capabilities"
#: control; checked 2026-11-30); adding any other needs a privileged namespace.
BASELINE_CAPABILITIES = frozenset({"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                                   "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"})
#: Values Pod Security baseline allows (Kubernetes docs "Pod Security Standards", baseline controls "Seccomp",
#: "AppArmor", "SELinux", "/proc Mount Type", "Sysctls"; checked 2026-11-30).
BASELINE_SELINUX_TYPES = ("container_t", "container_init_t", "container_kvm_t", "container_engine_t")
BASELINE_SYSCTLS = frozenset({"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_local_reserved_ports",
                              "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies",
                              "net.ipv4.ping_group_range", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                              "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"})


def context_privileges(ctx: Any, label: str) -> list[str]:
    """Baseline-forbidden settings of a pod or container ``securityContext``: an Unconfined seccomp or AppArmor
    profile, an SELinux type outside :data:`BASELINE_SELINUX_TYPES` (or a user/role), Windows hostProcess, an
    Unmasked /proc, sysctls outside :data:`BASELINE_SYSCTLS`; unknown values count (fail closed)."""
    found = []
    checks = ((("seccompProfile", "type"), lambda v: v == "Unconfined"),
              (("appArmorProfile", "type"), lambda v: v == "Unconfined"),
              (("seLinuxOptions", "type"), lambda v: v not in ("",) + BASELINE_SELINUX_TYPES),
              (("seLinuxOptions", "user"), lambda v: v != ""), (("seLinuxOptions", "role"), lambda v: v != ""),
              (("windowsOptions", "hostProcess"), lambda v: v is not False),
              (("procMount",), lambda v: v != "Default"))
    for path, bad in checks:
        value = read(ctx, *path)
        if value is UNKNOWN or (value is not None and bad(value)):
            found.append(f"{label}securityContext.{'.'.join(path)}: "
                         f"{'unknown during preview' if value is UNKNOWN else repr(value)}")
    sysctls = elements(read(ctx, "sysctls"))
    names = ["unknown during preview"] if sysctls is UNKNOWN else [
        read(x, "name") for x in sysctls if x is UNKNOWN or read(x, "name") not in BASELINE_SYSCTLS]
    found += [f"{label}securityContext.sysctls {n if isinstance(n, str) else 'unknown'}" for n in names]
    return found


#: Capabilities that hand a container the node (capabilities(7): mount, ptrace other processes, load kernel
#: modules, raw I/O, bypass file read checks, load BPF programs, reconfigure the host network; ALL includes them).
NODE_ESCAPE_CAPABILITIES = frozenset({"ALL", "SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE", "SYS_RAWIO", "SYS_BOOT",
                                      "DAC_READ_SEARCH", "BPF", "NET_ADMIN", "SYSLOG", "SYS_TIME", "MAC_ADMIN"})
#: Namespaces where node agents (Cilium's agent, the GPU Operator's, kube-prometheus-stack's node exporter) may
#: escape to the node: the default of node-escape-only-in-node-agent-namespaces' ``nodeAgentNamespaces``; RBAC treats
#: them as system namespaces (creating pods there reaches every node).
NODE_ESCAPE_NAMESPACES = ("cilium", "gpu-operator", "monitoring")
#: Host paths whose mount controls the node, named for the record (each is covered by the shape below): the runtime's
#: state (OKE's managed nodes run CRI-O — /var/lib/containers, /var/lib/crio, /var/run/crio —; containerd's and
#: docker's for other images), the kubelet's (/var/lib/kubelet, /etc/kubernetes), cron and at (/var/spool/cron,
#: /etc/cron*), cloud-init (/var/lib/cloud: ``scripts/per-boot`` runs as root at every boot, ``instance/`` keeps the
#: user data; /etc/cloud), systemd units (/etc/systemd, /usr/lib/systemd, /run/systemd), /etc/ld.so.preload,
#: /etc/profile.d, /etc/sudoers.d, /root and /home/*/.ssh, the CNI plugins (/opt/cni/bin runs as root, /etc/cni,
#: /var/lib/cni), /var/log (symlinks there read any host file through the kubelet's /logs endpoint: Aqua Security,
#: "Kubernetes Pod Escape Using Log Mounts"), /proc, /sys, raw devices under /dev (/dev/mem, /dev/sda, /dev/nvme0n1).
NODE_ESCAPE_PATHS = ("/etc", "/proc", "/sys", "/root", "/boot", "/home", "/run", "/var/run", "/var/lib/kubelet",
                     "/var/lib/containerd", "/var/lib/docker", "/var/lib/containers", "/var/lib/crio",
                     "/var/lib/cni", "/var/lib/cloud", "/var/log", "/var/spool", "/usr", "/bin", "/sbin", "/lib",
                     "/lib64", "/opt/cni", "/dev/mem", "/etc/oke")
#: Deny by default: the only host paths whose mount does NOT control the node — the RDMA verbs devices, the kernel
#: log node-problem-detector reads, and the data roots where local NVMe scratch and caches live (``/mnt``,
#: ``/data``, ``/scratch``, ``/local``, ``/nvme``, ``/raid``, ``/srv``, ``/var/cache``). Every other path (and
#: every ancestor of an allowed one, ``/`` and ``/var`` among them) is node escape: the host's system trees are too
#: many to list (cloud-init's /var/lib/cloud was missing from a list once), and a new one appears with each agent.
#: A mount under an allowed root still needs a privileged namespace (Pod Security baseline forbids every hostPath).
HARMLESS_HOST_PATHS = ("/dev/infiniband", "/dev/kmsg", "/mnt", "/data", "/scratch", "/local", "/nvme", "/raid",
                       "/srv", "/var/cache")
_FALSE_TEXT = ("false", "0", "no", "off", "")


def _cap(name: Any) -> Any:
    return name.upper().removeprefix("CAP_") if isinstance(name, str) else name


def node_escape_path(path: Any) -> Any:
    """True when mounting host ``path`` controls the node — every path outside :data:`HARMLESS_HOST_PATHS` (deny by
    default); UNKNOWN for an unknown or non-string path."""
    if path is UNKNOWN or not isinstance(path, str) or not path.startswith("/"):
        return UNKNOWN
    p = posixpath.normpath("/" + path.strip().lstrip("/"))
    if p.startswith("//"):
        p = "/" + p.lstrip("/")
    return not any(p == s or p.startswith(s + "/") for s in HARMLESS_HOST_PATHS)


# --- findings: (severity class, text) where class is "escape", "baseline" or "restricted" --------------------------
Finding = tuple[str, str]


def _flag(value: Any) -> Any:
    """A Helm value read as a flag, failing closed: only false, 0, null and the usual "false" spellings are off."""
    if value is UNKNOWN:
        return UNKNOWN
    if value is None or value is False or (isinstance(value, (int, float)) and not isinstance(value, bool)
                                           and value == 0):
        return False
    return not (isinstance(value, str) and value.strip().lower() in _FALSE_TEXT)


def _capability_findings(added: Any, where: str) -> list[Finding]:
    caps = [added] if isinstance(added, str) else elements(added)
    if caps is UNKNOWN or any(c is UNKNOWN for c in caps):
        return [("escape", f"{where} may add capabilities (unknown during preview)")]
    found = []
    for cap in (_cap(c) for c in caps):
        if cap in NODE_ESCAPE_CAPABILITIES:
            found.append(("escape", f"{where} adds {cap}"))
        elif cap not in BASELINE_CAPABILITIES:
            found.append(("baseline", f"{where} adds {cap}"))
    return found


def _host_path_finding(path: Any, where: str) -> Finding:
    escape = node_escape_path(path)
    if escape is UNKNOWN:
        return ("escape", f"{where} mounts host path {path!r}, which cannot be judged")
    return ("escape" if escape else "baseline", f"{where} mounts host path {path}")


#: Charts whose pods are node agents: what they render by default needs the node (drivers, device plugins, the
#: container toolkit, node metrics), so a release of one is itself node escape and goes only to a configured
#: node-agent namespace; it never makes the namespace it lands in one. Matched by chart name (an ``oci://`` or URL
#: chart by its last path element), case-insensitively, whatever repository serves it — a look-alike from another
#: repository renders what its author chose, which the pack cannot read either. Sources (checked 2026-12-01):
#: NVIDIA GPU Operator docs and chart values (operator DaemonSets privileged with host paths; its subcharts
#: node-feature-discovery — worker mounts /boot, /sys, /usr/lib, /etc/kubernetes/node-feature-discovery — and the
#: standalone dcgm-exporter — SYS_ADMIN — and k8s-device-plugin / nvidia-device-plugin —
#: /var/lib/kubelet/device-plugins); prometheus-community ``kube-prometheus-stack`` and ``prometheus-node-exporter``
#: (hostPID, hostNetwork, hostPath ``/``); NVIDIA Network Operator docs (OFED driver container, RDMA shared device
#: plugin); Cilium chart 1.20.0 (the agent DaemonSet: privileged init containers, hostNetwork, NET_ADMIN/BPF/SYS_ADMIN,
#: host paths /sys/fs/bpf, /opt/cni/bin, /etc/cni/net.d, /proc).
NODE_AGENT_CHARTS = frozenset({"cilium", "gpu-operator", "kube-prometheus-stack", "prometheus-node-exporter",
                               "network-operator", "node-feature-discovery", "dcgm-exporter", "k8s-device-plugin",
                               "nvidia-device-plugin"})


def is_node_agent_chart(name: Any) -> bool:
    """Whether chart ``name`` (as ``kubernetes.chart_name`` reads it) is one of :data:`NODE_AGENT_CHARTS`."""
    return isinstance(name, str) and name.strip().lower() in NODE_AGENT_CHARTS


RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"
GPU_QUOTA_KEY = "requests.nvidia.com/gpu"
NAMESPACE_TYPE = "kubernetes:core/v1:Namespace"
#: The label oke-rdma puts on every tenant namespace (its value: the tenant's name).
TENANT_LABEL = "okerdma.io/tenant"
_LOCAL_QUEUE = re.compile(r"^kubernetes:kueue\.x-k8s\.io/[^:]+:LocalQueue(Patch)?$")


@functools.lru_cache(maxsize=1)
def _quantity_parser() -> Any:
    """``parse_quantity`` of the Kubernetes Python client (``kubernetes/utils/quantity.py``, kubernetes==35.0.0),
    loaded from the installed distribution's file: the pack has a module named ``kubernetes`` of its own (run from
    inside ``policies/security/``), which shadows the client's package, and the file needs only ``decimal``."""
    path = importlib.metadata.distribution("kubernetes").locate_file("kubernetes/utils/quantity.py")
    spec = importlib.util.spec_from_file_location("_k8s_client_quantity", str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parse_quantity


def gpu_quantity(value: Any) -> Any:
    """A quota value as a number with the Kubernetes client's quantity parser (``"16"`` → 16, ``"0"`` → 0,
    ``"1k"`` → 1000); None for a value it cannot parse or an unknown one."""
    if value is UNKNOWN or value is None or isinstance(value, bool):
        return None
    try:
        return _quantity_parser()(value)
    except (ValueError, TypeError, ArithmeticError):
        return None


def gpu_tenant_namespaces(resources: list, positive: bool = True) -> tuple[set, set]:
    """(names, URNs) of the Namespaces a ResourceQuota capping ``requests.nvidia.com/gpu`` lives in (by its
    ``metadata.namespace`` or its ``metadata`` dependency on a Namespace) — Kubernetes docs "Resource Quotas"
    (extended resources as ``requests.<resource>``; a hard limit of 0 forbids the resource). With ``positive`` only a
    quota of more than 0 GPUs (parsed with the Kubernetes client's quantity parser) counts: a namespace that may run
    no GPU pod is no GPU tenant; an unknown or unparseable value does not count either (fail closed for privilege)."""
    names: set = set()
    urns: set = set()
    for quota in (r for r in resources if r.resource_type == RESOURCE_QUOTA):
        hard = read(quota.props, "spec", "hard")
        if hard is UNKNOWN or not hasattr(hard, "keys") or GPU_QUOTA_KEY not in list(hard.keys()):
            continue
        if positive:
            amount = gpu_quantity(read(hard, GPU_QUOTA_KEY))
            if amount is None or amount <= 0:
                continue
        ns = read(quota.props, "metadata", "namespace")
        if isinstance(ns, str):
            names.add(ns)
        urns.update(d.urn for d in quota.property_dependencies.get("metadata", [])
                    if d.resource_type == NAMESPACE_TYPE)
    return names, urns


def tenant_namespaces(resources: list) -> set:
    """Names of the namespaces the stack gives tenants: a GPU ResourceQuota in it (:func:`gpu_tenant_namespaces`), a
    Kueue ``LocalQueue`` in it (Kueue docs "Local Queue": where a tenant's jobs are submitted), or a Namespace
    labelled :data:`TENANT_LABEL`. None of them may be a node-agent namespace, whatever the config says."""
    names, urns = gpu_tenant_namespaces(resources, positive=False)  # any GPU quota: stricter only
    for r in resources:
        if _LOCAL_QUEUE.match(r.resource_type):
            ns = read(r.props, "metadata", "namespace")
            names.update([ns] if isinstance(ns, str) else [])
            names.update(n for n in (read(d.props, "metadata", "name") for d in r.property_dependencies.get(
                "metadata", []) if d.resource_type == NAMESPACE_TYPE) if isinstance(n, str))
        elif r.resource_type in (NAMESPACE_TYPE, NAMESPACE_TYPE + "Patch"):
            name, label = read(r.props, "metadata", "name"), read(r.props, "metadata", "labels", TENANT_LABEL)
            if isinstance(name, str) and (r.urn in urns or label is not None):
                names.add(name)  # an unknown label value counts too
    return names


def node_agent_namespaces(config: Any, resources: list) -> set:
    """The namespaces where node agents may escape to the node: ``nodeAgentNamespaces`` of a policy's config (default
    :data:`NODE_ESCAPE_NAMESPACES`), less every tenant namespace of the stack (:func:`tenant_namespaces`). Nothing
    else — neither a release of a node-agent chart nor its namespace, release name or ``createNamespace`` — makes a
    namespace one. On another cluster than the stack's own (``_clusters``), a configured namespace counts only when the
    stack declares that Namespace there: the stack cannot see what another cluster's namespaces are."""
    configured = (config or {}).get("nodeAgentNamespaces") or list(NODE_ESCAPE_NAMESPACES)
    return visible_platform_namespaces(configured, resources) - tenant_namespaces(resources)
