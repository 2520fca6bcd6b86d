"""Every rule that reads more than one key of the stack config, in one place: one module per section, each reading
the whole :class:`~oke_rdma.config.stack.StackConfig`. The section modules (``oke_rdma.config.network``, ...) hold
their models and single-field rules only and import nothing from here or from ``stack``, so the config package has no
import circle (``tests/config/test_import_graph.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..stack import StackConfig
from .access import check_access
from .chart_versions import check_chart_versions
from .compat import check_addon_compatibility, check_partner_api_breaks
from .compute import check_pools
from .crds import check_crd_lifecycle
from .fleet import check_fleet, check_tenant_pools
from .gpu_sharing import check_gpu_sharing_effect
from .known_bugs import check_known_bugs
from .kueue_gates import check_kueue_gates
from .network import check_network
from .object_storage import check_object_storage
from .oci_facts import check_image_regions, check_oci_facts, check_ocid_regions
from .platform import check_addon_dependencies, check_chart_compatibility, check_platform
from .storage import check_storage
from .storage_classes import check_storage_classes
from .tenants import check_quotas, check_tenants
from .walls import check_walls
from .workload_identity import check_workload_identity

#: Every cross-field rule, each ``(cfg) -> list of problems``; add new ``check_*`` functions here.
CROSS_CHECKS: tuple[Callable[[StackConfig], list[str]], ...] = (
    check_network, check_pools, check_image_regions, check_tenants, check_storage, check_workload_identity,
    check_platform, check_chart_compatibility, check_addon_dependencies, check_quotas, check_ocid_regions,
    check_oci_facts, check_fleet, check_object_storage, check_walls,
    check_tenant_pools, check_access, check_crd_lifecycle, check_addon_compatibility, check_partner_api_breaks,
    check_storage_classes,
    check_known_bugs, check_gpu_sharing_effect, check_chart_versions, check_kueue_gates,
)


def cross_checks(cfg: StackConfig) -> list[str]:
    """Rules spanning several keys: subnet plan and overlaps, pod-IP capacity, Compute Cluster placement
    (enhanced-only features, AD, no fault domains, RDMA shapes), Flex sizing, tenant namespaces, Workload
    Identity bindings and the platform's values and device plugins.

    :returns: one message per problem, each starting with the config key path.
    """
    return [p for check in CROSS_CHECKS for p in check(cfg)]
