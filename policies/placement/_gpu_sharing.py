"""Whether a GPU node's pods share its GPUs, decided by what the NVIDIA device plugin and MIG manager WILL do on it:
the GPU Operator's device-plugin config (ConfigMap, default config, node label) and MIG config (node label, default,
custom mig-parted ConfigMap) — never by a label that merely names the intent.

Pure Python (PyYAML only), so the placement pack carries a byte-identical copy (``policies/placement/
_gpu_sharing.py``; ``tests/policies/test_gpu_sharing_effect.py`` keeps the two equal). Callers hand it plain values;
anything that is not a plain string or mapping where one is expected (an unknown preview value, a list) cannot be
read, and a verdict that cannot be read is ``None``: callers treat it as shared (fail closed).

Facts (read 2026-12-02):

* NVIDIA/k8s-device-plugin ``cmd/config-manager/main.go`` (HEAD 1b826ac, 2026-08-19): the config manager reads the
  node label ``nvidia.com/device-plugin.config``; a label naming a config the ConfigMap lacks is an error (the
  plugin gets no config); no label selects ``DEFAULT_CONFIG``, an error when that name is missing too; with no
  default the fallback strategies apply.
* NVIDIA/gpu-operator ``controllers/object_controls.go`` (HEAD a22dbf6, 2026-08-21): the config manager runs only
  when ``devicePlugin.config.name`` is set (otherwise the label is ignored and the plugin runs with no config file:
  no sharing); ``DEFAULT_CONFIG`` is ``devicePlugin.config.default``; ``FALLBACK_STRATEGIES`` is ``empty`` (no label
  and no default: the empty config, no sharing). ``deployments/gpu-operator/templates/plugin_config.yaml``: the chart
  renders the ConfigMap ``devicePlugin.config.name`` only with ``create: true`` and non-empty ``data``.
* k8s-device-plugin ``api/config/v1``: ``config.go`` (``version`` empty or ``v1``, else the file is refused),
  ``sharing.go`` (the strategy is MPS when ``sharing.mps`` replicates a resource, else time-slicing when
  ``sharing.timeSlicing`` does), ``replicas.go`` (a resource is replicated when ``replicas`` > 1; ``replicas`` < 2
  or missing refuses the file; ``renameByDefault`` only renames the resource to ``<name>.shared`` and
  ``failRequestsGreaterThanOne`` only refuses requests for more than one replica: neither undoes the sharing).
* gpu-operator ``controllers/nodelabeling_controller.go`` and ``api/nvidia/v1/clusterpolicy_types.go``: a
  MIG-capable node without ``nvidia.com/mig.config`` gets ``all-disabled`` when ``migManager.config.default`` is
  ``all-disabled`` (the only non-empty default the CRD allows); ``migManager.config.name`` names a custom mig-parted
  ConfigMap (key ``config.yaml``, ``mig-configs.<name>`` lists ``{devices, mig-enabled, mig-devices}``) that
  replaces the configs generated from the hardware, so there even ``all-disabled`` means what that file says.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import yaml

DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_DISABLED = "all-disabled"
CONFIG_VERSION = "v1"
MIG_CONFIG_KEY = "config.yaml"


@dataclass(frozen=True)
class DevicePlugin:
    """The GPU Operator's device-plugin configuration.

    :param name: ``devicePlugin.config.name``; ``""``: no config manager (node labels ignored, nothing shared).
    :param default: ``devicePlugin.config.default``: the config of a node without the label (``""``: none).
    :param data: the ConfigMap's config name → config file text (YAML); None when it cannot be read (the ConfigMap
        is not in the stack, or unknown).
    :param where: how messages name the config (a key path or a resource).
    """

    name: str = ""
    default: str = ""
    data: Optional[Mapping[str, Any]] = None
    where: str = "devicePlugin.config"


@dataclass(frozen=True)
class MigManager:
    """The GPU Operator's MIG manager: ``enabled``; ``default`` (``migManager.config.default``); ``custom`` when
    ``migManager.config.name`` names a mig-parted ConfigMap, whose ``config.yaml`` text is ``data`` (None: cannot
    be read)."""

    enabled: bool = False
    default: str = MIG_DISABLED
    custom: bool = False
    data: Any = None
    where: str = "migManager.config"


@dataclass(frozen=True)
class Verdict:
    """``shared``: True (pods of different owners may share a GPU), False, or None (cannot be read: treat as
    shared); ``why``: the reason, for messages."""

    shared: Optional[bool]
    why: str


def config_file_sharing(text: Any) -> Verdict:
    """What one device-plugin config file does: time-slicing or MPS with ``replicas`` > 1 shares the GPUs."""
    if not isinstance(text, str):
        return Verdict(None, "its text cannot be read")
    return _file_sharing(text)


@functools.lru_cache(maxsize=256)
def _file_sharing(text: str) -> Verdict:
    """:func:`config_file_sharing` of a text, parsed once however many nodes select it."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        return Verdict(None, f"it is not YAML ({str(err).splitlines()[0]})")
    if doc is None:
        doc = {}
    if not isinstance(doc, Mapping):
        return Verdict(None, "it is not a map")
    version = doc.get("version")
    if version not in (None, "", CONFIG_VERSION):
        return Verdict(None, f"version {version!r} is not {CONFIG_VERSION} (the device plugin refuses it)")
    sharing = doc.get("sharing")
    if sharing is None:
        return Verdict(False, "it shares nothing")
    if not isinstance(sharing, Mapping):
        return Verdict(None, "its sharing is not a map")
    for key, what in (("mps", "MPS"), ("timeSlicing", "time-slicing")):
        block = sharing.get(key)
        if block is None:
            continue
        resources = block.get("resources") if isinstance(block, Mapping) else None
        if not isinstance(block, Mapping) or not isinstance(resources, list):
            return Verdict(None, f"its sharing.{key} has no readable resources list")
        for i, resource in enumerate(resources):
            replicas = resource.get("replicas") if isinstance(resource, Mapping) else None
            if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 2:
                return Verdict(None, f"its sharing.{key}.resources[{i}].replicas is {replicas!r}, not a whole "
                                     f"number of at least 2 (the device plugin refuses the file)")
            return Verdict(True, f"it shares each GPU by {what}, {replicas} pods per GPU")
    return Verdict(False, "it shares nothing")


def device_plugin_sharing(labels: Mapping[str, Any], plugin: DevicePlugin) -> Verdict:
    """What the device plugin does on a node with ``labels`` (its label, else the default config)."""
    if not plugin.name:
        return Verdict(False, "the device plugin runs without a config file")
    label = labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
    if label is not None and not isinstance(label, str):
        return Verdict(None, f"the node label {DEVICE_PLUGIN_CONFIG_LABEL} cannot be read")
    chosen = label or plugin.default
    via = f"label {DEVICE_PLUGIN_CONFIG_LABEL}={chosen}" if label else f"the default config '{chosen}'"
    if not chosen:
        return Verdict(False, "no label and no default config: the device plugin runs with the empty config")
    if not isinstance(plugin.data, Mapping):
        return Verdict(None, f"{via} is in ConfigMap '{plugin.name}' ({plugin.where}), which cannot be read")
    if chosen not in plugin.data:
        return Verdict(None, f"{via} names a config ConfigMap '{plugin.name}' ({plugin.where}) lacks, so the device "
                             f"plugin would not start as intended")
    verdict = config_file_sharing(plugin.data[chosen])
    return Verdict(verdict.shared, f"{via} of ConfigMap '{plugin.name}' ({plugin.where}): {verdict.why}")


def _mig_enabled(text: Any, name: str) -> Optional[bool]:
    """Whether mig-parted config ``name`` of ``config.yaml`` text turns MIG on for some device; None: unreadable."""
    if not isinstance(text, str):
        return None
    doc = _mig_document(text)
    configs = doc.get("mig-configs") if isinstance(doc, Mapping) else None
    entries = configs.get(name) if isinstance(configs, Mapping) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("mig-enabled", False), bool):
            return None
        if entry.get("mig-enabled"):
            return True
    return False


@functools.lru_cache(maxsize=16)
def _mig_document(text: str) -> Any:
    """A mig-parted ``config.yaml`` parsed once (None when it is not YAML)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def mig_sharing(labels: Mapping[str, Any], mig: MigManager) -> Verdict:
    """What the MIG manager does on a node with ``labels``: any config but ``all-disabled`` cuts the GPUs into
    instances that different pods get (with a custom mig-parted config, what its entry says)."""
    if not mig.enabled:
        return Verdict(False, "the MIG manager does not run")
    label = labels.get(MIG_CONFIG_LABEL)
    if label is not None and not isinstance(label, str):
        return Verdict(None, f"the node label {MIG_CONFIG_LABEL} cannot be read")
    chosen = label or (mig.default if mig.default == MIG_DISABLED else "")
    if not chosen:
        return Verdict(False, "no MIG config is applied")
    via = f"label {MIG_CONFIG_LABEL}={chosen}" if label else f"the default MIG config '{chosen}'"
    if mig.custom:
        enabled = _mig_enabled(mig.data, chosen)
        if enabled is None:
            return Verdict(None, f"{via} is looked up in the custom mig-parted config ({mig.where}), which cannot "
                                 f"be read or lacks it")
        return Verdict(enabled, f"{via} of the custom mig-parted config ({mig.where}) "
                                + ("turns MIG on" if enabled else "keeps MIG off"))
    if chosen == MIG_DISABLED:
        return Verdict(False, f"{via} keeps MIG off")
    return Verdict(True, f"{via} partitions the GPUs with MIG")


def node_sharing(labels: Mapping[str, Any], plugin: DevicePlugin, mig: MigManager) -> Verdict:
    """The node's verdict: shared when the device plugin or the MIG manager shares; None when either cannot be read
    and neither shares."""
    verdicts = (device_plugin_sharing(labels, plugin), mig_sharing(labels, mig))
    for v in verdicts:
        if v.shared is True:
            return v
    for v in verdicts:
        if v.shared is None:
            return v
    return Verdict(False, "; ".join(v.why for v in verdicts))
