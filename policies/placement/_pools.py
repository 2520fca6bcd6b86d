"""The stack's node pools as the sharing rules read them: each pool's node labels (``initialNodeLabels`` plus the
``--node-labels`` of its cloud-init ``nodeMetadata.user_data``; a self-managed node — an instance whose cloud-init
runs ``oke bootstrap`` — counts as a pool of its own, labelled by its cloud-init), whether it has GPUs, and whether
its GPUs are shared by effect — what the GPU Operator's device plugin and MIG manager declared in the same stack will
do on its nodes (:mod:`_gpu_sharing`, a copy of ``oke_rdma.facts.gpu_sharing``).

The GPU Operator is read from a ``helm.sh/v3`` Release or ``helm.sh/v4`` Chart of the ``gpu-operator`` chart
(``values.devicePlugin``, ``values.migManager``) and from a ``nvidia.com/v1`` ClusterPolicy (``spec.devicePlugin``,
``spec.migManager``); the ConfigMaps they name from the stack's ``core/v1`` ConfigMaps, unless the chart creates
them from its values (``config.create`` with ``data``). A pool whose verdict differs between two operators takes the
worst. Fail closed (the verdict is UNKNOWN): any of these values unknown during preview, a ConfigMap the stack does
not hold, a config name it lacks, a config file the device plugin refuses; and, with no GPU Operator in the stack, a
pool whose nodes carry a device-plugin or MIG config label (whatever reads it is out of sight).

The user data is read in every format cloud-init accepts (gzip, MIME multipart, cloud-config archives, cloud-config
``runcmd`` and ``write_files``); a pool whose user data cannot be read in full (an include, a template, undecodable
bytes: the security pack refuses it too) has UNKNOWN labels.

Sources (checked 2026-12-02): pulumi_oci ``containerengine`` NodePool (``initialNodeLabels``, ``nodeMetadata``,
``nodeShape``); OKE docs "Using Custom Cloud-init Initialization Scripts to Set Up Managed Nodes" (``oke bootstrap
--kubelet-extra-args``, kubelet ``--node-labels``); gpu-operator chart values and ClusterPolicy CRD (see
``_gpu_sharing``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

if __package__:  # imported as the package `policies.placement`
    from ._gpu_sharing import (DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_KEY, MIG_CONFIG_LABEL, MIG_DISABLED,
                               DevicePlugin, MigManager, Verdict, node_sharing)
    from ._rules import NODE_POOL, UNKNOWN, elements, read
    from ._user_data import all_texts
else:  # run by the Pulumi CLI from inside policies/placement/
    from _gpu_sharing import (DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_KEY, MIG_CONFIG_LABEL, MIG_DISABLED,
                              DevicePlugin, MigManager, Verdict, node_sharing)
    from _rules import NODE_POOL, UNKNOWN, elements, read
    from _user_data import all_texts

HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
INSTANCE = "oci:Core/instance:Instance"
#: What marks an instance's cloud-init as an OKE self-managed node's (OKE docs "Working with Self-Managed Nodes":
#: the OKE image's ``oke bootstrap``; any kubelet ``--node-labels``).
NODE_MARKS = ("oke bootstrap", "--node-labels")
CLUSTER_POLICY = "kubernetes:nvidia.com/v1:ClusterPolicy"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
OPERATOR_CHART = "gpu-operator"
SHARING_LABEL = "okerdma.io/gpu-sharing"
SHARED_MODES = ("time-slicing", "mig")
_NODE_LABELS_RE = re.compile(r"--node-labels(?:=|\s+)[\"']?([^\"'\s]+)")


def plain(value: Any) -> Any:
    """Engine props as plain dicts and lists, unknown parts as UNKNOWN (read through :func:`read`)."""
    if value is UNKNOWN or value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "keys"):
        return {k: plain(read(value, k)) for k in list(value.keys())}
    items = elements(value)
    return items if items is UNKNOWN else [plain(i) for i in items]


def has_unknown(value: Any) -> bool:
    """True when ``value`` is or holds UNKNOWN."""
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(has_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(has_unknown(v) for v in value)
    return False


def _user_data(props: Any, key: str) -> Any:
    """Every text the cloud-init user data under ``key`` (``nodeMetadata`` of a pool, ``metadata`` of an instance)
    carries, unpacked as cloud-init unpacks it (gzip, MIME parts, archives, cloud-config values and files: the
    vendored ``_user_data``); UNKNOWN when unknown or when any of it cannot be read, ``""`` when absent."""
    meta = read(props, key)
    if meta is UNKNOWN:
        return UNKNOWN
    value = read(meta, "user_data")
    return "" if value is None or value == "" else all_texts(value)


def _cloud_init_labels(props: Any, key: str = "nodeMetadata") -> Any:
    """The ``--node-labels`` the node's cloud-init passes to the kubelet, as a dict; UNKNOWN when the user data is
    unknown."""
    text = _user_data(props, key)
    if text is UNKNOWN:
        return UNKNOWN
    out: dict[str, str] = {}
    for match in _NODE_LABELS_RE.finditer(text):
        for pair in match.group(1).split(","):
            key, _, value = pair.partition("=")
            if key:
                out[key] = value
    return out


@dataclass(frozen=True)
class Pool:
    """A node pool: its logical ``name``, ``labels`` (dict, or UNKNOWN), ``gpu`` (True, False or UNKNOWN), ``urn``."""

    name: str
    labels: Any
    gpu: Any
    urn: str = ""

    @property
    def label_name(self) -> str:
        """The pool as messages name it: its ``okerdma.io/node-pool`` label, else its resource name."""
        labels = self.labels if isinstance(self.labels, dict) else {}
        value = labels.get("okerdma.io/node-pool")
        return value if isinstance(value, str) else f"<{self.name}>"


def node_pools(resources: list[Any]) -> list[Pool]:
    """The stack's node pools (see the module docstring)."""
    out = []
    for r in resources:
        if r.resource_type != NODE_POOL:
            continue
        labels: Any = {}
        items = elements(read(r.props, "initialNodeLabels"))
        if items is UNKNOWN:
            labels = UNKNOWN
        else:
            for item in items:
                key, value = read(item, "key"), read(item, "value")
                if key is UNKNOWN or value is UNKNOWN or not isinstance(key, str):
                    labels = UNKNOWN
                    break
                labels[key] = value
        extra = _cloud_init_labels(r.props)
        if labels is not UNKNOWN:
            if extra is UNKNOWN or any(k in labels and labels[k] != v for k, v in extra.items()):
                labels = UNKNOWN  # unknown, or two sources disagree on a label: which wins is not ours to guess
            else:
                labels = {**labels, **extra}
        out.append(Pool(r.name, labels, _gpu(read(r.props, "nodeShape")), r.urn))
    return out + _self_managed_nodes(resources)


def _gpu(shape: Any) -> Any:
    return UNKNOWN if shape is UNKNOWN or not isinstance(shape, str) else ".GPU" in shape.upper()


def _self_managed_nodes(resources: list[Any]) -> list[Pool]:
    """Instances that join the cluster as self-managed nodes (their cloud-init runs ``oke bootstrap`` or passes the
    kubelet ``--node-labels``), each a pool of its own whose labels are its cloud-init's; an instance whose user data
    is unknown may be one (UNKNOWN labels)."""
    out = []
    for r in resources:
        if r.resource_type != INSTANCE:
            continue
        text = _user_data(r.props, "metadata")
        if text is not UNKNOWN and not any(mark in text for mark in NODE_MARKS):
            continue
        labels = UNKNOWN if text is UNKNOWN else _cloud_init_labels(r.props, "metadata")
        out.append(Pool(r.name, labels, _gpu(read(r.props, "shape")), r.urn))
    return out


def _config_maps(resources: list[Any]) -> dict[str, list[tuple[Any, Any]]]:
    """ConfigMap name → [(namespace, data)] of the stack's ConfigMaps."""
    out: dict[str, list[tuple[Any, Any]]] = {}
    for r in resources:
        if r.resource_type == CONFIG_MAP:
            name = read(r.props, "metadata", "name")
            if isinstance(name, str):
                out.setdefault(name, []).append((read(r.props, "metadata", "namespace"),
                                                 plain(read(r.props, "data"))))
    return out


def _lookup(maps: dict[str, list[tuple[Any, Any]]], name: str, namespace: Any) -> Any:
    """The data of the one ConfigMap ``name`` in ``namespace`` (any namespace when that is not known); None when the
    stack holds none or several (which one the operator reads is not known)."""
    found = [d for ns, d in maps.get(name, []) if namespace is None or ns in (None, UNKNOWN, namespace)]
    return found[0] if len(found) == 1 and isinstance(found[0], dict) and not has_unknown(found[0]) else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _setup(spec: dict, maps: dict, namespace: Any, helm: bool, where: str) -> tuple[DevicePlugin, MigManager]:
    """The device plugin's and MIG manager's configuration from Helm values or a ClusterPolicy spec."""
    plugin_spec = spec.get("devicePlugin") if isinstance(spec.get("devicePlugin"), dict) else {}
    config = plugin_spec.get("config") if isinstance(plugin_spec.get("config"), dict) else {}
    name = _text(config.get("name")) if plugin_spec.get("enabled") is not False else ""
    data = config.get("data") if helm and config.get("create") is True and config.get("data") else None
    if name and data is None:
        data = _lookup(maps, name, namespace)
    plugin = DevicePlugin(name=name, default=_text(config.get("default")), data=data,
                          where=f"{where} devicePlugin.config")
    manager = spec.get("migManager") if isinstance(spec.get("migManager"), dict) else {}
    mig_config = manager.get("config") if isinstance(manager.get("config"), dict) else {}
    mig_name = _text(mig_config.get("name"))
    mig_data: Any = None
    if mig_name:
        created = mig_config.get("data") if helm and mig_config.get("create") is True else None
        source = created if isinstance(created, dict) and created else _lookup(maps, mig_name, namespace)
        mig_data = source.get(MIG_CONFIG_KEY) if isinstance(source, dict) else None
    mig = MigManager(enabled=manager.get("enabled") is not False,
                     default=_text(mig_config.get("default", MIG_DISABLED)), custom=bool(mig_name), data=mig_data,
                     where=f"{where} migManager.config")
    return plugin, mig


def operator_setups(resources: list[Any]) -> list[Any]:
    """Each GPU Operator of the stack as ``(DevicePlugin, MigManager)``, or a string saying why one cannot be read."""
    maps = _config_maps(resources)
    out: list[Any] = []
    for r in resources:
        if r.resource_type in HELM_TYPES:
            chart = read(r.props, "chart")
            if chart is UNKNOWN:
                out.append(f"{r.resource_type.split(':')[-1]} '{r.name}' has a chart unknown during preview")
                continue
            if not isinstance(chart, str) or chart.rstrip("/").rsplit("/", 1)[-1] != OPERATOR_CHART:
                continue
            values = plain(read(r.props, "values"))
            relevant = {k: values.get(k) for k in ("devicePlugin", "migManager")} if isinstance(values, dict) \
                else UNKNOWN
            if has_unknown(relevant):
                out.append(f"the devicePlugin or migManager values of release '{r.name}' are unknown during preview")
                continue
            namespace = read(r.props, "namespace")
            out.append(_setup(relevant, maps, namespace if isinstance(namespace, str) else None, True,
                              f"release '{r.name}'"))
        elif r.resource_type == CLUSTER_POLICY:
            spec = plain(read(r.props, "spec"))
            if not isinstance(spec, dict) or has_unknown({k: spec.get(k) for k in ("devicePlugin", "migManager")}):
                out.append(f"the spec of ClusterPolicy '{r.name}' is unknown during preview")
                continue
            out.append(_setup(spec, maps, None, False, f"ClusterPolicy '{r.name}'"))
    return out


def pool_sharing(pool: Pool, setups: list[Any]) -> Verdict:
    """Whether ``pool``'s GPUs are shared by effect (None: cannot be read; callers treat it as shared)."""
    if pool.gpu is False:
        return Verdict(False, "it has no GPUs")
    if pool.labels is UNKNOWN:
        return Verdict(None, "its node labels are unknown during preview")
    if pool.labels.get(SHARING_LABEL) in SHARED_MODES:
        return Verdict(True, f"its nodes are labelled {SHARING_LABEL}={pool.labels[SHARING_LABEL]}")
    if not setups:
        label = pool.labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
        mig = pool.labels.get(MIG_CONFIG_LABEL)
        if label or (mig and mig != MIG_DISABLED):
            which = f"{DEVICE_PLUGIN_CONFIG_LABEL}={label}" if label else f"{MIG_CONFIG_LABEL}={mig}"
            return Verdict(None, f"its nodes carry {which}, and the GPU Operator that reads it is not in the stack")
        return Verdict(False, "no GPU Operator in the stack and no sharing label")
    verdicts = [Verdict(None, s) if isinstance(s, str) else node_sharing(pool.labels, *s) for s in setups]
    return (next((v for v in verdicts if v.shared is True), None)
            or next((v for v in verdicts if v.shared is None), None) or verdicts[0])


def sharing_by_pool(resources: list[Any]) -> list[tuple[Pool, Verdict]]:
    """Every node pool with its verdict, the operators read once."""
    setups = operator_setups(resources)
    return [(p, pool_sharing(p, setups)) for p in node_pools(resources)]


def may_select(selector: Any, labels: Any) -> bool:
    """May a node selector (label → value; UNKNOWN values allowed) land on a node labelled ``labels``? Only a label
    the pool sets to another value rules a node out: labels the pool does not set may still be added at runtime
    (GPU feature discovery, the cloud controller), so they rule nothing out."""
    if labels is UNKNOWN or selector is UNKNOWN or not isinstance(selector, dict):
        return True
    return all(value is UNKNOWN or key not in labels or labels[key] == value for key, value in selector.items())


def covers(a: dict, b: dict) -> bool:
    """True when every label of ``a`` is on ``b`` with the same value: a selector made of ``a``'s labels lands on
    ``b``'s nodes too."""
    return bool(a) and all(k in b and b[k] == v for k, v in a.items())


