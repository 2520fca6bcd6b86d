"""Remote (multi-language) components under mocks: what the Kubernetes provider would register inside them.

``kubernetes:yaml/v2:ConfigGroup``, ``kubernetes:yaml/v2:ConfigFile``, ``kubernetes:helm.sh/v4:Chart`` and
``kubernetes:kustomize/v2:Directory`` are components the Kubernetes provider constructs (``Construct``): the program
registers the component only, and the provider registers its objects as children. Under mocks no provider runs, so
no child is registered and the policy pack would never see them. :func:`expand_remote` closes that gap:

* Where the objects are known offline — a ConfigGroup's ``objs`` and ``yaml``, its ``files`` and a ConfigFile's
  ``file`` when they are local files — they are recorded as the children the engine would analyse, named and typed
  the way pulumi-kubernetes registers them (``provider/pkg/provider/yaml/v2/yaml.go`` ``register``,
  v4.32.0-27-g9497796, checked 2026-11-30): type ``kubernetes:<group>/<version>:<Kind>`` (``core`` for the core
  group), name ``<resourcePrefix>:<namespace>/<name>`` (prefix: the component's name unless ``resourcePrefix`` is
  given; namespace only when set), parent the component. A namespaced kind without a namespace gets ``default``
  (``Normalize`` applies the provider's default namespace: the ``namespace`` of the component's provider when the
  offline run knows it, else ``default``).
* List objects (anything whose ``items`` is a list) are expanded into their items, recursively, as the provider's
  ``expand`` does.
* Where they cannot be known (a chart rendered by Helm, a kustomization, a URL, a value unknown in this preview),
  one advisory per resource says what was not checked. Never a silent pass.
* What the provider refuses (YAML that does not parse, an object without kind, apiVersion or ``metadata.name``, a
  local file that does not exist) fails ``pulumi preview``: the offline preview fails too (exit 3), naming it.
"""

from __future__ import annotations

import copy
import glob
import os
from typing import Any, Optional

import yaml

from offline.policy_types import EngineResource
from policies.security._yaml_bounded import BoundedYAMLError, safe_load_all
from offline.values import UNKNOWN, is_secret

CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
#: Remote components whose objects only a live tool renders (type → what renders them).
OPAQUE = {"kubernetes:helm.sh/v4:Chart": "the Helm chart's rendered objects",
          "kubernetes:kustomize/v2:Directory": "the kustomization's rendered objects"}
#: Kinds that are cluster-scoped (no namespace applied). Source: ``kubectl api-resources --namespaced=false`` of
#: Kubernetes v1.34 (core and common CRD kinds used here), checked 2026-11-30.
CLUSTER_SCOPED = {"Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "StorageClass",
                  "CustomResourceDefinition", "PriorityClass", "CSIDriver", "CSINode", "VolumeAttachment",
                  "IngressClass", "RuntimeClass", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                  "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "APIService",
                  "ClusterQueue", "ResourceFlavor", "Topology", "Cohort"}


#: What one ConfigGroup or ConfigFile may make the offline preview read: files a glob matches, bytes in total. A
#: pattern past either is refused with one line rather than walked (``/*/*/*/*.yaml`` from the root of a large tree).
MAX_FILES = 1000
MAX_BYTES = 64 * 2**20


def _matches(pattern: str) -> Optional[list[str]]:
    """The paths a glob matches (sorted, as the provider's ``filepath.Glob``), or None past :data:`MAX_FILES`."""
    found: list[str] = []
    for path in glob.iglob(pattern):
        found.append(path)
        if len(found) > MAX_FILES:
            return None
    return sorted(found)


def _known(value: Any) -> bool:
    if value == UNKNOWN or is_secret(value):
        return False
    if isinstance(value, dict):
        return all(_known(v) for v in value.values())
    if isinstance(value, list):
        return all(_known(v) for v in value)
    return True


def _type_token(obj: dict) -> Optional[str]:
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str) or not api or not kind:
        return None
    return f"kubernetes:{api if '/' in api else 'core/' + api}:{kind}"


def _child(parent: EngineResource, prefix: str, obj: dict, provider: Optional[str],
           default_namespace: Optional[str] = "default") -> EngineResource:
    meta = obj.setdefault("metadata", {})
    if obj.get("kind") not in CLUSTER_SCOPED and not meta.get("namespace") and default_namespace is not None:
        meta["namespace"] = default_namespace
    name = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else str(meta["name"])
    name = f"{prefix}:{name}" if prefix else name
    typ = _type_token(obj) or "kubernetes:unknown"
    qualified = parent.urn.split("::")[2]
    urn = "::".join([*parent.urn.split("::")[:2], f"{qualified}${typ}", name])
    return EngineResource(urn=urn, type=typ, name=name, custom=True, inputs=obj, parent=parent.urn,
                          provider=provider)


def _expand(items: list[Any]) -> list[Any]:
    """Lists expanded into their items, recursively, as pulumi-kubernetes' ``expand`` does (yaml/v2 ``yaml.go``): an
    object whose ``items`` is a list (``unstructured.IsList``: ``kind: List``, ``ConfigMapList``...) is no object
    of its own; the API server would apply each item."""
    out: list[Any] = []
    queue = list(items)
    while queue:
        item = queue.pop(0)
        if isinstance(item, dict) and isinstance(item.get("items"), list):
            queue[:0] = item["items"]
        else:
            out.append(item)
    return out


def _identified(obj: Any) -> bool:
    return isinstance(obj, dict) and bool(_type_token(obj)) and isinstance((obj.get("metadata") or {}).get("name"), str) \
        and bool(obj["metadata"]["name"])


def _documents(text: str, where: str) -> tuple[list[dict], list[str]]:
    """The objects of a YAML stream and what the provider refuses in it (invalid YAML, an object without kind,
    apiVersion or metadata.name: ``Normalize`` fails the component with "Kubernetes resources require ...")."""
    try:
        docs = [d for d in safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:
        why = f": {e}" if isinstance(e, BoundedYAMLError) else ""
        return [], [f"{where}: not valid YAML ({e.__class__.__name__}{why}); pulumi preview fails on it"]
    objs, problems = [], []
    for item in _expand(docs):
        if _identified(item):
            objs.append(item)
        else:
            problems.append(f"{where}: an object without apiVersion, kind and metadata.name: the Kubernetes provider "
                            "refuses it (\"Kubernetes resources require a kind and apiVersion\" / \"a .metadata.name\")")
    return objs, problems


def expand_remote(res: EngineResource, provider: Optional[str] = None, cwd: Optional[str] = None,
                  errors: Optional[list[str]] = None, remote: bool = False,
                  default_namespace: Optional[str] = "default") -> tuple[list[EngineResource], list[str]]:
    """The children a remote component ``res`` would register that are known offline (managed by ``provider``, the
    component's Kubernetes provider reference), and one advisory per thing that is not (empty lists for any other
    resource). Relative file paths are read from ``cwd`` (default: the working directory, as Pulumi runs a program
    in its project directory). What the Kubernetes provider would refuse, failing ``pulumi preview`` (YAML that does
    not parse, an object without kind, apiVersion or name, a local file that does not exist), is appended to
    ``errors`` when given, else reported among the advisories. Any other ``remote`` component (registered with
    ``remote=True``: a multi-language component whose provider's ``Construct`` registers its children, from a package
    the offline engine does not model) is one advisory: under mocks it is one opaque resource."""
    what = f"{res.type} {res.name}"
    if res.type in OPAQUE:
        return [], [f"{what}: {OPAQUE[res.type]} are not known offline; the policy pack did not check them "
                    "(pulumi preview with the real provider renders them)"]
    if res.type not in (CONFIG_GROUP, CONFIG_FILE):
        if remote:
            package = res.type.split(":", 1)[0]
            return [], [f"{what}: a remote component of package {package!r}: its provider constructs its children, "
                        "which are not known offline; the policy packs did not check them (pulumi preview with the "
                        "package's provider constructs them)"]
        return [], []
    inputs = res.inputs
    prefix = inputs.get("resourcePrefix") if isinstance(inputs.get("resourcePrefix"), str) else res.name
    objs: list[dict] = []
    advisories: list[str] = []
    refused: list[str] = []
    sources: list[tuple[str, Any]] = []
    read_bytes = 0
    if res.type == CONFIG_FILE:
        sources.append(("file", inputs.get("file")))
    else:
        files = inputs.get("files")
        sources += [("files", f) for f in (files if isinstance(files, list) else [files] if files else [])]
        text = inputs.get("yaml")
        sources += [("yaml", t) for t in (text if isinstance(text, list) else [text] if text else [])]
        given = inputs.get("objs")
        for i, obj in enumerate(given if isinstance(given, list) else [given] if given else []):
            if not _known(obj):
                advisories.append(f"{what}: objs[{i}] is not known in this preview; it was not checked")
                continue
            for item in _expand([obj]):
                if _identified(item):
                    objs.append(item)
                else:
                    refused.append(f"{what}: objs[{i}] holds an object without apiVersion, kind and metadata.name: "
                                   "the Kubernetes provider refuses it")
    for key, value in sources:
        if not isinstance(value, str) or not _known(value):
            advisories.append(f"{what}: {key} is not known in this preview; its objects were not checked")
        elif key == "yaml":
            found, problems = _documents(value, f"{what}: yaml")
            objs += found
            refused += problems
        elif value.startswith(("http://", "https://")):
            advisories.append(f"{what}: {key} {value} is a URL, not fetched offline; its objects were not checked")
        else:
            paths = _matches(os.path.join(cwd or os.getcwd(), value))
            if paths is None:
                refused.append(f"{what}: {key} {value} matches more than {MAX_FILES} files; the offline preview "
                               "reads no more (name the files, or split the group)")
                continue
            if not paths:
                refused.append(f"{what}: {key} {value}: no such local file; the Kubernetes provider fails on it")
            for path in paths:
                size = os.path.getsize(path) if os.path.isfile(path) else 0
                read_bytes += size
                if read_bytes > MAX_BYTES:
                    refused.append(f"{what}: {key} {value}: its files pass {MAX_BYTES // 2**20} MiB together; the "
                                   "offline preview reads no more (split the group)")
                    break
                try:
                    text = open(path, encoding="utf-8").read()
                except (OSError, UnicodeDecodeError) as e:
                    refused.append(f"{what}: {key} {value}: cannot read {path} ({e})")
                    continue
                found, problems = _documents(text, f"{what}: {path}")
                objs += found
                refused += problems
    if errors is not None:
        errors += refused
    else:
        advisories += refused
    return [_child(res, prefix, copy.deepcopy(o), provider, default_namespace) for o in objs], advisories
