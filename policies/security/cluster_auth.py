"""Who the cluster's API server lets in, through the cluster's own options.

* **An outside issuer with the cluster's names** (``cluster-oidc-prefixed``, MANDATORY): OIDC token authentication
  maps an outside issuer's claims to Kubernetes users and groups. Every way it does so must put the issuer's names
  under a prefix of their own, so no token names ``system:masters``, another ``system:`` user or group, or an OCI
  principal (``ocid1.``: how OKE names IAM users and groups):

  - the flag-style fields ``usernamePrefix`` and ``groupsPrefix`` (both required; ``-`` means none);
  - the structured ``configurationFile`` (an ``AuthenticationConfiguration``, base64 per the OCI API): for every
    ``jwt[]`` issuer, ``claimMappings.username`` and ``claimMappings.groups`` map a ``claim`` with a ``prefix``;
    a mapping by CEL ``expression`` can compute any name (``'system:masters'``) and is refused, as is an empty
    prefix. ``claimValidationRules`` and ``userValidationRules`` only reject tokens; they are CEL too and do not
    make an unprefixed mapping safe here. ``anonymous.enabled`` is accepted only with ``conditions`` limited to the
    health endpoints (:data:`ANONYMOUS_PATHS`). A file that is not base64, not YAML, not an
    ``AuthenticationConfiguration`` of a known version, or unknown during preview is refused.

  A prefix is refused when it is empty, starts with a reserved name (:data:`RESERVED`), or is the start of one
  (``sys`` + a claim ``tem:masters`` is ``system:masters``).
* **The cluster's tokens trusted elsewhere** (``cluster-oidc-discovery-off``, advisory): a public OIDC discovery
  document lets outside clouds trust every pod's projected token; a platform may want it (``oke-rdma:cluster.
  openIdConnectDiscovery``), so it is a note, not a refusal.
* **Control paths beside the API's own** (``cluster-add-ons-closed``, MANDATORY): the cluster's legacy add-ons
  (``options.addOns``) and the same add-ons through the Cluster Add-ons API (``oci:ContainerEngine/addon:Addon``,
  refused by the catalogue unless allowed) — Tiller, Helm 2's in-cluster server, installs what any client that
  reaches its gRPC port sends, with its own service account's rights and no authentication by default; the
  Kubernetes Dashboard is a web UI that acts on the API with the rights of the token or service account it holds.
  Both are refused; an unknown flag or add-on name too.

Sources (checked 2026-12-02): Kubernetes docs "Authenticating" (``--oidc-username-prefix``, ``--oidc-groups-prefix``,
"Using Authentication Configuration"), "kube-apiserver Configuration (v1)" (``AuthenticationConfiguration``,
``ClaimMappings``: "If groups.claim is set, the prefix must be specified (and can be the empty string)",
``PrefixedClaimOrExpression``, ``AnonymousAuthConfig``); pulumi_oci 5.5.0 ``ClusterOptionsOpenIdConnectTokenAuthent
icationConfig`` (``configurationFile``: "A Base64 encoded string of a Kubernetes OIDC Auth Config file"),
``ClusterOptionsAddOns`` (``isTillerEnabled``, ``isKubernetesDashboardEnabled``), ``Addon`` (``addonName``); OKE
docs "Authenticating Cluster Users using an External OIDC Identity Provider", "OpenID Connect Discovery", "Cluster
Add-on Supported Versions" (Kubernetes Dashboard, Tiller "not recommended"); Helm v2 docs "Securing your Helm
Installation" (Tiller's gRPC endpoint unauthenticated by default).
"""
from __future__ import annotations

import base64
import binascii
from typing import Any, Optional

import yaml  # PyYAML: a dependency of the pulumi SDK, so present wherever the pack runs
from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, Severity

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from . import _yaml_bounded
    from ._gate import examines
    from ._rules import CLUSTER, UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    import _yaml_bounded
    from _gate import examines
    from _rules import CLUSTER, UNKNOWN, read

ADDON = "oci:ContainerEngine/addon:Addon"
#: Names an issuer must never be able to spell: Kubernetes' own (``system:``) and OKE's IAM principals (``ocid1.``).
RESERVED = ("system:", "ocid1.")
#: ``AuthenticationConfiguration`` versions (Kubernetes docs "kube-apiserver Configuration").
AUTH_CONFIG_VERSIONS = ("apiserver.config.k8s.io/v1alpha1", "apiserver.config.k8s.io/v1beta1",
                        "apiserver.config.k8s.io/v1")
#: The only paths anonymous requests may reach (Kubernetes docs "Authenticating", anonymous authenticator
#: configuration: the health endpoints).
ANONYMOUS_PATHS = frozenset({"/healthz", "/livez", "/readyz"})
#: Legacy add-on flags and add-on names that open a control path (see the module docstring).
ADDON_FLAGS = {"isTillerEnabled": "Tiller (Helm 2's server: installs what any client that reaches it sends, with no "
                                  "authentication by default)",
               "isKubernetesDashboardEnabled": "the Kubernetes Dashboard (a web UI acting on the API with the "
                                               "rights of the token or service account it holds)"}
ADDON_NAMES = {"tiller": ADDON_FLAGS["isTillerEnabled"],
               "kubernetesdashboard": ADDON_FLAGS["isKubernetesDashboardEnabled"]}


def prefix_problem(what: str, value: Any) -> Optional[str]:
    """Why a username or groups prefix lets the issuer name the cluster's own users or groups, or None."""
    if value is UNKNOWN:
        return f"{what} is unknown during preview"
    if not isinstance(value, str) or not value.strip() or value.strip() == "-":
        shown = "not set" if value is None else repr(value)
        return f"{what} is {shown}: no prefix, so the issuer's tokens may name any user or group (system:masters " \
               "included)"
    low = value.lower()
    for reserved in RESERVED:
        if low.startswith(reserved) or reserved.startswith(low):
            return (f"{what} {value!r} lets the issuer's names start with {reserved!r}, among Kubernetes' own "
                    "(system:) or OCI's (ocid1.)")
    return None


def _mapping_problems(where: str, mapping: Any, required: bool) -> list[str]:
    if mapping is None:
        return [f"{where} is missing (the API server requires it)"] if required else []
    if not isinstance(mapping, dict):
        return [f"{where} is a {type(mapping).__name__}, not a claim mapping"]
    if mapping.get("expression") not in (None, ""):
        return [f"{where} maps by the CEL expression {mapping['expression']!r}, which can produce any name "
                "(system:masters included); map a claim with a prefix instead"]
    why = prefix_problem(f"{where}.prefix", mapping.get("prefix"))
    return [why] if why else []


def configuration_file_problems(value: Any) -> list[str]:
    """Why a structured ``AuthenticationConfiguration`` (base64, as OCI takes it) lets an issuer or an anonymous
    request reach the cluster's own names; one phrase per problem, empty when it does not."""
    if value is UNKNOWN:
        return ["configurationFile is unknown during preview"]
    try:
        doc = _yaml_bounded.safe_load(base64.b64decode(value, validate=True).decode("utf-8"))
    except (binascii.Error, ValueError, TypeError):
        return ["configurationFile is not a base64-encoded UTF-8 file (the OCI API takes it base64-encoded)"]
    except yaml.YAMLError as exc:
        return [f"configurationFile does not parse as YAML ({str(exc).splitlines()[0]})"]
    if not isinstance(doc, dict) or doc.get("kind") != "AuthenticationConfiguration" or \
            doc.get("apiVersion") not in AUTH_CONFIG_VERSIONS:
        return ["configurationFile is not an AuthenticationConfiguration of apiVersion "
                f"{', '.join(AUTH_CONFIG_VERSIONS)}"]
    found = []
    anonymous = doc.get("anonymous")
    if anonymous is not None and (not isinstance(anonymous, dict) or anonymous.get("enabled") is not False):
        conditions = anonymous.get("conditions") if isinstance(anonymous, dict) else None
        paths = [c.get("path") if isinstance(c, dict) else c for c in conditions or []] \
            if isinstance(conditions, list) else [conditions]
        if not paths or any(p not in ANONYMOUS_PATHS for p in paths):
            found.append(f"configurationFile anonymous lets unauthenticated requests reach {paths or 'every path'} "
                         f"as system:anonymous; allow at most {', '.join(sorted(ANONYMOUS_PATHS))}")
    issuers = doc.get("jwt")
    if issuers is not None and not isinstance(issuers, list):
        return found + ["configurationFile jwt is not a list of issuers"]
    for i, issuer in enumerate(issuers or []):
        where = f"configurationFile jwt[{i}].claimMappings"
        mappings = issuer.get("claimMappings") if isinstance(issuer, dict) else None
        if not isinstance(mappings, dict):
            found.append(f"{where} is missing or not a map")
            continue
        found += _mapping_problems(f"{where}.username", mappings.get("username"), required=True)
        found += _mapping_problems(f"{where}.groups", mappings.get("groups"), required=False)
    return found


def oidc_problems(props: Any) -> list[str]:
    """Why a cluster's OIDC token authentication lets the issuer name any user or group; empty when it does not."""
    cfg = read(props, "options", "openIdConnectTokenAuthenticationConfig")
    if cfg is UNKNOWN:
        return ["is unknown during preview"]
    enabled = read(cfg, "isOpenIdConnectAuthEnabled")
    if cfg is None or enabled is False or enabled is None:
        return []
    found = []
    config_file = read(cfg, "configurationFile")
    if config_file not in (None, ""):
        found += configuration_file_problems(config_file)
    if config_file in (None, "") or read(cfg, "issuerUrl") is not None:  # the flag-style fields are in use
        for key in ("usernamePrefix", "groupsPrefix"):
            if (why := prefix_problem(key, read(cfg, key))) is not None:
                found.append(why)
    return found


def validate_cluster_oidc_prefixed(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``cluster-oidc-prefixed`` (see the module docstring)."""
    if args.resource_type != CLUSTER:
        return
    for why in oidc_problems(args.props):
        report_violation(f"Cluster '{args.name}' options.openIdConnectTokenAuthenticationConfig {why}. Give every "
                         "claim mapping a prefix of its own (e.g. 'oidc:') so the issuer's users and groups never "
                         "match RBAC subjects of the cluster itself.", None)


def validate_cluster_oidc_discovery_off(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``cluster-oidc-discovery-off`` (advisory; see the module docstring)."""
    if args.resource_type == CLUSTER and read(args.props, "options", "openIdConnectDiscovery",
                                              "isOpenIdConnectDiscoveryEnabled") is True:
        report_violation(f"Cluster '{args.name}' publishes its OIDC discovery document: outside services can be "
                         "set to trust every pod's ServiceAccount token. Keep it only if a reviewed federation "
                         "needs it.", None)


def add_on_problems(resource_type: str, props: Any) -> list[str]:
    """``field: what it runs`` for every add-on of the resource that opens a control path (or may: unknown)."""
    if resource_type == ADDON:
        name = read(props, "addonName")
        if name is UNKNOWN:
            return ["addonName is unknown during preview"]
        what = ADDON_NAMES.get(str(name).lower()) if isinstance(name, str) else None
        return [f"addonName {name!r} installs {what}"] if what else []
    if resource_type != CLUSTER:
        return []
    add_ons = read(props, "options", "addOns")
    if add_ons is UNKNOWN:
        return ["options.addOns is unknown during preview"]
    found = []
    for flag, what in ADDON_FLAGS.items():
        value = read(add_ons, flag)
        if value is UNKNOWN:
            found.append(f"options.addOns.{flag} is unknown during preview")
        elif value is True or (isinstance(value, str) and value.lower() == "true"):
            found.append(f"options.addOns.{flag} installs {what}")
    return found


def validate_cluster_add_ons_closed(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``cluster-add-ons-closed`` (see the module docstring)."""
    for why in add_on_problems(args.resource_type, args.props):
        report_violation(f"'{args.name}' {why}: a control path into the cluster beside the API server's own "
                         "authentication and the stack's RBAC. Leave it off; install tools as reviewed Helm "
                         "releases.", None)


def _resource(name: str, description: str, validate: Any, remediation: str, types: tuple[str, ...],
              level: EnforcementLevel = EnforcementLevel.MANDATORY, severity: Severity = Severity.CRITICAL):
    return examines(ResourceValidationPolicy(name=name, description=description, validate=validate,
                                             enforcement_level=level, severity=severity,
                                             remediation_steps=remediation, tags=["identity", "oke"]), *types)


POLICIES = [
    _resource("cluster-oidc-prefixed", "A cluster's OIDC token authentication prefixes the issuer's user and group "
              "names, in the flag fields and in a structured configuration file.", validate_cluster_oidc_prefixed,
              "Set usernamePrefix and groupsPrefix (not system:), and a prefix on every claimMappings username and "
              "groups of configurationFile (no CEL expressions). Source: Kubernetes docs \"Authenticating\".",
              (CLUSTER,)),
    _resource("cluster-oidc-discovery-off", "A cluster does not publish its OIDC discovery document.",
              validate_cluster_oidc_discovery_off, "Turn openIdConnectDiscovery off unless a reviewed federation "
              "needs it. Source: OKE docs \"OpenID Connect Discovery\".", (CLUSTER,),
              level=EnforcementLevel.ADVISORY, severity=Severity.LOW),
    _resource("cluster-add-ons-closed", "A cluster runs neither Tiller nor the Kubernetes Dashboard add-on.",
              validate_cluster_add_ons_closed, "Set options.addOns.isTillerEnabled and isKubernetesDashboardEnabled "
              "to false (or leave them out) and install no Tiller or KubernetesDashboard add-on. Source: OCI API "
              "AddOnOptions; OKE docs \"Cluster Add-on Supported Versions\".", (CLUSTER, ADDON)),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "cluster-oidc-prefixed": ("fails closed: an unknown prefix, configuration file or OIDC block is a violation, as "
                              "is a configuration file that cannot be decoded or parsed"),
    "cluster-oidc-discovery-off": "reads only inputs known at preview: an unknown flag is not reported (advisory)",
    "cluster-add-ons-closed": "fails closed: an unknown add-on flag, addOns block or add-on name is a violation",
}
