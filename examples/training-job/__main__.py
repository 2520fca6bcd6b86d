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
  the pod authenticate with OKE Workload Identity. NCCL's settings for the pool's shape (which RDMA NICs, the RoCE
  settings) come from ``nccl_env.py``, a copy of oke-rdma's facts kept equal by a test; an RDMA shape without values
  there gets a one-line warning.
* With ``weightsPrefix`` (a folder of the stack's weights bucket, contract version 3): two init containers copy it
  into the node's local NVMe before training — ``nvme-prepare`` (root with CHOWN/FOWNER only) gives the tenant a
  0700 directory ``<localNvme.mountPath>/<namespace>``, then ``weights`` runs ``stage_weights.py`` (beside this
  file, in the ConfigMap) as the tenant with the OCI SDK signed by Workload Identity: parallel ranged GETs, skips
  what the node already holds, one copy at a time per node. The NVMe is a ``hostPath`` of type ``Directory`` (RDMA
  tenants only), the pods select ``okerdma.io/local-nvme: "true"`` nodes, and training reads ``$WEIGHTS_DIR``
  (``/local/weights/<prefix>``). No credentials: no key, no secret, no credential variable.
* Checkpoints go to the tenant's FSS claim (``checkpointVolume: fss``, ``sharedStorageClaim``) or its Lustre claim
  (``lustre``, ``lustreClaim``). With ``checkpointUpload: true`` and a ``readWrite`` grant, a ``checkpoint-upload``
  container beside the training waits for its exit code and, on the first pod after a successful run, uploads the
  last checkpoint under the grant's ``checkpointPrefix`` (``<prefix><job>/step-*.pt``). The containers are built in
  ``job_storage.py``.
* The pods run as the tenant's storage UID/GID (``tenants.<tenant>.runAsUser``/``runAsGroup`` of the platform's
  outputs, contract version 5; before it ``training-job:runAsUser``/``runAsGroup``, the claim's ``okerdma.io/uid``
  and ``okerdma.io/gid`` annotations): both file systems squash root, so only the owner of the tenant's directory
  can write checkpoints. The checkpoint volume mounts that directory only (``sharedStorageSubPath`` or
  ``lustreSubPath``; before version 5 ``training-job:subPath``).

Only core Kubernetes and Kueue are needed (no training operator). Every refusal is a ``pulumi.RunError`` naming the
config key or the platform output at fault: an unsupported ``outputsVersion``, an unknown tenant, a tenant that is
not RDMA-enabled, has no claim of the chosen ``checkpointVolume``, no ServiceAccount or no LocalQueue, no RDMA pool
or topology, too many nodes; with ``weightsPrefix`` or ``checkpointUpload``: a contract before version 3, no
``weightsBucket``, no ``tenants.<t>.weights`` grant or one for another ServiceAccount; a pool without ``localNvme``
(weights); a grant that is not ``readWrite`` (upload).
The outputs it reads are first checked against the subset of the output contract it needs
(:class:`platform_outputs.PlatformOutputs`, pydantic): a missing or malformed output (a pool without ``size``,
``tenants`` given as a list, ``size: "two"``, no ``region``, no ``kubeconfig``) is refused with one line naming it
(``nodePools.gpu.size: ...``), never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError

# Pulumi's Python language host runs the project directory, which puts it on sys.path; a runner that executes this
# file (the offline preview) does not: the sibling module is found either way.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import job_storage  # noqa: E402
from nccl_env import nccl_env  # noqa: E402
from job_storage import LOCAL_MOUNT  # noqa: E402
from platform_outputs import PlatformOutputs, json_kind, problem_line  # noqa: E402

#: The oke-rdma output contract versions this program reads.
#: 2 widens the region pattern; 3 adds weightsBucket and tenants.<t>.weights; 4 adds nodePools.<p>.localNvme and
#: tenants.<t>.lustreClaim (older stacks lack them: a Job that needs them is refused, naming the output); 5 adds
#: tenants.<t>.runAsUser/runAsGroup and sharedStorageSubPath/lustreSubPath (read instead of training-job config).
SUPPORTED_OUTPUTS_VERSIONS = (1, 2, 3, 4, 5)
#: The first version with the weights bucket and the tenants' grants (training-job:weightsPrefix needs it).
WEIGHTS_OUTPUTS_VERSION = 3
#: The first version with tenants.<t>.runAsUser/runAsGroup and the claims' sub-paths (before it: training-job:
#: runAsUser/runAsGroup/subPath, copied from the claim's annotations).
IDS_OUTPUTS_VERSION = 5
RENDEZVOUS_PORT = 29500
SHARED_MOUNT = "/shared"
#: The label oke-rdma puts on the nodes of a pool with localNvme (oke-rdma docs/storage.md, "Local NVMe on GPU nodes").
LOCAL_NVME_LABEL = "okerdma.io/local-nvme"
#: Oracle's OCI CLI container image: Python 3 (3.9, Oracle Linux 8) and the OCI Python SDK with the CLI
#: (oracle/docker-images, OracleCloudInfrastructure/oci-cli/Dockerfile; checked 2026-12-01). Its tags are build dates;
#: this one is the newest seen pinned in public code, not pulled here: check github.com/oracle/oci-cli/pkgs/container
#: for a current tag and pin it (or a digest) with training-job:weightsImage. stage_weights.py keeps to Python 3.9.
#: The training image when ``training-job:image`` is not set (NGC PyTorch; pinned by tag).
# renovate: datasource=docker depName=nvcr.io/nvidia/pytorch
DEFAULT_IMAGE = "nvcr.io/nvidia/pytorch:25.03-py3"
# renovate: datasource=docker depName=ghcr.io/oracle/oci-cli
WEIGHTS_IMAGE = "ghcr.io/oracle/oci-cli:20260930"
config = pulumi.Config()
platform_stack = config.require("platformStack")
tenant_name = config.require("tenant")
job_name = config.get("jobName") or "train"
nodes = config.get_int("nodes") or 2
pool_name = config.get("nodePool")
topology_level = config.get("topologyLevel") or "oci.oraclecloud.com/rdma.network_block_id"
topology_mode = config.get("topologyMode") or "required"
service_account = config.get("serviceAccount")
image = config.get("image") or DEFAULT_IMAGE
cpu = config.get_int("cpu") or 96
memory_gi = config.get_int("memoryGi") or 1000
shm_gi = config.get_int("shmGi") or 64
run_as_user = config.get_int("runAsUser")
run_as_group = config.get_int("runAsGroup")
sub_path = config.get("subPath") or None
weights_prefix = config.get("weightsPrefix") or None
checkpoint_volume = config.get("checkpointVolume") or "fss"
weights_image = config.get("weightsImage") or WEIGHTS_IMAGE
checkpoint_upload = config.get_bool("checkpointUpload") or False


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
    # root is squashed to 65534 by the platform's export: a root or anonymous writer cannot write checkpoints.
    # Unset is checked once the platform's outputs are read: contract version 5 publishes the IDs.
    if value is not None and (value < 1000 or value == 65534):
        refuse(f"training-job:{key}", f"must be the tenant's non-root storage ID (tenants.<tenant>.{key} of the "
               f"platform's outputs), got {value}", "remove it to use the platform's, or correct it")
if sub_path is not None and (sub_path.startswith("/") or ".." in sub_path.split("/")):
    refuse("training-job:subPath", f"must be the claim's relative okerdma.io/sub-path, got {sub_path!r}",
           "copy it from the claim's annotation")

if weights_prefix is not None and (not weights_prefix.endswith("/") or weights_prefix.startswith("/")
                                   or any(p in ("", ".", "..") for p in weights_prefix[:-1].split("/"))):
    refuse("training-job:weightsPrefix", f"must be the weights' folder in the bucket, relative and ending with '/' "
           f"(e.g. models/llama-3-70b/), got {weights_prefix!r}", "correct the prefix")
if checkpoint_volume not in ("fss", "lustre"):
    refuse("training-job:checkpointVolume", f"must be fss or lustre, got {checkpoint_volume!r}",
           "pick the tenant's FSS claim (fss) or its Lustre claim (lustre)")
_, _, image_tag = weights_image.rpartition("/")[2].partition(":")
if "@sha256:" not in weights_image and image_tag in ("", "latest"):
    refuse("training-job:weightsImage", f"must be pinned by tag or digest, got {weights_image!r}",
           f"name a dated tag such as {WEIGHTS_IMAGE} or a @sha256: digest")

platform = pulumi.StackReference("platform", stack_name=platform_stack)


def platform_output(name: str) -> pulumi.Output[Any]:
    """``platform_output(name)`` without its eager coroutines (secret only when the platform marks it so): the
    SDK's ``get_output`` creates three coroutines at once, and when the reference fails the ones after the first are
    never awaited (``RuntimeWarning: coroutine 'Output.future' was never awaited``; pulumi
    ``stack_reference.py``, read 2026-12-02). The same as ``oke_rdma.network.stack_output`` (this project imports
    nothing from oke-rdma)."""
    value = pulumi.Output.unsecret(platform.outputs.apply(lambda outputs: (outputs or {}).get(name)))
    return pulumi.Output.all(value, platform.secret_output_names).apply(
        lambda v: pulumi.Output.secret(v[0]) if name in (v[1] or []) else v[0])


def refuse_outputs(problems: list[str], version: Any = None) -> None:
    """Stop the program with one line naming every platform output at fault."""
    version = SUPPORTED_OUTPUTS_VERSIONS[-1] if version is None else version
    version = int(version) if isinstance(version, float) and version.is_integer() else version
    raise pulumi.RunError(f"{'; '.join(problems)}: the outputs of {platform_stack} do not honour the oke-rdma output "
                          f"contract version {version} (outputs.contract.json); fix the "
                          "platform stack (pulumi up of a current oke-rdma) or point training-job:platformStack at "
                          "another stack")


def check_outputs(values: dict[str, Any], version: Any = None) -> PlatformOutputs:
    """The outputs this Job reads, checked against :class:`PlatformOutputs` (missing optional ``topology`` allowed).

    :raises pulumi.RunError: one line naming each output at fault (``nodePools.gpu.size: missing``)."""
    try:
        # an output that is absent reads as None: it is missing, whatever its type
        return PlatformOutputs.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as e:
        refuse_outputs([problem_line(error) for error in e.errors(include_url=False)], version)
        raise  # unreachable: refuse_outputs raises


def check_kubeconfig(values: list[Any]) -> str:
    """The ``kubeconfig`` output: a non-empty string (the value stays a secret: this runs inside its own apply, with
    ``outputsVersion`` only to name the contract version in a refusal)."""
    kubeconfig, version = values
    if not isinstance(kubeconfig, str) or not kubeconfig.strip():
        got = "an empty string" if isinstance(kubeconfig, str) else json_kind(kubeconfig)
        refuse_outputs(["kubeconfig: missing" if kubeconfig is None
                        else f"kubeconfig: must be a kubeconfig, got {got}"], version)
    return kubeconfig


def plan(values: list[Any]) -> dict[str, Any]:
    """Check the platform's outputs against what this Job needs; return what the resources below use."""
    version, tenants, pools, topology, region, bucket = values
    where = f"the outputs of {platform_stack}"
    if isinstance(version, float) and version.is_integer():
        version = int(version)  # stack outputs cross the wire as JSON numbers
    if isinstance(version, (str, bool)):
        refuse("outputsVersion", f"{where} have an outputsVersion that is {json_kind(version)}, not a number: the "
               f"contract's version is a whole number (this program reads versions "
               f"{', '.join(map(str, SUPPORTED_OUTPUTS_VERSIONS))})",
               "fix the platform stack's outputsVersion output (pulumi up of a current oke-rdma)")
    if version not in SUPPORTED_OUTPUTS_VERSIONS:
        refuse("outputsVersion", f"{where} have output contract version {version!r}, this program reads versions "
               f"{', '.join(map(str, SUPPORTED_OUTPUTS_VERSIONS))}",
               "update this program for the new contract (oke-rdma docs/outputs.md) or point "
               "training-job:platformStack at a stack of a supported version")
    outputs = check_outputs({"tenants": tenants, "nodePools": pools, "topology": topology, "region": region,
                             "weightsBucket": bucket}, version)
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
    if checkpoint_volume == "fss" and not tenant.get("sharedStorageClaim"):
        refuse("training-job:tenant", f"tenant {tenant_name!r} has no shared FSS claim for checkpoints",
               "ask the platform team to give it sharedStorage, or set training-job:checkpointVolume: lustre")
    if checkpoint_volume == "lustre" and not tenant.get("lustreClaim"):
        refuse("training-job:checkpointVolume", f"lustre, but tenant {tenant_name!r} has no Lustre claim in "
               f"{where} (tenants.{tenant_name}.lustreClaim is null or absent)",
               "ask the platform team to list the tenant in storage.lustre.tenants, or set it to fss")
    claim = tenant["sharedStorageClaim"] if checkpoint_volume == "fss" else tenant["lustreClaim"]
    accounts = list(tenant.get("serviceAccounts") or [])
    if not accounts:
        refuse("training-job:tenant", f"tenant {tenant_name!r} has no Workload Identity ServiceAccount",
               "ask the platform team to add one under tenants." + tenant_name + ".serviceAccounts")
    # with several ServiceAccounts, a Job that needs the bucket runs as the one granted it
    granted = (tenant.get("weights") or {}).get("serviceAccount") if weights_prefix or checkpoint_upload else None
    account = service_account or (accounts[0] if len(accounts) == 1 else granted if granted in accounts else None)
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
    weights = None if weights_prefix is None else check_weights(version, outputs, tenant, account, chosen, pool)
    upload = check_upload(version, outputs, tenant, account) if checkpoint_upload else None
    identity = check_identity(version, tenant)
    nccl, nccl_warning = nccl_env(pool["shape"])  # every RDMA shape the facts know; a warning for any other
    if nccl_warning:
        pulumi.log.warn(f"training-job:nodePool: pool {chosen!r}: {nccl_warning}")
    levels = list((topology or {}).get("levels") or [])
    if topology_level not in levels:
        refuse("training-job:topologyLevel", f"{topology_level!r} is not a level of the stack's Kueue topology "
               f"({', '.join(levels) or 'none: no RDMA topology'})", "pick one of the levels")
    return {"namespace": tenant["namespace"], "queue": tenant["localQueue"], "claim": claim,
            "serviceAccount": account, "gpus": int(pool["gpusPerNode"]), "shape": pool["shape"], "region": region,
            "weights": weights, "upload": upload, "nccl": nccl, **identity}


def check_identity(version: int, tenant: dict[str, Any]) -> dict[str, Any]:
    """``{runAsUser, runAsGroup, subPath}`` of the pods: from contract version 5's ``tenants.<t>.runAsUser``,
    ``runAsGroup`` and the chosen claim's sub-path (``sharedStorageSubPath`` / ``lustreSubPath``); before it, from
    ``training-job:runAsUser``, ``runAsGroup`` and ``subPath``. With version 5 a config value that differs from the
    platform's is refused (the tenant's directory belongs to the platform's IDs).

    :raises pulumi.RunError: one line naming the key at fault."""
    sub_key = "sharedStorageSubPath" if checkpoint_volume == "fss" else "lustreSubPath"
    if version < IDS_OUTPUTS_VERSION:
        for key, value in (("runAsUser", run_as_user), ("runAsGroup", run_as_group)):
            if value is None:
                refuse(f"training-job:{key}", f"not set, and the outputs of {platform_stack} (contract version "
                       f"{version}) do not publish the tenant's storage IDs (version {IDS_OUTPUTS_VERSION} does)",
                       "set it to the okerdma.io/" + ("uid" if key == "runAsUser" else "gid") + " annotation of the "
                       "tenant's claim (kubectl get pvc -n <namespace> -o jsonpath='{.items[*].metadata.annotations}')")
        return {"runAsUser": run_as_user, "runAsGroup": run_as_group, "subPath": sub_path}
    published = {"runAsUser": tenant.get("runAsUser"), "runAsGroup": tenant.get("runAsGroup"),
                 "subPath": tenant.get(sub_key)}
    for key, name in (("runAsUser", "runAsUser"), ("runAsGroup", "runAsGroup"), ("subPath", sub_key)):
        if key != "subPath" and published[key] is None:
            refuse_outputs([f"tenants.{tenant_name}.{name}: missing"], version)
        mine = {"runAsUser": run_as_user, "runAsGroup": run_as_group, "subPath": sub_path}[key]
        if mine is not None and mine != published[key]:
            refuse(f"training-job:{key}", f"{mine!r}, but the platform publishes tenants.{tenant_name}.{name}: "
                   f"{published[key]!r} (the owner of the tenant's directory)",
                   "remove it: the Job reads the platform's")
    return published


def check_grant(version: int, outputs: PlatformOutputs, tenant: dict[str, Any], account: str,
                needed_by: str, undo: str) -> dict[str, Any]:
    """The bucket and the tenant's grant on it, from contract version 3's ``weightsBucket`` and
    ``tenants.<tenant>.weights``, for the config key ``needed_by``.

    :raises pulumi.RunError: one line naming the output at fault: a version before 3, no bucket, no grant for the
        tenant, or a grant for another ServiceAccount than the pods'."""
    where = f"the outputs of {platform_stack}"
    if version < WEIGHTS_OUTPUTS_VERSION:
        refuse("outputsVersion", f"{where} have output contract version {version}; {needed_by} needs "
               f"version {WEIGHTS_OUTPUTS_VERSION} or later (weightsBucket, tenants.<tenant>.weights)",
               f"update the platform stack (pulumi up of a current oke-rdma) or {undo}")
    if outputs.weightsBucket is None:
        refuse("weightsBucket", f"absent or null in {where}: the platform stack has no weights bucket",
               f"ask the platform team for one (storage.objectStorage), or {undo}")
    grant = tenant.get("weights")
    if grant is None:
        refuse(f"tenants.{tenant_name}.weights", f"null in {where}: tenant {tenant_name!r} has no grant on the "
               f"weights bucket {outputs.weightsBucket.name}", "ask the platform team to grant it to the "
               f"ServiceAccount {account}, or {undo}")
    if grant["serviceAccount"] != account:
        refuse(f"tenants.{tenant_name}.weights.serviceAccount", f"the weights grant is for ServiceAccount "
               f"{grant['serviceAccount']!r}, the pods run as {account!r}",
               f"set training-job:serviceAccount: {grant['serviceAccount']}")
    bucket = outputs.weightsBucket
    return {"namespace": bucket.namespace, "bucket": bucket.name, "region": bucket.region, **grant}


def check_weights(version: int, outputs: PlatformOutputs, tenant: dict[str, Any], account: str, pool_name: str,
                  pool: dict[str, Any]) -> dict[str, Any]:
    """What the weights init containers need: :func:`check_grant` and the pool's ``localNvme``.

    :raises pulumi.RunError: as :func:`check_grant`, or for a pool without local NVMe."""
    grant = check_grant(version, outputs, tenant, account, "training-job:weightsPrefix",
                        "unset training-job:weightsPrefix")
    if not pool.get("localNvme"):
        refuse(f"nodePools.{pool_name}.localNvme", f"null or absent in the outputs of {platform_stack}: pool "
               f"{pool_name!r} has no local NVMe file system to copy the weights to", "ask the platform team to set "
               f"nodePools.{pool_name}.localNvme.enabled, or pick another pool with training-job:nodePool")
    return {**grant, "mountPath": pool["localNvme"]["mountPath"]}


def check_upload(version: int, outputs: PlatformOutputs, tenant: dict[str, Any], account: str) -> dict[str, Any]:
    """What the checkpoint upload needs: :func:`check_grant` with ``readWrite`` access and its ``checkpointPrefix``
    (the object names the grant lets the tenant create).

    :raises pulumi.RunError: as :func:`check_grant`, or for a read-only grant."""
    grant = check_grant(version, outputs, tenant, account, "training-job:checkpointUpload",
                        "set training-job:checkpointUpload: false")
    if grant["access"] != "readWrite" or not grant.get("checkpointPrefix"):
        refuse(f"tenants.{tenant_name}.weights.access", f"{grant['access']} (checkpointPrefix "
               f"{grant.get('checkpointPrefix')!r}): tenant {tenant_name!r} may not write to the bucket",
               "ask the platform team for readWrite access, or set training-job:checkpointUpload: false")
    return grant


checked = pulumi.Output.all(platform_output("outputsVersion"), platform_output("tenants"),
                            platform_output("nodePools"), platform_output("topology"),
                            platform_output("region"), platform_output("weightsBucket")).apply(plan)
namespace = checked.apply(lambda p: p["namespace"])

# One explicit provider from the platform's kubeconfig (a secret; it runs `oci ce cluster generate-token`, so the
# OCI CLI must be installed where `pulumi up` runs, inside or routed into the VCN: the API endpoint is private).
kubeconfig = pulumi.Output.all(platform_output("kubeconfig"), platform_output("outputsVersion")).apply(
    check_kubeconfig)
provider = k8s.Provider("platform", k8s.ProviderArgs(kubeconfig=kubeconfig,
                                                     enable_server_side_apply=True, delete_unreachable=False))
k8s_opts = pulumi.ResourceOptions(provider=provider)
labels = {"app.kubernetes.io/name": job_name, "app.kubernetes.io/managed-by": "pulumi"}

script = k8s.core.v1.ConfigMap(f"{job_name}-script", k8s.core.v1.ConfigMapInitArgs(
    metadata=k8s.meta.v1.ObjectMetaArgs(name=job_name, namespace=namespace, labels=labels),
    data={name: (Path(__file__).resolve().parent / name).read_text(encoding="utf-8")
          for name in ("train.py", *(("stage_weights.py",) if weights_prefix or checkpoint_upload else ()))}),
    k8s_opts)

service = k8s.core.v1.Service(f"{job_name}-rendezvous", k8s.core.v1.ServiceInitArgs(
    metadata=k8s.meta.v1.ObjectMetaArgs(name=job_name, namespace=namespace, labels=labels),
    spec=k8s.core.v1.ServiceSpecArgs(cluster_ip="None", selector={"job-name": job_name}, publish_not_ready_addresses=True,
                                     ports=[k8s.core.v1.ServicePortArgs(name="rendezvous", port=RENDEZVOUS_PORT)])),
    k8s_opts)


def env(p: dict[str, Any]) -> list[k8s.core.v1.EnvVarArgs]:
    values = {"CHECKPOINT_DIR": f"{SHARED_MOUNT}/checkpoints/{job_name}", "NCCL_DEBUG": "WARN",
              **job_storage.workload_identity_env(p["region"]), **p["nccl"]}
    if p["weights"]:
        values["WEIGHTS_DIR"] = f"{LOCAL_MOUNT}/weights/{weights_prefix}"
    return [k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in values.items()]


def pod_spec(p: dict[str, Any]) -> k8s.core.v1.PodSpecArgs:
    gpus = str(p["gpus"])
    torchrun = (f"torchrun --nnodes={nodes} --nproc-per-node={gpus} --node-rank=${{JOB_COMPLETION_INDEX}} "
                f"--master-addr={job_name}-0.{job_name} --master-port={RENDEZVOUS_PORT} /opt/train/train.py")
    w, up = p["weights"], p["upload"]
    shared = k8s.core.v1.VolumeMountArgs(name="shared", mount_path=SHARED_MOUNT, sub_path=p["subPath"])
    return k8s.core.v1.PodSpecArgs(
        subdomain=job_name,
        restart_policy="Never",
        service_account_name=p["serviceAccount"],
        # the tenant's storage IDs: root would be squashed to 65534 on the shared export and could not write
        security_context=k8s.core.v1.PodSecurityContextArgs(run_as_user=p["runAsUser"], run_as_group=p["runAsGroup"],
                                                            run_as_non_root=True),
        host_network=True,  # the node's RDMA NICs (no RDMA device plugin needed)
        dns_policy="ClusterFirstWithHostNet",
        # only nodes of a pool with the NVMe RAID (Kueue adds the RDMA pool's labels at admission)
        node_selector={LOCAL_NVME_LABEL: "true"} if w else None,
        init_containers=job_storage.weights_init_containers(
            weights_image, p["namespace"], p["runAsUser"], p["runAsGroup"], w, weights_prefix, p["region"])
        if w else None,
        containers=[k8s.core.v1.ContainerArgs(
            name="train", image=image, command=["bash", "-c"], env=env(p),
            args=[job_storage.record_exit(torchrun) if up else torchrun],
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
                shared,
                *([k8s.core.v1.VolumeMountArgs(name="nvme", mount_path=LOCAL_MOUNT, sub_path=p["namespace"])]
                  if w else []),
                *([k8s.core.v1.VolumeMountArgs(name="signal", mount_path=job_storage.SIGNAL_MOUNT)] if up else [])]),
            *([job_storage.upload_container(weights_image, up, p["region"], f"{SHARED_MOUNT}/checkpoints/{job_name}",
                                            f"{up['checkpointPrefix']}{job_name}/", shared)] if up else [])],
        volumes=[
            k8s.core.v1.VolumeArgs(name="script", config_map=k8s.core.v1.ConfigMapVolumeSourceArgs(name=job_name)),
            k8s.core.v1.VolumeArgs(name="infiniband",
                                   host_path=k8s.core.v1.HostPathVolumeSourceArgs(path="/dev/infiniband")),
            k8s.core.v1.VolumeArgs(name="shm", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(
                medium="Memory", size_limit=f"{shm_gi}Gi")),
            k8s.core.v1.VolumeArgs(name="shared", persistent_volume_claim=(
                k8s.core.v1.PersistentVolumeClaimVolumeSourceArgs(claim_name=p["claim"]))),
            # the pool's NVMe RAID; type Directory: the pod does not start on a node where it is not mounted
            *([k8s.core.v1.VolumeArgs(name="nvme", host_path=k8s.core.v1.HostPathVolumeSourceArgs(
                path=w["mountPath"], type="Directory"))] if w else []),
            *([job_storage.signal_volume()] if up else [])])


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
if checkpoint_upload:
    pulumi.export("checkpointUpload", checked.apply(lambda p: "oci://{bucket}@{namespace}/{checkpointPrefix}".format(
        **p["upload"]) + f"{job_name}/"))
if weights_prefix:
    pulumi.export("weights", checked.apply(lambda p: {
        "source": f"oci://{p['weights']['bucket']}@{p['weights']['namespace']}/{weights_prefix}",
        "nodePath": f"{p['weights']['mountPath']}/{p['namespace']}/weights/{weights_prefix}",
        "podPath": f"{LOCAL_MOUNT}/weights/{weights_prefix}"}))
