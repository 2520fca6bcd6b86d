"""The pre-flight's core: findings, the guarded OCI call, and what every check shares (a pool's ADs, limits).

OCI API sources: Limits ``ListLimitDefinitions``/``GetResourceAvailability`` (``available`` already takes
compartment quotas into account when asked for the stack's compartment; 404 for a limit it does not report on), OCI
SDK retry and error model (oci 2.189.0; checked 2026-11-30).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional

from ..config._base import _key

if TYPE_CHECKING:
    from ..config import NodePool, StackConfig
    from .clients import OciClients


class Unreachable(Exception):
    """OCI could not be reached (network, DNS, timeout), or did not accept the credentials (401): one line saying
    which call."""


@dataclass(frozen=True)
class Finding:
    """One result line: ``kind`` is ``problem`` (exit 1) or ``note`` (not checked, and why)."""

    kind: Literal["problem", "note"]
    text: str


class PreflightBase:
    """Records findings and calls OCI for the checks (:class:`oke_rdma.preflight.checks.Preflight`)."""

    def __init__(self, cfg: StackConfig, clients: OciClients):
        self.cfg, self.oci = cfg, clients
        self.findings: list[Finding] = []
        self._tenancy_ads: Optional[set[str]] = None

    # -- recording and calling ----------------------------------------------------------------------------------
    def problem(self, at: tuple[Any, ...], text: str) -> None:
        self.findings.append(Finding("problem", f"{_key(at)}: {text}"))

    def note(self, text: str) -> None:
        self.findings.append(Finding("note", text))

    def call(self, at: tuple[Any, ...], what: str, grant: str, fn: Callable[..., Any], *args: Any,
             all_pages: bool = False, missing_is_note: bool = False, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs).data`` (every page when ``all_pages``); None after recording the refusal as a
        problem (``grant``: the policy statement the deployer would need), or as a note when ``missing_is_note``
        and OCI answered 404 (an API that answers 404 for what it does not support).

        :raises Unreachable: the request never reached OCI, or OCI did not accept the credentials.
        """
        import oci

        try:
            if all_pages:
                return oci.pagination.list_call_get_all_results(fn, *args, **kwargs).data
            return fn(*args, **kwargs).data
        except oci.exceptions.ServiceError as e:
            if e.status == 401:
                raise Unreachable(f"OCI did not accept the credentials to {what} (401 {e.code}); check the user, "
                                  f"fingerprint and key (`oci iam region list` should work), or the session token")
            if e.status == 404 and missing_is_note:
                self.note(f"{_key(at)}: OCI has no answer to {what} (404 {e.code}); not checked")
            elif e.status in (403, 404):
                self.problem(at, f"OCI refused to {what} ({e.status} {e.code}); the deployer needs '{grant}' (or the "
                                 f"OCID is wrong)")
            else:
                self.problem(at, f"OCI answered {e.status} {e.code} to {what}: {e.message}; retry, or fix the value")
            return None
        except (oci.exceptions.RequestException, oci.exceptions.ConnectTimeout) as e:
            raise Unreachable(f"cannot reach OCI to {what}: {type(e).__name__}; check the network path to "
                              f"{self.cfg.region}'s API endpoints") from None

    def _in(self, verb: str, resource: str) -> str:
        return f"Allow group <deployer> to {verb} {resource} in compartment id {self.cfg.compartment_id}"

    def pool_ads(self, pool: NodePool) -> tuple[str, ...]:
        cc = self.cfg.compute_cluster
        if pool.rdma and cc is not None:
            return (cc.availability_domain,)
        return tuple(pool.availability_domains) or tuple(self.cfg.availability_domains)

    def _usable_ads(self, ads: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(a for a in ads if self._tenancy_ads is None or a in self._tenancy_ads)

    def _limit_names(self, service: str) -> Optional[set[str]]:
        found = self.call(("compartmentId",), f"list the {service} service limits",
                          "Allow group <deployer> to inspect resource-availability in tenancy",
                          self.oci.limits.list_limit_definitions, self.oci.tenancy_id, service_name=service,
                          all_pages=True)
        return None if found is None else {d.name for d in found}

    def _available(self, at: tuple[Any, ...], service: str, limit: str, ad: str) -> Optional[int]:
        # GetResourceAvailability answers 404 for a limit it does not report on (Limits API reference).
        found = self.call(at, f"read the availability of {service} limit {limit} in {ad}",
                          "Allow group <deployer> to inspect resource-availability in tenancy",
                          self.oci.limits.get_resource_availability, service, limit, self.cfg.compartment_id,
                          availability_domain=ad, missing_is_note=True)
        if found is None:
            return None
        if found.available is None:
            self.note(f"{_key(at)}: OCI gave no availability for {service} limit {limit} in {ad}; not checked")
            return None
        available = int(found.available)
        if found.effective_quota_value is not None and found.used is not None:
            # A compartment quota below the service limit caps what this compartment may still create.
            available = min(available, math.floor(found.effective_quota_value - found.used))
        return available

