"""Who the cluster's own options let in: OIDC token authentication must prefix every name an outside issuer maps —
the flag fields and every issuer's claim mappings in a structured AuthenticationConfiguration file (no CEL
expressions, no prefix that is, starts or begins a reserved name), anonymous access only to the health endpoints;
a file that cannot be read is refused. Tiller and the Kubernetes Dashboard are refused as legacy cluster options and
as add-ons. A public OIDC discovery document is advisory."""
from __future__ import annotations

import base64

import pytest
import yaml

from policies.security import cluster_auth
from tests.policies.test_policies import U, call_resource_rule

CLUSTER = cluster_auth.CLUSTER


def _oidc(**cfg):
    return {"options": {"openIdConnectTokenAuthenticationConfig": {"isOpenIdConnectAuthEnabled": True,
                                                                   "issuerUrl": "https://idp", **cfg}}}


def oidc(**cfg) -> list[str]:
    return call_resource_rule(cluster_auth.validate_cluster_oidc_prefixed, CLUSTER, _oidc(**cfg))


@pytest.mark.parametrize("cfg, refused", [
    ({}, True), ({"usernamePrefix": "oidc:", "groupsPrefix": ""}, True),
    ({"usernamePrefix": "oidc:", "groupsPrefix": "-"}, True),
    ({"usernamePrefix": "oidc:", "groupsPrefix": "system:"}, True),
    ({"usernamePrefix": "oidc:", "groupsPrefix": "sys"}, True),  # "sys" + "tem:masters"
    ({"usernamePrefix": "ocid1.x", "groupsPrefix": "g:"}, True),
    ({"usernamePrefix": "oc", "groupsPrefix": "g:"}, True),
    ({"usernamePrefix": U, "groupsPrefix": "g:"}, True),
    ({"usernamePrefix": "oidc:", "groupsPrefix": "oidc:"}, False),
])
def test_cluster_oidc_needs_both_prefixes_outside_reserved_names(cfg, refused):
    """Both flag prefixes are set, and neither is, starts with or begins system: or ocid1."""
    assert bool(oidc(**cfg)) is refused


def authn(*issuers, anonymous=None, version="apiserver.config.k8s.io/v1beta1") -> str:
    doc = {"apiVersion": version, "kind": "AuthenticationConfiguration", "jwt": list(issuers)}
    if anonymous is not None:
        doc["anonymous"] = anonymous
    return base64.b64encode(yaml.safe_dump(doc).encode()).decode()


def issuer(username=None, groups=None, url="https://idp.example") -> dict:
    mappings = {"username": username if username is not None else {"claim": "sub", "prefix": "oidc:"}}
    if groups is not False:
        mappings["groups"] = groups if groups is not None else {"claim": "groups", "prefix": "oidc:"}
    return {"issuer": {"url": url, "audiences": ["k8s"]}, "claimMappings": mappings}


PREFIXED = {"usernamePrefix": "oidc:", "groupsPrefix": "oidc:"}


@pytest.mark.parametrize("file, needle", [
    (authn(issuer(groups={"claim": "groups", "prefix": ""})), "groups.prefix is ''"),
    (authn(issuer(username={"claim": "sub", "prefix": ""})), "username.prefix is ''"),
    (authn(issuer(username={"claim": "sub"})), "username.prefix is not set"),
    (authn(issuer(groups={"claim": "groups", "prefix": "system:"})), "'system:'"),
    (authn(issuer(groups={"expression": "claims.groups"})), "CEL expression"),
    (authn(issuer(username={"expression": "'system:admin'"})), "CEL expression"),
    (authn(issuer(), issuer(groups={"claim": "roles", "prefix": ""}, url="https://other")), "jwt[1]"),
    (authn(issuer(username=False)), "not a claim mapping"),
    (authn({"issuer": {"url": "https://idp"}}), "claimMappings is missing"),
    (authn(issuer(), anonymous={"enabled": True}), "anonymous"),
    (authn(issuer(), anonymous={"enabled": True, "conditions": [{"path": "/api"}]}), "anonymous"),
    (authn(issuer(), version="apiserver.config.k8s.io/v9"), "not an AuthenticationConfiguration"),
    (base64.b64encode(b"jwt: [unclosed").decode(), "does not parse"),
    ("not base64 at all!", "not a base64"),
    (U, "configurationFile is unknown"),
])
def test_a_structured_configuration_that_maps_unprefixed_names_is_refused(file, needle):
    """Every issuer's username and groups mapping needs a prefix outside reserved names and no CEL expression;
    anonymous access beyond the health endpoints, an unknown version and an unreadable file are refused, even
    when the flag prefixes are set."""
    found = oidc(**PREFIXED, configurationFile=file)
    assert any(needle in m for m in found), found


def test_a_prefixed_structured_configuration_passes():
    """Prefixed claim mappings for every issuer (groups optional), anonymous access to health endpoints only, and
    a file without the flag fields, pass."""
    file = authn(issuer(), issuer(groups=False, url="https://other"),
                 anonymous={"enabled": True, "conditions": [{"path": "/healthz"}, {"path": "/readyz"}]})
    assert oidc(**PREFIXED, configurationFile=file) == []
    bare = {"options": {"openIdConnectTokenAuthenticationConfig": {"isOpenIdConnectAuthEnabled": True,
                                                                   "configurationFile": file}}}
    assert call_resource_rule(cluster_auth.validate_cluster_oidc_prefixed, CLUSTER, bare) == []
    assert oidc(**PREFIXED, configurationFile=authn(issuer(), version="apiserver.config.k8s.io/v1")) == []


def test_a_public_oidc_discovery_document_is_an_advisory_note():
    """Turning on the discovery document is reported, as an advisory."""
    on = {"options": {"openIdConnectDiscovery": {"isOpenIdConnectDiscoveryEnabled": True}}}
    assert call_resource_rule(cluster_auth.validate_cluster_oidc_discovery_off, CLUSTER, on)
    assert call_resource_rule(cluster_auth.validate_cluster_oidc_discovery_off, CLUSTER, {}) == []
    rule = next(p for p in cluster_auth.POLICIES if p.name == "cluster-oidc-discovery-off")
    assert rule.enforcement_level.value == "advisory"


@pytest.mark.parametrize("kind, props, needle", [
    (CLUSTER, {"options": {"addOns": {"isTillerEnabled": True}}}, "Tiller"),
    (CLUSTER, {"options": {"addOns": {"isKubernetesDashboardEnabled": True}}}, "Dashboard"),
    (CLUSTER, {"options": {"addOns": {"isTillerEnabled": U}}}, "unknown"),
    (CLUSTER, {"options": {"addOns": U}}, "unknown"),
    (cluster_auth.ADDON, {"clusterId": "c", "addonName": "KubernetesDashboard"}, "Dashboard"),
    (cluster_auth.ADDON, {"clusterId": "c", "addonName": "tiller"}, "Tiller"),
    (cluster_auth.ADDON, {"clusterId": "c", "addonName": U}, "unknown"),
])
def test_legacy_add_ons_that_open_a_control_path_are_refused(kind, props, needle):
    """Tiller and the Kubernetes Dashboard, as cluster options or as add-ons, and unknown flags or names, are
    refused."""
    found = call_resource_rule(cluster_auth.validate_cluster_add_ons_closed, kind, props)
    assert any(needle in m for m in found), found


@pytest.mark.parametrize("kind, props", [
    (CLUSTER, {"options": {"addOns": {"isTillerEnabled": False, "isKubernetesDashboardEnabled": False}}}),
    (CLUSTER, {"options": {}}), (CLUSTER, {}),
    (cluster_auth.ADDON, {"clusterId": "c", "addonName": "CertManager"}),
])
def test_clusters_without_those_add_ons_pass(kind, props):
    """Add-ons off or absent, and other add-ons, pass this rule (the catalogue judges the Addon type itself)."""
    assert call_resource_rule(cluster_auth.validate_cluster_add_ons_closed, kind, props) == []
