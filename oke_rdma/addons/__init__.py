"""The platform's Helm add-ons, one module per add-on (see :mod:`oke_rdma.addons._registry` for what a module
declares). :data:`REGISTRY` holds every module of this package, in install order.

Adding an add-on is one new module here with ``ADDON = AddOn(...)`` (its config model, chart and repository, pinned
version, namespace and Pod Security level, values, dependencies and CRDs), plus its docs and tests: the stack config
(``oke-rdma:platform.<key>``), the config checks and the platform component pick it up from the registry. The policy
pack keeps its own Helm repository allow-list (it is published alone); a test ties it to this registry.
"""

from oke_rdma.addons._registry import (BASELINE, POD_SECURITY_LEVELS, PRIVILEGED, RESTRICTED, AddOn, ExtraNamespace,
                                       ManifestRelease,
                                       HelmRelease, Registry, ValuesContext, all_namespaces, discover,
                                       enabled_releases, merge_values, namespace_levels,
                                       platform_model)

#: Every add-on module of this package, in install order (an add-on after those it waits for).
REGISTRY: Registry = discover(__name__)

__all__ = ["BASELINE", "POD_SECURITY_LEVELS", "PRIVILEGED", "RESTRICTED", "AddOn", "ExtraNamespace", "HelmRelease",
           "ManifestRelease",
           "REGISTRY", "Registry", "ValuesContext", "all_namespaces", "discover", "enabled_releases", "merge_values",
           "namespace_levels", "platform_model"]
