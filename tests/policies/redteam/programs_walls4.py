"""Red-team programs (pass 4, the UID wall on shared storage and tenant isolation through Kueue): a claim template
naming a volume; a pod lowering the privileged-port floor; an export or a Lustre file system leaving root unsquashed
for the pods; GPU pods outside every quota; ClusterQueues that hand a dedicated pool to other namespaces. Registered
in ``programs.CASES`` on import; each control differs only in what makes the input unsafe."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case
from tests.policies.redteam.programs_tenants import VOLUMES, restricted, tenant


@case("data", VOLUMES)
def ephemeral_claim_template_names_a_volume(bad):
    """A generic ephemeral volume's claim template names a PersistentVolume nobody reserved for the tenant."""
    tenant("analytics")
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "oci-bv" if not bad else "",
            "resources": {"requests": {"storage": "1Gi"}}, **({"volumeName": "oke-rdma-prepare"} if bad else {})}
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "containers": [restricted()], "volumes": [{"name": "d", "ephemeral": {"volumeClaimTemplate": {"spec": spec}}}]})
