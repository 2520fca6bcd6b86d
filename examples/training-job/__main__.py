"""training-job: a multi-node RDMA training Job on an oke-rdma cluster, built only from that stack's outputs.

Reads the oke-rdma stack named by ``training-job:platformStack`` through ``pulumi.StackReference`` (its output
contract: ``outputs.contract.json`` of oke-rdma, version checked first), builds an explicit Kubernetes provider from
its ``kubeconfig`` output, and deploys into the tenant ``training-job:tenant``:

* a ConfigMap with the training script (``train.py`` beside this file) and a headless Service giving the Job's
  pods stable DNS names (``<job>-0.<job>`` is torchrun's rendezvous);
* an Indexed ``batch/v1`` Job of ``nodes`` pods — one per RDMA node, every GPU of the node — queued through the
  tenant's Kueue LocalQueue (``kueue.x-k8s.io/queue-name``), admitted only when every pod fits in one domain of the
  RDMA topology level ``topologyLevel`` (``kueue.x-k8s.io/podset-required-topology``). Kueue adds the RDMA pool's
  node selector and tolerations from its ResourceFlavor at admission. Pods use the host's RDMA NICs (hostNetwork,
  ``/dev/infiniband``, IPC_LOCK to pin memory), a memory-backed ``/dev/shm``, the tenant's shared FSS claim at
  ``/shared`` (checkpoints in ``/shared/checkpoints/<job>``), and the tenant's ServiceAccount, so OCI SDK calls in
  the pod authenticate with OKE Workload Identity.
* The pods run as the tenant's storage UID/GID (``runAsUser``/``runAsGroup``: the ``okerdma.io/uid`` and
  ``okerdma.io/gid`` annotations of the tenant's claim, i.e. ``tenants.<tenant>.sharedStorage.uid/gid`` of the
  platform): the export squashes root to the anonymous user, so only the owner of the tenant's directory can write
  checkpoints. With ``subPath`` (the claim's ``okerdma.io/sub-path``) the volume mounts that directory only.

Only core Kubernetes and Kueue are needed (no training operator). Every refusal is a ``pulumi.RunError`` naming the
config key or the platform output at fault: an unsupported ``outputsVersion``, an unknown tenant, a tenant that is
not RDMA-enabled, has no shared claim, no ServiceAccount or no LocalQueue, no RDMA pool or topology, too many nodes.
The outputs it reads are first checked against the subset of the output contract it needs (:class:`PlatformOutputs`,
pydantic): a missing or malformed output (a pool without ``size``, ``tenants`` given as a list, ``size: "two"``, no
``region``, no ``kubeconfig``) is refused with one line naming it (``nodePools.gpu.size: ...``), never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr, ValidationError

#: The oke-rdma output contract versions this program reads.
# 2 widens the region pattern (us-gov-ashburn-1); 3 adds weightsBucket and tenants.<t>.weights (not read here yet)
SUPPORTED_OUTPUTS_VERSIONS = (1, 2, 3)
RENDEZVOUS_PORT = 29500
SHARED_MOUNT = "/shared"
#: NCCL settings per shape for the RDMA NICs (Oracle's recommended NCCL parameters for BM.GPU.H100.8, as in
#: oracle-quickstart/oci-hpc-oke); other shapes let NCCL discover the HCAs itself.
NCCL_BY_SHAPE = {
    "BM.GPU.H100.8": {
        "NCCL_IB_HCA": "=mlx5_0,mlx5_1,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,mlx5_12,mlx5_13,"
                       "mlx5_14,mlx5_15,mlx5_16,mlx5_17",
        "NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "41", "NCCL_IB_SL": "0", "NCCL_IB_TIMEOUT": "22",
        "NCCL_SOCKET_IFNAME": "eth0", "NCCL_CUMEM_ENABLE": "0"},
}

config = pulumi.Config()
platform_stack = config.require("platformStack")
tenant_name = config.require("tenant")
job_name = config.get("jobName") or "train"
nodes = config.get_int("nodes") or 2
pool_name = config.get("nodePool")
topology_level = config.get("topologyLevel") or "oci.oraclecloud.com/rdma.network_block_id"
topology_mode = config.get("topologyMode") or "required"
service_account = config.get("serviceAccount")
image = config.get("image") or "nvcr.io/nvidia/pytorch:25.03-py3"
cpu = config.get_int("cpu") or 96
memory_gi = config.get_int("memoryGi") or 1000
shm_gi = config.get_int("shmGi") or 64
run_as_user = config.get_int("runAsUser")
run_as_group = config.get_int("runAsGroup")
sub_path = config.get("subPath") or None


def refuse(key: str, problem: str, fix: str) -> None:
    """Stop the program with one line ``<key>: <problem>; <fix>`` (no traceback)."""
    raise pulumi.RunError(f"{key}: {problem}; {fix}")


if nodes < 1:
    refuse("training-job:nodes", f"must be at least 1, got {nodes}", "set the number of RDMA nodes")
if topology_mode not in ("required", "preferred"):
    refuse("training-job:topologyMode", f"must be required or preferred, got {topology_mode!r}", "pick one")
if min(cpu, memory_gi, shm_gi) < 1 or shm_gi >= memory_gi:
    refuse("training-job:shmGi", f"cpu, memoryGi and shmGi must be positive and shmGi below memoryGi "
           f"(got {cpu}, {memory_gi}, {shm_gi})", "correct the values")

for key, value in (("runAsUser", run_as_user), ("runAsGroup", run_as_group)):
    # root is squashed to 65534 by the platform's export: a root or anonymous writer cannot write checkpoints
    if value is None or value < 1000 or value == 65534:
        refuse(f"training-job:{key}", f"must be the tenant's non-root storage ID (the okerdma.io/"
               f"{'uid' if key == 'runAsUser' else 'gid'} annotation of its claim), got {value}",
               "read it with kubectl get pvc fss-shared -n <namespace> -o jsonpath='{.metadata.annotations}'")
if sub_path is not None and (sub_path.startswith("/") or ".." in sub_path.split("/")):
    refuse("training-job:subPath", f"must be the claim's relative okerdma.io/sub-path, got {sub_path!r}",
           "copy it from the claim's annotation")

platform = pulumi.StackReference("platform", stack_name=platform_stack)


def _json_kind(value: Any) -> str:
    """What a JSON value is, for a refusal: ``a string 'two'``, ``a list``, ``null`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string {value!r}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _whole_number(value: Any) -> Any:
    """Stack outputs cross the wire as JSON numbers (2 may arrive as 2.0); a string, a boolean or a fraction is not a
    whole number."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a whole number, got {_json_kind(value)}")
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole_number), Field(ge=0)]


class _Output(BaseModel):
    # The contract may grow new fields within a version (consumers ignore what they do not read); the types of the
    # fields read here are checked strictly: no "2" for 2, no "true" for true.
    model_config = ConfigDict(extra="ignore", strict=True)


class NodePoolOutput(_Output):
    """``nodePools.<pool>`` of the contract: the fields this Job reads."""
    shape: StrictStr
    size: WholeNumber
    rdma: StrictBool
    gpusPerNode: WholeNumber


class TenantOutput(_Output):
    """``tenants.<tenant>`` of the contract: the fields this Job reads."""
    namespace: Annotated[StrictStr, Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)]
    podSecurity: StrictStr
    rdma: StrictBool
    localQueue: Optional[StrictStr] = None  # null in the contract; a null crosses the wire as absent
    serviceAccounts: list[StrictStr]
    sharedStorageClaim: Optional[StrictStr] = None


class TopologyOutput(_Output):
    """``topology`` of the contract (absent without Kueue or RDMA pools)."""
    levels: list[StrictStr]


class PlatformOutputs(_Output):
    """The subset of oke-rdma's output contract (``outputs.contract.json``, version 1) this program reads, besides
    ``outputsVersion`` (checked first) and ``kubeconfig`` (a secret, checked on its own so the rest stays plain)."""
    region: Annotated[StrictStr, Field(pattern=r"^[a-z]+(-[a-z]+)+-[0-9]+$")]
    tenants: dict[str, TenantOutput]
    nodePools: dict[str, NodePoolOutput]
    topology: Optional[TopologyOutput] = None


def _problem(error: dict[str, Any]) -> str:
    """One pydantic error as ``<output path>: <what is wrong>``."""
    path = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        return f"{path}: missing"
    if error["type"] == "value_error":  # ours: the message says it all
        return f"{path}: {error['ctx']['error']}"
    wanted = {"dict_type": "must be an object", "string_type": "must be a string", "bool_type": "must be true or false",
              "list_type": "must be a list"}.get(error["type"], error["msg"][0].lower() + error["msg"][1:])
    return f"{path}: {wanted}, got {_json_kind(error['input'])}"


def refuse_outputs(problems: list[str]) -> None:
    """Stop the program with one line naming every platform output at fault."""
    raise pulumi.RunError(f"{'; '.join(problems)}: the outputs of {platform_stack} do not honour the oke-rdma output "
                          f"contract version {SUPPORTED_OUTPUTS_VERSIONS[-1]} (outputs.contract.json); fix the "
                          "platform stack (pulumi up of a current oke-rdma) or point training-job:platformStack at "
                          "another stack")


def check_outputs(values: dict[str, Any]) -> PlatformOutputs:
    """The outputs this Job reads, checked against :class:`PlatformOutputs` (missing optional ``topology`` allowed).

    :raises pulumi.RunError: one line naming each output at fault (``nodePools.gpu.size: missing``)."""
    try:
        # an output that is absent reads as None: it is missing, whatever its type
        return PlatformOutputs.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as e:
        refuse_outputs([_problem(error) for error in e.errors(include_url=False)])
        raise  # unreachable: refuse_outputs raises


def check_kubeconfig(kubeconfig: Any) -> str:
    """The ``kubeconfig`` output: a non-empty string (the value stays a secret: this runs inside its own apply)."""
    if not isinstance(kubeconfig, str) or not kubeconfig.strip():
        got = "an empty string" if isinstance(kubeconfig, str) else _json_kind(kubeconfig)
        refuse_outputs(["kubeconfig: missing" if kubeconfig is None else f"kubeconfig: must be a kubeconfig, got {got}"])
    return kubeconfig


def plan(values: list[Any]) -> dict[str, Any]:
    """Check the platform's outputs against what this Job needs; return what the resources below use."""
    version, tenants, pools, topology, region = values
    where = f"the outputs of {platform_stack}"
    if isinstance(version, float) and version.is_integer():
        version = int(version)  # stack outputs cross the wire as JSON numbers
    if isinstance(version, (str, bool)):
        refuse("outputsVersion", f"{where} have an outputsVersion that is {_json_kind(version)}, not a number: the "
               f"contract's version is a whole number (this program reads versions "
               f"{', '.join(map(str, SUPPORTED_OUTPUTS_VERSIONS))})",
               "fix the platform stack's outputsVersion output (pulumi up of a current oke-rdma)")
    if version not in SUPPORTED_OUTPUTS_VERSIONS:
        refuse("outputsVersion", f"{where} have output contract version {version!r}, this program reads versions "
               f"{', '.join(map(str, SUPPORTED_OUTPUTS_VERSIONS))}",
               "update this program for the new contract (oke-rdma docs/outputs.md) or point "
               "training-job:platformStack at a stack of a supported version")
    outputs = check_outputs({"tenants": tenants, "nodePools": pools, "topology": topology, "region": region})
    tenants = {name: t.model_dump() for name, t in outputs.tenants.items()}
    pools = {name: p.model_dump() for name, p in outputs.nodePools.items()}
    topology = outputs.topology.model_dump() if outputs.topology else None
    region = outputs.region
    tenants = tenants or {}
    if tenant_name not in tenants:
        refuse("training-job:tenant", f"{where} have no tenant {tenant_name!r} (tenants: "
               f"{', '.join(sorted(tenants)) or 'none'})", "pick one of them")
    tenant = tenants[tenant_name]
    if not tenant.get("rdma") or tenant.get("podSecurity") != "privileged":
        refuse("training-job:tenant", f"tenant {tenant_name!r} is not RDMA-enabled (rdma: "
               f"{str(bool(tenant.get('rdma'))).lower()}, Pod Security {tenant.get('podSecurity')}): its namespace refuses hostNetwork, /dev/infiniband and IPC_LOCK",
               "use an RDMA tenant, or ask the platform team to set tenants." + tenant_name + ".rdma: true")
    if not tenant.get("sharedStorageClaim"):
        refuse("training-job:tenant", f"tenant {tenant_name!r} has no shared FSS claim for checkpoints",
               "ask the platform team to give it sharedStorage")
    accounts = list(tenant.get("serviceAccounts") or [])
    if not accounts:
        refuse("training-job:tenant", f"tenant {tenant_name!r} has no Workload Identity ServiceAccount",
               "ask the platform team to add one under tenants." + tenant_name + ".serviceAccounts")
    account = service_account or (accounts[0] if len(accounts) == 1 else None)
    if account not in accounts:
        refuse("training-job:serviceAccount", f"{service_account or 'not set'}; tenant {tenant_name!r} has "
               f"ServiceAccounts {', '.join(accounts)}", "set it to one of them")
    if not tenant.get("localQueue"):
        refuse("training-job:tenant", f"tenant {tenant_name!r} has no Kueue LocalQueue (Kueue is not enabled)",
               "ask the platform team to enable platform.kueue")
    rdma_pools = {name: p for name, p in (pools or {}).items() if p.get("rdma")}
    chosen = pool_name or (next(iter(rdma_pools)) if len(rdma_pools) == 1 else None)
    if chosen not in rdma_pools:
        refuse("training-job:nodePool", f"{pool_name or 'not set'}; the RDMA pools of {platform_stack} are "
               f"{', '.join(sorted(rdma_pools)) or 'none'}", "set it to one of them")
    pool = rdma_pools[chosen]
    if nodes > int(pool["size"]) or not int(pool.get("gpusPerNode") or 0):
        refuse("training-job:nodes", f"{nodes} nodes asked, pool {chosen!r} has {int(pool['size'])} nodes with "
               f"{int(pool.get('gpusPerNode') or 0)} GPUs each", "ask for at most the pool's size")
    levels = list((topology or {}).get("levels") or [])
    if topology_level not in levels:
        refuse("training-job:topologyLevel", f"{topology_level!r} is not a level of the stack's Kueue topology "
               f"({', '.join(levels) or 'none: no RDMA topology'})", "pick one of the levels")
    return {"namespace": tenant["namespace"], "queue": tenant["localQueue"], "claim": tenant["sharedStorageClaim"],
            "serviceAccount": account, "gpus": int(pool["gpusPerNode"]), "shape": pool["shape"], "region": region}


checked = pulumi.Output.all(platform.get_output("outputsVersion"), platform.get_output("tenants"),
                            platform.get_output("nodePools"), platform.get_output("topology"),
                            platform.get_output("region")).apply(plan)
namespace = checked.apply(lambda p: p["namespace"])

# One explicit provider from the platform's kubeconfig (a secret; it runs `oci ce cluster generate-token`, so the
# OCI CLI must be installed where `pulumi up` runs, inside or routed into the VCN: the API endpoint is private).
provider = k8s.Provider("platform", k8s.ProviderArgs(kubeconfig=platform.get_output("kubeconfig").apply(check_kubeconfig),
                                                     enable_server_side_apply=True, delete_unreachable=False))
k8s_opts = pulumi.ResourceOptions(provider=provider)
labels = {"app.kubernetes.io/name": job_name, "app.kubernetes.io/managed-by": "pulumi"}

script = k8s.core.v1.ConfigMap(f"{job_name}-script", k8s.core.v1.ConfigMapInitArgs(
    metadata=k8s.meta.v1.ObjectMetaArgs(name=job_name, namespace=namespace, labels=labels),
    data={"train.py": (Path(__file__).resolve().parent / "train.py").read_text(encoding="utf-8")}), k8s_opts)

service = k8s.core.v1.Service(f"{job_name}-rendezvous", k8s.core.v1.ServiceInitArgs(
    metadata=k8s.meta.v1.ObjectMetaArgs(name=job_name, namespace=namespace, labels=labels),
    spec=k8s.core.v1.ServiceSpecArgs(cluster_ip="None", selector={"job-name": job_name}, publish_not_ready_addresses=True,
                                     ports=[k8s.core.v1.ServicePortArgs(name="rendezvous", port=RENDEZVOUS_PORT)])),
    k8s_opts)


def env(p: dict[str, Any]) -> list[k8s.core.v1.EnvVarArgs]:
    values = {"CHECKPOINT_DIR": f"{SHARED_MOUNT}/checkpoints/{job_name}", "NCCL_DEBUG": "WARN",
              # OKE Workload Identity for OCI SDK clients (oci.auth.signers.get_oke_workload_identity_...)
              "OCI_RESOURCE_PRINCIPAL_VERSION": "2.2", "OCI_RESOURCE_PRINCIPAL_REGION": p["region"],
              **NCCL_BY_SHAPE.get(p["shape"], {})}
    return [k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in values.items()]


def pod_spec(p: dict[str, Any]) -> k8s.core.v1.PodSpecArgs:
    gpus = str(p["gpus"])
    torchrun = (f"torchrun --nnodes={nodes} --nproc-per-node={gpus} --node-rank=${{JOB_COMPLETION_INDEX}} "
                f"--master-addr={job_name}-0.{job_name} --master-port={RENDEZVOUS_PORT} /opt/train/train.py")
    return k8s.core.v1.PodSpecArgs(
        subdomain=job_name,
        restart_policy="Never",
        service_account_name=p["serviceAccount"],
        # the tenant's storage IDs: root would be squashed to 65534 on the shared export and could not write
        security_context=k8s.core.v1.PodSecurityContextArgs(run_as_user=run_as_user, run_as_group=run_as_group,
                                                            run_as_non_root=True),
        host_network=True,  # the node's RDMA NICs (no RDMA device plugin needed)
        dns_policy="ClusterFirstWithHostNet",
        containers=[k8s.core.v1.ContainerArgs(
            name="train", image=image, command=["bash", "-c"], args=[torchrun], env=env(p),
            resources=k8s.core.v1.ResourceRequirementsArgs(
                requests={"cpu": str(cpu), "memory": f"{memory_gi}Gi", "nvidia.com/gpu": gpus},
                limits={"memory": f"{memory_gi}Gi", "nvidia.com/gpu": gpus}),
            security_context=k8s.core.v1.SecurityContextArgs(
                privileged=True,  # the host's /dev/infiniband devices
                capabilities=k8s.core.v1.CapabilitiesArgs(add=["IPC_LOCK"])),  # pin memory for RDMA registrations
            volume_mounts=[
                k8s.core.v1.VolumeMountArgs(name="script", mount_path="/opt/train", read_only=True),
                k8s.core.v1.VolumeMountArgs(name="infiniband", mount_path="/dev/infiniband"),
                k8s.core.v1.VolumeMountArgs(name="shm", mount_path="/dev/shm"),
                k8s.core.v1.VolumeMountArgs(name="shared", mount_path=SHARED_MOUNT, sub_path=sub_path)])],
        volumes=[
            k8s.core.v1.VolumeArgs(name="script", config_map=k8s.core.v1.ConfigMapVolumeSourceArgs(name=job_name)),
            k8s.core.v1.VolumeArgs(name="infiniband",
                                   host_path=k8s.core.v1.HostPathVolumeSourceArgs(path="/dev/infiniband")),
            k8s.core.v1.VolumeArgs(name="shm", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(
                medium="Memory", size_limit=f"{shm_gi}Gi")),
            k8s.core.v1.VolumeArgs(name="shared", persistent_volume_claim=(
                k8s.core.v1.PersistentVolumeClaimVolumeSourceArgs(claim_name=p["claim"])))])


job = k8s.batch.v1.Job(f"{job_name}-job", k8s.batch.v1.JobInitArgs(
    metadata=k8s.meta.v1.ObjectMetaArgs(
        name=job_name, namespace=namespace,
        labels={**labels, "kueue.x-k8s.io/queue-name": checked.apply(lambda p: p["queue"])},
        # a training run lasts hours: do not hold `pulumi up` until the Job completes
        annotations={"pulumi.com/skipAwait": "true"}),
    spec=k8s.batch.v1.JobSpecArgs(
        completion_mode="Indexed", completions=nodes, parallelism=nodes, backoff_limit=0,
        suspend=True,  # Kueue un-suspends it at admission
        template=k8s.core.v1.PodTemplateSpecArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(labels=labels, annotations={
                f"kueue.x-k8s.io/podset-{topology_mode}-topology": topology_level}),
            spec=checked.apply(pod_spec)))),
    # Kueue flips spec.suspend; a later `pulumi up` must not suspend a running Job again.
    pulumi.ResourceOptions(provider=provider, depends_on=[script, service], ignore_changes=["spec.suspend"]))

pulumi.export("namespace", namespace)
pulumi.export("job", job.metadata.name)
pulumi.export("localQueue", checked.apply(lambda p: p["queue"]))
pulumi.export("gpus", checked.apply(lambda p: p["gpus"] * nodes))
pulumi.export("checkpoints", checked.apply(lambda p: f"{p['claim']}:{SHARED_MOUNT}/checkpoints/{job_name}"))
