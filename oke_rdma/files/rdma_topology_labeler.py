"""Label this node with OCI's RDMA topology, read from the instance metadata service (IMDSv2).

Runs in the oke-rdma topology labeler DaemonSet (hostNetwork, so the metadata service answers for this host). Every
``INTERVAL`` seconds it reads ``/opc/v2/host/rdmaTopologyData`` and adds the ``oci.oraclecloud.com/rdma.*`` labels
the node lacks. It never overwrites a label that is already there (OKE sets them itself at boot when the data is
available), so it only fills gaps. Label values are the first 16 hex digits of the SHA-256 of the OCID (an OCID is
longer than the 63 characters a label value may hold); all nodes labelled by it agree on them.

Standard library only; needs ``get`` and ``patch`` on ``nodes`` and the env ``NODE_NAME`` (downward API).
Sources: oracle-quickstart/oci-hpc-oke, "Using RDMA Network Locality When Running Workloads on OKE" (the metadata
path and the label names); Kubernetes API "Node" (merge patch of metadata.labels).
"""
from __future__ import annotations

import hashlib
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

IMDS_URL = "http://169.254.169.254/opc/v2/host/rdmaTopologyData"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
#: rdmaTopologyData field → node label.
LABELS = {
    "customerHPCIslandId": "oci.oraclecloud.com/rdma.hpc_island_id",
    "customerNetworkBlock": "oci.oraclecloud.com/rdma.network_block_id",
    "customerLocalBlock": "oci.oraclecloud.com/rdma.local_block_id",
    "customerHostId": "oci.oraclecloud.com/rdma.host_id",
}
INTERVAL = int(os.environ.get("INTERVAL_SECONDS", "600"))


def label_value(ocid: str) -> str:
    """A label-safe, stable stand-in for an OCID."""
    return hashlib.sha256(ocid.encode()).hexdigest()[:16]


def missing_labels(current: dict, topology: dict) -> dict:
    """The labels to add: one per topology field present in ``topology`` whose label ``current`` lacks."""
    return {label: label_value(topology[field]) for field, label in LABELS.items()
            if topology.get(field) and label not in current}


def _imds() -> dict | None:
    request = urllib.request.Request(IMDS_URL, headers={"Authorization": "Bearer Oracle"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None  # no capacity topology for this host: nothing to label
        raise


def _api(method: str, path: str, body: dict | None = None) -> dict:
    host, port = os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"]
    with open(f"{SA_DIR}/token") as f:
        token = f.read().strip()
    request = urllib.request.Request(
        f"https://{host}:{port}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/merge-patch+json"})
    context = ssl.create_default_context(cafile=f"{SA_DIR}/ca.crt")
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        return json.load(response)


def reconcile(node_name: str) -> None:
    topology = _imds()
    if not topology:
        print(f"{node_name}: no rdmaTopologyData in the instance metadata; nothing to label", flush=True)
        return
    node = _api("GET", f"/api/v1/nodes/{node_name}")
    add = missing_labels(node["metadata"].get("labels") or {}, topology)
    if add:
        _api("PATCH", f"/api/v1/nodes/{node_name}", {"metadata": {"labels": add}})
    print(f"{node_name}: added {sorted(add) or 'nothing (already labelled)'}", flush=True)


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
