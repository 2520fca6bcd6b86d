"""Print the oke-rdma-security policy config (``--policy-pack-config``) a consumer stack needs to deploy into the
platform's tenant namespaces, read from the platform stack's plan.

``python -m offline.consumer_policy_config --plan plan.json --tenant vision > policy-config.json``: a consumer
(``examples/training-job``) deploys into a namespace the platform stack manages, so the security pack cannot see its
Pod Security label there. The config lists each chosen tenant's namespace in
``workload-namespace-declared.externalNamespaces`` and, for a tenant whose namespace is ``podSecurity: privileged``
(the RDMA tenants), in ``rdma-pods-in-privileged-namespaces.privilegedNamespaces`` — the facts the platform's
``tenants`` output states (docs/outputs.md), nothing more. ``--plan`` takes a ``--json`` plan of the platform stack
or a JSON object of its outputs; ``--tenant`` (repeatable) narrows it to the tenants the consumer deploys as
(default: every tenant). Exit 0, or 2 with one line when the plan cannot be read, has no known ``tenants`` output or
does not have a named tenant.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any, Optional


class ConsumerConfigError(ValueError):
    """The plan cannot give the config: one line naming the problem and the fix."""


def read_tenants(path: Path) -> dict[str, Any]:
    """The ``tenants`` output of the plan (or outputs object) at ``path``.

    :raises ConsumerConfigError: when the file cannot be read, is not JSON, or has no known ``tenants`` map.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConsumerConfigError(f"--plan {path}: cannot read the file ({e.strerror or e})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConsumerConfigError(f"--plan {path}: not a JSON file ({e})") from None
    if isinstance(doc, dict) and {"stack", "resources", "outputs"} <= set(doc):
        doc = doc["outputs"]  # a whole plan written by --json
    tenants = doc.get("tenants") if isinstance(doc, dict) else None
    if not isinstance(tenants, dict):
        shown = "has no tenants output" if tenants is None else f"has tenants {tenants!r}, not a map of tenants"
        raise ConsumerConfigError(f"--plan {path}: {shown}; pass the platform stack's plan (python -m offline.preview "
                                  f"--stack <stack> --json plan.json), previewed without --unknowns")
    return tenants


def consumer_policy_config(tenants: dict[str, Any], chosen: Optional[list[str]] = None) -> dict[str, Any]:
    """The security pack's config for a consumer deploying as the ``chosen`` tenants (default: all), from the
    platform's ``tenants`` output (name → ``{namespace, podSecurity, ...}``).

    :raises ConsumerConfigError: for a chosen tenant the output does not have, or whose namespace or Pod Security
        level is not known (secret or unknown in the plan: nothing is listed on a guess).
    """
    names = list(dict.fromkeys(chosen)) if chosen else sorted(tenants)
    external: list[str] = []
    privileged: list[str] = []
    for name in names:
        if name not in tenants:
            close = difflib.get_close_matches(name, list(tenants), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise ConsumerConfigError(f"--tenant {name}: the platform stack has no such tenant; {hint}its tenants: "
                                      f"{', '.join(sorted(tenants)) or 'none'}")
        tenant = tenants[name]
        namespace = tenant.get("namespace") if isinstance(tenant, dict) else None
        level = tenant.get("podSecurity") if isinstance(tenant, dict) else None
        if not isinstance(namespace, str) or namespace.startswith("[") or level not in (
                "privileged", "baseline", "restricted"):
            raise ConsumerConfigError(f"--tenant {name}: its namespace or podSecurity is not known in the plan "
                                      f"({namespace!r}, {level!r}); preview the platform stack without --unknowns")
        external.append(namespace)
        if level == "privileged":
            privileged.append(namespace)
    config: dict[str, Any] = {}
    if privileged:
        config["rdma-pods-in-privileged-namespaces"] = {"privilegedNamespaces": sorted(set(privileged))}
    config["workload-namespace-declared"] = {"externalNamespaces": sorted(set(external))}
    return config


def main(argv: Optional[list[str]] = None) -> int:
    """Print the consumer's security policy config as JSON; exit 2 with one line on a problem."""
    parser = argparse.ArgumentParser(prog="python -m offline.consumer_policy_config", description=" ".join(
        __doc__.split("\n\n")[0].split()))
    parser.add_argument("--plan", type=Path, required=True, metavar="PATH",
                        help="the platform stack's --json plan (or a JSON object of its outputs)")
    parser.add_argument("--tenant", action="append", default=[], metavar="NAME",
                        help="a tenant the consumer deploys as; repeatable (default: every tenant)")
    args = parser.parse_args(argv)
    try:
        config = consumer_policy_config(read_tenants(args.plan), args.tenant)
    except ConsumerConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(config, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
