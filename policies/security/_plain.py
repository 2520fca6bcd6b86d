"""Engine props as plain values, and the few facts about Kubernetes manifests every reader of them shares: a
manifest's type token, the values keys charts render whole objects from, and the :class:`Derived` resource the pack
presents what it derives. Kept apart from ``_objects`` so that modules ``_objects`` itself uses (``_values_pods``,
``_pod_fields``) read them without an import circle.

Sources: pulumi_policy 1.21.0 proxies (``__target``); pulumi_kubernetes 4.34.2 type tokens
``kubernetes:<group>/<version>:<Kind>`` (core group ``core/v1``); the charts' templates listed in
``_objects.CHART_OBJECT_HOOKS``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import _SENTINELS, UNKNOWN, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import _SENTINELS, UNKNOWN, read

#: The hook's names across charts (the class, not only the pinned members): matched as a values key at any depth.
OBJECT_HOOK_KEYS = frozenset({"extraObjects", "extraManifests", "extraDeploy", "additionalManifests", "extraResources",
                              "extraTemplates", "additionalObjects", "additionalResources", "extraK8sManifests",
                              "rawResources", "extraDeployments"})

def _unproxied(value: Any) -> Any:
    """The container a ``pulumi_policy`` proxy wraps (``proxy["__target"]``), or ``value`` itself."""
    if isinstance(value, (dict, list)):
        return value
    try:
        return value["__target"]
    except (KeyError, IndexError, TypeError):
        return value


def plain(value: Any) -> Any:
    """Engine props (proxied, possibly unknown) as plain dicts/lists; unknown parts become :data:`UNKNOWN`.

    Reads the containers the proxies wrap directly (an unknown is its sentinel string there): walking a large value
    through the proxies cost a list copy per item and made the preview linear in tens of milliseconds per item."""
    if value is UNKNOWN or value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return UNKNOWN if value in _SENTINELS else value
    raw = _unproxied(value)
    if isinstance(raw, Mapping):
        return {k: plain(v) for k, v in raw.items()}
    if isinstance(raw, Sequence) and not isinstance(raw, (str, bytes)):
        return [plain(i) for i in raw]
    return raw


def object_type(obj: Any) -> Optional[str]:
    """The pulumi_kubernetes type token of a manifest (``apps/v1`` + ``Deployment`` →
    ``kubernetes:apps/v1:Deployment``; ``v1`` → ``core/v1``), None when apiVersion or kind is not a string."""
    api, kind = read(obj, "apiVersion"), read(obj, "kind")
    if not (isinstance(api, str) and isinstance(kind, str) and api and kind):
        return None
    return f"kubernetes:{api if '/' in api else 'core/' + api}:{kind}"


@dataclass
class Derived:
    """A resource the pack derives from another one (same attributes as ``pulumi_policy.PolicyResource`` that the
    stack rules read). ``urn`` is the source resource's, so violations point at what the program declared."""

    resource_type: str
    props: Any
    urn: str
    name: str
    property_dependencies: dict = field(default_factory=dict)
    origin: str = ""
