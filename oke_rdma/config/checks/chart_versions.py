"""Every add-on version key (``platform.<key>.version``) against the versions oke-rdma knows exist
(:data:`oke_rdma.facts.chart_versions.KNOWN_VERSIONS`).

* :func:`check_chart_versions` (config loader, exit 2): a version written in another format than the add-on's
  versions — a GPU Operator chart version without its ``v`` (``26.7.0`` for ``v26.7.0``), or a ``v`` the add-on's
  versions do not carry — is refused naming the spelling that exists.
* :func:`support_warnings` (the program, a ``pulumi.log.warn`` on every preview): a version on a release line its
  vendor has deprecated or stopped supporting (:data:`oke_rdma.facts.charts.SUPPORT`);
* :func:`chart_version_warnings` (the program, a ``pulumi.log.warn`` on every preview): a version the facts do not
  know is named with the nearest known one; Helm fails on a version that does not exist in the middle of
  ``pulumi up``, after the resources before it were changed.

Disabled add-ons are not checked (nothing is installed). A version that is not a semantic version is refused by
:func:`oke_rdma.config.checks.platform.check_chart_compatibility` (for the add-ons with compatibility facts) and makes
no claim here beyond its format.
"""

from __future__ import annotations

from typing import Optional

from oke_rdma.addons import REGISTRY, Registry
from .._base import _key
from ..stack import StackConfig
from ...facts.chart_versions import KNOWN_VERSIONS


def _triple(version: str) -> Optional[tuple[int, int, int]]:
    parts = version.removeprefix("v").split("-")[0].split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def nearest_known(key: str, version: str) -> Optional[str]:
    """The known version of ``platform.<key>`` closest to ``version`` (same major and minor first, then the nearest
    patch; ties go to the newer); None when ``version`` is not ``X.Y.Z`` or the add-on has no row."""
    got = _triple(version)
    known = KNOWN_VERSIONS.get(key, ((), ""))[0]
    if got is None or not known:
        return None

    def distance(v: str) -> tuple[int, int, int, tuple[int, int, int]]:
        t = _triple(v) or (0, 0, 0)
        return abs(t[0] - got[0]), abs(t[1] - got[1]), abs(t[2] - got[2]), tuple(-x for x in t)  # type: ignore

    return min(known, key=distance)


def _name(addon) -> str:
    """The chart's name (the last part of an ``oci://`` reference), or the release name of a vendored manifest."""
    return addon.chart.rsplit("/", 1)[-1] or addon.release_name


def _where(addon, version: str) -> str:
    if addon.repository:
        return f"helm search repo <repo>/{addon.chart} --versions (repository {addon.repository})"
    if addon.chart.startswith("oci://"):
        return f"helm show chart {addon.chart} --version {version}"
    return f"the project's releases ({_name(addon)})"


def _releases(cfg: StackConfig, registry: Registry):
    for addon in registry:
        release = getattr(cfg.platform, addon.field)
        if release.enabled and addon.key in KNOWN_VERSIONS:
            yield addon, release


def check_chart_versions(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """One line per enabled add-on whose version is spelled unlike the add-on's versions (a ``v`` missing or extra)."""
    problems = []
    for addon, release in _releases(cfg, registry):
        known = KNOWN_VERSIONS[addon.key][0]
        with_v = known[0].startswith("v")
        version = release.version
        if version.startswith("v") == with_v:
            continue
        fixed = f"v{version}" if with_v else version.removeprefix("v")
        problems.append(f"{_key(('platform', addon.key, 'version'))}: {version!r} "
                        + (f"lacks the 'v' every {_name(addon)} version carries" if with_v else
                           f"has a 'v' no {_name(addon)} version carries")
                        + f" (known: {', '.join(known)}); write {fixed!r}")
    return problems


def chart_version_warnings(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """One line per enabled add-on whose version (spelled right) is not one the facts know, naming the nearest known
    version and where to look."""
    out = []
    for addon, release in _releases(cfg, registry):
        known, source = KNOWN_VERSIONS[addon.key]
        version = release.version
        if version in known or version.startswith("v") != known[0].startswith("v"):
            continue  # known, or refused for its format by check_chart_versions
        near = nearest_known(addon.key, version)
        where = _where(addon, version)
        out.append(f"{_key(('platform', addon.key, 'version'))}: {version} is not a {_name(addon)} version oke-rdma "
                   f"knows to exist (known: {', '.join(known)}"
                   + (f"; nearest {near}" if near else "") + f"), and Helm fails on a version that does not exist in "
                   f"the middle of pulumi up; check it with {where} and add it to oke_rdma/facts/chart_versions.py "
                   f"with its source, or pin {near or type(release).model_fields['version'].default}")
    return out


def support_warnings(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """One line per enabled add-on pinned on a release line its vendor has deprecated or no longer supports
    (:data:`oke_rdma.facts.charts.SUPPORT`), naming the newest supported line and, for vendors that upgrade one
    major at a time (:data:`oke_rdma.facts.charts.MAJOR_STEPS`), the lines to go through. Advisory: the add-on still
    works; it gets no more fixes (or soon none)."""
    from oke_rdma.facts import charts

    out = []
    for addon, release in _releases(cfg, registry):
        row = charts.support_status(addon.key, release.version)
        if row is None or row.status == "supported":
            continue
        supported = [r.line for r in charts.SUPPORT[addon.key] if r.status == "supported"]
        steps = charts.MAJOR_STEPS.get(addon.key, ())
        path = (steps[steps.index(row.line) + 1:steps.index(supported[-1]) + 1]
                if supported and row.line in steps and supported[-1] in steps else ())
        how = (f"; move to {supported[-1]}.x" + (f" through {' then '.join(path)} (one major at a time)"
                                                  if len(path) > 1 else "") if supported else "")
        out.append(f"{_key(('platform', addon.key, 'version'))}: {release.version} is on {_name(addon)}'s "
                   f"{row.line}.x line, which is {row.status} [{row.source}]{how} (docs/operations.md, chart "
                   f"upgrades)")
    return out


def kubernetes_versions_supported(cfg: StackConfig) -> list[str]:
    """The Kubernetes versions OKE offers (:func:`oke_rdma.facts.kubernetes.offered_versions`) that every enabled
    add-on supports at its pinned version (:func:`oke_rdma.facts.charts.kubernetes_support`; an add-on or a version
    without a recorded range makes no claim), oldest first: what a message suggesting a version may name. All offered
    versions when no offered version fits every pin (the compatibility check then names the add-on)."""
    from oke_rdma.facts import charts, kubernetes

    offered = kubernetes.offered_versions()
    entries = []
    for field, info in type(cfg.platform).model_fields.items():
        release = getattr(cfg.platform, field)
        if not getattr(release, "enabled", False):
            continue
        try:
            entry = charts.kubernetes_support(info.alias or field, release.version)
        except ValueError:
            continue  # not a semantic version: refused on its own key
        if entry is not None:
            entries.append(entry)
    fitting = [v for v in offered if all(charts.fits_kubernetes(e, v) for e in entries)]
    return fitting or offered
