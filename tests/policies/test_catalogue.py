"""The closed catalogue: every resource type of the installed provider SDKs is placed (judged by named rules of the
pack, harmless with a reason and a source, or refused); a type placed nowhere or refused is a mandatory violation
unless the policy config allows it."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from pulumi_policy import ResourceValidationArgs

from policies import doc, PACK_DIRS
from policies.security import catalogue
from policies.security._catalogue import GROUPS, HARMLESS, JUDGED, REFUSED
from tests.policies.test_policies import proxied, urn

RULE = catalogue.POLICY_NAME


def sdk_types(package: str) -> set[str]:
    """Every resource type token of an installed Pulumi SDK: the classes of its registered resource modules (the
    generated ``_utilities.register`` table) and every component type the SDK's own Python code registers
    (``super().__init__("<token>", ...)``: helm v3 Chart, yaml v1 ConfigFile/ConfigGroup, kustomize v1 Directory),
    plus its provider resource ``pulumi:providers:<name>``."""
    spec = importlib.util.find_spec(package)
    assert spec and spec.origin, f"{package} is not installed"
    root = Path(spec.origin).parent
    table = re.search(r'resource_modules="""(.*?)"""', (root / "__init__.py").read_text(), re.S)
    assert table, f"{package}/__init__.py has no resource_modules table"
    tokens = {t for module in json.loads(table.group(1)) for t in module["classes"]}
    name = package.removeprefix("pulumi_")
    for path in root.rglob("*.py"):
        tokens |= set(re.findall(rf"""__init__\(\s*['"]({name}:[^'"]+)['"]""", path.read_text(encoding="utf-8")))
    return tokens | {f"pulumi:providers:{name}"}


def call(type_: str, config: dict | None = None) -> list[str]:
    found: list[str] = []
    args = ResourceValidationArgs(type_, proxied({}), urn(type_, "r"), "r", None, None, config)  # type: ignore
    catalogue.validate_type_catalogued(args, lambda message, u=None: found.append(message))
    return found


@pytest.mark.parametrize("package, at_least", [("pulumi_oci", 1000), ("pulumi_kubernetes", 500)])
def test_every_type_of_the_installed_sdks_is_placed(package, at_least):
    """A type of a newer SDK that nobody placed fails here, before a stack can pass with it unjudged."""
    tokens = sdk_types(package)
    assert len(tokens) >= at_least  # the enumeration itself works (no vacuous pass)
    unplaced = sorted(t for t in tokens if catalogue.place(t)[1] is None)
    assert unplaced == [], f"{len(unplaced)} types of {package} are not in policies/security/_catalogue.py"


def test_sdk_components_and_the_helm_and_manifest_kinds_are_found():
    tokens = sdk_types("pulumi_kubernetes")
    assert {"kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Release",
            "kubernetes:yaml:ConfigFile", "kubernetes:yaml/v2:ConfigGroup", "kubernetes:kustomize:Directory",
            "kubernetes:kustomize/v2:Directory"} <= tokens


def _sources(rule_name: str) -> str:
    """The text of the module that defines ``rule_name`` and of the sibling modules it imports, at any depth."""
    for path, module in doc.rule_modules(PACK_DIRS[0]).items():
        if rule_name in {p.name for p in module.POLICIES}:
            folder, seen, todo, text = Path(path).parent, set(), [Path(path)], ""
            while todo:
                current = todo.pop()
                if current in seen or not current.exists():
                    continue
                seen.add(current)
                body = current.read_text(encoding="utf-8")
                text += body
                pairs = re.findall(r"^\s*from \.?(\w+) import|^\s*(?:from \. )?import (\w+)", body, re.M)
                todo += [folder / f"{name}.py" for pair in pairs for name in pair if name]
            return text
    raise AssertionError(f"{rule_name} is no policy of the security pack")


def _names(key: str) -> list[str]:
    """What a rule's source must mention for an entry: the token's tail, the Kubernetes kind or group."""
    if key.startswith("kubernetes:"):
        parts = key.split(":")
        return [parts[2]] if len(parts) == 3 and parts[2] else [parts[1]]
    return [key.split("/", 1)[-1], key.rsplit(":", 1)[-1]] if "/" in key else [key]


@pytest.mark.parametrize("key", sorted(k for k, e in {**catalogue.ENTRIES, **GROUPS}.items()
                                       if e["verdict"] == JUDGED))
def test_each_judged_entry_names_rules_of_the_pack_that_read_the_type(key):
    entry = {**GROUPS, **catalogue.ENTRIES}[key]
    assert entry["rules"], key
    for rule_name in entry["rules"]:
        text = _sources(rule_name)
        names = _names(key) + (["embedded_pod_specs"] if entry["reason"].startswith("embedded:") else [])
        assert any(n in text for n in names), f"{rule_name}'s module never mentions {key}"


def test_every_harmless_or_refused_entry_has_a_reason_and_a_source():
    for key, entry in {**catalogue.ENTRIES, **GROUPS}.items():
        if entry["verdict"] in (HARMLESS, REFUSED):
            assert entry["reason"].strip() and entry["source"].strip(), key


@pytest.mark.parametrize("type_", [
    "oci:Core/vtap:Vtap", "oci:Core/captureFilter:CaptureFilter", "oci:Core/drgAttachment:DrgAttachment",
    "oci:Core/localPeeringGateway:LocalPeeringGateway", "oci:Core/ipsec:Ipsec",
    "oci:Core/virtualCircuit:VirtualCircuit", "oci:Core/remotePeeringConnection:RemotePeeringConnection",
    "oci:Bastion/session:Session", "oci:Core/instanceConsoleConnection:InstanceConsoleConnection",
    "oci:OsManagementHub/managedInstanceInstallPackagesManagement:ManagedInstanceInstallPackagesManagement",
    "oci:OsManagementHub/scheduledJob:ScheduledJob", "oci:Identity/tagDefault:TagDefault",
    "oci:Identity/domainsSetting:DomainsSetting", "oci:Identity/domainsRule:DomainsRule",
    "pulumi-nodejs:dynamic:Resource", "pulumi-python:dynamic:Resource",
    # members the issue did not name
    "oci:Zpr/zprPolicy:ZprPolicy", "oci:Logging/unifiedAgentConfiguration:UnifiedAgentConfiguration",
    "kubernetes:core/v1:Endpoints", "kubernetes:discovery.k8s.io/v1:EndpointSlice", "kubernetes:core/v1:NodePatch",
    "kubernetes:admissionregistration.k8s.io/v1:MutatingWebhookConfiguration",
    "kubernetes:apiregistration.k8s.io/v1:APIService", "oci:ContainerEngine/addon:Addon",
    "oci:Database/dbSystem:DbSystem",
])
def test_refused_members_are_violations(type_):
    [message] = call(type_)
    assert type_ in message and "allowedTypes" in message


@pytest.mark.parametrize("type_", [
    "aws:ec2/instance:Instance", "pulumi:providers:aws", "kubernetes:kyverno.io/v1:ClusterPolicy",
    "oci:NewModule/thing:Thing", "kubernetes:example.com/v1:Widget",
])
def test_types_placed_nowhere_are_violations(type_):
    [message] = call(type_)
    assert "in no entry of the pack's catalogue" in message


@pytest.mark.parametrize("type_", [
    "oci:Core/vcn:Vcn", "oci:Identity/policy:Policy", "oci:Identity/apiKey:ApiKey", "pulumi:pulumi:Stack",
    "pulumi:providers:kubernetes", "kubernetes:apps/v1:Deployment", "kubernetes:apps/v1:DeploymentPatch",
    "kubernetes:v1:Pod", "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kubernetes:ray.io/v1:RayJob",
    "oke-rdma:network:Network", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml/v2:ConfigGroup",
    "oci:Monitoring/alarm:Alarm",
])
def test_judged_and_harmless_types_pass(type_):
    assert call(type_) == []


def test_allowed_types_accepts_exact_tokens_and_patterns():
    assert call("oci:Core/vtap:Vtap", {"allowedTypes": ["oci:Core/vtap:Vtap"]}) == []
    assert call("kubernetes:kyverno.io/v1:ClusterPolicy", {"allowedTypes": ["kubernetes:kyverno.io/*"]}) == []
    assert call("kubernetes:kyverno.io/v1:ClusterPolicy", {"allowedTypes": ["kubernetes:other.io/*"]}) != []


def test_the_threat_model_holds_the_generated_catalogue():
    page = doc.CATALOGUE_DOCS.read_text(encoding="utf-8")
    assert doc.splice(page, doc.render_catalogue(), doc.CATALOGUE_BEGIN, doc.CATALOGUE_END) == page
    assert "`oci:Core/vtap:Vtap` | refused" in page
