"""Static credentials minted by a stack (API keys, tokens, passwords, OAuth client secrets and certificates, users,
capabilities, long-lived service-account tokens) are refused; resources that mint nothing pass."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from policies.security import credentials
from policies.security.credentials import validate_no_static_credentials as rule
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

RULE = "iam-no-static-credentials"
IDENTITY = "oci:Identity/"


def found(type_: str, props: dict) -> list[str]:
    return call_resource_rule(rule, type_, props)


@pytest.mark.parametrize("type_", sorted(credentials.STATIC_CREDENTIALS))
def test_every_static_credential_resource_is_refused(type_):
    [message] = found(type_, {"userId": "ocid1.user.oc1..aaaa", "description": "ci"})
    assert type_.split(":")[-1] in message and "Workload Identity" in message


@pytest.mark.parametrize("type_, held", [
    (f"{IDENTITY}authToken:AuthToken", "state"), (f"{IDENTITY}uiPassword:UiPassword", "state"),
    (f"{IDENTITY}apiKey:ApiKey", "private key"), (f"{IDENTITY}user:User", "out of band"),
    (f"{IDENTITY}domainsIdentityProvider:DomainsIdentityProvider", "vouches for"),
])
def test_message_says_where_the_secret_lives(type_, held):
    [message] = found(type_, {})
    assert held in message


def test_a_domain_user_with_a_password_is_said_to_keep_it_in_state():
    [message] = found(f"{IDENTITY}domainsUser:DomainsUser", {"userName": "ops", "password": "Hunter2Hunter2!"})
    assert "password the stack's state keeps" in message
    [message] = found(f"{IDENTITY}domainsUser:DomainsUser", {"userName": "ops", "password": U})
    assert "password" in message


def test_every_credential_resource_of_the_installed_sdk_is_in_the_class():
    """Every pulumi_oci identity resource whose name says it is a key, token, password, secret, credential or
    certificate — or a user — is listed, so a new SDK member cannot slip past the rule unnoticed."""
    import pulumi_oci.identity as identity
    folder = Path(identity.__file__).parent
    tokens = set()
    for path in folder.glob("*.py"):
        if path.name.startswith(("get_", "_")):
            continue
        tokens.update(re.findall(r"'(oci:Identity/[A-Za-z0-9]+:[A-Za-z0-9]+)'", path.read_text()))
    pattern = re.compile(r"(ApiKey|AuthToken|Password|SecretKey|Credential|Certificate|PropagationTrust|SupportAccount|IdentityProvider|User)$")
    members = {t for t in tokens if pattern.search(t.split(":")[-1]) and "PasswordPolicy" not in t}
    assert members, "no identity resources found in the installed pulumi_oci"
    assert members <= set(credentials.STATIC_CREDENTIALS), sorted(members - set(credentials.STATIC_CREDENTIALS))


@pytest.mark.parametrize("props, expected", [
    ({"userId": "u", "canUseApiKeys": True}, ["canUseApiKeys"]),
    ({"userId": "u", "canUseConsolePassword": True, "canUseAuthTokens": False}, ["canUseConsolePassword"]),
    ({"userId": "u", "canUseSmtpCredentials": "true"}, ["canUseSmtpCredentials"]),  # not a boolean: fail closed
    ({"userId": "u", "canUseCustomerSecretKeys": U}, ["unknown during preview"]),
])
def test_user_capabilities_turned_on_or_unknown_are_refused(props, expected):
    [message] = found(credentials.USER_CAPABILITIES, props)
    assert all(e in message for e in expected)


@pytest.mark.parametrize("props", [
    {"userId": "u"}, {"userId": "u", **{c: False for c in credentials.CAPABILITIES}},
])
def test_user_capabilities_turned_off_or_left_alone_pass(props):
    assert found(credentials.USER_CAPABILITIES, props) == []


@pytest.mark.parametrize("props", [
    {"displayName": "ci", "isOauthClient": True, "clientType": "confidential"},
    {"displayName": "ci", "isOauthClient": True},  # no clientType: not a public client
    {"displayName": "ci", "isOauthClient": True, "clientType": "trusted"},
    {"displayName": "ci", "clientSecret": "s3cr3t"},
    {"displayName": "ci", "isOauthClient": U}, {"displayName": "ci", "isOauthClient": True, "clientType": U},
])
def test_confidential_or_unverifiable_oauth_apps_are_refused(props):
    assert len(found(credentials.DOMAINS_APP, props)) == 1


@pytest.mark.parametrize("props", [
    {"displayName": "kubectl", "isOauthClient": True, "clientType": "public"},
    {"displayName": "saml-app", "isOauthClient": False}, {"displayName": "saml-app"},
])
def test_public_oauth_clients_and_apps_that_are_no_oauth_client_pass(props):
    assert found(credentials.DOMAINS_APP, props) == []


@pytest.mark.parametrize("type_, ok", [("kubernetes.io/service-account-token", False), (U, False),
                                       ("Opaque", True), ("kubernetes.io/tls", True), (None, True)])
def test_long_lived_service_account_token_secrets_are_refused(type_, ok):
    props = {"metadata": {"name": "t", "annotations": {"kubernetes.io/service-account.name": "trainer"}},
             **({"type": type_} if type_ else {})}
    assert (found(credentials.SECRET, props) == []) is ok
    assert (found("kubernetes:v1:Secret", props) == []) is ok  # the same Secret declared as a CustomResource


@pytest.mark.parametrize("type_, props", [
    ("oci:Identity/group:Group", {"name": "ml-engineers"}),
    ("oci:Identity/dynamicGroup:DynamicGroup", {"matchingRule": "ALL {instance.compartment.id = 'c'}"}),
    ("oci:Identity/policy:Policy", {"statements": ["Allow group ml to read objects in tenancy"]}),
    ("oci:Identity/domainsPasswordPolicy:DomainsPasswordPolicy", {"name": "strict"}),
])
def test_identity_resources_that_mint_no_credential_pass(type_, props):
    assert found(type_, props) == []


def test_the_pack_runs_the_rule_on_an_api_key_and_not_on_a_group():
    report = run(res(f"{IDENTITY}apiKey:ApiKey", "key", {"userId": "ocid1.user.oc1..aaaa", "keyValue": "-----"}),
                 res("oci:Identity/group:Group", "g", {"name": "ml", "description": "d", "compartmentId": "c"}),
                 policy=RULE)
    assert [m.split("\n")[1].split("'")[1] for m in messages(report, RULE)] == ["key"]


@pytest.mark.parametrize("type_, plain", [
    (f"{IDENTITY}authToken:AuthToken", True), (f"{IDENTITY}customerSecretKey:CustomerSecretKey", True),
    (f"{IDENTITY}dbCredential:DbCredential", False),
])
def test_message_says_whether_the_state_keeps_the_secret_in_plain_text(type_, plain):
    """Checked against the installed SDK: the resource's class marks its secret output secret, or it does not."""
    import importlib
    module = importlib.import_module(f"pulumi_oci.identity.{credentials_module_name(type_)}")
    marked = "additional_secret_outputs" in Path(module.__file__).read_text()
    assert marked is not plain
    [message] = found(type_, {})
    assert ("plain text" in message) is plain


def credentials_module_name(type_: str) -> str:
    name = type_.split(":")[-1]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.mark.parametrize("plaintext, count", [(True, 1), (U, 1), ("false", 1), (False, 0)])
def test_generated_keys_returned_in_plaintext_are_refused(plaintext, count):
    props = {"cryptoEndpoint": "https://k-crypto.kms.example", "keyId": "ocid1.key.oc1..k",
             "keyShape": {"algorithm": "AES", "length": 32}, "includePlaintextKey": plaintext}
    assert len(found(credentials.GENERATED_KEY, props)) == count


def test_an_autonomous_database_wallet_is_refused():
    [message] = found("oci:Database/autonomousDatabaseWallet:AutonomousDatabaseWallet",
                      {"autonomousDatabaseId": "ocid1.autonomousdatabase.oc1..a", "password": "x" * 16})
    assert "wallet" in message and "Pulumi secret" in message


@pytest.mark.parametrize("admin, count", [({"adminUserName": "domain-admin", "adminEmail": "a@example.com"}, 1),
                                          ({"adminEmail": U}, 1), ({}, 0)])
def test_an_identity_domain_with_an_administrator_user_is_refused(admin, count):
    props = {"compartmentId": "c", "description": "d", "displayName": "ml", "homeRegion": "sa-saopaulo-1",
             "licenseType": "free", **admin}
    assert len(found(credentials.DOMAIN, props)) == count
