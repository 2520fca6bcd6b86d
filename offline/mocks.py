"""The mock provider of the offline engine: answers like the OCI and Kubernetes providers do.

:class:`OciMocks` gives deterministic fake OCIDs, the computed outputs the program reads (API endpoint, default
security list, mount target private IPs) and the invokes it calls (``getServices``, ``getClusterKubeConfig``,
``getPrivateIp``, ``getMountTargets``, ``getNamespace``). With ``unknowns=True`` it behaves like a stack's first ``pulumi preview``:
every computed output and every id is unknown. Given a previous plan (``--previous``) it answers from that state:
existing resources keep their ids, lookups find what the state holds, and a resource the planner says is created or
replaced gets an unknown id and unknown computed outputs.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import math
import threading
from typing import Any, Optional

import pulumi
from pulumi.runtime import mocks as pulumi_mocks

from offline.values import UNKNOWN
from oke_rdma.facts import regions
from policies.security import _yaml_bounded as bounded_yaml

#: Region identifier → the region key OCI uses in service names ("All GRU Services In Oracle Services Network"): every
#: region of the OCI SDK's table (``oke_rdma.facts.regions.region_key``).
REGION_KEYS = {r: k for r in regions.regions() if (k := regions.region_key(r)) is not None}

#: Invokes through which pulumi_kubernetes' Python-side components render objects only a live tool can render.
KUBERNETES_RENDERERS = {"kubernetes:helm:template": "kubernetes:helm.sh/v3:Chart (helm template)",
                        "kubernetes:kustomize:directory": "kubernetes:kustomize:Directory (kustomize build)"}

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



def _finite(value: Any) -> Any:
    """Outputs with every NaN or infinite number unknown: no provider echoes one back (it refuses or normalises it),
    and the Pulumi SDK cannot turn it into an int output (``int(nan)`` raises). The inputs keep it, so the packs
    judge the number the program wrote."""
    if isinstance(value, float) and not math.isfinite(value):
        return UNKNOWN
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


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
    """A deterministic OCID-shaped id: the same resource gets the same id on every run, in the realm of ``region``
    (``oke_rdma.facts.regions``: ``oc3`` for ``us-gov-ashburn-1``; ``oc1`` for a region the SDK does not know)."""
    return f"ocid1.{kind}.{regions.realm_of(region) or 'oc1'}.{region}.aaaaaaaa{_digest(kind, *seed, n=52)}"


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
        self.cluster_endpoints: dict[str, str] = {}  # cluster OCID → its private endpoint, for the kubeconfig
        self.private_ips: dict[str, str] = {}  # private IP OCID → subnet OCID
        #: Private IP OCID → the address ``getPrivateIp`` answered: OCI's state, which Pulumi's does not hold; the
        #: plan keeps it (``privateIps``) so a later ``--previous`` run finds the same address.
        self.addresses: dict[str, str] = {}
        self._previous_addresses = previous_addresses(previous or {})
        self.invokes: list[str] = []  # the token of every invoke the program actually ran, in order
        #: What the offline run could not see through an invoke (a Helm chart rendered by the provider).
        self.advisories: list[str] = []

    # -- resources ---------------------------------------------------------------------------------------------
    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[Optional[str], dict]:
        rid, outputs = self._new_resource(args)
        return rid, _finite(outputs)

    def _new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[Optional[str], dict]:
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
            # the endpoint's private IP is one of the control-plane subnet's (the first after the virtual router)
            subnet = (inputs.get("endpointConfig") or {}).get("subnetId", "")
            subnet = subnet.get("value", "") if isinstance(subnet, dict) else subnet  # a secret
            endpoint = f"{host_address(self.subnet_cidrs.get(subnet, '10.0.0.0/28'), 1)}:6443"
            self.cluster_endpoints[rid] = endpoint
            out |= {"state": "ACTIVE", "endpoints": [{"privateEndpoint": endpoint, "kubernetes": "",
                                                       "publicEndpoint": "", "vcnHostnameEndpoint": ""}]}
        elif typ == "oci:ContainerEngine/nodePool:NodePool":
            out |= {"state": "ACTIVE", "nodeSourceDetails": inputs.get("nodeSourceDetails")}
        elif typ == "oci:FileStorage/mountTarget:MountTarget":
            pip = fake_ocid("privateip", self.region, rid)
            subnet = inputs.get("subnetId", "")
            self.private_ips[pip] = subnet.get("value", "") if isinstance(subnet, dict) else subnet  # a secret
            out |= {"state": "ACTIVE", "privateIpIds": [pip],
                    "exportSetId": fake_ocid("exportset", self.region, rid)}
        elif typ == "oci:Kms/vault:Vault":  # the vault's own endpoints (OCI Vault docs: "<prefix>-management.kms...")
            prefix = _digest(typ, name)[:16]
            out |= {"state": "ACTIVE",
                    "managementEndpoint": f"https://{prefix}-management.kms.{self.region}.oraclecloud.com",
                    "cryptoEndpoint": f"https://{prefix}-crypto.kms.{self.region}.oraclecloud.com"}
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
                    "content": _kubeconfig(cluster_id, self.region,
                                           self.cluster_endpoints.get(cluster_id, "10.0.0.2:6443"))}, []
        if token == "oci:Core/getPrivateIp:getPrivateIp":
            # A private IP of the previous state exists in the tenancy and keeps its address whatever its subnet's
            # CIDR became (OCI assigns a VNIC's address once); a new one (its mount target created or replaced,
            # so its OCID is new) gets one from its subnet's CIDR as this run declares it.
            pip = args.args.get("privateIpId", "")
            subnet = self.private_ips.get(pip, "")
            address = self._previous_addresses.get(pip) or host_address(self.subnet_cidrs.get(subnet, "10.0.3.0/24"),
                                                                        9)
            self.addresses[pip] = address
            return {"id": pip, "privateIpId": pip, "subnetId": subnet, "ipAddress": address}, []
        if token == "oci:FileStorage/getMountTargets:getMountTargets":
            return self._mount_targets(dict(args.args)), []
        if token == "oci:ObjectStorage/getNamespace:getNamespace":
            compartment = args.args.get("compartmentId")
            return {"id": "namespace", "compartmentId": compartment, "namespace": self._namespace(compartment)}, []
        if token == "kubernetes:yaml:decode":  # pulumi_kubernetes.yaml (v1) ConfigFile/ConfigGroup parse through it
            try:  # aliases bounded, as the provider's go-yaml bounds them
                docs = bounded_yaml.safe_load_all(str(args.args.get("text", "")))
            except bounded_yaml.BoundedYAMLError as e:  # one line: the author's YAML, not the program, is at fault
                raise pulumi.RunError(f"kubernetes:yaml:decode refuses the YAML text: {e}") from None
            return {"result": [d for d in docs if d is not None]}, []
        if token in KUBERNETES_RENDERERS:  # v1 helm.sh/v3 Chart and kustomize Directory render through the provider
            what = KUBERNETES_RENDERERS[token]
            subject = args.args.get("jsonOpts") or args.args.get("directory") or ""
            if token == "kubernetes:helm:template":
                try:
                    opts = json.loads(subject) if isinstance(subject, str) else {}
                except json.JSONDecodeError:
                    opts = {}
                subject = " ".join(str(opts.get(k)) for k in ("chart", "version") if opts.get(k)) or "a chart"
            self.advisories.append(f"{what} {subject}: its objects are rendered by the Kubernetes provider and are "
                                   "not known offline; the policy pack did not check them")
            return {"result": []}, []
        raise NotImplementedError(f"the offline mocks do not answer the invoke {token}; add it to offline/mocks.py")

    def _namespace(self, compartment: Any) -> str:
        """The tenancy's Object Storage namespace: the one the previous plan's buckets live in (``--previous``: the
        state the stack is in), else a deterministic fake (lowercase letters and digits, like OCI's) derived from the
        compartment asked about — one tenancy, one namespace, in every region."""
        for res in self.previous.values():
            namespace = (res.get("inputs") or {}).get("namespace")
            if res.get("type") == "oci:ObjectStorage/bucket:Bucket" and isinstance(namespace, str) and namespace:
                return namespace
        return "ns" + _digest("objectstorage-namespace", str(compartment or ""), n=10)

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


def previous_addresses(previous: dict) -> dict[str, str]:
    """Private IP OCID → address in a ``--json`` plan: its ``privateIps``; for a plan written before it had them,
    the address the mocks gave each mount target's private IP from its subnet's CIDR in that plan."""
    recorded = previous.get("privateIps")
    if recorded is not None:
        return dict(recorded)  # its shape is checked with the plan's (offline.replacement.check_plan)
    resources = [r for r in previous.get("resources", []) if isinstance(r, dict)]
    cidrs = {r.get("id"): (r.get("inputs") or {}).get("cidrBlock") for r in resources
             if r.get("type") == "oci:Core/subnet:Subnet"}
    found = {}
    for r in resources:
        if r.get("type") != "oci:FileStorage/mountTarget:MountTarget":
            continue
        cidr = cidrs.get((r.get("inputs") or {}).get("subnetId"))
        for pip in (r.get("outputs") or {}).get("privateIpIds") or []:
            if not isinstance(pip, str) or not isinstance(cidr, str) or pip == "[unknown]":
                continue
            try:
                ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                continue  # a CIDR the plan does not show ([secret], [unknown]): the address is not derived
            found[pip] = host_address(cidr, 9)
    return found


def k8s_object_id(inputs: dict, name: str) -> str:
    """The id the Kubernetes provider gives an object: ``<namespace>/<name>``, or ``<name>`` when cluster-scoped."""
    meta = inputs.get("metadata") or {}
    obj_name = meta.get("name") or inputs.get("name") or name
    ns = meta.get("namespace") or inputs.get("namespace")
    return f"{ns}/{obj_name}" if ns else str(obj_name)


def _kubeconfig(cluster_id: str, region: str, endpoint: str = "10.0.0.2:6443") -> str:
    """A kubeconfig shaped like OKE's (token_version 2.0.0: an ``oci ce cluster generate-token`` exec plugin), its
    server the cluster's private ``endpoint`` (``<ip>:6443``)."""
    return (
        "apiVersion: v1\nkind: Config\ncurrent-context: oke\n"
        f"clusters:\n- name: oke\n  cluster:\n    server: https://{endpoint}\n"
        "    certificate-authority-data: T0ZGTElORQ==\n"
        "contexts:\n- name: oke\n  context: {cluster: oke, user: oke}\n"
        "users:\n- name: oke\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
        "      command: oci\n"
        f"      args: [ce, cluster, generate-token, --cluster-id, {cluster_id}, --region, {region}]\n"
    )
