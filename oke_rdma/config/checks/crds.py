"""The add-ons' CRD lifecycle (:mod:`oke_rdma.facts.crds`) against the stack's values: the value that keeps an
add-on's CRDs upgraded with it (the chart's CRD Job on, its CRDs templated) must hold in the release's final values,
and a version before the one from which its CRDs are upgraded with the release is refused."""

from __future__ import annotations

from oke_rdma.addons import REGISTRY, Registry, enabled_releases
from oke_rdma.facts.charts import parse_version
from oke_rdma.facts.crds import CRD_LIFECYCLE

from .._base import _key
from ..platform import _get
from ..stack import StackConfig


def check_crd_lifecycle(cfg: StackConfig, registry: Registry = REGISTRY) -> list[str]:
    """One line per enabled add-on whose values turn off what upgrades its CRDs (``keep``), or whose version predates
    the mode (``since``), naming the key path, why and the fix."""
    context = registry.context(cfg.platform)
    problems: list[str] = []
    for key, release in enabled_releases(cfg.platform, registry).items():
        row = CRD_LIFECYCLE.get(key)
        if row is None:
            continue
        if row.since is not None:
            try:
                old = parse_version(release.version) < parse_version(row.since)
            except ValueError:
                old = False  # check_chart_compatibility refuses a version that is not semver
            if old:
                problems.append(f"{_key(('platform', key, 'version'))}: before {row.since} its CRDs are in the chart's "
                                f"crds/ directory, which Helm never upgrades ({row.source}); use {row.since} or newer")
        if row.keep is None:
            continue
        path, wanted = row.keep
        try:
            final = registry[key].helm_values(release, context)
        except ValueError:  # a version whose values cannot be built: check_chart_compatibility refuses it
            continue
        parent = _get(final, *path[:-1]) if len(path) > 1 else final
        if isinstance(parent, dict) and path[-1] in parent and parent[path[-1]] != wanted:  # absent: the chart's
            # default, which is ``wanted`` (the row's source); null would delete it (Helm docs "Values Files")
            problems.append(f"{_key(('platform', key, 'values', *path))}: must stay {str(wanted).lower()} (the "
                            f"chart's default): with it {row.how}; without it a version change leaves the old CRDs "
                            f"in place (Helm never upgrades a chart's crds/: {row.source}); remove the value")
    return problems
