"""Each component's *Args refuses an input it cannot use with one ValueError line naming the argument, and accepts
the same input made valid."""

from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY, Registry, platform_model
from oke_rdma.config import Fss, SharedStorage
from oke_rdma.iam import IamArgs, IamInputs
from oke_rdma.platform import PlatformArgs
from oke_rdma.storage import StorageArgs
from oke_rdma.volumes import SharedVolumesArgs, TenantShare

COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaaargs"
AD = "bxtG:SA-SAOPAULO-1-AD-1"
SUBNETS = {"storage": "ocid1.subnet.oc1..s"}
CIDRS = {"workers": "10.0.16.0/20", "pods": "10.0.128.0/17"}
NSGS = {"storage": "ocid1.networksecuritygroup.oc1..n"}
FSS = Fss.model_validate({})


@pytest.mark.parametrize("kw, message", [
    ({"availability_domain": "AD-1"}, "availability_domain 'AD-1' is not an availability domain name"),
    ({"subnet_ids": {}}, "subnet_ids['storage'] missing"),
    ({"nsg_ids": {}}, "nsg_ids['storage'] missing"),
    ({"subnet_cidrs": {"pods": "10.0.128.0/17"}}, "subnet_cidrs['workers'] missing"),
    ({"fss": {"enabled": True}}, "StorageArgs.fss: expected an oke_rdma.config.Fss, got dict"),
])
def test_storage_args_refuse_what_the_file_system_cannot_use(kw, message):
    """An enabled file system needs a well-formed AD, the storage subnet and NSG and the client (workers) CIDR."""
    args = dict(compartment_id=COMPARTMENT, fss=FSS, availability_domain=AD, subnet_ids=SUBNETS, subnet_cidrs=CIDRS,
                nsg_ids=NSGS)
    args.update(kw)
    with pytest.raises(ValueError) as e:
        StorageArgs(**args)
    assert message in str(e.value)


def test_storage_args_accept_a_valid_or_disabled_file_system():
    """The valid inputs pass (the legacy Ashburn and Phoenix AD names too); a disabled file system needs no subnet,
    NSG or AD."""
    assert StorageArgs(COMPARTMENT, FSS, AD, SUBNETS, CIDRS, NSGS).availability_domain == AD
    for legacy in ("Uocm:US-ASHBURN-AD-2", "Uocm:PHX-AD-3", "abCD:US-GOV-ASHBURN-1-AD-1"):
        assert StorageArgs(COMPARTMENT, FSS, legacy, SUBNETS, CIDRS, NSGS).availability_domain == legacy
    off = Fss.model_validate({"enabled": False})
    assert StorageArgs(COMPARTMENT, off, "", {}, {}, {}).fss.enabled is False


def test_shared_volumes_args_need_each_shares_namespace():
    """A share whose namespace the platform did not create is refused, naming the tenant and the namespace."""
    share = {"research": TenantShare("research", SharedStorage.model_validate({"subPath": "r", "capacity": "1Ti"}),
                                     20001, 20001)}
    common = ("ocid1.filesystem.oc1..f", "ocid1.mounttarget.oc1..m", "10.0.3.10", "/shared", AD, ["10.0.16.0/20"])
    with pytest.raises(ValueError, match=r"shares\['research'\].namespace 'research' not in namespaces"):
        SharedVolumesArgs(COMPARTMENT, FSS, share, None, {}, *common)
    assert SharedVolumesArgs(COMPARTMENT, FSS, share, None, {"research": object()}, *common).shares == share


def test_iam_args_take_iam_inputs():
    """IamArgs wants IamInputs (what the statements depend on), not a stack config or a dict."""
    with pytest.raises(ValueError, match="IamArgs.config: expected oke_rdma.iam.IamInputs, got dict"):
        IamArgs({"compartmentId": COMPARTMENT}, "ocid1.cluster.oc1..c")
    assert IamArgs(IamInputs(COMPARTMENT, rdma_pools=True), "ocid1.cluster.oc1..c").config.rdma_pools


def test_platform_args_need_a_config_for_every_addon_of_the_registry():
    """A platform config built for another registry lacks sections: refused, naming the add-ons."""
    smaller = platform_model(Registry(tuple(a for a in REGISTRY if a.key != "keda")))()
    with pytest.raises(ValueError, match=r"platform has no config for the add-ons \['keda'\]"):
        PlatformArgs(provider=None, name_prefix="t", platform=smaller)
    assert PlatformArgs(provider=None, name_prefix="t").platform.keda.enabled


def test_no_component_args_take_the_stack_config():
    """Every component's ``*Args`` names the slice it uses: no parameter or field is typed with the whole stack config
    (a library user has no ``oke-rdma:`` config to give)."""
    import importlib
    import inspect
    import pkgutil

    import oke_rdma
    found = []
    for info in pkgutil.walk_packages(oke_rdma.__path__, "oke_rdma."):
        if info.name.startswith(("oke_rdma.config", "oke_rdma.preflight", "oke_rdma.adapter", "oke_rdma.new_stack",
                                 "oke_rdma.docs")):
            continue
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and name.endswith(("Args", "Inputs")) and cls.__module__ == info.name:
                text = str(inspect.signature(cls.__init__))
                found.append(name)
                assert "StackConfig" not in text, f"{info.name}.{name}{text}"
    assert {"SchedulingArgs", "NetworkArgs", "ComputeArgs", "PlatformArgs", "IamInputs"} <= set(found), found
