"""The OCI inputs the provider replaces a resource on, read from the Terraform provider pulumi-oci bridges.

pulumi-oci is a bridge of terraform-provider-oci: its ``Diff`` answers "replace" exactly for the schema fields the
Terraform provider marks ``ForceNew: true`` (and those a ``CustomizeDiff`` ``ForceNewIfChange`` forces). This module
reads those marks from the provider's Go source (``internal/service/<service>/<service>_<resource>_resource.go``)
and writes them, as the engine's camelCase property paths, to ``offline/oci_force_new.json``;
:data:`offline.immutable.FORCE_NEW` is built from that file, so the table is derived from the source, not picked by
hand. Regenerate it after a provider upgrade::

    python -m offline.tfschema --write PATH/TO/terraform-provider-oci   # a git checkout; records its tag and commit

Paths: a nested block (``TypeList``/``TypeSet`` of a ``schema.Resource``) with ``MaxItems: 1`` is an object in
Pulumi (the bridge flattens it: ``endpointConfig.subnetId``); any other is a list (``clusterPodNetworkOptions[*]
.cniType``). Computed-only fields (no ``Optional``/``Required``) are no inputs and are left out.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("oci_force_new.json")

#: The OCI resource types the program can declare (engine type tokens). tests/offline/test_force_new.py checks that
#: every OCI type the dev and prod stacks declare is listed.
TYPES = (
    "oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool",
    "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping", "oci:Core/computeCluster:ComputeCluster",
    "oci:Core/vcn:Vcn", "oci:Core/subnet:Subnet", "oci:Core/natGateway:NatGateway",
    "oci:Core/serviceGateway:ServiceGateway", "oci:Core/internetGateway:InternetGateway",
    "oci:Core/routeTable:RouteTable", "oci:Core/networkSecurityGroup:NetworkSecurityGroup",
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
    "oci:Core/securityList:SecurityList", "oci:Core/defaultSecurityList:DefaultSecurityList",
    "oci:FileStorage/fileSystem:FileSystem", "oci:FileStorage/mountTarget:MountTarget",
    "oci:FileStorage/export:Export", "oci:Identity/policy:Policy", "oci:Identity/dynamicGroup:DynamicGroup",
    "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem", "oci:ObjectStorage/bucket:Bucket",
)

#: Pulumi module → the Terraform resource name prefix (pulumi-oci ``provider/resources.go`` module map).
_MODULES = {"ContainerEngine": "containerengine", "Core": "core", "FileStorage": "file_storage",
            "Identity": "identity", "Lustre": "lustre", "ObjectStorage": "objectstorage"}


def terraform_name(typ: str) -> str:
    """``oci:Core/subnet:Subnet`` → ``oci_core_subnet``."""
    module, rest = typ.split(":")[1].split("/")
    return f"oci_{_MODULES[module]}_" + re.sub(r"([A-Z])", r"_\1", rest).lower()


def _camel(snake: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), snake)


def _block(text: str, start: int) -> tuple[str, int]:
    """The text inside the braces opening at ``text[start] == '{'`` and the index after the closing brace. Go
    string and rune literals and comments are skipped."""
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch in "\"'":  # an interpreted string or rune literal: up to the unescaped closing quote
            i += 1
            while text[i] != ch:
                i += 2 if text[i] == "\\" else 1
        elif ch == "`":
            i = text.index("`", i + 1)
        elif text.startswith("//", i):
            i = text.index("\n", i)
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
        i += 1
    raise ValueError("unbalanced braces")


def _top_level(body: str) -> str:
    """``body`` with every nested ``{...}`` removed (what is said at this level only)."""
    out, i = [], 0
    while i < len(body):
        if body[i] == "{":
            _, i = _block(body, i)
            out.append("{}")
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


_ENTRY = re.compile(r'"(\w+)"\s*:\s*\{')
_SCHEMA_MAP = re.compile(r"Schema:\s*map\[string\]\*schema\.Schema\{")


def parse_schema_map(body: str, prefix: str = "") -> list[str]:
    """The ForceNew input paths of one ``map[string]*schema.Schema{...}`` body (camelCase, nested)."""
    out: list[str] = []
    i = 0
    while True:
        m = _ENTRY.search(body, i)
        if not m:
            return out
        entry, i = _block(body, m.end() - 1)
        top = _top_level(entry)
        path = prefix + _camel(m.group(1))
        is_input = re.search(r"\b(Optional|Required):\s*true", top) is not None
        if is_input and re.search(r"\bForceNew:\s*true", top):
            out.append(path)
        nested = re.search(r"Elem:\s*&schema\.Resource\{", entry)
        if is_input and nested and nested.start() == entry.find("Elem:"):
            elem, _ = _block(entry, nested.end() - 1)
            inner = _SCHEMA_MAP.search(elem)
            if inner:
                sub, _ = _block(elem, inner.end() - 1)
                single = re.search(r"\bMaxItems:\s*1\b", top) is not None
                out += parse_schema_map(sub, path + ("." if single else "[*]."))


def parse_resource(source: str) -> list[str]:
    """The ForceNew input paths of a Terraform resource's Go source: its schema's marks and its ``CustomizeDiff``
    ``ForceNewIfChange``/``ForceNewIf`` fields (``endpoint_config.0.subnet_id`` → ``endpointConfig.subnetId``)."""
    m = _SCHEMA_MAP.search(source)
    if not m:
        raise ValueError("no schema map")
    body, end = _block(source, m.end() - 1)
    paths = parse_schema_map(body)
    for field in re.findall(r'customdiff\.ForceNewIf(?:Change)?\(\s*"([\w.]+)"', source):
        paths.append(".".join(_camel(p) for p in field.split(".") if not p.isdigit()))
    return sorted(dict.fromkeys(paths))


def _default_vcn_resource(paths: list[str]) -> list[str]:
    """``ConvertToDefaultVcnResourceSchema`` (``internal/service/core/helpers_core.go``): adds a ForceNew
    ``manage_default_resource_id``, makes ``compartment_id`` updatable and drops ``vcn_id``."""
    return sorted({*paths, "manageDefaultResourceId"} - {"compartmentId", "vcnId"})


def _paths(repo: Path, files: list[str], folder: str, fn: str) -> list[str]:
    source = next(s for f in files if f.startswith(folder + "/") and f.endswith("_resource.go")
                  and f"func {fn}()" in (s := _git(repo, "show", f"HEAD:{f}")))
    return parse_resource(source[source.index(f"func {fn}()"):])


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def generate(repo: Path) -> dict[str, Any]:
    """The data file's content from a terraform-provider-oci git checkout (or bare mirror) at ``HEAD``."""
    files = _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "internal/service").splitlines()
    registered: dict[str, str] = {}
    for name in (f for f in files if f.endswith("/register_resource.go")):
        for tf, fn in re.findall(r'RegisterResource\("(\w+)",\s*(\w+)\(\)', _git(repo, "show", f"HEAD:{name}")):
            registered[tf] = (name.rsplit("/", 1)[0], fn)
    types: dict[str, list[str]] = {}
    for typ in TYPES:
        folder, fn = registered[terraform_name(typ)]
        source = next(s for f in files if f.startswith(folder + "/") and f.endswith("_resource.go")
                      and f"func {fn}()" in (s := _git(repo, "show", f"HEAD:{f}")))
        source = source[source.index(f"func {fn}()"):]
        default = re.match(r"[^{]*\{\s*\w+ := ConvertToDefaultVcnResourceSchema\((\w+)\(\)\)", source)
        if default:  # a default VCN resource: its base resource's schema, changed by helpers_core.go
            base = next(t for t in TYPES if registered[terraform_name(t)][1] == default.group(1))
            types[typ] = _default_vcn_resource(types.get(base) or _paths(repo, files, *registered[terraform_name(base)]))
        else:
            types[typ] = parse_resource(source)
    return {"source": "github.com/oracle/terraform-provider-oci "
                      f"{_git(repo, 'describe', '--tags').strip()} ({_git(repo, 'rev-parse', 'HEAD').strip()}), "
                      "internal/service/*/*_resource.go: fields with ForceNew: true and CustomizeDiff ForceNewIf*",
            "types": types}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--write":
        sys.exit("usage: python -m offline.tfschema --write PATH/TO/terraform-provider-oci")
    DATA.write_text(json.dumps(generate(Path(sys.argv[2])), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DATA}")
