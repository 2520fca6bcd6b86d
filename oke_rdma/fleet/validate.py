"""Offline checks of the rendered fleet objects, the way the API server and the controllers would judge them.

* **Custom resources** (``pulumi.com/v1`` Stack, Flux ``Kustomization``, ``GitRepository``, ``OCIRepository``)
  against the CRDs of the pinned PKO and Flux versions (``crds/``, gzipped as fetched, with their source and sha256
  in ``crds/SOURCES.json``): the ``openAPIV3Schema`` as JSON Schema, with **unknown fields refused** wherever the
  schema does not say ``x-kubernetes-preserve-unknown-fields`` (the API server would drop them silently: a field
  spelled wrong is a setting that never takes effect), ``x-kubernetes-int-or-string`` and ``nullable`` honoured,
  ``metadata`` limited to name, namespace, labels and annotations; and the CRDs' CEL rules
  (``x-kubernetes-validations``) evaluated with cel-python on each node they sit on. Transition rules (``oldSelf``)
  need a previous object and are skipped: none of the vendored CRDs has one.
* **Built-in kinds** (Namespace, ServiceAccount, Role, RoleBinding, ClusterRoleBinding) with kubernetes-validate,
  strictly (unknown fields refused), against the schema of every Kubernetes minor OKE offers today that
  kubernetes-validate ships (:data:`KUBERNETES_VERSIONS`): the fleet file does not say the management cluster's
  version, so an object must be valid on any cluster it may be applied to.
* **References between objects**: a Stack's ``serviceAccountName``, ``fluxSource.sourceRef`` and
  ``prerequisites`` (a Stack of an earlier wave); a Kustomization's ``sourceRef``, ``dependsOn``,
  ``serviceAccountName``, ``healthChecks`` (Stacks of its own wave directory) and ``path``; a binding's
  ``roleRef`` and ServiceAccount subjects; secrets only by reference (``secretsRef``/``envRefs`` of type Secret,
  no ``secure:`` value in ``spec.config``, no deprecated inline ``secrets``); a workspace image pinned by digest.

Every problem is one line ``<file>: <Kind>/<name>: <path>: <what>``.
"""

from __future__ import annotations

import copy
import functools
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Iterable

from oke_rdma import yamlsafe

CRD_DIR = Path(__file__).resolve().parent / "crds"


def _kubernetes_versions() -> tuple[str, ...]:
    """``"1.35.0"``-style versions for ``kubernetes_validate.validate``: every minor OKE offers today
    (:func:`oke_rdma.facts.kubernetes.offered_versions`) whose schema kubernetes-validate ships, oldest first."""
    import kubernetes_validate

    from oke_rdma.facts.kubernetes import offered_versions

    root = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    shipped = {d.name.split("-", 1)[0].removeprefix("v").rsplit(".", 1)[0] for d in root.iterdir()
               if d.name.startswith("v")}
    offered = {v.lstrip("v").rsplit(".", 1)[0] for v in offered_versions()}
    return tuple(f"{m}.0" for m in sorted(offered & shipped, key=lambda m: tuple(map(int, m.split(".")))))


#: The Kubernetes versions of the built-in schemas (kubernetes-validate) the management cluster may run.
KUBERNETES_VERSIONS = _kubernetes_versions()
BUILTIN_CLUSTER_ROLES = frozenset({"system:auth-delegator"})
_DIGEST_IMAGE = re.compile(r"@sha256:[0-9a-f]{64}$")


def crd_sources() -> dict[str, dict[str, str]]:
    """``crds/SOURCES.json`` without its comment: file name → project, url, commit, sha256."""
    doc = json.loads((CRD_DIR / "SOURCES.json").read_text(encoding="utf-8"))
    return {k: v for k, v in doc.items() if not k.startswith("_")}


def crd_text(name: str) -> bytes:
    """The vendored CRD file ``name`` (uncompressed bytes, as fetched)."""
    return gzip.decompress((CRD_DIR / f"{name}.gz").read_bytes())


def crd_digest_problems() -> list[str]:
    """One line per vendored CRD whose sha256 is not the one recorded in SOURCES.json (or that is missing)."""
    problems = []
    for name, src in crd_sources().items():
        try:
            digest = hashlib.sha256(crd_text(name)).hexdigest()
        except FileNotFoundError:
            problems.append(f"crds/{name}.gz: missing")
            continue
        if digest != src["sha256"]:
            problems.append(f"crds/{name}.gz: sha256 {digest}, SOURCES.json says {src['sha256']}")
    return problems


def _strict(schema: Any) -> Any:
    """A CRD's structural schema as JSON Schema with unknown fields refused (see the module docstring)."""
    if isinstance(schema, list):
        return [_strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _strict(v) for k, v in schema.items() if k != "x-kubernetes-validations"}
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"]
    if (out.get("type") == "object" and "properties" in out and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


@functools.lru_cache(maxsize=None)
def _crds() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) → the version's ``openAPIV3Schema`` of every vendored CRD."""
    found = {}
    for name in crd_sources():
        crd = yamlsafe.load(crd_text(name))
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if version.get("served", True):
                found[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    return found


@functools.lru_cache(maxsize=None)
def _validator(api_version: str, kind: str):
    import jsonschema

    schema = copy.deepcopy(_crds()[(api_version, kind)])
    schema.setdefault("properties", {})["metadata"] = {
        "type": "object", "additionalProperties": False, "required": ["name"],
        "properties": {"name": {"type": "string"}, "namespace": {"type": "string"},
                       "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                       "annotations": {"type": "object", "additionalProperties": {"type": "string"}}}}
    return jsonschema.Draft7Validator(_strict(schema))


def _path(parts: Iterable[Any]) -> str:
    text = ""
    for p in parts:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else str(p))
    return text or "(object)"


@functools.lru_cache(maxsize=None)
def _cel_program(expr: str) -> Any:
    """A CEL expression compiled once (cel-python builds its parser per Environment: seconds)."""
    env = _cel_env()
    return env.program(env.compile(expr))


@functools.lru_cache(maxsize=1)
def _cel_env() -> Any:
    import celpy

    return celpy.Environment()


def _cel_problems(schema: Any, value: Any, at: tuple[Any, ...] = ()) -> list[str]:
    """The CEL rules of ``schema`` and its children that ``value`` breaks (or that cannot be evaluated)."""
    import celpy

    problems: list[str] = []
    if not isinstance(schema, dict):
        return problems
    for rule in schema.get("x-kubernetes-validations", []):
        expr = rule["rule"]
        if "oldSelf" in expr:
            continue  # a transition rule: needs the object's previous version
        try:
            result = _cel_program(expr).evaluate({"self": celpy.json_to_cel(value)})
        except Exception as e:  # noqa: BLE001 (a rule this engine cannot evaluate is a refusal: fail closed)
            problems.append(f"{_path(at)}: CEL rule {expr!r} could not be evaluated ({type(e).__name__}); refused")
            continue
        if result is not True and not (isinstance(result, celpy.celtypes.BoolType) and bool(result)):
            problems.append(f"{_path(at)}: {rule.get('message') or 'CEL rule ' + repr(expr)} (CEL rule {expr!r})")
    props = schema.get("properties") or {}
    if isinstance(value, dict):
        for k, v in value.items():
            if k in props:
                problems += _cel_problems(props[k], v, at + (k,))
            elif isinstance(schema.get("additionalProperties"), dict):
                problems += _cel_problems(schema["additionalProperties"], v, at + (k,))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            problems += _cel_problems(schema["items"], v, at + (i,))
    return problems


def schema_problems(obj: dict[str, Any]) -> list[str]:
    """What the API server would refuse or silently drop in ``obj`` (one line each, ``<path>: <what>``)."""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if (api, kind) in _crds():
        problems = []
        for err in sorted(_validator(api, kind).iter_errors(obj), key=lambda e: list(map(str, e.absolute_path))):
            if err.validator == "additionalProperties":
                extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
                for name in extra:
                    problems.append(f"{_path([*err.absolute_path, name])}: unknown field (the API server would drop "
                                    f"it silently); fix its spelling or remove it")
            else:
                problems.append(f"{_path(err.absolute_path)}: {err.message}")
        return problems + _cel_problems(_crds()[(api, kind)], obj)
    import kubernetes_validate

    if not KUBERNETES_VERSIONS:
        return [f"apiVersion/kind: {api} {kind}: no Kubernetes schema of a version OKE offers is installed "
                f"(kubernetes-validate); refused"]
    problems: dict[str, list[str]] = {}  # each problem once, with the versions that refuse it
    for version in KUBERNETES_VERSIONS:
        minor = version.rsplit(".", 1)[0]
        try:
            kubernetes_validate.validate(copy.deepcopy(obj), version, strict=True)
        except kubernetes_validate.ValidationError as e:
            problems.setdefault(f"{_path(e.path)}: {e.message}", []).append(minor)
        except kubernetes_validate.SchemaNotFoundError:
            problems.setdefault(f"apiVersion/kind: {api} {kind} has no schema here (neither a vendored CRD nor "
                                f"Kubernetes's own); refused", []).append(minor)
    every = len(KUBERNETES_VERSIONS)
    return [line if len(minors) == every else f"{line} (Kubernetes {', '.join(minors)})"
            for line, minors in problems.items()]


def _walk_secure(value: Any, at: tuple[Any, ...]) -> Iterable[tuple[Any, ...]]:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            yield at
        for k, v in value.items():
            yield from _walk_secure(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk_secure(v, at + (i,))


def reference_problems(objects: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """References between the rendered objects (``(file, object)`` pairs) that do not resolve; see the module
    docstring for the list."""
    def key(o: dict[str, Any]) -> tuple[str, str, str]:
        return o.get("kind", ""), o.get("metadata", {}).get("namespace", ""), o.get("metadata", {}).get("name", "")

    index = {key(o): (f, o) for f, o in objects}
    dirs = {str(Path(f).parent) for f, _ in objects}
    wave_of = {key(o): str(Path(f).parent) for f, o in objects if o.get("kind") == "Stack"}
    problems: list[str] = []

    def need(f: str, o: dict[str, Any], where: str, kind: str, ns: str, name: str) -> None:
        if (kind, ns, name) not in index:
            problems.append(f"{f}: {o['kind']}/{o['metadata']['name']}: {where}: no {kind} {ns}/{name} is rendered")

    for f, o in objects:
        kind, ns, name = key(o)
        spec = o.get("spec") or {}
        if kind == "Stack":
            need(f, o, "spec.serviceAccountName", "ServiceAccount", ns, spec.get("serviceAccountName", "default"))
            src = (spec.get("fluxSource") or {}).get("sourceRef")
            if src:
                need(f, o, "spec.fluxSource.sourceRef", src["kind"], ns, src["name"])
            elif not spec.get("projectRepo") or not re.fullmatch(r"[0-9a-f]{40}", spec.get("commit", "")):
                problems.append(f"{f}: Stack/{name}: spec: no program pinned (projectRepo with a 40-hex commit, "
                                "or fluxSource)")
            for i, pre in enumerate(spec.get("prerequisites") or []):
                target = ("Stack", ns, pre["name"])
                need(f, o, f"spec.prerequisites[{i}]", "Stack", ns, pre["name"])
                if target in wave_of and wave_of[target] >= wave_of[key(o)]:
                    problems.append(f"{f}: Stack/{name}: spec.prerequisites[{i}]: {pre['name']} is not in an "
                                    "earlier wave; Flux would apply both at once")
            for field in ("secretsRef", "envRefs"):
                for k, ref in sorted((spec.get(field) or {}).items()):
                    if ref.get("type") != "Secret" or "secret" not in ref:
                        problems.append(f"{f}: Stack/{name}: spec.{field}.{k}: type {ref.get('type')!r}; only "
                                        "references to Kubernetes Secrets are allowed (no literal values)")
            if spec.get("secrets"):
                problems.append(f"{f}: Stack/{name}: spec.secrets: inline secret values; use secretsRef")
            for at in _walk_secure(spec.get("config") or {}, ("spec", "config")):
                problems.append(f"{f}: Stack/{name}: {_path(at)}: a secure value in plain config; use secretsRef")
            image = (((spec.get("workspaceTemplate") or {}).get("spec") or {}).get("image")) or ""
            if not _DIGEST_IMAGE.search(image):
                problems.append(f"{f}: Stack/{name}: spec.workspaceTemplate.spec.image: {image or 'unset'} is not "
                                "pinned by digest (@sha256:...)")
        elif kind == "Kustomization" and o.get("apiVersion", "").startswith("kustomize.toolkit"):
            src = spec.get("sourceRef", {})
            need(f, o, "spec.sourceRef", src.get("kind", ""), src.get("namespace", ns), src.get("name", ""))
            for i, dep in enumerate(spec.get("dependsOn") or []):
                need(f, o, f"spec.dependsOn[{i}]", "Kustomization", dep.get("namespace", ns), dep["name"])
            if spec.get("serviceAccountName"):
                need(f, o, "spec.serviceAccountName", "ServiceAccount", ns, spec["serviceAccountName"])
            path = spec.get("path", "").lstrip("./")
            wave_dir = next((d for d in dirs if path.endswith("/" + d) or path == d), None)
            if wave_dir is None:
                problems.append(f"{f}: Kustomization/{name}: spec.path: {spec.get('path')} is no rendered directory")
            for i, hc in enumerate(spec.get("healthChecks") or []):
                target = (hc["kind"], hc.get("namespace", ns), hc["name"])
                need(f, o, f"spec.healthChecks[{i}]", hc["kind"], target[1], hc["name"])
                if target in wave_of and wave_dir and wave_of[target] != wave_dir:
                    problems.append(f"{f}: Kustomization/{name}: spec.healthChecks[{i}]: {hc['name']} is not "
                                    f"applied by this Kustomization ({wave_of[target]})")
        elif kind in ("RoleBinding", "ClusterRoleBinding"):
            ref = o.get("roleRef", {})
            if not (ref.get("kind") == "ClusterRole" and ref.get("name") in BUILTIN_CLUSTER_ROLES):
                need(f, o, "roleRef", ref.get("kind", ""), ns if ref.get("kind") == "Role" else "", ref.get("name", ""))
            for i, sub in enumerate(o.get("subjects") or []):
                if sub.get("kind") == "ServiceAccount":
                    need(f, o, f"subjects[{i}]", "ServiceAccount", sub.get("namespace", ns), sub["name"])
    return problems


def validate_files(files: dict[str, str]) -> list[str]:
    """Every problem of the rendered ``files`` (relative path → YAML text): schemas, CEL rules, references."""
    problems: list[str] = []
    objects: list[tuple[str, dict[str, Any]]] = []
    for path, text in sorted(files.items()):
        if not path.endswith(".yaml") or path.startswith("config/") or path.endswith("kustomization.yaml"):
            continue
        for doc in yamlsafe.load_all(text):
            if not doc:
                continue
            objects.append((path, doc))
            where = f"{path}: {doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}"
            problems += [f"{where}: {p}" for p in schema_problems(doc)]
    return problems + reference_problems(objects)
