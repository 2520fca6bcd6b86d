"""Pod Security Standards facts shared by the pod-privilege rules: what the *baseline* level allows.

Source: Kubernetes docs "Pod Security Standards" (baseline controls "Capabilities", "Seccomp", "AppArmor", "SELinux",
"/proc Mount Type", "Sysctls", "HostProcess"; checked 2026-11-30).
"""
from __future__ import annotations

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
