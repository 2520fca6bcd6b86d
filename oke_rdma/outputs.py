"""The stack output contract: what other projects may read from an oke-rdma stack through ``pulumi.StackReference``.

The contract is ``outputs.contract.json`` at the repository root: a JSON Schema (draft 2020-12) of the whole set of
stack outputs — one property per output, ``additionalProperties: false`` at every level whose keys are fixed, and two
extension keywords: ``x-outputsVersion`` (the contract's version, an integer) and ``x-secret: true`` on an output
that is a Pulumi secret (``pulumi stack output`` shows it only with ``--show-secrets``; a ``StackReference`` lists it
in ``secretOutputNames``).

``outputs.versions.json`` is append-only: contract version → ``sha256:<hex>`` of the canonical contract
(:func:`contract_digest`). A change of shape — an output added, renamed or removed, a nested key or a type changed,
a secret flag flipped — changes the digest, so the contract needs a new version with a new entry; editing the
contract in place under an existing version is caught because its digest no longer matches that version's entry.
Annotations (``title``, ``description``, ``$comment``, ``examples``, ``x-key``) are not part of the digest: fixing the
documentation needs no new version. The program exports :data:`OUTPUTS_VERSION` as ``outputsVersion``; it must be
the latest version of ``outputs.versions.json`` and the ``x-outputsVersion`` of the contract
(:func:`check_contract`).

How to change the outputs: edit ``__main__.py`` and ``outputs.contract.json``, set ``x-outputsVersion`` and
:data:`OUTPUTS_VERSION` to the next integer, run ``python -m oke_rdma.outputs --bump`` (appends the new digest)
and ``make docs`` (``python -m oke_rdma.docs --write`` regenerates the outputs table of ``docs/outputs.md``).

Source: JSON Schema 2020-12 (json-schema.org, "Core" and "Validation"); Pulumi docs "Stack outputs" and
"Stack references" (``secretOutputNames``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any, Optional

#: The version of the output contract this program exports as ``outputsVersion``.
OUTPUTS_VERSION = 4

ROOT = Path(__file__).resolve().parent.parent
CONTRACT_PATH = ROOT / "outputs.contract.json"
VERSIONS_PATH = ROOT / "outputs.versions.json"
#: The page whose ``outputs-table`` block :func:`render_table` fills (``python -m oke_rdma.docs`` writes it).
DOC_PATH = ROOT / "docs" / "outputs.md"

#: Schema keywords that document without constraining: left out of the digest.
ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "x-key"})
#: Keywords whose value is a map of name → schema, a single schema, or a list of schemas (JSON Schema 2020-12).
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_SCHEMA_ONE = ("items", "additionalProperties", "propertyNames", "not", "contains", "if", "then", "else",
               "unevaluatedProperties", "unevaluatedItems")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")

SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def load_contract(path: Path = CONTRACT_PATH) -> dict:
    """The contract document (a JSON Schema object)."""
    return json.loads(path.read_text(encoding="utf-8"))


def load_versions(path: Path = VERSIONS_PATH) -> dict[int, str]:
    """``outputs.versions.json``'s ``versions``: version → ``sha256:<hex>``, in file order."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {int(k): v for k, v in doc["versions"].items()}


def _strip(schema: Any) -> Any:
    """``schema`` without annotation keywords, walking only schema positions (a property *named* ``description``
    is kept)."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: _strip(v) for k, v in value.items()}
        elif key in _SCHEMA_ONE:
            out[key] = _strip(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_strip(v) for v in value]
        else:
            out[key] = value
    return out


def canonical(contract: dict) -> bytes:
    """The contract's shape as canonical JSON (annotations removed, keys sorted, no whitespace, UTF-8)."""
    return json.dumps(_strip(contract), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def contract_digest(contract: dict) -> str:
    """``sha256:<hex>`` of :func:`canonical`."""
    return "sha256:" + hashlib.sha256(canonical(contract)).hexdigest()


def check_contract(contract: dict, versions: dict[int, str], exported: int = OUTPUTS_VERSION) -> list[str]:
    """Problems with the contract's versioning (empty when consistent):

    * versions are 1, 2, ... N in order, each digest ``sha256:<64 hex>`` and different from every other;
    * the contract's ``x-outputsVersion`` is N, the latest, and the exported ``outputsVersion`` is N too;
    * the contract's digest is version N's: a shape change without a new version (or an in-place edit) fails here.
    """
    problems = []
    numbers = list(versions)
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"outputs.versions.json: versions must be 1, 2, 3, ... in order, got {numbers}")
    bad = [v for v, d in versions.items() if not re.fullmatch(r"sha256:[0-9a-f]{64}", str(d))]
    if bad:
        problems.append(f"outputs.versions.json: versions {bad} have no sha256:<64 hex> digest")
    if len(set(versions.values())) != len(versions):
        problems.append("outputs.versions.json: two versions have the same digest (a version was added without a "
                        "change of shape)")
    latest = max(versions) if versions else None
    declared = contract.get("x-outputsVersion")
    if declared != latest:
        problems.append(f"outputs.contract.json: x-outputsVersion is {declared!r} but the latest version in "
                        f"outputs.versions.json is {latest}; set both to the new version")
    if exported != declared:
        problems.append(f"oke_rdma/outputs.py: OUTPUTS_VERSION is {exported} but the contract is version "
                        f"{declared!r}; the program must export the contract's version")
    digest = contract_digest(contract)
    if latest is not None and versions.get(latest) != digest:
        known = [v for v, d in versions.items() if d == digest]
        problems.append(
            f"outputs.contract.json: its shape (digest {digest}) is not version {latest}'s "
            f"({versions.get(latest)})" + (f" but version {known[0]}'s" if known else "")
            + "; a changed contract needs a new version: raise x-outputsVersion and OUTPUTS_VERSION, then run "
              "python -m oke_rdma.outputs --bump (never edit an existing version's entry)")
    return problems


def unwrap(value: Any) -> tuple[Any, bool]:
    """Wire-form value (as :func:`offline.engine.run_program` records outputs) → (plain value, contains a secret)."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG[0]) == SECRET_SIG[1]:
            inner, _ = unwrap(value.get("value"))
            return inner, True
        pairs = {k: unwrap(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [unwrap(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    if isinstance(value, float) and value.is_integer():
        return int(value), False  # the wire has one number type
    return value, False


def secret_outputs(contract: dict) -> set[str]:
    """The names of the outputs the contract marks ``x-secret``."""
    return {name for name, schema in contract["properties"].items() if schema.get("x-secret")}


def check_outputs(outputs: dict[str, Any], contract: Optional[dict] = None) -> list[str]:
    """Problems of a stack's outputs (wire form) against the contract: JSON Schema errors (an output or nested key
    added, missing, renamed or of another type), a secret output exported in plain text, or a plain output exported
    as a secret. A value unknown in a preview (the engine's unknown sentinel) is not judged. Empty when the outputs
    honour the contract."""
    from jsonschema import Draft202012Validator
    from pulumi.runtime import rpc

    contract = contract or load_contract()
    plain, problems = {}, []
    secrets = secret_outputs(contract)
    for name, value in outputs.items():
        plain[name], secret = unwrap(value)
        if name in secrets and not secret:
            problems.append(f"{name}: must be a Pulumi secret (x-secret in the contract) but is exported in plain text")
        elif secret and name not in secrets:
            problems.append(f"{name}: exported as a secret, but the contract does not mark it x-secret")
    for error in sorted(Draft202012Validator(contract).iter_errors(plain), key=lambda e: list(e.absolute_path)):
        if error.instance == rpc.UNKNOWN:
            continue  # a value a preview does not know yet (its resource is created or replaced): nothing to judge
        where = ".".join(str(p) for p in error.absolute_path) or "(outputs)"
        problems.append(f"{where}: {error.message}")
    return problems


# --- documentation ------------------------------------------------------------------------------------------------
def _resolve(schema: dict, contract: dict) -> dict:
    ref = schema.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return contract["$defs"][ref.split("/")[-1]]
    return schema


def shape(schema: dict, contract: dict) -> str:
    """A compact type notation for a schema: ``OCID``, ``string | null``, ``[string]``, ``{a: int, b?: bool}``,
    ``{<pool name>: {...}}``."""
    if "$ref" in schema:
        target = schema["$ref"].split("/")[-1]
        return _resolve(schema, contract).get("title", target)
    if "anyOf" in schema or "oneOf" in schema:
        return " | ".join(shape(s, contract) for s in schema.get("anyOf") or schema.get("oneOf"))
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return " | ".join(shape({**schema, "type": k}, contract) for k in kinds)
    if kinds == "array":
        return f"[{shape(schema.get('items', {}), contract)}]"
    if kinds == "object":
        props = schema.get("properties")
        if props:
            required = set(schema.get("required", []))
            return "{" + ", ".join(f"{k}{'' if k in required else '?'}: {shape(v, contract)}"
                                   for k, v in props.items()) + "}"
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return "{<" + schema.get("x-key", "name") + ">: " + shape(extra, contract) + "}"
        return "{}"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if kinds == "integer" and "const" in schema:
        return f"integer ({schema['const']})"
    return {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
            "null": "null"}.get(kinds, "any")


def render_table(contract: Optional[dict] = None) -> str:
    """The outputs table of ``docs/outputs.md`` (the text between its ``outputs-table`` markers, without them),
    generated from the contract: one row per output with its shape, secret flag, presence and meaning."""
    contract = contract or load_contract()
    required = set(contract.get("required", []))
    lines = [f"Contract version **{contract['x-outputsVersion']}** (`outputsVersion`); "
             f"`{CONTRACT_PATH.name}` digest `{contract_digest(contract)}`.",
             "",
             "| output | shape | secret | always | meaning |",
             "|---|---|---|---|---|"]
    for name, schema in contract["properties"].items():
        text = shape(schema, contract).replace("|", "\\|")
        lines.append(f"| `{name}` | `{text}` | {'**yes**' if schema.get('x-secret') else 'no'} | "
                     f"{'yes' if name in required else 'no'} | {schema.get('description', '')} |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oke_rdma.outputs",
                                     description="Check, version and document the stack output contract.")
    parser.add_argument("--bump", action="store_true",
                        help="append the contract's digest to outputs.versions.json as its x-outputsVersion")
    args = parser.parse_args(argv)
    contract = load_contract()
    if args.bump:
        doc = json.loads(VERSIONS_PATH.read_text(encoding="utf-8"))
        version = str(contract["x-outputsVersion"])
        if version in doc["versions"]:
            print(f"error: version {version} already has an entry; versions are append-only: raise "
                  "x-outputsVersion (and OUTPUTS_VERSION) first", file=sys.stderr)
            return 2
        doc["versions"][version] = contract_digest(contract)
        VERSIONS_PATH.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    problems = check_contract(contract, load_versions())
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if not problems:
        print(f"output contract version {contract['x-outputsVersion']}: {contract_digest(contract)}")
    return 2 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
