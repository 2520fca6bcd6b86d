"""docs/charts.md lists every Helm value the program sets: each value path (every add-on, every option on) has a
row in its table naming why and the source."""

from __future__ import annotations

import re
from pathlib import Path

from oke_rdma.addons import REGISTRY, ValuesContext, enabled_releases
from tests.stackcfg import load_dev_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "charts.md"


def _leaves(value, path=()):
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, path + (str(k),))
    else:
        yield ".".join(path)


def _documented() -> dict[str, set[str]]:
    """add-on key → the value paths named in the table (backticked, comma-separated; a leading path names the rest)."""
    rows: dict[str, set[str]] = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("add-on", "---"):
            continue
        names = re.findall(r"`([^`]+)`", cells[1])
        base = names[0].rsplit(".", 1)[0] if names and "." in names[0] else ""
        for n in names:
            rows.setdefault(cells[0], set()).add(n if "." in n or not base else f"{base}.{n}")
    return rows


def _set_paths(cfg) -> dict[str, set[str]]:
    enabled = enabled_releases(cfg.platform, REGISTRY)
    context = ValuesContext(enabled=frozenset(enabled))
    return {key: {p for p in _leaves(REGISTRY[key].values(release, context)) if p}
            for key, release in enabled.items()}


def test_every_value_the_program_sets_has_a_row():
    documented = _documented()
    variants = [load_dev_config(),
                load_dev_config(platform={"kubePrometheusStack": {"grafanaAdminPassword": "a-long-password-1"}}),
                load_dev_config(platform={"kubePrometheusStack": {"enabled": False}}),
                # Trainer and Kueue are never on together (docs/charts.md, Add-ons that must match each other)
                load_dev_config(platform={a.key: {"enabled": a.key != "trainer"} for a in REGISTRY}),
                load_dev_config(platform={a.key: {"enabled": a.key != "kueue"} for a in REGISTRY}),
                load_dev_config(platform={"trainer": {"enabled": True}, "kueue": {"enabled": False}})]
    missing = []
    for cfg in variants:
        for key, paths in _set_paths(cfg).items():
            for path in paths:
                if not any(path == d or path.startswith(d + ".") for d in documented.get(key, ())):
                    missing.append(f"{key}: {path}")
    assert not missing, f"values set but not in docs/charts.md: {sorted(set(missing))}"


def test_the_check_fails_for_an_undocumented_value():
    """The comparison above can fail: a value path the table does not name is reported."""
    from oke_rdma.addons import gpu_operator
    values = {**gpu_operator.values(load_dev_config().platform.gpu_operator, ValuesContext()),
              "undocumentedSection": {"flag": True}}
    documented = _documented()["gpuOperator"]
    assert [p for p in _leaves(values) if not any(p == d or p.startswith(d + ".") for d in documented)] == \
        ["undocumentedSection.flag"]


def test_every_row_names_a_source():
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("add-on", "---") and cells[1] != "—":
            assert cells[4] and cells[4] != "—", line
