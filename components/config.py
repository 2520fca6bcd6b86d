"""The stack's configuration, parsed once into a frozen pydantic model.

Every key of the ``oke-rdma:`` namespace (plus ``oci:region``) is read here and nowhere else. Field errors,
unknown keys and cross-field rules are all collected and raised together as one :class:`ConfigError`, whose
lines each name the config key path (``oke-rdma:nodePools.gpu.faultDomains``) and the fix.

Sources of the OCI rules enforced here are named next to each rule (OKE docs "Using Compute Clusters to Provision
Managed Nodes", "Network Resource Configuration"; Compute docs "Compute Clusters"; FSS docs "Managing Mount Targets").
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Optional

import pulumi
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator
from pydantic.alias_generators import to_camel

NAMESPACE = "oke-rdma"

#: Shapes Oracle lists as supporting RDMA cluster networking in Compute Clusters (Compute docs, "Compute Clusters").
RDMA_SHAPES = frozenset({
    "BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.GB200.4", "BM.HPC2.36", "BM.Optimized3.36",
})
#: Smallest boot volume OCI accepts, in GB (Block Volume docs, "Boot Volumes").
MIN_BOOT_VOLUME_GB = 50
#: Mount target throughput tiers in Gbps (FSS docs, "Managing Mount Targets": 1 is the default tier).
FSS_THROUGHPUT_TIERS = (1, 20, 40, 80)

#: A YAML/JSON list of strings, held as an immutable tuple (lax only for list → tuple; items stay strict str).
StrList = Annotated[tuple[Annotated[str, Strict()], ...], Strict(False)]

_OCID_RE = r"^ocid1\.{kind}\.oc[0-9]+\.[a-z0-9-]*\.[a-z0-9]+$"
_REGION_RE = re.compile(r"^[a-z]{2}-[a-z]+-[0-9]$")
_AD_RE = re.compile(r"^[A-Za-z0-9]{4}:[A-Z]{2}-[A-Z]+-[0-9]-AD-[1-3]$")
_FD_RE = re.compile(r"^FAULT-DOMAIN-[1-3]$")
_K8S_VERSION_RE = re.compile(r"^v1\.[0-9]+\.[0-9]+$")
_EXACT_VERSION_RE = re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+$")
_DNS_LABEL_RE = re.compile(r"^[a-z][a-z0-9]{0,14}$")
_K8S_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9-]{0,23}$")


class ConfigError(pulumi.RunError):
    """Invalid stack configuration: one line per problem, each ``<key path>: <what is wrong>; <fix>``.

    A subclass of :class:`pulumi.RunError`, so ``pulumi preview`` prints it without a traceback; the offline
    preview prints the same lines and exits 2.
    """

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid stack configuration:\n" + "\n".join(f"  {p}" for p in problems))


def _ocid(kind: str, value: str) -> str:
    if not re.match(_OCID_RE.format(kind=re.escape(kind)), value):
        raise ValueError(f"must be an OCID of a {kind} (ocid1.{kind}.oc1..<id>), got {value!r}")
    return value


def _cidr(value: str) -> str:
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as e:
        raise ValueError(f"must be an IPv4 CIDR block with no host bits set, like 10.0.0.0/16 ({e})") from None
    return str(net)


def _k8s_name(v: str) -> str:
    if not _K8S_NAME_RE.match(v):
        raise ValueError(f"must be a Kubernetes name (lowercase letters, digits and '-', at most 63), got {v!r}")
    return v


class _Model(BaseModel):
    """Base of every config object: camelCase keys, strict types, unknown keys refused, immutable."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=False, extra="forbid", strict=True,
                              frozen=True)


class SubnetCidrs(_Model):
    """Per-role subnet CIDR overrides; an unset role gets the default plan carved from ``vcnCidr``."""

    control_plane: Optional[str] = None
    workers: Optional[str] = None
    pods: Optional[str] = None
    internal_load_balancers: Optional[str] = None
    public_load_balancers: Optional[str] = None
    storage: Optional[str] = None

    _check = field_validator("*")(lambda v: None if v is None else _cidr(v))


class ApiEndpoint(_Model):
    """Kubernetes API endpoint exposure. Private by default; ``allowedCidrs`` may reach TCP 6443."""

    public: bool = False
    allowed_cidrs: StrList = Field(default=())

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, v: StrList) -> StrList:
        return tuple(_cidr(c) for c in v)


class Network(_Model):
    """The VCN (``vcnCidr``, an IPv4 CIDR from /8 to /20 for the default plan) and its exposure choices."""

    vcn_cidr: str = "10.0.0.0/16"
    dns_label: str = "okerdma"
    subnets: SubnetCidrs = SubnetCidrs()
    api_endpoint: ApiEndpoint = ApiEndpoint()
    public_load_balancers: bool = False

    _vcn = field_validator("vcn_cidr")(lambda v: _cidr(v))

    @field_validator("dns_label")
    @classmethod
    def _label(cls, v: str) -> str:
        if not _DNS_LABEL_RE.match(v):
            raise ValueError("must be 1-15 lowercase letters or digits starting with a letter, like okerdma")
        return v


class Cluster(_Model):
    """The enhanced OKE cluster (``ENHANCED_CLUSTER``, VCN-native pod networking)."""

    kubernetes_version: str
    services_cidr: str = "10.96.0.0/16"

    _svc = field_validator("services_cidr")(lambda v: _cidr(v))

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if not _K8S_VERSION_RE.match(v):
            raise ValueError(f"must be an OKE Kubernetes version like v1.34.1, got {v!r}")
        return v


class ComputeCluster(_Model):
    """The OCI Compute Cluster RDMA pools join: created in ``availabilityDomain``, or an existing ACTIVE one."""

    availability_domain: str
    existing_id: Optional[str] = None

    _ocid = field_validator("existing_id")(lambda v: None if v is None else _ocid("computecluster", v))


class NodePool(_Model):
    """One OKE managed node pool. Sizes: ``ocpus`` (count), ``memoryGb`` and ``bootVolumeGb`` in GB."""

    shape: str
    size: int = Field(ge=0, le=1000)
    image_id: str
    ocpus: Optional[float] = Field(default=None, gt=0)
    memory_gb: Optional[float] = Field(default=None, gt=0)
    boot_volume_gb: int = Field(default=100, ge=MIN_BOOT_VOLUME_GB, le=32768)
    max_pods_per_node: int = Field(default=31, ge=1, le=110)
    availability_domains: StrList = ()
    fault_domains: StrList = ()
    labels: dict[str, str] = Field(default_factory=dict)
    rdma: bool = False

    _image = field_validator("image_id")(lambda v: _ocid("image", v))

    @field_validator("ocpus", "memory_gb", mode="before")
    @classmethod
    def _number(cls, v: Any) -> Any:
        # JSON has one number type: accept integers for float fields, refuse strings and booleans.
        return float(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("shape")
    @classmethod
    def _shape(cls, v: str) -> str:
        if not re.match(r"^(VM|BM)\.[A-Za-z0-9.\-]+$", v):
            raise ValueError(f"must be an OCI shape name like VM.Standard.E5.Flex or BM.GPU.H100.8, got {v!r}")
        return v

    @field_validator("fault_domains")
    @classmethod
    def _fds(cls, v: StrList) -> StrList:
        for fd in v:
            if not _FD_RE.match(fd):
                raise ValueError(f"fault domains are FAULT-DOMAIN-1, -2 or -3, got {fd!r}")
        return v

    @property
    def is_flex(self) -> bool:
        """True for Flex shapes, which need ``ocpus`` and ``memoryGb``."""
        return self.shape.endswith(".Flex")


class Fss(_Model):
    """File Storage: one file system, a mount target (``throughputGbps`` ∈ 1/20/40/80) and one export."""

    enabled: bool = True
    availability_domain: Optional[str] = None
    throughput_gbps: int = 1
    export_path: str = "/shared"
    identity_squash: Literal["ROOT", "ALL", "NONE"] = "ROOT"
    require_privileged_source_port: bool = True
    protect: bool = True

    @field_validator("throughput_gbps")
    @classmethod
    def _tier(cls, v: int) -> int:
        if v not in FSS_THROUGHPUT_TIERS:
            raise ValueError(f"must be one of {', '.join(map(str, FSS_THROUGHPUT_TIERS))} (Gbps), got {v}")
        return v

    @field_validator("export_path")
    @classmethod
    def _path(cls, v: str) -> str:
        if not re.match(r"^/[A-Za-z0-9._/-]*$", v) or "//" in v or v == "/":
            raise ValueError(f"must be an absolute path below / like /shared, got {v!r}")
        return v


class Storage(_Model):
    """Shared storage settings."""

    fss: Fss = Fss()


class HelmRelease(_Model):
    """One pinned Helm release: exact chart ``version`` (no ranges) installed into ``namespace``."""

    enabled: bool = True
    version: str
    namespace: str

    @field_validator("version")
    @classmethod
    def _exact(cls, v: str) -> str:
        if not _EXACT_VERSION_RE.match(v):
            raise ValueError(f"must be an exact chart version like 1.2.3 (no ranges or 'latest'), got {v!r}")
        return v

    _ns = field_validator("namespace")(lambda v: _k8s_name(v))


class KubePrometheusStackRelease(HelmRelease):
    """kube-prometheus-stack (prometheus-community), default 87.2.1 in ``monitoring``."""

    version: str = "87.2.1"
    namespace: str = "monitoring"


class GpuOperatorRelease(HelmRelease):
    """NVIDIA GPU Operator, default v25.10.1 in ``gpu-operator``."""

    version: str = "v25.10.1"
    namespace: str = "gpu-operator"


class KueueRelease(HelmRelease):
    """Kueue (registry.k8s.io OCI chart), default 0.18.2 in ``kueue-system``."""

    version: str = "0.18.2"
    namespace: str = "kueue-system"


class KedaRelease(HelmRelease):
    """KEDA (kedacore), default 2.20.2 in ``keda``."""

    version: str = "2.20.2"
    namespace: str = "keda"


class Platform(_Model):
    """The in-cluster platform: the four pinned Helm releases (DESIGN.md §3 defaults)."""

    kube_prometheus_stack: KubePrometheusStackRelease = KubePrometheusStackRelease()
    gpu_operator: GpuOperatorRelease = GpuOperatorRelease()
    kueue: KueueRelease = KueueRelease()
    keda: KedaRelease = KedaRelease()


class Tenant(_Model):
    """A team's namespace. ``rdma: true`` allows RDMA pods (Pod Security ``privileged``), else ``restricted``."""

    namespace: Optional[str] = None
    rdma: bool = False

    _ns = field_validator("namespace")(lambda v: None if v is None else _k8s_name(v))


class Iam(_Model):
    """IAM: ``createPolicies: false`` creates nothing and outputs the statements for an administrator."""

    create_policies: bool = True


class StackConfig(_Model):
    """The whole stack's configuration (every ``oke-rdma:`` key plus ``oci:region``).

    Build it with :func:`load_stack_config`; constructing it directly skips the cross-field rules.
    """

    region: str
    compartment_id: str
    name_prefix: str = "okerdma"
    freeform_tags: dict[str, str] = Field(default_factory=dict)
    availability_domains: StrList = Field(min_length=1)
    network: Network = Network()
    cluster: Cluster
    compute_cluster: Optional[ComputeCluster] = None
    node_pools: dict[str, NodePool] = Field(min_length=1)
    storage: Storage = Storage()
    platform: Platform = Platform()
    tenants: dict[str, Tenant] = Field(default_factory=dict)
    iam: Iam = Iam()

    _compartment = field_validator("compartment_id")(lambda v: _ocid("compartment", v))

    @field_validator("region")
    @classmethod
    def _region(cls, v: str) -> str:
        if not _REGION_RE.match(v):
            raise ValueError(f"must be an OCI region identifier like sa-saopaulo-1, got {v!r}")
        return v

    @field_validator("name_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        if not _PREFIX_RE.match(v):
            raise ValueError("must be 1-24 lowercase letters, digits or '-', starting with a letter")
        return v

    @field_validator("availability_domains")
    @classmethod
    def _ads(cls, v: StrList) -> StrList:
        for ad in v:
            if not _AD_RE.match(ad):
                raise ValueError(f"must be availability domain names like 'bxtG:SA-SAOPAULO-1-AD-1', got {ad!r}")
        if len(set(v)) != len(v):
            raise ValueError("lists an availability domain twice")
        return v

    @property
    def rdma_pools(self) -> dict[str, NodePool]:
        """The node pools placed in the Compute Cluster."""
        return {k: p for k, p in self.node_pools.items() if p.rdma}

    def tenant_namespace(self, name: str) -> str:
        """The Kubernetes namespace of tenant ``name`` (its ``namespace`` or, by default, its name)."""
        return self.tenants[name].namespace or name


# --------------------------------------------------------------------------------------------------------------
# Subnet plan


SUBNET_ROLES = ("controlPlane", "workers", "pods", "internalLoadBalancers", "publicLoadBalancers", "storage")


def default_subnet_plan(vcn_cidr: str) -> dict[str, str]:
    """The default subnet CIDR per role carved from ``vcn_cidr`` (an IPv4 CIDR from /8 to /20).

    For a VCN of prefix /p: pods get the upper half (/p+1, every pod takes a VCN IP); workers the second /p+4;
    the first /p+4 is cut into /p+8 blocks for internal load balancers, public load balancers and storage, and
    the control plane gets a /28 at the start. For 10.0.0.0/16 that is 10.0.0.0/28, 10.0.16.0/20, 10.0.128.0/17,
    10.0.1.0/24, 10.0.2.0/24, 10.0.3.0/24.

    :raises ValueError: if the VCN is smaller than /20.
    """
    vcn = ipaddress.IPv4Network(vcn_cidr)
    p = vcn.prefixlen
    if p > 20:
        raise ValueError("is smaller than /20, too small for the default subnet plan")
    lower, upper = vcn.subnets(new_prefix=p + 1)
    blocks = list(lower.subnets(new_prefix=p + 4))
    small = list(blocks[0].subnets(new_prefix=p + 8))
    control_plane = next(small[0].subnets(new_prefix=max(28, p + 8)))
    return {
        "controlPlane": str(control_plane),
        "workers": str(blocks[1]),
        "pods": str(upper),
        "internalLoadBalancers": str(small[1]),
        "publicLoadBalancers": str(small[2]),
        "storage": str(small[3]),
    }


def subnet_plan(network: Network) -> dict[str, str]:
    """The effective subnet CIDR per role: overrides from ``network.subnets``, the default plan elsewhere."""
    overrides = network.subnets.model_dump(by_alias=True)
    missing = [r for r in SUBNET_ROLES if overrides.get(r) is None]
    plan = default_subnet_plan(network.vcn_cidr) if missing else {}
    return {r: overrides.get(r) or plan[r] for r in SUBNET_ROLES}


# --------------------------------------------------------------------------------------------------------------
# Loading


_TOP_LEVEL_FIELDS = {f.alias or name: name for name, f in StackConfig.model_fields.items()}


def _key(loc: tuple[Any, ...]) -> str:
    """``('nodePools', 'gpu', 'size')`` → ``oke-rdma:nodePools.gpu.size`` (``oci:region`` for the region)."""
    if loc and loc[0] == "region":
        return "oci:region"
    path = ".".join(str(p) for p in loc)
    return f"{NAMESPACE}:{path}" if path else NAMESPACE


def _model_for(path: tuple[Any, ...]) -> Optional[type[BaseModel]]:
    """The model class whose keys live at ``path`` (used to suggest the nearest valid key for a typo)."""
    model: Any = StackConfig
    in_map = False
    for part in path:
        if in_map:  # ``part`` is a map key (a pool or tenant name): ``model`` is already the value model
            in_map = False
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None:
            return None
        ann = field.annotation
        args = getattr(ann, "__args__", ())
        if getattr(ann, "__origin__", None) is dict:
            ann, in_map = args[1], True
            args = ()
        model = next((a for a in (ann, *args) if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if model is None:
            return None
    return model


def _format_error(err: Mapping[str, Any]) -> str:
    loc = tuple(err["loc"])
    key = _key(loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        model = _model_for(loc[:-1])
        valid = [f.alias or n for n, f in model.model_fields.items()] if model else []
        close = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else f"valid keys here: {', '.join(valid)}"
        return f"{key}: unknown key; {hint}"
    if kind == "missing":
        return f"{key}: required; set it in the stack config (see Pulumi.yaml for its type and description)"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    return f"{key}: {msg}"


def _decode_raw(raw: Mapping[str, str]) -> dict[str, Any]:
    """Pulumi hands config to programs as strings (structured values as JSON): decode them per key."""
    data: dict[str, Any] = {}
    for full_key, value in raw.items():
        ns, _, name = full_key.partition(":")
        if full_key == "oci:region":
            data["region"] = value
            continue
        if ns != NAMESPACE:
            continue
        field_name = _TOP_LEVEL_FIELDS.get(name)
        if field_name is not None and StackConfig.model_fields[field_name].annotation is str:
            data[name] = value
            continue
        try:
            data[name] = json.loads(value) if isinstance(value, str) else value
        except json.JSONDecodeError:
            # A plain string where an object, list, number or boolean is expected: let pydantic name the type.
            data[name] = value
    return data


def load_stack_config(raw: Mapping[str, str]) -> StackConfig:
    """Parse and check the stack's raw Pulumi config (``{"oke-rdma:network": "<json>", ...}``).

    :returns: the frozen :class:`StackConfig`.
    :raises ConfigError: with one line per problem — type and range errors, unknown keys (with the nearest valid
        key), and every cross-field rule of :func:`cross_checks` — all at once.
    """
    data = _decode_raw(raw)
    problems: list[str] = []
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as e:
        errors = e.errors()
        # A list whose items were refused is also "too short" after validation: report only the items.
        item_locs = {tuple(err["loc"][:-1]) for err in errors if err["loc"] and isinstance(err["loc"][-1], int)}
        problems += [_format_error(err) for err in errors
                     if not (err["type"] == "too_short" and tuple(err["loc"]) in item_locs)]
        raise ConfigError(problems) from None
    problems += cross_checks(cfg)
    if problems:
        raise ConfigError(problems)
    return cfg


def raw_pulumi_config() -> dict[str, str]:
    """Every config key the Pulumi runtime holds (set explicitly or handed over in ``PULUMI_CONFIG``)."""
    from pulumi.runtime import config as runtime_config

    merged = dict(runtime_config.get_config_env())
    merged.update(runtime_config.CONFIG.get())
    return merged


def load_from_pulumi() -> StackConfig:
    """Load the running stack's config (see :func:`load_stack_config`)."""
    return load_stack_config(raw_pulumi_config())


# --------------------------------------------------------------------------------------------------------------
# Cross-field rules


def _check_network(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    try:
        plan = subnet_plan(cfg.network)
    except ValueError as e:
        return [f"{_key(('network', 'vcnCidr'))}: {e}; use a /16 (or larger) VCN or give every "
                f"oke-rdma:network.subnets CIDR"]
    vcn = ipaddress.IPv4Network(cfg.network.vcn_cidr)
    nets = {role: ipaddress.IPv4Network(c) for role, c in plan.items()}
    for role, net in nets.items():
        if not net.subnet_of(vcn):
            problems.append(f"{_key(('network', 'subnets', role))}: {net} is not inside the VCN "
                            f"{vcn}; pick a CIDR inside oke-rdma:network.vcnCidr")
    roles = list(nets)
    for i, a in enumerate(roles):
        for b in roles[i + 1:]:
            if nets[a].overlaps(nets[b]):
                problems.append(f"{_key(('network', 'subnets', b))}: {nets[b]} overlaps the {a} subnet "
                                f"{nets[a]}; subnets of one VCN must not overlap")
    svc = ipaddress.IPv4Network(cfg.cluster.services_cidr)
    if svc.overlaps(vcn):
        problems.append(f"{_key(('cluster', 'servicesCidr'))}: {svc} overlaps the VCN {vcn}; "
                        f"Kubernetes service IPs must not collide with VCN addresses")
    api = cfg.network.api_endpoint
    if api.public and not api.allowed_cidrs:
        problems.append(f"{_key(('network', 'apiEndpoint', 'allowedCidrs'))}: a public API endpoint needs the "
                        f"client CIDRs allowed to reach TCP 6443; list them (never 0.0.0.0/0)")
    # Pod-IP capacity (VCN-native pod networking gives every pod a pod-subnet IP).
    pods = nets["pods"].num_addresses - 3  # OCI reserves the first two and the last address of every subnet
    demand = sum(p.size * p.max_pods_per_node for p in cfg.node_pools.values())
    if demand > pods:
        problems.append(f"{_key(('network', 'subnets', 'pods'))}: {nets['pods']} has {pods} usable IPs but the "
                        f"node pools need {demand} (sum of size × maxPodsPerNode); enlarge the pod subnet or "
                        f"lower maxPodsPerNode")
    return problems


def _check_pools(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    ads = set(cfg.availability_domains)
    cc = cfg.compute_cluster
    if cc is not None and cc.availability_domain not in ads:
        problems.append(f"{_key(('computeCluster', 'availabilityDomain'))}: {cc.availability_domain!r} is not in "
                        f"oke-rdma:availabilityDomains; add it there or pick one of {sorted(ads)}")
    for name, pool in cfg.node_pools.items():
        at = ("nodePools", name)
        if not _K8S_NAME_RE.match(name):
            problems.append(f"{_key(at)}: the pool name must be lowercase letters, digits and '-'; rename it")
        for ad in pool.availability_domains:
            if ad not in ads:
                problems.append(f"{_key(at + ('availabilityDomains',))}: {ad!r} is not in "
                                f"oke-rdma:availabilityDomains; add it there or remove it here")
        if pool.is_flex and (pool.ocpus is None or pool.memory_gb is None):
            problems.append(f"{_key(at + ('ocpus' if pool.ocpus is None else 'memoryGb',))}: required for the "
                            f"Flex shape {pool.shape}; set ocpus and memoryGb")
        if not pool.is_flex and (pool.ocpus is not None or pool.memory_gb is not None):
            problems.append(f"{_key(at + ('ocpus' if pool.ocpus is not None else 'memoryGb',))}: only Flex shapes "
                            f"take ocpus/memoryGb; {pool.shape} has a fixed size, remove them")
        if not pool.rdma:
            continue
        # OKE docs, "Using Compute Clusters to Provision Managed Nodes".
        if pool.fault_domains:
            problems.append(f"{_key(at + ('faultDomains',))}: must be empty for a node pool in a Compute Cluster "
                            f"(OCI places nodes itself); remove it")
        if pool.shape not in RDMA_SHAPES:
            problems.append(f"{_key(at + ('shape',))}: {pool.shape} is not a shape Oracle lists for RDMA in Compute "
                            f"Clusters ({', '.join(sorted(RDMA_SHAPES))}); pick one or set rdma: false")
        if cc is None:
            problems.append(f"{_key(at + ('rdma',))}: an RDMA pool needs oke-rdma:computeCluster "
                            f"(availabilityDomain, or existingId of an ACTIVE Compute Cluster); add it")
        elif pool.availability_domains and tuple(pool.availability_domains) != (cc.availability_domain,):
            problems.append(f"{_key(at + ('availabilityDomains',))}: an RDMA pool has exactly one placement, in the "
                            f"Compute Cluster's availability domain {cc.availability_domain!r}; remove the others")
    return problems


def _check_tenants(cfg: StackConfig) -> list[str]:
    problems: list[str] = []
    reserved = {"default", "kube-system", "kube-public", "kube-node-lease"}
    platform = {getattr(cfg.platform, f).namespace for f in Platform.model_fields}
    seen: dict[str, str] = {}
    for name in cfg.tenants:
        ns = cfg.tenant_namespace(name)
        at = ("tenants", name, "namespace")
        if not _K8S_NAME_RE.match(ns):
            problems.append(f"{_key(('tenants', name))}: the tenant name is used as its namespace and must be a "
                            f"Kubernetes name; rename it or set namespace")
        elif ns in reserved or ns in platform:
            problems.append(f"{_key(at)}: {ns!r} is a system or platform namespace; give the tenant its own")
        elif ns in seen:
            problems.append(f"{_key(at)}: {ns!r} is already the namespace of tenant {seen[ns]!r}; "
                            f"tenants must not share")
        seen[ns] = name
    return problems


def cross_checks(cfg: StackConfig) -> list[str]:
    """Rules spanning several keys: subnet plan and overlaps, pod-IP capacity, Compute Cluster placement
    (enhanced-only features, AD, no fault domains, RDMA shapes), Flex sizing and tenant namespaces.

    :returns: one message per problem, each starting with the config key path.
    """
    return _check_network(cfg) + _check_pools(cfg) + _check_tenants(cfg)
