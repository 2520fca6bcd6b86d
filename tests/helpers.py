"""Shared test helpers: the dev stack's config as Pulumi hands it to a program, with per-test overrides.

``dev_raw_config()`` reads ``Pulumi.dev.yaml`` with PyYAML: string values stay strings, every other value is
JSON-encoded (that is how the Pulumi CLI passes structured config). Overrides name a key of the ``oke-rdma:``
namespace by its camelCase name (or the full ``ns:key``, passed through ``**{...}``); a dict override is
deep-merged into the dev value, a ``None`` inside it (or as the whole value) deletes that key.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Optional

import yaml

from components.config import NAMESPACE, StackConfig, load_stack_config

ROOT = Path(__file__).resolve().parent.parent
DEV_STACK = ROOT / "Pulumi.dev.yaml"


def _merge(base: Any, override: Any) -> Any:
    if isinstance(base, dict) and isinstance(override, dict):
        out = copy.deepcopy(base)
        for k, v in override.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = _merge(out.get(k), v)
        return out
    return copy.deepcopy(override)


def _encode(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def dev_values() -> dict[str, Any]:
    """The dev stack's config as decoded YAML values, keyed by full key (``oke-rdma:network``)."""
    doc = yaml.safe_load(DEV_STACK.read_text()) or {}
    values = {}
    for key, value in (doc.get("config") or {}).items():
        key = str(key) if ":" in str(key) else f"{NAMESPACE}:{key}"
        values[key] = value
    return values


def dev_raw_config(**overrides: Any) -> dict[str, str]:
    """The dev stack's raw config (``{"oke-rdma:network": "<json>", "oci:region": "sa-saopaulo-1", ...}``) with
    ``overrides`` applied, e.g. ``dev_raw_config(iam={"createPolicies": False})``."""
    values = dev_values()
    for key, override in overrides.items():
        full = key if ":" in key else f"{NAMESPACE}:{key}"
        if override is None:
            values.pop(full, None)
        else:
            values[full] = _merge(values.get(full), override)
    return {k: _encode(v) for k, v in values.items()}


def load_dev_config(**overrides: Any) -> StackConfig:
    """The dev stack's :class:`StackConfig` with ``overrides`` (see :func:`dev_raw_config`)."""
    return load_stack_config(dev_raw_config(**overrides))


def of_type(resources: list, type_: str) -> list:
    """The recorded resources of Pulumi type ``type_`` (``oci:Identity/policy:Policy``)."""
    return [r for r in resources if r.type == type_]


def one(resources: list, type_: str, name: Optional[str] = None):
    """The single recorded resource of ``type_`` (and logical ``name``, if given); fails if there is not exactly one."""
    found = [r for r in of_type(resources, type_) if name is None or r.name == name]
    assert len(found) == 1, f"expected one {type_} {name or ''}, found {[r.name for r in found]}"
    return found[0]
