"""Rules of the ``workload_identity`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.workload_identity``, which imports nothing back."""

from __future__ import annotations

from typing import Optional

from .._base import _key
from ..stack import StackConfig
from ..workload_identity import Grant, valid_service_account_name, WorkloadBinding
from ...facts.iam import RUN_TIME_UNDO_FAMILIES, RUN_TIME_UNDO_TYPES
from .object_storage import weights_bucket_name, weights_compartment, weights_grants, weights_service_account

#: Vault resource types (IAM docs "Details for the Vault Service", checked 2026-12-01): ``use keys`` encrypts and
#: decrypts with a key, ``manage keys``/``manage vaults`` disable, rotate and schedule their deletion.
KEY_TYPES = frozenset({"keys", "vaults", "key-delegate", "hsm-cluster", "hsm-partition"})
#: Secret types of the Vault service (``secret-family`` aggregates the others): ``read`` of any of them reads secret
#: contents (``secret-bundles``) or their metadata and versions.
SECRET_TYPES = frozenset({"secret-family", "secrets", "secret-bundles", "secret-versions", "all-resources"})
#: Types whose ``read`` reads objects' contents (``objects``: OBJECT_READ; ``object-family`` and ``all-resources``
#: include it) — in the weights bucket, every tenant's ``<tenant>.checkpoints/``.
OBJECT_READ_TYPES = frozenset({"objects", "object-family", "all-resources"})
#: Object Storage types and the least verb that changes what the weights bucket holds or who can read it (IAM docs
#: "Details for Object Storage, Archive Storage, and Data Transfer", checked 2026-12-01): ``use buckets`` holds
#: BUCKET_UPDATE (access type, versioning), ``manage buckets`` PAR_MANAGE and BUCKET_DELETE; ``use objects`` holds
#: OBJECT_OVERWRITE, ``manage objects`` OBJECT_DELETE and OBJECT_VERSION_DELETE; ``object-family`` both.
BUCKET_TYPES = frozenset({"buckets", "objects", "object-family", "objectstorage-namespaces"})
_VERB_RANK = {"inspect": 0, "read": 1, "use": 2, "manage": 3}


def _other_compartments(cfg: StackConfig, grants: tuple[Grant, ...]) -> list[str]:
    seen: list[str] = []
    for g in grants:
        if not g.in_root and g.compartment_id != cfg.compartment_id and g.compartment_id not in seen:
            seen.append(g.compartment_id)  # type: ignore[arg-type]
    return seen


def service_account_grants(cfg: StackConfig, tenant: str, name: str) -> tuple[Grant, ...]:
    """The grants of service account ``name`` of tenant ``tenant``: its ``allow`` list, then, when it is the tenant's
    ``weights.serviceAccount``, the weights bucket's (:func:`~.object_storage.weights_grants`)."""
    own = cfg.tenants[tenant].service_accounts[name].grants
    return own + (weights_grants(cfg, tenant) if name == weights_service_account(cfg, tenant) else ())


def _tenant_grants(cfg: StackConfig, tenant: str) -> tuple[Grant, ...]:
    return tuple(g for name in cfg.tenants[tenant].service_accounts for g in service_account_grants(cfg, tenant, name))


def workload_bindings(cfg: StackConfig) -> list[WorkloadBinding]:
    """Every Workload Identity binding of the stack, tenant by tenant, service account by service account.

    Call only on a checked config (:func:`check_workload_identity` guarantees at most one other compartment per
    tenant namespace).
    """
    bindings = []
    for tenant, t in cfg.tenants.items():
        others = _other_compartments(cfg, _tenant_grants(cfg, tenant))
        for name in t.service_accounts:
            grants = service_account_grants(cfg, tenant, name)
            mine = _other_compartments(cfg, grants)
            bindings.append(WorkloadBinding(tenant, cfg.tenant_namespace(tenant), name, grants,
                                            others[0] if mine else None))
    return bindings


def _names(grant: Grant, variable: str) -> Optional[set[str]]:
    """The values ``grant`` pins ``variable`` to with ``=``, lowercased (None: not pinned, so every such target
    matches). Lowercased because OCI matches conditions case-insensitively (IAM docs "Conditions", read 2026-12-02:
    ``target.bucket.name = 'MODEL-WEIGHTS'`` is the bucket ``model-weights``)."""
    pinned = {c.value.lower() for c in grant.conditions
              if c.variable.lower() == variable and c.operator == "=" and not c.pattern}
    return pinned or None


def platform_reach_problems(cfg: StackConfig, grant: Grant) -> Optional[str]:
    """Why a tenant's own grant reaches what the platform owns, or None.

    The platform's compartments are ``compartmentId`` and ``iam.vaultCompartmentId`` (a grant ``in tenancy`` covers
    them all). In them a tenant's workload may not: ``use`` or ``manage`` Vault keys or vaults (the cluster's, the
    file system's and the bucket's keys are there: disabling one stops the platform); ``read`` secrets without
    pinning ``target.secret.name`` or ``target.secret.id`` (every other tenant's and the platform's secrets); and,
    a grant that changes exposure, keys or data of others (``RUN_TIME_UNDO_TYPES`` from its least verb: ``manage`` of the
    network's types, Vault keys and File Storage, ``use buckets``, ``manage objects``; object types pinned by
    ``target.bucket.name`` excepted); and, in the weights bucket's compartment, ``use`` or ``manage`` buckets or
    objects that are not pinned by
    ``target.bucket.name`` to another bucket (the bucket's access type, its pre-authenticated requests, deleting
    weights and their old versions), or ``read`` objects there unpinned (every tenant's ``<tenant>.checkpoints/``)
    — ``tenants.<t>.weights`` gives the access a tenant may have. ``RUN_TIME_UNDO_TYPES`` also holds the IAM types
    that create what the security pack's catalogue refuses or judges as a resource (load balancers, VTAPs, ZPR,
    Network Firewall, Connector Hub, Cloud Guard, ``use repos``: policies/security/iam_types.py), and a family is
    judged as its members (``RUN_TIME_UNDO_FAMILIES``); ``all-resources`` includes ``secret-bundles``.
    """
    if grant.permissions:
        return None
    # OCIDs compared case-insensitively, as OCI compares a condition's values (fail closed on a spelling).
    platform = {c.lower() for c in (cfg.compartment_id, cfg.iam.vault_compartment_id) if c}
    where = (grant.compartment_id or "").lower()
    reaches_platform = grant.in_root or where in platform
    rank = _VERB_RANK.get(grant.verb, 3)
    if reaches_platform and grant.resource in KEY_TYPES and rank >= _VERB_RANK["use"]:
        return (f"'{grant.action}' reaches the platform's Vault keys (the cluster's, the file systems' and the "
                f"bucket's are in oke-rdma:compartmentId or iam.vaultCompartmentId); a tenant may use keys only in "
                f"its own compartment: name that compartment")
    if reaches_platform and grant.resource in SECRET_TYPES and rank >= _VERB_RANK["read"] \
            and _names(grant, "target.secret.name") is None and _names(grant, "target.secret.id") is None:
        return (f"'{grant.action}' reads every secret of {grant.location}, other tenants' and the platform's; pin "
                f"it with where target.secret.name = '<name>' (or target.secret.id), or name the tenant's own "
                f"compartment")
    compartment = weights_compartment(cfg)
    least_bucket = "read" if grant.resource in OBJECT_READ_TYPES else "use"
    if compartment is not None and grant.resource in BUCKET_TYPES | OBJECT_READ_TYPES \
            and rank >= _VERB_RANK[least_bucket] and (grant.in_root or where == compartment.lower()):
        buckets = _names(grant, "target.bucket.name")
        bucket = weights_bucket_name(cfg)
        if buckets is None or bucket.lower() in buckets:
            return (f"'{grant.action}' reaches the weights bucket {bucket!r} (it can read every tenant's "
                    f"<tenant>.checkpoints/ objects, or change its access, create "
                    f"pre-authenticated URLs or delete weights and their old versions); give the tenant "
                    f"tenants.<t>.weights (read or readWrite) instead, or pin the grant to another bucket with "
                    f"where target.bucket.name = '<bucket>'")
    least = RUN_TIME_UNDO_TYPES.get(grant.resource)
    members = [RUN_TIME_UNDO_TYPES[m] for m in RUN_TIME_UNDO_FAMILIES.get(grant.resource, ()) if m in
               RUN_TIME_UNDO_TYPES]
    if least is None and members:  # a family: judged as its least-verb member
        least = min(members, key=lambda v: _VERB_RANK[v])
    if grant.resource == "all-resources" and rank >= _VERB_RANK["use"]:
        least = "use"
    # A bucket pin narrows a grant of objects (a tenant's own bucket); not buckets or the family, whose BUCKET_UPDATE
    # and PAR_MANAGE make the pinned bucket public or share it by pre-authenticated URL (IAM "Details for Object
    # Storage", read 2026-12-02).
    pinned_bucket = grant.resource == "objects" and _names(grant, "target.bucket.name") is not None
    if reaches_platform and least is not None and rank >= _VERB_RANK[least] and not pinned_bucket:
        return (f"'{grant.action}' in {grant.location} can change what others share there — the network's "
                f"exposure (NSG rules, routes, public IPs), Vault keys, buckets' access and versions or File "
                f"Storage exports and snapshots — or create what the security pack refuses or judges as a "
                f"resource (load balancers, VTAPs, ZPR policies, firewalls, image pushes: facts.iam "
                f"RUN_TIME_UNDO_TYPES); grant read (or use), pin "
                f"target.bucket.name to the tenant's own bucket, or name the tenant's own compartment")
    return None


def check_workload_identity(cfg: StackConfig) -> list[str]:
    """Cross-field rules of Workload Identity and the IAM settings it and the KMS keys need.

    * bindings need an ``ENHANCED_CLUSTER`` (OKE: workload identities only on enhanced clusters);
    * service account names are Kubernetes names (DNS-1123 subdomains);
    * a service account lists at least one grant, unless it is the tenant's ``weights.serviceAccount``;
    * a tenant's grants (the weights bucket's included, :func:`service_account_grants`) reach at most one compartment
      besides the stack's: OKE maps a namespace to one compartment with a ``ClusterWorkloadMapping``;
    * a workload mapping needs ``iam.deployerGroupId`` (the group that creates it must be allowed to ``manage
      cluster-workload-mappings`` and to ``CLUSTER_WORKLOAD_COMPARTMENT_BIND`` in the mapped compartment);
    * with ``iam.createPolicies``, a grant ``in tenancy`` and an FSS ``kmsKeyId`` (its dynamic group) need
      ``iam.tenancyId`` (the policy or dynamic group is created in the root compartment);
    * a tenant's own grant never reaches the platform's keys, every secret, the weights bucket beyond what
      ``tenants.<t>.weights`` gives, or (in the platform's compartments or the tenancy) the network's exposure, keys,
      buckets and file systems others share (:func:`platform_reach_problems`).
    """
    problems: list[str] = []
    create = cfg.iam.create_policies
    tenancy_needed: list[str] = []
    for tenant, t in cfg.tenants.items():
        for name, sa in t.service_accounts.items():
            at = ("tenants", tenant, "serviceAccounts", name)
            if cfg.cluster.type != "ENHANCED_CLUSTER":
                problems.append(f"{_key(at)}: Workload Identity needs an enhanced cluster, but cluster.type is "
                                f"{cfg.cluster.type}; set oke-rdma:cluster.type to ENHANCED_CLUSTER or remove the "
                                f"binding")
            if not valid_service_account_name(name):
                problems.append(f"{_key(at)}: {name!r} is not a Kubernetes ServiceAccount name (lowercase letters, "
                                f"digits, '-' and '.', at most 253); rename it")
            elif name == "default":
                # Kubernetes docs "Service Accounts": every pod that names no ServiceAccount runs as its namespace's
                # "default"; a grant to it is a grant to every such pod (checked 2026-12-01).
                problems.append(f"{_key(at)}: 'default' is the ServiceAccount every pod of the namespace that names "
                                f"none runs as, so its grants would reach all of them; name a ServiceAccount of "
                                f"its own (e.g. trainer) and set it in the pods")
            if any(g.compartment_id is None for g in sa.grants):
                tenancy_needed.append(_key(at + ("allow",)))
            for i, grant in enumerate(sa.grants):
                if (why := platform_reach_problems(cfg, grant)) is not None:
                    problems.append(f"{_key(at + ('allow', i))}: {why}")
            if not sa.grants and name != weights_service_account(cfg, tenant):
                problems.append(f"{_key(at + ('allow',))}: lists no grant; add at least one ('<verb> <resource-type> "
                                f"in <location>'), name it in tenants.{tenant}.weights.serviceAccount, or remove "
                                f"the service account")
        others = _other_compartments(cfg, _tenant_grants(cfg, tenant))
        at = ("tenants", tenant, "serviceAccounts")
        if len(others) > 1:
            problems.append(f"{_key(at)}: the grants of namespace {cfg.tenant_namespace(tenant)!r} reach "
                            f"{len(others)} compartments besides oke-rdma:compartmentId ({', '.join(others)}); OKE "
                            f"maps a namespace to one compartment (ClusterWorkloadMapping): keep one, or move the "
                            f"others to another tenant")
        elif others and cfg.iam.deployer_group_id is None:
            problems.append(f"{_key(('iam', 'deployerGroupId'))}: required because tenant {tenant!r} reaches "
                            f"compartment {others[0]} through a ClusterWorkloadMapping, which only a group allowed "
                            f"to bind workloads to that compartment may create; set the OCID of the group that runs "
                            f"pulumi up")
    if create and cfg.iam.tenancy_id is None:
        fss = cfg.storage.fss
        if fss.enabled and fss.kms_key_id:
            tenancy_needed.append(_key(("storage", "fss", "kmsKeyId")))
        if tenancy_needed:
            problems.append(f"{_key(('iam', 'tenancyId'))}: required with iam.createPolicies because "
                            f"{', '.join(tenancy_needed)} {'needs' if len(tenancy_needed) == 1 else 'need'} a policy or "
                            f"dynamic group in the root compartment; "
                            f"set the tenancy OCID, or set iam.createPolicies: false")
    return problems
