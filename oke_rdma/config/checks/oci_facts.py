"""Checks of the stack config against what OCI is (``oke_rdma.facts``): region, availability domains, OCIDs'
realm and region, the Kubernetes versions OKE offers, and the pods a node's VNICs can carry.

Each rule returns ``oke-rdma:<key path>: <problem>; <fix>`` lines (``oci:region`` for the region). Sources are in
the facts modules: ``facts.regions`` (OCI SDK region table; OCI docs "Regions and Availability Domains"),
``facts.kubernetes`` (OKE "Kubernetes Versions"), ``facts.shapes`` (Compute Shapes; OKE VCN-native CNI docs), and
OCI docs "Resource Identifiers" (``ocid1.<type>.<realm>.[region][.future use].<unique id>``: the realm is that of
the resource's region; regional resources carry their region, as an identifier or an old short key like ``iad``).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from ...facts import kubernetes, regions, shapes
from .._base import _key, ocid_region
from ..stack import StackConfig

#: An OCID anywhere in a value (inside a grant's text too): type, realm, region part.
_OCID_IN_TEXT_RE = re.compile(r"ocid1\.(?P<kind>[a-z0-9]+)\.(?P<realm>[a-z0-9]+)\.(?P<region>[a-z0-9-]*)\.[a-z0-9.-]+")


def check_availability_domains(cfg: StackConfig) -> list[str]:
    """Every AD in ``availabilityDomains`` is one of ``oci:region``'s (its name's region part and its number) and
    all share one tenancy prefix (a tenancy's ADs all carry the same prefix). In a region whose AD count oke-rdma's
    sources do not give (:func:`oke_rdma.facts.regions.ad_count` None: realms other than oc1/oc2), the number is
    bounded by :data:`oke_rdma.facts.regions.MOST_ADS` only; ``make preflight`` checks it against the tenancy."""
    problems: list[str] = []
    region = cfg.region
    if regions.realm_of(region) is None:
        return []  # oci:region itself is refused; its ADs cannot be judged
    first = regions.parse_ad(cfg.availability_domains[0]) if cfg.availability_domains else None
    shown = ", ".join(regions.example_ads(region, first.prefix if first else "Uocm"))
    prefixes: dict[str, int] = {}
    for i, name in enumerate(cfg.availability_domains):
        at = _key(("availabilityDomains", i))
        ad = regions.parse_ad(name)
        if ad is None:
            continue  # refused by the field check
        prefixes.setdefault(ad.prefix, i)
        if ad.region != region:
            where = f"an availability domain of {ad.region}" if ad.region else \
                f"not an availability domain name of any OCI region ({ad.stem} is no region's AD stem)"
            problems.append(f"{at}: {name!r} is {where}, not of oci:region {region}; use {region}'s ADs "
                            f"({shown}, with your tenancy's prefix: `oci iam availability-domain list`), or set "
                            f"oci:region")
        elif (count := regions.ad_count(region)) is not None and ad.number > count:
            problems.append(f"{at}: {region} has {count} availability domain{'s' if count > 1 else ''} ({shown}; "
                            f"OCI docs Regions and Availability Domains), so {name!r} does not exist; use "
                            f"{'one of them' if count > 1 else 'that one'}")
        elif count is None and ad.number > regions.MOST_ADS:
            # Realm of its own (government, sovereign, dedicated): its AD count is not in oke-rdma's sources, so
            # only OCI's largest region bounds it; the pre-flight compares with the tenancy's real list.
            problems.append(f"{at}: no OCI region has more than {regions.MOST_ADS} availability domains (OCI docs "
                            f"Regions and Availability Domains), so {name!r} does not exist; copy {region}'s AD "
                            f"names from `oci iam availability-domain list`")
    if len(prefixes) > 1:
        first = cfg.availability_domains[0].split(":")[0]
        problems.append(f"{_key(('availabilityDomains',))}: the names carry different tenancy prefixes "
                        f"({', '.join(prefixes)}), but every AD of a tenancy has the same one; copy all of them "
                        f"from `oci iam availability-domain list` (e.g. {first}:...)")
    return problems


def unverified_ad_notes(cfg: StackConfig) -> list[str]:
    """One line per availability domain numbered above 1 in a region whose AD count oke-rdma has not verified (a
    realm outside :data:`oke_rdma.facts.regions.AD_COUNT_REALMS`: UK Government ``oc4``, US Defense, sovereign and
    dedicated regions): the config accepts it up to :data:`~oke_rdma.facts.regions.MOST_ADS`, so the preview says
    that this fact was not checked and what checks it (``make preflight``: the tenancy's ListAvailabilityDomains).
    AD-1 exists in every region and gets no line; an AD beyond ``MOST_ADS`` is refused by
    :func:`check_availability_domains`."""
    region = cfg.region
    if regions.realm_of(region) is None or regions.ad_count(region) is not None:
        return []
    out = []
    for i, name in enumerate(cfg.availability_domains):
        ad = regions.parse_ad(name)
        if ad is None or ad.region != region or ad.number <= 1 or ad.number > regions.MOST_ADS:
            continue
        out.append(f"{_key(('availabilityDomains', i))}: not checked: the availability domains of {region} (realm "
                   f"{regions.realm_of(region)}) are not in oke-rdma's sources (oke_rdma/facts/regions.py verifies "
                   f"the counts of realms {', '.join(sorted(regions.AD_COUNT_REALMS))} only), so {name!r} may not "
                   f"exist; `make preflight` compares it with the tenancy's own list")
    return out


def _strings(value: Any, at: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield at, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, at + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _strings(v, at + (i,))


def check_ocids(cfg: StackConfig) -> list[str]:
    """Every OCID in the config (grants' text included) is of ``oci:region``'s realm, and its region part, when it
    has one, names a known region (regional resources in another region are refused by ``check_ocid_regions`` and
    ``check_image_regions``)."""
    realm = regions.realm_of(cfg.region)
    if realm is None:
        return []
    problems: list[str] = []
    dumped = cfg.model_dump(by_alias=True, exclude={"region"})
    for at, text in _strings(dumped, ()):
        for m in _OCID_IN_TEXT_RE.finditer(text):
            ocid = m.group(0)
            shown = ocid if len(ocid) <= 48 else ocid[:45] + "..."
            if m["realm"] != realm:
                problems.append(f"{_key(at)}: {shown} is an OCID of realm {m['realm']}, but oci:region {cfg.region} "
                                f"is in realm {realm} (OCI SDK region table); OCIDs of another realm never resolve "
                                f"there: use the {m['kind']}'s OCID from your {realm} tenancy, or set oci:region")
            elif m["region"] and regions.region_of_key(m["region"]) is None:
                problems.append(f"{_key(at)}: {shown} names region {m['region']!r}, which is no OCI region or region "
                                f"key (OCI SDK region table); copy the OCID again from the console or `oci` CLI")
    return problems


def check_kubernetes_versions(cfg: StackConfig) -> list[str]:
    """``cluster.kubernetesVersion`` and every pool's ``kubernetesVersion`` are versions OKE offers today, or ones it
    withdrew (:func:`kubernetes_version_warnings`: an existing cluster keeps running one; a new cluster or node pool on
    it is refused by the offline preview and by OKE). A version OKE never offered is refused."""
    from .chart_versions import kubernetes_versions_supported

    offered = ", ".join(kubernetes_versions_supported(cfg))
    return [f"{_key(at)}: OKE does not offer Kubernetes {version}; use one it offers that the pinned add-ons support: "
            f"{offered} (OKE's list as of "
            f"{kubernetes.CHECKED}; `oci ce cluster-options get --cluster-option-id all` shows today's)"
            for at, version in _kubernetes_versions(cfg)
            if not kubernetes.is_offered(version) and kubernetes.withdrawn(version) is None]


def _kubernetes_versions(cfg: StackConfig) -> list[tuple[tuple[str, ...], str]]:
    return [(("cluster", "kubernetesVersion"), cfg.cluster.kubernetes_version)] + [
        (("nodePools", name, "kubernetesVersion"), pool.kubernetes_version)
        for name, pool in cfg.node_pools.items() if pool.kubernetes_version is not None]


def kubernetes_version_warnings(cfg: StackConfig) -> list[tuple[tuple[str, ...], str]]:
    """(config key path, warning) for each Kubernetes version of the stack OKE has withdrawn
    (:func:`oke_rdma.facts.kubernetes.withdrawal_notice`)."""
    out = []
    for at, version in _kubernetes_versions(cfg):
        what = "the cluster" if at[0] == "cluster" else f"node pool {at[1]}"
        notice = kubernetes.withdrawal_notice(version, what)
        if notice:
            out.append((at, f"{_key(at)}: {notice}"))
    return out


def check_pods_per_node(cfg: StackConfig) -> list[str]:
    """With VCN-native pod networking, a pool's ``maxPodsPerNode`` fits what its shape's VNICs carry:
    ``min(110, (VNICs - 1) × 31)`` (OKE VCN-native CNI docs). A VM shape whose VNIC count oke-rdma does not know
    is held to 31 (one secondary VNIC), a bare metal one to 110 (every bare metal shape takes at least 28 VNICs)."""
    if cfg.cluster.cni_type != "OCI_VCN_IP_NATIVE":
        return []
    problems: list[str] = []
    for name, pool in cfg.node_pools.items():
        most = shapes.max_pods_per_node(pool.shape, pool.ocpus)
        if most is None or pool.max_pods_per_node <= most:
            continue  # a Flex pool without ocpus is reported by check_pools
        at = _key(("nodePools", name, "maxPodsPerNode"))
        count = shapes.vnics(pool.shape, pool.ocpus) or 0
        sized = f" with {pool.ocpus:g} OCPUs" if shapes.is_flex(pool.shape) and pool.ocpus else ""
        if not shapes.vnics_are_exact(pool.shape):
            why = (f"oke-rdma does not know how many VNICs {pool.shape} takes, so only {count - 1} secondary "
                   f"VNIC{'s' if count > 2 else ''} ({most} pod IPs) {'are' if count > 2 else 'is'} certain")
        else:
            why = (f"{pool.shape}{sized} takes {count} VNICs, and pods get IPs from the {count - 1} secondary "
                   f"one{'s' if count > 2 else ''} ({shapes.SECONDARY_IPS_PER_VNIC} each)")
        fix = "use more OCPUs or " if shapes.is_flex(pool.shape) else ""
        problems.append(f"{at}: {pool.max_pods_per_node} pods per node do not fit: {why} (OKE VCN-native pod "
                        f"networking); {fix}set maxPodsPerNode to at most {most}")
    return problems


def check_gpu_vendor(cfg: StackConfig) -> list[str]:
    """A pool's GPUs are NVIDIA's: the platform runs the NVIDIA GPU Operator and Kueue counts ``nvidia.com/gpu``;
    an AMD shape (``BM.GPU.MI300X.8``: ``amd.com/gpu``) would join with GPUs nothing schedules."""
    return [f"{_key(('nodePools', name, 'shape'))}: {pool.shape} has {shape.gpu_vendor} {shape.gpu_model} GPUs "
            f"({shape.gpu_vendor.lower()}.com/gpu), but oke-rdma's platform schedules NVIDIA GPUs only (NVIDIA GPU "
            f"Operator, Kueue quotas in nvidia.com/gpu); use an NVIDIA shape"
            for name, pool in cfg.node_pools.items()
            if (shape := shapes.SHAPES.get(pool.shape)) is not None and shape.gpu_vendor not in (None, "NVIDIA")]


def _region_of(ocid: str) -> str:
    """The region identifier in a regional OCID (short keys like ``iad`` mapped through the OCI SDK's table), or
    ``""`` when it has none or one no region has (``oci_facts.check_ocids`` refuses that one)."""
    part = ocid_region(ocid)
    return (regions.region_of_key(part) or "") if part else ""


def check_ocid_regions(cfg: StackConfig) -> list[str]:
    """A brought VCN, subnets, NSGs and Compute Cluster, and the Vault keys, are regional resources: their OCIDs'
    region part must be ``oci:region`` (OCI docs "Resource Identifiers"; Networking, Compute and Vault resources are
    used only in their region)."""
    found: list[tuple[tuple[str, ...], str, str]] = []  # (key path, OCID, "a/an <kind>")
    existing = cfg.network.existing
    if existing is not None:
        found.append((("network", "existing", "vcnId"), existing.vcn_id, "a VCN"))
        for role, ocid in existing.subnet_ids.model_dump(by_alias=True).items():
            if ocid is not None:
                found.append((("network", "existing", "subnetIds", role), ocid, "a subnet"))
        for role, ocid in (existing.nsg_ids.model_dump(by_alias=True) if existing.nsg_ids else {}).items():
            if ocid is not None:
                found.append((("network", "existing", "nsgIds", role), ocid, "an NSG"))
    if cfg.compute_cluster is not None and cfg.compute_cluster.existing_id is not None:
        found.append((("computeCluster", "existingId"), cfg.compute_cluster.existing_id, "a Compute Cluster"))
    # Vault keys are regional too (Key Management docs, "Overview of Vault": a vault and its keys live in one
    # region; OKE and File Storage use keys of their own region).
    if cfg.cluster.kms_key_id is not None:
        found.append((("cluster", "kmsKeyId"), cfg.cluster.kms_key_id, "a Vault key"))
    for i, key in enumerate(cfg.cluster.image_verification_key_ids):
        found.append((("cluster", "imageVerificationKeyIds", i), key, "a Vault key"))
    if cfg.storage.fss.kms_key_id is not None:
        found.append((("storage", "fss", "kmsKeyId"), cfg.storage.fss.kms_key_id, "a Vault key"))
    if cfg.storage.lustre is not None and cfg.storage.lustre.kms_key_id is not None:
        found.append((("storage", "lustre", "kmsKeyId"), cfg.storage.lustre.kms_key_id, "a Vault key"))
    if cfg.storage.object_storage.kms_key_id is not None:  # Object Storage uses a key of the bucket's region
        found.append((("storage", "objectStorage", "kmsKeyId"), cfg.storage.object_storage.kms_key_id, "a Vault key"))
    problems = []
    for at, ocid, what in found:
        region = _region_of(ocid)
        if region and region != cfg.region:
            kind = what.split(" ", 1)[1]
            problems.append(f"{_key(at)}: expected {what} in oci:region {cfg.region}, got the OCID of {what} in "
                            f"{region}; use the {kind} of {cfg.region} (it is a regional resource), or set oci:region")
    return problems


def check_image_regions(cfg: StackConfig) -> list[str]:
    """Images are regional: a pool's ``imageId`` must be an image of ``oci:region`` (OCI docs, "Managing Custom
    Images": an image is used in the region it lives in; copy it with export/import otherwise)."""
    problems: list[str] = []
    for name, pool in cfg.node_pools.items():
        region = _region_of(pool.image_id)
        if region and region != cfg.region:
            problems.append(f"{_key(('nodePools', name, 'imageId'))}: expected an image in oci:region {cfg.region}, "
                            f"got an image of {region}; use the OCID of the same image in {cfg.region} "
                            f"(images are regional)")
    return problems


def check_oci_facts(cfg: StackConfig) -> list[str]:
    """Every rule of this module, in order: ADs, OCIDs, Kubernetes versions, pods per node, GPU vendor (the
    localNvme rule, also read from ``facts.shapes``, is in ``checks.compute``)."""
    return (check_availability_domains(cfg) + check_ocids(cfg) + check_kubernetes_versions(cfg)
            + check_pods_per_node(cfg) + check_gpu_vendor(cfg))
