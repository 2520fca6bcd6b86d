"""Cilium: the network-policy engine of the platform, chained onto OKE's VCN-native pod networking.

OKE's VCN-native CNI (``oci-ipvlan`` + ``oci-ptp``) gives pods VCN addresses and enforces no NetworkPolicy at all.
Cilium runs as the last plugin of OKE's own CNI chain (generic-veth chaining: ``cni.chainingMode: generic-veth`` and
``cni.chainingTarget: oci``, the name of OKE's conflist, which the agent finds and extends on every node) and attaches
its eBPF programs to each pod's veth: OCI keeps addressing and routing, Cilium enforces policy. So:

* ``routingMode: native``: pod addresses are VCN addresses, routed by the VCN (no tunnel);
* ``enableIPv4Masquerade: false``: OCI routes pod traffic itself, nothing is rewritten;
* ``kubeProxyReplacement: "false"``: OKE runs and manages kube-proxy; chaining keeps it;
* ``cni.exclusive: false``: Cilium must not rename OKE's CNI configuration (the ``vcn-native-ip-cni`` DaemonSet owns
  it);
* ``ipam.mode: cluster-pool`` with ``ipam.operator.clusterPoolIPv4PodCIDRList: [100.64.0.0/16]``: OCI's IPAM assigns
  every pod address; Cilium's pool only numbers its own host interface (RFC 6598 space, which a VCN may not use:
  the config check refuses a VCN, subnet or services CIDR overlapping it);
* ``l7Proxy: false`` and ``envoy.enabled: false``: Layer 7 policy is limited under chaining (Cilium docs "CNI
  chaining" limitations, cilium/cilium#12454); the platform's policies are Layer 3/4 only, so no Envoy proxy runs.

Image references stay pinned by digest (the chart's default ``useDigest: true``; a user value turning it off is
refused). Pods started before Cilium are not enforced until restarted (Cilium docs, "Restart existing pods"): every
other release of the platform waits for this one (:attr:`AddOn.cni`). Namespace Pod Security ``privileged``: the
agent runs privileged with hostNetwork and mounts the host's BPF filesystem and CNI directories.

Sources (checked 2026-12-01): Cilium docs "Oracle Kubernetes Engine (OKE) VCN-Native Pod Networking"
(Documentation/installation/cni-chaining-oracle-oke.rst, added by cilium/cilium#46116, validated on OKE 2026-07-23;
feature request cilium/cilium#46107), "Generic Veth Chaining" (``cni.chainingTarget`` since 1.14.0,
cilium/cilium#27579) and "CNI chaining" limitations (cni-chaining-limitations.rst); the cilium chart 1.20.0
(helm.cilium.io ``cilium-1.20.0.tgz``, cilium/charts@d5f3d1cc, built from cilium/cilium@450c5314): values.yaml and
values.schema.json (every value set here exists there with that type: tests/addons/test_cilium.py).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from pydantic import Field

from oke_rdma.addons._registry import PRIVILEGED, AddOn, HelmRelease, ValuesContext
from oke_rdma.schema import _key

#: The name of OKE's VCN-native CNI conflist, which Cilium extends (Cilium docs, OKE chaining guide).
OKE_CNI_NETWORK = "oci"
#: Cilium's own cluster-pool range under chaining: RFC 6598 shared address space, never a pod's address (OCI's IPAM
#: assigns those); the OKE chaining guide's value.
CILIUM_POOL_CIDR = "100.64.0.0/16"
#: The startup taint every node registers with while Cilium is on (``oke_rdma.node_init``: kubelet
#: ``--register-with-taints``): no pod without a matching toleration is scheduled or runs on the node until Cilium's
#: agent there is ready and the taint is removed (by cilium-operator, ``operator.removeNodeTaints``, chart default
#: true), so no tenant pod starts unmanaged by Cilium, outside the walls. NoExecute is Cilium's recommended effect:
#: a pod already bound to a re-registered node does not run either. The agent's DaemonSet tolerates every taint
#: (chart 1.20.0 values.yaml ``tolerations``); the operator's defaults do not include it: :data:`OPERATOR_TOLERATIONS`
#: adds it. Sources (checked 2026-12-02): Cilium docs "Considerations on Node Pool Taints and
#: Unmanaged Pods" (Documentation/installation/taints.rst), cilium/cilium#37477 and #29405 (pods on a node before the
#: agent is ready stay unmanaged), the OKE chaining guide's "Restart existing pods" (cilium/cilium#46116).
AGENT_NOT_READY_TAINT = "node.cilium.io/agent-not-ready=true:NoExecute"
TAINT_KEY = AGENT_NOT_READY_TAINT.split("=")[0]
#: cilium-operator's tolerations: the chart's defaults (1.20.0 values.yaml ``operator.tolerations``: control-plane,
#: master, not-ready, uninitialized) plus the agent-not-ready taint. The operator removes that taint from a node once
#: its agent is ready; without the toleration it cannot run while every node still carries it (a new cluster, whose
#: nodes all register with it), and no node would ever lose it. The agent tolerates every taint (chart default
#: ``tolerations: [{operator: Exists}]``).
OPERATOR_TOLERATIONS = [{"key": k, "operator": "Exists"} for k in (
    "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master", "node.kubernetes.io/not-ready",
    "node.cloudprovider.kubernetes.io/uninitialized", TAINT_KEY)]
#: The API group of Cilium's CRDs (registered by cilium-operator at start, not by the chart's templates).
CRD_GROUP = "cilium.io"

#: Values oke-rdma sets that a user's ``values`` may not change: path → (required value, why).
PINNED: dict[tuple[str, ...], tuple[Any, str]] = {
    ("cni", "chainingMode"): ("generic-veth", "Cilium must chain onto OKE's VCN-native CNI (it owns pod addresses)"),
    ("cni", "chainingTarget"): (OKE_CNI_NETWORK, "the conflist Cilium extends is OKE's, named 'oci'"),
    ("cni", "exclusive"): (False, "Cilium would rename OKE's CNI configuration and break pod networking"),
    ("routingMode",): ("native", "pod addresses are VCN addresses routed by the VCN; a tunnel would bypass it"),
    ("enableIPv4Masquerade",): (False, "OCI routes pod traffic; masquerading hides the pod's address from the NSGs"),
    ("kubeProxyReplacement",): ("false", "OKE manages kube-proxy; chaining keeps it"),
    ("policyEnforcementMode",): ("default", "'never' turns every policy off, 'always' drops all traffic no policy "
                                            "allows (DNS, probes, the platform's own)"),
    ("image", "useDigest"): (True, "images stay pinned by digest"),
    ("operator", "image", "useDigest"): (True, "images stay pinned by digest"),
}


class CiliumRelease(HelmRelease):
    """Cilium network-policy engine chained onto OKE's VCN-native CNI, default 1.20.0 in ``cilium``."""

    # renovate: datasource=helm depName=cilium registryUrl=https://helm.cilium.io
    version: str = Field("1.20.0", description="Exact Cilium chart version.")
    namespace: str = Field("cilium", description="Namespace of Cilium.")


def values(cfg: CiliumRelease, context: ValuesContext) -> dict[str, Any]:
    """Generic-veth chaining onto OKE's ``oci`` conflist, native routing, no masquerading, kube-proxy kept, no L7
    proxy, images by digest, the operator tolerating the agent-not-ready taint (:data:`OPERATOR_TOLERATIONS`). Metrics stay at the chart's default (off): Cilium installs before every other release,
    kube-prometheus-stack's ServiceMonitor CRD included."""
    return {
        "cni": {"chainingMode": "generic-veth", "chainingTarget": OKE_CNI_NETWORK, "exclusive": False},
        "routingMode": "native",
        "enableIPv4Masquerade": False,
        "kubeProxyReplacement": "false",
        "ipam": {"mode": "cluster-pool", "operator": {"clusterPoolIPv4PodCIDRList": [CILIUM_POOL_CIDR]}},
        "policyEnforcementMode": "default",
        "l7Proxy": False,
        "envoy": {"enabled": False},
        "image": {"useDigest": True},
        "operator": {"image": {"useDigest": True}, "tolerations": OPERATOR_TOLERATIONS},
    }


def _get(values: dict[str, Any], path: tuple[str, ...]) -> tuple[bool, Any]:
    cur: Any = values
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return False, None
        cur = cur[p]
    return True, cur


def checks(cfg: CiliumRelease, at: tuple[str, ...]) -> list[str]:
    """A user's ``values`` may not move what chaining on OKE needs (:data:`PINNED`): each change is one line naming
    the value path, why, and the value to keep; a Cilium pool range other than ``100.64.0.0/16`` is refused too
    (the config check against the VCN reads :data:`CILIUM_POOL_CIDR`)."""
    problems = []
    for path, (required, why) in PINNED.items():
        found, value = _get(cfg.values, path)
        if found and (value != required or type(value) is not type(required)):
            problems.append(f"{_key(at + ('values', *path))}: must stay {required!r} ({why}); remove it")
    found, pools = _get(cfg.values, ("ipam", "operator", "clusterPoolIPv4PodCIDRList"))
    if found and pools != [CILIUM_POOL_CIDR]:
        problems.append(f"{_key(at + ('values', 'ipam', 'operator', 'clusterPoolIPv4PodCIDRList'))}: must stay "
                        f"[{CILIUM_POOL_CIDR}] (OCI assigns pod addresses; this range only numbers Cilium's host "
                        f"interface and is checked against the VCN); remove it")
    for path in (("tolerations",), ("operator", "tolerations")):  # who must run on a node before its taint is gone
        found, tolerations = _get(cfg.values, path)
        if found and not tolerates(tolerations, AGENT_NOT_READY_TAINT):
            problems.append(f"{_key(at + ('values', *path))}: must tolerate {AGENT_NOT_READY_TAINT} (every node "
                            f"registers with it and only a running Cilium removes it: without it no node ever "
                            f"becomes usable); add {{key: {TAINT_KEY}, operator: Exists}} or remove the value")
    found, mode = _get(cfg.values, ("ipam", "mode"))
    if found and mode != "cluster-pool":
        problems.append(f"{_key(at + ('values', 'ipam', 'mode'))}: must stay 'cluster-pool' (OCI's IPAM assigns pod "
                        f"addresses under chaining); remove it")
    return problems


def tolerates(tolerations: Any, taint: str) -> bool:
    """True when the Kubernetes ``tolerations`` list (as given in Helm values) tolerates ``taint``
    (``key=value:Effect``): an entry with ``operator: Exists`` and no key (every taint), or with the taint's key and
    either ``operator: Exists`` or ``Equal`` to its value; and an effect that is empty (every effect) or the taint's.
    False for anything that is not such a list (Kubernetes API reference, Toleration; checked 2026-12-02)."""
    key_value, _, effect = taint.rpartition(":")
    key, _, value = key_value.partition("=")
    if not isinstance(tolerations, list):
        return False
    for t in tolerations:
        if not isinstance(t, dict) or t.get("effect") not in (None, "", effect):
            continue
        operator = t.get("operator") or "Equal"
        if operator == "Exists" and t.get("key") in (None, "", key):
            return True
        if operator == "Equal" and t.get("key") == key and str(t.get("value", "")) == value:
            return True
    return False


def overlaps_pool(cidr: str) -> bool:
    """True when ``cidr`` (IPv4 CIDR text) overlaps :data:`CILIUM_POOL_CIDR`; False for anything unparsable."""
    try:
        return ipaddress.ip_network(cidr, strict=False).overlaps(ipaddress.ip_network(CILIUM_POOL_CIDR))
    except (ValueError, TypeError):
        return False


ADDON = AddOn(
    key="cilium",
    release_name="cilium",
    chart="cilium",
    repository="https://helm.cilium.io",
    config=CiliumRelease,
    pod_security=PRIVILEGED,
    values=values,
    checks=checks,
    crds=(CRD_GROUP,),
    cni=True,
    value_shapes=(
        (("cni",), "map"), (("ipam",), "map"), (("ipam", "operator"), "map"), (("envoy",), "map"),
        (("envoy", "enabled"), "bool"), (("l7Proxy",), "bool"), (("image",), "map"), (("operator",), "map"),
        (("operator", "image"), "map"),
    ),
    source="Cilium docs, OKE VCN-Native Pod Networking chaining guide (cilium/cilium#46116); cilium chart 1.20.0 "
           "values.yaml and values.schema.json; checked 2026-12-01",
)
