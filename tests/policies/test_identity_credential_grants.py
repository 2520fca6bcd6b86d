"""Grants that let a principal mint credentials for other users (the ``users`` and ``credentials`` resource types and
their credential permissions) are identity escalation; read-only access to them is not."""
from __future__ import annotations

import pytest

from policies.security.identity import statement_findings

#: The credential permissions of the ``users`` and ``credentials`` types (IAM docs "Details for IAM without Identity
#: Domains", checked 2026-12-01), plus USER_CAPABILITIES_UPDATE of identity-domain tenancies.
CREDENTIAL_PERMISSIONS = ("USER_APIKEY_ADD", "USER_AUTHTOKEN_SET", "USER_AUTHTOKEN_RESET", "USER_UIPASS_SET",
                          "USER_UIPASS_RESET", "USER_SWIFTPASS_SET", "USER_SECRETKEY_ADD", "USER_SECRETKEY_UPDATE",
                          "USER_OAUTH2_CLIENT_CRED_CREATE", "USER_TOTPDEVICE_ADD", "USER_SUPPORT_ACCOUNT_LINK",
                          "USER_CAPABILITIES_UPDATE", "USER_UPDATE", "USER_CREATE", "USER_UNBLOCK", "CREDENTIAL_ADD",
                          "CREDENTIAL_UPDATE")


@pytest.mark.parametrize("verb", ["use", "manage"])
@pytest.mark.parametrize("resource", ["users", "credentials", "authentication", "tasdomain"])
@pytest.mark.parametrize("subject", ["group Ops", "group id ocid1.group.oc1..aaaaops", "dynamic-group ci"])
def test_use_or_manage_of_users_and_credentials_is_escalation_for_any_group(verb, resource, subject):
    """Whatever the subject (a group that is not Administrators, a dynamic group), and even with a condition that
    excludes the administrators group, writing users or credentials lets the principal act as another user."""
    for where in ("", " where target.group.name != 'Administrators'"):
        found = statement_findings(f"Allow {subject} to {verb} {resource} in tenancy{where}")
        assert found and "change IAM" in found[0], found


@pytest.mark.parametrize("permission", CREDENTIAL_PERMISSIONS)
def test_credential_permissions_in_a_permission_list_are_escalation(permission):
    found = statement_findings(f"Allow group Ops to {{{permission}, OBJECT_READ}} in tenancy")
    assert [f for f in found if permission in f], found


@pytest.mark.parametrize("statement", [
    "Allow group Auditors to inspect users in tenancy",
    "Allow group Auditors to read users in tenancy",
    "Allow group Auditors to read credentials in tenancy",
    "Allow group Auditors to {USER_INSPECT, USER_READ, CREDENTIAL_INSPECT} in tenancy",
])
def test_reading_users_and_credentials_is_not_escalation(statement):
    assert statement_findings(statement) == []
