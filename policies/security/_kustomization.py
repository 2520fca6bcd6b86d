"""What a local Kustomize directory pulls in: the references its kustomization file makes, read the way kustomize
reads them, so ``kubernetes-manifest-source-pinned`` judges a remote base reached through a local directory like a
remote ``directory`` (``manifests``).

Read: the one kustomization file of the directory (``kustomization.yaml``, ``kustomization.yml`` or
``Kustomization``; kustomize refuses a directory with several), and in it every field whose entries kustomize loads
as files, directories or remote targets — ``resources``, ``bases`` (deprecated, still read), ``components``,
``generators``, ``transformers``, ``validators`` — and ``helmCharts`` (kustomize inflates a chart from its ``repo``
at render time: content this stack cannot pin). A local entry that is a directory is read in turn (its own
kustomization file); a cycle, more than :data:`MAX_DEPTH` levels or more than :data:`MAX_DIRECTORIES` distinct
directories is refused. Each directory is read once however many bases reach it (a lattice of bases, each level
listing every directory of the next, is as many reads as directories, not one per path), and a directory reached
again adds no findings of its own. What cannot be read — a missing
directory or entry, no kustomization file, a file that is not a YAML mapping, a field that is not a list — is
refused (fail closed). A relative ``directory`` is resolved against the working directory of the process running
the pack (the offline preview: the program's; the Pulumi CLI runs a pack from its own directory), so an absolute
path is the portable spelling.

Sources (checked 2026-12-02): kustomize docs "kustomization" reference (``resources``, ``bases``, ``components``,
``generators``, ``transformers``, ``validators``, ``helmCharts``), "remote targets" (``//<dir>?ref=``);
kubernetes-sigs/kustomize ``api/konfig/general.go`` (``RecognizedKustomizationFileNames``).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

import yaml

if __package__:  # imported as a package (tests, offline/)
    from . import _yaml_bounded
else:  # run by the Pulumi CLI from inside the pack directory
    import _yaml_bounded

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
REFERENCE_FIELDS = ("resources", "bases", "components", "generators", "transformers", "validators")
MAX_DEPTH = 16
#: Distinct directories one kustomization may reach; past it the directory is refused (the walk stops there).
MAX_DIRECTORIES = 512
#: Times kustomize would build a directory, summed over every path from the root (kustomize builds a base once per
#: reference); past it the directory is refused: its render costs that many builds for kustomize itself.
MAX_BUILDS = 4096


class _Walk:
    """One walk's state: the directories on the current path (cycles), those already read (each read once), and
    whether the directory budget ran out."""

    def __init__(self) -> None:
        self.active: set[str] = set()
        self.done: set[str] = set()
        self.exhausted = False
        self.children: dict[str, list[str]] = {}
        self.builds: dict[str, int] = {}


def kustomization_problems(directory: str, remote_problem: Callable[[str], Optional[str]]) -> list[str]:
    """Why a local kustomize directory's references are not pinned or cannot be read; ``remote_problem`` judges one
    reference (None for a pinned remote or a local path)."""
    state = _Walk()
    found = _walk(os.path.abspath(directory), directory, remote_problem, 0, state)
    if state.exhausted:
        found.append(f"{directory}: its kustomization reaches more than {MAX_DIRECTORIES} directories, so what it "
                     "renders cannot be judged; vendor fewer bases")
    builds = state.builds.get(os.path.abspath(directory), 0)
    if builds > MAX_BUILDS:
        found.append(f"{directory}: its kustomization reaches {len(state.done)} directories by more than "
                     f"{MAX_BUILDS} paths, and kustomize builds a base once per path, so it cannot be rendered in "
                     "bounded time; list each base once")
    return found


def _walk(path: str, shown: str, remote_problem: Callable, depth: int, state: _Walk) -> list[str]:
    if depth > MAX_DEPTH or path in state.active:
        return [f"{shown}: kustomization bases nest more than {MAX_DEPTH} levels or form a cycle"]
    if path in state.done:
        return []  # read once already: its findings were reported from the first path that reached it
    if len(state.done) >= MAX_DIRECTORIES:
        state.exhausted = True
        return []
    state.done.add(path)
    state.active.add(path)
    try:
        return _read(path, shown, remote_problem, depth, state)
    finally:
        state.active.discard(path)
        # builds of this directory's subtree: itself and each child's, once per reference (capped: only the
        # comparison with MAX_BUILDS matters, and the sums of a deep lattice grow without bound)
        state.builds[path] = min(1 + sum(state.builds.get(c, 0) for c in state.children.get(path, [])),
                                 MAX_BUILDS + 1)


def _read(path: str, shown: str, remote_problem: Callable, depth: int, state: _Walk) -> list[str]:
    if not os.path.isdir(path):
        return [f"its directory {shown} cannot be read where the pack runs, so the bases its kustomization pulls "
                "cannot be judged; give the directory as an absolute path"]
    names = [n for n in KUSTOMIZATION_FILES if os.path.isfile(os.path.join(path, n))]
    if len(names) != 1:
        return [f"{shown} holds {'no' if not names else 'several'} kustomization file"
                f"{'s' if names else ''} ({', '.join(KUSTOMIZATION_FILES)}), so what it renders cannot be judged"]
    file = os.path.join(shown, names[0])
    try:
        with open(os.path.join(path, names[0]), encoding="utf-8") as f:
            doc = _yaml_bounded.safe_load(f)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        return [f"{file} cannot be read ({type(err).__name__})"]
    if not isinstance(doc, dict):
        return [f"{file} is not a YAML mapping"]
    found: list[str] = []
    for field in REFERENCE_FIELDS:
        entries: Any = doc.get(field)
        if entries is None:
            continue
        if not isinstance(entries, list):
            found.append(f"{file} {field} is not a list")
            continue
        for entry in entries:
            if not isinstance(entry, str):
                if field in ("generators", "transformers", "validators") and isinstance(entry, dict):
                    continue  # an inline plugin configuration: judged as the objects it renders
                found.append(f"{file} {field} entry {entry!r} is not a path or URL")
                continue
            problem = remote_problem(entry)
            if problem:
                found.append(f"{file} {field}: {problem}")
                continue
            target = os.path.normpath(os.path.join(path, entry))
            if os.path.isdir(target):
                state.children.setdefault(path, []).append(target)
                found += _walk(target, os.path.join(shown, entry), remote_problem, depth + 1, state)
            elif not os.path.isfile(target) and not _is_pinned_remote(entry):
                found.append(f"{file} {field} names {entry}, which does not exist beside it")
    charts = doc.get("helmCharts")
    if charts is not None:
        for chart in charts if isinstance(charts, list) else [charts]:
            repo = chart.get("repo") if isinstance(chart, dict) else "?"
            if repo:
                name = chart.get("name") if isinstance(chart, dict) else None
                found.append(f"{file} helmCharts inflates chart {name or '?'} from {repo} when kustomize renders: "
                             "bytes this stack cannot pin; vendor the chart into the directory (helmGlobals.chartHome)")
    return found


def _is_pinned_remote(entry: str) -> bool:
    """A remote reference judged pinned (not a local path that is missing)."""
    return "://" in entry or entry.startswith(("git@", "git::", "github.com/", "gitlab.com/", "bitbucket.org/"))
