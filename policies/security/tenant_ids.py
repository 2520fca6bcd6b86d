"""A tenant's pods touch shared storage only as the tenant: ``tenant-pods-run-as-their-storage-ids`` (MANDATORY,
stack).

Every tenant's static volume mounts the whole FSS export or Lustre file system (oke_rdma ``volumes.py``: FSS cannot
mount a directory below an export path), so each tenant directory's owner (``2770``, the tenant's UID:GID) is the only
wall between tenants, and Pod Security ``restricted`` admits any non-zero UID. In a tenant namespace
(``_pss.tenant_namespaces``), for every pod spec (workloads, ``*Patch``/``*List`` kinds, job operators' resources,
rendered objects):

* no ``runAsUser``, ``runAsGroup``, ``fsGroup`` or ``supplementalGroups`` (pod or container) may be an ID another
  tenant owns its data as (the ``okerdma.io/uid``/``okerdma.io/gid`` annotations oke-rdma writes on each tenant's
  shared claim in another namespace);
* a pod mounting a claim of its namespace that carries those annotations runs every container that mounts it as
  exactly that UID and GID (its own ``securityContext`` or the pod's; unset is refused: the image's ``USER`` would apply), with
  ``fsGroup`` unset or the GID and ``supplementalGroups`` only the GID — what the guard's ``tenant-ids-<tenant>``
  policy holds at admission (``oke_rdma/guard_ids.py``);
* a static claim (``storageClassName: ""``) of the stack without those annotations — whose owner cannot be known —
  is mounted only through a ``subPath`` (no ``..``), never whole.

Fail closed: unknown annotations, IDs, volumes or mounts are violations.

Sources (checked 2026-12-02): Kubernetes API ``PodSecurityContext``/``SecurityContext``, ``VolumeMount.subPath``;
docs "Configure a Security Context", "Pod Security Standards"; oke_rdma ``volumes.py``/``lustre.py`` (the claim
annotations).
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._pod_templates import pod_specs
    from ._pss import tenant_namespaces
    from ._rules import UNKNOWN, elements, read
    from .squash_owner import GID_KEY, UID_KEY, _id
    from .tenant_pods import _in_tenant, _namespace
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pod_templates import pod_specs
    from _pss import tenant_namespaces
    from _rules import UNKNOWN, elements, read
    from squash_owner import GID_KEY, UID_KEY, _id
    from tenant_pods import _in_tenant, _namespace

POLICY_NAME = "tenant-pods-run-as-their-storage-ids"
PVC_TYPES = ("kubernetes:core/v1:PersistentVolumeClaim", "kubernetes:core/v1:PersistentVolumeClaimPatch")
_CONTAINERS = ("initContainers", "containers", "ephemeralContainers")


def _claims(resources: list) -> dict:
    """(namespace, name) → (uid, gid) from its annotations (UNKNOWN parts; None when unannotated), static?"""
    out = {}
    for r in resources:
        if r.resource_type not in PVC_TYPES:
            continue
        annotations = read(r.props, "metadata", "annotations")
        if annotations is UNKNOWN:
            ids = (UNKNOWN, UNKNOWN)
        else:
            uid, gid = read(annotations, UID_KEY), read(annotations, GID_KEY)
            ids = None if uid is None and gid is None else (_id(uid), _id(gid))
        out[(_namespace(r), read(r.props, "metadata", "name"))] = (ids, read(r.props, "spec", "storageClassName"))
    return out


def _effective(spec: Any, field: str) -> list[tuple[str, Any]]:
    """(container, its effective ``field``: own or the pod's; None when neither sets it) for every container."""
    pod_value = read(spec, "securityContext", field)
    out = []
    for key in _CONTAINERS:
        containers = elements(read(spec, key))
        for i, c in enumerate(containers if containers is not UNKNOWN else [UNKNOWN]):
            own = UNKNOWN if c is UNKNOWN else read(c, "securityContext", field)
            out.append((f"{key}[{i}]", _id(own if own is not None else pod_value)))
    return out


def _groups(spec: Any) -> list[tuple[str, Any]]:
    out = [("fsGroup", _id(read(spec, "securityContext", "fsGroup")))]
    groups = elements(read(spec, "securityContext", "supplementalGroups"))
    out += [("supplementalGroups", UNKNOWN)] if groups is UNKNOWN else [
        (f"supplementalGroups[{i}]", _id(g)) for i, g in enumerate(groups or [])]
    return out


def spec_problems(spec: Any, home: str, claims: dict, foreign: set) -> list[str]:
    """Why a pod spec in tenant namespace ``home`` may touch another tenant's data (see the module docstring)."""
    if spec is UNKNOWN or spec is None:
        return []  # an unknown pod spec is refused by the pod rules
    found = []
    ids = [(f"{w} runAsUser", v) for w, v in _effective(spec, "runAsUser")]
    ids += [(f"{w} runAsGroup", v) for w, v in _effective(spec, "runAsGroup")] + _groups(spec)
    found += [f"{where} is {value}, an ID another tenant owns its shared data as" for where, value in ids
              if value is not None and value is not UNKNOWN and value in foreign]
    volumes = elements(read(spec, "volumes"))
    if volumes is UNKNOWN:
        return found + ["its volumes are unknown during preview"]
    for v in volumes or []:
        claim = read(v, "persistentVolumeClaim", "claimName")
        if claim is None:
            continue
        if claim is UNKNOWN or v is UNKNOWN:
            found.append("mounts a claim whose name is unknown during preview")
            continue
        owner, storage_class = claims.get((home, claim), (None, None))
        if owner is not None:
            uid, gid = owner
            users = _mounting(spec, read(v, "name"))
            found += [f"{w} is {'unset (the image user)' if val is None else val}, not {uid}, the UID that owns "
                      f"claim {claim!r}" for w, val in ids if w.endswith("runAsUser") and val != uid
                      and w.split(" ")[0] in users]
            found += [f"{w} is {'unset (the image group)' if val is None else val}, not {gid}, the GID that owns "
                      f"claim {claim!r}" for w, val in ids if w.endswith("runAsGroup") and val != gid
                      and w.split(" ")[0] in users]
            found += [f"{w} is {val}, not {gid}, the GID that owns claim {claim!r}" for w, val in ids
                      if not w.endswith(("runAsUser", "runAsGroup")) and val is not None and val != gid]
        elif (home, claim) in claims and storage_class == "":
            found += _whole_mounts(spec, read(v, "name"), claim)
    return found


def _mounting(spec: Any, volume: Any) -> set:
    """Names (``containers[i]``) of the containers that mount ``volume`` (an unknown container or mount counts)."""
    out = set()
    for key in _CONTAINERS:
        containers = elements(read(spec, key))
        for i, c in enumerate(containers if containers is not UNKNOWN else [UNKNOWN]):
            mounts = UNKNOWN if c is UNKNOWN else elements(read(c, "volumeMounts"))
            if mounts is UNKNOWN or any(m is UNKNOWN or read(m, "name") in (volume, UNKNOWN) for m in mounts or []):
                out.add(f"{key}[{i}]")
    return out


def _whole_mounts(spec: Any, volume: Any, claim: str) -> list[str]:
    found = []
    for key in _CONTAINERS:
        containers = elements(read(spec, key))
        for i, c in enumerate(containers if containers is not UNKNOWN else [UNKNOWN]):
            mounts = UNKNOWN if c is UNKNOWN else elements(read(c, "volumeMounts"))
            for m in mounts if mounts is not UNKNOWN else [UNKNOWN]:
                if m is not UNKNOWN and read(m, "name") != volume:
                    continue
                sub = UNKNOWN if m is UNKNOWN else read(m, "subPath")
                if not (isinstance(sub, str) and sub.strip("/") and ".." not in sub.split("/")):
                    found.append(f"{key}[{i}] mounts static claim {claim!r}, whose owner (okerdma.io/uid) the "
                                 "stack does not say, whole: every tenant's directory is below it; mount its "
                                 "subPath, or annotate the claim with the tenant's IDs")
    return found


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``tenant-pods-run-as-their-storage-ids``: see the module docstring."""
    resources = with_derived(args.resources)
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    claims = _claims(resources)
    owners: dict[Any, set] = {}
    for (ns, _), (ids, _) in claims.items():
        if ids is not None:
            owners.setdefault(ns, set()).update(i for i in ids if i is not None and i is not UNKNOWN)
    for r in resources:
        home = _in_tenant(r, tenants)
        if home is None:
            continue
        foreign = set().union(*[v for ns, v in owners.items() if ns != home]) - owners.get(home, set())
        found = []
        for where, spec in pod_specs(r.resource_type, r.props):
            found += [f"{where + ': ' if where else ''}{p}" for p in spec_problems(spec, home, claims, foreign)]
        if found:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' in tenant namespace {home!r} "
                             f"{'; '.join(found)}: every tenant's volume mounts the whole export, so the owning "
                             "UID/GID is the only wall between tenants.", getattr(r, "urn", None))


POLICIES = [StackValidationPolicy(
    name=POLICY_NAME,
    description=("A tenant's pods run as the UID/GID its shared claim names, never as an ID another tenant owns "
                 "data as, and mount a static claim of unknown owner only through a subPath."),
    validate=validate, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
    remediation_steps=("Set securityContext.runAsUser/runAsGroup to the IDs on the tenant's claim (okerdma.io/uid, "
                       "okerdma.io/gid; stack output tenants.<t>); drop foreign fsGroup/supplementalGroups. Source: "
                       "docs/tenants.md; Kubernetes docs \"Configure a Security Context\"."),
    tags=["kubernetes", "tenancy", "storage"])]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: unknown claim annotations, IDs, volumes, claim names or mounts are violations",
}
