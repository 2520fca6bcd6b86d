"""Reading and checking a fleet file: YAML (a key defined twice refused), the :class:`~oke_rdma.fleet.model.FleetFile`
model, then the rules across entries. Every problem is one line naming the key path (``clusters[2].wave``) and
the fix; all of them are collected before :class:`FleetError` is raised.

Rules across entries (each with a failing and a passing test in tests/fleet/test_model.py):

* a wave named twice; a wave without any cluster;
* a cluster whose ``wave`` is not in ``waves``;
* a name used twice (clusters, landing zones and the management cluster share one namespace: the Pulumi stacks
  and the Stack objects);
* a ``stackFile`` (or ``defaults``) that does not exist or is not a file;
* a ``landingZone`` not declared, or in another region than the cluster (a VCN lives in one region);
* a ``region`` OCI does not have (``oke_rdma.facts.regions``).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from oke_rdma.facts.regions import regions

from .model import FleetFile


class FleetError(Exception):
    """A fleet file that cannot be used: ``problems`` holds one line per problem (key path, what, fix)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class _Loader(yaml.SafeLoader):
    """YAML 1.2 core scalars (``true``/``false`` only, no dates, no base-60), the way the Pulumi CLI's yaml.v3 reads
    a stack file for the common cases; a mapping key defined twice is an error."""


_Loader.yaml_implicit_resolvers = {k: [r for r in v if r[0] not in (
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(
    r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"), list("-+.0123456789"))


def _mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} defined twice (lines {seen[key] + 1} and {key_node.start_mark.line + 1}); "
                "keep one", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_Loader.add_constructor("tag:yaml.org,2002:map", _mapping)


def read_yaml(path: Path, what: str) -> Any:
    """The YAML document at ``path``. :raises FleetError: naming ``what`` (a key path) when missing or not YAML."""
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
    except FileNotFoundError:
        raise FleetError([f"{what}: {path} does not exist; create it or fix the path"]) from None
    except (OSError, UnicodeDecodeError) as e:
        raise FleetError([f"{what}: cannot read {path} ({e}); fix the path"]) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise FleetError([f"{what}: {path}{where} is not valid YAML: {getattr(e, 'problem', None) or e}; fix it"]) \
            from None


def key_path(loc: tuple[Any, ...]) -> str:
    """``('clusters', 2, 'wave')`` → ``clusters[2].wave``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the file)"


def did_you_mean(value: Any, options: list[str]) -> str:
    """`` (did you mean main?)`` for the option closest to ``value`` (case, or a near spelling: ``difflib``, cutoff
    0.6), else ``""``: every enumerated value of the fleet file and of ``fleet new-cluster`` is answered with one,
    like every config key."""
    text = str(value)
    lower = {o.lower(): o for o in options}
    close = [lower[text.lower()]] if text.lower() in lower else \
        [lower[c] for c in difflib.get_close_matches(text.lower(), list(lower), n=1, cutoff=0.6)]
    return f" (did you mean {close[0]}?)" if close else ""


def _model_keys(loc: tuple[Any, ...]) -> list[str]:
    """The keys (aliases) of the fleet-file model at ``loc`` (``('clusters', 0)`` → a cluster's keys); empty when the
    path leaves the model."""
    from pydantic import BaseModel

    model: Any = FleetFile
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None:
            return []
        ann = field.annotation
        model = next((a for a in (ann, *getattr(ann, "__args__", ()))
                      if isinstance(a, type) and issubclass(a, BaseModel)), ann)
        for a in getattr(ann, "__args__", ()):  # list[X] / Optional[list[X]]
            for b in (a, *getattr(a, "__args__", ())):
                if isinstance(b, type) and issubclass(b, BaseModel):
                    model = b
    if isinstance(model, type) and issubclass(model, BaseModel):
        return [f.alias or n for n, f in model.model_fields.items()]
    return []


def _pydantic_problems(e: ValidationError) -> list[str]:
    problems = []
    for err in e.errors():
        loc = tuple(p for p in err["loc"] if p not in ("function-after[_one(), Release]",))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            hint = did_you_mean(loc[-1], _model_keys(loc[:-1])) if loc else ""
            msg = (f"unknown key{hint}; fix its spelling" if hint else
                   "unknown key; remove it or fix its spelling (docs/fleet.md lists the keys)")
        elif err["type"] == "literal_error":
            options = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
            msg = f"{msg}{did_you_mean(err.get('input'), options)}"
        elif err["type"] == "missing":
            msg = "required; add it (docs/fleet.md)"
        problems.append(f"{key_path(loc)}: {msg}")
    return problems


@dataclass(frozen=True)
class Fleet:
    """A checked fleet file: the model, the file's path and its directory (paths inside are relative to it)."""

    spec: FleetFile
    path: Path

    @property
    def root(self) -> Path:
        return self.path.parent

    def file(self, relative: str) -> Path:
        return (self.root / relative).resolve()


def _cross_problems(spec: FleetFile, root: Path) -> list[str]:
    problems: list[str] = []
    known_regions = set(regions())
    waves = spec.waves
    for i, w in enumerate(waves):
        if waves.index(w) != i:
            problems.append(f"waves[{i}]: wave {w!r} is listed twice (waves[{waves.index(w)}]); keep one")
    names: dict[str, str] = {}
    members = ([("management", spec.management)] if spec.management else []) + \
        [(f"landingZones[{i}]", z) for i, z in enumerate(spec.landing_zones)] + \
        [(f"clusters[{i}]", c) for i, c in enumerate(spec.clusters)]
    zones = {z.name: z for z in spec.landing_zones}
    for where, m in members:
        if m.name in names:
            problems.append(f"{where}.name: {m.name!r} is already the name of {names[m.name]}; rename one (a name "
                            "is a Pulumi stack and a Stack object)")
        else:
            names[m.name] = where
        if m.region not in known_regions:
            close = difflib.get_close_matches(m.region, sorted(known_regions), n=1)
            hint = f"; did you mean {close[0]}?" if close else "; use an OCI region identifier such as us-ashburn-1"
            problems.append(f"{where}.region: {m.region!r} is not an OCI region{hint}")
        stack_file = (root / m.stack_file)
        if not stack_file.is_file():
            problems.append(f"{where}.stackFile: {m.stack_file} does not exist (relative to {root}); write it with "
                            f"python -m oke_rdma.new_stack --stack {m.name} --output {m.stack_file} ..., or fix the "
                            "path")
    for i, c in enumerate(spec.clusters):
        if c.wave not in waves:
            problems.append(f"clusters[{i}].wave: {c.wave!r} is not a wave{did_you_mean(c.wave, list(waves))}; "
                            f"use one of {', '.join(waves)} or add it to waves")
        if c.landing_zone is not None:
            zone = zones.get(c.landing_zone)
            if zone is None:
                declared = ", ".join(zones) or "none"
                problems.append(f"clusters[{i}].landingZone: {c.landing_zone!r} is not a landing zone"
                                f"{did_you_mean(c.landing_zone, list(zones))} (declared: {declared}); add it to "
                                f"landingZones or fix the name")
            elif zone.region != c.region:
                problems.append(f"clusters[{i}].landingZone: landing zone {zone.name!r} is in {zone.region}, the "
                                f"cluster in {c.region}; a VCN serves one region: use a landing zone of {c.region} "
                                "or none")
    used = {c.wave for c in spec.clusters}
    for i, w in enumerate(waves):
        if w not in used and waves.index(w) == i:
            problems.append(f"waves[{i}]: no cluster is in wave {w!r}; remove it")
    if spec.defaults is not None and not (root / spec.defaults).is_file():
        problems.append(f"defaults: {spec.defaults} does not exist (relative to {root}); create it or remove the key")
    return problems


def realm_notes(spec: FleetFile) -> dict[str, str]:
    """Stack name → a note for each landing zone or cluster in another OCI realm than the management cluster
    (``oc1`` commercial, ``oc4`` UK Government, ...; :func:`oke_rdma.facts.regions.realm_of`). A realm is a separate
    cloud with its own tenancies and identity (OCI docs "Regions and Availability Domains", realms; checked
    2026-12-02): the management cluster's credentials and its VCN peering do not reach it, so the operator's
    workspace needs a credential of that realm's tenancy and a network path to its API, or the realm its own
    management cluster. Empty without a management cluster or when a realm is unknown."""
    from oke_rdma.facts.regions import realm_of

    if spec.management is None:
        return {}
    home = realm_of(spec.management.region)
    out = {}
    for m in [*spec.landing_zones, *spec.clusters]:
        realm = realm_of(m.region)
        if home and realm and realm != home:
            out[m.name] = (f"cross-realm: {m.region} is in {realm}, management cluster {spec.management.name} in "
                           f"{home}; its credentials and VCN peering do not cross realms: give the operator a "
                           f"credential of the {realm} tenancy and a path to its API, or run a management cluster "
                           f"in {realm}")
    return out


def load_fleet(path: Path) -> Fleet:
    """Read and check the fleet file at ``path``.

    :raises FleetError: with one line per problem, each prefixed with the file name.
    """
    doc = read_yaml(path, str(path))
    if not isinstance(doc, dict):
        raise FleetError([f"{path}: expected a mapping with name, release, backend, operator, waves, clusters"])
    try:
        spec = FleetFile.model_validate(doc)
    except ValidationError as e:
        raise FleetError([f"{path.name}: {p}" for p in _pydantic_problems(e)]) from None
    problems = _cross_problems(spec, path.parent)
    if problems:
        raise FleetError([f"{path.name}: {p}" for p in problems])
    return Fleet(spec, path)
