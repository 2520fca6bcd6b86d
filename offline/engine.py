"""Run the oke-rdma program under Pulumi's runtime mocks and record what the engine would see.

:class:`OciMocks` answers like the OCI and Kubernetes providers do: deterministic fake OCIDs, the computed outputs
the program reads (API endpoint, default security list, mount target private IPs) and the invokes it calls
(``getServices``, ``getClusterKubeConfig``, ``getPrivateIp``, ``getMountTargets``). With ``unknowns=True`` it behaves like a stack's
first ``pulumi preview``: every computed output and every id is unknown, so nothing downstream of them is known.

:class:`RecordingMonitor` keeps every registration as the engine receives it — inputs and outputs in wire form
(``json_format.MessageToDict``: unknowns as the engine's sentinel, secrets wrapped), parent, dependencies,
property dependencies and options — as :class:`offline.policy_eval.EngineResource` objects the policy pack is
evaluated on.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import runpy
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

import pulumi
from google.protobuf import json_format
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from offline.policy_eval import EngineResource

PROJECT = "oke-rdma"
PROJECT_DIR = Path(__file__).resolve().parent.parent

#: Region identifier → the region key OCI uses in service names ("All GRU Services In Oracle Services Network").
REGION_KEYS = {
    "sa-saopaulo-1": "GRU", "sa-vinhedo-1": "VCP", "us-ashburn-1": "IAD", "us-phoenix-1": "PHX",
    "us-chicago-1": "ORD", "us-sanjose-1": "SJC", "eu-frankfurt-1": "FRA", "uk-london-1": "LHR",
    "ap-tokyo-1": "NRT", "ap-osaka-1": "KIX", "ap-sydney-1": "SYD", "ca-toronto-1": "YYZ",
}

#: Resource type → the OCID kind OCI gives it (``ocid1.<kind>.oc1.<region>.<unique>``).
OCID_KINDS = {
    "oci:Core/vcn:Vcn": "vcn", "oci:Core/subnet:Subnet": "subnet", "oci:Core/natGateway:NatGateway": "natgateway",
    "oci:Core/serviceGateway:ServiceGateway": "servicegateway",
    "oci:Core/internetGateway:InternetGateway": "internetgateway", "oci:Core/routeTable:RouteTable": "routetable",
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": "networksecuritygroup",
    "oci:Core/securityList:SecurityList": "securitylist", "oci:Core/defaultSecurityList:DefaultSecurityList":
    "securitylist", "oci:Core/computeCluster:ComputeCluster": "computecluster",
    "oci:ContainerEngine/cluster:Cluster": "cluster", "oci:ContainerEngine/nodePool:NodePool": "nodepool",
    "oci:Identity/policy:Policy": "policy", "oci:FileStorage/fileSystem:FileSystem": "filesystem",
    "oci:FileStorage/mountTarget:MountTarget": "mounttarget", "oci:FileStorage/export:Export": "export",
    "oci:Identity/dynamicGroup:DynamicGroup": "dynamicgroup",
    "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping": "clusterworkloadmapping",
}


#: The type a ``pulumi.StackReference`` registers (a read of another stack's outputs).
STACK_REFERENCE = "pulumi:pulumi:StackReference"
_SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")


class StackOutputsMissing(Exception):
    """The program reads a stack through ``pulumi.StackReference`` whose outputs the offline run was not given."""

    def __init__(self, stack: str):
        self.stack = stack
        super().__init__(f"the program reads the outputs of stack {stack!r} (pulumi.StackReference), but no outputs "
                         f"were given for it; pass --stack-outputs {stack}=PATH (a JSON file of its outputs)")


def _has_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get(_SECRET_SIG[0]) == _SECRET_SIG[1] or any(_has_secret(v) for v in value.values())
    return isinstance(value, list) and any(_has_secret(v) for v in value)


def _reveal(value: Any) -> Any:
    """``value`` with every wire-form secret wrapper removed."""
    if isinstance(value, dict):
        if value.get(_SECRET_SIG[0]) == _SECRET_SIG[1]:
            return _reveal(value.get("value"))
        return {k: _reveal(v) for k, v in value.items()}
    return [_reveal(v) for v in value] if isinstance(value, list) else value


def stack_reference_state(name: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """What the engine answers a ``pulumi:pulumi:StackReference`` read with: ``{name, outputs,
    secretOutputNames}``. An output holding a wire-form secret anywhere (a secret-wrapped ``{"4dabf...":
    "1b47...", "value": ...}``) is a secret output: listed in ``secretOutputNames`` and handed over as one secret
    value, so ``get_output``/``require_output`` return a secret ``Output`` for it, as for a real stack."""
    secret = sorted(k for k, v in outputs.items() if _has_secret(v))
    shown = {k: ({_SECRET_SIG[0]: _SECRET_SIG[1], "value": _reveal(v)} if k in secret else v)
             for k, v in outputs.items()}
    return {"name": name, "outputs": shown, "secretOutputNames": secret}


def _digest(*parts: str, n: int = 20) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def fake_ocid(kind: str, region: str, *seed: str) -> str:
    """A deterministic OCID-shaped id: the same resource gets the same id on every run."""
    return f"ocid1.{kind}.oc1.{region}.aaaaaaaa{_digest(kind, *seed, n=52)}"


def host_address(cidr: Any, index: int = 0) -> str:
    """The ``index``-th usable host address of ``cidr`` (0: the first, where OCI puts a subnet's virtual router),
    clamped to the last usable one, for the mock's computed IPs.

    Works on any network shape without listing its hosts (an IPv6 /64 has 2**64): ``ipaddress``'s ``hosts()``
    returns a *list* for /32 and /31 (and /128, /127) and an iterator otherwise, and a /32 has no host range at all.
    A network with at most two addresses answers its own address; a value that is not a CIDR (host bits set are
    fine) answers the network address of the mock's default ``10.0.0.0/24``. OCI itself refuses subnets smaller than
    /30 (VCN docs, "Allowed VCN and subnet sizes"); the config refuses them before this runs, the mock just must not
    crash on a program that declares one.
    """
    try:
        net = ipaddress.ip_network(str(cidr).strip(), strict=False)
    except ValueError:
        net = ipaddress.ip_network("10.0.0.0/24")
    if net.num_addresses <= 2:
        return str(net.network_address)
    last = net.num_addresses - (2 if net.version == 4 else 1)  # IPv4: the broadcast address is no host
    return str(net.network_address + min(1 + index, last))


class OciMocks(pulumi_mocks.Mocks):
    """A mock provider answering like OCI (and Kubernetes) for the resources and invokes oke-rdma uses.

    :param region: the stack's region (``oci:region``), used in OCIDs and service names.
    :param unknowns: first-preview mode: ids and computed outputs are left unknown.
    """

    #: Mount targets that already exist in the (simulated) tenancy, as display name → requested throughput (Gbps):
    #: what ``getMountTargets`` finds. Empty = a stack's first ``pulumi up``; a test sets it to simulate a later one.
    EXISTING_MOUNT_TARGETS: dict[str, str] = {}

    def __init__(self, region: str, unknowns: bool = False,
                 stack_outputs: Optional[dict[str, dict[str, Any]]] = None):
        self.region = region
        self.unknowns = unknowns
        self.stack_outputs = dict(stack_outputs or {})  # referenced stack name → its outputs (wire form)
        self.subnet_cidrs: dict[str, str] = {}  # subnet OCID → CIDR, to answer getPrivateIp
        self.private_ips: dict[str, str] = {}  # private IP OCID → subnet OCID
        self.invokes: list[str] = []  # the token of every invoke the program actually ran, in order

    # -- resources ---------------------------------------------------------------------------------------------
    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[Optional[str], dict]:
        inputs = dict(args.inputs)
        if args.typ == STACK_REFERENCE:
            return self._stack_reference(str(inputs.get("name") or args.resource_id or args.name))
        if not args.custom and not args.typ.startswith("pulumi:providers:"):
            return "", {}
        if self.unknowns:
            return "", inputs  # an id and every computed output the provider would fill in stay unknown
        kind = OCID_KINDS.get(args.typ)
        if kind is None:
            rid = self._k8s_id(args) if args.typ.startswith("kubernetes:") else _digest(args.typ, args.name)
        else:
            rid = fake_ocid(kind, self.region, args.typ, args.name)
        return rid, inputs | self._computed(args.typ, rid, args.name, inputs)

    def _stack_reference(self, name: str) -> tuple[str, dict]:
        """A ``pulumi.StackReference`` read: the referenced stack's outputs, known even on a first preview (the
        engine reads the other stack's state then too)."""
        if name not in self.stack_outputs:
            raise StackOutputsMissing(name)
        return name, stack_reference_state(name, self.stack_outputs[name])

    @staticmethod
    def _k8s_id(args: pulumi_mocks.MockResourceArgs) -> str:
        meta = args.inputs.get("metadata") or {}
        name = meta.get("name") or args.inputs.get("name") or args.name
        ns = meta.get("namespace") or args.inputs.get("namespace")
        return f"{ns}/{name}" if ns else str(name)

    def _computed(self, typ: str, rid: str, name: str, inputs: dict) -> dict:
        """The outputs OCI computes for ``typ`` that the program (or a policy) reads."""
        out: dict[str, Any] = {"state": "AVAILABLE"} if typ.startswith("oci:") else {}
        if typ == "oci:Core/vcn:Vcn":
            out |= {"defaultSecurityListId": fake_ocid("securitylist", self.region, rid, "default"),
                    "defaultRouteTableId": fake_ocid("routetable", self.region, rid, "default"),
                    "defaultDhcpOptionsId": fake_ocid("dhcpoptions", self.region, rid, "default"),
                    "vcnDomainName": f"{inputs.get('dnsLabel', 'vcn')}.oraclevcn.com"}
        elif typ == "oci:Core/subnet:Subnet":
            cidr = inputs.get("cidrBlock", "10.0.0.0/24")
            self.subnet_cidrs[rid] = cidr.get("value", "") if isinstance(cidr, dict) else cidr  # a secret
            out["virtualRouterIp"] = host_address(self.subnet_cidrs[rid])
        elif typ == "oci:ContainerEngine/cluster:Cluster":
            out |= {"state": "ACTIVE", "endpoints": [{"privateEndpoint": "10.0.0.2:6443", "kubernetes": "",
                                                       "publicEndpoint": "", "vcnHostnameEndpoint": ""}]}
        elif typ == "oci:ContainerEngine/nodePool:NodePool":
            out |= {"state": "ACTIVE", "nodeSourceDetails": inputs.get("nodeSourceDetails")}
        elif typ == "oci:FileStorage/mountTarget:MountTarget":
            pip = fake_ocid("privateip", self.region, rid)
            subnet = inputs.get("subnetId", "")
            self.private_ips[pip] = subnet.get("value", "") if isinstance(subnet, dict) else subnet  # a secret
            out |= {"state": "ACTIVE", "privateIpIds": [pip],
                    "exportSetId": fake_ocid("exportset", self.region, rid)}
        elif typ == "oci:Core/computeCluster:ComputeCluster":
            out["state"] = "ACTIVE"
        elif typ == "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem":
            subnet = inputs.get("subnetId", "")
            subnet = subnet.get("value", "") if isinstance(subnet, dict) else subnet  # a secret
            out |= {"state": "ACTIVE", "lnet": "tcp",
                    "managementServiceAddress": host_address(self.subnet_cidrs.get(subnet, "10.0.0.0/24"), 5)}
        return out

    # -- invokes -----------------------------------------------------------------------------------------------
    def call(self, args: pulumi_mocks.MockCallArgs) -> tuple[dict, list[tuple[str, str]]]:
        token = args.token
        self.invokes.append(token)
        if token == "oci:Core/getServices:getServices":
            key = REGION_KEYS.get(self.region, self.region.split("-")[1][:3].upper())
            services = [
                {"id": fake_ocid("service", self.region, "all"), "name": f"All {key} Services In Oracle Services Network",
                 "cidrBlock": f"all-{key.lower()}-services-in-oracle-services-network", "description": "all"},
                {"id": fake_ocid("service", self.region, "objectstorage"), "name": f"OCI {key} Object Storage",
                 "cidrBlock": f"oci-{key.lower()}-objectstorage", "description": "object storage"},
            ]
            return {"id": "services", "services": services, "filters": args.args.get("filters")}, []
        if token == "oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig":
            cluster_id = args.args.get("clusterId", "")
            return {"clusterId": cluster_id, "tokenVersion": args.args.get("tokenVersion"),
                    "content": _kubeconfig(cluster_id, self.region)}, []
        if token == "oci:Core/getPrivateIp:getPrivateIp":
            pip = args.args.get("privateIpId", "")
            subnet = self.private_ips.get(pip, "")
            return {"id": pip, "privateIpId": pip, "subnetId": subnet,
                    "ipAddress": host_address(self.subnet_cidrs.get(subnet, "10.0.3.0/24"), 9)}, []
        if token == "oci:FileStorage/getMountTargets:getMountTargets":
            return self._mount_targets(dict(args.args)), []
        raise NotImplementedError(f"the offline mocks do not answer the invoke {token}; add it to offline/engine.py")

    def _mount_targets(self, query: dict) -> dict:
        """``getMountTargets`` by compartment, AD and display name, answered from :attr:`EXISTING_MOUNT_TARGETS`."""
        name = query.get("displayName", "")
        found = []
        if name in self.EXISTING_MOUNT_TARGETS:
            rid = fake_ocid("mounttarget", self.region, "existing", name)
            tier = self.EXISTING_MOUNT_TARGETS[name]
            found.append({
                "id": rid, "displayName": name, "availabilityDomain": query.get("availabilityDomain", ""),
                "compartmentId": query.get("compartmentId", ""), "state": "ACTIVE", "requestedThroughput": tier,
                "observedThroughput": tier, "reservedStorageCapacity": "0", "exportSetId": fake_ocid(
                    "exportset", self.region, rid), "privateIpIds": [fake_ocid("privateip", self.region, rid)],
                "nsgIds": [], "subnetId": "", "definedTags": {}, "freeformTags": {}, "systemTags": {},
                "securityAttributes": {}, "hostnameLabel": "", "idmapType": "NONE", "ipAddress": "",
                "isLockOverride": False, "kerberos": [], "ldapIdmaps": [], "lifecycleDetails": "", "locks": [],
                "mountTargetIpv6ids": [], "timeBillingCycleEnd": "", "timeCreated": "2025-01-01T00:00:00Z"})
        return {"id": "mounttargets", "compartmentId": query.get("compartmentId"),
                "availabilityDomain": query.get("availabilityDomain"), "displayName": name, "mountTargets": found}


def _kubeconfig(cluster_id: str, region: str) -> str:
    """A kubeconfig shaped like OKE's (token_version 2.0.0: an ``oci ce cluster generate-token`` exec plugin)."""
    return (
        "apiVersion: v1\nkind: Config\ncurrent-context: oke\n"
        f"clusters:\n- name: oke\n  cluster:\n    server: https://10.0.0.2:6443\n"
        "    certificate-authority-data: T0ZGTElORQ==\n"
        "contexts:\n- name: oke\n  context: {cluster: oke, user: oke}\n"
        "users:\n- name: oke\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
        "      command: oci\n"
        f"      args: [ce, cluster, generate-token, --cluster-id, {cluster_id}, --region, {region}]\n"
    )


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """A mock resource monitor that also records each registration as the engine sees it."""

    def __init__(self, mocks: pulumi_mocks.Mocks):
        super().__init__(mocks)
        self.recorded: list[EngineResource] = []
        self.ids: dict[str, str] = {}  # URN → the id the provider returned (the engine keeps ids apart from outputs)
        self.replace_on_changes: dict[str, list[str]] = {}  # URN → properties whose change forces a replacement

    def RegisterResource(self, request):  # noqa: N802 (gRPC method name)
        response = super().RegisterResource(request)
        if request.type == "pulumi:pulumi:Stack":
            return response
        outputs = json_format.MessageToDict(response.object) if response.object else {}
        self.ids[response.urn] = response.id
        if request.replaceOnChanges:
            self.replace_on_changes[response.urn] = list(request.replaceOnChanges)
        self.recorded.append(EngineResource(
            urn=response.urn, type=request.type, name=request.name, custom=bool(request.custom),
            inputs=json_format.MessageToDict(request.object), outputs=outputs,
            parent=request.parent or None, dependencies=list(request.dependencies),
            property_dependencies={k: list(v.urns) for k, v in request.propertyDependencies.items()},
            protect=bool(request.protect), provider=request.provider or None,
            ignore_changes=list(request.ignoreChanges),
            delete_before_replace=request.deleteBeforeReplace if request.deleteBeforeReplaceDefined else None,
            additional_secret_outputs=list(request.additionalSecretOutputs),
            aliases=[str(a) for a in request.aliasURNs],
        ))
        return response


@dataclass
class ProgramRun:
    """What one run of the program declared: resources in registration order and the stack outputs (wire form)."""

    resources: list[EngineResource]
    outputs: dict[str, Any]
    stack_urn: str
    ids: dict[str, str]
    replace_on_changes: dict[str, list[str]]
    mocks: OciMocks = field(repr=False)
    #: What the program logged (``pulumi.log.info/warn/error``), as (severity, message), in order: the
    #: "Diagnostics" of ``pulumi preview``.
    diagnostics: list[tuple[str, str]] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """The messages logged with ``pulumi.log.warn`` (the warnings ``pulumi preview`` prints), in order."""
        return [message for severity, message in self.diagnostics if severity == "warning"]

    def analyzed_resources(self) -> list[EngineResource]:
        """What the engine analyses: the root ``pulumi:pulumi:Stack`` (no inputs; its outputs are the stack outputs)
        followed by every recorded registration. Pass this to :func:`offline.policy_eval.evaluate`."""
        stack = EngineResource(urn=self.stack_urn, type="pulumi:pulumi:Stack", name=self.stack_urn.rsplit("::", 1)[1],
                               custom=False, inputs={}, outputs=dict(self.outputs))
        return [stack, *self.resources]


class _DiagnosticsHandler(logging.Handler):
    """Collects the messages the mock engine logs (``pulumi.log``) as (severity, message)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelname.lower(), record.getMessage()))


def run_program(config: dict[str, str], secret_keys: list[str], stack: str, *, unknowns: bool = False,
                program: Union[Path, Callable[[], None]] = PROJECT_DIR / "__main__.py",
                stack_outputs: Optional[dict[str, dict[str, Any]]] = None, project: str = PROJECT) -> ProgramRun:
    """Run ``program`` (a Pulumi program file, or a function declaring resources) under mocks with the given raw
    stack config and return what it registered.

    :param config: raw Pulumi config (``{"oke-rdma:network": "<json>", "oci:region": "sa-saopaulo-1"}``).
    :param secret_keys: the config keys that hold secrets.
    :param unknowns: first-preview mode (preview with every computed value unknown); otherwise an update-like run
        where every apply callback runs.
    :param stack_outputs: the outputs of the stacks the program reads through ``pulumi.StackReference``, by stack
        name (``{"organization/oke-rdma/dev": {"vcnId": "ocid1.vcn...", ...}}``); wire-form secrets in them come
        back to the program as secret outputs (:func:`stack_reference_state`).
    :param project: the Pulumi project the program belongs to (``pulumi.get_project()``, the default namespace of
        ``pulumi.Config()``, the stack URN): another project's name when ``program`` is another project's.
    :raises oke_rdma.config.ConfigError: when the configuration is invalid (nothing is registered then).
    :raises StackOutputsMissing: when the program references a stack not in ``stack_outputs``.
    :raises pulumi.RunError: when the program stops itself with a message (e.g. a consumer refusing its input).
    """
    asyncio.set_event_loop(asyncio.new_event_loop())  # a fresh loop per run: callers may have closed theirs
    settings.ROOT.set(None)
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))
    mocks = OciMocks(config.get("oci:region", "unknown-region-1"), unknowns=unknowns, stack_outputs=stack_outputs)
    monitor = RecordingMonitor(mocks)
    diagnostics = _DiagnosticsHandler()
    logger = logging.getLogger("offline.engine.diagnostics")  # one logger; this run's handler replaces the last one
    logger.propagate, logger.level = False, logging.INFO
    for old in list(logger.handlers):
        logger.removeHandler(old)
    logger.addHandler(diagnostics)
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=unknowns, monitor=monitor, logger=logger)
    # A run that stopped with an exception (a ConfigError, a RunError inside an apply) leaves its pending RPCs and
    # output tasks behind, bound to its closed event loop; this run would wait for them forever.
    settings._get_rpc_manager().clear()
    with settings.SETTINGS.lock:
        settings.SETTINGS.outputs.clear()
    if str(PROJECT_DIR) not in sys.path:
        sys.path.insert(0, str(PROJECT_DIR))
    body = program if callable(program) else (lambda: runpy.run_path(str(program), run_name="__main__"))
    _sync_await(run_pulumi_func(body))
    root = settings.get_root_resource()
    outputs = _sync_await(rpc.serialize_properties(dict(root.outputs), {}))
    return ProgramRun(resources=monitor.recorded, outputs=json_format.MessageToDict(outputs), ids=monitor.ids,
                      replace_on_changes=monitor.replace_on_changes,
                      stack_urn=f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}", mocks=mocks,
                      diagnostics=list(diagnostics.records))
