"""Add-on ↔ add-on compatibility (:mod:`oke_rdma.facts.compat`): an operator older than the enabled Kueue drives is
refused, naming both versions and the versions that work."""

from __future__ import annotations

from oke_rdma.addons import REGISTRY, Registry, enabled_releases
from oke_rdma.facts.charts import parse_version
from oke_rdma.facts.compat import kueue_drives

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
