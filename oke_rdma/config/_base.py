"""The config modules' import path for the strict base of the config models, which lives in :mod:`oke_rdma.schema`
(a leaf module, so the add-on registry's config models share it without importing this package)."""

from oke_rdma.schema import (_ANY_OCID_RE, _DNS_LABEL_RE, _DNS_SUBDOMAIN_RE, _EXACT_VERSION_RE, _FD_RE,
                             _K8S_NAME_RE, _K8S_VERSION_RE, _LABEL_NAME_RE, _OCID_RE, _PREFIX_RE, NAMESPACE,
                             RESERVED_NAMESPACES, SECRET_PLACEHOLDER, ConfigError, StrList, _a, _cidr, _k8s_labels,
                             _k8s_name, _key, _Model, _ocid, _part, _pinned_image, ocid_region, shown_key)

__all__ = [
    "_ANY_OCID_RE", "_DNS_LABEL_RE", "_DNS_SUBDOMAIN_RE", "_EXACT_VERSION_RE", "_FD_RE", "_K8S_NAME_RE",
    "_K8S_VERSION_RE", "_LABEL_NAME_RE", "_OCID_RE", "_PREFIX_RE", "NAMESPACE", "RESERVED_NAMESPACES",
    "SECRET_PLACEHOLDER", "ConfigError", "StrList", "_a", "_cidr", "_k8s_labels", "_k8s_name", "_key", "_Model",
    "_ocid", "_part", "_pinned_image", "ocid_region", "shown_key",
]
