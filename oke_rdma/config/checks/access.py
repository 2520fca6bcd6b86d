"""Rules of ``tenants.<t>.members`` and ``cluster.oidc`` that read other keys: OIDC sign-in only on an enhanced
cluster (OKE docs "Authenticating Cluster Users using an External OpenID Connect (OIDC) Identity Provider", checked
2026-12-01), an ``oidcGroup`` member only with ``cluster.oidc``, and no group listed twice in one tenant."""

from __future__ import annotations

from .._base import _key
from ..stack import StackConfig


def check_access(cfg: StackConfig) -> list[str]:
    """One problem per rule broken, each naming its key path."""
    problems: list[str] = []
    oidc = cfg.cluster.oidc
    if oidc is not None and not cfg.cluster.is_enhanced:
        problems.append(f"{_key(('cluster', 'oidc'))}: OIDC token authentication needs an ENHANCED_CLUSTER (OKE "
                        "docs, Authenticating Cluster Users using an External OIDC Identity Provider); set "
                        "cluster.type: ENHANCED_CLUSTER or remove cluster.oidc")
    for tenant, t in cfg.tenants.items():
        seen: dict[tuple[str, str], int] = {}
        for i, m in enumerate(t.members):
            subject = ("iamGroupId", m.iam_group_id) if m.iam_group_id else ("oidcGroup", m.oidc_group or "")
            at = ("tenants", tenant, "members", i, subject[0])
            if subject[0] == "oidcGroup" and oidc is None:
                problems.append(f"{_key(at)}: an identity provider's group needs the cluster's OIDC sign-in; set "
                                "cluster.oidc (issuerUrl, clientId, usernamePrefix, groupsPrefix) or use iamGroupId")
            if subject in seen:
                problems.append(f"{_key(at)}: {subject[1]!r} is already members[{seen[subject]}] of this tenant; "
                                "give each group one role (the roles nest: admin includes developer includes viewer)")
            seen.setdefault(subject, i)
    return problems
