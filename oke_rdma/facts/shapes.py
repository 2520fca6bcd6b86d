"""OCI Compute shapes oke-rdma places node pools on: GPU and RDMA bare metal shapes, Flex VM bounds, and how many
pods a node can run with VCN-native pod networking.

Sources (all checked 2026-11-30):

* OCI Compute docs, "Compute Shapes" (computeshapes.htm): "Bare Metal Shapes" > GPU / HPC / Optimized tables (GPU
  model and count, OCPUs, memory, local NVMe drives, "Max VNICs total"), "Flexible Shapes" and the VM standard
  tables (Flex OCPU and memory ranges; VNICs of a Flex VM: 2 at 1 OCPU, then 1 per OCPU up to 24).
* OCI Compute docs, "Compute Clusters" (compute-clusters.htm, Supported Shapes) and OKE docs "Using Compute
  Clusters to Provision Managed Nodes": which shapes join a Compute Cluster's RDMA network. The list oke-rdma
  carried before (H100, A100-v2, GPU4, GB200, HPC2.36, Optimized3.36) is extended with the shapes Oracle's own
  OKE RDMA quickstart places in Compute Clusters, oracle-quickstart/oci-hpc-oke@61d210a (2026-08-20):
  ``terraform/oke-workers.tf`` (RDMA pools default to Compute Cluster placement), ``docs/using-rdma-network-
  interfaces-in-manifests.md`` (RDMA NICs of BM.GPU.B200.8, BM.GPU.H200.8, BM.GPU.MI300X.8, BM.GPU.B4.8, ...);
  GB200/GB300 also from the Compute docs "Creating GPU Memory Clusters" (a GPU memory cluster is always in a
  Compute Cluster; shapes BM.GPU.GB200.4 and BM.GPU.GB300.4).
* Service limit names (``limit``, counted in GPUs): ``gpu-h100-count``, ``gpu-a100-v2-count``, ``gpu-b200-count``,
  ``gpu-a10-count`` and ``gpu3-count``
  as the Limits API reports them (OCI docs "Compute Limits"; seen with their GPU counts in an OCI operations tool's
  limits report, 2026-03-04); the other ``gpu-*-count`` names follow the same pattern and are NOT confirmed: the
  pre-flight looks every name up in the tenancy's ``ListLimitDefinitions`` and reports a name it cannot find
  instead of passing the check. CPU RDMA shapes are counted in cores, not instances: no limit is given for them.
* Pods per node: OKE docs "Using the OCI VCN-Native Pod Networking CNI plugin for pod networking"
  (contengpodnetworking_topic-OCI_CNI_plugin.htm) and the OKE-on-Compute-Cloud@Customer page "Creating VCN-Native
  Pod Networking Resources" (node shapes have at least two VNICs: the first in the worker subnet, the others in the
  pod subnet, 31 pod IPs each; 31 pods by default, at most 110); the API model ``OciVcnIpNativeNodePoolPodNetwork
  OptionDetails.maxPodsPerNode`` ("limited by the number of VNICs attachable to the node pool shape", oci 2.189.0).
  So ``min(110, (VNICs - 1) × 31)``.

``None`` in a column means OCI's table was not read for that value here; code that needs it must say so rather
than guess (the maxPodsPerNode check accepts only values it can prove, see :func:`max_pods_per_node`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

#: A VNIC holds one primary and up to 31 secondary private IPs (Networking docs "IP Addresses"; OKE CNI docs).
SECONDARY_IPS_PER_VNIC = 31
#: Most pods per node OKE allows with VCN-native pod networking (OKE CNI docs).
MAX_PODS_PER_NODE = 110
#: VNICs of a Flex VM: 2 at 1 OCPU, else 1 per OCPU, at most 24 (Compute Shapes, VM standard shapes tables).
FLEX_MIN_VNICS, FLEX_MAX_VNICS = 2, 24
#: Fewest VNICs of any bare metal shape in the Compute Shapes tables (BM.GPU2.2: 28), used for a bare metal shape
#: not in :data:`SHAPES` (enough for 110 pods); a VM shape not in the table is held to 2 (one pod VNIC, 31 pods),
#: except the fixed standard/DenseIO VMs named by their OCPU count (``VM.Standard2.8``: 8 OCPUs, 8 VNICs; Compute
#: Shapes, VM standard and Dense I/O tables: one VNIC per OCPU, at least 2, at most 24).
BARE_METAL_MIN_VNICS, VM_MIN_VNICS = 28, 2
_FIXED_VM_RE = re.compile(r"^VM\.(?:Standard|DenseIO)[A-Za-z0-9.]*?\.(?P<ocpus>[0-9]+)$")


@dataclass(frozen=True)
class Shape:
    """One fixed bare metal shape. Units: ``memory_gb`` in GB; ``nvme_drives`` local NVMe devices (0: none).

    ``gpu_vendor``/``gpu_model``/``gpus``: accelerators per node (None/0 for CPU shapes). ``compute_cluster``: the
    shape joins a Compute Cluster's RDMA network (so OKE can place a managed pool there). ``limit``: the compute
    service limit counting it (in GPUs for GPU shapes, in instances otherwise), None when not known. ``checked``:
    when the row was last compared with its sources (ISO date).
    """

    name: str
    gpu_vendor: Optional[str]
    gpu_model: Optional[str]
    gpus: int
    ocpus: Optional[int]
    memory_gb: Optional[int]
    max_vnics: Optional[int]
    nvme_drives: Optional[int]
    compute_cluster: bool
    limit: Optional[str]
    checked: str = "2026-11-30"

    @property
    def limit_per_node(self) -> int:
        """How much of :attr:`limit` one node uses: its GPUs for a GPU shape, else 1 instance."""
        return self.gpus if self.gpus else 1


def _s(name, vendor, model, gpus, ocpus, mem, vnics, nvme, cc, limit, checked="2026-11-30") -> Shape:  # noqa: ANN001
    return Shape(name, vendor, model, gpus, ocpus, mem, vnics, nvme, cc, limit, checked)


#: Bare metal GPU and RDMA shapes, and the VM GPU shapes (sources in the module docstring).
SHAPES: dict[str, Shape] = {s.name: s for s in (
    _s("BM.GPU4.8", "NVIDIA", "A100 40GB", 8, 64, 2048, 64, 4, True, "gpu4-count"),
    _s("BM.GPU.B4.8", "NVIDIA", "A100 40GB", 8, 64, 2048, 64, 4, True, "gpu-b4-count"),
    _s("BM.GPU.A100-v2.8", "NVIDIA", "A100 80GB", 8, 128, 2048, 256, 4, True, "gpu-a100-v2-count"),
    _s("BM.GPU.H100.8", "NVIDIA", "H100 80GB", 8, 112, 2048, 256, 16, True, "gpu-h100-count"),
    _s("BM.GPU.H200.8", "NVIDIA", "H200 141GB", 8, 112, 3072, 256, 8, True, "gpu-h200-count"),
    _s("BM.GPU.B200.8", "NVIDIA", "B200 180GB", 8, 128, 4096, 256, 8, True, "gpu-b200-count"),
    _s("BM.GPU.GB200.4", "NVIDIA", "GB200 (B200 186GB)", 4, 144, 960, 512, 4, True, "gpu-gb200-count",
       "2026-12-01"),
    _s("BM.GPU.GB200-v2.4", "NVIDIA", "GB200 (B200 186GB)", 4, 144, 960, None, 4, True, None),
    _s("BM.GPU.GB200-v3.4", "NVIDIA", "GB200 (B200 186GB)", 4, 144, 960, None, 4, True, None),
    _s("BM.GPU.GB300.4", "NVIDIA", "GB300 (B300 288GB)", 4, None, None, None, None, True, None),
    _s("BM.GPU.MI300X.8", "AMD", "MI300X 192GB", 8, 112, 2048, 256, 8, True, "gpu-mi300x-count"),
    # Shapes Oracle runs on OKE that the table lacked (2026-12-01): the quickstart's RDMA NCCL/RCCL parameters
    # (terraform/via-provider-nccl-rccl-configmap.tf: NCCL_IB_HCA over the RDMA NICs) and Kueue NCCL test manifests
    # (manifests/nccl-tests/kueue/, manifests/rccl-tests/kueue/) @61d210a; OCPUs, memory, VNICs and drives not read
    # (None: see the module docstring), limits unconfirmed (None).
    _s("BM.GPU.B300.8", "NVIDIA", "B300 288GB", 8, None, None, None, None, True, None, "2026-12-01"),
    _s("BM.GPU.MI355X.8", "AMD", "MI355X 288GB", 8, None, None, None, None, True, None, "2026-12-01"),
    _s("BM.GPU.MI355X-v1.8", "AMD", "MI355X 288GB", 8, None, None, None, None, True, None, "2026-12-01"),
    _s("BM.GPU.RTXPRO.8", "NVIDIA", "RTX PRO 6000 Blackwell 96GB", 8, None, None, None, None, True, None,
       "2026-12-01"),
    # L40S: OKE worker images list it (docs/worker-node-images.md@61d210a as BM.GPU.L40S.4; Compute docs name the
    # shape BM.GPU.L40S-NC.4, which the quickstart's node-problem-detector values use); no RDMA parameters: not for
    # Compute Clusters.
    _s("BM.GPU.L40S.4", "NVIDIA", "L40S 48GB", 4, None, None, None, None, False, None, "2026-12-01"),
    _s("BM.GPU.L40S-NC.4", "NVIDIA", "L40S 48GB", 4, None, None, None, None, False, None, "2026-12-01"),
    _s("BM.HPC2.36", None, None, 0, 36, 384, 50, 1, True, None),
    _s("BM.Optimized3.36", None, None, 0, 36, 512, 256, 1, True, None),
    # VM GPU shapes (Compute Shapes, "Virtual Machine Shapes" > GPU): not for Compute Clusters; VNICs as every
    # fixed VM, one per OCPU (at least 2, at most 24).
    _s("VM.GPU.A10.1", "NVIDIA", "A10 24GB", 1, 15, 240, 15, 0, False, "gpu-a10-count"),
    _s("VM.GPU.A10.2", "NVIDIA", "A10 24GB", 2, 30, 480, 24, 0, False, "gpu-a10-count"),
    _s("VM.GPU2.1", "NVIDIA", "P100 16GB", 1, 12, 72, 12, 0, False, None),
    _s("VM.GPU3.1", "NVIDIA", "V100 16GB", 1, 6, 90, 6, 0, False, "gpu3-count"),
    _s("VM.GPU3.2", "NVIDIA", "V100 16GB", 2, 12, 180, 12, 0, False, "gpu3-count"),
    _s("VM.GPU3.4", "NVIDIA", "V100 16GB", 4, 24, 360, 24, 0, False, "gpu3-count"),
)}

#: Shapes a Compute Cluster holds (RDMA cluster networking), the default of the placement pack's ``allowedShapes``.
COMPUTE_CLUSTER_SHAPES = frozenset(n for n, s in SHAPES.items() if s.compute_cluster)
#: NVIDIA GPUs per node of the GPU shapes (``nvidia.com/gpu``: what Kueue quotas and the GPU Operator count; AMD
#: shapes expose ``amd.com/gpu`` instead and are not listed).
NVIDIA_GPUS_PER_SHAPE = {n: s.gpus for n, s in SHAPES.items() if s.gpu_vendor == "NVIDIA"} | {
    n: 0 for n, s in SHAPES.items() if s.gpu_vendor is None}

#: Flex shape → (most OCPUs, most memory in GB) (Compute Shapes, Flexible Shapes and the VM standard tables). Every
#: Flex VM takes whole OCPUs from 1, and from 1 GB (at least 1 GB per OCPU) to 64 GB per OCPU. E3/E4: older pages
#: say 64 OCPUs / 1024 GB, later ones larger VMs (114 OCPUs); the larger bound is used so that a valid pool is never
#: refused here (OCI itself refuses what the region's hosts cannot give). E4 Flex's memory maximum is 1760 GB, not
#: E3's 1776 (Compute Shapes, VM standard shapes table; corrected 2026-12-01).
FLEX_SHAPE_LIMITS = {
    "VM.Standard.E3.Flex": (114, 1776), "VM.Standard.E4.Flex": (114, 1760), "VM.Standard.E5.Flex": (94, 1049),
    "VM.Standard3.Flex": (32, 512), "VM.Optimized3.Flex": (18, 256), "VM.Standard.A1.Flex": (80, 512),
    "VM.Standard.A2.Flex": (78, 946),
}
#: Flex shape → the compute service limit counting its OCPUs (cores), per AD. Names follow OCI's compute limit
#: naming (OCI docs "Compute Limits"; NOT confirmed one by one, except E5's per-AD ``standard-e5-core-ad-count``,
#: corrected 2026-12-01 from ``standard-e5-core-count``, a name the Limits API does not have): the pre-flight uses a
#: name only after finding it in
#: the tenancy's ``ListLimitDefinitions``, and says so in a note when it does not.
FLEX_CORE_LIMITS = {
    "VM.Standard.E3.Flex": "standard-e3-core-ad-count", "VM.Standard.E4.Flex": "standard-e4-core-count",
    "VM.Standard.E5.Flex": "standard-e5-core-ad-count", "VM.Standard3.Flex": "standard3-core-count",
    "VM.Standard.A1.Flex": "standard-a1-core-count", "VM.Optimized3.Flex": "optimized3-core-count",
}
#: Bounds for a Flex shape not in :data:`FLEX_SHAPE_LIMITS`: sanity bounds above every Flex VM OCI documents, so a
#: typo (``memoryGb: 1e308``) is caught while a newer shape still works.
FLEX_FALLBACK_LIMITS = (256, 4096)
#: Memory per OCPU of every Flex VM, in GB (Flexible Shapes: 1 GB, or the OCPU count, at least; up to 64 per OCPU).
FLEX_GB_PER_OCPU = (1, 64)


#: CPU architecture of every shape oke-rdma knows, one row per shape (no name pattern: ``VM.GPU.A10.2`` has ``.A10.``
#: in its name like the Arm ``VM.Standard.A1.Flex`` but runs on Intel Xeon). Sources: OCI Compute docs "Compute
#: Shapes" (computeshapes.htm), the "Processor" column of the bare metal GPU/HPC/Optimized tables, of the VM GPU
#: table and of the Flexible Shapes table (Ampere Altra / AmpereOne: A1, A2; NVIDIA Grace: GB200, GB300; every other
#: row Intel Xeon or AMD EPYC, x86_64); the shapes added 2026-12-01 from oracle-quickstart/oci-hpc-oke@61d210a by
#: the image their manifests use (x86_64 OKE GPU images; GB200/GB300: aarch64). Checked 2026-12-02. A test keeps every
#: shape of :data:`SHAPES` and :data:`FLEX_SHAPE_LIMITS` in this table.
X86, ARM = "x86_64", "aarch64"
CPU_ARCH: dict[str, str] = {
    **{n: X86 for n in (
        "BM.GPU4.8", "BM.GPU.B4.8", "BM.GPU.A100-v2.8", "BM.GPU.H100.8", "BM.GPU.H200.8", "BM.GPU.B200.8",
        "BM.GPU.B300.8", "BM.GPU.MI300X.8", "BM.GPU.MI355X.8", "BM.GPU.MI355X-v1.8", "BM.GPU.RTXPRO.8",
        "BM.GPU.L40S.4", "BM.GPU.L40S-NC.4", "BM.HPC2.36", "BM.Optimized3.36",
        "VM.GPU.A10.1", "VM.GPU.A10.2", "VM.GPU2.1", "VM.GPU3.1", "VM.GPU3.2", "VM.GPU3.4",
        "VM.Standard.E3.Flex", "VM.Standard.E4.Flex", "VM.Standard.E5.Flex", "VM.Standard3.Flex",
        "VM.Optimized3.Flex")},
    **{n: ARM for n in (
        "BM.GPU.GB200.4", "BM.GPU.GB200-v2.4", "BM.GPU.GB200-v3.4", "BM.GPU.GB300.4",
        "VM.Standard.A1.Flex", "VM.Standard.A2.Flex")},
}
#: vCPUs (hardware threads, what Kubernetes counts as CPUs) per OCPU by architecture: an OCPU is one physical core,
#: two hardware threads on x86 and one on Arm (OCI docs "Compute Shapes", OCPU; checked 2026-12-01).
VCPUS_PER_OCPU = {X86: 2, ARM: 1}


def cpu_arch(shape: str) -> Optional[str]:
    """``x86_64`` or ``aarch64`` from :data:`CPU_ARCH`; None for a shape the table does not know (never guessed
    from the name: callers say the fact is unknown)."""
    return CPU_ARCH.get(shape)


def vcpus_per_ocpu(shape: str) -> Optional[int]:
    """vCPUs (what Kubernetes counts as CPUs) per OCPU of ``shape``: 2 on x86, 1 on Arm (:data:`CPU_ARCH`,
    :data:`VCPUS_PER_OCPU`); None when the table does not know the shape's architecture."""
    arch = cpu_arch(shape)
    return VCPUS_PER_OCPU[arch] if arch else None


def is_flex(shape: str) -> bool:
    """True for Flex VM shapes (sized by ``ocpus`` and ``memoryGb``)."""
    return shape.endswith(".Flex")


def vnics(shape: str, ocpus: Optional[float] = None) -> Optional[int]:
    """Most VNICs an instance of ``shape`` certainly takes: from :data:`SHAPES`, for a Flex VM from its OCPUs, else
    the least its kind has (:data:`BARE_METAL_MIN_VNICS`, :data:`VM_MIN_VNICS`); None for a Flex VM without OCPUs
    or a name that is neither ``BM.`` nor ``VM.``."""
    if shape in SHAPES and SHAPES[shape].max_vnics is not None:
        return SHAPES[shape].max_vnics
    if is_flex(shape):
        return None if ocpus is None else max(FLEX_MIN_VNICS, min(int(ocpus), FLEX_MAX_VNICS))
    if shape.startswith("BM."):
        return BARE_METAL_MIN_VNICS
    if shape.startswith("VM."):
        m = _FIXED_VM_RE.match(shape)
        return max(FLEX_MIN_VNICS, min(int(m["ocpus"]), FLEX_MAX_VNICS)) if m else VM_MIN_VNICS
    return None


def vnics_are_exact(shape: str) -> bool:
    """True when :func:`vnics` knows the shape's own VNIC count (table, Flex, or a VM named by its OCPUs), False
    when it falls back to the least of the shape's kind."""
    return ((shape in SHAPES and SHAPES[shape].max_vnics is not None) or is_flex(shape)
            or bool(_FIXED_VM_RE.match(shape)))


#: Shape families with no local NVMe drive (Compute Shapes: standard and optimized VMs use block volumes only;
#: the Dense I/O and the bare metal GPU/HPC shapes carry NVMe drives).
_NO_NVME_RE = re.compile(r"^VM\.(?:Standard|Optimized)[A-Za-z0-9.]*$")


def nvme_drives(shape: str) -> Optional[int]:
    """Local NVMe drives of ``shape``: from :data:`SHAPES`, 0 for the standard and optimized VMs, None when unknown."""
    if shape in SHAPES and SHAPES[shape].nvme_drives is not None:
        return SHAPES[shape].nvme_drives
    return 0 if _NO_NVME_RE.match(shape) else None


def max_pods_per_node(shape: str, ocpus: Optional[float] = None) -> Optional[int]:
    """Most pods a node of ``shape`` runs with VCN-native pod networking: ``min(110, (VNICs - 1) × 31)`` (OKE CNI
    docs); None when :func:`vnics` cannot tell."""
    count = vnics(shape, ocpus)
    if count is None:
        return None
    return min(MAX_PODS_PER_NODE, (count - 1) * SECONDARY_IPS_PER_VNIC)


def closest_shape(shape: str) -> Optional[str]:
    """The known shape name closest to ``shape`` (a likely typo: ``BM.GPU.A100-v2`` → ``BM.GPU.A100-v2.8``), from
    :data:`SHAPES` and the Flex shapes of :data:`FLEX_SHAPE_LIMITS` (``difflib``, cutoff 0.85: a real shape the
    table lacks, like ``BM.Standard.E5.192``, is not matched to another); None when none is
    close or ``shape`` is known."""
    import difflib

    known = sorted(set(SHAPES) | set(FLEX_SHAPE_LIMITS))
    if shape in known:
        return None
    lower = {k.lower(): k for k in known}  # OCI shape names are case-sensitive: bm.gpu.a100-v2.8 is a typo
    if shape.lower() in lower:
        return lower[shape.lower()]
    close = difflib.get_close_matches(shape.lower(), list(lower), n=1, cutoff=0.85)
    return lower[close[0]] if close else None


def shapes_containing(text: str) -> list[str]:
    """The known shapes whose name holds ``text`` as one of its dot- or dash-separated parts, case-insensitively
    (``A100`` → ``BM.GPU.A100-v2.8``; a GPU model written alone); empty for text under 3 characters."""
    import re

    if len(text) < 3 or "." in text:
        return []
    want = text.lower()
    return sorted(k for k in set(SHAPES) | set(FLEX_SHAPE_LIMITS) if want in re.split(r"[.-]", k.lower()))


def same_gpu_shapes(shape: str) -> list[str]:
    """The known shapes whose GPU model (``gpu_model``, e.g. ``A100 80GB``) is named by one of the dot- or
    dash-separated parts of an unknown ``shape`` (``BM.GPU.A100.8`` → ``BM.GPU.A100-v2.8``, ``BM.GPU4.8``: both A100),
    case-insensitively; empty for a known shape or when no part names a GPU model."""
    import re

    if shape in SHAPES:
        return []
    parts = {p.lower() for p in re.split(r"[.-]", shape) if len(p) >= 3}
    return sorted(n for n, row in SHAPES.items()
                  if row.gpu_model and row.gpu_model.split()[0].lower() in parts)


def did_you_mean_shape(shape: str) -> str:
    """`` (did you mean X?)`` for the shapes of the GPU model the name spells (:func:`same_gpu_shapes`:
    ``BM.GPU.A100.8`` → ``BM.GPU.A100-v2.8 or BM.GPU.B4.8 or BM.GPU4.8``), else :func:`closest_shape`, or the shapes named after a GPU
    model written alone (:func:`shapes_containing`), else ``""``: appended to a message refusing ``shape``."""
    close, same = closest_shape(shape), same_gpu_shapes(shape)
    # the GPU model the name spells wins over a near spelling of another model (BM.GPU.A100.8 is not BM.GPU.H100.8)
    if "." not in shape:  # a GPU model written alone
        named = [close] if close else shapes_containing(shape)
    elif close and (close in same or not same):
        named = [close]
    else:
        named = same
    return f" (did you mean {' or '.join(named)}?)" if 0 < len(named) <= 4 else ""
