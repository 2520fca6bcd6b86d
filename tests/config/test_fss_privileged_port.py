"""storage.fss: an unsquashed export (identitySquash NONE) must keep requirePrivilegedSourcePort; every other
combination loads."""
from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from tests.stackcfg import load_dev_config

KEY = "oke-rdma:storage.fss.requirePrivilegedSourcePort: "


def test_unsquashed_root_on_unprivileged_ports_is_refused_with_its_key_path():
    with pytest.raises(ConfigError) as err:
        load_dev_config(storage={"fss": {"identitySquash": "NONE", "requirePrivilegedSourcePort": False}},
                        tenants={t: {"sharedStorage": None} for t in load_dev_config().tenants})
    [problem] = err.value.problems
    assert problem.startswith(KEY) and "identitySquash ROOT" in problem


@pytest.mark.parametrize("squash, privileged", [("NONE", True), ("ROOT", False), ("ROOT", True)])
def test_squashed_root_or_privileged_ports_load(squash, privileged):
    tenants = {t: {"sharedStorage": None} for t in load_dev_config().tenants} if squash == "NONE" else {}
    cfg = load_dev_config(storage={"fss": {"identitySquash": squash, "requirePrivilegedSourcePort": privileged}},
                          tenants=tenants)
    assert (cfg.storage.fss.identity_squash, cfg.storage.fss.require_privileged_source_port) == (squash, privileged)


def test_a_disabled_file_system_is_not_judged():
    """(The dev tenants' shared storage needs FSS, so disabling it is refused for that reason alone.)"""
    with pytest.raises(ConfigError) as err:
        load_dev_config(storage={"fss": {"enabled": False, "identitySquash": "NONE",
                                         "requirePrivilegedSourcePort": False}})
    assert err.value.problems and not [p for p in err.value.problems if p.startswith(KEY)]


def test_unsquashed_root_on_the_export_tenants_share_is_refused_with_its_key_path():
    """A root pod (Pod Security baseline allows UID 0) would own every tenant's directory."""
    with pytest.raises(ConfigError) as err:
        load_dev_config(storage={"fss": {"identitySquash": "NONE"}})
    [problem] = err.value.problems
    assert problem.startswith("oke-rdma:storage.fss.identitySquash: NONE") and "use ROOT" in problem
