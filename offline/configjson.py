"""Read a stack's config from resolved JSON instead of a stack file: how a stack using Pulumi ESC is previewed.

A stack file with ``environment:`` imports ESC environments only Pulumi Cloud can resolve, so
:func:`offline.stackfile.read_stack_file` refuses it (:data:`offline.stackfile.ESC_MESSAGE`); the resolved config
is passed with ``--config-json`` and read here.
"""

from __future__ import annotations

import json
from pathlib import Path

from offline.stackfile import SECRET_PLACEHOLDER, StackFileError, go_json


def read_config_json(path: Path, project: str = "oke-rdma") -> tuple[dict[str, str], list[str]]:
    """Read a stack's resolved config from JSON instead of a stack file (for a stack that imports ESC environments).

    Accepted shapes: the output of ``pulumi config --json`` — ``{"<key>": {"value": "<text>", "secret": bool,
    "objectValue": ...}}`` (pulumi docs "pulumi config" and the Automation API ``ConfigValue``, checked 2026-11-30);
    a secret without ``--show-secrets`` is blinded as ``[secret]`` and stays a secret placeholder — and the output of
    ``esc open --format json``: ``{"pulumiConfig": {"<key>": <value>}, ...}`` (an ESC environment's ``values``, whose
    ``pulumiConfig`` the CLI hands to the stack; ESC docs "Environments", checked 2026-11-30). Keys without a
    namespace get the project's. Text values are handed over as they are, others as Go-encoded JSON, as from a stack
    file.

    :returns: ``(config, secret_keys)``.
    :raises StackFileError: naming the file and the entry when it is not one of those shapes.
    """
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise StackFileError(f"--config-json {path}: cannot read the file ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StackFileError(f"--config-json {path}: not a JSON file ({e})") from None
    if not isinstance(doc, dict):
        raise StackFileError(f"--config-json {path}: expected a JSON object (pulumi config --json or esc open output)")
    config: dict[str, str] = {}
    secret_keys: list[str] = []
    esc = isinstance(doc.get("pulumiConfig"), dict)
    for key, entry in (doc["pulumiConfig"] if esc else doc).items():
        full = key if ":" in key else f"{project}:{key}"
        if esc:
            value, secret = entry, False
        elif isinstance(entry, dict) and ("value" in entry or entry.get("secret") is True):
            secret = entry.get("secret") is True
            value = entry.get("value", SECRET_PLACEHOLDER)
            if secret and value == "[secret]":
                value = SECRET_PLACEHOLDER  # blinded by the CLI: the offline run stands in for it
        else:
            raise StackFileError(f"--config-json {path}: {key}: expected {{\"value\": ..., \"secret\": ...}} as "
                                 "written by pulumi config --json, or an esc open document with pulumiConfig")
        if secret:
            secret_keys.append(full)
        config[full] = value if isinstance(value, str) else go_json(value)
    return config, secret_keys
