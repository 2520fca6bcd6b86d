"""The whole stack's config model, how it is loaded from Pulumi config, and the cross-field rules."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any, Optional

from pydantic import BaseModel, Field, ValidationError, field_validator

from ._base import _AD_RE, _PREFIX_RE, _REGION_RE, NAMESPACE, ConfigError, StrList, _key, _Model, _ocid
from .compute import Cluster, ComputeCluster, NodePool, check_pools
from .network import Network, check_network
from .platform import Platform, check_platform
from .storage import Storage, check_storage
from .tenants import Iam, Tenant, check_quotas, check_tenants
from .workload_identity import check_workload_identity

class StackConfig(_Model):
    """The whole stack's configuration (every ``oke-rdma:`` key plus ``oci:region``).

    Build it with :func:`load_stack_config`; constructing it directly skips the cross-field rules.
    """

    region: str
    compartment_id: str
    name_prefix: str = "okerdma"
    freeform_tags: dict[str, str] = Field(default_factory=dict)
    availability_domains: StrList = Field(min_length=1)
    network: Network = Network()
    cluster: Cluster
    compute_cluster: Optional[ComputeCluster] = None
    node_pools: dict[str, NodePool] = Field(min_length=1)
    storage: Storage = Storage()
    platform: Platform = Platform()
    tenants: dict[str, Tenant] = Field(default_factory=dict)
    iam: Iam = Iam()

    _compartment = field_validator("compartment_id")(lambda v: _ocid("compartment", v))

    @field_validator("region")
    @classmethod
    def _region(cls, v: str) -> str:
        if not _REGION_RE.match(v):
            raise ValueError(f"must be an OCI region identifier like sa-saopaulo-1, got {v!r}")
        return v

    @field_validator("name_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        if not _PREFIX_RE.match(v):
            raise ValueError("must be 1-24 lowercase letters, digits or '-', starting with a letter")
        return v

    @field_validator("availability_domains")
    @classmethod
    def _ads(cls, v: StrList) -> StrList:
        for ad in v:
            if not _AD_RE.match(ad):
                raise ValueError(f"must be availability domain names like 'bxtG:SA-SAOPAULO-1-AD-1', got {ad!r}")
        if len(set(v)) != len(v):
            raise ValueError("lists an availability domain twice")
        return v

    @property
    def rdma_pools(self) -> dict[str, NodePool]:
        """The node pools placed in the Compute Cluster."""
        return {k: p for k, p in self.node_pools.items() if p.rdma}

    def tenant_namespace(self, name: str) -> str:
        """The Kubernetes namespace of tenant ``name`` (its ``namespace`` or, by default, its name)."""
        return self.tenants[name].namespace or name


_TOP_LEVEL_FIELDS = {f.alias or name: name for name, f in StackConfig.model_fields.items()}


def _model_for(path: tuple[Any, ...]) -> Optional[type[BaseModel]]:
    """The model class whose keys live at ``path`` (used to suggest the nearest valid key for a typo)."""
    model: Any = StackConfig
    in_map = False
    for part in path:
        if in_map:  # ``part`` is a map key (a pool or tenant name): ``model`` is already the value model
            in_map = False
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None:
            return None
        ann = field.annotation
        args = getattr(ann, "__args__", ())
        if getattr(ann, "__origin__", None) is dict:
            ann, in_map = args[1], True
            args = ()
        model = next((a for a in (ann, *args) if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if model is None:
            return None
    return model


def _format_error(err: Mapping[str, Any]) -> str:
    loc = tuple(err["loc"])
    key = _key(loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        model = _model_for(loc[:-1])
        valid = [f.alias or n for n, f in model.model_fields.items()] if model else []
        close = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else f"valid keys here: {', '.join(valid)}"
        return f"{key}: unknown key; {hint}"
    if kind == "missing":
        return f"{key}: required; set it in the stack config (see Pulumi.yaml for its type and description)"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    return f"{key}: {msg}"


def _decode_raw(raw: Mapping[str, str]) -> dict[str, Any]:
    """Pulumi hands config to programs as strings (structured values as JSON): decode them per key."""
    data: dict[str, Any] = {}
    for full_key, value in raw.items():
        ns, _, name = full_key.partition(":")
        if full_key == "oci:region":
            data["region"] = value
            continue
        if ns != NAMESPACE:
            continue
        field_name = _TOP_LEVEL_FIELDS.get(name)
        if field_name is not None and StackConfig.model_fields[field_name].annotation is str:
            data[name] = value
            continue
        try:
            data[name] = json.loads(value) if isinstance(value, str) else value
        except json.JSONDecodeError:
            # A plain string where an object, list, number or boolean is expected: let pydantic name the type.
            data[name] = value
    return data


def load_stack_config(raw: Mapping[str, str]) -> StackConfig:
    """Parse and check the stack's raw Pulumi config (``{"oke-rdma:network": "<json>", ...}``).

    :returns: the frozen :class:`StackConfig`.
    :raises ConfigError: with one line per problem — type and range errors, unknown keys (with the nearest valid
        key), and every cross-field rule of :func:`cross_checks` — all at once.
    """
    data = _decode_raw(raw)
    problems: list[str] = []
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as e:
        errors = e.errors()
        # A list whose items were refused is also "too short" after validation: report only the items.
        item_locs = {tuple(err["loc"][:-1]) for err in errors if err["loc"] and isinstance(err["loc"][-1], int)}
        problems += [_format_error(err) for err in errors
                     if not (err["type"] == "too_short" and tuple(err["loc"]) in item_locs)]
        raise ConfigError(problems) from None
    problems += cross_checks(cfg)
    if problems:
        raise ConfigError(problems)
    return cfg


def raw_pulumi_config() -> dict[str, str]:
    """Every config key the Pulumi runtime holds (set explicitly or handed over in ``PULUMI_CONFIG``)."""
    from pulumi.runtime import config as runtime_config

    merged = dict(runtime_config.get_config_env())
    merged.update(runtime_config.CONFIG.get())
    return merged


def load_from_pulumi() -> StackConfig:
    """Load the running stack's config (see :func:`load_stack_config`)."""
    return load_stack_config(raw_pulumi_config())


def cross_checks(cfg: StackConfig) -> list[str]:
    """Rules spanning several keys: subnet plan and overlaps, pod-IP capacity, Compute Cluster placement
    (enhanced-only features, AD, no fault domains, RDMA shapes), Flex sizing, tenant namespaces and Workload
    Identity bindings.

    :returns: one message per problem, each starting with the config key path.
    """
    return (check_network(cfg) + check_pools(cfg) + check_tenants(cfg) + check_storage(cfg)
            + check_workload_identity(cfg) + check_platform(cfg) + check_quotas(cfg))
