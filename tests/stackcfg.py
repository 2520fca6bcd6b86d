"""Helpers to load the dev stack's config (read as the Pulumi CLI reads it) and change it key by key, the way a user
would edit the YAML: `edited` by key path, or `dev_raw_config`/`load_dev_config` with keyword overrides."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Optional

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


# -- keyword-style overrides (formerly tests/helpers.py) ---------------------------------------------------------
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


def dev_values() -> dict[str, Any]:
    """The dev stack's config as decoded values, keyed by full key (``oke-rdma:network``)."""
    raw, _ = dev_config()
    return {k: json.loads(v) if v[:1] in "{[" else v for k, v in raw.items()}


def dev_raw_config(**overrides: Any) -> dict[str, str]:
    """The dev stack's raw config with ``overrides`` by camelCase key (or full ``ns:key`` through ``**{...}``): a
    dict is deep-merged into the dev value, a ``None`` inside it (or as the whole value) deletes that key, e.g.
    ``dev_raw_config(iam={"createPolicies": False})``."""
    values = dev_values()
    for key, override in overrides.items():
        full = key if ":" in key else f"oke-rdma:{key}"
        if override is None:
            values.pop(full, None)
        else:
            values[full] = _merge(values.get(full), override)
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}


_OCID_PARTS_RE = re.compile(r"ocid1\.([a-z0-9]+)\.oc[0-9]+\.([a-z0-9-]*)\.")
_DEV_AD_RE = re.compile(r"bxtG:SA-SAOPAULO-1-AD-([0-9])")


def in_region(raw: dict[str, str], region: str, *, realm: Optional[str] = None, key: Optional[str] = None,
              prefix: str = "Uocm") -> dict[str, str]:
    """``raw`` (a dev-stack raw config) moved to ``region``: every OCID in ``realm`` (default: the region's, from
    the OCI SDK table) with regional ones in ``key`` (default the region identifier), every São Paulo AD name
    ``bxtG:SA-SAOPAULO-1-AD-n`` renamed to the region's AD n with tenancy ``prefix``."""
    from oke_rdma.facts import regions

    realm = realm or regions.realm_of(region)
    key = key or region

    def move(text: str) -> str:
        text = _OCID_PARTS_RE.sub(lambda m: f"ocid1.{m[1]}.{realm}.{key if m[2] else ''}.", text)
        return _DEV_AD_RE.sub(lambda m: f"{prefix}:{regions.ad_stem(region)}-AD-{m[1]}", text)

    out = {k: move(v) for k, v in raw.items()}
    out["oci:region"] = region
    return out


def pinned_knowingly(key: str, version: str) -> dict[str, Any]:
    """``platform.<key>`` at ``version`` with every known bug the check would refuse there listed in ``acceptedBugs``
    (oke_rdma/facts/known_bugs.py): for tests of other rules that use an old pin on purpose."""
    from oke_rdma.facts.known_bugs import REFUSE, bugs_of
    return {"version": version,
            "acceptedBugs": [b.ref for b in bugs_of(key) if b.severity == REFUSE and b.affects(version)]}


def load_dev_config(**overrides: Any):
    """The dev stack's :class:`StackConfig` with ``overrides`` (see :func:`dev_raw_config`)."""
    from oke_rdma.config import load_stack_config
    return load_stack_config(dev_raw_config(**overrides))


def of_type(resources: list, type_: str) -> list:
    """The recorded resources of Pulumi type ``type_`` (``oci:Identity/policy:Policy``)."""
    return [r for r in resources if r.type == type_]


def one(resources: list, type_: str, name: Optional[str] = None):
    """The single recorded resource of ``type_`` (and logical ``name``, if given); fails if there is not exactly one."""
    found = [r for r in of_type(resources, type_) if name is None or r.name == name]
    assert len(found) == 1, f"expected one {type_} {name or ''}, found {[r.name for r in found]}"
    return found[0]
def without_tenant_keys(raw: dict[str, str], *keys: str) -> dict[str, str]:
    """``raw`` with ``keys`` (e.g. ``quota``, ``serviceAccounts``) removed from every tenant: for variants (a basic
    cluster, no RDMA pool) where the dev tenants' GPU quotas or Workload Identity bindings cannot apply. Removing
    ``serviceAccounts`` removes ``weights`` too (the weights bucket is reached through one of them)."""
    if "serviceAccounts" in keys and "weights" not in keys:
        keys = (*keys, "weights")
    for tenant in json.loads(raw["oke-rdma:tenants"]):
        for key in keys:
            raw = edited(raw, "tenants", (tenant, key), None, delete=True)
    return raw


def flannel(raw: dict[str, str]) -> dict[str, str]:
    """``raw`` on flannel overlay pod networking, as the config accepts it: no tenants (flannel gives pods their
    node's address, which voids the walls tenants rely on), no Cilium (it chains onto VCN-native networking only),
    no ``maxPodsPerNode`` (a VCN-native setting)."""
    raw = edited(raw, "cluster", ("cniType",), "FLANNEL_OVERLAY")
    raw = edited(raw, "platform", ("cilium", "enabled"), False)
    for pool in json.loads(raw["oke-rdma:nodePools"]):
        raw = edited(raw, "nodePools", (pool, "maxPodsPerNode"), None, delete=True)
    return {k: v for k, v in raw.items() if k != "oke-rdma:tenants"}
