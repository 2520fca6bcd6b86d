"""What an add-on module declares (:class:`AddOn`), its config base (:class:`HelmRelease` for a Helm chart,
:class:`ManifestRelease` for a vendored release manifest) and the registry that collects the add-on modules of a
package (:func:`discover`).

An add-on module is one Python file in a registry package (``oke_rdma/addons/<name>.py``) with a module-level
``ADDON = AddOn(...)``. Nothing else names it: the stack config's ``platform`` model gets a ``platform.<key>`` field
from it (:func:`oke_rdma.config.platform_model`), the config checks read its value shapes and rules, and the
platform component (:mod:`oke_rdma.platform`) creates its namespace and Helm release.

Sources: Helm docs "Values Files" (values merge map by map; any other value replaces) and "Charts" (exact SemVer
chart versions); Kubernetes docs "Pod Security Standards" (the ``privileged``/``baseline``/``restricted`` levels);
pulumi_kubernetes 4.34 ``helm.sh/v3:Release`` (``chart``, ``version``, ``repositoryOpts.repo``, ``values``) and
``yaml/v2:ConfigGroup`` (``objs``: objects applied as given, CustomResourceDefinitions and Namespaces first) —
checked 2026-11-30.
"""

from __future__ import annotations

import graphlib
import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

import pulumi
from pydantic import Field, create_model, field_validator
from pydantic.alias_generators import to_snake

from oke_rdma.schema import _EXACT_VERSION_RE, StrList, _k8s_name, _Model

#: Pod Security Standards levels (Kubernetes docs "Pod Security Standards"; checked 2026-11-30), laxest first.
PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"
POD_SECURITY_LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
#: Value shapes a user's ``values`` must keep where oke-rdma sets or reads a value (see :data:`AddOn.value_shapes`).
VALUE_SHAPE_KINDS = ("map", "list", "bool", "false")
_KEY_RE = re.compile(r"^[a-z][A-Za-z0-9]*$")


class HelmRelease(_Model):
    """Config of one pinned Helm add-on, ``oke-rdma:platform.<key>``: exact chart ``version`` (no ranges) installed
    into ``namespace`` when ``enabled``.

    ``values``: free-form Helm values deep-merged over the ones oke-rdma sets (maps merge key by key; any other
    value, lists included, replaces ours; the lists of named items an add-on declares in :attr:`AddOn.keyed_lists`
    merge item by item). Values that would break the platform are refused by the config checks
    (the add-on's :attr:`AddOn.value_shapes` and :attr:`AddOn.checks`). Each add-on's subclass sets the defaults of
    ``version`` and ``namespace``.
    """

    enabled: bool = Field(True, description="Install the release.")
    version: str = Field(description="Exact chart version (no ranges).")
    namespace: str = Field(description="Namespace of the release (a Kubernetes name, never a reserved one).")
    values: dict[str, Any] = Field(default_factory=dict, description=(
        "Extra Helm values deep-merged over oke-rdma's (maps merge, lists replace, except lists of named items "
        "oke-rdma sets, such as Kueue's featureGates and the device plugin's env, which merge by name); values that "
        "would break the platform are refused."))
    accepted_bugs: StrList = Field((), description=(
        "Known bugs of the pinned version (`owner/repo#number`, oke_rdma/facts/known_bugs.py) to run with anyway: "
        "a pin the known-bug check refuses is then a warning on every preview (docs/operations.md)."))

    @field_validator("version")
    @classmethod
    def _exact(cls, v: str) -> str:
        if not _EXACT_VERSION_RE.match(v):
            raise ValueError(f"must be an exact chart version like 1.2.3 (no ranges or 'latest'), got {v!r}")
        return v

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))


class ManifestRelease(_Model):
    """Config of one add-on installed from a release manifest vendored in the repository (not a Helm chart),
    ``oke-rdma:platform.<key>``: the ``version`` names the vendored manifest (refused by the add-on's checks when no
    file of that version is vendored), installed into ``namespace`` when ``enabled``. No Helm values: the objects are
    the manifest's, with the changes the add-on module documents."""

    enabled: bool = Field(True, description="Install the manifest.")
    version: str = Field(description="Exact release version; a manifest of that version must be vendored.")
    namespace: str = Field(description="Namespace of the operator (a Kubernetes name, never a reserved one).")

    @field_validator("version")
    @classmethod
    def _exact(cls, v: str) -> str:
        if not _EXACT_VERSION_RE.match(v):
            raise ValueError(f"must be an exact release version like 1.2.3 (no ranges or 'latest'), got {v!r}")
        return v

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))


@dataclass(frozen=True)
class ValuesContext:
    """What an add-on's :attr:`AddOn.values` (or :attr:`AddOn.manifest`) may know beyond its own config:
    ``enabled``, the keys of the add-ons enabled in the same platform (e.g. a ServiceMonitor is only turned on when
    ``kubePrometheusStack`` is); ``kueue_frameworks``, add-on key → the Kueue integrations of its kinds, for every
    add-on of the registry (enabled or not); ``tenant_namespaces``, the tenants' namespaces (sorted)."""

    enabled: frozenset[str] = frozenset()
    kueue_frameworks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    tenant_namespaces: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExtraNamespace:
    """A namespace an add-on's config asks for besides its release's (e.g. Kueue's RDMA topology labeler).

    ``path``: its config key path below ``platform.<key>`` (for messages), ``name``: the namespace, ``pod_security``:
    its Pod Security level.
    """

    path: tuple[str, ...]
    name: str
    pod_security: str


#: ``manifest(config, context)`` → the Kubernetes objects (dicts) a manifest add-on applies.
ManifestHook = Callable[[Any, ValuesContext], list[dict[str, Any]]]
#: ``prepare(config, namespace, name_prefix, opts)`` → resources the release waits for (e.g. a Secret it reads).
PrepareHook = Callable[[HelmRelease, pulumi.Output, str, pulumi.ResourceOptions], Sequence[pulumi.Resource]]


@dataclass(frozen=True)
class AddOn:
    """One add-on of the platform, as its module declares it (``ADDON = AddOn(...)``): a Helm chart, or a release
    manifest vendored in the repository (``manifest`` set; then ``chart`` is ``""``, ``repository`` None, ``config`` a
    :class:`ManifestRelease` subclass and ``values`` returns ``{}``).

    :param key: its config key, ``oke-rdma:platform.<key>`` (lower camelCase, e.g. ``gpuOperator``); also the key of
        :attr:`oke_rdma.platform.Platform.releases`.
    :param release_name: the Helm release name in the cluster (also the logical name's suffix, ``<prefix>-<name>``).
    :param chart: the chart name in ``repository``, or a full ``oci://`` chart reference (then ``repository`` None).
    :param repository: the chart repository URL, or None for an ``oci://`` chart.
    :param config: its config model (a :class:`HelmRelease` subclass whose ``version`` and ``namespace`` defaults are
        the pinned chart version and the namespace).
    :param pod_security: the Pod Security level its namespace needs (``privileged``, ``baseline``, ``restricted``).
    :param values: ``(config, context) -> dict``: the Helm values oke-rdma sets; ``platform.<key>.values`` is
        deep-merged over them.
    :param after: keys of add-ons this one waits for when they are enabled (e.g. the one installing a CRD its chart
        uses); a key no add-on of the registry has is refused by the registry.
    :param crds: API groups of the CustomResourceDefinitions its chart installs; a custom resource of such a group
        must wait for this release.
    :param value_shapes: ``((values path, shape), ...)`` for the values oke-rdma sets or reads: a user's ``values``
        must keep that shape there. ``map``: a non-map would replace every value below it (Helm merges maps only)
        and null would delete the section; ``list``; ``bool``: Helm templates treat any non-empty string as true;
        ``false``: the boolean false only.
    :param checks: ``(config, at) -> problems``: rules on the add-on's own config beyond the value shapes, each
        problem a line starting with the config key path (``at`` is ``("platform", key)``).
    :param extra_namespaces: ``(config) -> namespaces`` its config asks for besides the release's.
    :param prepare: resources created before the release, which waits for them (see :data:`PrepareHook`).
    :param manifest: for a release-manifest add-on, ``(config, context) -> objects``: the objects applied (a
        ``yaml/v2:ConfigGroup``), namespaced into ``config.namespace``; None for a Helm add-on.
    :param kueue_frameworks: the Kueue integrations (``integrations.frameworks`` names) of the kinds it installs: Kueue
        enables them only while the add-on is enabled (:mod:`oke_rdma.addons.kueue`).
    :param source: where its facts come from (docs titles/URLs, chart versions) and when they were checked.
    :param cni: True for the pod network's policy engine (Cilium): pods started before it are not enforced until
        restarted, so every other release of the platform waits for it.
    :param finalizers: the finalizers its operator sets on objects in tenant namespaces (``("finalizer.keda.sh",)``),
        with where that is stated. A tenant namespace depends on every add-on with ``crds`` or ``finalizers``, so
        ``pulumi destroy`` empties it while the operator still runs (else the namespace stays Terminating).
    :param keyed_lists: ``((values path, item key), ...)``: lists oke-rdma sets whose items are named by ``item key``
        (``(("controllerManager", "featureGates"), "name")``). A user's list there is merged item by item instead of
        replacing ours: an item of theirs replaces ours of the same name, ours that they do not name are kept (so a
        user's feature gate or environment variable never silently drops the platform's).
    :param tenant_scope: for a manifest add-on, ``(object) -> tenant namespace or None``: the tenant namespace an
        object serves although it lives elsewhere (a per-tenant controller); such objects, and the objects in a tenant
        namespace, are applied after the tenant namespaces (``<prefix>-<release name>-tenants``) and the rest before.
    """

    key: str
    release_name: str
    chart: str
    repository: Optional[str]
    config: type[HelmRelease]
    pod_security: str
    values: Callable[[Any, ValuesContext], dict[str, Any]]
    after: tuple[str, ...] = ()
    crds: tuple[str, ...] = ()
    value_shapes: tuple[tuple[tuple[str, ...], str], ...] = ()
    checks: Optional[Callable[[Any, tuple[str, ...]], list[str]]] = None
    extra_namespaces: Optional[Callable[[Any], Sequence[ExtraNamespace]]] = None
    prepare: Optional[PrepareHook] = None
    manifest: Optional[ManifestHook] = None
    kueue_frameworks: tuple[str, ...] = ()
    source: str = ""
    cni: bool = False
    finalizers: tuple[str, ...] = ()
    tenant_scope: Optional[Callable[[dict[str, Any]], Optional[str]]] = None
    keyed_lists: tuple[tuple[tuple[str, ...], str], ...] = ()

    def __post_init__(self) -> None:
        problems = []
        if not _KEY_RE.match(self.key):
            problems.append(f"key {self.key!r} is not a lower camelCase config key")
        if self.pod_security not in POD_SECURITY_LEVELS:
            problems.append(f"pod_security {self.pod_security!r} is not one of {POD_SECURITY_LEVELS}")
        if self.manifest is not None:
            if self.chart or self.repository is not None or self.value_shapes or self.prepare:
                problems.append("a manifest add-on takes no chart, repository, value shapes or prepare hook")
            if not (isinstance(self.config, type) and issubclass(self.config, ManifestRelease)):
                problems.append("a manifest add-on's config must be a ManifestRelease subclass")
        else:
            if (self.repository is None) != self.chart.startswith("oci://"):
                problems.append("an oci:// chart takes no repository, any other chart needs one")
            if not (isinstance(self.config, type) and issubclass(self.config, HelmRelease)):
                problems.append("config must be a HelmRelease subclass")
        bad = [f for f in self.kueue_frameworks if not isinstance(f, str) or not f]
        if bad:
            problems.append(f"kueue_frameworks {bad} are not Kueue framework names")
        for path, shape in self.value_shapes:
            if shape not in VALUE_SHAPE_KINDS or not path:
                problems.append(f"value shape {path}: {shape!r} is not one of {VALUE_SHAPE_KINDS}")
        if problems:
            raise ValueError(f"add-on {self.key!r}: " + "; ".join(problems))

    @property
    def field(self) -> str:
        """The attribute name of its config on the platform model (``gpuOperator`` → ``gpu_operator``)."""
        return to_snake(self.key)

    @property
    def summary(self) -> str:
        """One line on the add-on, the description of ``platform.<key>`` in the config reference: the first line of
        its config model's docstring, with reStructuredText literals written as Markdown code."""
        return (self.config.__doc__ or self.key).strip().splitlines()[0].replace("``", "`")

    @property
    def defaults(self) -> HelmRelease:
        """Its config with every default (pinned version, namespace, enabled)."""
        return self.config()

    @property
    def is_manifest(self) -> bool:
        """True for an add-on installed from a vendored release manifest (no Helm chart)."""
        return self.manifest is not None

    def helm_values(self, config: Any, context: ValuesContext) -> dict[str, Any]:
        """The values the release is installed with: :attr:`values` with ``config.values`` deep-merged over; ``{}``
        for a manifest add-on (it has no Helm values)."""
        if self.is_manifest:
            return {}
        ours = self.values(config, context)
        merged = merge_values(ours, config.values)
        for path, item_key in self.keyed_lists:
            merged = _merge_keyed(merged, ours, config.values, path, item_key)
        return merged


def merge_values(ours: Any, theirs: Any) -> Any:
    """Deep-merge Helm values: maps merge key by key, anything else in ``theirs`` (lists included) replaces ours."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {**ours, **{k: merge_values(ours.get(k), v) for k, v in theirs.items()}}
    return theirs


def _at(values: Any, path: tuple[str, ...]) -> Any:
    for p in path:
        if not isinstance(values, dict):
            return None
        values = values.get(p)
    return values


def merge_keyed_list(ours: list[Any], theirs: list[Any], item_key: str) -> list[Any]:
    """``theirs`` merged over ``ours`` item by item (items are maps named by ``item_key``): ours in their order, each
    replaced by theirs of the same name, then theirs that name no item of ours. An item of theirs that is not a map
    with that key is kept as given (the add-on's checks judge it)."""
    def name(item: Any) -> Any:
        return item.get(item_key) if isinstance(item, dict) else None
    named = {name(t): t for t in theirs if name(t) is not None}
    ours_names = {name(o) for o in ours}
    kept = [named.get(name(o), o) for o in ours]
    return kept + [t for t in theirs if name(t) is None or name(t) not in ours_names]


def _merge_keyed(merged: Any, ours: Any, theirs: Any, path: tuple[str, ...], item_key: str) -> Any:
    """``merged`` with the list at ``path`` merged by ``item_key`` when both ours and theirs are lists there."""
    mine, yours = _at(ours, path), _at(theirs, path)
    if not (isinstance(mine, list) and isinstance(yours, list)):
        return merged
    out = dict(merged)
    cur = out
    for p in path[:-1]:
        cur[p] = dict(cur[p])
        cur = cur[p]
    cur[path[-1]] = merge_keyed_list(mine, yours, item_key)
    return out


@dataclass(frozen=True)
class Registry:
    """An ordered set of add-ons: every add-on after the ones it waits for (``after``), ties by key.

    :raises ValueError: two add-ons with the same key, release name or config field; an ``after`` naming no add-on
        of the registry; a cycle of ``after``.
    """

    addons: tuple[AddOn, ...] = field(default=())

    def __post_init__(self) -> None:
        for attr in ("key", "release_name", "field"):
            seen = [getattr(a, attr) for a in self.addons]
            twice = sorted({v for v in seen if seen.count(v) > 1})
            if twice:
                raise ValueError(f"add-on registry: {attr} {twice} declared by more than one add-on")
        by_key = {a.key: a for a in self.addons}
        for a in self.addons:
            unknown = [k for k in a.after if k not in by_key]
            if unknown:
                raise ValueError(f"add-on {a.key!r}: after names {unknown}, which no add-on of the registry has")
        sorter = graphlib.TopologicalSorter({a.key: set(a.after) for a in sorted(self.addons, key=lambda a: a.key)})
        try:
            sorter.prepare()
        except graphlib.CycleError as e:
            raise ValueError(f"add-on registry: the add-ons wait for each other in a cycle {e.args[1]}") from None
        ordered: list[AddOn] = []
        while sorter.is_active():
            ready = sorted(sorter.get_ready())
            ordered += [by_key[k] for k in ready]
            sorter.done(*ready)
        object.__setattr__(self, "addons", tuple(ordered))

    def __iter__(self) -> Iterator[AddOn]:
        return iter(self.addons)

    def __len__(self) -> int:
        return len(self.addons)

    def __getitem__(self, key: str) -> AddOn:
        for a in self.addons:
            if a.key == key:
                return a
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return any(a.key == key for a in self.addons)

    def keys(self) -> list[str]:
        """The add-on keys, in install order."""
        return [a.key for a in self.addons]

    def __add__(self, other: "Registry") -> "Registry":
        return Registry(self.addons + other.addons)

    def context(self, platform: Any, tenant_namespaces: Sequence[str] = ()) -> ValuesContext:
        """The :class:`ValuesContext` of ``platform`` (a model of :func:`platform_model`): its enabled add-ons, every
        add-on's Kueue integrations, and ``tenant_namespaces``."""
        return ValuesContext(enabled=frozenset(enabled_releases(platform, self)),
                             kueue_frameworks={a.key: a.kueue_frameworks for a in self},
                             tenant_namespaces=tuple(sorted(set(tenant_namespaces))))


def discover(package: Union[str, ModuleType]) -> Registry:
    """The registry of every add-on module of ``package`` (a package name or module): each public module (name not
    starting with ``_``) must define ``ADDON``, an :class:`AddOn`.

    :raises ValueError: a module without an ``ADDON`` :class:`AddOn` (a file in the registry that would silently do
        nothing), or any :class:`Registry` error.
    """
    pkg = importlib.import_module(package) if isinstance(package, str) else package
    addons = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        addon = getattr(module, "ADDON", None)
        if not isinstance(addon, AddOn):
            raise ValueError(f"add-on module {module.__name__} defines no ADDON = AddOn(...); declare it or move the "
                             f"module out of the registry package (or prefix its name with _)")
        addons.append(addon)
    return Registry(tuple(addons))


def enabled_releases(platform: Any, registry: Registry) -> dict[str, Any]:
    """Add-on key → its config on ``platform`` (a model built by :func:`oke_rdma.config.platform_model`), enabled
    add-ons only, in install order."""
    out = {}
    for a in registry:
        release = getattr(platform, a.field)
        if release.enabled:
            out[a.key] = release
    return out


def namespace_levels(platform: Any, registry: Registry) -> dict[str, str]:
    """Namespace → Pod Security level for every enabled add-on's namespace and the extra namespaces its config asks
    for; a namespace two add-ons share takes the laxer level either needs."""
    levels: dict[str, str] = {}

    def add(ns: str, level: str) -> None:
        old = levels.get(ns)
        levels[ns] = level if old is None else min(old, level, key=POD_SECURITY_LEVELS.index)

    for key, release in enabled_releases(platform, registry).items():
        a = registry[key]
        add(release.namespace, a.pod_security)
        for extra in (a.extra_namespaces(release) if a.extra_namespaces else ()):
            add(extra.name, extra.pod_security)
    return levels


def all_namespaces(platform: Any, registry: Registry) -> Mapping[str, tuple[str, ...]]:
    """Namespace → config key path (below ``platform``) of every add-on namespace, enabled or not, and of every extra
    namespace an enabled add-on asks for: the namespaces a tenant must not take."""
    out: dict[str, tuple[str, ...]] = {}
    for a in registry:
        release = getattr(platform, a.field)
        out.setdefault(release.namespace, (a.key, "namespace"))
        if a.extra_namespaces:  # asked for by its config even while the release is off: kept free for it
            for extra in a.extra_namespaces(release):
                out.setdefault(extra.name, (a.key, *extra.path))
    return out


class _PlatformBase(_Model):
    """The in-cluster platform: one pinned add-on (Helm chart or vendored manifest) per field (``platform.<key>``),
    from the add-on registry."""

    @property
    def operator_device_plugin(self) -> bool:
        """True when the GPU Operator's device plugin advertises ``nvidia.com/gpu`` (so OKE's must be disabled)."""
        gpu = getattr(self, "gpu_operator", None)
        return gpu is not None and gpu.device_plugin


def platform_model(registry: Registry) -> type[_PlatformBase]:
    """The ``platform`` config model of ``registry``: a field per add-on (``platform.<key>``, its config model with
    every default), in install order."""
    fields: dict[str, Any] = {a.field: (a.config, Field(a.defaults, description=a.summary)) for a in registry}
    return create_model("Platform", __base__=_PlatformBase, **fields)
