"""The resource types a resource policy examines, declared once: the declaration is both what the pack's server
reads to dispatch a resource to its policies and the filter that policy's ``validate`` applies first.

A resource policy of these packs looks at one kind of resource or a few (node pools, IAM policies, Helm releases)
and returns at once for every other. pulumi-policy 1.21.0 still calls every resource policy for every resource, with
its per-policy plumbing (enforcement level, a ``report_violation`` closure, the config, ``ResourceValidationArgs``),
about 40 policies × 2 100 resources on a 64-pool × 200-tenant stack (docs/benchmark.md).

:func:`examines` declares a policy's types (exact type tokens, and type-token prefixes such as
``kubernetes:cilium.io/`` for rules that judge every version of an API group) and makes its ``validate`` a
:class:`TypeGate`: for a resource of another type it returns ``None`` before anything else runs — no read of the
props, no config, no report. Skipping the policy for that resource is therefore exactly what calling it would do,
and ``_serve.py`` skips it (``dispatch``): sound by construction, not by testing. It recognises a gate only when the
policy's ``validate`` — the callable pulumi-policy calls — is a :class:`TypeGate` itself (a marker on the class, which
``functools.wraps`` cannot copy onto a wrapper); a wrapper that would run code before the gate (as
``_provider_namespace.namespace_aware`` did) goes inside it instead (:meth:`TypeGate.around`). A policy without a
declaration runs on every resource, as before (fail closed). ``tests/policies/test_pack_dispatch.py`` checks that no
rule reports on a type outside its declaration when called without its gate (a declaration narrower than the rule
would hide findings) and that answers are byte for byte pulumi-policy's own loop.

Vendored: every pack carries an identical copy of this file (``policies.VENDORED``; the security pack's is the
source). Standard library only.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable


class TypeGate:
    """A resource policy's ``validate`` that runs ``validate`` only on resources whose type :meth:`matches` its
    declaration (``types``: exact tokens; ``prefixes``: token prefixes) and returns ``None`` for any other."""

    #: Read by ``_serve.dispatch`` on the class (never copied onto a wrapper by ``functools.wraps``).
    OKE_RDMA_TYPE_GATE = True
    __slots__ = ("types", "prefixes", "validate", "__wrapped__")

    def __init__(self, types: Iterable[str], prefixes: Iterable[str], validate: Callable[..., Any]):
        self.types = frozenset(types)
        self.prefixes = tuple(sorted(set(prefixes)))
        if not self.types and not self.prefixes:
            raise ValueError("a type gate needs at least one type or prefix")
        if not all(isinstance(t, str) and t for t in (*self.types, *self.prefixes)):
            raise TypeError("resource types and prefixes are non-empty strings")
        self.validate = validate
        self.__wrapped__ = validate

    def matches(self, resource_type: str) -> bool:
        """Whether the policy examines resources of ``resource_type`` (the only test the gate applies)."""
        return resource_type in self.types or (bool(self.prefixes) and resource_type.startswith(self.prefixes))

    def __call__(self, args: Any, report_violation: Callable[..., Any]) -> Any:
        if not self.matches(args.resource_type):
            return None
        return self.validate(args, report_violation)

    def around(self, validate: Callable[..., Any]) -> "TypeGate":
        """The same declaration gating ``validate`` (a wrapper of this gate's own ``validate``)."""
        return TypeGate(self.types, self.prefixes, validate)

    def __repr__(self) -> str:
        return f"TypeGate({sorted(self.types)}, prefixes={list(self.prefixes)})"


def examines(policy: Any, *types: str, prefixes: Iterable[str] = ()) -> Any:
    """``policy`` (a ``ResourceValidationPolicy``) declared to examine only resources of ``types`` (or whose type
    starts with one of ``prefixes``): its ``validate`` becomes a :class:`TypeGate` around the one it had. Returns
    the policy.

    :raises ValueError: with neither types nor prefixes, or when the policy is already gated."""
    if gate_of(policy) is not None:
        raise ValueError(f"policy {policy.name!r} already declares the types it examines")
    policy.validate = TypeGate(types, prefixes, policy.validate)
    return policy


def gate_of(policy: Any) -> Any:
    """The :class:`TypeGate` that is ``policy``'s ``validate`` (what pulumi-policy calls), or None: a policy without
    one examines every resource. Any copy of this module's class counts (each pack vendors it)."""
    validate = vars(policy).get("validate")
    return validate if getattr(type(validate), "OKE_RDMA_TYPE_GATE", False) is True else None
