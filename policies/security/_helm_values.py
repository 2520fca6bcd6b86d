"""What a Helm release's values say about the pods its chart renders: the well-known privilege settings wherever
they sit in the values tree (:func:`values_findings`), the namespaces the values send rendered objects to
(:func:`values_namespaces`), and the inputs that change the manifests where the pack cannot see
(:func:`hidden_inputs`). Used by the pod-privilege rules (``pod_security``).

Sources (checked 2026-11-30): Kubernetes docs "Pod Security Standards"; Helm docs "Values Files"; pulumi_kubernetes
4.34.2 ``helm.sh/v3:Release`` (``values``, ``valueYamlFiles``, ``postrender``) and ``helm.sh/v4:Chart``
(``postRenderer``); prometheus-community/helm-charts ``prometheus-node-exporter`` ``_helpers.tpl``
(``namespaceOverride``, checked 2026-12-01).
"""
from __future__ import annotations

from typing import Any

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._objects import OBJECT_HOOK_KEYS, object_type
    from ._values_pods import NAMESPACE_OVERRIDE_KEYS, values_namespaces  # noqa: F401 (re-exported)
    from ._pss import BASELINE_SYSCTLS, Finding, _capability_findings, _flag, _host_path_finding
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import OBJECT_HOOK_KEYS, object_type
    from _values_pods import NAMESPACE_OVERRIDE_KEYS, values_namespaces  # noqa: F401 (re-exported)
    from _pss import BASELINE_SYSCTLS, Finding, _capability_findings, _flag, _host_path_finding
    from _rules import UNKNOWN, elements, read


def values_findings(values: Any, path: str = "values") -> list[Finding]:
    """Privilege settings anywhere in a Helm values tree (see the module docstring)."""
    if values is UNKNOWN:
        return [("escape", f"{path} is unknown during preview, so its privilege settings cannot be judged")]
    found: list[Finding] = []
    if isinstance(values, (list, tuple)) or (hasattr(values, "__len__") and hasattr(values, "__getitem__")
                                             and not isinstance(values, (str, dict)) and not hasattr(values, "keys")):
        for i, item in enumerate(elements(values)):
            found += values_findings(item, f"{path}[{i}]")
        return found
    if not hasattr(values, "keys"):
        return found
    if object_type(values) is not None and read(values, "metadata") is not None:
        return found  # a whole object rendered verbatim: judged as that object (``_objects.with_derived``)
    for key in list(values.keys()):
        value = read(values, key)
        where = f"{path}.{key}"
        if key in OBJECT_HOOK_KEYS:
            continue  # objects rendered verbatim: judged as those objects, in their own namespaces
        if key in ("hostNetwork", "hostPID", "hostIPC", "privileged"):
            flag = _flag(value)
            kind = "escape" if key in ("hostPID", "hostIPC") else "baseline"
            if flag is UNKNOWN:
                found.append((kind, f"{where} is unknown during preview"))
            elif flag:
                found.append((kind, f"{where}: true"))
        elif key == "allowPrivilegeEscalation" and _flag(value) is not False:
            found.append(("restricted", f"{where}: {value!r}"))
        elif key == "runAsUser" and (value is UNKNOWN or value == 0):
            found.append(("restricted", f"{where}: {'unknown' if value is UNKNOWN else 0}"))
        elif key == "hostPort" and value not in (None, 0):
            found.append(("baseline", f"{where}: {value!r}"))
        elif key in ("seccompProfile", "appArmorProfile") and (value is UNKNOWN or read(value, "type") in (
                UNKNOWN, "Unconfined")):
            found.append(("baseline", f"{where}.type: Unconfined or unknown"))
        elif key == "procMount" and value not in (None, "Default"):
            found.append(("baseline", f"{where}: {value!r}"))
        elif key == "hostProcess" and _flag(value) is not False:
            found.append(("baseline", f"{where}: {value!r}"))
        elif key == "sysctls":  # under any name: ``podSecurityContext.operator.sysctls`` (keda) is a pod's too
            items = elements(value)
            names = ["unknown"] if items is UNKNOWN else [read(x, "name") for x in items]
            found += [("baseline", f"{where} {n}") for n in names if n not in BASELINE_SYSCTLS]
            continue
        elif key == "add" and path.endswith(".capabilities"):
            found += _capability_findings(value, where)
            continue
        elif key == "hostPath":
            inner = read(value, "path") if hasattr(value, "keys") else value
            if inner is not None and (inner is UNKNOWN or isinstance(inner, str)):
                found.append(_host_path_finding(inner, where))
                continue
        if value is UNKNOWN or isinstance(value, (str, int, float, bool)) or value is None:
            continue
        found += values_findings(value, where)
    return found


def hidden_inputs(props: Any) -> list[str]:
    """Inputs of a Helm release/chart that change its manifests where the pack cannot see: values files (assets;
    ``valueYamlFiles``) and post renderers (``postrender`` of helm.sh/v3 Release, ``postRenderer`` of helm.sh/v4
    Chart: a program that rewrites the rendered manifests)."""
    found = []
    files = elements(read(props, "valueYamlFiles"))
    if files is UNKNOWN or files:
        found.append("takes values from valueYamlFiles")
    for key in ("postrender", "postRenderer"):
        value = read(props, key)
        if value is UNKNOWN or value not in (None, "", {}):
            found.append(f"sets {key}")
    return found
