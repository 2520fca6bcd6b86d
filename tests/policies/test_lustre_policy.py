"""lustre-root-squash: a Lustre file system squashes root and exempts no internet-wide client; unknown or
uninterpretable values fail closed."""

from __future__ import annotations

import pytest

from policies.security.lustre import LUSTRE_FILE_SYSTEM, validate_root_squash
from tests.policies.test_policies import U, call_resource_rule, messages, res, run


def _fs(squash="ROOT", exceptions=None):
    cfg = {"identitySquash": squash, "squashUid": "65534", "squashGid": "65534"}
    if exceptions is not None:
        cfg["clientExceptions"] = exceptions
    return {"capacityInGbs": 31200, "performanceTier": "MBPS_PER_TB_125", "rootSquashConfiguration": cfg}


@pytest.mark.parametrize("props", [_fs(), _fs(exceptions=["10.0.50.10/32", "10.0.0.0/16"]), _fs(squash="root")])
def test_root_squashed_file_systems_pass(props):
    assert call_resource_rule(validate_root_squash, LUSTRE_FILE_SYSTEM, props) == []


@pytest.mark.parametrize("props,needle", [
    (_fs(squash="NONE"), "NONE"),
    ({"rootSquashConfiguration": {"identitySquash": "ROOT", "squashUid": "0", "squashGid": "65534"}}, "squashUid is 0"),
    ({"rootSquashConfiguration": {"identitySquash": "ROOT", "squashUid": "65534", "squashGid": "0"}}, "squashGid is 0"),
    ({"capacityInGbs": 31200}, "unset"),
    (_fs(exceptions=["0.0.0.0/0"]), "internet-wide"),
    (_fs(exceptions=["0.0.0.0/1", "128.0.0.0/1"]), "internet-wide"),
    (_fs(exceptions=["::/0"]), "internet-wide"),
    (_fs(exceptions=["everyone"]), "not a CIDR"),
    (_fs(exceptions="10.0.0.0/16"), "not a list"),
    (_fs(exceptions={"a": 1}), "not a list"),
    (_fs(squash=U), "unknown"),
    (_fs(exceptions=U), "unknown"),
    (_fs(exceptions=[U]), "unknown"),
])
def test_unsquashed_root_open_exceptions_and_unknowns_are_refused(props, needle):
    found = call_resource_rule(validate_root_squash, LUSTRE_FILE_SYSTEM, props)
    assert found and needle in " ".join(found)


def test_other_resource_types_are_not_judged():
    assert call_resource_rule(validate_root_squash, "oci:FileStorage/fileSystem:FileSystem", {}) == []


def test_the_security_pack_reports_it_as_mandatory():
    report = run(res(LUSTRE_FILE_SYSTEM, "fs", _fs(squash="NONE")), policy="lustre-root-squash")
    assert messages(report, "lustre-root-squash") and report.mandatory
    assert not messages(run(res(LUSTRE_FILE_SYSTEM, "fs", _fs()), policy="lustre-root-squash"), "lustre-root-squash")
