"""Static credentials: resources that mint a secret (or register key material) with which someone acts as an IAM
user, an identity-domain user or an OAuth client.

A stack that creates such a credential hands a long-lived secret to whoever runs the program and whoever reads its
state: the provider stores the generated token, password or client secret in the state (an API key's private half
lives wherever the program read it from). The credential acts as its user — often an administrator, since only
administrators may add credentials to other users (IAM docs "Managing User Credentials"). OKE platforms need none:
pods use Workload Identity (OKE docs "Granting Workloads Access to OCI Resources"), nodes and instances use instance
principals through dynamic groups, functions and jobs use resource principals. The pack therefore refuses the whole
class, and so does the grant side (``iam-no-identity-escalation`` refuses ``use``/``manage`` of ``users`` and
``credentials`` and every ``USER_*``/``CREDENTIAL_*`` permission that is not read-only).

``iam-no-static-credentials`` (resource, mandatory) refuses:

| resource type (engine token)                                    | when                                             |
|-----------------------------------------------------------------|--------------------------------------------------|
| ``oci:Identity/apiKey:ApiKey``, ``authToken``,                  | always: each mints (or registers) a credential   |
| ``customerSecretKey``, ``smtpCredential``, ``dbCredential``,    | of an IAM user                                   |
| ``uiPassword``, ``swiftPassword`` (deprecated; older pulumi-oci)|                                                  |
| ``oci:Identity/domainsApiKey``, ``domainsAuthToken``,           | always: the same credentials of an identity-     |
| ``domainsCustomerSecretKey``, ``domainsSmtpCredential``,        | domain user, or of the caller itself (``My*``)   |
| ``domainsUserDbCredential``, ``domainsOauth2clientCredential``  |                                                  |
| and their ``domainsMy*`` forms                                  |                                                  |
| ``oci:Identity/domainsMySupportAccount``                        | always: a support token in the program and state |
| ``oci:Identity/domainsOauthClientCertificate``,                 | always: a certificate an OAuth client or partner |
| ``domainsOauthPartnerCertificate``                              | signs its assertions with is a credential        |
| ``oci:Identity/domainsIdentityPropagationTrust``,               | always: tokens or assertions of an outside issuer|
| ``identityProvider``, ``domainsIdentityProvider``,              | make its users principals here (a social IdP also|
| ``domainsSocialIdentityProvider``                               | keeps its client secret in the state)            |
| ``oci:Identity/user:User``, ``oci:Identity/domainsUser``        | always: a user is a principal that authenticates |
|                                                                 | with static credentials; people are federated or |
|                                                                 | created by administrators                        |
| ``oci:Identity/domain:Domain``                                   | ``adminUserName``/``adminEmail``/``adminFirstName``|
|                                                                 | /``adminLastName`` set: its first administrator  |
| ``oci:Identity/userCapabilitiesManagement``                     | a ``canUse*`` capability is not literally false  |
|                                                                 | (unset leaves it as it is; false turns it off)   |
| ``oci:Identity/domainsApp``                                     | it is an OAuth client (``isOauthClient``) whose  |
|                                                                 | ``clientType`` is not ``public``, or it sets a   |
|                                                                 | ``clientSecret``: a confidential client's secret |
| ``oci:Database/autonomousDatabaseWallet``                       | always: the database's client key, in state      |
| ``oci:Database/autonomousDatabaseSaasAdminUser``                | always: a database administrator's password      |
| ``oci:Kms/generatedKey:GeneratedKey``                           | ``includePlaintextKey`` is not literally false:  |
|                                                                 | a plaintext data encryption key in state         |
| ``kubernetes:core/v1:Secret`` (or ``kubernetes:v1:Secret``)     | always: a long-lived service-account token that  |
| ``type: kubernetes.io/service-account-token``                   | never expires (use the TokenRequest API)         |

Unknown values fail closed: an unknown capability, ``isOauthClient``, ``clientType``, ``includePlaintextKey`` or
Secret ``type`` is a violation. Where the secret lives: pulumi_oci 5.5.0 marks only the database credentials', the
wallet's and a domain user's password outputs secret (``additional_secret_outputs``); auth tokens, customer secret
keys, console, SMTP and Swift passwords, OAuth client secrets and a generated key's plaintext sit in the state in
plain text.

Sources (checked 2026-12-01): OCI IAM docs "Managing User Credentials", "User Credentials", "Details for IAM without
Identity Domains" (the ``users`` and ``credentials`` resource types and their USER_APIKEY_ADD, USER_AUTHTOKEN_SET,
USER_UIPASS_SET, USER_SWIFTPASS_SET, USER_SECRETKEY_ADD, USER_OAUTH2_CLIENT_CRED_CREATE, CREDENTIAL_ADD
permissions), "Editing a User's Capabilities" (identity domains); OCI API "UpdateUserCapabilities",
"CreateDomainDetails" (``adminUserName``, ``adminEmail``); OKE docs
"Granting Workloads Access to OCI Resources"; Kubernetes docs "Service Accounts" ("Manually create a long-lived API
token for a ServiceAccount": legacy token Secrets; TokenRequest tokens are bound and expire); pulumi_oci 5.5.0
``identity/*.py`` (the type tokens and ``canUse*``, ``isOauthClient``, ``clientType``, ``clientSecret``), and
pulumi/pulumi-oci ``sdk/python/pulumi_oci/identity/swift_password.py`` in releases that still have it.
"""
from __future__ import annotations

from typing import Any, Iterable

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _rules as R
    from .kubernetes import canonical_type
else:  # run by the Pulumi CLI from inside policies/security/
    import _rules as R
    from kubernetes import canonical_type

UNKNOWN = R.UNKNOWN
_IAM = "oci:Identity/"

#: Engine token → what it mints. Each one is refused whatever its properties.
STATIC_CREDENTIALS: dict[str, str] = {
    f"{_IAM}apiKey:ApiKey": "an API signing key of an IAM user",
    f"{_IAM}authToken:AuthToken": "an auth token of an IAM user (registry logins, Swift, SMTP relays)",
    f"{_IAM}customerSecretKey:CustomerSecretKey": "a customer secret key (S3-compatible access key) of an IAM user",
    f"{_IAM}smtpCredential:SmtpCredential": "an SMTP credential of an IAM user",
    f"{_IAM}dbCredential:DbCredential": "a database password of an IAM user",
    f"{_IAM}uiPassword:UiPassword": "a console password of an IAM user",
    f"{_IAM}swiftPassword:SwiftPassword": "a Swift password of an IAM user (deprecated for auth tokens)",
    f"{_IAM}domainsApiKey:DomainsApiKey": "an API signing key of an identity-domain user",
    f"{_IAM}domainsAuthToken:DomainsAuthToken": "an auth token of an identity-domain user",
    f"{_IAM}domainsCustomerSecretKey:DomainsCustomerSecretKey": "a customer secret key of an identity-domain user",
    f"{_IAM}domainsSmtpCredential:DomainsSmtpCredential": "an SMTP credential of an identity-domain user",
    f"{_IAM}domainsUserDbCredential:DomainsUserDbCredential": "a database password of an identity-domain user",
    f"{_IAM}domainsOauth2clientCredential:DomainsOauth2clientCredential":
        "an OAuth 2.0 client credential (client id and secret) of an identity-domain user",
    f"{_IAM}domainsMyApiKey:DomainsMyApiKey": "an API signing key of the user who runs the program",
    f"{_IAM}domainsMyAuthToken:DomainsMyAuthToken": "an auth token of the user who runs the program",
    f"{_IAM}domainsMyCustomerSecretKey:DomainsMyCustomerSecretKey":
        "a customer secret key of the user who runs the program",
    f"{_IAM}domainsMySmtpCredential:DomainsMySmtpCredential": "an SMTP credential of the user who runs the program",
    f"{_IAM}domainsMyUserDbCredential:DomainsMyUserDbCredential":
        "a database password of the user who runs the program",
    f"{_IAM}domainsMyOauth2clientCredential:DomainsMyOauth2clientCredential":
        "an OAuth 2.0 client credential of the user who runs the program",
    f"{_IAM}domainsOauthClientCertificate:DomainsOauthClientCertificate":
        "an OAuth client certificate (client assertions signed with its key authenticate the client)",
    f"{_IAM}domainsOauthPartnerCertificate:DomainsOauthPartnerCertificate":
        "an OAuth partner certificate (assertions signed by the partner's key are trusted)",
    f"{_IAM}domainsIdentityPropagationTrust:DomainsIdentityPropagationTrust":
        "an identity propagation trust (tokens of an outside issuer become OCI identities, with impersonation)",
    f"{_IAM}identityProvider:IdentityProvider": "a federation with an outside identity provider (SAML)",
    f"{_IAM}domainsIdentityProvider:DomainsIdentityProvider":
        "a federation of an identity domain with an outside identity provider (SAML, OIDC)",
    f"{_IAM}domainsSocialIdentityProvider:DomainsSocialIdentityProvider":
        "a social identity provider of an identity domain, with its client secret (consumerSecret)",
    f"{_IAM}domainsMySupportAccount:DomainsMySupportAccount":
        "a My Oracle Support account link of the user who runs the program, from a support token",
    "oci:Database/autonomousDatabaseWallet:AutonomousDatabaseWallet":
        "an Autonomous Database wallet (the client certificate and key that sign in to the database)",
    "oci:Database/autonomousDatabaseSaasAdminUser:AutonomousDatabaseSaasAdminUser":
        "a SaaS administrative user of an Autonomous Database (a password that signs in to it)",
    f"{_IAM}user:User": "an IAM user, a principal that signs in with static credentials",
    f"{_IAM}domainsUser:DomainsUser": "an identity-domain user, a principal that signs in with static credentials",
}
USERS = frozenset({f"{_IAM}user:User", f"{_IAM}domainsUser:DomainsUser"})
#: Credentials that register a public key or certificate: the secret half is wherever the program read it from.
KEY_MATERIAL = frozenset({f"{_IAM}apiKey:ApiKey", f"{_IAM}domainsApiKey:DomainsApiKey",
                          f"{_IAM}domainsMyApiKey:DomainsMyApiKey",
                          f"{_IAM}domainsOauthClientCertificate:DomainsOauthClientCertificate",
                          f"{_IAM}domainsOauthPartnerCertificate:DomainsOauthPartnerCertificate"})
#: Trusts in an outside issuer: whoever it vouches for becomes a principal here.
FEDERATION = frozenset({f"{_IAM}identityProvider:IdentityProvider",
                        f"{_IAM}domainsIdentityProvider:DomainsIdentityProvider",
                        f"{_IAM}domainsSocialIdentityProvider:DomainsSocialIdentityProvider",
                        f"{_IAM}domainsIdentityPropagationTrust:DomainsIdentityPropagationTrust"})
#: Credentials whose secret output pulumi_oci 5.5.0 marks secret (``additional_secret_outputs``); the others keep it
#: in plain text in the state.
SECRET_OUTPUTS = frozenset({f"{_IAM}dbCredential:DbCredential",
                            f"{_IAM}domainsUserDbCredential:DomainsUserDbCredential",
                            f"{_IAM}domainsMyUserDbCredential:DomainsMyUserDbCredential",
                            "oci:Database/autonomousDatabaseWallet:AutonomousDatabaseWallet",
                            "oci:Database/autonomousDatabaseSaasAdminUser:AutonomousDatabaseSaasAdminUser"})
GENERATED_KEY = "oci:Kms/generatedKey:GeneratedKey"
DOMAIN = f"{_IAM}domain:Domain"
#: A Domain with any of these creates its first administrator user (OCI API "CreateDomainDetails").
DOMAIN_ADMIN = ("adminUserName", "adminEmail", "adminFirstName", "adminLastName")
USER_CAPABILITIES = f"{_IAM}userCapabilitiesManagement:UserCapabilitiesManagement"
#: The capabilities ``UpdateUserCapabilities`` sets (pulumi_oci 5.5.0 ``user_capabilities_management.py``).
CAPABILITIES = ("canUseApiKeys", "canUseAuthTokens", "canUseConsolePassword", "canUseCustomerSecretKeys",
                "canUseSmtpCredentials")
DOMAINS_APP = f"{_IAM}domainsApp:DomainsApp"
SECRET = "kubernetes:core/v1:Secret"
SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
_FIX = ("Platform workloads need no static credentials: pods use OKE Workload Identity, nodes and instances "
        "instance principals (dynamic groups), functions and jobs resource principals; people sign in through "
        "federation and get credentials from administrators, outside any stack")


def _enabled(value: Any) -> Any:
    """False for a literal false or unset (nothing is turned on), UNKNOWN for an unknown value, else True (a
    value other than a boolean cannot be interpreted: fail closed)."""
    if value is None or value is False:
        return False
    return UNKNOWN if value is UNKNOWN else True


def credential_findings(resource_type: str, props: Any) -> Iterable[str]:
    """Why one resource mints a static credential (see the module table); nothing when it does not."""
    if resource_type in STATIC_CREDENTIALS:
        if resource_type in USERS:
            password = R.read(props, "password")
            held = (", with a password the stack's state keeps" if password is UNKNOWN or password else
                    "; credentials are then added to it out of band")
        elif resource_type in KEY_MATERIAL:
            held = "; whoever holds the private key acts as that principal"
        elif resource_type in FEDERATION:
            held = ("; whoever that issuer vouches for signs in here, so federation is set up by administrators "
                    "in a reviewed change")
        elif resource_type in SECRET_OUTPUTS:
            held = ", and the stack's state keeps its secret (as a Pulumi secret, readable by whoever runs the program)"
        else:
            held = (", and the stack's state keeps the generated secret in plain text (pulumi_oci 5.5.0 does not "
                    "mark it secret)")
        yield f"creates {STATIC_CREDENTIALS[resource_type]}{held}"
    elif resource_type == DOMAIN:
        admin = [k for k in DOMAIN_ADMIN if R.read(props, k) is UNKNOWN or R.read(props, k)]
        if admin:
            yield (f"creates an identity domain with an administrator user ({', '.join(admin)}): a person who signs "
                   "in with a password and administers the domain's users, groups and apps")
    elif resource_type == GENERATED_KEY:
        plaintext = R.read(props, "includePlaintextKey")
        if plaintext is UNKNOWN:
            yield "has includePlaintextKey unknown during preview; set it to the literal false"
        elif plaintext is not False:
            yield ("returns the plaintext of a generated data encryption key (includePlaintextKey is not false), "
                   "which the stack's state keeps; generate keys where they are used, or keep only the encrypted "
                   "form")
    elif resource_type == USER_CAPABILITIES:
        on = [(c, _enabled(R.read(props, c))) for c in CAPABILITIES]
        turned_on = [c for c, v in on if v is True]
        unknown = [c for c, v in on if v is UNKNOWN]
        if turned_on:
            yield (f"turns on static-credential capabilities {', '.join(turned_on)} of a user (set them to false, or "
                   "leave them to administrators)")
        if unknown:
            yield f"sets capabilities {', '.join(unknown)} to values unknown during preview; give literal false"
    elif resource_type == DOMAINS_APP:
        oauth, kind, secret = R.read(props, "isOauthClient"), R.read(props, "clientType"), R.read(props, "clientSecret")
        if secret is UNKNOWN or secret:
            yield "sets a clientSecret: a static OAuth client secret in the program and the stack's state"
        elif oauth is UNKNOWN or (oauth is not None and oauth is not False and kind is UNKNOWN):
            yield "may be a confidential OAuth client: isOauthClient or clientType is unknown during preview"
        elif oauth is not None and oauth is not False and (not isinstance(kind, str) or kind.lower() != "public"):
            yield (f"is an OAuth client of clientType {kind!r} (not 'public'): the identity domain issues it a "
                   "client secret that the stack's state keeps")
    elif canonical_type(resource_type) == SECRET:  # also a Secret declared as a core-group CustomResource
        kind = R.read(props, "type")
        if kind is UNKNOWN:
            yield "has a type unknown during preview; it may be a long-lived service-account token"
        elif kind == SERVICE_ACCOUNT_TOKEN:
            yield (f"is a {SERVICE_ACCOUNT_TOKEN} Secret: a service-account token that never expires, readable by "
                   "anyone who can read Secrets in its namespace; mount a projected (TokenRequest) token instead")


def validate_no_static_credentials(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``iam-no-static-credentials``: see :func:`credential_findings`. Unknowns fail closed."""
    kind = args.resource_type.split(":")[-1]
    for problem in credential_findings(args.resource_type, args.props):
        report_violation(f"{kind} '{args.name}' {problem}. {_FIX}.", None)


iam_no_static_credentials = ResourceValidationPolicy(
    name="iam-no-static-credentials",
    description=("No static credential is minted by the stack: no API keys, auth tokens, customer secret keys, SMTP "
                 "or database credentials, console or Swift passwords, OAuth client credentials or certificates, "
                 "identity propagation trusts or identity-provider federations, users, capabilities turned on, "
                 "confidential OAuth apps, database wallets, plaintext generated keys, or long-lived service-account "
                 "token Secrets."),
    validate=validate_no_static_credentials,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation_steps=("Remove the credential. Pods reach OCI with Workload Identity, nodes and instances with "
                       "instance principals, functions and jobs with resource principals; a Kubernetes workload "
                       "mounts a projected service-account token. Source: OCI IAM docs: Managing User Credentials; "
                       "OKE docs: Granting Workloads Access to OCI Resources; Kubernetes docs: Service Accounts."),
    tags=["iam", "credentials", "identity-escalation", "data-exposure"],
)

POLICIES = [iam_no_static_credentials]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "iam-no-static-credentials": ("fails closed: an unknown capability flag, isOauthClient, clientType, "
                                  "clientSecret, password, includePlaintextKey or Secret type is a violation"),
}
