"""The pod network's policy engine (an add-on with ``cni=True``: Cilium) turned on or off on a running cluster,
against the previous plan: what ``pulumi up`` leaves undone, and the step that finishes it.

Neither is visible to the program (it does not know the cluster ran before), so the offline preview says it with
``--previous``:

* **off**: ``helm uninstall`` removes the agent but not ``/etc/cni/net.d/05-cilium.conflist``, which it wrote on
  every node; the file sorts before OKE's ``10-oci.conflist``, so the kubelet keeps calling ``cilium-cni``, which
  cannot reach its agent, and every new pod stays in ContainerCreating (running pods are not affected). The chart's
  ``cni.uninstall: true`` would delete the file on *every* agent shutdown (upgrades and restarts included), leaving
  pods started meanwhile outside the walls, so the platform does not set it.
* **on**: pods already running keep OKE's CNI alone: no policy applies to them until they are restarted.

Sources (checked 2026-12-02): Cilium docs, OKE VCN-native chaining guide ("Uninstall", "Restart existing pods",
Documentation/installation/cni-chaining-oracle-oke.rst, cilium/cilium#46116); cilium chart 1.20.0 values.yaml
(``cni.uninstall``: "Remove the CNI configuration and binary files on agent shutdown", default false).
"""

from __future__ import annotations

from typing import Any, Optional

from oke_rdma.addons import REGISTRY

RELEASE = "kubernetes:helm.sh/v3:Release"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
CONFLIST = "/etc/cni/net.d/05-cilium.conflist"


def cni_changes(run: Any, previous: Optional[dict]) -> list[str]:
    """Warnings (one line each) for a CNI add-on release deleted or created against ``previous`` while the cluster
    had nodes (a node pool in ``previous`` that is not replaced); nothing without ``previous``."""
    if previous is None or run.changes is None:
        return []
    old = {r.get("urn"): r for r in previous.get("resources", []) if isinstance(r, dict)}
    new = {r.urn: r for r in run.resources}
    addons = {a.release_name: a for a in REGISTRY if a.cni}
    replaced = {c.urn for c in run.changes if c.op in ("replace", "delete")}
    running = any(r.get("type") == NODE_POOL and urn not in replaced for urn, r in old.items())
    warnings = []
    for change in run.changes:
        if change.type != RELEASE or change.op not in ("create", "delete") or not running:
            continue
        inputs = (old.get(change.urn) or {}).get("inputs") or {} if change.op == "delete" else new[change.urn].inputs
        addon = addons.get(inputs.get("name"))
        if addon is None:
            continue
        if change.op == "delete":
            warnings.append(
                f"oke-rdma:platform.{addon.key}.enabled: turning {addon.chart} off on a running cluster leaves "
                f"{CONFLIST} on every node: the kubelet keeps calling cilium-cni, whose agent is gone, and every new "
                f"pod stays in ContainerCreating; after pulumi up, delete that file on every node or cycle the node "
                f"pools (docs/operations.md, \"Turning Cilium off\")")
        else:
            warnings.append(
                f"oke-rdma:platform.{addon.key}.enabled: turning {addon.chart} on for a running cluster leaves the "
                f"pods already running outside the walls (no policy applies to a pod until it is restarted); after "
                f"pulumi up, restart every pod that has no CiliumEndpoint (docs/operations.md, \"Turning Cilium on\")")
    return warnings
