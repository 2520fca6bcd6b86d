"""GPU usage report per tenant: GPU-hours allocated and used, utilisation, cost, next to each tenant's quota.

Run from the repository root::

    python -m oke_rdma.usage --prometheus http://127.0.0.1:9090 --from 2026-11-01T00:00:00Z \\
        --to 2026-12-01T00:00:00Z --stack prod --csv usage-2026-11.csv

It reads the metering recording rules (``oke_rdma/monitoring/rules/gpu-metering.yaml``) from Prometheus' HTTP API
(``GET /api/v1/query``): ``tenant_namespace_pool:okerdma_gpu_allocated:sum`` and ``..._used:sum`` are GPUs at each
one-minute sample, so GPU-seconds over ``[from, to)`` are ``sum_over_time(<rule>[<window>:1m]) * 60`` evaluated one
second before ``to`` (so the samples at ``from``, ``from+1m``, ..., ``to-1m`` count, each standing for one minute,
on every Prometheus version whatever its range-boundary rule). ``from`` and ``to`` must fall on whole minutes. The
rules see a pod up to one evaluation interval (1 min) per rule level late, so a pod starting or ending near a window
edge may be counted up to 2 minutes into the next window (never twice, never lost).

Quotas, prices and currency come from the stack config (``Pulumi.<stack>.yaml``): ``tenants.<t>.quota.gpu`` and
``gpuBorrowingLimit``; ``metering.pricePerGpuHour`` with per-pool overrides in ``metering.poolPrices``. Cost is
allocated GPU-hours × the price of the pool they ran on (a tenant pays for what it held, used or not).

Output: a table on stdout and, with ``--csv``, one CSV row per tenant (columns :data:`CSV_COLUMNS`). Exit codes: 0
done, 2 bad arguments or config (one line), 1 Prometheus unreachable or answering an error (one line).

Sources: Prometheus docs "HTTP API" (instant queries, ``time``), "Querying basics" (subqueries), checked
2026-11-30.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import sys
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Mapping, Optional, Sequence

import requests

STEP_SECONDS = 60
ALLOCATED = "tenant_namespace_pool:okerdma_gpu_allocated:sum"
USED = "tenant_namespace_pool:okerdma_gpu_used:sum"
CSV_COLUMNS = ("tenant", "from", "to", "gpu_hours_allocated", "gpu_hours_used", "utilisation", "cost", "currency",
               "quota_gpus", "quota_borrowing_limit_gpus")
#: Seconds a single Prometheus request may take before the report gives up.
TIMEOUT_SECONDS = 30


class UsageError(Exception):
    """Prometheus could not be asked or answered with an error: one line for the user."""


@dataclass(frozen=True)
class Tariff:
    """Prices: ``default`` per GPU-hour, ``pools`` pool name → its own price, in ``currency`` (ISO 4217)."""

    default: Decimal = Decimal(0)
    pools: Mapping[str, Decimal] = field(default_factory=dict)
    currency: str = "USD"

    def price(self, pool: str) -> Decimal:
        return self.pools.get(pool, self.default)


@dataclass(frozen=True)
class TenantUsage:
    """One tenant's use over the window: GPU-hours allocated and used (floats, hours of one nvidia.com/gpu), the
    cost (Decimal, rounded to cents) and its quota (GPUs; None when the tenant is not in the stack config)."""

    tenant: str
    gpu_hours_allocated: float
    gpu_hours_used: float
    cost: Decimal
    quota_gpus: Optional[int] = None
    quota_borrowing_limit_gpus: Optional[int] = None

    @property
    def utilisation(self) -> Optional[float]:
        """Used / allocated (0..1), None when nothing was allocated."""
        return self.gpu_hours_used / self.gpu_hours_allocated if self.gpu_hours_allocated else None


def _query(prometheus: str, expr: str, at: float) -> list[dict]:
    try:
        resp = requests.get(f"{prometheus.rstrip('/')}/api/v1/query", params={"query": expr, "time": f"{at:.3f}"},
                            timeout=TIMEOUT_SECONDS)
    except requests.RequestException as e:
        raise UsageError(f"cannot reach Prometheus at {prometheus}: {type(e).__name__}") from None
    try:
        body = resp.json()
    except ValueError:
        raise UsageError(f"Prometheus at {prometheus} answered HTTP {resp.status_code} without JSON; is the URL "
                         f"the Prometheus server's (http://host:9090)?") from None
    if body.get("status") != "success":
        raise UsageError(f"Prometheus refused the query: {body.get('errorType')}: {body.get('error')}")
    if body["data"]["resultType"] != "vector":
        raise UsageError(f"Prometheus answered a {body['data']['resultType']}, not a vector")
    return body["data"]["result"]


def gpu_seconds(prometheus: str, rule: str, start: dt.datetime, end: dt.datetime) -> dict[tuple[str, str], float]:
    """(tenant, pool) → GPU-seconds of recording rule ``rule`` over ``[start, end)`` (see the module docstring).

    :raises UsageError: Prometheus unreachable or refusing the query.
    """
    window = int((end - start).total_seconds())
    expr = f"sum by (tenant, pool) (sum_over_time({rule}[{window}s:{STEP_SECONDS}s])) * {STEP_SECONDS}"
    out: dict[tuple[str, str], float] = {}
    for sample in _query(prometheus, expr, end.timestamp() - 1):
        labels = sample["metric"]
        out[(labels.get("tenant", ""), labels.get("pool", ""))] = float(sample["value"][1])
    return out


def report(prometheus: str, start: dt.datetime, end: dt.datetime, tariff: Tariff,
           quotas: Mapping[str, tuple[int, int]]) -> list[TenantUsage]:
    """Every tenant's usage over ``[start, end)``, sorted by tenant: every tenant with use in Prometheus and every
    tenant of ``quotas`` (tenant → (quota GPUs, borrowing limit GPUs)), the latter with zeros when idle.

    :raises UsageError: Prometheus unreachable or refusing the query.
    """
    allocated = gpu_seconds(prometheus, ALLOCATED, start, end)
    used = gpu_seconds(prometheus, USED, start, end)
    tenants = sorted({t for t, _ in allocated} | {t for t, _ in used} | set(quotas))
    rows = []
    for tenant in tenants:
        alloc_h = {pool: s / 3600 for (t, pool), s in allocated.items() if t == tenant}
        used_h = sum(s for (t, _), s in used.items() if t == tenant) / 3600
        cost = sum((Decimal(str(h)) * tariff.price(pool) for pool, h in alloc_h.items()), Decimal(0))
        quota = quotas.get(tenant)
        rows.append(TenantUsage(tenant, sum(alloc_h.values()), used_h,
                                cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN),
                                quota[0] if quota else None, quota[1] if quota else None))
    return rows


def format_table(rows: Sequence[TenantUsage], tariff: Tariff, start: dt.datetime, end: dt.datetime) -> str:
    """The report as a fixed-width text table with a total line."""
    head = ("tenant", "GPU-h allocated", "GPU-h used", "utilisation", f"cost ({tariff.currency})", "quota GPUs")
    body = [(r.tenant, f"{r.gpu_hours_allocated:.2f}", f"{r.gpu_hours_used:.2f}",
             "-" if r.utilisation is None else f"{r.utilisation:.0%}", f"{r.cost:.2f}",
             "-" if r.quota_gpus is None else f"{r.quota_gpus} (+{r.quota_borrowing_limit_gpus})") for r in rows]
    alloc = sum(r.gpu_hours_allocated for r in rows)
    used = sum(r.gpu_hours_used for r in rows)
    body.append(("total", f"{alloc:.2f}", f"{used:.2f}", "-" if not alloc else f"{used / alloc:.0%}",
                 f"{sum((r.cost for r in rows), Decimal(0)):.2f}", ""))
    widths = [max(len(str(row[i])) for row in (head, *body)) for i in range(len(head))]
    line = lambda row: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                                 for i, (c, w) in enumerate(zip(row, widths)))
    title = f"GPU usage {_iso(start)} .. {_iso(end)}"
    return "\n".join([title, line(head), "  ".join("-" * w for w in widths), *map(line, body)])


def write_csv(path: Path, rows: Sequence[TenantUsage], tariff: Tariff, start: dt.datetime, end: dt.datetime) -> None:
    """One row per tenant, columns :data:`CSV_COLUMNS` (hours with 4 decimals, utilisation 0..1)."""
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for r in rows:
            writer.writerow([r.tenant, _iso(start), _iso(end), f"{r.gpu_hours_allocated:.4f}",
                             f"{r.gpu_hours_used:.4f}", "" if r.utilisation is None else f"{r.utilisation:.4f}",
                             f"{r.cost:.2f}", tariff.currency, "" if r.quota_gpus is None else r.quota_gpus,
                             "" if r.quota_borrowing_limit_gpus is None else r.quota_borrowing_limit_gpus])


def _iso(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _instant(text: str) -> dt.datetime:
    """An RFC 3339 time with a zone (``2026-11-01T00:00:00Z``) on a whole minute."""
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an RFC 3339 time like 2026-11-01T00:00:00Z") from None
    if t.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no time zone; add Z (UTC) or an offset like +02:00")
    if t.second or t.microsecond:
        raise argparse.ArgumentTypeError(f"{text!r} is not on a whole minute (the metering rules sample each minute)")
    return t


def stack_terms(stack_file: Path) -> tuple[Tariff, dict[str, tuple[int, int]]]:
    """The tariff and tenant quotas of a stack file (read as the Pulumi CLI does; checked by the config model).

    :raises oke_rdma.config.ConfigError: the stack config is invalid.
    :raises offline.stackfile.StackFileError: the file is missing or not a stack file.
    """
    from offline.stackfile import read_stack_file  # the repository's stack-file reader (Go yaml.v3 semantics)
    from oke_rdma.config import load_stack_config

    raw, _secret = read_stack_file(stack_file)
    cfg = load_stack_config(raw)
    m = cfg.metering
    tariff = Tariff(Decimal(str(m.price_per_gpu_hour)), {p: Decimal(str(v)) for p, v in m.pool_prices.items()},
                    m.currency)
    return tariff, {t: (v.quota.gpu, v.quota.gpu_borrowing_limit) for t, v in cfg.tenants.items()}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oke_rdma.usage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--prometheus", required=True, help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    parser.add_argument("--from", dest="start", required=True, type=_instant, help="start (RFC 3339, whole minute)")
    parser.add_argument("--to", dest="end", required=True, type=_instant, help="end, exclusive (RFC 3339)")
    parser.add_argument("--stack", help="stack name: reads Pulumi.<stack>.yaml for quotas and prices")
    parser.add_argument("--stack-file", type=Path, help="a stack file path instead of --stack")
    parser.add_argument("--csv", type=Path, help="also write one CSV row per tenant to this file")
    args = parser.parse_args(argv)
    if args.end <= args.start:
        parser.error("--to must be after --from")
    from oke_rdma.config import ConfigError

    stack_file = args.stack_file or (Path(f"Pulumi.{args.stack}.yaml") if args.stack else None)
    tariff, quotas = Tariff(), {}
    if stack_file is not None:
        try:
            tariff, quotas = stack_terms(stack_file)
        except ConfigError as e:
            print("error: " + "\n  ".join([f"invalid stack configuration in {stack_file}:", *e.problems]),
                  file=sys.stderr)
            return 2
        except Exception as e:  # noqa: BLE001 - StackFileError and OS errors: one line, never a traceback
            print(f"error: {e}", file=sys.stderr)
            return 2
    try:
        rows = report(args.prometheus, args.start, args.end, tariff, quotas)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(format_table(rows, tariff, args.start, args.end))
    if args.csv:
        write_csv(args.csv, rows, tariff, args.start, args.end)
    return 0


if __name__ == "__main__":
    sys.exit(main())
