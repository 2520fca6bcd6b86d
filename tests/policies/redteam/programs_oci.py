"""Red-team programs for two OCI classes: static credentials minted for a principal (identity) and data made public
(data). Each ``case(bad)`` declares the unsafe input, or with ``bad=False`` the safe control that differs only in
what makes it unsafe. Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import json

import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, T, case

USER = "ocid1.user.oc1..aaaaaaaaredteamadmin"
DOMAIN = "https://idcs-0123456789abcdef.identity.oraclecloud.com"
FSS = {"export_set_id": "ocid1.exportset.oc1..aaaaset", "file_system_id": "ocid1.filesystem.oc1..aaaafs"}


def _group(name: str = "ml-engineers") -> oci.identity.Group:
    """A harmless control resource: a group with no members and no grants."""
    return oci.identity.Group("g", compartment_id=T, description="red team control", name=name)


# --- credentials minted for a principal -------------------------------------------------------------------------
@case("identity", "iam-no-static-credentials")
def api_key_for_an_administrator(bad):
    if bad:
        oci.identity.ApiKey("key", user_id=USER, key_value="-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----")
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def auth_token_for_registry_logins(bad):
    if bad:
        oci.identity.AuthToken("token", user_id=USER, description="ocir push")
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def customer_secret_key_for_s3_clients(bad):
    if bad:
        oci.identity.CustomerSecretKey("s3", user_id=USER, display_name="weights sync")
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def console_password_reset(bad):
    if bad:
        oci.identity.UiPassword("pw", user_id=USER)
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def smtp_credential(bad):
    if bad:
        oci.identity.SmtpCredential("smtp", user_id=USER, description="alerts")
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def user_capabilities_turned_on(bad):
    oci.identity.UserCapabilitiesManagement("caps", user_id=USER, can_use_api_keys=bad, can_use_auth_tokens=bad,
                                            can_use_console_password=False)


@case("identity", "iam-no-static-credentials")
def identity_domain_oauth_client_secret(bad):
    oci.identity.DomainsApp("app", idcs_endpoint=DOMAIN, display_name="trainer-ci",
                            schemas=["urn:ietf:params:scim:schemas:oracle:idcs:App"],
                            based_on_template={"value": "CustomWebAppTemplateId"},
                            is_oauth_client=True, client_type="confidential" if bad else "public",
                            allowed_grants=["client_credentials"] if bad else ["authorization_code"])


@case("identity", "iam-no-static-credentials")
def identity_domain_my_api_key(bad):
    if bad:  # a key for the very user who runs `pulumi up`
        oci.identity.DomainsMyApiKey("mine", idcs_endpoint=DOMAIN, key="-----BEGIN PUBLIC KEY-----\nMIIB\n-----END",
                                     schemas=["urn:ietf:params:scim:schemas:oracle:idcs:apikey"])
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def identity_domain_user_with_a_password(bad):
    if bad:
        oci.identity.DomainsUser("u", idcs_endpoint=DOMAIN, user_name="svc-trainer", password="Ch4ngeMe!Ch4ngeMe!",
                                 schemas=["urn:ietf:params:scim:schemas:core:2.0:User"],
                                 name={"family_name": "trainer"})
    else:
        _group()


@case("identity", "iam-no-static-credentials")
def long_lived_service_account_token(bad):
    k8s.core.v1.Secret("token", metadata={"name": "trainer-token", "namespace": "apps", "annotations": {
        "kubernetes.io/service-account.name": "trainer"}},
        type="kubernetes.io/service-account-token" if bad else "Opaque", string_data={} if bad else {"k": "v"})


@case("identity", "iam-no-identity-escalation")
def group_may_mint_api_keys_for_other_users(bad):
    from tests.policies.redteam.programs import statements
    statements("Allow group Ops to {USER_APIKEY_ADD, USER_UPDATE} in tenancy" if bad
               else "Allow group Ops to {USER_INSPECT, USER_READ} in tenancy")


# --- data made public ---------------------------------------------------------------------------------------------
@case("data", "no-public-endpoints")
def public_container_repository(bad):
    oci.artifacts.ContainerRepository("repo", compartment_id=C, display_name="team/trainer", is_public=bad)


@case("data", "no-public-endpoints")
def bucket_readable_without_listing(bad):
    oci.objectstorage.Bucket("b", compartment_id=C, name="weights", namespace="ns", versioning="Enabled",
                             kms_key_id="ocid1.key.oc1..aaaaaaaakey",
                             access_type="ObjectReadWithoutList" if bad else "NoPublicAccess")


@case("data", "no-public-endpoints")
def write_only_pre_authenticated_request(bad):
    oci.objectstorage.Bucket("b", compartment_id=C, name="uploads", namespace="ns")
    if bad:  # write-only still hands the internet a bearer URL into the bucket
        oci.objectstorage.Preauthrequest("par", access_type="AnyObjectWrite", bucket="uploads", namespace="ns",
                                         name="drop", time_expires="2030-01-01T00:00:00Z")


@case("data", "no-public-endpoints")
def container_instance_with_a_public_ip(bad):
    oci.containerengine.ContainerInstance(
        "ci", availability_domain="AD-1", compartment_id=C, shape="CI.Standard.E4.Flex",
        shape_config={"ocpus": 1, "memory_in_gbs": 4}, containers=[{"image_url": "iad.ocir.io/ns/tool@sha256:" + "a" * 64}],
        vnics=[{"subnet_id": "ocid1.subnet.oc1..aaaasub", **({} if bad else {"is_public_ip_assigned": False})}])


@case("data", "fss-export-root-needs-privileged-port")
def fss_unsquashed_root_on_unprivileged_ports(bad):
    oci.filestorage.Export("exp", path="/prepare", **FSS, export_options=[{
        "source": "10.0.32.7/32", "access": "READ_WRITE", "identity_squash": "NONE",
        "require_privileged_source_port": not bad}])


@case("data", "fss-export-root-needs-privileged-port")
def fss_storage_class_unsquashed_root_on_unprivileged_ports(bad):
    options = [{"source": "10.0.32.7/32", "access": "READ_WRITE", "identitySquash": "NONE",
                "requirePrivilegedSourcePort": not bad}]
    k8s.storage.v1.StorageClass("fss", metadata={"name": "fss-dyn"}, provisioner="fss.csi.oraclecloud.com",
                                parameters={"availabilityDomain": "AD-1", "mountTargetOcid": "ocid1.mounttarget.oc1..m",
                                            "exportOptions": json.dumps(options)})


@case("data", "no-public-endpoints")
def custom_image_published_to_the_community(bad):
    oci.marketplace.Publication(
        "pub", compartment_id=C, is_agreement_acknowledged=True, listing_type="COMMUNITY" if bad else "PRIVATE",
        short_description="trainer node image", support_contacts=[{"email": "ml@example.com", "name": "ml"}],
        package_details={"package_type": "IMAGE", "package_version": "1.0", "image_id": "ocid1.image.oc1..aaaaimg",
                         "operating_system": {"name": "Oracle Linux 8"}, "eulas": [{"eula_type": "TEXT"}]})


@case("data", "iam-no-static-credentials")
def data_encryption_key_returned_in_plaintext(bad):
    oci.kms.GeneratedKey("dek", crypto_endpoint="https://aaaa-crypto.kms.sa-saopaulo-1.oraclecloud.com",
                         key_id="ocid1.key.oc1..aaaaaaaakey", key_shape={"algorithm": "AES", "length": 32},
                         include_plaintext_key=bad)


@case("identity", "iam-no-static-credentials")
def identity_domain_with_an_administrator(bad):
    admin = {"admin_user_name": "ml-admin", "admin_email": "ml-admin@example.com", "admin_first_name": "ML",
             "admin_last_name": "Admin"} if bad else {}
    oci.identity.Domain("domain", compartment_id=T, description="ml users", display_name="ml",
                        home_region="sa-saopaulo-1", license_type="free", **admin)


@case("identity", "iam-no-static-credentials")
def social_login_federated_into_a_domain(bad):
    if bad:
        oci.identity.DomainsSocialIdentityProvider(
            "google", idcs_endpoint=DOMAIN, name="Google", enabled=True, account_linking_enabled=True,
            registration_enabled=True, show_on_login=True, consumer_key="client-id", consumer_secret="client-secret",
            service_provider_name="Google", schemas=["urn:ietf:params:scim:schemas:oracle:idcs:SocialIdentityProvider"])
    else:
        _group()
