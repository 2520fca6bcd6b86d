"""Who may use the cluster: a tenant's people (``tenants.<t>.members``) and the cluster's OIDC sign-in
(``cluster.oidc``).

Sources (checked 2026-12-01): OKE docs "About Access Control and Kubernetes Engine (OKE)"
(contengaboutaccesscontrol.htm: IAM users and groups appear to Kubernetes RBAC by their OCIDs, so a RoleBinding subject ``Group`` named with the
group's OCID binds an IAM group), "Authenticating Cluster Users using an External OpenID Connect (OIDC) Identity
Provider" (contengOpenIDConnect-Authentication.htm: enhanced clusters; the API server validates the user's id_token
against the issuer); pulumi-oci ``ClusterOptionsOpenIdConnectTokenAuthenticationConfigArgs`` (issuerUrl — https only
—, clientId, usernameClaim, usernamePrefix, groupsClaim, groupsPrefix, requiredClaims, signingAlgorithms,
caCertificate); Kubernetes docs "Authenticating" > "OpenID Connect Tokens" (``--oidc-username-prefix`` and
``--oidc-groups-prefix`` are prepended to the claims so they cannot collide with ``system:`` names; the prefix ``-``
turns prefixing off) and RFC 7518 §3.1 (JWS ``alg`` values).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Optional
from urllib.parse import urlsplit

from pydantic import Field, Strict, field_validator, model_validator

from ._base import StrList, _Model, _ocid

ROLES = ("viewer", "developer", "admin")
#: JWS algorithms the Kubernetes OIDC authenticator accepts (RFC 7518 §3.1, asymmetric only).
SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512")
#: A prefix must end in one of these, so ``<prefix><claim>`` reads as a namespaced name (``oidc:alice``).
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9.-]{0,30}[:/#]$")
_GROUP_RE = re.compile(r"^[^\s]{1,256}$")


class Member(_Model):
    """One grant of a tenant role: an OCI IAM group (``iamGroupId``) or an identity provider's group (``oidcGroup``,
    needs ``cluster.oidc``), and its ``role`` in the tenant's namespace (``viewer`` | ``developer`` | ``admin``; see
    docs/tenants.md)."""

    iam_group_id: Optional[str] = Field(None, description=(
        "OCID of an OCI IAM group (`oci iam group list`); its users get a kubeconfig with `oci ce cluster "
        "create-kubeconfig` (the group is granted `use clusters` on this cluster only)."))
    oidc_group: Optional[str] = Field(None, description=(
        "A group name as the identity provider puts it in the token's groups claim (needs `cluster.oidc`); bound "
        "as `<groupsPrefix><oidcGroup>`."))
    role: Literal["viewer", "developer", "admin"] = Field(description=(
        "`viewer` (read), `developer` (workloads and jobs in the namespace), `admin` (developer, plus binding these "
        "three roles in the namespace)."))

    _group = field_validator("iam_group_id")(lambda v: None if v is None else _ocid("group", v))

    @field_validator("oidc_group")
    @classmethod
    def _oidc_group(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not _GROUP_RE.match(v):
            raise ValueError(f"expected the group name of the token's groups claim (1-256 characters, no spaces), "
                             f"got {v!r}")
        return v

    @model_validator(mode="after")
    def _one_subject(self) -> "Member":
        if (self.iam_group_id is None) == (self.oidc_group is None):
            raise ValueError("expected exactly one of iamGroupId (an OCI IAM group OCID) or oidcGroup (an identity "
                             "provider's group); write one member per group")
        return self


class RequiredClaim(_Model):
    """A claim the id_token must carry with this value."""

    key: str = Field(min_length=1, description="Claim name.")
    value: str = Field(min_length=1, description="Required value.")


def prefix_problem(value: str) -> Optional[str]:
    """Why ``value`` cannot be a username or groups prefix: empty or ``-`` (no prefixing), starting with
    ``system:`` or ``ocid1.`` (a name the prefix would let collide with Kubernetes' own or with an OCI IAM
    subject), or not ``<lowercase word>`` ending in ``:``, ``/`` or ``#``."""
    lowered = value.lower()
    if lowered.startswith("system") or lowered.startswith("ocid1"):
        return (f"{value!r} would let identity-provider names collide with Kubernetes' system: names or OCI IAM "
                "OCIDs; use a prefix of your own like 'oidc:'")
    if not _PREFIX_RE.match(value):
        return (f"expected a prefix of 2-32 lowercase letters, digits, '.' or '-' starting with a letter and ending "
                f"in ':', '/' or '#' (like 'oidc:'), got {value!r}; a prefix is required so no identity-provider "
                "name can collide with a system: name or an OCID")
    return None


class OidcAuth(_Model):
    """OIDC token authentication of the cluster's API server (enhanced clusters only): users sign in to the
    identity provider and present its id_token; ``usernamePrefix`` and ``groupsPrefix`` are required so an IdP name
    can never be ``system:...`` or an OCID."""

    issuer_url: str = Field(description=(
        "The identity provider's issuer (https only, no query or fragment; the `iss` of its tokens)."))
    client_id: str = Field(min_length=1, description="The client id (audience) every token must be issued for.")
    username_claim: str = Field("sub", min_length=1, description="Claim used as the user name (default `sub`).")
    username_prefix: str = Field(description="Prepended to user names, e.g. `oidc:` (required).")
    groups_claim: str = Field("groups", min_length=1, description="Claim holding the user's groups (a list).")
    groups_prefix: str = Field(description="Prepended to group names, e.g. `oidc:` (required); members' "
                                           "`oidcGroup` are bound as `<groupsPrefix><oidcGroup>`.")
    required_claims: Annotated[tuple[RequiredClaim, ...], Strict(False)] = Field((), description=(
        "Claims the token must carry with a value."))
    signing_algorithms: StrList = Field(("RS256",), description="Accepted JWS algorithms (default RS256).")
    ca_certificate: Optional[str] = Field(None, description=(
        "Base64 PEM of the CA of the issuer's certificate, when not publicly trusted."))

    @field_validator("issuer_url")
    @classmethod
    def _issuer(cls, v: str) -> str:
        parts = urlsplit(v)
        if parts.scheme != "https" or not parts.hostname or parts.query or parts.fragment or parts.username:
            raise ValueError(f"expected an https URL without query, fragment or credentials (the `iss` of the "
                             f"provider's tokens, e.g. https://login.example.com/realms/ml), got {v!r}")
        return v

    @field_validator("username_prefix", "groups_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        problem = prefix_problem(v)
        if problem:
            raise ValueError(problem)
        return v

    @field_validator("signing_algorithms")
    @classmethod
    def _algorithms(cls, v: StrList) -> StrList:
        bad = [a for a in v if a not in SIGNING_ALGORITHMS]
        if bad or not v:
            raise ValueError(f"expected one or more of {', '.join(SIGNING_ALGORITHMS)}, got {list(v)!r}")
        return v

    def group_subject(self, group: str) -> str:
        """The RBAC ``Group`` name of an IdP group: ``<groupsPrefix><group>``."""
        return self.groups_prefix + group
