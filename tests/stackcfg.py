"""Helpers to load the dev stack's config and change it key by key, the way a user would edit the YAML."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from offline.preview import read_stack_file

ROOT = Path(__file__).resolve().parent.parent


def dev_config() -> tuple[dict[str, str], list[str]]:
    """The dev stack's raw config (as Pulumi hands it to the program) and its secret keys."""
    return read_stack_file(ROOT / "Pulumi.dev.yaml")


def edited(raw: dict[str, str], key: str, path: tuple[str, ...], value: Any, *, delete: bool = False) -> dict[str, str]:
    """A copy of ``raw`` with ``oke-rdma:<key>`` at ``path`` set to ``value`` (or deleted)."""
    full = key if ":" in key else f"oke-rdma:{key}"
    out = dict(raw)
    if not path:
        out[full] = value if isinstance(value, str) else json.dumps(value)
        return out
    doc = copy.deepcopy(json.loads(raw[full]))
    node = doc
    for part in path[:-1]:
        node = node.setdefault(part, {})
    if delete:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    out[full] = json.dumps(doc)
    return out


def without_tenant_keys(raw: dict[str, str], *keys: str) -> dict[str, str]:
    """``raw`` with ``keys`` (e.g. ``quota``, ``serviceAccounts``) removed from every tenant: for variants (a basic
    cluster, no RDMA pool) where the dev tenants' GPU quotas or Workload Identity bindings cannot apply."""
    for tenant in json.loads(raw["oke-rdma:tenants"]):
        for key in keys:
            raw = edited(raw, "tenants", (tenant, key), None, delete=True)
    return raw
