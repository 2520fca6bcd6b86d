"""The fleet file (``fleet.yaml``): many stacks of this product, in many regions, rolled out in waves by the Pulumi
Kubernetes Operator with Flux delivering it (docs/fleet.md).

Shape (camelCase keys, unknown keys refused)::

    name: gpu-fleet                     # the fleet (a DNS label)
    project: oke-rdma                   # the Pulumi project of every stack (default oke-rdma)
    release:                            # the product release every stack runs, pinned by digest; a stack may pin
      git: {url: https://..., ref: v1.4.0, commit: <40 hex>}       # another with its own `release:`
      # or  oci: {url: oci://ghcr.io/org/oke-rdma, tag: v1.4.0, digest: sha256:<64 hex>}
    backend:
      pulumiCloud: {organization: acme}
      # or selfManaged: {url: s3://bucket?endpoint=...&region=...&s3ForcePathStyle=true,
      #                  secretsProvider: hashivault://..., credentialsSecret: fleet-state-credentials}
    operator: {namespace: pulumi-fleet, workspaceImage: <repo>@sha256:<64 hex>, driftPreview: true, ...}
    management: {name: mgmt, region: ..., stackFile: ..., egressCidrs: [...]}
    defaults: defaults.yaml             # a Pulumi stack file whose config lies under every stack's own
    waves: [canary, main]               # rolled out in this order (landing zones before all of them)
    landingZones: [{name, region, stackFile}]
    clusters: [{name, region, wave, stackFile, landingZone?, decommissioned?, release?}]

Every problem is one line ``<fleet file>: <key path>: <what is wrong>; <the fix>`` (:class:`FleetError`, exit 2).
Paths in the file are relative to the fleet file's directory.

Sources (checked 2026-12-01): PKO v2.9.0 ``deploy/crds/pulumi.com_stacks.yaml`` (a Stack's name holds at most 42
characters, its CEL rule; ``spec.stack`` is ``<org>/<project>/<stack>``); Pulumi docs "State and backends"
(self-managed backends name stacks ``organization/<project>/<stack>``; an S3-compatible endpoint is given with
``endpoint=`` and ``s3ForcePathStyle=true``); OCI Object Storage docs "Amazon S3 Compatibility API" (endpoint
``https://<namespace>.compat.objectstorage.<region>.oraclecloud.com``, Customer Secret Keys as the access keys).
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator

from oke_rdma.schema import _cidr, _Model

#: Names of fleet members: a DNS label short enough that ``<name>-drift`` (the preview-only twin) is a valid Stack
#: name (PKO's CEL rule: at most 42 characters).
_NAME_RE = re.compile(r"^[a-z]([a-z0-9-]{0,34}[a-z0-9])?$")
_COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")
_DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
_IMAGE_RE = re.compile(r"^[a-z0-9.-]+(?::[0-9]+)?/[a-z0-9._/-]+@sha256:[0-9a-f]{64}$")
_ORG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
#: The Stack name's limit in PKO v2.9.0 (CEL rule ``size(self.metadata.name) <= 42``).
MAX_STACK_NAME = 42
DRIFT_SUFFIX = "-drift"


def _name(v: str) -> str:
    if not _NAME_RE.match(v):
        raise ValueError(f"expected a DNS label of at most 36 characters (lowercase letters, digits, '-'), got {v!r}; "
                         f"the preview twin {v}{DRIFT_SUFFIX} must fit PKO's {MAX_STACK_NAME}-character Stack name")
    return v


class GitRelease(_Model):
    """The product as a git commit: ``url`` (https), ``ref`` (the tag or branch it came from, shown only), ``commit``
    (40 hex digits: what the operator checks out), ``dir`` (the project directory in the repository)."""

    url: str = Field(description="https URL of the product's git repository.")
    ref: str = Field(description="The tag the commit was released as (documentation; the commit is what runs).")
    commit: str = Field(description="The full commit hash the operator checks out.")
    dir: str = Field(".", description="Directory holding Pulumi.yaml inside the repository.")

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not v.startswith("https://"):
            raise ValueError(f"expected an https:// git URL, got {v!r}")
        return v

    @field_validator("commit")
    @classmethod
    def _commit(cls, v: str) -> str:
        if not _COMMIT_RE.match(v):
            raise ValueError(f"expected the full 40-hex-digit commit (a tag or branch moves; pin what runs), got {v!r}")
        return v


class OciRelease(_Model):
    """The product as an OCI artifact (``flux push artifact``): ``url`` (``oci://``), ``tag`` (shown only),
    ``digest`` (``sha256:<64 hex>``: what Flux pulls), ``dir`` (the project directory inside the artifact)."""

    url: str = Field(description="oci:// URL of the artifact repository.")
    tag: str = Field("", description="The tag the digest was pushed as (documentation; the digest is what runs).")
    digest: str = Field(description="The artifact's manifest digest, sha256:<64 hex>.")
    dir: str = Field(".", description="Directory holding Pulumi.yaml inside the artifact.")

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not v.startswith("oci://"):
            raise ValueError(f"expected an oci:// artifact URL, got {v!r}")
        return v

    @field_validator("digest")
    @classmethod
    def _digest(cls, v: str) -> str:
        if not _DIGEST_RE.match(v):
            raise ValueError(f"expected sha256:<64 hex digits> (a tag moves; pin what runs), got {v!r}")
        return v


class Release(_Model):
    """Exactly one of ``git`` or ``oci``."""

    git: Optional[GitRelease] = None
    oci: Optional[OciRelease] = None

    @model_validator(mode="after")
    def _one(self) -> "Release":
        if (self.git is None) == (self.oci is None):
            raise ValueError("give exactly one of git (url, ref, commit) or oci (url, tag, digest)")
        return self

    @property
    def label(self) -> str:
        """``git <ref>@<commit12>`` or ``oci <tag>@<digest19>``: how tables name the release."""
        if self.git:
            return f"git {self.git.ref}@{self.git.commit[:12]}"
        return f"oci {self.oci.tag or '-'}@{self.oci.digest[:19]}"


class PulumiCloud(_Model):
    """State in Pulumi Cloud: the organization owning the stacks."""

    organization: str

    @field_validator("organization")
    @classmethod
    def _org(cls, v: str) -> str:
        if not _ORG_RE.match(v):
            raise ValueError(f"expected a Pulumi organization name, got {v!r}")
        return v


class SelfManaged(_Model):
    """State in a self-managed backend, e.g. OCI Object Storage through its S3-compatible API: ``url``
    (``s3://<bucket>?endpoint=<namespace>.compat.objectstorage.<region>.oraclecloud.com&region=<region>&
    s3ForcePathStyle=true``), ``secretsProvider`` (not ``passphrase``: nobody types it in a pod), and
    ``credentialsSecret`` (the Kubernetes Secret holding ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, an OCI
    Customer Secret Key)."""

    url: str
    secrets_provider: str
    credentials_secret: str = "fleet-state-credentials"

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not re.match(r"^(s3|azblob|gs)://[^/?]+", v):
            raise ValueError(f"expected a bucket URL such as s3://<bucket>?endpoint=...&region=..., got {v!r}")
        return v

    @field_validator("secrets_provider")
    @classmethod
    def _provider(cls, v: str) -> str:
        if v == "passphrase" or not re.match(r"^[a-z]+://", v):
            raise ValueError(f"expected a KMS secrets provider URL (awskms://, hashivault://, ...), got {v!r}; a "
                             "passphrase must be typed or stored next to the state, which defeats it")
        return v


class Backend(_Model):
    """Exactly one of ``pulumiCloud`` or ``selfManaged``."""

    pulumi_cloud: Optional[PulumiCloud] = None
    self_managed: Optional[SelfManaged] = None

    @model_validator(mode="after")
    def _one(self) -> "Backend":
        if (self.pulumi_cloud is None) == (self.self_managed is None):
            raise ValueError("give exactly one of pulumiCloud (organization) or selfManaged (url, secretsProvider)")
        return self

    @property
    def organization(self) -> str:
        """The organization part of a stack's fully qualified name (``organization`` on a self-managed backend)."""
        return self.pulumi_cloud.organization if self.pulumi_cloud else "organization"


class Operator(_Model):
    """How the Pulumi Kubernetes Operator runs the stacks: the ``namespace`` of the Stacks and their workspaces,
    the ``workspaceImage`` (pinned by digest: ``<repository>@sha256:<64 hex>``, built from fleet/workspace/
    Dockerfile), the Kubernetes Secret with the OCI API key (``ociCredentialsSecret``) and, for Pulumi Cloud,
    the one with ``PULUMI_ACCESS_TOKEN`` (``pulumiTokenSecret``), and whether each stack gets a preview-only twin
    that reports drift (``driftPreview``, every ``driftIntervalMinutes``). ``fleetRepository`` (https) and
    ``fleetBranch``: the git repository holding this fleet file, which Flux watches; ``fleetPath``: the fleet file's
    directory inside it (``render`` writes ``<fleetPath>/rendered``)."""

    namespace: str = "pulumi-fleet"
    fleet_repository: str
    fleet_branch: str = "main"
    fleet_path: str = "fleet"
    workspace_image: str
    oci_credentials_secret: str = "fleet-oci-credentials"
    pulumi_token_secret: str = "fleet-pulumi-token"
    drift_preview: bool = True
    drift_interval_minutes: int = Field(360, ge=60, le=10080)

    @field_validator("workspace_image")
    @classmethod
    def _image(cls, v: str) -> str:
        if not _IMAGE_RE.match(v):
            raise ValueError(f"expected an image pinned by digest, <registry>/<repository>@sha256:<64 hex>, got {v!r}")
        return v

    @field_validator("fleet_repository")
    @classmethod
    def _repo(cls, v: str) -> str:
        if not v.startswith(("https://", "ssh://")):
            raise ValueError(f"expected the https:// (or ssh://) URL of the git repository holding fleet.yaml, "
                             f"got {v!r}")
        return v

    _ns = field_validator("namespace")(classmethod(lambda cls, v: _name(v)))


class Management(_Model):
    """The management cluster (runs the operator and Flux; a stack of this same program, deployed by hand or CI):
    its ``name``, ``region``, ``stackFile`` and the CIDRs its egress leaves from (``egressCidrs``: its NAT
    gateway's public IP as a /32, or the private range routed to the fleet's VCNs), added to every stack's
    ``network.apiEndpoint.allowedCidrs`` so the workspaces reach each cluster's API."""

    name: str
    region: str
    stack_file: str
    egress_cidrs: list[str] = Field(min_length=1)

    _n = field_validator("name")(classmethod(lambda cls, v: _name(v)))

    @field_validator("egress_cidrs")
    @classmethod
    def _cidrs(cls, v: list[str]) -> list[str]:
        return [_cidr(c) for c in v]


class LandingZone(_Model):
    """A stack whose network (VCN, subnets, NSGs) the clusters of its region take through ``network.fromStack``."""

    name: str
    region: str
    stack_file: str

    _n = field_validator("name")(classmethod(lambda cls, v: _name(v)))


class Cluster(_Model):
    """One platform: ``name`` (the Pulumi stack and the Stack object), ``region``, ``wave``, ``stackFile``, an
    optional ``landingZone`` (same region), ``decommissioned`` (first step of deletion: storage unprotected,
    destroy on finalize) and an optional ``release`` overriding the fleet's."""

    name: str
    region: str
    wave: str
    stack_file: str
    landing_zone: Optional[str] = None
    decommissioned: bool = False
    release: Optional[Release] = None

    _n = field_validator("name")(classmethod(lambda cls, v: _name(v)))


class FleetFile(_Model):
    """The whole fleet file (see the module docstring)."""

    name: str
    project: str = "oke-rdma"
    release: Release
    backend: Backend
    operator: Operator
    management: Optional[Management] = None
    defaults: Optional[str] = None
    waves: list[str] = Field(min_length=1)
    landing_zones: list[LandingZone] = Field(default_factory=list)
    clusters: list[Cluster] = Field(min_length=1)

    _n = field_validator("name")(classmethod(lambda cls, v: _name(v)))

    @property
    def stacks(self) -> "list[LandingZone | Cluster]":
        """Landing zones, then clusters in wave order (file order inside a wave): the rollout order."""
        order = {w: i for i, w in enumerate(self.waves)}
        return [*self.landing_zones, *sorted(self.clusters, key=lambda c: order.get(c.wave, len(order)))]

    def release_of(self, member: "LandingZone | Cluster") -> Release:
        """The release a stack runs: its own, else the fleet's."""
        return getattr(member, "release", None) or self.release

    def qualified(self, name: str) -> str:
        """The stack's fully qualified name, ``<org>/<project>/<name>``."""
        return f"{self.backend.organization}/{self.project}/{name}"


Kind = Literal["landingZone", "cluster", "management"]
