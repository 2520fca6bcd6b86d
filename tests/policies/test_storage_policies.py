"""The File Storage rules of the pack (policies/security/storage.py): exports open to the internet and non-NFS ports on NFS
rules — passing, failing and unknown cases through the engine's proxy, and hand-written stacks caught by the pack."""
from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci
import pytest

from offline.engine import run_program
from offline.policy_eval import EngineResource, evaluate, has_mandatory
from policies.security import storage
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import NSG, NSG_RULE, U, call_resource_rule, messages, res, run

EXPORT, MT, SC = storage.EXPORT, storage.MOUNT_TARGET, storage.STORAGE_CLASS
ROOT_RULE, OPEN_RULE, PORTS_RULE = "fss-export-no-internet-root", "fss-export-no-internet", "nfs-rules-only-nfs-ports"


def export(*options, **extra) -> dict:
    props = {"exportSetId": "ocid1.exportset.oc1..e", "fileSystemId": "ocid1.filesystem.oc1..f", "path": "/shared"}
    if options != (None,):
        props["exportOptions"] = list(options)
    return {**props, **extra}


def option(source="10.0.16.0/20", squash="ROOT") -> dict:
    o = {"source": source, "access": "READ_WRITE", "requirePrivilegedSourcePort": True}
    if squash is not None:
        o["identitySquash"] = squash
    return o


def fss_class(export_options=None, provisioner="fss.csi.oraclecloud.com") -> dict:
    params = {"availabilityDomain": "AD-1", "mountTargetOcid": "ocid1.mounttarget.oc1..m"}
    if export_options is not None:
        params["exportOptions"] = export_options if isinstance(export_options, str) else json.dumps(export_options)
    return {"provisioner": provisioner, "parameters": params}


# --- fss-export-no-internet-root (mandatory) ---------------------------------------------------------------------------
@pytest.mark.parametrize("props", [
    export(option("10.0.16.0/20"), option("10.0.128.0/17")),
    export(option("10.0.16.0/20", "NONE")),  # NONE on a client subnet only: not the internet
    export(option("10.0.16.0/20", None)),  # squash unset: FSS applies ROOT
    export(option(U, "ROOT")),  # Kleene: a known ROOT settles it whatever the source
])
def test_export_without_internet_root_passes(props):
    assert messages(run(res(EXPORT, "e", props), policy=ROOT_RULE), ROOT_RULE) == []


def test_export_to_the_internet_with_no_squash_is_mandatory():
    report = run(res(EXPORT, "e", export(option("10.0.16.0/20"), option("0.0.0.0/0", "NONE"))), policy=ROOT_RULE)
    [message] = messages(report, ROOT_RULE)
    assert "exportOptions[1] exports to 0.0.0.0/0 with identitySquash NONE" in message
    assert report.violations[0].enforcement_level == "mandatory" and has_mandatory(report)
    assert len(messages(run(res(EXPORT, "e", export(option("::/0", "NONE"))), policy=ROOT_RULE), ROOT_RULE)) == 1


def test_export_without_options_gets_the_fss_default_and_fails():
    [message] = messages(run(res(EXPORT, "e", export(None)), policy=ROOT_RULE), ROOT_RULE)
    assert "no exportOptions: FSS applies its default" in message and "0.0.0.0/0" in message


@pytest.mark.parametrize("props, expected", [
    (export(option("0.0.0.0/0", U)), "because identitySquash is unknown"),
    (export(option(U, "NONE")), "because source is unknown"),
    (export(exportOptions=U), "export options are unknown during preview"),
])
def test_export_unknowns_fail_closed(props, expected):
    report = run(res(EXPORT, "e", props), policy=ROOT_RULE)
    [message] = messages(report, ROOT_RULE)
    assert expected in message and report.not_run == []


def test_fss_storage_class_export_options():
    good = fss_class([{"source": "10.0.16.0/20", "identitySquash": "ROOT", "access": "READ_WRITE"}])
    assert messages(run(res(SC, "sc", good), policy=ROOT_RULE), ROOT_RULE) == []
    for bad, expected in [
        (fss_class([{"source": "0.0.0.0/0", "identitySquash": "NONE"}]), "parameters.exportOptions[0] exports"),
        (fss_class(None), "no parameters.exportOptions: FSS applies its default"),  # OKE's example class
        (fss_class("not json"), "not a JSON list of options"),
        (fss_class(U), "export options are unknown"),
    ]:
        [message] = messages(run(res(SC, "sc", bad), policy=ROOT_RULE), ROOT_RULE)
        assert expected in message, message
    other = fss_class([{"source": "0.0.0.0/0", "identitySquash": "NONE"}], provisioner="blockvolume.csi.oraclecloud.com")
    assert messages(run(res(SC, "sc", other), policy=ROOT_RULE), ROOT_RULE) == []


def test_root_rule_function_called_directly_through_the_proxy():
    found = call_resource_rule(storage.validate_export_no_internet_root, EXPORT, export(option("0.0.0.0/0", "NONE")))
    assert len(found) == 1
    assert call_resource_rule(storage.validate_export_no_internet_root, EXPORT, export(option(U, U))) != []
    assert call_resource_rule(storage.validate_export_no_internet_root, NSG, {"vcnId": "v"}) == []


# --- fss-export-no-internet (advisory) ---------------------------------------------------------------------------------
def test_export_to_the_internet_with_root_squash_is_advisory():
    report = run(res(EXPORT, "e", export(option("0.0.0.0/0", "ROOT"))))
    assert messages(report, ROOT_RULE) == []
    [violation] = [v for v in report.violations if v.policy == OPEN_RULE]
    assert violation.enforcement_level == "advisory" and not has_mandatory(report)
    assert "identitySquash ROOT" in violation.message


def test_advisory_rule_passes_and_leaves_none_and_unknowns_to_the_mandatory_one():
    assert messages(run(res(EXPORT, "e", export(option())), policy=OPEN_RULE), OPEN_RULE) == []
    assert messages(run(res(EXPORT, "e", export(option("0.0.0.0/0", "NONE"))), policy=OPEN_RULE), OPEN_RULE) == []
    [unknown] = messages(run(res(EXPORT, "e", export(option(U, "ALL"))), policy=OPEN_RULE), OPEN_RULE)
    assert "unknown during preview" in unknown


# --- nfs-rules-only-nfs-ports (stack) ----------------------------------------------------------------------------------
def nsg_rule(direction="INGRESS", protocol="6", dest=None, src=None, **extra) -> dict:
    props = {"networkSecurityGroupId": U, "direction": direction, "protocol": protocol, "stateless": False, **extra}
    key = "tcpOptions" if protocol == "6" else "udpOptions"
    opts = {}
    if dest:
        opts["destinationPortRange"] = {"min": dest[0], "max": dest[1]}
    if src:
        opts["sourcePortRange"] = {"min": src[0], "max": src[1]}
    if opts:
        props[key] = opts
    return props


def nfs_stack(*rules: dict, link_mt=True):
    """A storage NSG attached to a mount target, a workers NSG, and rules (on storage unless ``on='workers'``)."""
    store = res(NSG, "storage-nsg", {"vcnId": "v"}, {"vcnId": "v", "id": "ocid1.networksecuritygroup.oc1..st"})
    workers = res(NSG, "workers-nsg", {"vcnId": "v"}, {"vcnId": "v", "id": "ocid1.networksecuritygroup.oc1..wk"})
    mt = res(MT, "mt", {"subnetId": "s", "nsgIds": [U]}, deps={"nsgIds": [store]} if link_mt else None)
    out = [store, workers, mt]
    for i, r in enumerate(rules):
        on = r.pop("on", "storage")
        deps = {"networkSecurityGroupId": [store if on == "storage" else workers]}
        if r.get("destination") == "storage":
            r["destination"], r["destinationType"] = U, "NETWORK_SECURITY_GROUP"
            deps["destination"] = [store]
        out.append(res(NSG_RULE, f"rule-{i}", r, deps=deps))
    return out


def test_nfs_rules_pass_for_the_nfs_ports():
    resources = nfs_stack(nsg_rule(dest=(111, 111)), nsg_rule(dest=(2048, 2050)), nsg_rule(dest=(2051, 2051)),
                          nsg_rule(protocol="17", dest=(111, 111)), nsg_rule(protocol="17", dest=(2048, 2048)),
                          nsg_rule("EGRESS", src=(2048, 2050)), nsg_rule("EGRESS", protocol="17", src=(111, 111)),
                          nsg_rule("INGRESS", protocol="1", icmpOptions={"type": 3, "code": 4}),
                          nsg_rule("EGRESS", dest=(636, 636)),  # LDAP the mount target opens itself: not judged
                          nsg_rule("EGRESS", dest=(2048, 2050), on="workers", destination="storage"))
    assert messages(run(*resources, policy=PORTS_RULE), PORTS_RULE) == []


def test_storage_nsg_with_nodeports_instead_of_nfs_names_the_nfs_ports():
    """The NodePort range (TCP 30000-32767) from the workers on the storage NSG is refused: NFS ports only."""
    report = run(*nfs_stack(nsg_rule(dest=(30000, 32767), source=U, sourceType="NETWORK_SECURITY_GROUP")),
                 policy=PORTS_RULE)
    [violation] = [v for v in report.violations if v.policy == PORTS_RULE]
    assert violation.enforcement_level == "mandatory" and violation.urn.endswith("::rule-0")
    assert "TCP destination ports 30000-32767" in violation.message
    assert "TCP 111, 2048-2050 and UDP 111, 2048" in violation.message
    assert "mount target 'mt'" in violation.message


@pytest.mark.parametrize("rule, expected", [
    (nsg_rule(), "TCP, every destination port"),
    (nsg_rule(protocol="all"), "all protocols and ports"),
    (nsg_rule(protocol="17", dest=(2049, 2049)), "UDP destination port 2049"),
    (nsg_rule("EGRESS", src=(1024, 65535)), "TCP source ports 1024-65535"),
    (nsg_rule("EGRESS", dest=(30000, 32767), on="workers", destination="storage"), "sends NFS clients"),
])
def test_other_non_nfs_rules_fail(rule, expected):
    [message] = messages(run(*nfs_stack(rule), policy=PORTS_RULE), PORTS_RULE)
    assert expected in message, message


def test_nfs_rules_unknowns_fail_closed_and_unlinked_nsgs_are_ignored():
    [message] = messages(run(*nfs_stack(nsg_rule(dest=(U, U))), policy=PORTS_RULE), PORTS_RULE)
    assert "unknown during preview" in message
    [message] = messages(run(*nfs_stack(nsg_rule(protocol=U)), policy=PORTS_RULE), PORTS_RULE)
    assert "unknown during preview" in message
    # The same NodePort rule on an NSG no mount target uses is not an NFS rule.
    assert messages(run(*nfs_stack(nsg_rule(dest=(30000, 32767)), link_mt=False), policy=PORTS_RULE),
                    PORTS_RULE) == []


def test_storage_nsg_found_by_id_without_property_dependencies():
    store = res(NSG, "storage-nsg", {"vcnId": "v"}, {"vcnId": "v", "id": "ocid1.networksecuritygroup.oc1..st"})
    mt = res(MT, "mt", {"nsgIds": ["ocid1.networksecuritygroup.oc1..st"]})
    bad = res(NSG_RULE, "r", nsg_rule(dest=(22, 22), networkSecurityGroupId="ocid1.networksecuritygroup.oc1..st"))
    assert len(messages(run(store, mt, bad, policy=PORTS_RULE), PORTS_RULE)) == 1


def test_unknown_behaviour_documented_for_every_rule():
    assert set(storage.UNKNOWN_BEHAVIOUR) == {p.name for p in storage.POLICIES}
    assert {p.name for p in storage.POLICIES} <= {p.name for p in POLICIES}


def test_the_dev_stack_storage_nsg_is_found_and_its_rules_are_checked():
    """Proves the stack rule reaches the real program's NFS rules: the dev stack passes, and one NodePort rule added
    to its storage NSG (linked the way the engine links it) is caught."""
    from tests.stackcfg import dev_raw_config

    dev = run_program(dev_raw_config(), [], "dev")
    assert messages(evaluate(POLICIES, dev.resources, PACK_NAME), PORTS_RULE) == []
    store = next(r for r in dev.resources if r.type == NSG and r.name == "okerdma-dev-storage-nsg")
    bad = EngineResource(urn="urn:pulumi:dev::oke-rdma::" + NSG_RULE + "::bad", type=NSG_RULE, name="bad",
                         inputs=nsg_rule(dest=(30000, 32767)), outputs=nsg_rule(dest=(30000, 32767)),
                         property_dependencies={"networkSecurityGroupId": [store.urn]}, dependencies=[store.urn])
    [message] = messages(evaluate(POLICIES, [*dev.resources, bad], PACK_NAME), PORTS_RULE)
    assert "storage NSG 'okerdma-dev-storage-nsg' (mount target 'okerdma-dev-fss-mt')" in message


# --- hand-written stacks (raw pulumi_oci / pulumi_kubernetes, no components) --------------------------------------
def _raw_stack(nfs_ports: bool, export_source: str, squash: str):
    def program():
        comp = "ocid1.compartment.oc1..aaaaaaaaraw"
        vcn = oci.core.Vcn("vcn", compartment_id=comp, cidr_blocks=["10.1.0.0/16"])
        subnet = oci.core.Subnet("fss", compartment_id=comp, vcn_id=vcn.id, cidr_block="10.1.3.0/24")
        workers = oci.core.NetworkSecurityGroup("workers", compartment_id=comp, vcn_id=vcn.id)
        store = oci.core.NetworkSecurityGroup("storage", compartment_id=comp, vcn_id=vcn.id)
        ports = [(111, 111), (2048, 2050)] if nfs_ports else [(30000, 32767)]
        for lo, hi in ports:
            oci.core.NetworkSecurityGroupSecurityRule(
                f"storage-in-{lo}", network_security_group_id=store.id, direction="INGRESS", protocol="6",
                source=workers.id, source_type="NETWORK_SECURITY_GROUP",
                tcp_options=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgs(
                    destination_port_range=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsDestinationPortRangeArgs(
                        min=lo, max=hi)))
        fs = oci.filestorage.FileSystem("fs", availability_domain="AD-1", compartment_id=comp)
        mt = oci.filestorage.MountTarget("mt", availability_domain="AD-1", compartment_id=comp,
                                         subnet_id=subnet.id, nsg_ids=[store.id])
        oci.filestorage.Export("export", export_set_id=mt.export_set_id, file_system_id=fs.id, path="/data",
                               export_options=[oci.filestorage.ExportExportOptionArgs(
                                   source=export_source, access="READ_WRITE", identity_squash=squash)])
        provider = k8s.Provider("k8s", kubeconfig="{}")
        k8s.storage.v1.StorageClass("fss-sc", provisioner="fss.csi.oraclecloud.com",
                                    parameters={"availabilityDomain": "AD-1", "mountTargetOcid": mt.id},
                                    opts=pulumi.ResourceOptions(provider=provider))

    return program


@pytest.mark.parametrize("unknowns", [False, True])
def test_hand_written_stack_is_caught_by_the_pack(unknowns):
    recorded = run_program({"oci:region": "sa-saopaulo-1"}, [], "raw", unknowns=unknowns,
                           program=_raw_stack(nfs_ports=False, export_source="0.0.0.0/0", squash="NONE"))
    report = evaluate(POLICIES, recorded.resources, PACK_NAME)
    by_policy = {v.policy: v for v in report.violations}
    assert "30000-32767" in by_policy[PORTS_RULE].message and "TCP 111, 2048-2050" in by_policy[PORTS_RULE].message
    root = [v for v in report.violations if v.policy == ROOT_RULE]
    assert {v.urn.split("::")[-1] for v in root} == {"export", "fss-sc"}  # the class has no exportOptions
    assert has_mandatory(report)


def test_hand_written_stack_with_nfs_ports_and_client_sources_passes():
    def program():
        _raw_stack(nfs_ports=True, export_source="10.1.16.0/20", squash="ROOT")()

    recorded = run_program({"oci:region": "sa-saopaulo-1"}, [], "raw", program=program)
    report = evaluate(POLICIES, recorded.resources, PACK_NAME)
    # only the StorageClass without exportOptions (FSS's default: 0.0.0.0/0, root unsquashed), by both rules
    assert sorted(v.policy for v in report.violations) == sorted([ROOT_RULE, "storage-trusts-only-node-addresses"])
    assert {v.urn.split("::")[-1] for v in report.violations} == {"fss-sc"}
