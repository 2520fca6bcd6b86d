"""Pod-spec-shaped fragments of a Helm release's values, presented to the pod rules as pod specs.

A chart copies the values it documents for its pods into the pod specs it renders: ``tolerations``,
``priorityClassName``, ``nodeSelector`` and ``affinity``, ``hostNetwork``, ``runtimeClassName``, extra volumes, a
(pod or container) ``securityContext``, ``env``, ``resources``. Which key lands in which pod is the chart's own
template; the key's meaning is Kubernetes'. So every map anywhere in the values tree that holds such keys is read as a
(partial) pod spec — one per map, so that a rule's message names where in the values the setting sits — and judged
by every pod rule as if a pod of that spec ran in the release's namespace (and in every ``namespaceOverride``
namespace): ``tenant-pods-scheduled-by-the-platform`` (tolerations, nodeName, node picks),
``tenant-volumes-through-claims`` (inline ``nfs``, claim templates), ``system-priority-only-for-node-agents``,
``pods-keep-the-privileged-port-floor`` (sysctls), ``tenant-pods-run-as-their-storage-ids`` (run-as IDs),
``gpu-pods-only-in-tenant-namespaces`` (device requests), ``gpu-devices-through-device-plugin`` and
``gpu-env-from-sources-without-gpus`` (env, runtime class, resource claims). The privilege keys of Pod Security stay
with ``helm-values-pod-security`` and ``node-escape-only-in-node-agent-namespaces`` (``_helm_values``).

The shapes, with the field a fragment becomes:

* pod keys (:data:`POD_KEYS`) at a map: the same field of the fragment's pod spec;
* a list under a key ending in ``olumes`` (``volumes``, ``extraVolumes``, ``additionalVolumes`` ...): ``volumes``;
  a map anywhere that carries a volume source the rules read (:data:`VOLUME_SOURCES`: ``nfs``, ``hostPath``,
  ``persistentVolumeClaim``, ``ephemeral``) is one volume too (``persistence.nfs`` ...);
* a map that holds a security-context field (:data:`SECURITY_KEYS`: ``sysctls``, ``runAsUser``, ``capabilities``
  ...) under whatever name (``podSecurityContext.operator``, ``containerSecurityContext``): both the pod's and a
  container's ``securityContext``, as the chart may put it on either;
* container keys (:data:`CONTAINER_KEYS`: ``env``/``extraEnv`` (a list, or a map of names to values),
  ``envFrom``/``extraEnvFrom``), and a map holding ``limits`` or ``requests`` maps (``resources``,
  ``resources.operator``): one container.

Fail closed: a pod key, volume list or container key whose value has not the Kubernetes shape (a YAML string the chart
renders with ``tpl``, a number where a list belongs) cannot be placed, and comes back as an
:class:`~_pod_fields.Uninterpretable` spec that ``helm-values-pod-security`` refuses in every namespace. Objects the
chart renders verbatim (``_objects.OBJECT_HOOK_KEYS``, maps that are whole objects) are judged as those objects.

Sources (checked 2026-12-02): Kubernetes API reference v1.34 ``PodSpec``, ``Container``, ``PodSecurityContext``,
``SecurityContext``, ``Volume``; Helm docs "Values Files", "Chart Template Guide" (``toYaml`` of a value into a
template); kedacore/charts keda 2.20.2 ``values.yaml`` (``podSecurityContext.operator``, ``tolerations``,
``priorityClassName``, ``volumes.keda.extraVolumes``); prometheus-community kube-prometheus-stack ``values.yaml``
(``*.tolerations``, ``*.securityContext``).
"""
from __future__ import annotations

from typing import Any

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._plain import OBJECT_HOOK_KEYS, Derived, object_type, plain
    from ._pod_fields import Uninterpretable
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _plain import OBJECT_HOOK_KEYS, Derived, object_type, plain
    from _pod_fields import Uninterpretable
    from _rules import UNKNOWN, elements, read

#: The type token of the pod specs derived from a release's values (``_objects.derived_resources``); its ``spec`` is
#: a list of (where, pod spec) pairs (``_pod_templates.pod_specs``).
VALUES_PODS = "kubernetes:helm.sh/values:HelmValues"

#: PodSpec fields a chart passes through from its values, with the shape Kubernetes gives them.
POD_KEYS: dict[str, tuple[type, ...]] = {
    "tolerations": (list,), "priorityClassName": (str,), "nodeName": (str,), "nodeSelector": (dict,),
    "affinity": (dict,), "runtimeClassName": (str,), "schedulerName": (str,), "resourceClaims": (list,),
    "hostNetwork": (bool,), "hostPID": (bool,), "hostIPC": (bool,), "hostUsers": (bool,),
    "shareProcessNamespace": (bool,), "serviceAccountName": (str,), "automountServiceAccountToken": (bool,),
    "topologySpreadConstraints": (list,), "hostAliases": (list,),
}
#: Volume sources the pod rules read (``nfs``: tenant-volumes-through-claims; ``hostPath``: the Pod Security rules;
#: ``persistentVolumeClaim`` and ``ephemeral``: the claim rules), recognised in any map of the values.
VOLUME_SOURCES = frozenset({"nfs", "hostPath", "persistentVolumeClaim", "ephemeral"})
#: Fields of ``PodSecurityContext`` or ``SecurityContext``: a map holding one is a security context.
SECURITY_KEYS = frozenset({"sysctls", "capabilities", "privileged", "allowPrivilegeEscalation", "runAsUser",
                           "runAsGroup", "runAsNonRoot", "procMount", "seccompProfile", "appArmorProfile",
                           "seLinuxOptions", "fsGroup", "supplementalGroups", "readOnlyRootFilesystem",
                           "windowsOptions", "fsGroupChangePolicy", "supplementalGroupsPolicy"})
#: Container fields a chart passes through, by the values key that carries them.
CONTAINER_KEYS = {"env": "env", "extraEnv": "env", "extraEnvVars": "env", "additionalEnv": "env",
                  "envFrom": "envFrom", "extraEnvFrom": "envFrom"}
#: Fields of ``ResourceRequirements``: a map holding one as a map (``resources``, ``resources.operator``) is a
#: container's ``resources``.
RESOURCE_KEYS = ("limits", "requests")


def _volumes_key(key: str) -> bool:
    return key.lower().endswith("olumes") and key not in VOLUME_SOURCES


def _env_list(value: Any) -> Any:
    """An ``env`` value as Kubernetes' list of ``{name, value}`` (a map of names to values, as many charts take it,
    becomes that list); None when it has neither shape."""
    if isinstance(value, list):
        return value if all(isinstance(e, dict) or e is UNKNOWN for e in value) else None
    if isinstance(value, dict):
        return [{"name": k, **(v if isinstance(v, dict) else {"value": v})} for k, v in value.items()]
    return None


def _fragment(node: dict, where: str, out: list) -> set:
    """Append the pod spec the keys of one values map make (and Uninterpretable entries for keys it cannot place);
    return the keys consumed (not walked further)."""
    pod: dict = {}
    container: dict = {}
    used: set = set()
    for key, value in node.items():
        if value is None:
            continue
        at = f"{where}.{key}"
        if key in POD_KEYS:
            used.add(key)
            if value is UNKNOWN or isinstance(value, POD_KEYS[key]):
                pod[key] = value
            elif POD_KEYS[key] == (bool,):
                pass  # a flag spelled otherwise ("true"): helm-values-pod-security reads it as Helm does (_flag)
            elif not (isinstance(value, str) and value == ""):
                out.append((at, Uninterpretable(f"{at} is a {type(value).__name__}, not the {POD_KEYS[key][0].__name__} "
                                                "a pod spec takes, so what the chart renders from it cannot be read")))
        elif _volumes_key(key) and (isinstance(value, (list, str)) or value is UNKNOWN):
            used.add(key)
            if value is UNKNOWN or (isinstance(value, list) and all(isinstance(v, dict) or v is UNKNOWN
                                                                    for v in value)):
                pod.setdefault("volumes", [])
                pod["volumes"] = UNKNOWN if value is UNKNOWN or pod["volumes"] is UNKNOWN else pod["volumes"] + value
            elif value != "":
                out.append((at, Uninterpretable(f"{at} is not a list of volumes (a YAML string the chart renders?), "
                                                "so the volumes it adds cannot be read")))
        elif key in VOLUME_SOURCES and (isinstance(value, dict) or value is UNKNOWN):
            used.add(key)
            volumes = pod.setdefault("volumes", [])
            if volumes is not UNKNOWN:
                volumes.append({"name": where.rsplit(".", 1)[-1], key: value})
        elif key in CONTAINER_KEYS:
            field = CONTAINER_KEYS[key]
            shaped = value if value is UNKNOWN else (_env_list(value) if field == "env" else
                                                     value if isinstance(value, list) else None)
            if shaped is None:
                if value != "":
                    out.append((at, Uninterpretable(f"{at} has not the shape of a container's {field}, so what the "
                                                    "chart renders from it cannot be read")))
            elif field == "env" and isinstance(container.get("env"), list) and isinstance(shaped, list):
                container["env"] = container["env"] + shaped
            else:
                container[field] = shaped
            used.add(key)
    amounts = {k: node[k] for k in RESOURCE_KEYS if isinstance(node.get(k), dict) or node.get(k) is UNKNOWN}
    if amounts:
        container["resources"] = amounts
        used |= set(amounts)
    if any(k in SECURITY_KEYS for k in node):
        context = {k: v for k, v in node.items() if k in SECURITY_KEYS}
        pod["securityContext"] = context
        container["securityContext"] = context
        used |= set(context)
    if container:
        pod["containers"] = [{"name": where, **container}]
    if pod:
        out.append((where, pod))
    return used


def values_pod_specs(values: Any, path: str = "values") -> list[tuple[str, Any]]:
    """(where in values, partial pod spec or Uninterpretable) of every pod-spec-shaped map of a release's values (see
    the module docstring); one UNKNOWN spec when the values are unknown."""
    values = plain(values)
    if values is UNKNOWN:
        return [(path, UNKNOWN)]
    out: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [(path, values)]
    while stack:  # iterative: deep values never exhaust the interpreter's recursion limit
        where, node = stack.pop()
        if isinstance(node, list):
            stack += [(f"{where}[{i}]", v) for i, v in reversed(list(enumerate(node)))]
            continue
        if not isinstance(node, dict):
            continue
        if object_type(node) is not None and isinstance(node.get("metadata"), dict):
            continue  # a whole object rendered verbatim: judged as that object (``_objects.with_derived``)
        used = _fragment(node, where, out)
        stack += [(f"{where}.{k}", v) for k, v in reversed(list(node.items()))
                  if k not in used and k not in OBJECT_HOOK_KEYS]
    return sorted(out, key=lambda p: p[0])


#: Values keys that move what a chart renders out of the release's namespace: the prometheus-community charts'
#: ``namespaceOverride`` (prometheus-node-exporter ``_helpers.tpl`` ``prometheus-node-exporter.namespace``: the value,
#: else ``.Release.Namespace``; kube-prometheus-stack and its sub-charts take it too; checked 2026-12-01).
NAMESPACE_OVERRIDE_KEYS = ("namespaceOverride",)


def values_namespaces(values: Any) -> set:
    """The namespaces a release's values send rendered objects to (:data:`NAMESPACE_OVERRIDE_KEYS` at any depth,
    outside objects rendered verbatim, which carry their own); UNKNOWN among them when one is unknown or not a
    string."""
    found: set = set()
    if values is UNKNOWN:
        return {UNKNOWN}
    if hasattr(values, "keys"):
        if object_type(values) is not None and read(values, "metadata") is not None:
            return found
        for key in list(values.keys()):
            value = read(values, key)
            if key in OBJECT_HOOK_KEYS:
                continue
            if key in NAMESPACE_OVERRIDE_KEYS:
                if value is UNKNOWN or (value not in (None, "") and not isinstance(value, str)):
                    found.add(UNKNOWN)
                elif value:
                    found.add(value)
            elif value is not UNKNOWN and not isinstance(value, (str, int, float, bool)) and value is not None:
                found |= values_namespaces(value)
    elif not isinstance(values, str) and hasattr(values, "__len__") and hasattr(values, "__getitem__"):
        items = elements(values)
        for item in ([] if items is UNKNOWN else items):
            found |= values_namespaces(item)
    return found


def values_pods(release: Any, namespaces: set) -> list[Derived]:
    """The release's values pod specs as one :class:`Derived` resource per namespace its pods land in: the
    release's (``namespace``) and each of ``namespaces`` (its values' ``namespaceOverride``; UNKNOWN for an unknown
    one). None when the values hold no pod-spec-shaped map."""
    specs = values_pod_specs(read(release.props, "values", default={}))
    if not specs:
        return []
    deps = list(getattr(release, "property_dependencies", {}).get("namespace", []))
    home = read(release.props, "namespace")
    out = []
    for ns in [home] + sorted((n for n in namespaces if n != home), key=str):
        meta = {} if ns is None else {"namespace": ns}
        out.append(Derived(VALUES_PODS, {"metadata": meta, "spec": specs}, release.urn,
                           f"{release.name}" + ("" if ns is home else f" (namespaceOverride {ns})"),
                           {"metadata": deps if ns is home else []}, origin="values"))
    return out
