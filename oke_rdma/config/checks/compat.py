"""Add-on ↔ add-on compatibility (:mod:`oke_rdma.facts.compat`): an operator older than the enabled Kueue drives is
refused, naming both versions and the versions that work; and a partner add-on at or after an API change the enabled
add-on compiled against it was not built for (``PARTNER_CHANGES`` with ``breaks``) is refused, naming the partner's
key, both versions, the change, its source and the versions that work together."""

from __future__ import annotations

from oke_rdma.addons import REGISTRY, Registry, enabled_releases
from oke_rdma.facts.charts import parse_version
from oke_rdma.facts.compat import built_with, kueue_drives, partner_changes

from .._base import _key
from ..stack import StackConfig


def check_addon_compatibility(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """One line per enabled operator whose version is older than the minimum the enabled Kueue drives."""
    enabled = enabled_releases(cfg.platform, registry)
    kueue = enabled.get("kueue")
    if kueue is None:
        return []
    problems: list[str] = []
    for key, release in enabled.items():
        try:
            row = kueue_drives(kueue.version, key)
            too_old = row is not None and row.minimum is not None and \
                parse_version(release.version) < parse_version(row.minimum)
        except ValueError:  # a version that is not semver: check_chart_compatibility refuses it
            continue
        if too_old:
            default = type(release).model_fields["version"].default
            problems.append(f"{_key(('platform', key, 'version'))}: {registry[key].summary.split(',')[0]} "
                            f"{release.version} is older than Kueue {kueue.version} drives (it needs {row.minimum} "
                            f"or newer and is tested with {row.tested}: {row.source}); set {row.minimum} or newer "
                            f"(default {default}), or a Kueue that drives {release.version}")
    return problems


def check_partner_api_breaks(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """One line per enabled partner add-on whose version is at or after a recorded API change (``breaks``) that an
    enabled consumer add-on's version was not built for, at the partner's ``platform.<key>.version``."""
    enabled = enabled_releases(cfg.platform, registry)
    problems: list[str] = []
    for consumer, crelease in enabled.items():
        for partner, prelease in enabled.items():
            if partner == consumer:
                continue
            try:
                changes = [c for c in partner_changes(consumer, crelease.version, partner, prelease.version)
                           if c.breaks]
                built = built_with(consumer, crelease.version, partner)
            except ValueError:  # a version that is not semver: check_chart_compatibility refuses it
                continue
            for c in changes:
                name, cname = (registry[k].summary.split(",")[0] for k in (partner, consumer))
                against = f" (it builds against {built[0]})" if built is not None else ""
                problems.append(f"{_key(('platform', partner, 'version'))}: {name} {prelease.version} is at or "
                                f"after {c.since}, whose API change {cname} {crelease.version} was not built for"
                                f"{against}: {c.what} ({c.source}); {c.works}")
    return problems
