"""Facts the program and the packs both need have one definition in the program, and the packs' own copies (they
are published alone and import nothing from oke_rdma) equal it."""

from __future__ import annotations

import oke_rdma.compute as compute
import oke_rdma.config.platform as config_platform
import oke_rdma.platform as platform
import oke_rdma.scheduling as scheduling
from oke_rdma.addons import gpu_operator
from oke_rdma.config import VERBS
from policies.security import identity


def test_is_gpu_shape_has_one_definition_that_never_raises():
    """The compute component and the config checks use the same function; a shape without a dot is no GPU shape."""
    assert compute.is_gpu_shape is config_platform.is_gpu_shape
    assert [compute.is_gpu_shape(s) for s in ("BM.GPU.H100.8", "VM.GPU.A10.1", "BM.Standard.E5.192", "GPU", "")] == [
        True, True, False, False, False]


def test_the_gpu_resource_and_device_plugin_label_have_one_definition():
    """nvidia.com/gpu comes from the GPU Operator add-on; the device-plugin label from the config."""
    assert platform.GPU_RESOURCE is gpu_operator.GPU_RESOURCE and scheduling.GPU_RESOURCE is gpu_operator.GPU_RESOURCE
    assert compute.DISABLE_OKE_DEVICE_PLUGIN[0] is config_platform.OKE_DEVICE_PLUGIN_LABEL


def test_the_packs_iam_verbs_are_the_grant_parsers():
    """The security pack's verbs (its own copy) equal the ones the program's grant parser accepts."""
    assert tuple(identity.VERBS) == tuple(VERBS)
