"""Kueue: job queueing with topology-aware scheduling over OCI's RDMA network tiers.

An OCI chart (``oci://registry.k8s.io/kueue/charts/kueue``: no repository). Kueue objects (Topology,
ResourceFlavor, ClusterQueue, LocalQueue; ``oke_rdma.scheduling``) must wait for this release (it installs the
``kueue.x-k8s.io`` CRDs). With kube-prometheus-stack, its metrics ``ServiceMonitor`` is on and the release waits for
kube-prometheus-stack (the CRD). Namespace Pod Security ``restricted``. The optional RDMA topology labeler
(``topologyLabeler``) gets its own ``privileged`` namespace (hostNetwork, to read the host's instance metadata).

Sources: Kueue docs "Installation" (Helm OCI chart), "Topology Aware Scheduling" (the lowest level must be
``kubernetes.io/hostname``; every level's label must be on the nodes); kueue chart 0.18.2 values.yaml
(``enablePrometheus``); oracle-quickstart/oci-hpc-oke "Using RDMA Network Locality When Running Workloads on OKE"
(the ``oci.oraclecloud.com/rdma.*`` labels); Kubernetes docs "Labels and Selectors" (label keys) — checked
2026-11-30.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator

from oke_rdma.addons._registry import PRIVILEGED, RESTRICTED, AddOn, ExtraNamespace, HelmRelease, ValuesContext
from oke_rdma.schema import StrList, _k8s_name, _Model

HOSTNAME_LABEL = "kubernetes.io/hostname"
#: OCI's RDMA network tiers, coarse to fine, as OKE labels nodes (oci-hpc-oke, "Using RDMA Network Locality").
RDMA_TOPOLOGY_LEVELS = (
    "oci.oraclecloud.com/rdma.hpc_island_id",
    "oci.oraclecloud.com/rdma.network_block_id",
    "oci.oraclecloud.com/rdma.local_block_id",
    HOSTNAME_LABEL,
)
_LABEL_KEY_RE = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                           r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_IMAGE_RE = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[a-f0-9]{64})$")


class TopologyLabeler(_Model):
    """The optional DaemonSet that labels RDMA nodes from the instance metadata's ``rdmaTopologyData``.

    ``image``: a pinned Python image (tag or digest, never ``latest``); ``namespace``: its own namespace (Pod
    Security ``privileged``: it uses hostNetwork to reach the node's instance metadata).
    """

    enabled: bool = Field(False, description="Run the RDMA topology labeler DaemonSet (docs/scheduling.md).")
    image: str = Field("docker.io/library/python:3.12.10-slim-bookworm", description=(
        "The labeler's image, pinned by tag or digest."))
    namespace: str = Field("oke-rdma-topology", description=(
        "The labeler's namespace (Pod Security `privileged`: hostNetwork)."))

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))

    @field_validator("image")
    @classmethod
    def _pinned(cls, v: str) -> str:
        if not _IMAGE_RE.match(v) or v.endswith(":latest"):
            raise ValueError(f"must be a fully qualified image pinned by tag or digest "
                             f"(registry/repository:tag, not latest), got {v!r}")
        return v


class KueueRelease(HelmRelease):
    """Kueue, default 0.18.2 in ``kueue-system``.

    ``topologyLevels``: the node labels of the Kueue ``Topology``, coarse to fine; default OCI's RDMA tiers then
    ``kubernetes.io/hostname`` (which must be the lowest level). ``topologyLabeler``: see :class:`TopologyLabeler`.
    """

    version: str = Field("0.18.2", description="Exact Kueue chart version.")
    namespace: str = Field("kueue-system", description="Namespace of Kueue.")
    topology_levels: StrList = Field(RDMA_TOPOLOGY_LEVELS, description=(
        "Node labels of the Kueue Topology, coarse to fine; must end with `kubernetes.io/hostname`."))
    topology_labeler: TopologyLabeler = Field(TopologyLabeler(), description=(
        "The RDMA topology labeler, for nodes OKE did not label."))

    @field_validator("topology_levels")
    @classmethod
    def _levels(cls, v: StrList) -> StrList:
        bad = [level for level in v if not _LABEL_KEY_RE.match(level)]
        if bad:
            raise ValueError(f"must be Kubernetes label keys, got {bad}")
        if len(set(v)) != len(v):
            raise ValueError("lists a label twice; each level is a different node label")
        if not v or v[-1] != HOSTNAME_LABEL:
            fix = (f"move {HOSTNAME_LABEL} to the last level" if HOSTNAME_LABEL in v else f"append {HOSTNAME_LABEL}")
            raise ValueError(f"must end with {HOSTNAME_LABEL} (Kueue requires the hostname as the last, finest level), "
                             f"got {list(v)}; {fix}")
        return v


def values(cfg: KueueRelease, context: ValuesContext) -> dict[str, Any]:
    """Kueue's metrics ServiceMonitor only with kube-prometheus-stack (its CRD)."""
    return {"enablePrometheus": "kubePrometheusStack" in context.enabled}


def extra_namespaces(cfg: KueueRelease) -> list[ExtraNamespace]:
    """The topology labeler's namespace (privileged: hostNetwork), when the labeler is enabled."""
    labeler = cfg.topology_labeler
    return [ExtraNamespace(("topologyLabeler", "namespace"), labeler.namespace, PRIVILEGED)] if labeler.enabled else []


ADDON = AddOn(
    key="kueue",
    release_name="kueue",
    chart="oci://registry.k8s.io/kueue/charts/kueue",
    repository=None,
    config=KueueRelease,
    pod_security=RESTRICTED,
    values=values,
    after=("kubePrometheusStack",),  # its metrics ServiceMonitor needs the monitoring.coreos.com CRD
    crds=("kueue.x-k8s.io",),
    value_shapes=((("enablePrometheus",), "bool"),),
    extra_namespaces=extra_namespaces,
    source="Kueue docs, Installation and Topology Aware Scheduling; kueue chart 0.18.2; checked 2026-11-30",
)
