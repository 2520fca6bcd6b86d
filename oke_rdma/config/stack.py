"""The whole stack's config model (:class:`StackConfig`): every section, no rule reading two sections (those are in
``oke_rdma.config.checks``) and no loading (``oke_rdma.config.loader``)."""

from __future__ import annotations

import difflib
import re
from typing import Optional

from pydantic import Field, field_validator

from ..facts import regions
from ._base import _PREFIX_RE, StrList, _Model, _ocid
from .compute import Cluster, ComputeCluster, NodePool
from .network import Network
from .platform import Platform
from .storage import Storage
from .tenants import Iam, Tenant
from .fleet import Metering

#: Longest free-form tag key and value OCI accepts, in characters (OCI Tagging docs, "Tagging Limits").
MAX_TAG_KEY_CHARS, MAX_TAG_VALUE_CHARS = 100, 256


def region_problem(region: str) -> Optional[str]:
    """Why ``region`` is not an OCI region identifier of the OCI SDK's region table (``oke_rdma.facts.regions``),
    with the closest ones, or None."""
    if regions.realm_of(region) is not None:
        return None
    named = regions.region_of_key(region.lower())
    close = [named] if named else difflib.get_close_matches(region, regions.regions(), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}?" if close else "see `oci iam region list`."
    return (f"expected an OCI region identifier (one of the {len(regions.regions())} regions of the OCI SDK's region "
            f"table, like us-ashburn-1 or sa-saopaulo-1), got {region!r}; {hint} Set it with pulumi config set "
            f"oci:region <region>")


def ad_name_problem(name: str) -> Optional[str]:
    """Why ``name`` is not written like an availability domain name (``oke_rdma.facts.regions``), or None; whether
    it is one of ``oci:region`` is a cross-key rule (``checks.oci_facts``)."""
    if regions.parse_ad(name) is None:
        return (f"expected availability domain names like 'Uocm:US-ASHBURN-AD-1', 'Uocm:PHX-AD-1' or "
                f"'bxtG:SA-SAOPAULO-1-AD-1' (<tenancy prefix>:<REGION>-AD-<n>), got {name!r}; copy the names from "
                f"`oci iam availability-domain list`")
    return None


class StackConfig(_Model):
    """The whole stack's configuration (every ``oke-rdma:`` key plus ``oci:region``).

    Build it with :func:`oke_rdma.config.load_stack_config`; constructing it directly skips the cross-field rules.
    """

    region: str = Field(description=(
        "OCI region identifier of the OCI SDK's region table, e.g. `us-ashburn-1`, `us-gov-ashburn-1` (`oci iam "
        "region-subscription list`); every regional OCID given must be of this region, and every OCID of its realm "
        "(docs/facts.md)."))
    compartment_id: str = Field(description=(
        "OCID of the compartment that holds every resource and IAM policy (`oci iam compartment list`)."))
    name_prefix: str = Field("okerdma", description=(
        "Prefix of every resource name (1-24 lowercase letters, digits or '-', starting with a letter and ending with"
        " a letter or digit); names are deterministic."))
    freeform_tags: dict[str, str] = Field(default_factory=dict, description=(
        "Free-form tags put on every OCI resource; keys of 1-100 characters, values of at most 256 (OCI Tagging "
        "limits)."))
    availability_domains: StrList = Field(min_length=1, description=(
        "Availability domains of `oci:region` node pools and FSS may use, full names like "
        "`bxtG:SA-SAOPAULO-1-AD-1` or the legacy `Uocm:US-ASHBURN-AD-2`, `Uocm:PHX-AD-3` (`oci iam "
        "availability-domain list`)."))
    network: Network = Field(Network(), description=(
        "The VCN this stack creates (CIDR, subnet plan, API endpoint exposure), or a network brought with "
        "`existing` or `fromStack`."))
    cluster: Cluster = Field(description=(
        "The OKE cluster: Kubernetes version, type, pod networking and security options."))
    compute_cluster: Optional[ComputeCluster] = Field(None, description=(
        "The OCI Compute Cluster RDMA pools join (required when a pool has `rdma: true`)."))
    node_pools: dict[str, NodePool] = Field(min_length=1, description=(
        "Node pools by name (a Kubernetes name); at least one."))
    storage: Storage = Field(Storage(), description=(
        "Shared storage for weights and checkpoints: File Storage (FSS) and File Storage with Lustre "
        "(docs/storage.md)."))
    platform: Platform = Field(Platform(), description=(
        "The in-cluster platform: one pinned Helm add-on per module of `oke_rdma/addons` (docs/addons.md)."))
    tenants: dict[str, Tenant] = Field(default_factory=dict, description=(
        "Tenants by name: a namespace each, with quotas, optional RDMA, shared storage and Workload Identity."))
    iam: Iam = Field(Iam(), description="IAM: whether policies are created, and the OCIDs some statements need.")
    metering: Metering = Field(Metering(), description=(
        "GPU-hour prices for the usage report (`python -m oke_rdma.usage`, docs/metering.md)."))

    # The tenancy is the root compartment, so its OCID is a valid compartmentId too.
    _compartment = field_validator("compartment_id")(lambda v: _ocid("compartment", v, "tenancy"))

    @field_validator("region")
    @classmethod
    def _region(cls, v: str) -> str:
        problem = region_problem(v)
        if problem is not None:
            raise ValueError(problem)
        return v

    @field_validator("freeform_tags")
    @classmethod
    def _tags(cls, v: dict[str, str]) -> dict[str, str]:
        # OCI Tagging docs, "Tagging Limits": a tag key has 1-100 characters, a tag value at most 256.
        for key, value in v.items():
            if not 1 <= len(key) <= MAX_TAG_KEY_CHARS:
                raise ValueError(f"expected tag keys of 1 to {MAX_TAG_KEY_CHARS} characters (OCI Tagging limits), got "
                                 f"{len(key)} characters ({key[:24]!r}...); shorten the key")
            if len(value) > MAX_TAG_VALUE_CHARS:
                raise ValueError(f"expected tag values of at most {MAX_TAG_VALUE_CHARS} characters (OCI Tagging "
                                 f"limits), got {len(value)} for {key!r}; shorten the value")
        return v

    @field_validator("name_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        if not _PREFIX_RE.match(v):
            # It starts every Kubernetes object name and is the app.kubernetes.io/part-of label value: a label
            # value ends with a letter or digit (Kubernetes docs "Labels and Selectors", syntax).
            raise ValueError(f"expected 1-24 lowercase letters, digits or '-', starting with a letter and ending with "
                             f"a letter or digit (it starts every resource name and is a Kubernetes label value), got "
                             f"{v!r}; rename it, e.g. to {_prefix_suggestion(v)!r}")
        return v

    @field_validator("availability_domains")
    @classmethod
    def _ads(cls, v: StrList) -> StrList:
        for ad in v:
            problem = ad_name_problem(ad)
            if problem is not None:
                raise ValueError(problem)
        if len(set(v)) != len(v):
            raise ValueError("lists an availability domain twice; remove the duplicate")
        return v

    @property
    def rdma_pools(self) -> dict[str, NodePool]:
        """The node pools placed in the Compute Cluster."""
        return {k: p for k, p in self.node_pools.items() if p.rdma}

    def tenant_namespace(self, name: str) -> str:
        """The Kubernetes namespace of tenant ``name`` (its ``namespace`` or, by default, its name)."""
        return self.tenants[name].namespace or name


def _prefix_suggestion(v: str) -> str:
    """A ``namePrefix`` close to ``v``: lower case, other characters as ``-``, starting with a letter, at most 24."""
    name = re.sub(r"[^a-z0-9]+", "-", v.lower()).lstrip("-0123456789")[:24].strip("-")
    return name or "okerdma"
