"""The pre-flight's checks: each asks OCI one question about the stack and records a :class:`Finding`.

A problem is ``<config key path>: <what OCI answered>; <fix>``; a note says what could not be checked and why.
OCI API sources: Identity ``ListAvailabilityDomains``, Core ``ListShapes``/``GetImage``/
``ListImageShapeCompatibilityEntries``/``GetComputeCluster``/``ListComputeClusters``, Limits
``ListLimitDefinitions``/``GetResourceAvailability`` (``available`` already takes compartment quotas into account
when asked for the stack's compartment), Container Engine ``GetClusterOptions``/``GetNodePoolOptions``/
``ListClusters`` (OCI API reference, oci 2.189.0; checked 2026-11-30).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional

from ..config._base import _key
from ..facts import shapes
from ..facts.storage import FSS_LIMIT_SERVICE, FSS_MOUNT_TARGET_LIMIT

if TYPE_CHECKING:
    from ..config import NodePool, StackConfig
    from .clients import OciClients

_OKE_IMAGE_VERSION_RE = re.compile(r"OKE-([0-9]+\.[0-9]+\.[0-9]+)")
#: Arm shapes (Ampere A1/A2, NVIDIA Grace in GB200/GB300) need aarch64 images (Compute Shapes; OKE images docs).
_ARM_SHAPE_RE = re.compile(r"(\.A[0-9]+\.|\.GB[0-9]+)")


class Unreachable(Exception):
    """OCI could not be reached (network, DNS, timeout), or did not accept the credentials (401): one line saying
    which call."""


@dataclass(frozen=True)
class Finding:
    """One result line: ``kind`` is ``problem`` (exit 1) or ``note`` (not checked, and why)."""

    kind: Literal["problem", "note"]
    text: str


def _is_gpu(shape: str) -> bool:
    known = shapes.SHAPES.get(shape)
    return known.gpus > 0 if known else ".GPU" in shape


def _surge_nodes(pool: NodePool) -> int:
    """Extra nodes a node cycle adds at once (``cycling.maxSurge``; 0 when cycling is off)."""
    if not pool.cycling.enabled:
        return 0
    surge = pool.cycling.max_surge
    return math.ceil(pool.size * int(surge[:-1]) / 100) if surge.endswith("%") else int(surge)


class Preflight:
    """Runs every check for one stack against one tenancy; :attr:`findings` holds the results in order."""

    def __init__(self, cfg: StackConfig, clients: OciClients):
        self.cfg, self.oci = cfg, clients
        self.findings: list[Finding] = []
        self._tenancy_ads: Optional[set[str]] = None

    # -- recording and calling ----------------------------------------------------------------------------------
    def problem(self, at: tuple[Any, ...], text: str) -> None:
        self.findings.append(Finding("problem", f"{_key(at)}: {text}"))

    def note(self, text: str) -> None:
        self.findings.append(Finding("note", text))

    def call(self, at: tuple[Any, ...], what: str, grant: str, fn: Callable[..., Any], *args: Any,
             all_pages: bool = False, missing_is_note: bool = False, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs).data`` (every page when ``all_pages``); None after recording the refusal as a
        problem (``grant``: the policy statement the deployer would need), or as a note when ``missing_is_note``
        and OCI answered 404 (an API that answers 404 for what it does not support).

        :raises Unreachable: the request never reached OCI, or OCI did not accept the credentials.
        """
        import oci

        try:
            if all_pages:
                return oci.pagination.list_call_get_all_results(fn, *args, **kwargs).data
            return fn(*args, **kwargs).data
        except oci.exceptions.ServiceError as e:
            if e.status == 401:
                raise Unreachable(f"OCI did not accept the credentials to {what} (401 {e.code}); check the user, "
                                  f"fingerprint and key (`oci iam region list` should work), or the session token")
            if e.status == 404 and missing_is_note:
                self.note(f"{_key(at)}: OCI has no answer to {what} (404 {e.code}); not checked")
            elif e.status in (403, 404):
                self.problem(at, f"OCI refused to {what} ({e.status} {e.code}); the deployer needs '{grant}' (or the "
                                 f"OCID is wrong)")
            else:
                self.problem(at, f"OCI answered {e.status} {e.code} to {what}: {e.message}; retry, or fix the value")
            return None
        except (oci.exceptions.RequestException, oci.exceptions.ConnectTimeout) as e:
            raise Unreachable(f"cannot reach OCI to {what}: {type(e).__name__}; check the network path to "
                              f"{self.cfg.region}'s API endpoints") from None

    def _in(self, verb: str, resource: str) -> str:
        return f"Allow group <deployer> to {verb} {resource} in compartment id {self.cfg.compartment_id}"

    # -- the checks -------------------------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        """Every check, in order; returns :attr:`findings`."""
        for check in (self.tenancy_and_compartment, self.availability_domains, self.shapes_offered, self.compute_cluster, self.limits,
                      self.versions_and_images, self.mount_target, self.access):
            check()
        return self.findings

    def pool_ads(self, pool: NodePool) -> tuple[str, ...]:
        cc = self.cfg.compute_cluster
        if pool.rdma and cc is not None:
            return (cc.availability_domain,)
        return tuple(pool.availability_domains) or tuple(self.cfg.availability_domains)

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

    def _usable_ads(self, ads: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(a for a in ads if self._tenancy_ads is None or a in self._tenancy_ads)

    def shapes_offered(self) -> None:
        offered: dict[str, Optional[set[str]]] = {}
        for name, pool in self.cfg.node_pools.items():
            for ad in self._usable_ads(self.pool_ads(pool)):
                if ad not in offered:
                    found = self.call(("availabilityDomains",), f"list the shapes of {ad}",
                                      self._in("inspect", "instance-family"), self.oci.compute.list_shapes,
                                      self.cfg.compartment_id, availability_domain=ad, all_pages=True)
                    offered[ad] = None if found is None else {s.shape for s in found}
                if offered[ad] is not None and pool.shape not in offered[ad]:
                    self.problem(("nodePools", name, "shape"), f"{pool.shape} is not offered in {ad} to this "
                                                               f"compartment (Compute ListShapes); pick a shape "
                                                               f"listed there or another AD, or ask Oracle for it")

    def compute_cluster(self) -> None:
        cc = self.cfg.compute_cluster
        if cc is None or cc.existing_id is None:
            return
        found = self.call(("computeCluster", "existingId"), "read the Compute Cluster",
                          self._in("read", "compute-clusters"), self.oci.compute.get_compute_cluster, cc.existing_id)
        if found is None:
            return
        if found.lifecycle_state != "ACTIVE":
            self.problem(("computeCluster", "existingId"), f"the Compute Cluster is {found.lifecycle_state}, not "
                                                           f"ACTIVE (OKE places nodes only in an ACTIVE one); use "
                                                           f"another, or remove existingId to create one")
        if found.availability_domain != cc.availability_domain:
            self.problem(("computeCluster", "availabilityDomain"), f"the Compute Cluster is in "
                                                                   f"{found.availability_domain}, not "
                                                                   f"{cc.availability_domain}; set that AD")

    def _limit_names(self, service: str) -> Optional[set[str]]:
        found = self.call(("compartmentId",), f"list the {service} service limits",
                          "Allow group <deployer> to inspect resource-availability in tenancy",
                          self.oci.limits.list_limit_definitions, self.oci.tenancy_id, service_name=service,
                          all_pages=True)
        return None if found is None else {d.name for d in found}

    def _available(self, at: tuple[Any, ...], service: str, limit: str, ad: str) -> Optional[int]:
        # GetResourceAvailability answers 404 for a limit it does not report on (Limits API reference).
        found = self.call(at, f"read the availability of {service} limit {limit} in {ad}",
                          "Allow group <deployer> to inspect resource-availability in tenancy",
                          self.oci.limits.get_resource_availability, service, limit, self.cfg.compartment_id,
                          availability_domain=ad, missing_is_note=True)
        if found is None:
            return None
        if found.available is None:
            self.note(f"{_key(at)}: OCI gave no availability for {service} limit {limit} in {ad}; not checked")
            return None
        available = int(found.available)
        if found.effective_quota_value is not None and found.used is not None:
            # A compartment quota below the service limit caps what this compartment may still create.
            available = min(available, math.floor(found.effective_quota_value - found.used))
        return available

    @staticmethod
    def _limit_of(pool: NodePool) -> tuple[Optional[str], int]:
        """The compute limit counting ``pool``'s nodes and how much of it one node uses (GPUs, instances or, for
        a Flex VM, OCPUs), or ``(None, 0)``."""
        shape = shapes.SHAPES.get(pool.shape)
        if shape is not None and shape.limit is not None:
            return shape.limit, shape.limit_per_node
        if pool.shape in shapes.FLEX_CORE_LIMITS and pool.ocpus is not None:
            return shapes.FLEX_CORE_LIMITS[pool.shape], math.ceil(pool.ocpus)
        return None, 0

    def limits(self) -> None:
        names = self._limit_names("compute")
        if names is None:
            return
        demand: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
        for name, pool in self.cfg.node_pools.items():
            limit, per_node = self._limit_of(pool)
            if limit is None:
                self.note(f"{_key(('nodePools', name, 'shape'))}: the service limit of {pool.shape} is not checked "
                          f"(oke-rdma knows no limit name for it); see `oci limits value list --service-name "
                          f"compute`")
                continue
            if limit not in names:
                self.note(f"{_key(('nodePools', name, 'shape'))}: the tenancy has no compute limit named "
                          f"{limit} (ListLimitDefinitions), so {pool.shape}'s limit is not checked")
                continue
            ads = self._usable_ads(self.pool_ads(pool))
            for ad in ads:
                nodes = math.ceil(pool.size / len(ads)) + _surge_nodes(pool)
                demand[(limit, ad)].append((name, nodes * per_node))
        for (limit, ad), uses in demand.items():
            need = sum(n for _, n in uses)
            first = uses[0][0]
            available = self._available(("nodePools", first, "size"), "compute", limit, ad)
            if available is not None and available < need:
                pools = ", ".join(f"{p} {n}" for p, n in uses)
                self.problem(("nodePools", first, "size"), f"the pools need {need} of compute limit {limit} in {ad} "
                                                           f"({pools}; nodes plus cycling surge), but only {available} "
                                                           f"are available (service limit or compartment quota, "
                                                           f"minus what is in use); ask for a limit increase or a "
                                                           f"quota change, or lower size")
        cc = self.cfg.compute_cluster
        if cc is not None and cc.existing_id is None:
            cc_limits = sorted(n for n in names if "compute-cluster" in n)
            if not cc_limits:
                self.note(f"{_key(('computeCluster',))}: the tenancy lists no compute-cluster limit "
                          f"(ListLimitDefinitions); the Compute Cluster's own limit is not checked")
            for limit in cc_limits:
                available = self._available(("computeCluster", "availabilityDomain"), "compute", limit,
                                            cc.availability_domain)
                if available is not None and available < 1:
                    self.problem(("computeCluster",), f"no Compute Cluster can be created in "
                                                      f"{cc.availability_domain}: compute limit {limit} has "
                                                      f"{available} available; ask for a limit increase or set "
                                                      f"existingId to an ACTIVE Compute Cluster")

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

    def _oke_image(self, name: str, pool: NodePool, image: str, version: str) -> None:
        at = ("nodePools", name, "imageId")
        gpu_image, arm_image = "GPU" in image.upper(), "AARCH64" in image.upper()
        if _is_gpu(pool.shape) and not gpu_image:
            self.problem(at, f"{image} is not a GPU image, but {pool.shape} is a GPU shape; use an OKE GPU image "
                             f"(GetNodePoolOptions lists them with 'GPU' in the name)")
        elif gpu_image and not _is_gpu(pool.shape):
            self.problem(at, f"{image} is a GPU image, but {pool.shape} has no GPU; use an OKE image without 'GPU'")
        arm = bool(_ARM_SHAPE_RE.search(pool.shape))
        if arm != arm_image:
            want = "an aarch64 (Arm)" if arm else "an x86_64"
            self.problem(at, f"{image} does not match {pool.shape}'s CPU; use {want} OKE image")
        built = _OKE_IMAGE_VERSION_RE.search(image)
        if built and f"v{built.group(1)}" != version:
            self.problem(at, f"{image} is built for Kubernetes v{built.group(1)}, but the pool runs {version}; use "
                             f"the OKE image of {version}")

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
