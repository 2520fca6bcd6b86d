"""A node pool whose Kubernetes version changes while its image stays: OKE refuses the update.

OKE worker images are built per Kubernetes version (image names carry it: ``Oracle-Linux-8.10-...-OKE-1.34.1-...``),
and ``UpdateNodePool`` with a ``kubernetesVersion`` that differs from the version of the pool's
``nodeSourceDetails.imageId`` fails with 409 "Kubernetes version does not match Kubernetes version of OKE worker node
image" (OKE docs "Upgrading Node Pools", "Supported Images"; checked 2026-12-01). The offline preview cannot read an
image's version, so a ``--previous`` plan that changes a pool's version (its own ``kubernetesVersion`` or, when it
follows the cluster, the cluster's) without changing its image gets one error naming the key to change and how to find
the image for the new version (``oci ce node-pool-options get``) and the other way out, pinning the pool's
``kubernetesVersion`` to upgrade the control plane first (docs/operations.md), in the report's Diagnostics; the preview exits 4
(the plan cannot be applied).
"""

from __future__ import annotations

from typing import Optional

from offline.replacement import Change

NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
#: The initial node label naming a pool's config key (``oke_rdma.compute``'s ``node_labels``).
POOL_LABEL = "okerdma.io/node-pool"


def _pool_key(name: str, inputs: dict) -> str:
    for label in inputs.get("initialNodeLabels") or []:
        if isinstance(label, dict) and label.get("key") == POOL_LABEL and isinstance(label.get("value"), str):
            return f"oke-rdma:nodePools.{label['value']}.imageId"
    return f"node pool {name}: nodeSourceDetails.imageId"


def image_version_warnings(changes: Optional[list[Change]], inputs_by_urn: dict[str, dict]) -> list[str]:
    """One warning per node pool updated to another Kubernetes version while its image id stays."""
    found: list[str] = []
    for c in changes or []:
        if c.type != NODE_POOL or c.op != "update" or "kubernetesVersion" not in c.changed:
            continue
        if any(p == "nodeSourceDetails.imageId" or p.startswith("nodeSourceDetails.imageId") or p == "nodeSourceDetails"
               for p in c.changed):
            continue
        inputs = inputs_by_urn.get(c.urn) or {}
        image = (inputs.get("nodeSourceDetails") or {}).get("imageId")
        if not isinstance(image, str) or not image:
            continue
        version = inputs.get("kubernetesVersion")
        key = _pool_key(c.name, inputs)
        pin = (key.removesuffix(".imageId").removeprefix("oke-rdma:") + ".kubernetesVersion"
               if key.endswith(".imageId") and key.startswith("oke-rdma:") else "the pool's kubernetesVersion")
        found.append(f"{key}: the pool moves to Kubernetes {version} but keeps image {image}; "
                     f"OKE images are built per Kubernetes version and the update fails (409 \"Kubernetes version does "
                     f"not match Kubernetes version of OKE worker node image\"): set the image for {version} (list "
                     f"them with `oci ce node-pool-options get --node-pool-option-id all --node-pool-k8s-version "
                     f"{version}`), or, to upgrade the control plane first, pin {pin} at the version the pool runs "
                     f"now (docs/operations.md, \"Kubernetes minor upgrade\", step 1)")
    return found
