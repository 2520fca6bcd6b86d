"""Cilium policies that only take away: ``cilium-policy-deny-only`` (resource) admits a
``CiliumClusterwideNetworkPolicy`` or ``CiliumNetworkPolicy`` whose every rule is a deny (``ingressDeny``,
``egressDeny``) and that does not turn default-deny on; anything that allows is refused, like a Kubernetes
NetworkPolicy in the catalogue.

Why: an allow rule in a Cilium policy opens traffic the namespace's other policies refuse (allows are a union), and a
policy selecting pods turns default-deny on for them unless ``enableDefaultDeny`` says otherwise (which cuts DNS,
scrapes and probes). A deny always wins over an allow, so deny-only policies — the platform's tenant walls — can only
separate, never connect (Cilium docs "Deny Policies", "Policy Enforcement Modes"; CRD fields ``ingress``,
``ingressDeny``, ``egress``, ``egressDeny``, ``enableDefaultDeny``, ``specs``; Cilium 1.20.0; checked 2026-12-01).

Unknown values: an unknown ``spec`` or ``specs`` fails closed.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import (EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy,
                           Severity)

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from _gate import examines

KINDS = ("CiliumClusterwideNetworkPolicy", "CiliumNetworkPolicy")
ALLOW_SECTIONS = ("ingress", "egress")


def _rule_problems(rule: Any, where: str) -> list[str]:
    if rule is UNKNOWN or not isinstance(rule, Mapping):
        return [f"{where} is unknown or not a map"]
    problems = []
    for section in ALLOW_SECTIONS:
        value = read(rule, section)
        if value is UNKNOWN or (value is not None and elements(value) != []):
            problems.append(f"{where}.{section} allows traffic")
    default_deny = read(rule, "enableDefaultDeny")
    if default_deny is UNKNOWN:
        problems.append(f"{where}.enableDefaultDeny is unknown")
    elif default_deny is None:
        problems.append(f"{where} leaves enableDefaultDeny unset, so its selected pods lose every other traffic")
    elif isinstance(default_deny, Mapping):
        problems += [f"{where}.enableDefaultDeny.{d} is not false" for d in ("ingress", "egress")
                     if read(default_deny, d) is not False]
    else:
        problems.append(f"{where}.enableDefaultDeny is not a map of ingress/egress")
    return problems


def policy_problems(props: Any) -> list[str]:
    """Why a Cilium policy is not deny-only (empty: it only denies)."""
    spec, specs = read(props, "spec"), read(props, "specs")
    if spec is UNKNOWN or specs is UNKNOWN:
        return ["spec or specs is unknown during preview"]
    listed = elements(specs) if specs is not None else []
    if listed is UNKNOWN:
        return ["specs is unknown during preview"]
    rules = ([("spec", spec)] if spec is not None else []) + [(f"specs[{i}]", s) for i, s in enumerate(listed)]
    if not rules:
        return ["it has no spec"]
    return [p for where, rule in rules for p in _rule_problems(rule, where)]


def validate_cilium_policy(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``cilium-policy-deny-only``: see the module docstring."""
    if not args.resource_type.startswith("kubernetes:cilium.io/") or \
            args.resource_type.split(":")[-1].removesuffix("Patch") not in KINDS:
        return
    for problem in policy_problems(args.props):
        report_violation(f"{args.resource_type.split(':')[-1]}: {problem}; a stack's Cilium policies may only deny "
                         f"(ingressDeny, egressDeny) with enableDefaultDeny {{ingress: false, egress: false}}")


cilium_policy_deny_only = ResourceValidationPolicy(
    name="cilium-policy-deny-only",
    description="A Cilium network policy a stack declares only denies traffic and keeps default-deny off.",
    validate=validate_cilium_policy,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Write the rules as ingressDeny/egressDeny and set enableDefaultDeny {ingress: false, egress: "
                       "false}; an allow opens what other policies refuse. A tenant's own allow-lists belong to the "
                       "tenant's namespace, reviewed outside this stack. Source: Cilium docs: Deny Policies."),
    tags=["kubernetes", "network", "tenancy"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(cilium_policy_deny_only, prefixes=["kubernetes:cilium.io/"])

POLICIES = [cilium_policy_deny_only]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "cilium-policy-deny-only": "fails closed: an unknown spec, specs or enableDefaultDeny is a violation",
}
