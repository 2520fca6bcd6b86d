"""The subset of oke-rdma's output contract (``outputs.contract.json`` of oke-rdma) the training-job example reads,
as pydantic models, and how a validation error reads in one line (``nodePools.gpu.size: missing``).

The contract may grow new fields within a version (consumers ignore what they do not read); the types of the fields
read here are checked strictly: no "2" for 2, no "true" for true. Fields of contract version 3 (``weightsBucket``,
``tenants.<t>.weights``), of version 4 (``nodePools.<p>.localNvme``, ``tenants.<t>.lustreClaim``) and of version 5
(``tenants.<t>.runAsUser``/``runAsGroup``/``sharedStorageSubPath``/``lustreSubPath``) are optional: older stacks lack
them, and the program refuses their absence only when the Job needs them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr

def json_kind(value: Any) -> str:
    """What a JSON value is, for a refusal: ``a string 'two'``, ``a list``, ``null`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string {value!r}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _whole_number(value: Any) -> Any:
    """Stack outputs cross the wire as JSON numbers (2 may arrive as 2.0); a string, a boolean or a fraction is not a
    whole number."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a whole number, got {json_kind(value)}")
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole_number), Field(ge=0)]


class _Output(BaseModel):
    # The contract may grow new fields within a version (consumers ignore what they do not read); the types of the
    # fields read here are checked strictly: no "2" for 2, no "true" for true.
    model_config = ConfigDict(extra="ignore", strict=True)


class LocalNvmeOutput(_Output):
    """``nodePools.<pool>.localNvme``: where the pool's NVMe RAID is mounted on every node."""
    mountPath: Annotated[StrictStr, Field(pattern=r"^/")]


class NodePoolOutput(_Output):
    """``nodePools.<pool>`` of the contract: the fields this Job reads."""
    shape: StrictStr
    size: WholeNumber
    rdma: StrictBool
    gpusPerNode: WholeNumber
    localNvme: Optional[LocalNvmeOutput] = None  # null or absent: the pool has no local NVMe file system


class WeightsGrantOutput(_Output):
    """``tenants.<tenant>.weights`` (contract version 3): the ServiceAccount granted the weights bucket, and how."""
    serviceAccount: StrictStr
    access: Literal["read", "readWrite"]
    checkpointPrefix: Optional[StrictStr] = None  # readWrite: the object-name prefix checkpoints may be created under


class WeightsBucketOutput(_Output):
    """``weightsBucket`` (contract version 3): the stack's Object Storage bucket for model weights."""
    namespace: StrictStr
    name: StrictStr
    region: Annotated[StrictStr, Field(pattern=r"^[a-z]+(-[a-z]+)+-[0-9]+$")]


class TenantOutput(_Output):
    """``tenants.<tenant>`` of the contract: the fields this Job reads."""
    namespace: Annotated[StrictStr, Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)]
    podSecurity: StrictStr
    rdma: StrictBool
    localQueue: Optional[StrictStr] = None  # null in the contract; a null crosses the wire as absent
    serviceAccounts: list[StrictStr]
    sharedStorageClaim: Optional[StrictStr] = None
    lustreClaim: Optional[StrictStr] = None  # the tenant's claim on the Lustre file system (null without one)
    weights: Optional[WeightsGrantOutput] = None  # version 3: null without a grant
    runAsUser: Optional[WholeNumber] = None  # version 5: the UID the tenant's pods run as and its directories belong to
    runAsGroup: Optional[WholeNumber] = None  # version 5: their GID
    sharedStorageSubPath: Optional[StrictStr] = None  # version 5: the tenant's directory on the FSS claim
    lustreSubPath: Optional[StrictStr] = None  # version 5: the tenant's directory on the Lustre claim


class TopologyOutput(_Output):
    """``topology`` of the contract (absent without Kueue or RDMA pools)."""
    levels: list[StrictStr]


class PlatformOutputs(_Output):
    """The subset of oke-rdma's output contract (``outputs.contract.json``, version 1) this program reads, besides
    ``outputsVersion`` (checked first) and ``kubeconfig`` (a secret, checked on its own so the rest stays plain)."""
    region: Annotated[StrictStr, Field(pattern=r"^[a-z]+(-[a-z]+)+-[0-9]+$")]
    tenants: dict[str, TenantOutput]
    nodePools: dict[str, NodePoolOutput]
    topology: Optional[TopologyOutput] = None
    weightsBucket: Optional[WeightsBucketOutput] = None  # version 3: null without a bucket


def problem_line(error: dict[str, Any]) -> str:
    """One pydantic error as ``<output path>: <what is wrong>``."""
    path = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        return f"{path}: missing"
    if error["type"] == "value_error":  # ours: the message says it all
        return f"{path}: {error['ctx']['error']}"
    wanted = {"dict_type": "must be an object", "string_type": "must be a string", "bool_type": "must be true or false",
              "list_type": "must be a list"}.get(error["type"], error["msg"][0].lower() + error["msg"][1:])
    return f"{path}: {wanted}, got {json_kind(error['input'])}"
