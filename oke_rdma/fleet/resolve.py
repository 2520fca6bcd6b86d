"""Each fleet stack's resolved config: the fleet's ``defaults`` deep-merged under the stack's own file, then what the
fleet owns set on top, checked by the product's own config model (:func:`oke_rdma.config.load_stack_config`).

The merge is deterministic: mappings merge key by key (the stack's value wins), anything else — a list, a scalar,
a ``{secure: ...}`` value — is replaced whole by the stack's. On top of it the fleet sets:

* ``oci:region``: the entry's ``region`` (a stack file naming another region is refused);
* ``oke-rdma:network.fromStack``: ``stack: <org>/<project>/<landing zone>`` for a cluster with a ``landingZone``,
  with ``createNsgs: true`` unless the stack file sets it (the egress CIDRs below need this stack's NSG);
* ``oke-rdma:network.apiEndpoint.allowedCidrs``: the management cluster's ``egressCidrs`` appended (once each), so
  its workspaces reach every cluster's API (not on the management stack itself, and not on a stack in another OCI
  realm: no route or peering crosses realms, so those addresses never reach it — :func:`cross_realm`);
* for a ``decommissioned`` cluster: ``storage.fss.protect`` and, when the stack has them, ``storage.lustre.protect``
  and ``storage.objectStorage.protect`` (an enabled bucket) false, so ``pulumi destroy`` is not stopped by ``protect``.

The resolved file is written (``render``) as ``Pulumi.<name>.yaml``, so the offline preview sees every value.
"""

from __future__ import annotations

import contextlib
import copy
import ipaddress
import json
import re
from dataclasses import dataclass
from typing import Any, Optional

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.schema import SECRET_PLACEHOLDER

from .load import Fleet, FleetError, read_yaml
from .model import Cluster, LandingZone, Management

NS = "oke-rdma"


def is_secure(value: Any) -> bool:
    """A ``{secure: <ciphertext>}`` leaf of a Pulumi stack file."""
    return isinstance(value, dict) and set(value) == {"secure"}


def deep_merge(base: Any, over: Any) -> Any:
    """``over`` merged onto ``base``: mappings key by key (``over`` wins), everything else replaced by ``over``.
    Neither argument is changed."""
    if isinstance(base, dict) and isinstance(over, dict) and not is_secure(base) and not is_secure(over):
        merged = {k: copy.deepcopy(v) for k, v in base.items()}
        for k, v in over.items():
            merged[k] = deep_merge(base[k], v) if k in base else copy.deepcopy(v)
        return merged
    return copy.deepcopy(over)


def _config_of(doc: Any, what: str) -> dict[str, Any]:
    """The ``config:`` map of a stack file (or the defaults file), after the shape checks Pulumi's reader implies
    (:func:`oke_rdma.stack_file.document_problem`: config keys at the top level, ``configs:``, a list, ...)."""
    from oke_rdma.stack_file import document_problem

    problem = document_problem(doc, NS)
    if problem:
        raise FleetError([f"{what}: {problem}"])
    if not isinstance(doc, dict) or not isinstance(doc.get("config", {}), dict):
        raise FleetError([f"{what}: expected a Pulumi stack file with a config: mapping"])
    return dict(doc.get("config") or {})


def _setdefault_path(config: dict[str, Any], key: str, path: tuple[str, ...]) -> dict[str, Any]:
    node = config.setdefault(key, {})
    for part in path:
        if not isinstance(node, dict):
            return {}
        node = node.setdefault(part, {})
    return node if isinstance(node, dict) else {}


@dataclass(frozen=True)
class ResolvedStack:
    """One stack of the fleet with its resolved config (``config``: the stack file's ``config:`` mapping, secure
    values kept as ``{secure: ...}``), its kind and its entry."""

    name: str
    kind: str
    entry: "Cluster | LandingZone | Management"
    config: dict[str, Any]

    @property
    def wave(self) -> str:
        """The rollout wave: the cluster's, ``landing-zones`` or ``management``."""
        return getattr(self.entry, "wave", None) or {"landingZone": "landing-zones"}.get(self.kind, self.kind)

    @property
    def secret_keys(self) -> list[str]:
        """Top-level config keys holding a secure value anywhere inside (what Pulumi treats as secret)."""
        def has(v: Any) -> bool:
            return is_secure(v) or (isinstance(v, dict) and any(has(x) for x in v.values())) or \
                (isinstance(v, list) and any(has(x) for x in v))
        return sorted(k for k, v in self.config.items() if has(v))

    def raw(self, placeholder: Optional[str] = None) -> dict[str, str]:
        """The config as Pulumi hands it to a program: one string per key (JSON for structured values, secure
        values replaced by ``placeholder``)."""
        def plain(v: Any) -> Any:
            if is_secure(v):
                return placeholder if placeholder is not None else v
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list):
                return [plain(x) for x in v]
            return v
        out = {}
        for k, v in self.config.items():
            v = plain(v)
            out[k] = v if isinstance(v, str) else ("" if v is None else json.dumps(v, sort_keys=True))
        return out


def _resolve(fleet: Fleet, entry: Any, kind: str, where: str, defaults: dict[str, Any]) -> ResolvedStack:
    spec = fleet.spec
    own = _config_of(read_yaml(fleet.file(entry.stack_file), f"{where}.stackFile"), f"{where}.stackFile")
    problems: list[str] = []
    region = own.get("oci:region")
    if region is not None and region != entry.region:
        problems.append(f"{where}.region: {entry.stack_file} sets oci:region {region}, the fleet {entry.region}; "
                        "remove oci:region from the stack file (the fleet sets it)")
    config = deep_merge(defaults, own)
    config["oci:region"] = entry.region
    if kind == "cluster" and entry.landing_zone:
        network = _setdefault_path(config, f"{NS}:network", ())
        # its own NSGs in the landing zone's VCN (unless the stack file says otherwise): the management cluster's
        # egress CIDRs must reach TCP 6443 through this stack's control-plane NSG
        network["fromStack"] = deep_merge(deep_merge({"createNsgs": True}, network.get("fromStack") or {}),
                                          {"stack": spec.qualified(entry.landing_zone)})
    if spec.management is not None and kind != "management" and not cross_realm(spec.management.region, entry.region):
        endpoint = _setdefault_path(config, f"{NS}:network", ("apiEndpoint",))
        cidrs = list(endpoint.get("allowedCidrs") or [])
        endpoint["allowedCidrs"] = cidrs + [c for c in spec.management.egress_cidrs if c not in cidrs]
    if getattr(entry, "decommissioned", False):
        storage = config.get(f"{NS}:storage") or {}
        parts = ["fss"] + [p for p in ("objectStorage", "lustre") if isinstance(storage.get(p), dict)
                           and (p != "objectStorage" or storage[p].get("enabled") is True)]
        for part in parts:  # only what the stack has (the product refuses protect on a disabled section)
            _setdefault_path(config, f"{NS}:storage", (part,))["protect"] = False
    if problems:
        raise FleetError([f"{fleet.path.name}: {p}" for p in problems])
    return ResolvedStack(entry.name, kind, entry, config)


def cross_realm(home: str, region: str) -> bool:
    """True when ``region`` is in another OCI realm than ``home`` (the management cluster's region): a realm is a
    separate cloud (its own tenancies, identity and network; OCI docs "Regions and Availability Domains", realms;
    checked 2026-12-02), so no VCN route, peering or OCID of one holds in the other. False when either realm is
    unknown (the fleet file's region check refuses an unknown region)."""
    from oke_rdma.facts.regions import realm_of

    a, b = realm_of(home), realm_of(region)
    return bool(a and b and a != b)


_PROBLEM_KEY = re.compile(r"^(?P<key>[A-Za-z0-9_.-]+:[A-Za-z0-9_-]+)"
                          r"(?P<path>(?:\.[A-Za-z0-9_/.-]+?|\[\d+\])*)(?=[:\s(])")


def _sets(config: Any, key: str, path: str) -> bool:
    """Whether ``config`` (a stack file's ``config:``) sets ``key`` and every step of ``path`` (``.a.b[0]``)."""
    node = config.get(key, ...) if isinstance(config, dict) else ...
    for step in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
        name, index = step
        if name and isinstance(node, dict):
            node = node.get(name, ...)
        elif index and isinstance(node, list) and int(index) < len(node):
            node = node[int(index)]
        else:
            return False
    return node is not ...


def origin_note(problem: str, own: dict[str, Any], defaults: dict[str, Any], defaults_file: str) -> str:
    """``problem`` (one line of the config model, ``oke-rdma:<path>: ...``) with `` (from <defaults_file>...)``
    appended when the stack file does not set the key the problem names but the fleet's defaults do: the value was
    copied into this stack from the defaults, and the fix is an override in the stack file (or a change of the
    defaults for every stack)."""
    m = _PROBLEM_KEY.match(problem)
    if not m or _sets(own, m["key"], m["path"]) or not _sets(defaults, m["key"], m["path"]):
        return problem
    return (f"{problem} (the value comes from {defaults_file}, which every stack of the fleet inherits: override it "
            "in this stack's file, or change it there)")


def resolve(fleet: Fleet, validate: bool = True) -> list[ResolvedStack]:
    """Every stack of ``fleet`` resolved, in rollout order (management, landing zones, then the waves), each
    checked by the product's config model when ``validate``.

    :raises FleetError: one line per problem: a stack file that is not a stack file, a region conflict, or the
        product's own config problems prefixed with the entry (``clusters[1] (gpu-ash)``).
    """
    spec = fleet.spec
    defaults = _config_of(read_yaml(fleet.file(spec.defaults), "defaults"), "defaults") if spec.defaults else {}
    entries: list[tuple[Any, str, str]] = []
    if spec.management:
        entries.append((spec.management, "management", "management"))
    entries += [(z, "landingZone", f"landingZones[{spec.landing_zones.index(z)}]") for z in spec.landing_zones]
    order = {w: i for i, w in enumerate(spec.waves)}
    entries += [(c, "cluster", f"clusters[{i}]") for i, c in
                sorted(enumerate(spec.clusters), key=lambda ic: (order[ic[1].wave], ic[0]))]
    problems: list[str] = []
    resolved: list[ResolvedStack] = []
    for entry, kind, where in entries:
        try:
            stack = _resolve(fleet, entry, kind, where, defaults)
        except FleetError as e:
            problems += e.problems
            continue
        if validate:
            try:
                load_stack_config(stack.raw(placeholder=SECRET_PLACEHOLDER), stack.secret_keys)
            except ConfigError as e:
                own = _config_of(read_yaml(fleet.file(entry.stack_file), f"{where}.stackFile"), where)
                problems += [f"{fleet.path.name}: {where} ({entry.name}, {entry.stack_file}): "
                             f"{origin_note(p, own, defaults, str(spec.defaults))}" for p in e.problems]
                continue
        resolved.append(stack)
    if spec.management is not None:
        problems += vcn_overlaps(resolved, fleet.path.name, spec.management.region)
    if problems:
        raise FleetError(problems)
    return resolved


def own_vcn_cidr(stack: ResolvedStack) -> Optional[str]:
    """The VCN CIDR a stack creates (its ``network.vcnCidr``, else the config model's default), or None when it
    brings its network (``fromStack``: a landing zone's; ``existing``)."""
    from oke_rdma.config.network import Network

    network = stack.config.get(f"{NS}:network") or {}
    if not isinstance(network, dict) or network.get("fromStack") or network.get("existing"):
        return None
    cidr = network.get("vcnCidr", Network.model_fields["vcn_cidr"].default)
    return cidr if isinstance(cidr, str) else None


def vcn_overlaps(stacks: list[ResolvedStack], fleet_file: str, home: Optional[str] = None) -> list[str]:
    """One line per pair of stacks whose VCNs overlap while the management cluster reaches both (its egress CIDRs
    are routed to every landing zone's and cluster's VCN, docs/fleet.md): a route to one of them would also match
    the other, so PKO reaches the wrong API endpoint or none. Clusters in a landing zone share its VCN (no pair); a
    stack in another realm than the management cluster is reached by no route of it (:func:`cross_realm`), so its
    VCN makes no pair either (``home``: the management cluster's region)."""
    seen: list[tuple[ResolvedStack, ipaddress.IPv4Network]] = []
    problems = []
    for stack in stacks:
        if home is not None and cross_realm(home, stack.entry.region):
            continue
        cidr = own_vcn_cidr(stack)
        try:
            net = ipaddress.IPv4Network(cidr) if cidr else None
        except ValueError:
            continue  # the config model refuses it on its own key
        if net is None:
            continue
        for other, other_net in seen:
            if net.overlaps(other_net):
                problems.append(
                    f"{fleet_file}: {stack.name} ({stack.entry.stack_file}): {NS}:network.vcnCidr {net} overlaps "
                    f"{other.name}'s {other_net} ({other.entry.stack_file}); the management cluster reaches both: "
                    f"give one a free range (python -m oke_rdma.fleet new-cluster picks one)")
        seen.append((stack, net))
    return problems


def free_vcn_cidr(stacks: list[ResolvedStack], prefix: int = 16) -> str:
    """The first ``10.x.0.0/<prefix>`` overlapping no VCN of ``stacks`` nor the management's egress CIDRs."""
    used = []
    for stack in stacks:
        cidr = own_vcn_cidr(stack)
        with contextlib.suppress(ValueError, TypeError):
            used.append(ipaddress.IPv4Network(cidr))
        for egress in getattr(stack.entry, "egress_cidrs", None) or []:
            with contextlib.suppress(ValueError):
                used.append(ipaddress.IPv4Network(egress))
    for candidate in ipaddress.IPv4Network("10.0.0.0/8").subnets(new_prefix=prefix):
        if not any(candidate.overlaps(u) for u in used):
            return str(candidate)
    raise FleetError([f"no free /{prefix} in 10.0.0.0/8 for a new VCN; pass --vcn-cidr after --"])
