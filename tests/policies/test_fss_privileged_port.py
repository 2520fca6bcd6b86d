"""An FSS export option that leaves root unsquashed must require a privileged source port, on Exports and FSS
StorageClasses alike; squashed options, and unsquashed ones on privileged ports, pass."""
from __future__ import annotations

import json

import pytest

from policies.security.storage import EXPORT, STORAGE_CLASS, validate_root_needs_privileged_port as rule
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

RULE = "fss-export-root-needs-privileged-port"


def export(*options) -> dict:
    return {"exportSetId": "s", "fileSystemId": "f", "path": "/shared", "exportOptions": list(options)}


def storage_class(options) -> dict:
    return {"provisioner": "fss.csi.oraclecloud.com", "parameters": {
        "mountTargetOcid": "m", **({} if options is None else {"exportOptions": json.dumps(options)})}}


def option(**kw) -> dict:
    return {"source": "10.0.0.0/16", "access": "READ_WRITE", **kw}


@pytest.mark.parametrize("props", [
    export(option(identitySquash="NONE", requirePrivilegedSourcePort=False)),
    export(option(identitySquash="ROOT", anonymousUid="0", requirePrivilegedSourcePort=False)),  # root kept as 0
    export(option(identitySquash="ROOT", anonymousGid=0, requirePrivilegedSourcePort=False)),  # root's group kept
    export(option(identitySquash="ALL", anonymousUid=65534, anonymousGid=U, requirePrivilegedSourcePort=False)),
    export(option(identitySquash="NONE", requirePrivilegedSourcePort="true")),  # not a boolean
    export(option(identitySquash="none", requirePrivilegedSourcePort=False)),  # not an FSS value
    export(option(identitySquash="NONE", requirePrivilegedSourcePort=U)),
    export(option(identitySquash=U, requirePrivilegedSourcePort=False)),
    {"exportSetId": "s", "fileSystemId": "f", "path": "/shared", "exportOptions": U},
])
def test_unsquashed_root_on_unprivileged_ports_is_refused_on_exports(props):
    assert len(call_resource_rule(rule, EXPORT, props)) == 1


@pytest.mark.parametrize("options", [
    [option(identitySquash="NONE", requirePrivilegedSourcePort=False)],
    [option(identitySquash="ROOT", anonymousGid="0", requirePrivilegedSourcePort=False)],
    [option(identitySquash="ROOT", requirePrivilegedSourcePort=True), option(identitySquash="NONE",
                                                                              requirePrivilegedSourcePort=False)],
])
def test_unsquashed_root_on_unprivileged_ports_is_refused_on_fss_storage_classes(options):
    assert len(call_resource_rule(rule, STORAGE_CLASS, storage_class(options))) == 1


@pytest.mark.parametrize("props", [
    export(option(identitySquash="NONE", requirePrivilegedSourcePort=True)),
    export(option(identitySquash="NONE")),  # an explicit option requires the privileged port by default
    export(option(identitySquash="ROOT", requirePrivilegedSourcePort=False)),
    export(option(identitySquash="ALL", anonymousUid="65534", requirePrivilegedSourcePort=False)),
    export(option(identitySquash="ROOT", anonymousUid=65534, anonymousGid=65534, requirePrivilegedSourcePort=False)),
    export(option(requirePrivilegedSourcePort=False)),  # ROOT by default
    export(option(identitySquash=U, requirePrivilegedSourcePort=True)),
])
def test_squashed_root_or_privileged_ports_pass(props):
    assert call_resource_rule(rule, EXPORT, props) == []


def test_other_storage_classes_are_not_judged():
    props = {"provisioner": "blockvolume.csi.oraclecloud.com", "parameters": {"vpusPerGB": "10"}}
    assert call_resource_rule(rule, STORAGE_CLASS, props) == []


def test_the_pack_runs_the_rule():
    report = run(res(EXPORT, "prep", export(option(identitySquash="NONE", requirePrivilegedSourcePort=False))),
                 res(EXPORT, "shared", export(option(identitySquash="NONE", requirePrivilegedSourcePort=True))),
                 policy=RULE)
    [message] = messages(report, RULE)
    assert "Export 'prep' exportOptions[0]" in message
