"""The constraints ledger (oke_rdma/facts/constraints.py, docs/constraints.md) covers every type the plans declare and
every add-on, each row names a check and a test that exist; and the service limits it found open are now held."""

from __future__ import annotations

import ast
import importlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from oke_rdma.addons import REGISTRY
from oke_rdma.facts import constraints
from oke_rdma.facts.constraints import BITES, HOLDS, LEDGER, SOURCES, rows
from tests.stackcfg import load_dev_config
from tests import inprocess

ROOT = Path(__file__).resolve().parents[2]


def _plan(tmp: Path, name: str, *args: str) -> dict:
    out = tmp / f"{name}.json"
    run = inprocess.preview(*args, "--json", str(out))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def plans(tmp_path_factory, dev_plan_file, prod_plan_file) -> dict[str, dict]:
    """The dev and prod plans (the session's), and dev with public load balancers (the internet gateway, an optional
    type)."""
    tmp = tmp_path_factory.mktemp("plans")
    variant = tmp / "Pulumi.dev-public-lb.yaml"
    text = (ROOT / "Pulumi.dev.yaml").read_text().replace("publicLoadBalancers: false", "publicLoadBalancers: true")
    assert "publicLoadBalancers: true" in text
    variant.write_text(text)
    return {"dev": json.loads(dev_plan_file[0].read_text()), "prod": json.loads(prod_plan_file[0].read_text()),
            "public-lb": _plan(tmp, "public-lb", "--stack", "dev", "--config-file", str(variant))}


def _provider_types(plan: dict) -> set[str]:
    return {r["type"] for r in plan["resources"] if not r["type"].startswith(constraints.NOT_PROVIDER_TYPES)}


def test_every_type_the_plans_declare_has_a_ledger_section(plans):
    """dev, prod and the optional-feature variant: every provider type they declare is a section of the ledger."""
    declared = set().union(*(_provider_types(p) for p in plans.values()))
    assert "oci:Core/internetGateway:InternetGateway" in declared  # the variant is not vacuous
    assert declared - set(LEDGER) == set()


def test_a_type_without_a_section_is_found():
    """The comparison can fail: a plan declaring a type the ledger lacks is reported."""
    plan = {"resources": [{"type": "oci:Core/drgAttachment:DrgAttachment"}, {"type": "oke-rdma:network:Network"}]}
    assert _provider_types(plan) - set(LEDGER) == {"oci:Core/drgAttachment:DrgAttachment"}


def test_every_addon_of_the_registry_has_a_section():
    addons = {f"addon:{a.key}" for a in REGISTRY.addons}
    assert addons - set(LEDGER) == set()


def _test_exists(ref: str) -> bool:
    path, _, name = ref.partition("::")
    file = ROOT / path
    if not file.is_file():
        return False
    tree = ast.parse(file.read_text())
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in ast.walk(tree))


def _pack_rule_names() -> set[str]:
    names = set()
    for f in (ROOT / "policies").rglob("*.py"):
        names |= set(re.findall(r'\bname="([a-z0-9-]+)"', f.read_text()))
    return names


def _resolves(ref: str) -> bool:
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def test_every_row_is_well_formed():
    """Each row: a known holding, known bite times, a known source; a checked row names its check and test, an
    unchecked one says why."""
    for section, c in rows():
        assert c.held in HOLDS and set(c.bites) <= set(BITES) and c.source in SOURCES, (section, c.rule)
        if c.checked:
            assert c.check and c.test and not c.reason, (section, c.rule)
        else:
            assert c.reason and not c.check and not c.test, (section, c.rule)
    for title, read in SOURCES.values():
        assert title and re.fullmatch(r"20\d\d-\d\d-\d\d", read)


def test_every_named_check_and_test_exists():
    """A row naming a check or a test that does not exist would claim coverage nobody has."""
    packs = _pack_rule_names()
    missing = []
    for section, c in rows():
        if not c.checked:
            continue
        if c.held == "pack":
            ok = c.check in packs
        else:
            ok = _resolves(c.check.removeprefix("preview:"))
        if not ok:
            missing.append(f"{section}: check {c.check}")
        if not _test_exists(c.test):
            missing.append(f"{section}: test {c.test}")
    assert missing == []


def test_the_existence_checks_can_fail():
    assert not _test_exists("tests/components/test_constraints.py::test_that_is_not_there")
    assert not _resolves("oke_rdma.network:no_such_function")
    assert "no-such-rule" not in _pack_rule_names() and "iam-no-manage-all-resources" in _pack_rule_names()


def test_the_coverage_figure_is_in_the_generated_page():
    checked, total = constraints.coverage()
    assert 0 < checked < total
    assert f"Coverage: {checked} of {total} rows" in (ROOT / "docs" / "constraints.md").read_text()


# -- the limits the ledger found open -------------------------------------------------------------------------------
def _cidrs(n: int) -> list[str]:
    return [f"10.{i // 256}.{i % 256}.0/24" for i in range(n)]


def test_every_declared_nsg_stays_within_its_rule_limit(plans):
    """The program's own construction: no NSG of any plan holds more than 120 rules, no VNIC sits in more than 5."""
    from oke_rdma.network import MAX_RULES_PER_NSG

    for name, plan in plans.items():
        per_nsg = Counter(r["inputs"]["networkSecurityGroupId"] for r in plan["resources"]
                          if r["type"] == "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule")
        assert per_nsg and max(per_nsg.values()) <= MAX_RULES_PER_NSG, name
        for r in plan["resources"]:
            if r["type"] == "oci:ContainerEngine/nodePool:NodePool":
                assert len(r["inputs"]["nodeConfigDetails"].get("nsgIds", [])) <= 5, (name, r["name"])


def test_more_api_client_cidrs_than_an_nsg_holds_are_refused_naming_the_key():
    from oke_rdma.adapter import service_limit_problems

    fits = load_dev_config(network={"apiEndpoint": {"allowedCidrs": _cidrs(100)}})
    assert service_limit_problems(fits) == []
    over = load_dev_config(network={"apiEndpoint": {"allowedCidrs": _cidrs(130)}})
    (problem,) = service_limit_problems(over)
    assert problem.startswith("oke-rdma:network.apiEndpoint.allowedCidrs: 130 CIDRs make")
    assert "list at most" in problem


def test_more_api_client_cidrs_than_an_nsg_holds_exit_2(tmp_path):
    """Through the whole preview: one line naming the key, exit 2, before anything is declared."""
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:network"]["apiEndpoint"]["allowedCidrs"] = _cidrs(130)
    path = tmp_path / "Pulumi.many-cidrs.yaml"
    path.write_text(yaml.safe_dump(doc))
    run = inprocess.preview("--config-file", str(path))
    assert run.returncode == 2, run.stdout[-2000:] + run.stderr
    assert "oke-rdma:network.apiEndpoint.allowedCidrs: 130 CIDRs make" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def _grants(n: int) -> list[str]:
    return [f"read buckets in compartment id ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x"
            f"4cdata where target.bucket.name = 'b{i}'" for i in range(n)]


def test_more_statements_than_a_compartment_path_holds_exit_2():
    """IAM's hard limit of 500 statements from the root to a compartment: a tenant granted 520 statements into one
    compartment is refused naming the key; 400 fit."""
    from oke_rdma.adapter import service_limit_problems

    def cfg(n: int):
        return load_dev_config(tenants={"research": {"serviceAccounts": {"trainer": {"allow": _grants(n)}}}})

    assert service_limit_problems(cfg(400)) == []
    (problem,) = service_limit_problems(cfg(520))
    assert problem.startswith("oke-rdma:tenants: the stack's IAM statements") and "500" in problem


def test_statements_in_the_root_compartment_count_on_every_path():
    """A statement attached to the root counts on the path of every compartment (the limit is per path)."""
    from oke_rdma.iam import IamPlan, PolicySpec, PolicyStatement, statement_limit_problems

    plan = IamPlan()
    root = PolicySpec("root", "ocid1.tenancy.oc1..aaaa", "root")
    leaf = PolicySpec("leaf", "ocid1.compartment.oc1..bbbb", "leaf")
    for i in range(300):
        plan.add(root, PolicyStatement(f"r{i}", "allow ...", "f", "s", "root"))
        plan.add(leaf, PolicyStatement(f"l{i}", "allow ...", "f", "s", "leaf"))
    assert len(statement_limit_problems(plan)) == 1
    only_root = IamPlan()
    for i in range(300):
        only_root.add(root, PolicyStatement(f"r{i}", "allow ...", "f", "s", "root"))
    assert statement_limit_problems(only_root) == []


_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


def _object_limit_problems(obj: dict) -> list[str]:
    """What the API server's validation refuses in an object's metadata and size (Kubernetes docs "Object Names and
    IDs", "Labels and Selectors", "Annotations" (256 KiB in all), "ConfigMaps" (1 MiB of data))."""
    problems = []
    meta = obj.get("metadata") or {}
    name = meta.get("name")
    if isinstance(name, str) and not _DNS_SUBDOMAIN.match(name):
        problems.append(f"name {name!r}")
    for key, value in (meta.get("labels") or {}).items():
        prefix, _, short = key.rpartition("/")
        if (prefix and not _DNS_SUBDOMAIN.match(prefix)) or not _LABEL_NAME.match(short):
            problems.append(f"label key {key!r}")
        if isinstance(value, str) and value and not _LABEL_NAME.match(value):
            problems.append(f"label {key}={value!r}")
    annotations = meta.get("annotations") or {}
    if sum(len(k) + len(str(v)) for k, v in annotations.items()) > 256 * 1024:
        problems.append("annotations over 256 KiB")
    data = {**(obj.get("data") or {}), **(obj.get("binaryData") or {})}
    if sum(len(k) + len(str(v).encode()) for k, v in data.items()) > 1024 * 1024:
        problems.append("data over 1 MiB")
    return problems


def test_every_kubernetes_object_of_the_plans_meets_the_api_servers_name_label_and_size_limits(plans):
    """Names, label keys and values, annotation and ConfigMap sizes of every object the program declares (dashboards
    and rule groups are the large ones) are what the API server accepts."""
    seen = 0
    for plan_name, plan in plans.items():
        for r in plan["resources"]:
            if r["type"].startswith("kubernetes:") and isinstance(r.get("inputs", {}).get("metadata"), dict):
                seen += 1
                assert _object_limit_problems(r["inputs"]) == [], (plan_name, r["name"])
    assert seen > 100


def test_the_object_limit_check_can_fail():
    assert _object_limit_problems({"metadata": {"name": "Bad_Name"}}) == ["name 'Bad_Name'"]
    assert _object_limit_problems({"metadata": {"name": "a", "labels": {"okerdma.io/tenant": "x" * 64}}})
    assert _object_limit_problems({"metadata": {"name": "a"}, "data": {"big": "x" * (1024 * 1024 + 1)}})
    assert _object_limit_problems({"metadata": {"name": "ok", "labels": {"app.kubernetes.io/name": "gpu-1.x"}}}) == []
