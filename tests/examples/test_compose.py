"""The component library used without this project's stack config: the compose example (network, cluster, IAM and
one RDMA pool from typed arguments) previews clean offline and passes the policy pack; a bad value of its own config
is one line naming its key; Network alone needs only the network's inputs; the *Args refuse unusable inputs in one
line naming the argument; the package builds as a wheel holding every subpackage."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from offline.engine import run_program
from oke_rdma.cluster import ClusterArgs
from oke_rdma.compute import ComputeArgs
from oke_rdma.config import Cluster as ClusterConfig
from oke_rdma.config import ComputeCluster, NodePool
from oke_rdma.config import Network as NetworkConfig
from oke_rdma.network import Network, NetworkArgs
from tests.componenttest import of_type
from tests import inprocess

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "compose"
COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaacomposeexamplecompartment0000000000000000000000000000"
AD = "bxtG:SA-SAOPAULO-1-AD-1"
IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaacomposeexampleokegpuimage000000000000000000000000000"
SUBNETS = {r: f"ocid1.subnet.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods",
                                                                       "internalLoadBalancers")}
NSGS = {r: f"ocid1.networksecuritygroup.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods")}


def preview(*args: str) -> subprocess.CompletedProcess:
    return inprocess.preview("--program", str(EXAMPLE / "__main__.py"), *args)


def test_the_compose_example_reads_no_oke_rdma_config():
    """Its stack file sets only its own project's keys and oci:region."""
    keys = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())["config"]
    assert keys and all(k.startswith("rdma-compose:") or k == "oci:region" for k in keys), keys
    source = (EXAMPLE / "__main__.py").read_text()
    assert "load_from_pulumi" not in source and "oke_rdma.adapter" not in source and '"oke-rdma"' not in source


def test_the_compose_example_previews_clean_and_passes_the_policy_pack(tmp_path):
    """A VCN with private subnets and NSGs, an enhanced private cluster, the launch policy, and one RDMA pool placed
    in the Compute Cluster's AD that waits for that policy."""
    out = preview("--config-file", str(EXAMPLE / "Pulumi.dev.yaml"), "--json", str(tmp_path / "plan.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no violations" in out.stdout
    doc = json.loads((tmp_path / "plan.json").read_text())
    assert doc["policyViolations"] == []
    by_type: dict[str, list] = {}
    for r in doc["resources"]:
        by_type.setdefault(r["type"], []).append(r)
    (pool,) = by_type["oci:ContainerEngine/nodePool:NodePool"]
    (cc,) = by_type["oci:Core/computeCluster:ComputeCluster"]
    (cluster,) = by_type["oci:ContainerEngine/cluster:Cluster"]
    (launch,) = [p for p in by_type["oci:Identity/policy:Policy"] if p["name"] == "compose-nodepool-launch"]
    details = pool["inputs"]["nodeConfigDetails"]
    assert pool["inputs"]["nodeShape"] == "BM.GPU.H100.8" and details["size"] == 2
    assert cc["urn"] in pool["dependencies"] and details["computeClusterId"].startswith("ocid1.computecluster.")
    assert [p["availabilityDomain"] for p in details["placementConfigs"]] == [AD]
    assert not details["placementConfigs"][0].get("faultDomains")
    assert launch["urn"] in pool["dependencies"]
    assert cluster["inputs"]["type"] == "ENHANCED_CLUSTER"
    assert cluster["inputs"]["endpointConfig"]["isPublicIpEnabled"] is False
    assert all(s["inputs"]["prohibitPublicIpOnVnic"] for s in by_type["oci:Core/subnet:Subnet"])
    assert set(doc["outputs"]) == {"vcnId", "clusterId", "kubeconfig", "computeClusterId", "rdmaPoolId"}


@pytest.mark.parametrize("key, value, expected", [
    ("nodes", "-1", "rdma-compose:nodes: Input should be greater than or equal to 0"),
    ("availabilityDomain", "AD-1", "ComputeArgs: compute_cluster.availabilityDomain: 'AD-1' is not an availability "
                                   "domain name"),
    ("kubernetesVersion", "1.34", "rdma-compose:kubernetesVersion: "),
])
def test_a_bad_value_of_the_examples_own_config_is_one_line_naming_its_key(tmp_path, key, value, expected):
    """Exit 2 and a line naming rdma-compose:<key>, never a traceback."""
    doc = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())
    doc["config"][f"rdma-compose:{key}"] = int(value) if value.lstrip("-").isdigit() else value
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = preview("--config-file", str(path))
    assert out.returncode == 2, out.stdout + out.stderr
    assert expected in out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr


def test_network_alone_needs_only_the_networks_inputs():
    """A program that imports and uses only Network runs with no oke-rdma: key at all."""
    def program():
        Network("net", NetworkArgs(COMPARTMENT, NetworkConfig.model_validate({"vcnCidr": "10.50.0.0/16"}),
                                   name_prefix="solo"))

    run = run_program({"oci:region": "sa-saopaulo-1"}, [], "dev", program=program)
    (vcn,) = of_type(run, "oci:Core/vcn:Vcn")
    assert vcn.inputs["cidrBlocks"] == ["10.50.0.0/16"] and vcn.inputs["compartmentId"] == COMPARTMENT
    assert len(of_type(run, "oci:Core/subnet:Subnet")) == 5
    assert of_type(run, "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule")


def _pool(**extra) -> NodePool:
    return NodePool.model_validate({"shape": "BM.GPU.H100.8", "size": 2, "imageId": IMAGE, "rdma": True, **extra})


@pytest.mark.parametrize("pools, kw, message", [
    ({}, {}, "node_pools is empty"),
    ({"gpu": _pool()}, {}, "node_pools['gpu'] has rdma: true but no compute_cluster is given"),
    ({"gpu": _pool(faultDomains=["FAULT-DOMAIN-1"])}, {"cc": True}, "node_pools['gpu'].faultDomains: must be empty"),
    ({"gpu": _pool(shape="VM.GPU.A10.1")}, {"cc": True}, "node_pools['gpu'].shape: VM.GPU.A10.1 is a VM shape"),
    ({"gpu": _pool(shape="BM.GPU.X9.8")}, {"cc": True}, "node_pools['gpu'].shape: BM.GPU.X9.8 is not a shape Oracle"),
    ({"gpu": _pool(availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-2"])}, {"cc": True},
     "node_pools['gpu'].availabilityDomains: an RDMA pool has exactly one placement"),
    ({"cpu": _pool(rdma=False, shape="VM.Standard.E5.Flex", ocpus=4, memoryGb=32)}, {},
     "node_pools['cpu'] names no availability domain"),
    ({"gpu": _pool()}, {"cc": True, "drop": "pods"}, "subnet_ids['pods'] missing"),
    ({"gpu": {"shape": "BM.GPU.H100.8"}}, {"cc": True}, "node_pools['gpu'] is a dict, not an oke_rdma.config.NodePool"),
    ({"cpu": _pool(rdma=False, shape="VM.Standard.E5.Flex", ocpus=4, memoryGb=32)}, {"ads": ["AD-1"]},
     "availability_domains: 'AD-1' is not an availability domain name"),
])
def test_compute_args_refuse_unusable_pools_naming_the_argument(pools, kw, message):
    """Placement rules hold for library users too, reported against the argument they passed."""
    subnets = {r: v for r, v in SUBNETS.items() if r != kw.get("drop")}
    cc = ComputeCluster.model_validate({"availabilityDomain": AD}) if kw.get("cc") else None
    with pytest.raises(ValueError) as e:
        ComputeArgs(COMPARTMENT, "ocid1.cluster.oc1..c", "v1.34.1", subnets, NSGS, pools, compute_cluster=cc,
                    availability_domains=kw.get("ads", ()))
    assert str(e.value).startswith("ComputeArgs: ") and message in str(e.value)


def test_compute_args_accept_a_valid_rdma_pool():
    """The same pool with its Compute Cluster passes."""
    args = ComputeArgs(COMPARTMENT, "ocid1.cluster.oc1..c", "v1.34.1", SUBNETS, NSGS, {"gpu": _pool()},
                       compute_cluster=ComputeCluster.model_validate({"availabilityDomain": AD}))
    assert list(args.node_pools) == ["gpu"]


def test_cluster_and_network_args_refuse_what_they_cannot_use():
    """A missing role, a dict where a config model is expected, or an unknown role: one line naming it."""
    cluster = ClusterConfig.model_validate({"kubernetesVersion": "v1.34.1"})
    with pytest.raises(ValueError, match=r"ClusterArgs: subnet_ids\['internalLoadBalancers'\] missing"):
        ClusterArgs(COMPARTMENT, cluster, "ocid1.vcn.oc1..v", {"controlPlane": "s"}, NSGS)
    with pytest.raises(ValueError, match="ClusterArgs.cluster: expected an oke_rdma.config.Cluster"):
        ClusterArgs(COMPARTMENT, {"kubernetesVersion": "v1.34.1"}, "ocid1.vcn.oc1..v", SUBNETS, NSGS)
    with pytest.raises(ValueError, match="NetworkArgs.network: expected an oke_rdma.config.Network"):
        NetworkArgs(COMPARTMENT, {"vcnCidr": "10.0.0.0/16"})
    with pytest.raises(ValueError, match=r"NetworkArgs: unknown roles \['gpus'\]"):
        NetworkArgs(COMPARTMENT, subnet_roles=("workers", "gpus"))


def test_the_package_builds_a_wheel_with_every_subpackage(tmp_path):
    """pip builds oke_rdma from pyproject.toml; the wheel holds the add-on registry, the config rules, the adapter
    and the labeler script, and none of the program, the packs, the preview or the tests."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "oke_rdma", src / "oke_rdma", ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                          str(src)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    (wheel,) = (tmp_path / "dist").glob("oke_rdma-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {str(p.relative_to(ROOT)) for p in (ROOT / "oke_rdma").rglob("*.py")}
    expected |= {str(p.relative_to(ROOT)) for p in (ROOT / "oke_rdma" / "files").iterdir() if p.is_file()}
    assert expected <= names, sorted(expected - names)
    assert not any(n.split("/")[0] in ("policies", "offline", "tests", "examples", "bench") or n == "__main__.py"
                   for n in names)
