"""Pod Security Standards facts shared by the pod-privilege rules: what the *baseline* level allows, and which
settings hand a container its node (node escape), with the helpers that classify them.

Source: Kubernetes docs "Pod Security Standards" (baseline controls "Capabilities", "Seccomp", "AppArmor", "SELinux",
"/proc Mount Type", "Sysctls", "HostProcess"; checked 2026-11-30).
"""
from __future__ import annotations

import posixpath
from typing import Any

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
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
#: Host paths whose mount controls the node: the path itself, anything under it, and every ancestor of it
#: (``/`` contains them all). ``/dev`` counts only as a whole (RDMA pods mount ``/dev/infiniband``).
#: Namespaces where node agents (the GPU Operator's, kube-prometheus-stack's node exporter) may escape to the node:
#: the default of node-escape-only-in-node-agent-namespaces' ``nodeAgentNamespaces``; RBAC treats them as system
#: namespaces (creating pods there reaches every node).
NODE_ESCAPE_NAMESPACES = ("gpu-operator", "monitoring")
NODE_ESCAPE_PATHS = ("/etc", "/proc", "/sys", "/root", "/boot", "/home", "/run", "/var/run", "/var/lib/kubelet",
                     "/var/lib/containerd", "/var/lib/docker", "/var/log/pods", "/usr", "/bin", "/sbin", "/lib",
                     "/lib64", "/opt/cni")  # /lib64 → /usr/lib64 on Oracle Linux; the runtime runs /opt/cni/bin as root
_FALSE_TEXT = ("false", "0", "no", "off", "")


def _cap(name: Any) -> Any:
    return name.upper().removeprefix("CAP_") if isinstance(name, str) else name


def node_escape_path(path: Any) -> Any:
    """True when mounting host ``path`` controls the node; UNKNOWN for an unknown or non-string path."""
    if path is UNKNOWN or not isinstance(path, str) or not path.startswith("/"):
        return UNKNOWN
    p = posixpath.normpath("/" + path.strip().lstrip("/"))
    if p in ("/", "/dev", "/var", "/var/lib"):
        return True
    return any(p == s or p.startswith(s + "/") or s.startswith(p + "/") for s in NODE_ESCAPE_PATHS)


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


#: Charts whose pods are node agents (they need the node: drivers, device plugins, the container toolkit, node
#: metrics). A namespace that holds a release of one of them is a node-agent namespace wherever it is named. Sources:
#: NVIDIA GPU Operator docs ("the operator's DaemonSets run privileged with host paths"), prometheus-community charts
#: ``kube-prometheus-stack`` / ``prometheus-node-exporter`` (node exporter: hostPID, hostNetwork, hostPath ``/``),
#: NVIDIA Network Operator docs (RDMA shared device plugin, OFED driver); checked 2026-11-30.
NODE_AGENT_CHARTS = frozenset({"gpu-operator", "kube-prometheus-stack", "prometheus-node-exporter",
                               "network-operator"})


def node_agent_namespaces(resources: list, helm_types: tuple, chart_name) -> set:
    """Namespaces of the stack's Helm releases whose chart (``chart_name(props)``) is in :data:`NODE_AGENT_CHARTS`
    and whose namespace is known."""
    found = set()
    for r in resources:
        if r.resource_type in helm_types and chart_name(r.props) in NODE_AGENT_CHARTS:
            ns = read(r.props, "namespace")
            if isinstance(ns, str):
                found.add(ns)
            found.update(n for n in (read(d.props, "metadata", "name") for d in r.property_dependencies.get(
                "namespace", [])) if isinstance(n, str))
    return found
