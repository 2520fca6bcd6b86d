"""Write a starting ``Pulumi.<stack>.yaml`` for a region, a GPU shape and a node count, every value commented.

    python -m oke_rdma.new_stack --stack gpu-ash --region us-ashburn-1 \\
        --availability-domains Uocm:US-ASHBURN-AD-1 --shape BM.GPU.H100.8 --nodes 2

The file holds a complete stack: the network (a /16 VCN with the default subnet plan, private API endpoint), the
cluster, a CPU ``system`` pool for the platform add-ons, a ``gpu`` pool of the given shape and size (in an OCI
Compute Cluster when the shape is one Oracle lists for RDMA), shared File Storage, the pinned platform releases
(their defaults) and one tenant whose GPU quota is the pool's capacity. Every key carries a comment saying what it
is, its unit and where the value comes from (the ``oci`` CLI command); the full reference is
``docs/configuration.md``.

OCIDs not given (compartment, images, deployer group) are written as placeholders of the right kind and region,
spelled ``...replacewith...`` so they are plainly fake: the offline preview is clean at once, and each must be replaced
before ``pulumi up`` (the command lists them on stderr). Before anything is written the stack is checked with the
config model (:func:`oke_rdma.config.load_stack_config`): a bad flag is one line naming the flag, the config key and
the fix, exit 2; an existing file is never overwritten (exit 2) unless ``--force``.

Why a command rather than a Pulumi template (``template:`` in Pulumi.yaml, prompted by ``pulumi new``): a template
prompts for flat strings only (Pulumi project schema, ``template.config``: ``description``, ``default``,
``secret``), while this stack's keys are nested maps (node pools, tenants), and ``pulumi new`` copies the whole
project rather than adding a stack to an existing clone.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
import typing
from types import UnionType
from pathlib import Path
from typing import Any, Optional, Union

import yaml
from pydantic import BaseModel

from .config import GPUS_PER_SHAPE, RDMA_SHAPES, ConfigError, StackConfig, load_stack_config
from .facts import kubernetes, regions
from .facts.shapes import SHAPES, did_you_mean_shape, max_pods_per_node, vcpus_per_ocpu

ROOT = Path(__file__).resolve().parent.parent
#: The Kubernetes version written unless ``--kubernetes-version`` is given: the one Pulumi.dev.yaml and
#: Pulumi.prod.yaml use (a test keeps them equal). ``oci ce cluster-options get --cluster-option-id all`` lists what
#: OKE offers now.
DEFAULT_KUBERNETES_VERSION = "v1.35.2"
#: The CPU pool every stack gets for the platform add-ons (the dev stack's system pool).
SYSTEM_SHAPE, SYSTEM_OCPUS, SYSTEM_MEMORY_GB, SYSTEM_NODES = "VM.Standard.E5.Flex", 8, 64, 3
#: Pods per GPU node written (the dev stack's value), lowered to what the shape's VNICs carry.
GPU_MAX_PODS_PER_NODE = 64
_PLACEHOLDER_ID = "aaaaaaaareplacewith{what}0000000000000000000000000000000000000000"

#: Config key path → the flag that sets it (so a refused value names the flag the user typed).
FLAGS = {
    "oci:region": "--region", "oke-rdma:compartmentId": "--compartment-id", "oke-rdma:namePrefix": "--name-prefix",
    "oke-rdma:availabilityDomains": "--availability-domains", "oke-rdma:computeCluster": "--availability-domains",
    "oke-rdma:nodePools.gpu.shape": "--shape", "oke-rdma:nodePools.gpu.rdma": "--rdma",
    "oke-rdma:nodePools.gpu.gpusPerNode": "--gpus-per-node", "oke-rdma:nodePools.gpu.size": "--nodes",
    "oke-rdma:nodePools.gpu.imageId": "--image-id", "oke-rdma:nodePools.gpu.ocpus": "--ocpus",
    "oke-rdma:nodePools.gpu.memoryGb": "--memory-gb", "oke-rdma:nodePools.system.imageId": "--system-image-id",
    "oke-rdma:cluster.kubernetesVersion": "--kubernetes-version", "oke-rdma:network.vcnCidr": "--vcn-cidr",
    "oke-rdma:network.apiEndpoint.allowedCidrs": "--api-client-cidr", "oke-rdma:iam": "--deployer-group-id",
    "oke-rdma:tenants": "--tenant", "oke-rdma:nodePools.gpu.maxPodsPerNode": "--max-pods-per-node",
    # the pod subnet is carved from the VCN (at most a /16): a pool too large for it is fixed by fewer pods per node
    "oke-rdma:network.subnets.pods": "--max-pods-per-node or --nodes",
}


def placeholder(kind: str, region: Optional[str] = None, what: Optional[str] = None,
                realm: Optional[str] = None) -> str:
    """A plainly fake OCID of ``kind`` (``compartment``, ``image``, ``group``) that passes the format check: regional
    kinds carry ``region``; every OCID carries the realm of ``region`` (OCI docs "Resource Identifiers": an OCID names
    the realm of its tenancy, ``oc1`` commercial, ``oc2``/``oc3`` US government, ...; realms from the OCI SDK's region
    table), or ``realm`` when given. Shape: ``ocid1.<kind>.<realm>.<region or empty>.aaaaaaaareplacewith<what>0...``.
    """
    unique = _PLACEHOLDER_ID.format(what=re.sub(r"[^a-z0-9]", "", (what or kind).lower()))
    known = region is not None and regions.realm_of(region) is not None
    realm = realm or (regions.realm_of(region) if known else None) or "oc1"
    # A region the SDK does not know is refused on its own key (oci:region); it is left out of the placeholders so
    # that they do not add errors on flags the user never gave.
    return f"ocid1.{kind}.{realm}.{region if known else ''}.{unique}"


def _sanitize(text: str, allowed: str, limit: int) -> str:
    return re.sub(f"[^{allowed}]", "", text.lower())[:limit]


def build(args: argparse.Namespace) -> tuple[list[tuple[str, Any, str]], list[str]]:
    """The stack as ``(key, value, comment)`` entries in file order, and the keys holding placeholders."""
    region = args.region
    ads = [a.strip() for a in args.availability_domains.split(",") if a.strip()]
    rdma = args.shape in RDMA_SHAPES if args.rdma is None else args.rdma
    flex = args.shape.endswith(".Flex")
    gpus = GPUS_PER_SHAPE.get(args.shape, args.gpus_per_node or 0)
    placeholders = []

    realm = regions.realm_of(region)

    def ocid(value: Optional[str], kind: str, key: str, regional: bool = False) -> str:
        if value:
            return value
        placeholders.append(key)
        return placeholder(kind, region if regional else None, "".join(key.split(":")[-1].split(".")[-2:]), realm)

    prefix = args.name_prefix or ("okerdma-" + _sanitize(args.stack, "a-z0-9-", 16)).rstrip("-")
    gpu_pool: dict[str, Any] = {"shape": args.shape, "size": args.nodes,
                                "imageId": ocid(args.image_id, "image", "oke-rdma:nodePools.gpu.imageId", True)}
    if flex:
        gpu_pool.update(ocpus=args.ocpus, memoryGb=args.memory_gb)
    # 64 pods per node, or fewer when the shape's VNICs carry fewer (facts.shapes.max_pods_per_node: a VM shape
    # the table does not know is held to one pod VNIC, 31 pods).
    pods = args.max_pods_per_node or min(GPU_MAX_PODS_PER_NODE,
                                         max_pods_per_node(args.shape, args.ocpus) or GPU_MAX_PODS_PER_NODE)
    gpu_pool.update(bootVolumeGb=500 if args.shape.startswith("BM.") else 100, maxPodsPerNode=pods, rdma=rdma)
    if args.allow_unlisted_rdma_shape:
        gpu_pool["allowUnlistedRdmaShape"] = True
    if args.allow_unknown_shape:
        gpu_pool["allowUnknownShape"] = True
    if args.gpus_per_node is not None:
        gpu_pool["gpusPerNode"] = args.gpus_per_node
    gpu_pool["labels"] = {"okerdma.io/role": "gpu"}
    # Default quota: the GPU nodes' CPUs and memory (Kueue admits a GPU job only if its CPU and memory requests fit
    # too). Kubernetes counts vCPUs: 2 per OCPU on x86, 1 on Arm (GB200/GB300), from the shape's architecture in
    # facts.shapes.CPU_ARCH; a shape whose architecture the table does not know gets no CPU quota (0: the preview's
    # quota warnings then name the key) rather than a guess. A Flex shape's size is the pool's --ocpus/--memory-gb.
    fact = SHAPES.get(args.shape)
    node_ocpus = args.ocpus or (fact.ocpus if fact else None) or 0
    node_memory = args.memory_gb or (fact.memory_gb if fact else None) or 0
    nodes = max(args.nodes, 0)  # a negative --nodes is refused on its own key, not again on the derived quotas
    cpu_default = (vcpus_per_ocpu(args.shape) or 0) * node_ocpus * nodes if rdma else 0
    memory_default = node_memory * nodes if rdma else 0
    tenant: dict[str, Any] = {"rdma": rdma, "sharedStorage": {},
                              # Kueue queues GPUs of RDMA pools only (its flavors are the RDMA pools)
                              "quota": {"gpu": gpus * nodes if rdma else 0,
                                        "cpu": args.tenant_cpu if args.tenant_cpu is not None else cpu_default,
                                        "memoryGb": (args.tenant_memory_gb if args.tenant_memory_gb is not None
                                                     else memory_default)}}
    entries: list[tuple[str, Any, str]] = [
        ("oci:region", region, "OCI region (`oci iam region-subscription list`); every regional OCID below is of it"),
        ("oke-rdma:namePrefix", prefix, "prefix of every resource name (1-24 lowercase letters, digits, '-')"),
        ("oke-rdma:compartmentId", ocid(args.compartment_id, "compartment", "oke-rdma:compartmentId"),
         "compartment of every resource and policy (`oci iam compartment list --all`)"),
        ("oke-rdma:freeformTags", {"project": "oke-rdma", "stack": args.stack}, "tags on every OCI resource"),
        ("oke-rdma:availabilityDomains", ads,
         "ADs pools and FSS may use (`oci iam availability-domain list --query 'data[].name'`)"),
        ("oke-rdma:network", {"vcnCidr": args.vcn_cidr,
                              "dnsLabel": _sanitize(prefix, "a-z0-9", 15) or "okerdma",
                              "apiEndpoint": {"public": False, "allowedCidrs": [args.api_client_cidr or args.vcn_cidr]},
                              "publicLoadBalancers": False},
         "VCN /16-/30 carved into the default subnet plan; the API endpoint stays private, TCP 6443 open only to "
         "allowedCidrs (your VPN or bastion network; the VCN itself by default)"),
        ("oke-rdma:cluster", {"kubernetesVersion": args.kubernetes_version, "servicesCidr": "10.96.0.0/16"},
         "OKE version (`oci ce cluster-options get --cluster-option-id all`); service CIDR outside the VCN"),
    ]
    if rdma:
        entries.append(("oke-rdma:computeCluster", {"availabilityDomain": ads[0]},
                        "the OCI Compute Cluster the RDMA pool joins, created in this AD (add existingId: to use an "
                        "ACTIVE one)"))
    entries += [
        ("oke-rdma:nodePools", {
            "system": {"shape": SYSTEM_SHAPE, "ocpus": SYSTEM_OCPUS, "memoryGb": SYSTEM_MEMORY_GB,
                       "size": SYSTEM_NODES,
                       "imageId": ocid(args.system_image_id, "image", "oke-rdma:nodePools.system.imageId", True),
                       "bootVolumeGb": 100, "maxPodsPerNode": 31, "labels": {"okerdma.io/role": "system"}},
            "gpu": gpu_pool},
         "system: CPU nodes for the platform add-ons; gpu: the training nodes. Images: `oci ce node-pool-options get "
         "--node-pool-option-id all` (an OKE GPU image with the driver and OFED for GPU pools)"),
        ("oke-rdma:storage", {"fss": {"throughputGbps": 1, "exportPath": "/shared", "identitySquash": "ROOT",
                                      "protect": True}},
         "shared File Storage at 1 Gbps (20/40/80 commit you to a 20-80 TB entitlement: docs/deploying.md); "
         "protected against pulumi destroy"),
        ("oke-rdma:tenants", {args.tenant: tenant},
         (f"one tenant: its namespace, the whole RDMA pool as GPU quota ({args.nodes} x {gpus} GPUs), " if rdma else
          "one tenant: its namespace, GPU quota 0 (a plain GPU pool is no tenant's: to share it with tenants set "
          "nodePools.gpu.gpuSharing and the tenant's isolation: shared, docs/sharing.md), ") + "the shared volume; "
         "cpu (vCPUs) and memoryGb (GiB) quotas: 0 admits no job requesting them, set what your jobs need"),
        ("oke-rdma:iam", {"createPolicies": True,
                          "deployerGroupId": ocid(args.deployer_group_id, "group", "oke-rdma:iam.deployerGroupId")},
         "createPolicies: false hands the statements to an administrator; deployerGroupId: the group running "
         "pulumi up (`oci iam group list`)"),
    ]
    return entries, placeholders


def _scalar(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip().removesuffix("...").strip()


def _comment(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, 118, initial_indent=indent + "# ", subsequent_indent=indent + "# ",
                         break_on_hyphens=False, break_long_words=False)


def _value_model(field: Any) -> tuple[Optional[type[BaseModel]], bool]:
    """The model of a field's value, and whether the value is a map of names (pools, tenants) to that model."""
    t = field.annotation
    if typing.get_origin(t) in (Union, UnionType):
        t = next(a for a in typing.get_args(t) if a is not type(None))
    is_map = typing.get_origin(t) is dict
    if is_map:
        t = typing.get_args(t)[1]
    return (t if isinstance(t, type) and issubclass(t, BaseModel) else None), is_map


def _emit_value(key: str, value: Any, field: Any, indent: str) -> list[str]:
    """``key: value`` as YAML lines, preceded by the field's description; maps recurse into their model's fields."""
    lines = _comment(field.description or "", indent) if field is not None else []
    model, is_map = _value_model(field) if field is not None else (None, False)
    if not (isinstance(value, dict) and value and model is not None):
        return lines + [f"{indent}{key}: {_scalar(value)}"]
    lines.append(f"{indent}{key}:")
    for name, item in value.items():
        if is_map:  # a name (pool, tenant): no description of its own, its keys have
            lines.append(f"{indent}  {name}:")
            lines += [line for k, v in item.items() for line in _emit_value(k, v, _field(model, k), indent + "    ")]
        else:
            lines += _emit_value(name, item, _field(model, name), indent + "  ")
    return lines


def _field(model: type[BaseModel], key: str) -> Any:
    return next(f for n, f in model.model_fields.items() if (f.alias or n) == key)


#: What every placeholder this tool writes contains (:data:`_PLACEHOLDER_ID`); a value still holding it was never
#: replaced.
PLACEHOLDER_MARK = "replacewith"


def placeholder_keys(config: dict) -> list[str]:
    """The key paths (``pulumi config set --path`` notation: ``oke-rdma:nodePools.gpu.imageId``) of every value of a
    stack file's ``config:`` map (or of the raw config Pulumi hands the program: structured values as JSON text)
    that still holds a placeholder (text containing :data:`PLACEHOLDER_MARK`), in file order."""
    import json as _json

    out: list[str] = []

    def walk(value: Any, at: str) -> None:
        if isinstance(value, str) and value[:1] in "{[":
            try:
                value = _json.loads(value)
            except ValueError:
                pass
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{at}.{k}" if re.fullmatch(r"[A-Za-z0-9_]+", str(k)) else f'{at}["{k}"]')
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{at}[{i}]")
        elif isinstance(value, str) and PLACEHOLDER_MARK in value:
            out.append(at)

    for key, value in config.items():
        walk(value, key)
    return out


def render(stack: str, entries: list[tuple[str, Any, str]], placeholders: list[str]) -> str:
    """The stack file: a header, then per key a comment on the choice made and its YAML value; every nested key is
    preceded by its description from the config model (the same text as docs/configuration.md)."""
    lines = _comment(f"Stack {stack}, written by `python -m oke_rdma.new_stack`. Every key is described in "
                     f"docs/configuration.md; preview it offline with `python -m offline.preview --stack {stack}`.", "")
    if placeholders:
        lines += _comment("Placeholders to replace before `pulumi up` (they contain 'replacewith'): "
                          + ", ".join(placeholders) + ".", "")
    lines.append("config:")
    for key, value, comment in entries:
        field = _field(StackConfig, "region" if key == "oci:region" else key.split(":", 1)[1])
        lines += _comment(comment, "  ")
        lines += _emit_value(key, value, field, "  ")[len(_comment(field.description or "", "  ")):]
    return "\n".join(lines) + "\n"


def _raw(entries: list[tuple[str, Any, str]]) -> dict[str, str]:
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v, _ in entries}


#: Keys under the tenant's own name (``oke-rdma:tenants.<tenant>.<suffix>``) and the flag that sets each.
TENANT_FLAGS = {"quota.cpu": "--tenant-cpu", "quota.memoryGb": "--tenant-memory-gb"}


def _flag_of(problem: str) -> str:
    key = problem.split(": ", 1)[0]
    parts = key.split(".", 2)
    if key.startswith("oke-rdma:tenants.") and len(parts) == 3 and parts[2] in TENANT_FLAGS:
        return f"{TENANT_FLAGS[parts[2]]} ({key})"
    best = max((k for k in FLAGS if key == k or key.startswith(k + ".")), key=len, default=None)
    return f"{FLAGS[best]} ({key})" if best else key


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m oke_rdma.new_stack", description=__doc__.split("\n\n")[0])
    p.add_argument("--stack", required=True, help="stack name: writes Pulumi.<stack>.yaml")
    p.add_argument("--region", required=True, help="OCI region identifier, e.g. us-ashburn-1")
    p.add_argument("--availability-domains", required=True, metavar="AD[,AD...]",
                   help="full AD names, e.g. Uocm:US-ASHBURN-AD-1 (`oci iam availability-domain list`); the first "
                        "hosts the Compute Cluster")
    p.add_argument("--shape", default="BM.GPU.H100.8", help="GPU pool shape (default BM.GPU.H100.8)")
    p.add_argument("--nodes", type=int, default=2, help="GPU pool node count (default 2)")
    p.add_argument("--rdma", action=argparse.BooleanOptionalAction, default=None,
                   help="place the GPU pool in a Compute Cluster (default: when the shape is on Oracle's RDMA list)")
    p.add_argument("--gpus-per-node", type=int, help="GPUs per node, for a shape oke-rdma does not know")
    p.add_argument("--allow-unknown-shape", action="store_true",
                   help="accept a GPU shape oke-rdma's shape table does not know (a shape newer than the table; give "
                        "--gpus-per-node); without it an unknown GPU shape is refused as a likely typo")
    p.add_argument("--allow-unlisted-rdma-shape", action="store_true",
                   help="with --rdma: accept a bare metal shape not on Oracle's RDMA list (the previews warn)")
    p.add_argument("--max-pods-per-node", type=int, help=(
        f"pods per GPU node (default {GPU_MAX_PODS_PER_NODE}, or fewer when the shape's VNICs carry fewer); every pod "
        "takes an IP of the pod subnet, so a large pool needs fewer"))
    p.add_argument("--ocpus", type=float, help="OCPUs per node (Flex shapes)")
    p.add_argument("--memory-gb", type=float, help="memory per node in GB (Flex shapes)")
    p.add_argument("--compartment-id", help="compartment OCID (default: a placeholder)")
    p.add_argument("--image-id", help="GPU pool image OCID (default: a placeholder)")
    p.add_argument("--system-image-id", help="system pool image OCID (default: a placeholder)")
    p.add_argument("--deployer-group-id", help="OCID of the group that runs pulumi up (default: a placeholder)")
    p.add_argument("--kubernetes-version", default=DEFAULT_KUBERNETES_VERSION,
                   help=f"OKE Kubernetes version (default {DEFAULT_KUBERNETES_VERSION})")
    p.add_argument("--vcn-cidr", default="10.0.0.0/16", help="VCN CIDR (default 10.0.0.0/16)")
    p.add_argument("--api-client-cidr", help="client CIDR allowed to reach the API endpoint (default: the VCN)")
    p.add_argument("--name-prefix", help="resource name prefix (default okerdma-<stack>)")
    p.add_argument("--tenant", default="research", help="the tenant's name and namespace (default research)")
    p.add_argument("--tenant-cpu", type=int, default=None, help=(
        "the tenant's nominal CPU quota in vCPUs (default: the GPU nodes' vCPUs)"))
    p.add_argument("--tenant-memory-gb", type=int, default=None, help=(
        "its nominal memory quota in GiB (default: the GPU nodes' memory)"))
    p.add_argument("--output", type=Path, help="where to write (default Pulumi.<stack>.yaml in the project)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", args.stack):
        print(f"error: --stack: {args.stack!r} is not a Pulumi stack name (letters, digits, '-', '_', '.'); "
              "rename it", file=sys.stderr)
        return 2
    if args.shape.endswith(".Flex") and (args.ocpus is None or args.memory_gb is None):
        print(f"error: --ocpus and --memory-gb: required for the Flex shape {args.shape}; give both",
              file=sys.stderr)
        return 2
    if not [a for a in args.availability_domains.split(",") if a.strip()]:
        print("error: --availability-domains (oke-rdma:availabilityDomains): no availability domain given; list at "
              "least one full AD name of the region, comma-separated (`oci iam availability-domain list --query "
              "'data[].name'`)", file=sys.stderr)
        return 2
    if ".gpu" in args.shape.lower() and args.shape not in SHAPES and not args.allow_unknown_shape \
            and not args.allow_unlisted_rdma_shape:
        hint = did_you_mean_shape(args.shape)
        known = "" if hint else f" (known GPU shapes: {', '.join(sorted(n for n in SHAPES if '.GPU' in n))})"
        print(f"error: --shape (oke-rdma:nodePools.gpu.shape): {args.shape}{hint} is not a GPU shape oke-rdma "
              f"knows{known}; fix the name (shapes are case-sensitive), or for a real shape newer than "
              f"oke_rdma/facts/shapes.py add --allow-unknown-shape with --gpus-per-node N", file=sys.stderr)
        return 2
    if args.gpus_per_node is None and args.shape not in SHAPES and ".GPU" in args.shape:
        print(f"error: --gpus-per-node (oke-rdma:nodePools.gpu.gpusPerNode): {args.shape} is a GPU shape oke-rdma's "
              f"shape table (oke_rdma/facts/shapes.py) does not know, so its GPUs per node (the tenant's GPU quota) "
              f"are unknown; give --gpus-per-node N (`oci compute shape list --compartment-id <OCID> --query "
              f"\"data[?shape=='{args.shape}'].gpus\"`)", file=sys.stderr)
        return 2
    entries, placeholders = build(args)
    try:
        cfg = load_stack_config(_raw(entries), secret_keys=[])
    except ConfigError as e:
        for problem in e.problems:
            # The flag names the fix here: drop the config model's "set it with pulumi config set ..." advice.
            text = re.sub(r"[;.]? *Set it with pulumi config set [^;]*$", "", problem.split(": ", 1)[-1])
            print(f"error: {_flag_of(problem)}: {text}", file=sys.stderr)
        return 2
    if kubernetes.withdrawn(args.kubernetes_version):  # the preview refuses a new cluster on it (OKE does)
        row = kubernetes.withdrawn(args.kubernetes_version)
        from .config.checks.chart_versions import kubernetes_versions_supported
        print(f"error: --kubernetes-version (oke-rdma:cluster.kubernetesVersion): OKE no longer offers Kubernetes "
              f"{args.kubernetes_version} (gone by {row.withdrawn}: {row.source}), so it refuses a new cluster on it; "
              f"give one it offers that the pinned add-ons support: {', '.join(kubernetes_versions_supported(cfg))}",
              file=sys.stderr)
        return 2
    out = args.output or ROOT / f"Pulumi.{args.stack}.yaml"
    if out.exists() and not args.force:
        print(f"error: {out} exists; pick another --stack or --output, or pass --force to overwrite it",
              file=sys.stderr)
        return 2
    try:
        out.write_text(render(args.stack, entries, placeholders), encoding="utf-8")
    except OSError as e:  # a directory that does not exist, no permission: the flag names the fix
        print(f"error: --output {out}: cannot write it ({e.strerror or e}); give a path in an existing, writable "
              "directory", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    print(f"preview it: {preview_command(out, args.stack)}")
    for key in placeholders:
        print(f"warning: {key} is a placeholder; replace it before pulumi up", file=sys.stderr)
    for warning in stack_warnings(cfg):
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def preview_command(path: Path, stack: str) -> str:
    """The exact offline-preview command for the stack file written at ``path``: ``--stack <stack>`` alone for the
    project's own ``Pulumi.<stack>.yaml``, else ``python -m offline.preview --config-file <path> --stack <stack>`` (a
    file elsewhere or named otherwise would otherwise preview as stack ``dev``); prefixed with ``cd <project> &&``
    when run from elsewhere (the preview is a module of this checkout)."""
    import os
    import shlex

    python = os.path.relpath(sys.executable, ROOT) if not os.path.relpath(sys.executable, ROOT).startswith("..") \
        else sys.executable
    resolved = Path(path).resolve()
    if resolved == (ROOT / f"Pulumi.{stack}.yaml").resolve():
        command = f"python -m offline.preview --stack {shlex.quote(stack)}"
    else:
        command = f"python -m offline.preview --config-file {shlex.quote(str(resolved))} --stack {shlex.quote(stack)}"
    here = Path.cwd().resolve() == ROOT.resolve()
    return ("" if here else f"cd {shlex.quote(str(ROOT))} && ") + python + command.removeprefix("python")


def stack_warnings(cfg: StackConfig) -> list[str]:
    """The warnings the preview gives this stack before anything is declared (the program's own, as in
    ``__main__.py``): GPU pools no tenant can use (:func:`oke_rdma.adapter.idle_pool_warnings`), add-on versions the facts do not
    know (:func:`oke_rdma.config.checks.chart_versions.chart_version_warnings`)."""
    from .adapter import idle_pool_warnings  # imports Pulumi: only once the stack is valid
    from .config.checks.chart_versions import chart_version_warnings, support_warnings
    from .config.checks.tenants import rdma_tenant_warnings

    return idle_pool_warnings(cfg) + rdma_tenant_warnings(cfg) + chart_version_warnings(cfg) + support_warnings(cfg)


if __name__ == "__main__":
    sys.exit(main())
