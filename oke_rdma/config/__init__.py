"""The stack's configuration, parsed once into a frozen pydantic model.

Every key of the ``oke-rdma:`` namespace (plus ``oci:region``) is read here and nowhere else. Field errors,
unknown keys and cross-field rules are all collected and raised together as one :class:`ConfigError`, whose
lines each name the config key path (``oke-rdma:nodePools.gpu.faultDomains``) and the fix.

Sources of the OCI rules enforced here are named next to each rule (OKE docs "Using Compute Clusters to Provision
Managed Nodes", "Network Resource Configuration"; Compute docs "Compute Clusters"; FSS docs "Managing Mount Targets").

Layout, each layer importing only the ones before it (``tests/config/test_import_graph.py`` checks it):
``_base`` (re-exports :mod:`oke_rdma.schema`: strict base model, validators, :class:`ConfigError`); one module per
section (``network``, ``compute``, ``storage``, ``workload_identity``, ``tenants``, ``platform``) holding its models
and single-key rules; ``stack`` (:class:`StackConfig`); ``checks`` (every rule reading several keys, one module per
section, and :data:`CROSS_CHECKS`); ``errors`` (a validation error as one line naming the key path); ``loader``
(:func:`load_stack_config`). Import from this package, not from the modules.
"""

from ._base import NAMESPACE, ConfigError, StrList
from .checks import CROSS_CHECKS, cross_checks
from .checks.compute import placement_warnings
from .checks.network import (cidr_problems, cycle_headroom_nodes, node_ip_demand, pod_ip_demand, required_nsg_roles,
                             required_subnet_roles)
from .checks.tenants import pool_gpus
from .checks.workload_identity import workload_bindings
from .compute import (FLEX_SHAPE_LIMITS, GPUS_PER_SHAPE, MIN_BOOT_VOLUME_GB, RDMA_SHAPES, Cluster, ComputeCluster,
                      Cycling, Eviction, NodePool, Preemptible)
from .loader import load_from_pulumi, load_stack_config, raw_pulumi_config
from .network import (FROM_STACK_OUTPUTS, NSG_ROLES, SUBNET_ROLES, ApiEndpoint, ExistingNetwork, FromStack, Network,
                      NsgIds, SubnetCidrs, SubnetIds, default_subnet_plan, subnet_plan)
from .platform import (HOSTNAME_LABEL, OKE_DEVICE_PLUGIN_LABEL, RDMA_TOPOLOGY_LEVELS, GpuOperatorRelease, HelmRelease,
                       KedaRelease, KubePrometheusStackRelease, KueueRelease, Platform, TopologyLabeler, platform_model)
from .stack import StackConfig
from .storage import (FSS_CAPACITY_ENTITLEMENT_TB, FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS, FSS_THROUGHPUT_TIERS, Fss,
                      SharedStorage, Storage)
from .tenants import Iam, Tenant, TenantQuota
from .workload_identity import (IAM_ADMIN_RESOURCE_TYPES, VERBS, Condition, Grant, ServiceAccount, WorkloadBinding,
                                parse_grant)

__all__ = [
    "NAMESPACE", "ConfigError", "StrList", "MIN_BOOT_VOLUME_GB", "RDMA_SHAPES", "Cluster", "ComputeCluster",
    "NodePool", "Cycling", "Eviction", "Preemptible", "placement_warnings", "SUBNET_ROLES", "ApiEndpoint", "Network", "SubnetCidrs", "default_subnet_plan", "subnet_plan",
    "GpuOperatorRelease", "HelmRelease", "KedaRelease", "KubePrometheusStackRelease", "KueueRelease", "Platform",
    "StackConfig", "cross_checks", "load_from_pulumi", "load_stack_config", "raw_pulumi_config",
    "FSS_THROUGHPUT_TIERS", "Fss", "Storage", "Iam", "Tenant",
    "FSS_CAPACITY_ENTITLEMENT_TB", "FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS", "SharedStorage",
    "VERBS", "Condition", "Grant", "ServiceAccount", "WorkloadBinding", "parse_grant", "workload_bindings",
    "GPUS_PER_SHAPE", "HOSTNAME_LABEL", "OKE_DEVICE_PLUGIN_LABEL", "RDMA_TOPOLOGY_LEVELS", "TopologyLabeler",
    "TenantQuota", "pool_gpus",
    "FROM_STACK_OUTPUTS", "NSG_ROLES", "ExistingNetwork", "FromStack", "NsgIds", "SubnetIds", "cidr_problems",
    "cycle_headroom_nodes", "pod_ip_demand", "required_nsg_roles", "required_subnet_roles",
    "FLEX_SHAPE_LIMITS", "IAM_ADMIN_RESOURCE_TYPES", "node_ip_demand", "CROSS_CHECKS", "platform_model",
]
