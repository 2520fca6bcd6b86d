"""Kubernetes objects applied from manifests: the source must be the one that was reviewed.

The pack judges every object a ``yaml/v2:ConfigFile``/``ConfigGroup`` or ``kustomize/v2:Directory`` holds (the
provider registers them as the component's children). A local path is part of the program's own revision, so what
the pack judged at preview is what ``pulumi up`` applies. A URL is fetched again by every preview and update: a
branch (``master``), a tag or a "latest" release asset can point at other objects by the next ``pulumi up`` than the
ones judged — a mutable supply-chain input, the manifest twin of an unpinned Helm chart (``helm-release-pinned``).

* ``kubernetes-manifest-source-pinned`` (MANDATORY): a ConfigFile's ``file``, a ConfigGroup's ``files`` or a
  Kustomize Directory's ``directory`` that is a remote reference (``http://``, ``https://``, ``git::``, ``ssh://``,
  ``git@``, ``github.com/...``) must name an immutable revision: a full 40-hex commit SHA in the place the host
  reads the revision from — ``raw.githubusercontent.com/<org>/<repo>/<sha>/...``, ``github.com/<org>/<repo>/
  (blob|raw|tree)/<sha>/...``, ``gitlab.com/<group>/<repo>/-/(raw|blob|tree)/<sha>/...``, ``bitbucket.org/<org>/
  <repo>/(raw|src)/<sha>/...`` — or every ``ref=``/``version=`` query parameter (``?ref=``, ``&ref=``,
  ``//<subdir>?ref=``, go-getter and kustomize spellings) being one. A 40-hex string anywhere else (an organisation,
  a release tag, a second parameter beside ``ref=main``) pins nothing. Tags and branches move (a tag is a mutable
  Git ref) and are refused. A local path (or ``objs``/``yaml`` given inline) passes: its objects are judged
  as they will be applied — except a local Kustomize directory whose kustomization file (or a local base's, in
  turn) pulls a remote ``resources``/``bases``/``components``/generator entry that is not pinned, or a
  ``helmCharts`` chart from a repository: the same mutable input reached through a local path (``_kustomization``;
  what cannot be read is refused). Unknown values fail closed.

Sources (checked 2026-12-01): pulumi_kubernetes 4.34 ``yaml/v2:ConfigFile`` (``file``: "Path or a URL that uniquely
identifies a file"), ``yaml/v2:ConfigGroup`` (``files``, ``objs``, ``yaml``), ``kustomize/v2:Directory``
(``directory``: a local path or a Git repository URL with ``?ref=``); Git docs "git-tag" (a tag can be deleted and
re-created: "On Re-tagging"); kustomize docs "remote targets" (``?ref=`` of a branch, tag or commit).
"""
from __future__ import annotations

import re
from typing import Any, Iterator

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._kustomization import kustomization_problems
    from ._rules import UNKNOWN, elements, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _kustomization import kustomization_problems
    from _rules import UNKNOWN, elements, read
    from _gate import examines

CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"
KUSTOMIZE = "kubernetes:kustomize/v2:Directory"
#: Resource type → (property, whether it is a list).
SOURCES = {CONFIG_FILE: ("file", False), CONFIG_GROUP: ("files", True), KUSTOMIZE: ("directory", False)}
_REMOTE = re.compile(r"^(https?://|git::|ssh://|git@|github\.com/|gitlab\.com/|bitbucket\.org/)", re.I)
_SHA = re.compile(r"^[0-9a-f]{40}$")
#: Query parameters that name the revision of a remote (kustomize docs "remote targets": ``ref``, ``version``;
#: hashicorp/go-getter "Git": ``ref``).
_REF_PARAMS = ("ref", "version")
#: Host → (the path segments before the revision, as a tuple of alternatives per position, "*" any); the revision
#: is the segment after them.
_REVISION_AT = {"raw.githubusercontent.com": ("*", "*"), "github.com": ("*", "*", ("blob", "raw", "tree")),
                "bitbucket.org": ("*", "*", ("raw", "src"))}
#: Hosts that address a file by Git commit (a 40-hex path segment or ``ref`` names immutable content there only;
#: on any other web server it is just a path). Sources: GitHub docs "Getting permanent links to files"; GitLab docs
#: "Repository files API" (``ref`` is a branch, tag or commit); Bitbucket Cloud docs "src" endpoint (``{commit}``).
GIT_HOSTS = ("raw.githubusercontent.com", "github.com", "gitlab.com", "bitbucket.org")
_HOST = re.compile(r"^(?:git::)?(?:https?://|ssh://)?(?:[^@/]+@)?([^/:?#]+)", re.I)


def source_problem(value: Any) -> str | None:
    """Why one manifest source is not pinned (None when it is a local path or a URL at a commit SHA)."""
    if value is UNKNOWN:
        return "its source is unknown during preview, so it cannot be verified as pinned; give a literal path"
    if not isinstance(value, str):
        return f"its source {value!r} is not a path or URL"
    if not _REMOTE.match(value.strip()):
        return None
    host = (_HOST.match(value.strip()) or [None, ""])[1].lower()
    if host not in GIT_HOSTS:
        return (f"its source {value} is fetched from {host or 'an unknown host'}, which does not address files by "
                f"Git commit, so nothing pins what it serves; vendor the manifest into the repository and apply it "
                f"from the local path")
    if pinned_at_commit(value.strip(), host):
        return None
    return (f"its source {value} is a remote reference without a commit SHA: a branch, tag or release asset can "
            f"serve other objects at the next pulumi up than the ones judged now; vendor the manifest into the "
            f"repository and apply it from the local path, or reference a full 40-character commit SHA")


def pinned_at_commit(url: str, host: str) -> bool:
    """Does a remote reference on a Git host name a full commit SHA where the host reads its revision from (see the
    module docstring)? Every ``ref``/``version`` parameter must be one; without them, the path segment the host
    reads as the revision must be."""
    from urllib.parse import parse_qs

    text = url[5:] if url.lower().startswith("git::") else url
    text = text.split("#", 1)[0]
    base, _, query = text.partition("?")
    params = parse_qs(query, keep_blank_values=True)
    refs = [v for k in _REF_PARAMS for v in params.get(k, [])]
    if refs:
        return all(_SHA.match(r) for r in refs)
    path = re.sub(r"^(?:https?://|ssh://)?(?:[^@/]+@)?[^/:]+[:/]?", "", base)
    segments = [s for s in path.split("/") if s]
    if host == "gitlab.com":
        if "-" not in segments:
            return False
        i = segments.index("-")
        revision = "".join(segments[i + 2:i + 3])
        return segments[i + 1:i + 2] in (["raw"], ["blob"], ["tree"]) and bool(_SHA.match(revision))
    before = _REVISION_AT.get(host)
    if before is None or len(segments) <= len(before):
        return False
    for segment, allowed in zip(segments, before):
        if allowed != "*" and segment not in allowed:
            return False
    return bool(_SHA.match(segments[len(before)]))


def source_problems(resource_type: str, props: Any) -> Iterator[str]:
    """Every unpinned source of a manifest component (see the module docstring)."""
    prop, is_list = SOURCES[resource_type]
    value = read(props, prop)
    if value is None:
        return
    values = elements(value) if is_list else [value]
    if values is UNKNOWN:
        yield f"its {prop} are unknown during preview, so they cannot be verified as pinned; give literal paths"
        return
    for v in values:
        problem = source_problem(v)
        if problem:
            yield problem
        elif resource_type == KUSTOMIZE and isinstance(v, str) and not _REMOTE.match(v.strip()):
            yield from kustomization_problems(v.strip(), source_problem)


def validate_manifest_source(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``kubernetes-manifest-source-pinned``."""
    if args.resource_type not in SOURCES:
        return
    for problem in source_problems(args.resource_type, args.props):
        report_violation(f"{args.resource_type.rsplit(':', 1)[1]} '{args.name}': {problem}.", None)


kubernetes_manifest_source_pinned = ResourceValidationPolicy(
    name="kubernetes-manifest-source-pinned",
    description="Manifests applied from a URL (ConfigFile, ConfigGroup files, Kustomize) are pinned to a commit SHA.",
    validate=validate_manifest_source,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Vendor the manifest into the repository (with its source URL and commit in a header) and "
                       "apply it from the local path or as objs; or reference the URL at a full 40-character commit "
                       "SHA. Source: pulumi_kubernetes yaml/v2 ConfigFile and ConfigGroup, kustomize/v2 Directory."),
    tags=["kubernetes", "security", "supply-chain"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(kubernetes_manifest_source_pinned, *SOURCES)

POLICIES = [kubernetes_manifest_source_pinned]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "kubernetes-manifest-source-pinned": "fails closed: an unknown file, files or directory is a violation",
}
