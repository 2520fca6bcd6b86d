"""Supply chain, as one class: what a stack runs is the content that was reviewed.

* ``container-image-pinned`` (MANDATORY): every container image a workload, an operator's custom resource, a Helm
  chart's values or an object rendered from those values names must say its registry host explicitly (``nginx``
  and ``library/nginx`` are refused: Docker Hub is implied, not chosen) and be pinned by digest
  (``@sha256:<64 hex>``) or come from a registry the policy config allows (``allowedRegistries``, host patterns) with
  a version tag — one holding a ``<major>.<minor>`` number or a build date stamp, never ``latest``, a branch or
  channel (``main``, ``stable``, ``edge``, ``nightly``) or a major-only tag, unless the tag matches ``allowedTags``.
  Images in values: for a chart the platform pins, at a version read (``_chart_images``, a copy of
  ``oke_rdma/facts/chart_images.py``), the image its templates WILL render from the values, judged when the values
  move it (a value the template cannot be read from fails closed); every other key, and every other chart, through
  the generic reader: a string under an ``image`` key (also beside an empty ``repository``: NVIDIA's verbatim
  image), ``{registry, repository, image, tag, version, digest}`` maps (the Bitnami and NVIDIA spellings; a
  ``digest`` counts only while a ``useDigest`` beside it is true), whole-reference overrides (``override`` in an
  image map, ``imageOverride``, ``fullImage``) judged as images; ``imageRegistry`` anywhere, and a ``registry`` in
  an image map without a repository (``global.image.registry``), is a registry override and must be allowed as a
  whole host (the chart's repository paths are appended to it, so on a multi-tenant host they name whoever owns
  them there). An OCI container instance's
  ``containers[].imageUrl`` counts the same, and so does a pod's image volume (``volumes[].image.reference``,
  Kubernetes "Volumes" ``image``, KEP-4639: the kubelet pulls it like a container image) — every place a pod names an
  image: containers, init containers, ephemeral containers, image volumes. An image unknown during preview fails
  closed.
* ``chart-repository-https`` (MANDATORY): a Helm chart (``helm.sh/v3:Release``, ``helm.sh/v4:Chart``) is fetched
  over HTTPS or from an OCI registry: an ``http://`` repository or chart URL is refused whatever the allow-list of
  ``helm-release-pinned`` says (anyone on the path serves another chart). The v1 Python components
  (``helm.sh/v3:Chart``, ``kustomize:Directory``, ``yaml:ConfigFile``/``ConfigGroup``) register none of their
  inputs, so no rule can verify their source: the catalogue refuses them (``resource-type-catalogued``).

Chart versions and repositories: ``helm-release-pinned``; manifests and kustomizations from URLs:
``kubernetes-manifest-source-pinned`` (a full commit SHA however the URL spells the ref).

Sources (checked 2026-12-01): distribution/reference ``reference.go`` grammar (a first path component is a host
only with a ``.`` or ``:`` or as ``localhost``; otherwise ``docker.io`` is implied) and ``normalize.go``; OCI image
spec "Digests" (``sha256``, ``sha512``); Kubernetes docs "Images" (a tag can move; a digest cannot; ``latest`` is
the implied tag); Helm docs "Chart Repository Guide" (repositories over HTTP(S)), "Registries" (``oci://``); Bitnami
charts ``image.registry/repository/tag/digest`` and ``global.imageRegistry``; NVIDIA GPU Operator values
``repository``/``image``/``version`` and ``internal/image/image.go``; Cilium ``cilium.image`` (``override``,
``useDigest``); the pinned charts' own templates as ``_chart_images`` lists them.
"""
from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, Iterator, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._chart_images import Refused, chart_images, read_paths, rendered_images
    from ._objects import HELM_TYPES, plain, release_objects
    from ._pod_templates import pod_specs
    from ._rules import UNKNOWN, elements, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _chart_images import Refused, chart_images, read_paths, rendered_images
    from _objects import HELM_TYPES, plain, release_objects
    from _pod_templates import pod_specs
    from _rules import UNKNOWN, elements, read
    from _gate import examines

IMAGE_POLICY = "container-image-pinned"
CONTAINER_INSTANCE = "oci:ContainerEngine/containerInstance:ContainerInstance"
HTTPS_POLICY = "chart-repository-https"
#: Where the platform's own images come from, as ``host/namespace/`` prefixes (a repository path, not a host: on a
#: registry anyone can publish to, trusting the host trusts every publisher). Each entry, with what pulls from it
#: (read 2026-12-02 from the add-ons' charts and manifests, docs/charts.md, and the examples):
DEFAULT_ALLOWED_REGISTRIES = [
    "registry.k8s.io/",  # Kubernetes projects only (SIG K8s Infra): kueue, jobset, kube-state-metrics, kubectl, NPD
    "container-registry.oracle.com/",  # Oracle's own registry, Oracle the only publisher (OKE images)
    "nvcr.io/nvidia/",  # NVIDIA's NGC org: GPU Operator, Network Operator, NGC framework images (examples)
    "quay.io/cilium/",  # cilium chart
    "quay.io/prometheus/", "quay.io/prometheus-operator/",  # kube-prometheus-stack: Prometheus, Alertmanager, operator
    "quay.io/kiwigrid/",  # grafana chart's dashboard sidecar
    "quay.io/kuberay/",  # kuberay-operator chart
    "docker.io/library/",  # Docker Official Images (busybox of the CRD upgrade job, python of the examples)
    "docker.io/grafana/",  # grafana chart
    "docker.io/mpioperator/",  # mpi-operator manifest
    "docker.io/pulumi/",  # Pulumi Kubernetes Operator
    "ghcr.io/fluxcd/", "ghcr.io/kedacore/", "ghcr.io/kubeflow/",  # flux2, keda, Kubeflow Trainer
    "ghcr.io/oracle/",  # Oracle's GitHub org: the OCI CLI image of examples/training-job
    "iad.ocir.io/idxzjcdglx2s/",  # OCI HPC team's nccl-tests (oracle-quickstart/oci-hpc-oke; examples/nccl-allreduce)
]
#: Registries anyone can publish to under a namespace of their own (Docker Hub accounts, Quay and GHCR users and orgs,
#: NGC orgs, every OCI tenancy's OCIR namespace, ECR Public aliases, Artifact Registry and GitLab projects): an
#: allow-list entry for one of them must name a namespace (``docker.io/library/``), or it is ignored.
MULTI_TENANT_HOSTS = ("docker.io", "index.docker.io", "registry-1.docker.io", "quay.io", "ghcr.io", "nvcr.io", "gcr.io",
                      "*.gcr.io", "*.pkg.dev", "public.ecr.aws", "registry.gitlab.com", "ocir.io", "*.ocir.io",
                      "*.ocir.oci.oraclecloud.com", "*.azurecr.io", "*.dkr.ecr.*.amazonaws.com")
_DIGEST = re.compile(r"@(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$")
_SPACE = re.compile(r"\s")
_CONTAINER_KEYS = ("containers", "initContainers", "ephemeralContainers")
#: Keys of a values map that spell one image (Bitnami: registry/repository/tag/digest; NVIDIA: repository/image/
#: version).
_IMAGE_MAP_KEYS = ("registry", "repository", "image", "tag", "version", "digest")


def image_problem(ref: Any, allowed: Sequence[str], allowed_tags: Sequence[str] = ()) -> Optional[str]:
    """Why an image reference is not pinned (None when it is): see the module docstring."""
    if ref is UNKNOWN:
        return "is unknown during preview, so it cannot be verified as pinned; give a literal image reference"
    if not isinstance(ref, str) or not ref.strip() or _SPACE.search(ref.strip()):
        return f"{ref!r} is not an image reference"
    ref = ref.strip()
    first, slash, rest = ref.partition("/")
    if not (slash and rest and ("." in first or ":" in first or first == "localhost")):
        return (f"{ref!r} names no registry host (Docker Hub is implied, not chosen); write the host, e.g. "
                f"docker.io/{ref if '/' in ref else 'library/' + ref}")
    if _DIGEST.search(ref):
        return None
    host = first.lower()
    if not any(trusted(host, rest, entry) for entry in allowed):
        repo = rest.split("@")[0].rsplit(":", 1)[0] if ":" in rest.rsplit("/", 1)[-1] else rest.split("@")[0]
        ignored = [e for e in allowed if whole_multi_tenant_host(e)]
        note = (f" ({', '.join(ignored)}: a whole registry anyone can publish to, ignored — name a namespace)"
                if ignored else "")
        return (f"{ref!r} comes from {host}/{repo.rsplit('/', 1)[0] + '/' if '/' in repo else ''}, which no "
                f"allowedRegistries prefix covers{note}, and is not pinned by digest; pin it with @sha256:<digest> or "
                f"add its registry namespace (host/namespace/) to allowedRegistries")
    last = rest.rsplit("/", 1)[-1]
    tag = last.partition(":")[2] if ":" in last else ""
    if "@" in ref:
        return f"{ref!r} has a digest that is not sha256:<64 hex> or sha512:<128 hex>"
    if not tag or tag == "latest":
        return (f"{ref!r} has {'no tag (latest is implied)' if not tag else 'the tag latest'}, which moves; pin a "
                f"version tag or a digest")
    if not version_tag(tag) and not any(fnmatch.fnmatchcase(tag, p) for p in allowed_tags):
        return (f"{ref!r} has the tag {tag!r}, which does not look like a version (no <major>.<minor> number or "
                f"build date) and moves like latest (a branch, a channel); pin a version tag or a digest, or list the tag in "
                f"allowedTags")
    return None


def whole_multi_tenant_host(entry: str) -> bool:
    """Does an allow-list entry trust a whole registry that anyone can publish to (no namespace after the host)?"""
    host, _, path = entry.strip().lower().partition("/")
    return not path.strip("/") and any(fnmatch.fnmatchcase(host, p) or fnmatch.fnmatchcase(p, host)
                                       for p in MULTI_TENANT_HOSTS)


def trusted(host: str, rest: str, entry: str) -> bool:
    """Is the image ``host/rest`` under the allow-list ``entry`` (``host/namespace/...``; the host may be an fnmatch
    pattern, the path matches whole components: ``nvcr.io/nvidia/`` covers ``nvcr.io/nvidia/k8s/x``, never
    ``nvcr.io/nvidia-evil/x``)? An entry naming a whole multi-tenant host trusts nothing."""
    if not isinstance(entry, str) or whole_multi_tenant_host(entry):
        return False
    pattern, _, prefix = entry.strip().lower().partition("/")
    if not (fnmatch.fnmatchcase(host, pattern) or fnmatch.fnmatchcase(host.split(":")[0], pattern)):
        return False
    prefix = prefix.strip("/")
    repo = rest.lower().split("@")[0]
    if ":" in repo.rsplit("/", 1)[-1]:
        repo = repo.rsplit(":", 1)[0]
    return not prefix or repo == prefix or repo.startswith(prefix + "/")


#: A version tag names one release: it holds a ``<major>.<minor>`` number anywhere (``1.4.2``, ``v0.17.1-ubi9``,
#: ``25.03-py3``, ``cuda-13.4.1-ubuntu-24.04-nccl-2.32.3``) or is a build date stamp (``20260930``: 8 to 14 digits,
#: optionally suffixed), and none of its ``-``/``_``/``.``/``+`` parts is a moving word (``1.2-latest``). Branch and
#: channel tags (``main``, ``stable``, ``edge``, ``nightly``) and major-only tags (``3``) move with every release.
_VERSION_NUMBER = re.compile(r"\d+\.\d+")
_DATE_STAMP = re.compile(r"^\d{8,14}([-+_.][0-9A-Za-z._+-]*)?$")
MOVING_WORDS = frozenset({"latest", "main", "master", "stable", "edge", "nightly", "dev", "develop", "head",
                          "canary", "current", "lts", "snapshot", "unstable", "testing", "trunk"})


def version_tag(tag: str) -> bool:
    """Does ``tag`` look like a version that names one release (see :data:`_VERSION_NUMBER`)?"""
    return bool(_VERSION_NUMBER.search(tag) or _DATE_STAMP.match(tag)) and not (
        set(re.split(r"[-+_.]", tag.lower())) & MOVING_WORDS)


def _pod_images(spec: Any, where: str) -> Iterator[tuple[str, Any]]:
    if spec is None or spec is UNKNOWN:
        return  # an unknown pod spec is refused by the pod rules (node-escape-only-in-node-agent-namespaces)
    for key in _CONTAINER_KEYS:
        containers = elements(read(spec, key))
        if containers is UNKNOWN:
            yield f"{where}{key}", UNKNOWN
            continue
        for i, container in enumerate(containers):
            if container is UNKNOWN:
                yield f"{where}{key}[{i}]", UNKNOWN
            elif read(container, "image") is not None:
                yield f"{where}{key}[{i}].image", read(container, "image")
    # image volumes (Kubernetes "Volumes": ``image``, KEP-4639): the kubelet pulls ``reference`` like a container's
    volumes = elements(read(spec, "volumes"))
    if volumes is UNKNOWN:
        yield f"{where}volumes", UNKNOWN
        return
    for i, volume in enumerate(volumes or []):
        image = UNKNOWN if volume is UNKNOWN else read(volume, "image")
        if image is not None:
            yield f"{where}volumes[{i}].image.reference", UNKNOWN if image is UNKNOWN else read(image, "reference")


def workload_images(resource_type: str, props: Any) -> Iterator[tuple[str, Any]]:
    """(where, image) of every container of the pod specs a resource creates (built-in workloads, operator custom
    resources) and of an OCI container instance (``containers[].imageUrl``)."""
    if resource_type == CONTAINER_INSTANCE:
        containers = elements(read(props, "containers"))
        if containers is UNKNOWN:
            yield "containers", UNKNOWN
            return
        for i, container in enumerate(containers):
            yield f"containers[{i}].imageUrl", UNKNOWN if container is UNKNOWN else read(container, "imageUrl")
        return
    for where, spec in pod_specs(resource_type, props):
        yield from _pod_images(spec, f"{where}." if where else "")


def _compose(node: Mapping) -> Optional[str]:
    """One image reference from a values map in the Bitnami or NVIDIA spelling, or None when the map names no
    repository (a tag-only override keeps the chart's own repository). A ``digest`` counts only while ``useDigest``,
    where the map has one, is true (Cilium's spelling: false drops the digest)."""
    repository = node.get("repository")
    if not isinstance(repository, str) or not repository:
        return None
    parts = [p for p in (node.get("registry"), repository, node.get("image")) if isinstance(p, str) and p]
    ref = "/".join(p.strip("/") for p in parts)
    tag = node.get("tag") if isinstance(node.get("tag"), str) and node.get("tag") else node.get("version")
    if isinstance(tag, (int, float)) and not isinstance(tag, bool):
        tag = f"{tag:g}"
    if isinstance(tag, str) and tag and "@" not in ref and ":" not in ref.rsplit("/", 1)[-1]:
        ref += f":{tag}"
    digest = node.get("digest")
    if isinstance(digest, str) and digest and node.get("useDigest", True) is True:
        ref = ref.split("@")[0] + f"@{digest}"
    return ref


#: Keys that hold a whole image reference the chart prints instead of the map's parts (Cilium ``override``), and
#: keys that hold a registry host replacing the chart's own (Bitnami ``global.imageRegistry``; ``registry`` in an
#: image map without a repository, like KEDA's ``global.image.registry``).
OVERRIDE_KEYS = ("override", "imageOverride", "fullImage", "fullImageName")


def _image_map(where: str, node: Mapping) -> bool:
    return "image" in where.lower() or bool(set(node) & {"repository", "tag", "digest", "useDigest", "sha"})


def values_images(values: Any, path: str = "values", skip: frozenset[str] = frozenset()) -> Iterator[tuple[str, Any]]:
    """(where, image reference or UNKNOWN) of every image a chart's values name (see the module docstring);
    ``imageRegistry`` overrides, and a ``registry`` in an image map without a repository, are yielded as
    ``<host>/override:0.0.0`` (a version tag) so only their host is judged. ``skip``: values paths (dotted, below
    ``values``) read elsewhere, left out."""
    if values is UNKNOWN:
        yield path, UNKNOWN
        return
    stack: list[tuple[str, Any]] = [(path, values)]
    while stack:  # iterative: deep values never exhaust the interpreter's recursion limit
        where, node = stack.pop()
        if where[len(path) + 1:] in skip:
            continue
        if isinstance(node, Mapping):
            has_repository = isinstance(node.get("repository"), str) and bool(node.get("repository"))
            if "repository" in node and set(node) & {"tag", "version", "digest", "registry", "image"}:
                if any(node.get(k) is UNKNOWN for k in _IMAGE_MAP_KEYS + ("useDigest",)):
                    yield where, UNKNOWN
                else:
                    composed = _compose(node)
                    if composed is not None:
                        yield where, composed
            image_map = _image_map(where, node)
            for key, value in node.items():
                at = f"{where}.{key}"
                if at[len(path) + 1:] in skip:
                    continue
                if key == "image" and not has_repository and (isinstance(value, str) or value is UNKNOWN):
                    yield at, value  # also NVIDIA's empty repository and version: the image is used verbatim
                elif key in OVERRIDE_KEYS and (image_map or key != "override") and (isinstance(value, str) and value or value is UNKNOWN):
                    yield at, value  # a whole reference the chart prints instead of the map's parts
                elif (key == "imageRegistry" or key == "registry" and image_map and "repository" not in node) and (
                        isinstance(value, str) and value or value is UNKNOWN):
                    yield at, UNKNOWN if value is UNKNOWN else f"{value.strip('/')}/override:0.0.0"
                elif isinstance(value, (Mapping, list)):
                    stack.append((at, value))
        elif isinstance(node, list):
            stack += [(f"{where}[{i}]", item) for i, item in enumerate(node)]


def _release_identity(props: Any) -> tuple[Any, Any, Any]:
    """(chart name, repository, version) of a release: an ``oci://`` chart's last path element and the rest, or a
    bare chart name and ``repositoryOpts.repo``."""
    chart, version = read(props, "chart"), read(props, "version")
    if isinstance(chart, str) and chart.startswith("oci://"):
        repo, _, name = chart.rstrip("/").rpartition("/")
        return name, repo, version
    return chart, read(props, "repositoryOpts", "repo"), version


def chart_values_images(props: Any) -> list[tuple[str, Any]]:
    """(where, image or UNKNOWN or :class:`Refused`) of a release's values: for a chart whose image spelling is
    recorded (``_chart_images``, the charts the platform pins at the versions read) the images its templates render
    from the values, and the generic reader on every other key; for any other chart the generic reader alone."""
    values = plain(read(props, "values", default={}))
    entry = chart_images(*_release_identity(props))
    if entry is None or values is UNKNOWN:
        return list(values_images(values))
    found: list[tuple[str, Any]] = list(rendered_images(entry, values))
    return found + list(values_images(values, skip=frozenset(read_paths(entry))))


def image_problems(resource_type: str, name: str, urn: str, props: Any, allowed: Sequence[str],
                   allowed_tags: Sequence[str] = ()) -> list[str]:
    """One line per image of a resource that is not pinned (see the module docstring)."""
    found: list[tuple[str, Any]] = list(workload_images(resource_type, props))
    if resource_type in HELM_TYPES:
        found += chart_values_images(props)
        release = SimpleNamespace(props=props, urn=urn, name=name, property_dependencies={})
        for derived, _ in release_objects(release):
            if derived is not None and derived.resource_type:
                found += [(f"{derived.origin} {w}", i) for w, i in workload_images(derived.resource_type,
                                                                                   derived.props)]
    problems = []
    for where, ref in found:
        if isinstance(ref, Refused):
            problems.append(f"{where} cannot be judged: {ref}")
            continue
        problem = image_problem(ref, allowed, allowed_tags)
        if problem:
            problems.append(f"{where} {problem}")
    return problems


def validate_image_pinned(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Refuse images without an explicit registry host, or neither pinned by digest nor from an allowed registry."""
    config = args.get_config() or {}
    allowed = [p for p in (config.get("allowedRegistries") or DEFAULT_ALLOWED_REGISTRIES) if isinstance(p, str)]
    tags = [p for p in (config.get("allowedTags") or ()) if isinstance(p, str)]
    for problem in image_problems(args.resource_type, args.name, args.urn, args.props, allowed, tags):
        report_violation(f"{args.resource_type.split(':')[-1]} '{args.name}': image {problem}.", None)


def _scheme_problem(url: Any, what: str) -> Optional[str]:
    if isinstance(url, str) and "://" in url:
        scheme = url.split("://", 1)[0].lower()
        if scheme not in ("https", "oci"):
            return (f"its {what} {url} is fetched over {scheme}://, where anyone on the path can serve another chart; "
                    f"use https:// or an oci:// registry")
    return None


def chart_scheme_problems(props: Any) -> list[str]:
    """Why a Helm release's chart or repository is not fetched over HTTPS or OCI."""
    problems = [_scheme_problem(read(props, "chart"), "chart"),
                _scheme_problem(read(props, "repositoryOpts", "repo"), "repository")]
    return [p for p in problems if p]


def validate_chart_https(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type not in HELM_TYPES:
        return
    for problem in chart_scheme_problems(args.props):
        report_violation(f"Helm release '{args.name}': {problem}.", None)


container_image_pinned = ResourceValidationPolicy(
    name=IMAGE_POLICY,
    description="Every container image names its registry host and is pinned by digest or comes from an allowed "
                "registry with a version tag.",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Write the registry host (docker.io/library/<name>:<tag>, not <name>:<tag>), and pin the "
                       "image by digest (@sha256:...) or take it from a registry in allowedRegistries with a version "
                       "tag. Images in Helm values and operator resources count the same."),
    tags=["supply-chain"],
    validate=validate_image_pinned,
    config_schema=PolicyConfigSchema(properties={"allowedRegistries": {
        "type": "array", "items": {"type": "string", "minLength": 1}, "default": DEFAULT_ALLOWED_REGISTRIES,
        "description": "Registry namespaces (host/namespace/ prefixes; the host may be an fnmatch pattern) whose "
                       "images may be pinned by tag; any other image needs a digest. An entry naming a whole "
                       "registry anyone can publish to (docker.io, quay.io, ghcr.io, nvcr.io, *.ocir.io...) is "
                       "ignored: name the namespace, e.g. <region>.ocir.io/<your tenancy namespace>/."},
        "allowedTags": {"type": "array", "items": {"type": "string", "minLength": 1}, "default": [],
                        "description": "Tags (fnmatch patterns) accepted although they do not look like a version "
                                       "(e.g. a registry's immutable build tags)"}}),
)

chart_repository_https = ResourceValidationPolicy(
    name=HTTPS_POLICY,
    description="A Helm chart and its repository are fetched over HTTPS or from an OCI registry.",
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps="Use the https:// URL of the chart repository, or an oci:// chart reference.",
    tags=["supply-chain"],
    validate=validate_chart_https,
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(chart_repository_https, *HELM_TYPES)

POLICIES = [container_image_pinned, chart_repository_https]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    IMAGE_POLICY: "fails closed: an unknown image, container list or values object is a violation (an unknown pod "
                  "spec is left to the pod rules, which refuse it)",
    HTTPS_POLICY: "reads only inputs known at preview: an unknown chart or repository is refused by "
                  "helm-release-pinned",
}
