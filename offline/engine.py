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
import heapq
import ipaddress
import logging
import runpy
import sys
import threading
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
from offline.remote import expand_remote
from offline.replacement import Change, Planner
from offline.values import UNKNOWN, mask

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
                 stack_outputs: Optional[dict[str, dict[str, Any]]] = None, previous: Optional[dict] = None):
        self.region = region
        #: The previous plan's resources by URN (``--previous``): the state this run starts from.
        self.previous: dict[str, dict] = {r["urn"]: r for r in (previous or {}).get("resources", [])}
        #: The planned operation and previous state of the registration being answered, per thread: the SDK sends
        #: registrations from a thread pool, and the monitor answers each in the thread that sent it.
        self._pending = threading.local()
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
        change, old = getattr(self._pending, "value", None) or (None, None)
        if change is not None and change.op in ("create", "replace"):
            # Planned against a previous state: the provider creates it, so its id and computed outputs are unknown
            # in this preview (only an update run learns them), and so is everything the program derives from them.
            computed = self._computed(args.typ, "", args.name, inputs)
            return "", inputs | {k: UNKNOWN for k in computed if k != "state"}
        kind = OCID_KINDS.get(args.typ)
        previous_id = (old or {}).get("id")
        if isinstance(previous_id, str) and previous_id and previous_id != "[unknown]":
            rid = previous_id  # the resource exists: it keeps its id
        elif kind is None:
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
        return k8s_object_id(args.inputs, args.name)

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

    def _existing_mount_targets(self, query: dict) -> list[tuple[str, str]]:
        """``(id, requested throughput)`` of the mount targets that exist under the queried display name: those of
        the previous plan (``--previous``: the state the stack is in) in the queried compartment and AD, else
        :attr:`EXISTING_MOUNT_TARGETS`."""
        name = query.get("displayName", "")
        found = []
        for res in self.previous.values():
            inputs = res.get("inputs") or {}
            if res.get("type") != "oci:FileStorage/mountTarget:MountTarget" or inputs.get("displayName") != name:
                continue
            if any(query.get(k) not in (None, inputs.get(k)) for k in ("compartmentId", "availabilityDomain")):
                continue
            rid = res.get("id") if isinstance(res.get("id"), str) else fake_ocid("mounttarget", self.region, name)
            found.append((rid, str(inputs.get("requestedThroughput") or "1")))
        if not found and name in self.EXISTING_MOUNT_TARGETS:
            found.append((fake_ocid("mounttarget", self.region, "existing", name), self.EXISTING_MOUNT_TARGETS[name]))
        return found

    def _mount_targets(self, query: dict) -> dict:
        """``getMountTargets`` by compartment, AD and display name (see :meth:`_existing_mount_targets`)."""
        name = query.get("displayName", "")
        found = []
        for rid, tier in self._existing_mount_targets(query):
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


def k8s_object_id(inputs: dict, name: str) -> str:
    """The id the Kubernetes provider gives an object: ``<namespace>/<name>``, or ``<name>`` when cluster-scoped."""
    meta = inputs.get("metadata") or {}
    obj_name = meta.get("name") or inputs.get("name") or name
    ns = meta.get("namespace") or inputs.get("namespace")
    return f"{ns}/{obj_name}" if ns else str(obj_name)


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
    """A mock resource monitor that also records each registration as the engine sees it and, given a
    :class:`offline.replacement.Planner` (``--previous``), plans each one before the mock provider answers it."""

    def __init__(self, mocks: OciMocks, planner: Optional[Planner] = None):
        super().__init__(mocks)
        self.planner = planner
        self._lock = threading.Lock()  # registrations arrive from the SDK's thread pool
        self.recorded: list[EngineResource] = []
        self.ids: dict[str, str] = {}  # URN → the id the provider returned (the engine keeps ids apart from outputs)
        self.replace_on_changes: dict[str, list[str]] = {}  # URN → properties whose change forces a replacement
        self.changes: dict[str, Change] = {}  # URN → the planned operation (with a planner)
        #: What the offline run could not see, one line per resource (a Helm chart's objects, a remote file).
        self.advisories: list[str] = []

    def RegisterResource(self, request):  # noqa: N802 (gRPC method name)
        if request.type == "pulumi:pulumi:Stack":
            return super().RegisterResource(request)
        urn = self.make_urn(request.parent, request.type, request.name)
        inputs = json_format.MessageToDict(request.object)
        property_dependencies = {k: list(v.urns) for k, v in request.propertyDependencies.items()}
        dbr = request.deleteBeforeReplace if request.deleteBeforeReplaceDefined else None
        if self.planner is not None:
            with self._lock:
                change = self.planner.decide(
                    urn, request.type, bool(request.custom), mask(inputs), property_dependencies=property_dependencies,
                    provider=request.provider or None, replace_on_changes=list(request.replaceOnChanges),
                    protect=bool(request.protect), delete_before_replace=dbr)
                self.changes[urn] = change
            self.mocks._pending.value = (change, self.planner.previous(urn))
        try:
            response = super().RegisterResource(request)
        finally:
            self.mocks._pending.value = None
        outputs = json_format.MessageToDict(response.object) if response.object else {}
        self.ids[response.urn] = response.id
        if request.replaceOnChanges:
            self.replace_on_changes[response.urn] = list(request.replaceOnChanges)
        resource = EngineResource(
            urn=response.urn, type=request.type, name=request.name, custom=bool(request.custom),
            inputs=inputs, outputs=outputs, parent=request.parent or None, dependencies=list(request.dependencies),
            property_dependencies=property_dependencies, protect=bool(request.protect),
            provider=request.provider or None, ignore_changes=list(request.ignoreChanges),
            delete_before_replace=dbr, additional_secret_outputs=list(request.additionalSecretOutputs),
            aliases=[str(a) for a in request.aliasURNs])
        self.recorded.append(resource)
        # A remote component names its provider in ``providers`` (or inherits the parent's: not visible here).
        provider = resource.provider or dict(request.providers).get("kubernetes")
        children, advisories = expand_remote(resource, provider)
        self.advisories += advisories
        for child in children:
            self._record_child(child)
        return response

    def _record_child(self, child: EngineResource) -> None:
        """Record an object a remote component (ConfigGroup, ConfigFile) would register, planned like any other."""
        if self.planner is not None:
            with self._lock:
                self.changes[child.urn] = self.planner.decide(child.urn, child.type, True, mask(child.inputs),
                                                              property_dependencies={}, provider=child.provider)
        self.ids[child.urn] = "" if child.urn in self.changes and self.changes[child.urn].op in (
            "create", "replace") else k8s_object_id(child.inputs, child.name)
        child.outputs = dict(child.inputs)
        self.recorded.append(child)


def topological(resources: list[EngineResource]) -> list[EngineResource]:
    """``resources`` ordered so that each comes after its parent, dependencies, property dependencies and provider
    (those it holds), ties broken by URN (Kahn's algorithm with a heap)."""
    by_urn = {r.urn: r for r in resources}
    needs: dict[str, set[str]] = {}
    for r in resources:
        deps = {r.parent, *r.dependencies, *(u for us in r.property_dependencies.values() for u in us),
                r.provider.rsplit("::", 1)[0] if r.provider else None}
        needs[r.urn] = {d for d in deps if d in by_urn and d != r.urn}
    users: dict[str, list[str]] = {}
    for urn, deps in needs.items():
        for d in deps:
            users.setdefault(d, []).append(urn)
    ready = [urn for urn, deps in needs.items() if not deps]
    heapq.heapify(ready)
    out: list[EngineResource] = []
    while ready:
        urn = heapq.heappop(ready)
        out.append(by_urn[urn])
        for user in users.get(urn, []):
            needs[user].discard(urn)
            if not needs[user]:
                heapq.heappush(ready, user)
    if len(out) < len(resources):  # a cycle (the engine refuses one): the rest by URN, nothing dropped
        done = {r.urn for r in out}
        out += sorted((r for r in resources if r.urn not in done), key=lambda r: r.urn)
    return out


@dataclass
class ProgramRun:
    """What one run of the program declared: resources in registration order and the stack outputs (wire form)."""

    resources: list[EngineResource]
    outputs: dict[str, Any]
    stack_urn: str
    ids: dict[str, str]
    replace_on_changes: dict[str, list[str]]
    mocks: OciMocks = field(repr=False)
    #: The plan against ``previous`` (registration order, then the deletions), or None without a previous plan.
    changes: Optional[list[Change]] = None
    #: What the offline run could not check, one line per resource (see :mod:`offline.remote`).
    advisories: list[str] = field(default_factory=list)
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
                stack_outputs: Optional[dict[str, dict[str, Any]]] = None, project: str = PROJECT,
                previous: Optional[dict] = None) -> ProgramRun:
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
    :param previous: a ``--json`` plan of an earlier run: the state this run starts from. Every registration is
        planned against it (:class:`offline.replacement.Planner`): created and replaced resources have unknown ids
        and computed outputs, existing ones keep their ids, and lookups (``getMountTargets``) find what it holds.
    :raises oke_rdma.config.ConfigError: when the configuration is invalid (nothing is registered then).
    :raises ValueError: when ``previous`` is not shaped like a plan.
    :raises StackOutputsMissing: when the program references a stack not in ``stack_outputs``.
    :raises pulumi.RunError: when the program stops itself with a message (e.g. a consumer refusing its input).
    """
    asyncio.set_event_loop(asyncio.new_event_loop())  # a fresh loop per run: callers may have closed theirs
    settings.ROOT.set(None)
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))
    planner = Planner(previous) if previous is not None else None
    mocks = OciMocks(config.get("oci:region", "unknown-region-1"), unknowns=unknowns, stack_outputs=stack_outputs,
                     previous=previous)
    monitor = RecordingMonitor(mocks, planner)
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
                      diagnostics=list(diagnostics.records), advisories=list(monitor.advisories),
                      changes=None if planner is None else [
                          *(monitor.changes[r.urn] for r in topological(monitor.recorded)),
                          *planner.deletions(r.urn for r in monitor.recorded)])
