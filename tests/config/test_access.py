"""tenants.<t>.members and cluster.oidc: one line per problem naming the key path; an oidcGroup member needs
cluster.oidc, OIDC sign-in needs an enhanced cluster (exit 2 from the offline preview), https issuers only, required
prefixes that cannot collide with system: names or OCIDs."""

from __future__ import annotations

import pytest
import yaml

from oke_rdma.adapter import tenant_bindings
from oke_rdma.config import ConfigError, load_stack_config
from offline import preview
from tests.stackcfg import ROOT, dev_raw_config, load_dev_config

OIDC = {"issuerUrl": "https://idp.example.com/realms/ml", "clientId": "oke", "usernamePrefix": "oidc:",
        "groupsPrefix": "oidc:"}
GROUP = "ocid1.group.oc1..aaaaaaaaexampleteam00000000000000000000000000000000"


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as e:
        load_stack_config(dev_raw_config(**overrides))
    return e.value.problems


def members(*items, tenant="research"):
    return {tenant: {"members": list(items)}}


def test_the_dev_stack_binds_both_kinds_of_member():
    cfg = load_dev_config()
    subjects = {(b.tenant, b.role): b.subjects for b in tenant_bindings(cfg)}
    assert subjects[("research", "viewer")] == ("oidc:research-observers",)
    assert subjects[("research", "admin")][0].startswith("ocid1.group.")
    assert len(cfg.tenants) >= 2 and all(
        {bool(m.iam_group_id) for m in t.members} == {True, False} for t in cfg.tenants.values())


@pytest.mark.parametrize("member, key, phrase", [
    ({"role": "viewer"}, "oke-rdma:tenants.research.members[0]", "exactly one of iamGroupId"),
    ({"iamGroupId": GROUP, "oidcGroup": "x", "role": "viewer"}, "oke-rdma:tenants.research.members[0]",
     "exactly one of iamGroupId"),
    ({"iamGroupId": GROUP, "role": "owner"}, "oke-rdma:tenants.research.members[0].role", "viewer"),
    ({"iamGroupId": "ocid1.user.oc1..aaaaaaaaexample", "role": "viewer"},
     "oke-rdma:tenants.research.members[0].iamGroupId", "OCID of a group"),
    ({"oidcGroup": "has space", "role": "viewer"}, "oke-rdma:tenants.research.members[0].oidcGroup", "no spaces"),
    ({"iamGroupId": GROUP}, "oke-rdma:tenants.research.members[0].role", ""),
])
def test_a_malformed_member_is_one_line_naming_its_key(member, key, phrase):
    got = [p for p in problems(tenants=members(member)) if p.startswith(key)]
    assert len(got) == 1 and phrase in got[0], got


def test_a_group_listed_twice_in_one_tenant_is_refused():
    got = problems(tenants=members({"iamGroupId": GROUP, "role": "viewer"}, {"iamGroupId": GROUP, "role": "admin"}))
    assert any(p.startswith("oke-rdma:tenants.research.members[1].iamGroupId:") and "already members[0]" in p
               for p in got), got


def test_an_oidc_group_without_cluster_oidc_is_refused_naming_the_key():
    got = problems(cluster={"oidc": None})
    assert "oke-rdma:tenants.research.members[2].oidcGroup: an identity provider's group needs the cluster's OIDC " \
           "sign-in; set cluster.oidc (issuerUrl, clientId, usernamePrefix, groupsPrefix) or use iamGroupId" in got


def test_iam_group_members_need_no_oidc():
    cfg = load_dev_config(cluster={"oidc": None}, tenants={
        "research": {"members": [{"iamGroupId": GROUP, "role": "developer"}]},
        "analytics": {"members": [{"iamGroupId": GROUP, "role": "viewer"}]}})
    assert cfg.cluster.oidc is None and cfg.tenants["research"].members[0].role == "developer"


def test_cluster_oidc_on_a_basic_cluster_is_refused():
    got = problems(cluster={"type": "BASIC_CLUSTER"})
    assert any(p.startswith("oke-rdma:cluster.oidc: OIDC token authentication needs an ENHANCED_CLUSTER") for p in got)


@pytest.mark.parametrize("issuer", ["http://idp.example.com", "idp.example.com", "https://idp.example.com/?a=b",
                                    "https://user:pw@idp.example.com", "https://", "ftp://idp.example.com"])
def test_only_https_issuers_are_accepted(issuer):
    got = problems(cluster={"oidc": {**OIDC, "issuerUrl": issuer}})
    assert any(p.startswith("oke-rdma:cluster.oidc.issuerUrl: expected an https URL") for p in got), got


@pytest.mark.parametrize("field", ["usernamePrefix", "groupsPrefix"])
@pytest.mark.parametrize("value, phrase", [("", "expected a prefix"), ("-", "expected a prefix"),
                                           ("system:", "collide"), ("System:oidc:", "collide"),
                                           ("ocid1.", "collide"), ("oidc", "expected a prefix"),
                                           (None, "")])
def test_prefixes_are_required_and_cannot_collide(field, value, phrase):
    oidc = {**OIDC, field: value}  # None deletes the key (dev_raw_config merges into the dev stack's oidc)
    got = [p for p in problems(cluster={"oidc": oidc}) if p.startswith(f"oke-rdma:cluster.oidc.{field}")]
    assert len(got) == 1 and phrase in got[0], got


@pytest.mark.parametrize("prefix", ["oidc:", "idp/", "corp.sso#", "okta-prod:"])
def test_well_formed_prefixes_pass(prefix):
    cfg = load_dev_config(cluster={"oidc": {**OIDC, "usernamePrefix": prefix, "groupsPrefix": prefix}})
    assert cfg.cluster.oidc.group_subject("team") == prefix + "team"


def test_signing_algorithms_are_asymmetric_jws_algorithms():
    got = problems(cluster={"oidc": {**OIDC, "signingAlgorithms": ["HS256"]}})
    assert any(p.startswith("oke-rdma:cluster.oidc.signingAlgorithms") for p in got)


def _cli(tmp_path, edit) -> int:
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    edit(doc["config"])
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc))
    return preview.main(["--config-file", str(path)])


@pytest.mark.parametrize("edit, expected", [
    (lambda c: c["oke-rdma:cluster"].pop("oidc"), "oke-rdma:tenants.research.members[2].oidcGroup"),
    (lambda c: c["oke-rdma:cluster"].update(type="BASIC_CLUSTER"), "oke-rdma:cluster.oidc"),
])
def test_the_preview_exits_2_naming_the_key(tmp_path, capsys, edit, expected):
    assert _cli(tmp_path, edit) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
