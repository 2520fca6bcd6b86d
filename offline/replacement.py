"""Plan a run against a previous run's ``--json`` plan the way the Pulumi engine's step generator would: create,
update, **replace** (with its cause), delete.

The engine decides per registration, in registration order (a resource registers only after the outputs it reads
resolved), so a decision can depend on earlier ones. :class:`Planner` does the same, called by the offline engine
for every registration:

* A changed input makes the resource an *update*; a change touching an immutable path (:mod:`offline.immutable`
  ``FORCE_NEW``/``KUBERNETES_FORCE_NEW`` and the program's ``replaceOnChanges``) makes it a **replace**, and the path
  is named.
* A resource being created or replaced has unknown id and computed outputs in a preview (the engine only learns them
  when the provider creates it). The offline engine hands them to the program as unknown, so everything derived
  from them is unknown; an unknown value reaching an immutable input (``[unknown]`` now, known before) is a
  replacement *because* the resource it came from (``propertyDependencies``) is replaced.
* The explicit Kubernetes provider (``pulumi:providers:kubernetes``) follows pulumi-kubernetes' ``DiffConfig``
  (``provider/pkg/provider/provider.go``, v4.32.0-27-g9497796, checked 2026-11-30): a changed
  ``clusterIdentifier`` replaces it; an unchanged, set ``clusterIdentifier`` means no replacement whatever else
  changed; otherwise an unknown ``kubeconfig``/``context``/``cluster`` replaces it, and so does a change of the
  active cluster in the kubeconfig or of ``renderYamlToDirectory``.
* A resource whose provider is replaced is replaced (pulumi ``pkg/resource/deploy/step_generator.go``
  ``providerChanged``: the new provider's ``DiffConfig`` reports a replacement; checked 2026-11-30 at commit
  00285a9), "because <provider> is replaced".
* ``ignoreChanges``: changed paths under them are left out before the diff (``processIgnoreChanges``).
* The engine's own replacement options, checked before the diff as ``step_generator.go`` does: a changed (or
  unknown) ``replacementTrigger``; ``replaceWith`` or ``deletedWith`` naming a resource this plan replaces
  ("because <it> is replaced").
* Aliases: a registration whose URN the previous plan lacks but one of its aliases names (the alias URNs the SDK
  sent, or computed from alias specs and inherited from aliased parents, :mod:`offline.engine`) is that resource,
  planned against its state (its id kept), and the old URN is no deletion.
* ``deleteBeforeReplace``: the resource option, or pulumi-kubernetes' rule that a named object keeping its name and
  namespace is deleted before it is created again (``provider.go`` ``Diff``).
* A Kubernetes change the API server refuses in place (:data:`offline.immutable.API_IMMUTABLE`) that is no
  replacement is *refused*: ``pulumi up`` would fail on it. So are a lowered value that only grows
  (:data:`offline.immutable.NO_DECREASE`) and a claim grown where the resize admission refuses it
  (:func:`offline.immutable.resize_refused`: a static claim, or a class without ``allowVolumeExpansion``), and a
  replacement created before the old resource is deleted that keeps a name the old one still holds
  (:data:`offline.immutable.UNIQUE_NAMES`): the create fails with a conflict; so does a Helm release replaced
  without ``deleteBeforeReplace`` (:func:`offline.immutable.release_takeover_conflict`: the old release still owns
  the chart's cluster-scoped objects).
* Protection, as the step generator has it (``step_generator.go``, same commit): replacing a resource protected both
  in the previous state and in the program is an error (unprotecting and replacing in one update is allowed), and so
  is deleting a resource protected in the previous state.

Values are compared as written in the JSON plan (secrets ``[secret]``, unknowns ``[unknown]``): a change inside a
secret is not visible offline (the plan never stores a secret's value).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from offline.immutable import (FORCE_NEW, STATEFUL, STORAGE_CLASS, api_immutable, force_new,  # noqa: F401
                               lowered, name_conflict, release_takeover_conflict, resize_refused)
from offline.plancheck import check_plan, check_plan_stack  # noqa: F401 (re-exported: callers import it from here)
from offline.stuck_updates import REFUSE as STUCK_REFUSE
from offline.stuck_updates import stuck
from offline.values import UNKNOWN_SHOWN

KUBERNETES_PROVIDER = "pulumi:providers:kubernetes"


@dataclass(frozen=True)
class Change:
    """One resource's planned operation against the previous plan.

    :param op: ``create``, ``update``, ``replace``, ``delete`` or ``same``.
    :param replace_because: the immutable paths that changed (for ``replace``); ``provider`` when the provider is
        replaced.
    :param changed: every changed input path.
    :param caused_by: what this replacement follows from, e.g. ``okerdma-dev-oke is replaced`` (the resource
        whose unknown outputs reach an immutable input, or the replaced provider).
    :param delete_before_replace: the old resource is deleted before the new one is created.
    :param protect: protection blocks this operation: a replacement of a resource protected in the previous state
        and in the program, a deletion of one protected in the previous state (else: protected in the program).
    :param refused: ``path: reason`` of each change the API server refuses in place.
    :param retained: the old resource has ``retainOnDelete`` in the previous state: a replacement or deletion
        removes it from the state only and leaves it (and its data) in the cloud, unmanaged.
    :param manual: ``path: what happens; the manual step [source]`` of each change that is applied but never lands
        without a manual step (:data:`offline.stuck_updates.STUCK_UPDATES`, outcome ``manual``): a warning.
    """

    urn: str
    type: str
    name: str
    op: str
    replace_because: tuple[str, ...] = ()
    changed: tuple[str, ...] = field(default=())
    caused_by: tuple[str, ...] = ()
    delete_before_replace: bool = False
    protect: bool = False
    refused: tuple[str, ...] = ()
    retained: bool = False
    manual: tuple[str, ...] = ()

    @property
    def cause(self) -> str:
        """Why this resource is replaced, for the Replacements block."""
        if self.caused_by:
            return "because " + " and ".join(self.caused_by)
        return "changed: " + ", ".join(self.replace_because)


#: A map key written plainly in a property path; any other key (``app.kubernetes.io/name``,
#: ``requests.nvidia.com/gpu``, an empty one) is quoted as Pulumi's property path syntax has it: ``["key"]``
#: (pulumi ``sdk/go/common/resource/property_path.go``, ``ParsePropertyPath``).
_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def path_join(path: str, key: Any) -> str:
    """``path`` extended by the map key ``key``: ``a.b`` for a plain key, ``a["b.c/d"]`` for one holding dots,
    slashes, brackets or other characters a dotted path would misread (Pulumi property path syntax)."""
    key = str(key)
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def path_parts(path: str) -> list[Any]:
    """The keys (str) and list indexes (int) of a property path written by :func:`path_join` / :func:`changed_paths`
    (``a.b[0]["c.d/e"]`` → ``["a", "b", 0, "c.d/e"]``)."""
    parts: list[Any] = []
    for m in re.finditer(r'\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.\[\]]+)', path):
        if m.group(1) is not None:
            parts.append(int(m.group(1)))
        elif m.group(2) is not None:
            parts.append(json.loads(m.group(2)))
        else:
            parts.append(m.group(3))
    return parts


def top_key(path: str) -> str:
    """The first key of a property path (``a`` of ``a.b[0]``, ``b.c`` of ``["b.c"].d``)."""
    parts = path_parts(path)
    return str(parts[0]) if parts else path


def changed_paths(old: Any, new: Any, path: str = "") -> list[str]:
    """Every input path whose value differs between ``old`` and ``new`` (missing keys count as changes), in Pulumi's
    property path notation: a map key with dots, slashes or other non-identifier characters is quoted
    (``spec.hard["requests.nvidia.com/gpu"]``, :func:`path_join`).

    Objects are compared key by key; lists of the same length element by element, else the whole list; anything
    else by equality (``[unknown]`` now differs from any known value before).
    """
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            sub = path_join(path, key)
            if key not in old or key not in new:
                out.append(sub)
            else:
                out += changed_paths(old[key], new[key], sub)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out += changed_paths(a, b, f"{path}[{i}]")
        return out
    return [] if old == new and new != UNKNOWN_SHOWN else [path]


def _pattern(path: str) -> re.Pattern[str]:
    return re.compile(re.escape(path).replace(r"\[\*\]", r"\[[0-9]+\]"))


def _inside(changed: str, path: str) -> bool:
    """True when ``changed`` is ``path`` (``[*]`` matching any index) or inside it."""
    pattern = _pattern(path)
    return bool(pattern.fullmatch(changed)) or any(pattern.fullmatch(changed[:i]) for i, ch in enumerate(changed)
                                                   if ch in ".[")


def touches(changed: str, immutable: str) -> bool:
    """True when ``changed`` is ``immutable``, inside it, or an object/list that contains it."""
    if _inside(changed, immutable):
        return True
    prefix = re.sub(r"\[[0-9]+\]", "[*]", changed)
    return immutable.startswith(prefix + ".") or immutable.startswith(prefix + "[")


def immutable_paths(resource: dict) -> tuple[str, ...]:
    """The immutable input paths of a ``--json`` resource: the provider's and its ``replaceOnChanges``."""
    return tuple(dict.fromkeys((*force_new(resource["type"]), *resource.get("replaceOnChanges", ()))))


def _name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def provider_urn(ref: Optional[str]) -> Optional[str]:
    """The URN of a provider reference ``<urn>::<id>``."""
    return ref.rsplit("::", 1)[0] if ref else None


def _active_cluster(inputs: dict) -> Optional[tuple[Any, ...]]:
    """The active cluster of a Kubernetes provider's kubeconfig (server, context, cluster), or None when it cannot
    be read offline (a secret, unknown, not YAML)."""
    import yaml

    text = inputs.get("kubeconfig")
    if not isinstance(text, str) or text in (UNKNOWN_SHOWN, "[secret]"):
        return None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(doc, dict):
        return None
    context_name = inputs.get("context") or doc.get("current-context")
    contexts = {c.get("name"): c.get("context") or {} for c in doc.get("contexts") or [] if isinstance(c, dict)}
    cluster_name = inputs.get("cluster") or (contexts.get(context_name) or {}).get("cluster")
    clusters = {c.get("name"): c.get("cluster") for c in doc.get("clusters") or [] if isinstance(c, dict)}
    return (cluster_name, repr(clusters.get(cluster_name)))


def kubernetes_provider_replaces(old: dict, new: dict) -> list[str]:
    """The keys for which pulumi-kubernetes' ``DiffConfig`` replaces the provider (empty: no replacement); see the
    module docstring for the rule and its source."""
    diff = {top_key(p) for p in changed_paths(old, new)}
    if not diff:
        return []
    ci = "clusterIdentifier"
    replaces = [ci] if ci in diff and ci in old and ci in new else []
    if ci not in diff and new.get(ci) not in (None, UNKNOWN_SHOWN):
        return []  # the same cluster identity: never a replacement
    for key in ("kubeconfig", "context", "cluster"):
        if new.get(key) == UNKNOWN_SHOWN:
            return replaces + [key]
    before, after = _active_cluster(old), _active_cluster(new)
    if before is not None and after is not None and before != after:
        replaces += [k for k in ("kubeconfig", "context", "cluster") if k in diff]
    if "renderYamlToDirectory" in diff:
        replaces.append("renderYamlToDirectory")
    return replaces


def _trigger_fires(old: Any, new: Any) -> bool:
    """pulumi ``shouldTriggerReplace`` (step_generator.go, commit 1b5949891b, checked 2026-12-01): an unknown on
    either side fires; a missing (null) trigger on either side does not; else any change fires. Values in display
    form (``[unknown]``; a secret compares as ``[secret]``)."""
    def unknown(value: Any) -> bool:
        if isinstance(value, dict):
            return any(unknown(v) for v in value.values())
        if isinstance(value, list):
            return any(unknown(v) for v in value)
        return value == UNKNOWN_SHOWN
    if unknown(old) or unknown(new):
        return True
    return old is not None and new is not None and old != new


def _value_at(value: Any, path: str) -> Any:
    """The value at a changed path (``a.b[0].c``, ``spec.hard["requests.nvidia.com/gpu"]``), or None when the path
    leads nowhere."""
    for part in path_parts(path):
        if isinstance(part, int):
            value = value[part] if isinstance(value, list) and part < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
    return value


def _named(inputs: dict) -> bool:
    meta = inputs.get("metadata")
    return isinstance(meta, dict) and isinstance(meta.get("name"), str) and meta["name"] != UNKNOWN_SHOWN


class Planner:
    """Decides each registration's operation against ``previous`` (a ``--json`` plan), in registration order."""

    def __init__(self, previous: dict):
        check_plan(previous)
        self.before: dict[str, dict] = {r["urn"]: r for r in previous["resources"]}
        self.changes: dict[str, Change] = {}
        self.custom: set[str] = set()  # the custom resources (and providers) planned so far
        self.current_classes: list[dict] = []  # the StorageClasses registered so far, inputs in display form
        #: New URN → the previous URN it took over through an alias (the engine's alias resolution).
        self.aliased: dict[str, str] = {}

    def _storage_classes(self) -> dict[str, dict]:
        """StorageClass name → its inputs: this run's registrations so far over the previous plan's."""
        found = {}
        for inputs in [r.get("inputs") or {} for r in self.before.values() if r["type"] == STORAGE_CLASS] + \
                self.current_classes:
            name = (inputs.get("metadata") or {}).get("name")
            if isinstance(name, str):
                found[name] = inputs
        return found

    def previous(self, urn: str) -> Optional[dict]:
        """The previous state of ``urn``: its own, or that of the alias it took over (:meth:`decide`)."""
        return self.before.get(self.aliased.get(urn, urn))

    def replaced(self, urn: Optional[str]) -> bool:
        change = self.changes.get(urn or "")
        return change is not None and change.op in ("replace", "create")

    def decide(self, urn: str, typ: str, custom: bool, inputs: dict, *, property_dependencies: dict[str, list[str]],
               provider: Optional[str], replace_on_changes: Iterable[str] = (), protect: bool = False,
               delete_before_replace: Optional[bool] = None, dependencies: Iterable[str] = (),
               ignore_changes: Iterable[str] = (), aliases: Iterable[str] = (), replace_with: Iterable[str] = (),
               replacement_trigger: Any = None, deleted_with: Optional[str] = None) -> Change:
        """The operation for one registration (``inputs`` in display form, as the plan writes them). The cause of a
        replacement is looked up in the changed input's ``property_dependencies``; an unknown value whose property
        dependencies are not recorded (a value passed through an invoke) is blamed on the replaced or created
        resources among ``dependencies``."""
        name = _name(urn)
        if custom:
            self.custom.add(urn)
        if typ == STORAGE_CLASS:
            self.current_classes.append(inputs)
        if urn not in self.before:  # an alias names the resource's previous URN: the same resource, renamed or moved
            taken = set(self.aliased.values())
            found = next((a for a in aliases if a in self.before and a not in taken and a not in self.changes), None)
            if found is not None:
                self.aliased[urn] = found
        old = self.previous(urn)
        if old is None:
            change = Change(urn, typ, name, "create", protect=protect)
            self.changes[urn] = change
            return change
        ignored = tuple(ignore_changes)
        # ignoreChanges: the engine keeps the old value of those paths before it diffs (processIgnoreChanges)
        diff = tuple(p for p in changed_paths(old.get("inputs", {}), inputs) if not any(_inside(p, i) for i in ignored))
        because: tuple[str, ...] = ()
        caused: list[str] = []
        # the engine's own replacement rules, checked before any diff (step_generator.go ``diff``, trigger first)
        with_replaced = [u for u in (*replace_with, *([deleted_with] if deleted_with else [])) if self.replaced(u)
                         and (u in self.before or u in self.aliased)]
        if _trigger_fires(old.get("replacementTrigger"), replacement_trigger):
            because = ("replacementTrigger",)
        elif with_replaced:
            because = ("deletedWith" if deleted_with in with_replaced else "replaceWith",)
            caused = [f"{_name(u)} is replaced" for u in with_replaced]
        elif typ == KUBERNETES_PROVIDER:
            because = tuple(kubernetes_provider_replaces(old.get("inputs", {}), inputs))
        elif custom:
            prov = provider_urn(provider)
            if prov and self.replaced(prov) and prov in self.before:
                because, caused = ("provider",), [f"{_name(prov)} is replaced"]
            else:
                immutable = (*force_new(typ), *old.get("replaceOnChanges", ()), *replace_on_changes)
                because = tuple(p for p in diff if any(touches(p, i) for i in immutable))
        if because and not caused:
            for path in because:
                key = path.split(".")[0].split("[")[0]
                caused += [f"{_name(u)} is {self.changes[u].op}d" for u in property_dependencies.get(key, [])
                           if self.replaced(u)]
            if not caused and any(_value_at(inputs, p) == UNKNOWN_SHOWN for p in because):
                caused = [f"{_name(u)} is {self.changes[u].op}d" for u in sorted(set(dependencies))
                          if self.replaced(u) and u in self.custom]
        refused: tuple[str, ...] = ()
        if not because:  # (ignored paths are out of ``diff`` already)
            refused = tuple(f"{p}: {reason}" for p in diff for rule, reason in api_immutable(typ, old.get("inputs", {}))
                            if touches(p, rule))
            refused += tuple(f"{p}: {reason}" for p, reason in lowered(typ, old.get("inputs", {}), inputs)
                             if any(touches(d, p) for d in diff))  # an ignored path keeps its old value
            refused += tuple(f"{p}: {reason}" for p, reason in resize_refused(
                typ, old.get("inputs", {}), inputs, self._storage_classes()) if any(touches(d, p) for d in diff))
        op = "replace" if because else ("update" if diff else "same")
        manual: tuple[str, ...] = ()
        if op == "update":  # applied by the provider, refused or never converging behind it (offline.stuck_updates)
            hits = stuck(typ, old.get("inputs", {}), inputs, diff)
            refused += tuple(f"{p}: {text}" for kind, p, text in hits if kind == STUCK_REFUSE)
            manual = tuple(f"{p}: {text}" for kind, p, text in hits if kind != STUCK_REFUSE)
        dbr = bool(delete_before_replace) or (op == "replace" and typ.startswith("kubernetes:") and _named(inputs)
                                              and (old.get("inputs", {}).get("metadata") or {}).get("name")
                                              == inputs["metadata"]["name"]
                                              and (old.get("inputs", {}).get("metadata") or {}).get("namespace")
                                              == inputs["metadata"].get("namespace"))
        if op == "replace":  # the engine lets a program unprotect and replace in one update
            protect = protect and bool(old.get("protect"))
        if op == "replace" and not dbr:
            refused += tuple(f"{p}: {reason}" for p, reason in name_conflict(typ, old.get("inputs", {}), inputs))
            refused += tuple(f"{p}: {reason}"
                             for p, reason in release_takeover_conflict(typ, old.get("inputs", {}), inputs))
        change = Change(urn, typ, name, op, because, diff, tuple(dict.fromkeys(caused)), dbr and op == "replace",
                        protect, refused, op == "replace" and bool(old.get("retainOnDelete")), manual)
        self.changes[urn] = change
        return change

    def deletions(self, registered: Iterable[str]) -> list[Change]:
        """The previous plan's resources this run did not register: deleted (protected ones stay errors)."""
        seen = set(registered) | set(self.aliased.values())
        return [Change(urn, r["type"], r["name"], "delete", protect=bool(r.get("protect")),
                       retained=bool(r.get("retainOnDelete"))) for urn, r in sorted(self.before.items())
                if urn not in seen]


def compare(previous: dict, current: dict) -> list[Change]:
    """The plan of ``current`` against ``previous`` (both ``--json`` documents) without running a program: each
    resource of ``current`` decided in its order with the same rules as the engine (a replaced resource's dependents
    are replaced only where ``current`` shows the unknown value reaching them), then the deletions.

    :raises ValueError: when ``previous`` is not an offline preview ``--json`` document (:func:`check_plan`).
    """
    planner = Planner(previous)
    out = [planner.decide(r["urn"], r["type"], r.get("custom", True), r.get("inputs", {}),
                          property_dependencies=r.get("propertyDependencies", {}), provider=r.get("provider"),
                          replace_on_changes=r.get("replaceOnChanges", ()), protect=bool(r.get("protect")),
                          replace_with=r.get("replaceWith", ()), replacement_trigger=r.get("replacementTrigger"),
                          deleted_with=r.get("deletedWith"), delete_before_replace=r.get("deleteBeforeReplace"))
           for r in current["resources"]]
    return out + planner.deletions(r["urn"] for r in current["resources"])


def summary(changes: Iterable[Change]) -> dict[str, int]:
    """Count per operation (``{"replace": 1, "same": 80, ...}``)."""
    counts: dict[str, int] = {}
    for c in changes:
        counts[c.op] = counts.get(c.op, 0) + 1
    return counts


def stateful_destroyed(changes: Iterable[Change]) -> list[tuple[Change, str]]:
    """The replaced or deleted resources holding state (:data:`offline.immutable.STATEFUL`), with the reason. A
    retained one (``retainOnDelete`` in the previous state) is not destroyed: the engine only forgets it."""
    return [(c, STATEFUL[c.type]) for c in changes if c.op in ("replace", "delete") and c.type in STATEFUL
            and not c.retained]


def retained(changes: Iterable[Change]) -> list[Change]:
    """The replaced or deleted resources the engine only removes from the state (``retainOnDelete``): they stay in
    the cloud, with their data, no longer managed by the stack."""
    return [c for c in changes if c.retained and c.op in ("replace", "delete")]


def protected_destroyed(changes: Iterable[Change]) -> list[Change]:
    """The protected resources this plan would replace or delete: ``pulumi preview`` fails on each."""
    return [c for c in changes if c.protect and c.op in ("replace", "delete")]
