"""Loading the stack config from raw Pulumi config: decode, validate (:class:`~oke_rdma.config.stack.StackConfig`),
run every cross-field rule (:data:`oke_rdma.config.checks.CROSS_CHECKS`) and raise one :class:`ConfigError` naming
each problem's key path."""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from pydantic import BaseModel, Field, ValidationError, create_model
from pydantic.alias_generators import to_camel

from ._base import NAMESPACE, SECRET_PLACEHOLDER, ConfigError, _key, shown_key
from .checks import CROSS_CHECKS
from .errors import _TOP_LEVEL_FIELDS, _describe, _format_error, _pulumi_path, _unwrap
from .stack import StackConfig


def _hide_placeholder(problem: str) -> str:
    """A problem with the offline preview's stand-in for a ``secure:`` value replaced by "a secret value"."""
    for shown in (repr(SECRET_PLACEHOLDER), json.dumps(SECRET_PLACEHOLDER), SECRET_PLACEHOLDER):
        problem = problem.replace(shown, "a secret value")
    return problem


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


def _oci_provider_keys() -> list[str]:
    """The OCI provider's config keys (``oci:region``, ``oci:tenancyOcid``, ...), from pulumi_oci's config module."""
    try:
        from pulumi_oci.config import vars as oci_vars
    except ImportError:  # pragma: no cover - pulumi_oci is a dependency of the program
        return ["region"]
    cls = next((c for c in vars(oci_vars).values() if isinstance(c, type) and c.__module__ == oci_vars.__name__),
               None)
    names = [to_camel(n) for n, v in vars(cls).items() if isinstance(v, property)] if cls else []
    return names or ["region"]


def _normal(ns: str) -> str:
    return re.sub(r"[^a-z0-9]", "", ns.lower())


def _namespace_problems(raw: Mapping[str, Any]) -> list[str]:
    """Keys in a namespace that looks like ours (``okerdma:``, ``oke_rdma:``, ``OKE-RDMA:``), and ``oci:`` keys the
    OCI provider does not know (``oci:regoin``), each with the key it probably meant."""
    problems: list[str] = []
    for full_key in raw:
        ns, sep, name = full_key.partition(":")
        if not sep or ns == NAMESPACE:
            continue
        if ns == "oci":
            known = _oci_provider_keys()
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                if close:  # an unknown oci: key with no near match may be a newer provider setting: leave it
                    problems.append(f"{shown_key(full_key)}: not a setting of the OCI provider; did you mean "
                                    f"oci:{close[0]}?")
            continue
        if _normal(ns) == _normal(NAMESPACE) or difflib.SequenceMatcher(None, ns.lower(), NAMESPACE).ratio() >= 0.8:
            top = name.split(".", 1)[0]
            keys = list(_TOP_LEVEL_FIELDS) + ["region"]
            match = top if top in keys else next(iter(difflib.get_close_matches(top, keys, n=1, cutoff=0.6)), None)
            target = "oci:region" if match == "region" else (f"{NAMESPACE}:{match}" if match else f"{NAMESPACE}:…")
            problems.append(f"{shown_key(full_key)}: the namespace {ns!r} is not this project's ({NAMESPACE}), so "
                            f"the key would be ignored; did you mean {target}?")
        elif _normal(ns) == "oci":
            problems.append(f"{shown_key(full_key)}: the namespace {ns!r} is not the OCI provider's; did you mean "
                            f"oci:{name}?")
    return problems


def _secret_paths(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Key paths (``*`` for a map key) of the fields marked ``json_schema_extra={"secret": True}``."""
    paths: list[tuple[str, ...]] = []
    for name, field in model.model_fields.items():
        path = prefix + (field.alias or name,)
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        if extra.get("secret"):
            paths.append(path)
        inner, in_map = _unwrap(field.annotation)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            paths += _secret_paths(inner, path + (("*",) if in_map else ()))
    return paths


def _values_at(data: Any, path: tuple[str, ...], at: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    if not path:
        yield at, data
        return
    if not isinstance(data, dict):
        return
    head, rest = path[0], path[1:]
    for k in (list(data) if head == "*" else [head]):
        if k in data:
            yield from _values_at(data[k], rest, at + (k,))


def _plain_text_secrets(data: Mapping[str, Any], secret_keys: set[str]) -> list[tuple[str, ...]]:
    """Key paths of the fields marked secret whose value sits in plain text (its key is not a Pulumi secret)."""
    return [at for path in _secret_paths(StackConfig) for at, value in _values_at(data, path)
            if value is not None and f"{NAMESPACE}:{at[0]}" not in secret_keys and _malformed_secure(value) is None]


def _malformed_secure(value: Any) -> Optional[Any]:
    """The inner value of a ``{secure: <not text>}`` map (a ``secure:`` value Pulumi did not write), else None."""
    if isinstance(value, dict) and list(value) == ["secure"] and not isinstance(value["secure"], str):
        return value["secure"]
    return None


def _malformed_secure_paths(data: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if _malformed_secure(data) is not None:
        return [at]
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _malformed_secure_paths(v, at + (k,))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _malformed_secure_paths(v, at + (i,))]
    return []


def _malformed_secure_problems(data: Mapping[str, Any], paths: list[tuple[Any, ...]]) -> list[str]:
    """``{secure: {...}}``-style values: ``secure:`` holds the ciphertext text ``pulumi config set --secret`` wrote."""
    secret_fields = _secret_paths(StackConfig)
    problems = []
    for at in paths:
        inner = _malformed_secure(functools.reduce(lambda d, k: d[k], at, data))
        secret = any(len(s) == len(at) and all(a == "*" or a == b for a, b in zip(s, at)) for s in secret_fields)
        how = f"pulumi config set --path --secret '{_pulumi_path(at)}' <value>" if secret else \
            f"pulumi config set --path '{_pulumi_path(at)}' <value> (this key is not a secret)"
        problems.append(f"{_key(at)}: expected a secure: value holding the ciphertext Pulumi writes, got "
                        f"secure: with {_describe(inner)}; set it again with {how}")
    return problems


def _secret_problems(data: Mapping[str, Any], secret_keys: set[str]) -> list[str]:
    """Fields marked secret whose value sits in plain text in the stack config (its key is not a Pulumi secret)."""
    problems: list[str] = []
    for at in _plain_text_secrets(data, secret_keys):
        key = _key(at)
        problems.append(f"{key}: is a secret but is stored in plain text in the stack config; encrypt it with "
                        f"pulumi config set --path --secret '{key}' <value>")
    return problems


class _Deferred(Exception):
    """A cross-field rule read a top-level key whose value has an error: the rule waits until it is fixed."""


class _Invalid:
    """Stands in for a top-level key whose value failed validation; any use of it defers the rule reading it."""

    def __init__(self, key: str):
        object.__setattr__(self, "_key", key)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _Deferred(self._key)

    def _defer(self, *_: Any) -> Any:
        raise _Deferred(object.__getattribute__(self, "_key"))

    __iter__ = __len__ = __bool__ = __contains__ = __getitem__ = __eq__ = __ne__ = __hash__ = _defer
    __lt__ = __le__ = __gt__ = __ge__ = __str__ = __format__ = __int__ = __float__ = __index__ = _defer

    def __repr__(self) -> str:
        return f"<invalid {object.__getattribute__(self, '_key')}>"


def _partial_config(data: Mapping[str, Any], invalid: set[str]) -> Optional[StackConfig]:
    """A :class:`StackConfig` of the valid top-level keys, with :class:`_Invalid` in place of the others."""
    alias_of = {n: f.alias or n for n, f in StackConfig.model_fields.items()}
    field_of = {a: n for n, a in alias_of.items()}
    bad = {field_of[a] for a in invalid if a in field_of}
    overrides: dict[str, Any] = {
        n: (Any, Field(default_factory=functools.partial(_Invalid, _key((alias_of[n],))))) for n in bad}
    model = create_model("PartialStackConfig", __base__=StackConfig, **overrides)
    try:
        return model.model_validate({k: v for k, v in data.items() if k in field_of and field_of[k] not in bad})
    except ValidationError:
        return None


def _run_cross_checks(cfg: Optional[StackConfig], partial: bool) -> list[str]:
    """Every rule of :data:`CROSS_CHECKS`; on a partial config, a rule that reads an invalid key is deferred."""
    if cfg is None:
        return []
    problems: list[str] = []
    for check in CROSS_CHECKS:
        try:
            problems += check(cfg)
        except _Deferred:
            continue
        except Exception:  # noqa: BLE001 - on a partial config only: a rule tripped over a stand-in value
            if not partial:
                raise
    return problems


def load_stack_config(raw: Mapping[str, str], secret_keys: Optional[Iterable[str]] = None) -> StackConfig:
    """Parse and check the stack's raw Pulumi config (``{"oke-rdma:network": "<json>", ...}``).

    :param secret_keys: the config keys Pulumi holds as secrets; when given, a field marked secret
        (``json_schema_extra={"secret": True}``) whose key is not among them is refused (it sits in plain text).
    :returns: the frozen :class:`StackConfig`.
    :raises ConfigError: with one line per problem, all at once: keys in a look-alike namespace, type and range
        errors and unknown keys (with the nearest valid key), plain-text secrets, and every cross-field rule of
        :data:`CROSS_CHECKS` that reads only valid top-level keys (a rule reading a key with an error is deferred
        until that key is fixed).
    """
    data = _decode_raw(raw)
    secret = None if secret_keys is None else set(secret_keys)
    problems = _namespace_problems(raw)
    # A secret in plain text is exposed and must be replaced: that is its one problem (checks of the exposed value,
    # like a minimum length, would only describe a value that is going away), and it comes first.
    exposed = _plain_text_secrets(data, secret) if secret is not None else []
    malformed = _malformed_secure_paths(data)
    problems += _malformed_secure_problems(data, malformed)
    exposed += malformed
    if secret is not None:
        problems += _secret_problems(data, secret)
    try:
        cfg: Optional[StackConfig] = StackConfig.model_validate(data)
        partial = False
    except ValidationError as e:
        errors = e.errors()
        # A list whose items were refused is also "too short" after validation: report only the items.
        item_locs = {tuple(err["loc"][:-1]) for err in errors if err["loc"] and isinstance(err["loc"][-1], int)}
        problems += [_format_error(err) for err in errors
                     if not (err["type"] == "too_short" and tuple(err["loc"]) in item_locs)
                     and not any(tuple(err["loc"])[:len(at)] == at for at in exposed)]
        cfg = _partial_config(data, {str(err["loc"][0]) for err in errors if err["loc"]})
        partial = True
    problems += _run_cross_checks(cfg, partial)
    if problems:
        raise ConfigError([_in_realm(_hide_placeholder(p), raw.get("oci:region")) for p in problems])
    assert cfg is not None
    return cfg


def raw_pulumi_config() -> dict[str, str]:
    """Every config key the Pulumi runtime holds (set explicitly or handed over in ``PULUMI_CONFIG``)."""
    from pulumi.runtime import config as runtime_config

    merged = dict(runtime_config.get_config_env())
    merged.update(runtime_config.CONFIG.get())
    return merged


def pulumi_secret_keys(raw: Iterable[str]) -> set[str]:
    """The config keys the Pulumi runtime marks secret (``is_config_secret``, or ``PULUMI_CONFIG_SECRET_KEYS``)."""
    from pulumi.runtime import config as runtime_config

    return {k for k in raw if runtime_config.is_config_secret(k)} | set(runtime_config.get_config_secret_keys_env())


def load_from_pulumi() -> StackConfig:
    """Load the running stack's config with its secret keys (see :func:`load_stack_config`)."""
    raw = raw_pulumi_config()
    return load_stack_config(raw, secret_keys=pulumi_secret_keys(raw))


def _in_realm(problem: str, region: object) -> str:
    """``problem`` with the example OCIDs' realm (:data:`oke_rdma.schema.REALM_MARK`) and region made the stack's
    own (``oci:region``), when the region is known; else they stay ``<realm>``/``<region>``."""
    from oke_rdma.facts.regions import realm_of
    from oke_rdma.schema import REALM_MARK

    if REALM_MARK not in problem or not isinstance(region, str):
        return problem
    realm = realm_of(region)
    if realm is None:
        return problem
    return problem.replace(f"{REALM_MARK}.<region>.", f"{realm}.{region}.").replace(REALM_MARK, realm)
