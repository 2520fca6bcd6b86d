"""Cordon this node when node-problem-detector reports a GPU that needs a reset (node condition GpuXidCritical).

Runs beside node-problem-detector in the GPU-health DaemonSet (one per GPU node). Every ``INTERVAL`` seconds it reads
its own Node; when the condition ``GpuXidCritical`` is ``True`` and the node is still schedulable, it cordons it
(``spec.unschedulable: true``, what ``kubectl cordon`` does) and records why in the annotation
``okerdma.io/cordoned-by``. The scheduler places no new pod on a cordoned node and Kueue's topology-aware scheduling
leaves it out; running pods keep running until an operator drains the node (docs/monitoring.md, "Repair"). It never
uncordons: that is the operator's decision after the repair.

Standard library only; needs ``get`` and ``patch`` on ``nodes`` and the env ``NODE_NAME`` (downward API).
Sources: Kubernetes API "Node" (``spec.unschedulable``; merge patch), ``kubectl cordon``; kubernetes/node-problem-
detector (conditions in ``status.conditions``).
"""
from __future__ import annotations

import json
import os
import ssl
import sys
import time
import urllib.request
from typing import Callable, Optional

SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
CONDITION = "GpuXidCritical"
ANNOTATION = "okerdma.io/cordoned-by"
INTERVAL = int(os.environ.get("INTERVAL_SECONDS", "30"))

Api = Callable[[str, str, Optional[dict]], dict]


def cordon_reason(node: dict) -> Optional[str]:
    """Why ``node`` (a Node object) must be cordoned now: its GpuXidCritical condition's reason and message; None
    when the condition is not True or the node is already unschedulable."""
    if (node.get("spec") or {}).get("unschedulable"):
        return None
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == CONDITION and condition.get("status") == "True":
            return f"gpu-health: {condition.get('reason', CONDITION)}: {condition.get('message', '')}".strip()[:250]
    return None


def cordon_patch(reason: str) -> dict:
    """The merge patch that cordons a node and records ``reason``."""
    return {"spec": {"unschedulable": True}, "metadata": {"annotations": {ANNOTATION: reason}}}


def _api(method: str, path: str, body: Optional[dict] = None) -> dict:
    host, port = os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"]
    with open(f"{SA_DIR}/token") as f:
        token = f.read().strip()
    request = urllib.request.Request(
        f"https://{host}:{port}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/merge-patch+json"})
    context = ssl.create_default_context(cafile=f"{SA_DIR}/ca.crt")
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        return json.load(response)


def reconcile(node_name: str, api: Api = _api) -> Optional[str]:
    """Cordon ``node_name`` if :func:`cordon_reason` says so; returns the reason (None: nothing done)."""
    node = api("GET", f"/api/v1/nodes/{node_name}", None)
    reason = cordon_reason(node)
    if reason:
        api("PATCH", f"/api/v1/nodes/{node_name}", cordon_patch(reason))
        print(f"{node_name}: cordoned ({reason})", flush=True)
    return reason


def main() -> None:
    node_name = os.environ["NODE_NAME"]
    while True:
        try:
            reconcile(node_name)
        except Exception as e:  # keep running: the next round retries
            print(f"{node_name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        time.sleep(INTERVAL)


if __name__ == "__main__":
    main()
