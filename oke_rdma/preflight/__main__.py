"""``python -m oke_rdma.preflight --stack dev``: check a stack against the real tenancy before ``pulumi up``.

Run from the repository (the stack file is read like the Pulumi CLI reads it, by ``offline.stackfile``). Exit
codes: 0 no problem, 1 problems (one line each), 2 the stack config, the credentials or the command line are wrong,
or OCI cannot be reached. See ``docs/preflight.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m oke_rdma.preflight",
                                description="Check a stack against the OCI tenancy before pulumi up.")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--stack", default="dev", help="stack name: reads Pulumi.<stack>.yaml (default dev)")
    where.add_argument("--config-file", type=Path, help="a stack file to read instead of Pulumi.<stack>.yaml")
    p.add_argument("--auth", choices=("api_key", "env", "instance_principal"), default="api_key",
                   help="how to authenticate to OCI: api_key (the OCI config file, default), env (the OCI CLI's "
                        "OCI_CLI_USER/TENANCY/FINGERPRINT/KEY_CONTENT variables, as in CI), instance_principal")
    p.add_argument("--oci-config", default=os.environ.get("OCI_CLI_CONFIG_FILE", "~/.oci/config"),
                   help="OCI config file for --auth api_key (default $OCI_CLI_CONFIG_FILE or ~/.oci/config)")
    p.add_argument("--profile", default=os.environ.get("OCI_CLI_PROFILE", "DEFAULT"),
                   help="profile in the OCI config file (default $OCI_CLI_PROFILE or DEFAULT)")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    """Run the pre-flight; returns the exit code (see the module docstring)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse printed the usage line
        return EXIT_USAGE if e.code else EXIT_OK
    from offline.stackfile import StackFileError, read_stack_file

    from ..config import ConfigError, load_stack_config
    from .checks import Unreachable, run_checks
    from .clients import CredentialsError, OciClients

    path = args.config_file or Path(f"Pulumi.{args.stack}.yaml")
    try:
        raw, secret_keys = read_stack_file(path)
        cfg = load_stack_config(raw, secret_keys)
    except StackFileError as e:
        print(f"preflight: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as e:
        for p in e.problems:
            print(p, file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.auth == "instance_principal":
            clients = OciClients.from_instance_principal(cfg.region)
        elif args.auth == "env":
            clients = OciClients.from_environment(cfg.region)
        else:
            clients = OciClients.from_config_file(os.path.expanduser(args.oci_config), args.profile, cfg.region)
        findings = run_checks(cfg, clients)
    except (CredentialsError, Unreachable) as e:
        print(f"preflight: {e}", file=sys.stderr)
        return EXIT_USAGE
    problems = [f.text for f in findings if f.kind == "problem"]
    notes = [f.text for f in findings if f.kind == "note"]
    for text in problems:
        print(text)
    for text in notes:
        print(f"note: {text}")
    print(f"pre-flight of {path} in {cfg.region}: {len(problems)} problem{'s' if len(problems) != 1 else ''}, "
          f"{len(notes)} note{'s' if len(notes) != 1 else ''}")
    return EXIT_PROBLEMS if problems else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
