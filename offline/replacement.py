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
* ``deleteBeforeReplace``: the resource option, or pulumi-kubernetes' rule that a named object keeping its name and
  namespace is deleted before it is created again (``provider.go`` ``Diff``).
* A Kubernetes change the API server refuses in place (:data:`offline.immutable.API_IMMUTABLE`) that is no
  replacement is *refused*: ``pulumi up`` would fail on it.
* Protection, as the step generator has it (``step_generator.go``, same commit): replacing a resource protected both
  in the previous state and in the program is an error (unprotecting and replacing in one update is allowed), and so
  is deleting a resource protected in the previous state.

Values are compared as written in the JSON plan (secrets ``[secret]``, unknowns ``[unknown]``): a change inside a
secret is not visible offline (the plan never stores a secret's value).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from offline.immutable import FORCE_NEW, STATEFUL, api_immutable, force_new, lowered  # noqa: F401 (FORCE_NEW re-exported)
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

    @property
    def cause(self) -> str:
        """Why this resource is replaced, for the Replacements block."""
        if self.caused_by:
            return "because " + " and ".join(self.caused_by)
        return "changed: " + ", ".join(self.replace_because)


def changed_paths(old: Any, new: Any, path: str = "") -> list[str]:
    """Every input path whose value differs between ``old`` and ``new`` (missing keys count as changes).

    Objects are compared key by key; lists of the same length element by element, else the whole list; anything
    else by equality (``[unknown]`` now differs from any known value before).
    """
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            sub = f"{path}.{key}" if path else str(key)
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


def _kind(value: Any) -> str:
    """A JSON value's kind for messages: ``null``, ``a number (5)``, ``an object``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"text ({value!r})"
    return "a list" if isinstance(value, list) else "an object"


def check_plan_stack(previous: dict, stack: str, project: str) -> None:
    """Check that ``previous`` (a plan :func:`check_plan` accepted) is a plan of ``stack`` in ``project``: its URNs
    (``urn:pulumi:<stack>::<project>::...``, Pulumi docs "Resource names": a URN names its stack and project) name
    them. Pulumi keeps one state per stack, so another stack's plan would show every resource of this one created
    and every resource of that one deleted.

    :raises ValueError: naming the plan's stack and project and the one previewed.
    """
    for i, res in enumerate(previous["resources"]):
        parts = res["urn"].split("::")
        if len(parts) < 3 or not parts[0].startswith("urn:pulumi:"):
            raise ValueError(f"resources[{i}].urn: {res['urn']!r} is not a Pulumi URN (urn:pulumi:<stack>::<project>"
                             f"::<type>::<name>)")
        theirs = (parts[0].removeprefix("urn:pulumi:"), parts[1])
        if theirs != (stack, project):
            raise ValueError(f"is a plan of stack {theirs[0]!r} of project {theirs[1]!r}, not of the stack previewed "
                             f"({stack!r} of {project!r}); Pulumi compares a stack with its own state only: pass "
                             f"that stack's --json plan, or --stack {theirs[0]}")


def check_plan(previous: Any) -> None:
    """Check that ``previous`` is shaped like a ``--json`` plan before anything is compared with it: an object
    whose ``resources`` is a list of objects, each with text ``urn``, ``type`` and ``name`` (URNs unique), an
    object ``inputs``/``outputs`` when present, text ``id``/``provider`` when present and a list of text
    ``replaceOnChanges`` when present, and ``privateIps`` (when present) an object of text → IP address. Nothing is
    skipped: an entry that would be ignored would show its resource as
    created (or hide its deletion).

    :raises ValueError: naming the first bad entry, e.g. ``resources[0].urn: expected text, got a number (5)``.
    """
    if not isinstance(previous, dict) or not isinstance(previous.get("resources"), list):
        raise ValueError("not an offline preview --json file (no 'resources' list)")
    seen: dict[str, int] = {}
    for i, res in enumerate(previous["resources"]):
        at = f"resources[{i}]"
        if not isinstance(res, dict):
            raise ValueError(f"{at}: expected a resource object with urn, type, name and inputs, got {_kind(res)}")
        for key in ("urn", "type", "name"):
            if key not in res:
                raise ValueError(f"{at}: has no {key!r}; expected a resource object with urn, type, name and inputs "
                                 "(a file written by --json)")
            if not isinstance(res[key], str) or not res[key]:
                raise ValueError(f"{at}.{key}: expected text, got {_kind(res[key])}")
        for key in ("inputs", "outputs"):
            if key in res and not isinstance(res[key], dict):
                raise ValueError(f"{at}.{key}: expected an object, got {_kind(res[key])}")
        for key in ("id", "provider"):
            if res.get(key) is not None and not isinstance(res[key], str):
                raise ValueError(f"{at}.{key}: expected text or null, got {_kind(res[key])}")
        if "protect" in res and not isinstance(res["protect"], bool):
            raise ValueError(f"{at}.protect: expected true or false, got {_kind(res['protect'])}")
        roc = res.get("replaceOnChanges", [])
        if not isinstance(roc, list) or not all(isinstance(p, str) for p in roc):
            raise ValueError(f"{at}.replaceOnChanges: expected a list of property paths (text), got {roc!r}")
        if res["urn"] in seen:
            raise ValueError(f"{at}.urn: {res['urn']} is also resources[{seen[res['urn']]}]; a plan lists each "
                             "resource once")
        seen[res["urn"]] = i
    addresses = previous.get("privateIps", {})
    if not isinstance(addresses, dict):
        raise ValueError(f"privateIps: expected an object of private IP OCID → address, got {_kind(addresses)}")
    for pip, address in addresses.items():
        try:
            ipaddress.ip_address(address if isinstance(address, str) else "")
        except ValueError:
            raise ValueError(f"privateIps.{pip}: expected an IP address, got {_kind(address)}") from None


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
    diff = {p.split(".")[0].split("[")[0] for p in changed_paths(old, new)}
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


def _value_at(value: Any, path: str) -> Any:
    """The value at a changed path (``a.b[0].c``), or None when the path leads nowhere."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1])
            value = value[index] if isinstance(value, list) and index < len(value) else None
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

    def previous(self, urn: str) -> Optional[dict]:
        return self.before.get(urn)

    def replaced(self, urn: Optional[str]) -> bool:
        change = self.changes.get(urn or "")
        return change is not None and change.op in ("replace", "create")

    def decide(self, urn: str, typ: str, custom: bool, inputs: dict, *, property_dependencies: dict[str, list[str]],
               provider: Optional[str], replace_on_changes: Iterable[str] = (), protect: bool = False,
               delete_before_replace: Optional[bool] = None, dependencies: Iterable[str] = (),
               ignore_changes: Iterable[str] = ()) -> Change:
        """The operation for one registration (``inputs`` in display form, as the plan writes them). The cause of a
        replacement is looked up in the changed input's ``property_dependencies``; an unknown value whose property
        dependencies are not recorded (a value passed through an invoke) is blamed on the replaced or created
        resources among ``dependencies``."""
        name = _name(urn)
        if custom:
            self.custom.add(urn)
        old = self.before.get(urn)
        if old is None:
            change = Change(urn, typ, name, "create", protect=protect)
            self.changes[urn] = change
            return change
        ignored = tuple(ignore_changes)
        # ignoreChanges: the engine keeps the old value of those paths before it diffs (processIgnoreChanges)
        diff = tuple(p for p in changed_paths(old.get("inputs", {}), inputs) if not any(_inside(p, i) for i in ignored))
        because: tuple[str, ...] = ()
        caused: list[str] = []
        if typ == KUBERNETES_PROVIDER:
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
        op = "replace" if because else ("update" if diff else "same")
        dbr = bool(delete_before_replace) or (op == "replace" and typ.startswith("kubernetes:") and _named(inputs)
                                              and (old.get("inputs", {}).get("metadata") or {}).get("name")
                                              == inputs["metadata"]["name"]
                                              and (old.get("inputs", {}).get("metadata") or {}).get("namespace")
                                              == inputs["metadata"].get("namespace"))
        if op == "replace":  # the engine lets a program unprotect and replace in one update
            protect = protect and bool(old.get("protect"))
        change = Change(urn, typ, name, op, because, diff, tuple(dict.fromkeys(caused)), dbr and op == "replace",
                        protect, refused)
        self.changes[urn] = change
        return change

    def deletions(self, registered: Iterable[str]) -> list[Change]:
        """The previous plan's resources this run did not register: deleted (protected ones stay errors)."""
        seen = set(registered)
        return [Change(urn, r["type"], r["name"], "delete", protect=bool(r.get("protect")))
                for urn, r in sorted(self.before.items()) if urn not in seen]


def compare(previous: dict, current: dict) -> list[Change]:
    """The plan of ``current`` against ``previous`` (both ``--json`` documents) without running a program: each
    resource of ``current`` decided in its order with the same rules as the engine (a replaced resource's dependents
    are replaced only where ``current`` shows the unknown value reaching them), then the deletions.

    :raises ValueError: when ``previous`` is not an offline preview ``--json`` document (:func:`check_plan`).
    """
    planner = Planner(previous)
    out = [planner.decide(r["urn"], r["type"], r.get("custom", True), r.get("inputs", {}),
                          property_dependencies=r.get("propertyDependencies", {}), provider=r.get("provider"),
                          replace_on_changes=r.get("replaceOnChanges", ()), protect=bool(r.get("protect")))
           for r in current["resources"]]
    return out + planner.deletions(r["urn"] for r in current["resources"])


def summary(changes: Iterable[Change]) -> dict[str, int]:
    """Count per operation (``{"replace": 1, "same": 80, ...}``)."""
    counts: dict[str, int] = {}
    for c in changes:
        counts[c.op] = counts.get(c.op, 0) + 1
    return counts


def stateful_destroyed(changes: Iterable[Change]) -> list[tuple[Change, str]]:
    """The replaced or deleted resources holding state (:data:`offline.immutable.STATEFUL`), with the reason."""
    return [(c, STATEFUL[c.type]) for c in changes if c.op in ("replace", "delete") and c.type in STATEFUL]


def protected_destroyed(changes: Iterable[Change]) -> list[Change]:
    """The protected resources this plan would replace or delete: ``pulumi preview`` fails on each."""
    return [c for c in changes if c.protect and c.op in ("replace", "delete")]
