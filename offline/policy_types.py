"""What a policy evaluation reads and reports: a resource registration as the engine records it
(:class:`EngineResource`), the findings (:class:`Violation`, :class:`NotRun`, :class:`NotApplicable`, gathered in a
:class:`PolicyReport`), the packs they come from (:class:`PackInfo`, :func:`pack_version`) and the error a broken pack
raises (:class:`PolicyRuntimeError`).

The bottom of the policy modules of ``offline/``: :mod:`offline.analyzer` (the packs' servers over gRPC),
:mod:`offline.streaming` (the conversation while the program runs) and :mod:`offline.policy_eval` (the in-process
harness and :func:`offline.policy_eval.evaluate_packs`, which re-exports these names) import it, and it imports none
of them: policy_eval → streaming → analyzer → policy_types, one direction (``tests/offline/test_import_graph.py``).
"""
from __future__ import annotations

import functools

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from pulumi_policy import EnforcementLevel

from offline.policy_config import PolicyConfigError

STACK_TYPE = "pulumi:pulumi:Stack"
#: The version a Python PolicyPack reports to the engine (``PolicyPack.__init__`` hard-codes it).
SERVICER_PACK_VERSION = "0.0.1"


@dataclass(frozen=True)
class PackInfo:
    """One policy pack as the CLI knows it: its name, the version from its ``PulumiPolicy.yaml``, its directory."""

    name: str
    version: str
    path: Path


def pack_version(path: Union[str, Path]) -> str:
    """The ``version`` of ``<path>/PulumiPolicy.yaml`` (the CLI shows it; "0.0.1" when absent, as the pack reports).

    :raises PolicyConfigError: the directory has no readable ``PulumiPolicy.yaml``.
    """
    import yaml  # only here: the preview imports this module on its critical path

    meta_path = Path(path) / "PulumiPolicy.yaml"
    try:
        return _version_of(meta_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise PolicyConfigError([f"{meta_path}: not a policy pack ({' '.join(str(e).split())})"]) from None


@functools.lru_cache(maxsize=16)
def _version_of(text: str) -> str:
    """``version`` of a ``PulumiPolicy.yaml`` text, parsed once per text (a process that previews often, the
    tests, read the same two files before every preview)."""
    import yaml

    meta = yaml.safe_load(text) or {}
    return str(meta.get("version", SERVICER_PACK_VERSION)) if isinstance(meta, dict) else SERVICER_PACK_VERSION


@dataclass
class EngineResource:
    """One resource registration as the engine records it.

    ``inputs``/``outputs`` are in wire form: ``json_format.MessageToDict`` of the registration's ``Struct``
    (unknowns are the sentinel ``"04da6b54-80e4-46f7-96ec-b56ff0331ba9"``, secrets are
    ``{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": ...}``).
    ``provider`` is a provider reference (``"<provider urn>::<provider id>"``) or None.
    """

    urn: str
    type: str
    name: str
    custom: bool = True
    inputs: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    parent: Optional[str] = None
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    protect: bool = False
    provider: Optional[str] = None
    ignore_changes: list[str] = field(default_factory=list)
    delete_before_replace: Optional[bool] = None
    additional_secret_outputs: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    #: ``retainOnDelete``: the engine removes it from the state only; the provider never deletes it.
    retain_on_delete: bool = False
    #: ``replaceWith``: replaced whenever one of these URNs is replaced.
    replace_with: list[str] = field(default_factory=list)
    #: ``replacementTrigger`` (wire form; None when not set): replaced whenever it changes (an unknown counts).
    replacement_trigger: Any = None
    #: ``deletedWith``: the URN whose deletion deletes this one (its own Delete is skipped); replaced with it.
    deleted_with: Optional[str] = None
    #: A remote component (``remote=True``: the provider constructs it, ``offline.remote``).
    remote: bool = False


@dataclass(frozen=True)
class Violation:
    """A policy violation (an engine ``AnalyzeDiagnostic``). ``urn`` is "" for a stack-wide violation."""

    policy: str
    pack: str
    enforcement_level: str  # "advisory" | "mandatory"
    urn: str
    message: str  # policy description + "\n" + the rule's message
    severity: Optional[str]  # "low" | "medium" | "high" | "critical" | None
    description: str = ""
    policy_type: str = "resource"  # "resource" | "stack"


@dataclass(frozen=True)
class NotRun:
    """A policy that stopped on a value unknown during preview (reported by the engine as ADVISORY)."""

    policy: str
    pack: str
    urn: str  # the analysed resource's URN; "" for a stack policy
    reason: str  # the UnknownValueError message, e.g. "string value at .source can't be known during preview"
    message: str  # the full diagnostic: "can't run policy '<p>' from policy pack '<pack>@v<ver>' during preview: ..."
    enforcement_level: str = "advisory"


@dataclass(frozen=True)
class NotApplicable:
    """A policy that declared itself not applicable (``args.not_applicable(...)``)."""

    policy: str
    urn: str
    reason: str


@dataclass
class PolicyReport:
    """Everything one evaluation produced, in the order the engine would produce it."""

    violations: list[Violation] = field(default_factory=list)
    not_run: list[NotRun] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)
    #: Policy config the CLI accepts but that has no effect (see :func:`policy_config_warnings`).
    config_warnings: list[str] = field(default_factory=list)
    #: The packs that were run, in order (filled by :func:`evaluate_packs`; empty for a single :func:`evaluate`).
    packs: list[PackInfo] = field(default_factory=list)
    #: ``config_warnings`` with the pack each came from (filled by :func:`evaluate_packs`).
    config_warnings_by_pack: list[tuple[PackInfo, str]] = field(default_factory=list)

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement_level == EnforcementLevel.MANDATORY.value]

    @property
    def advisory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement_level == EnforcementLevel.ADVISORY.value]


class PolicyRuntimeError(RuntimeError):
    """A rule raised something other than UnknownValueError / not-applicable: a bug in the policy pack."""


def has_mandatory(report: PolicyReport) -> bool:
    """True if any violation is mandatory (the engine then fails the preview/update)."""
    return bool(report.mandatory)


#: Remote components the engine analyses without their inputs: the provider's ``Construct`` registers the component
#: with none and the engine sends no goal for the program's registration (``policies/security/_objects.py``
#: ``inputs_hidden``, with sources). pulumi-kubernetes' yaml/v2 and kustomize/v2 components are constructed the same
#: way; the offline preview still judges their inputs (docs/threat-model.md: what pulumi preview cannot judge).
INPUTS_HIDDEN = frozenset({"kubernetes:helm.sh/v4:Chart"})


def analyzed_inputs(r: "EngineResource") -> dict:
    """The inputs the engine sends analyzers for ``r``: none for a remote component of :data:`INPUTS_HIDDEN`, else
    its recorded inputs (the analyzer servers and the in-process harness both read them here)."""
    return {} if r.remote and r.type in INPUTS_HIDDEN else r.inputs
