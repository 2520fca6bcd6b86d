"""Who reaches whom, read back from what the stack declares: the tenants' and the platform's namespaces (the
``Namespace`` objects and their labels) and the CiliumClusterwideNetworkPolicies, evaluated the way Cilium evaluates
them — not recomputed from the stack config — so a policy that does not say what the config meant shows up here.

For a source namespace and a destination namespace, a pod of the destination is reached by a pod of the source
unless a policy selecting the destination (``endpointSelector``) has an ``ingressDeny`` rule whose ``fromEndpoints``
(or ``fromEntities`` ``all``/``cluster``) matches the source ("denied": a deny wins over every allow), or puts the
destination in default-deny for ingress (``enableDefaultDeny.ingress``, true by default when the policy has ingress
or ingressDeny rules) with no ``ingress`` rule allowing the source ("denied (default)"). Without a Cilium release
in the stack nothing is enforced ("open"). A pod's endpoint labels are those Cilium derives: its namespace
(``io.kubernetes.pod.namespace``) and its namespace's labels (``io.cilium.k8s.namespace.labels.<key>``); selector
keys are compared without their source prefix (``k8s:``, ``any:``). Pod labels beyond these are not modelled: a
policy that selects by pod labels is reported as such ("depends on pod labels").

Sources (checked 2026-12-01): Cilium docs "Policy Language" (endpoint and namespace labels, ``matchExpressions``
operators, entities), "Deny Policies" (deny before allow) and the CiliumClusterwideNetworkPolicy CRD
(``enableDefaultDeny`` defaults).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

CCNP = "kubernetes:cilium.io/v2:CiliumClusterwideNetworkPolicy"
NAMESPACE = "kubernetes:core/v1:Namespace"
RELEASE = "kubernetes:helm.sh/v3:Release"
TENANT_LABEL = "okerdma.io/tenant"
NAMESPACE_KEY = "io.kubernetes.pod.namespace"
NAMESPACE_LABELS = "io.cilium.k8s.namespace.labels."
METADATA_ENDPOINT = "169.254.169.254"
DENIED, DEFAULT_DENIED, ALLOWED, OPEN, POD_LABELS = "denied", "denied (default)", "allowed", "open", \
    "depends on pod labels"
#: What pod policy cannot wall off, printed under the table.
NOT_COVERED = (
    "hostNetwork pods (RDMA training pods) are not Cilium endpoints: they use their node's address and identity, "
    "so no pod policy selects them or tells them apart from the node",
    "RoCE traffic goes NIC to NIC over the RDMA fabric, never through a pod's veth where Cilium enforces",
    "so RDMA tenants are kept apart by node pools (isolation: dedicated), not by these walls",
)


def _key(k: str) -> str:
    for source in ("k8s:", "any:"):
        if k.startswith(source):
            return k[len(source):]
    return k


def selector_matches(selector: Any, labels: dict[str, str]) -> Optional[bool]:
    """Whether a Cilium EndpointSelector (``matchLabels``/``matchExpressions``) matches ``labels``; None when it
    reads a label that is not a namespace label (a pod label this model does not know)."""
    if not isinstance(selector, dict):
        return None
    keys = [_key(k) for k in (selector.get("matchLabels") or {})]
    keys += [_key(e.get("key", "")) for e in selector.get("matchExpressions") or [] if isinstance(e, dict)]
    if any(k != NAMESPACE_KEY and not k.startswith(NAMESPACE_LABELS) for k in keys):
        return None
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(_key(k)) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        k, op, values = _key(e.get("key", "")), e.get("operator"), e.get("values") or []
        present = k in labels
        ok = {"In": present and labels[k] in values, "NotIn": not present or labels[k] not in values,
              "Exists": present, "DoesNotExist": not present}.get(op)
        if not ok:
            return False
    return True


def _rule_matches(rule: Any, labels: dict[str, str]) -> Optional[bool]:
    """Whether an ingress/ingressDeny rule's peers match a pod with ``labels`` (None: depends on pod labels)."""
    if not isinstance(rule, dict):
        return False
    if any(e in ("all", "cluster") for e in rule.get("fromEntities") or []):
        return True
    results = [selector_matches(s, labels) for s in rule.get("fromEndpoints") or []]
    if True in results:
        return True
    return None if None in results else False


@dataclass
class Reachability:
    """The table: ``tenants`` (tenant → namespace), ``platform`` (namespaces), ``cells`` ((source ns, destination
    ns) → verdict), ``engine`` (a Cilium release is declared), ``metadata`` (tenant → whether its pods' egress to
    the instance metadata endpoint is denied)."""

    tenants: dict[str, str] = field(default_factory=dict)
    platform: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], str] = field(default_factory=dict)
    engine: bool = False
    metadata: dict[str, bool] = field(default_factory=dict)


def verdict(policies: list[dict[str, Any]], source: dict[str, str], destination: dict[str, str]) -> str:
    """Whether a pod with ``source`` labels reaches a pod with ``destination`` labels under ``policies`` (specs)."""
    selecting = []
    unsure = False
    for spec in policies:
        chosen = selector_matches(spec.get("endpointSelector"), destination)
        unsure = unsure or chosen is None
        if chosen:
            selecting.append(spec)
    for spec in selecting:
        for rule in spec.get("ingressDeny") or []:
            hit = _rule_matches(rule, source)
            if hit:
                return DENIED
            unsure = unsure or hit is None
    default_deny = False
    for spec in selecting:
        explicit = (spec.get("enableDefaultDeny") or {}).get("ingress")
        has_rules = bool(spec.get("ingress") or spec.get("ingressDeny"))
        default_deny = default_deny or (explicit if explicit is not None else has_rules)
    if default_deny:
        allowed = [_rule_matches(r, source) for spec in selecting for r in spec.get("ingress") or []]
        if True not in allowed:
            return POD_LABELS if None in allowed or unsure else DEFAULT_DENIED
    return POD_LABELS if unsure else ALLOWED


def _metadata_denied(policies: list[dict[str, Any]], labels: dict[str, str]) -> bool:
    for spec in policies:
        if not selector_matches(spec.get("endpointSelector"), labels):
            continue
        for rule in spec.get("egressDeny") or []:
            cidrs = list(rule.get("toCIDR") or []) + [c.get("cidr") for c in rule.get("toCIDRSet") or []
                                                        if isinstance(c, dict)]
            if any(isinstance(c, str) and c.split("/")[0] == METADATA_ENDPOINT for c in cidrs):
                return True
    return False


def _labels(namespace: str, ns_labels: dict[str, str]) -> dict[str, str]:
    return {NAMESPACE_KEY: namespace, **{NAMESPACE_LABELS + k: v for k, v in ns_labels.items()}}


def reachability(resources: Iterable[Any]) -> Reachability:
    """The table of the declared ``resources`` (records with ``type`` and ``inputs``)."""
    resources = list(resources)
    namespaces: dict[str, dict[str, str]] = {}
    for r in resources:
        if r.type == NAMESPACE:
            meta = r.inputs.get("metadata") or {}
            if isinstance(meta.get("name"), str):
                namespaces[meta["name"]] = {k: v for k, v in (meta.get("labels") or {}).items() if isinstance(v, str)}
    tenants = {labels[TENANT_LABEL]: ns for ns, labels in namespaces.items() if TENANT_LABEL in labels}
    platform = sorted(ns for ns in namespaces if ns not in tenants.values())
    policies = [r.inputs.get("spec") or {} for r in resources if r.type == CCNP]
    engine = any(r.type == RELEASE and r.inputs.get("chart") == "cilium" for r in resources)
    out = Reachability(tenants=dict(sorted(tenants.items())), platform=platform, engine=engine)
    everyone = sorted(namespaces)
    for src in everyone:
        for dst in everyone:
            if src == dst:
                continue
            out.cells[(src, dst)] = (verdict(policies, _labels(src, namespaces[src]), _labels(dst, namespaces[dst]))
                                     if engine else OPEN)
    out.metadata = {t: engine and _metadata_denied(policies, _labels(ns, namespaces[ns]))
                    for t, ns in out.tenants.items()}
    return out


def _short(v: str) -> str:
    return {DEFAULT_DENIED: "denied*", POD_LABELS: "pod labels"}.get(v, v)


def reachability_lines(resources: Iterable[Any]) -> list[str]:
    """The ``--details`` section: tenant × tenant, platform → tenant, tenant → platform, the metadata endpoint, and
    what pod policy cannot stop."""
    t = reachability(resources)
    if not t.tenants:
        return []
    tenant_ns = list(t.tenants.values())
    names = {ns: name for name, ns in t.tenants.items()}
    head = "from \\ to"
    cols = [names[ns] for ns in tenant_ns] + ["platform"]
    rows = [names[ns] for ns in tenant_ns] + [f"{ns} (platform)" for ns in t.platform]
    w0 = max(len(head), *(len(r) for r in rows)) + 2
    w = max(12, *(len(c) + 2 for c in cols))
    source = "the declared CiliumClusterwideNetworkPolicies" if t.engine else \
        "no policy engine is declared (platform.cilium off): nothing is enforced"
    lines = ["", f"Reachability (pod → pod, read back from {source}):",
             "    " + head.ljust(w0) + "".join(c.ljust(w) for c in cols)]
    for src, label in zip(tenant_ns + t.platform, rows):
        cells = []
        for dst in tenant_ns:
            cells.append("-" if src == dst else _short(t.cells[(src, dst)]))
        to_platform = {t.cells[(src, p)] for p in t.platform if p != src}
        cells.append("-" if src in t.platform else (_short(to_platform.pop()) if len(to_platform) == 1 else
                                                    "mixed" if to_platform else "-"))
        lines.append("    " + label.ljust(w0) + "".join(c.ljust(w) for c in cells))
    lines.append("    kube-system (kube-dns): open to every pod by design")
    lines.append("    instance metadata (169.254.169.254) from tenant pods: " + ", ".join(
        f"{name} {'denied' if denied else 'open'}" for name, denied in t.metadata.items()))
    if any(v == DEFAULT_DENIED for v in t.cells.values()):
        lines.append("    denied*: no policy allows it and a policy selecting the destination denies by default")
    lines.append("    Not walled by pod policy:")
    lines += [f"      - {line}" for line in NOT_COVERED]
    return lines
