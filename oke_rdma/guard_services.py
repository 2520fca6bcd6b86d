"""The guard's rule for the Services tenants create themselves: ``<prefix>-tenant-services``, the run-time twin of the
security pack's ``tenant-services-inside-the-wall`` and of ``no-public-endpoints`` for Services.

The packs judge the Services the stack declares; a tenant's members (and its CI) create Services with their own
credentials later, where no pack looks. In every namespace labelled ``okerdma.io/tenant``, on CREATE and UPDATE (a
Service's type, policy and annotations can change), a Service may not:

* set ``spec.externalIPs`` — every node then accepts traffic for addresses it does not own (Kubernetes docs
  "Service", "External IPs"; CVE-2020-8554);
* be a ``NodePort`` — every node forwards to the tenant's pods with the node's own identity, which the Cilium walls
  between tenants do not deny;
* be a ``LoadBalancer`` unless it is the one shape whose backends see the client's own address and that stays off
  the internet: no ``loadBalancerClass`` (another controller's data path), ``externalTrafficPolicy: Local``, OCI
  network load balancer (``oci.oraclecloud.com/load-balancer-type: nlb``), internal
  (``oci-network-load-balancer.oraclecloud.com/internal``) and keeping the source
  (``oci-network-load-balancer.oraclecloud.com/is-preserve-source``), both parsed as Go's ``strconv.ParseBool``
  true as the cloud controller parses them — the same conditions the packs hold (``policies/security/tenant_pods.py``,
  ``public_endpoints.py``);
* be an ``ExternalName`` naming something inside the cluster — an address, a single label, a name under ``.svc`` or
  ``.cluster.local``, or ``<name>.<namespace>`` for a namespace the platform knows — which carries the tenant's
  traffic into another namespace through the shared resolver.

Only standard CEL is used (``has``, ``in``, ``size``, ``matches`` with RE2 syntax), as in :mod:`oke_rdma.guard`.

Sources (checked 2026-12-02): Kubernetes docs "Service" (``type``, ``externalIPs``, ``externalTrafficPolicy``,
``loadBalancerClass``, ExternalName), "DNS for Services and Pods" (``<service>.<namespace>``, ``.svc.cluster.local``),
"Validating Admission Policy"; oracle/oci-cloud-controller-manager ``load_balancer_spec.go`` (the annotations
above; ``getPreserveSource``: only ``nlb`` with ``Local``); Go ``strconv.ParseBool`` (1, t, T, TRUE, true, True).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

API = "admissionregistration.k8s.io/v1"
LB_TYPE = "oci.oraclecloud.com/load-balancer-type"
NLB_INTERNAL = "oci-network-load-balancer.oraclecloud.com/internal"
PRESERVE_SOURCE = "oci-network-load-balancer.oraclecloud.com/is-preserve-source"
#: What Go's ``strconv.ParseBool`` reads as true (the cloud controller parses its boolean annotations with it).
PARSEBOOL_TRUE = ("1", "t", "T", "TRUE", "true", "True")
#: An ExternalName inside the cluster by its form: an IPv4 or IPv6 address, one label, or a cluster DNS suffix.
_INSIDE_BY_FORM = r"(?i)^([0-9.]+|.*:.*|[^.]+\.?|.*\.svc\.?|.*\.cluster\.local\.?)$"


def _true(key: str) -> str:
    """CEL: annotation ``key`` is present and ParseBool-true."""
    return (f"{json.dumps(key)} in variables.annotations && variables.annotations[{json.dumps(key)}] in "
            f"[{', '.join(json.dumps(v) for v in PARSEBOOL_TRUE)}]")


def service_variables() -> tuple[dict[str, str], ...]:
    """CEL variables: ``type`` (``ClusterIP`` when unset), ``annotations`` (empty when unset)."""
    return ({"name": "type", "expression": "has(object.spec.type) ? object.spec.type : 'ClusterIP'"},
            {"name": "annotations", "expression":
                "has(object.metadata.annotations) ? object.metadata.annotations : {}"})


def service_validations(namespaces: Iterable[str]) -> tuple[dict[str, str], ...]:
    """CEL validations of the tenant-services policy; ``namespaces``: every namespace the platform knows (a
    ``<name>.<namespace>`` ExternalName resolves inside the cluster for these)."""
    known = sorted({n.lower() for n in namespaces})
    by_namespace = r"(?i)^[^.]+\.(" + "|".join(re.escape(n) for n in known) + r")\.?$"
    lb = "variables.type != 'LoadBalancer' || "
    fix = (f"use ClusterIP, or an internal network load balancer that keeps the client's address ({LB_TYPE}: nlb, "
           f"{NLB_INTERNAL}: \"true\", {PRESERVE_SOURCE}: \"true\", externalTrafficPolicy: Local)")
    return (
        {"expression": "!has(object.spec.externalIPs) || size(object.spec.externalIPs) == 0",
         "message": "tenant Services may not set spec.externalIPs: every node would accept traffic for addresses it "
                    "does not own", "reason": "Forbidden"},
        {"expression": "variables.type != 'NodePort'",
         "message": f"tenant Services may not be NodePort: every node forwards to the pods with the node's identity, "
                    f"which the walls between tenants do not deny; {fix}", "reason": "Forbidden"},
        {"expression": lb + "!has(object.spec.loadBalancerClass) || object.spec.loadBalancerClass == ''",
         "message": f"tenant LoadBalancer Services may not name a loadBalancerClass (another controller's data path "
                    f"is not known); {fix}", "reason": "Forbidden"},
        {"expression": lb + "(has(object.spec.externalTrafficPolicy) && object.spec.externalTrafficPolicy == 'Local')",
         "message": f"tenant LoadBalancer Services need externalTrafficPolicy: Local (with Cluster every node forwards "
                    f"with its own identity); {fix}", "reason": "Forbidden"},
        {"expression": lb + f"({json.dumps(LB_TYPE)} in variables.annotations && "
                            f"variables.annotations[{json.dumps(LB_TYPE)}] == 'nlb')",
         "message": f"tenant LoadBalancer Services must be OCI network load balancers: the flexible load balancer is "
                    f"a proxy whose backend connections pass the walls between tenants; {fix}", "reason": "Forbidden"},
        {"expression": lb + _true(NLB_INTERNAL),
         "message": f"tenant LoadBalancer Services must be internal (no internet ingress); {fix}",
         "reason": "Forbidden"},
        {"expression": lb + _true(PRESERVE_SOURCE),
         "message": f"tenant LoadBalancer Services must keep the client's address, or every tenant's pods reach "
                    f"this one's through the load balancer; {fix}", "reason": "Forbidden"},
        {"expression": "variables.type != 'ExternalName' || !has(object.spec.externalName) || "
                       f"!(object.spec.externalName.matches('{_INSIDE_BY_FORM}') || "
                       f"object.spec.externalName.matches('{by_namespace}'))",
         "message": "tenant ExternalName Services may not name an address or a name inside the cluster: it carries "
                    "the tenant's traffic into another namespace; name a host outside the cluster",
         "reason": "Forbidden"},
    )


def service_policies(prefix: str, namespaces: Iterable[str]) -> list[dict[str, Any]]:
    """The tenant-services policy and its binding (every namespace labelled ``okerdma.io/tenant``), in the shape
    :func:`oke_rdma.guard.policies` returns; ``namespaces``: every namespace the platform knows."""
    labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
    name = f"{prefix}-tenant-services"
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
              "resources": ["services"]}]
    return [{"apiVersion": API, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name, "labels": labels},
             "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules},
                      "variables": [dict(v) for v in service_variables()],
                      "validations": [dict(v) for v in service_validations(namespaces)]}},
            {"apiVersion": API, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name,
                                                                                         "labels": labels},
             "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {"namespaceSelector": {
                 "matchExpressions": [{"key": "okerdma.io/tenant", "operator": "Exists"}]}}}}]
