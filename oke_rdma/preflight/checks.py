"""The pre-flight's checks: each asks OCI one question about the stack and records a :class:`Finding`.

A problem is ``<config key path>: <what OCI answered>; <fix>``; a note says what could not be checked and why.
OCI API sources: Identity ``ListAvailabilityDomains``, Core ``ListShapes``/``GetImage``/
``ListImageShapeCompatibilityEntries``/``GetComputeCluster``/``ListComputeClusters``, Limits
``ListLimitDefinitions``/``GetResourceAvailability`` (``available`` already takes compartment quotas into account
when asked for the stack's compartment), Container Engine ``GetClusterOptions``/``GetNodePoolOptions``/
``ListClusters`` (OCI API reference, oci 2.189.0; checked 2026-11-30).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..config._base import _key
from ..config.checks.storage import lustre_client_pools
from ..facts import shapes
from ..facts.storage import FSS_LIMIT_SERVICE, FSS_MOUNT_TARGET_LIMIT
from .base import Finding, Unreachable
from .compute_checks import ComputeChecks

__all__ = ["Finding", "Preflight", "Unreachable", "run_checks"]

if TYPE_CHECKING:
    from ..config import NodePool, StackConfig
    from .clients import OciClients

_OKE_IMAGE_VERSION_RE = re.compile(r"OKE-([0-9]+\.[0-9]+\.[0-9]+)")


def _is_gpu(shape: str) -> bool:
    known = shapes.SHAPES.get(shape)
    return known.gpus > 0 if known else ".GPU" in shape


class Preflight(ComputeChecks):
    """Runs every check for one stack against one tenancy; :attr:`findings` holds the results in order."""

    def run(self) -> list[Finding]:
        """Every check, in order; returns :attr:`findings`."""
        for check in (self.tenancy_and_compartment, self.availability_domains, self.shapes_offered,
                      self.shape_details, self.compute_cluster, self.limits,
                      self.versions_and_images, self.mount_target, self.access):
            check()
        return self.findings

    def availability_domains(self) -> None:
        found = self.call(("availabilityDomains",), "list the tenancy's availability domains",
                          "Allow group <deployer> to inspect tenancies in tenancy",
                          self.oci.identity.list_availability_domains, compartment_id=self.oci.tenancy_id)
        if found is None:
            return
        names = {ad.name for ad in found}
        self._tenancy_ads = names
        for i, ad in enumerate(self.cfg.availability_domains):
            if ad not in names:
                self.problem(("availabilityDomains", i), f"{ad!r} is not an availability domain of this tenancy in "
                                                         f"{self.cfg.region} (ListAvailabilityDomains: "
                                                         f"{', '.join(sorted(names))}); use those names")

    def versions_and_images(self) -> None:
        ce = self.oci.container_engine
        cluster = self.call(("cluster", "kubernetesVersion"), "read OKE's cluster options",
                            self._in("inspect", "clusters"), ce.get_cluster_options, "all",
                            compartment_id=self.cfg.compartment_id)
        version = self.cfg.cluster.kubernetes_version
        if cluster is not None and version not in (cluster.kubernetes_versions or []):
            self.problem(("cluster", "kubernetesVersion"), f"OKE in {self.cfg.region} does not offer {version} "
                                                           f"(GetClusterOptions: "
                                                           f"{', '.join(cluster.kubernetes_versions or [])}); use one "
                                                           f"of those")
        if cluster is not None:
            self._compare_version_table(cluster.kubernetes_versions or [])
        options = self.call(("nodePools",), "read OKE's node pool options", self._in("inspect", "clusters"),
                            ce.get_node_pool_options, "all", compartment_id=self.cfg.compartment_id)
        if options is None:
            return
        images = {s.image_id: s.source_name for s in (options.sources or []) if getattr(s, "image_id", None)}
        pools_on_cluster_version = [n for n, p in self.cfg.node_pools.items() if p.kubernetes_version is None]
        if pools_on_cluster_version and version not in (options.kubernetes_versions or []):
            self.problem(("cluster", "kubernetesVersion"), f"OKE does not offer {version} for node pools "
                                                           f"(GetNodePoolOptions: "
                                                           f"{', '.join(options.kubernetes_versions or [])}), and "
                                                           f"{', '.join(pools_on_cluster_version)} run the cluster's "
                                                           f"version; use one of those, or set the pools' "
                                                           f"kubernetesVersion")
        for name, pool in self.cfg.node_pools.items():
            pool_version = pool.kubernetes_version or version
            if pool.kubernetes_version and pool_version not in (options.kubernetes_versions or []):
                self.problem(("nodePools", name, "kubernetesVersion"),
                             f"OKE does not offer {pool_version} for node pools (GetNodePoolOptions: "
                             f"{', '.join(options.kubernetes_versions or [])}); use one of those")
            if pool.image_id in images:
                self._oke_image(name, pool, images[pool.image_id], pool_version)
            else:
                self._other_image(name, pool)

    def _compare_version_table(self, offered: list[str]) -> None:
        """A note when OKE's list differs from oke-rdma's dated table (``oke_rdma.facts.kubernetes.OKE_VERSIONS``): a
        version OKE offers that the table lacks, or one the table says is offered that OKE no longer lists (update the
        table: its ``last_seen``/``withdrawn`` dates)."""
        from oke_rdma.facts import kubernetes

        table = set(kubernetes.offered_versions())
        new, gone = sorted(set(offered) - table), sorted(table - set(offered))
        if new or gone:
            parts = ([f"offers {', '.join(new)}, which the table lacks"] if new else []) + \
                ([f"no longer offers {', '.join(gone)}, which the table lists as offered"] if gone else [])
            self.note(f"OKE in {self.cfg.region} {' and '.join(parts)} (GetClusterOptions against "
                      f"oke_rdma/facts/kubernetes.py, checked {kubernetes.CHECKED}); update OKE_VERSIONS "
                      f"(first_seen/last_seen/withdrawn) with today's date")

    def _oke_image(self, name: str, pool: NodePool, image: str, version: str) -> None:
        at = ("nodePools", name, "imageId")
        gpu_image, arm_image = "GPU" in image.upper(), "AARCH64" in image.upper()
        if _is_gpu(pool.shape) and not gpu_image:
            self.problem(at, f"{image} is not a GPU image, but {pool.shape} is a GPU shape; use an OKE GPU image "
                             f"(GetNodePoolOptions lists them with 'GPU' in the name)")
        elif gpu_image and not _is_gpu(pool.shape):
            self.problem(at, f"{image} is a GPU image, but {pool.shape} has no GPU; use an OKE image without 'GPU'")
        # Arm shapes (Ampere A1/A2, NVIDIA Grace in GB200/GB300) need aarch64 images (Compute Shapes; OKE images
        # docs); the architecture is the shape table's fact, never read from the name (VM.GPU.A10.2 is x86)
        arch = shapes.cpu_arch(pool.shape)
        if arch is None:
            self.note(f"the CPU architecture of {pool.shape} is not in oke_rdma/facts/shapes.py (CPU_ARCH), so "
                      f"whether {image} fits it (x86_64 or aarch64) was not checked; add the shape's row")
        elif (arch == shapes.ARM) != arm_image:
            want = "an aarch64 (Arm)" if arch == shapes.ARM else "an x86_64"
            self.problem(at, f"{image} does not match {pool.shape}'s CPU; use {want} OKE image")
        built = _OKE_IMAGE_VERSION_RE.search(image)
        if built and f"v{built.group(1)}" != version:
            self.problem(at, f"{image} is built for Kubernetes v{built.group(1)}, but the pool runs {version}; use "
                             f"the OKE image of {version}")
        if name in lustre_client_pools(self.cfg):
            # OKE's images carry no Lustre client (OKE docs "Provisioning PVCs on the File Storage with Lustre
            # Service": it must be installed) and their Oracle Linux boots UEK, for which no client packages exist
            # (oci-hpc/oke-lustre-client@1a6fbcf: OL8 nodes must be switched to RHCK); checked 2026-12-01.
            self.problem(at, f"{image} is an OKE platform image: it carries no Lustre client, and the node-init step "
                             f"of storage.lustre.client cannot install one on it (Oracle Linux on UEK; the packages "
                             f"need Oracle Linux 8 on RHCK or Ubuntu 22.04, x86_64), so its nodes would never mount "
                             f"Lustre; use an image that carries the client or one of those systems, or leave the "
                             f"pool out of storage.lustre.client.pools")

    def _other_image(self, name: str, pool: NodePool) -> None:
        at = ("nodePools", name, "imageId")
        image = self.call(at, "read the image", self._in("read", "instance-images"), self.oci.compute.get_image,
                          pool.image_id)
        if image is None:
            return
        entries = self.call(at, "list the image's compatible shapes", self._in("read", "instance-images"),
                            self.oci.compute.list_image_shape_compatibility_entries, pool.image_id, all_pages=True)
        if entries is not None and pool.shape not in {e.shape for e in entries}:
            self.problem(at, f"{image.display_name} does not list {pool.shape} among its compatible shapes "
                             f"(ListImageShapeCompatibilityEntries); use an image built for it")
        self.note(f"{_key(at)}: {image.display_name} is not an image OKE lists for node pools "
                  f"(GetNodePoolOptions); a custom image must be built from an OKE image of the pool's version, "
                  f"with the GPU driver for a GPU shape")

    def mount_target(self) -> None:
        fss = self.cfg.storage.fss
        if not fss.enabled:
            return
        from ..storage import fss_availability_domain

        ad = fss_availability_domain(self.cfg)
        if ad not in self._usable_ads((ad,)):
            return
        found = self.call(("storage", "fss"), "list the File Storage limits",
                          "Allow group <deployer> to inspect resource-availability in tenancy",
                          self.oci.limits.list_limit_definitions, self.oci.tenancy_id,
                          service_name=FSS_LIMIT_SERVICE, all_pages=True)
        if found is None:
            return
        names = {d.name for d in found}
        at = ("storage", "fss", "throughputGbps")
        if FSS_MOUNT_TARGET_LIMIT in names:
            available = self._available(at, FSS_LIMIT_SERVICE, FSS_MOUNT_TARGET_LIMIT, ad)
            if available is not None and available < 1:
                self.problem(("storage", "fss"), f"no mount target can be created in {ad}: limit "
                                                 f"{FSS_MOUNT_TARGET_LIMIT} has {available} available; ask for a "
                                                 f"limit increase or set storage.fss.enabled: false")
        else:
            self.note(f"{_key(('storage', 'fss'))}: the tenancy has no {FSS_LIMIT_SERVICE} limit named "
                      f"{FSS_MOUNT_TARGET_LIMIT}; the mount target count is not checked")
        if fss.throughput_gbps == 1:
            return
        tier = [d for d in found if str(fss.throughput_gbps) in d.name
                and ("perf" in d.name or "hpmt" in d.name or "high" in (d.description or "").lower())]
        if not tier:
            self.note(f"{_key(at)}: the tenancy lists no {fss.throughput_gbps} Gbps high-performance mount target "
                      f"limit (ListLimitDefinitions, service {FSS_LIMIT_SERVICE}); the tier is not checked")
        for d in tier:
            available = self._available(at, FSS_LIMIT_SERVICE, d.name, ad)
            if available is not None and available < 1:
                self.problem(at, f"no {fss.throughput_gbps} Gbps mount target is available in {ad} (limit "
                                 f"{d.name}: {available} available); use a lower tier or ask for a limit increase")

    def tenancy_and_compartment(self) -> None:
        """The credentials' tenancy is the stack's (``iam.tenancyId``), and the compartment is an ACTIVE one of it."""
        tenancy = self.cfg.iam.tenancy_id
        if tenancy is not None and tenancy != self.oci.tenancy_id:
            self.problem(("iam", "tenancyId"), f"the OCI credentials are for tenancy {self.oci.tenancy_id}, not "
                                               f"{tenancy}; use credentials of that tenancy, or fix the OCID")
        c = self.cfg.compartment_id
        if c.startswith("ocid1.tenancy."):
            if c != self.oci.tenancy_id:
                self.problem(("compartmentId",), f"{c} is a tenancy OCID, but not the credentials' tenancy "
                                                 f"{self.oci.tenancy_id}; use a compartment of that tenancy")
            return
        found = self.call(("compartmentId",), "read the compartment",
                          "Allow group <deployer> to inspect compartments in tenancy",
                          self.oci.identity.get_compartment, c)
        if found is not None and found.lifecycle_state != "ACTIVE":
            self.problem(("compartmentId",), f"the compartment is {found.lifecycle_state}, not ACTIVE; use an "
                                             f"ACTIVE compartment")

    def access(self) -> None:
        cfg, c = self.cfg, self.cfg.compartment_id
        self.call(("compartmentId",), "list the compartment's OKE clusters", self._in("manage", "cluster-family"),
                  self.oci.container_engine.list_clusters, c)
        self.call(("compartmentId",), "list the compartment's Compute Clusters",
                  self._in("manage", "compute-clusters"), self.oci.compute.list_compute_clusters, c)
        if cfg.iam.create_policies:
            self.call(("iam", "createPolicies"), "list the compartment's policies", self._in("manage", "policies"),
                      self.oci.identity.list_policies, c)
        self.note("the deployer's create permissions are checked only as far as reads show them (OCI has no dry "
                  "run): a missing 'manage' grant still fails at pulumi up")


def run_checks(cfg: StackConfig, clients: OciClients) -> list[Finding]:
    """Every pre-flight check of ``cfg`` against the tenancy behind ``clients``.

    :returns: the findings, problems and notes in check order.
    :raises Unreachable: OCI could not be reached.
    """
    return Preflight(cfg, clients).run()
