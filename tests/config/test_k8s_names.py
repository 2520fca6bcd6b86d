"""Every config-derived string that becomes (part of) a Kubernetes object name or label value is refused at config
time unless it is valid for every object it names: tenant names (whatever ``namespace`` says), pool names,
``namePrefix``, namespaces (a tenant's, an add-on's) and the other Kubernetes names of the config. Each refusal is one
line naming the key path, the rule and a suggested valid name; and a stack whose names are as long as the rules
allow plans only valid object names and label values."""

from __future__ import annotations

import json
import re

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.schema import _key, k8s_label_problem, suggest_k8s_name
from tests.offline.plans import dev_plan
from tests.stackcfg import dev_raw_config, edited

RULE = "DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63"


def problems(raw: dict[str, str]) -> list[str]:
    try:
        load_stack_config(raw)
    except ConfigError as e:
        return list(e.problems)
    return []


def renamed_tenant(raw: dict[str, str], old: str, new: str, **extra) -> dict[str, str]:
    tenants = json.loads(raw["oke-rdma:tenants"])
    tenants[new] = {**tenants.pop(old), **extra}
    return {**raw, "oke-rdma:tenants": json.dumps(tenants)}


def renamed_pool(raw: dict[str, str], old: str, new: str) -> dict[str, str]:
    pools = json.loads(raw["oke-rdma:nodePools"])
    pools[new] = pools.pop(old)
    return {**raw, "oke-rdma:nodePools": json.dumps(pools)}


@pytest.mark.parametrize("name, suggestion", [
    ("Vision_Team", "vision-team"),      # upper case and '_', even with a valid namespace
    ("ml.team", "ml-team"),              # a subdomain, not a label: the LocalQueue name is a label value of jobs
    ("a" * 64, "a" * 63),                # one character too long
    ("team-", "team"),                   # ends with '-'
])
def test_a_tenant_name_that_is_no_dns_label_is_refused_even_with_a_namespace(name, suggestion):
    found = problems(renamed_tenant(dev_raw_config(), "analytics", name, namespace="analytics"))
    mine = [p for p in found if p.startswith(_key(("tenants", name)) + ": ")]
    assert len(mine) == 1, found
    assert RULE in mine[0] and f"rename it, e.g. to {suggestion!r}" in mine[0]
    assert "set namespace" not in mine[0] and "\n" not in mine[0]


def test_a_tenant_name_that_is_a_dns_label_is_accepted_with_or_without_a_namespace():
    assert problems(renamed_tenant(dev_raw_config(), "analytics", "a" * 63)) == []
    assert problems(renamed_tenant(dev_raw_config(), "analytics", "vision-team", namespace="vision")) == []


@pytest.mark.parametrize("name, suggestion", [("GPU_pool", "gpu-pool"), ("b" * 64, "b" * 63), ("h100.a", "h100-a")])
def test_a_pool_name_that_is_no_dns_label_is_refused_with_a_suggestion(name, suggestion):
    found = problems(renamed_pool(dev_raw_config(), "gpu", name))
    mine = [p for p in found if p.startswith(_key(("nodePools", name)) + ": ")]
    assert len(mine) == 1, found
    assert RULE in mine[0] and f"e.g. to {suggestion!r}" in mine[0] and "okerdma.io/node-pool" in mine[0]


def test_a_pool_name_of_63_characters_is_accepted():
    assert problems(renamed_pool(dev_raw_config(), "gpu", "g" * 63)) == []


@pytest.mark.parametrize("prefix, suggestion", [("okerdma-", "okerdma"), ("OkeRdma", "okerdma"),
                                                ("okerdma-gov-lhr-and-more-x", "okerdma-gov-lhr-and-more")])
def test_a_name_prefix_ending_with_a_dash_or_not_lower_case_is_refused(prefix, suggestion):
    found = problems({**dev_raw_config(), "oke-rdma:namePrefix": prefix})
    assert len(found) == 1 and found[0].startswith("oke-rdma:namePrefix: "), found
    assert "label value" in found[0] and f"e.g. to {suggestion!r}" in found[0]


@pytest.mark.parametrize("prefix", ["o", "okerdma-dev", "a" * 24, "okerdma-1"])
def test_a_name_prefix_of_1_to_24_ending_alphanumeric_is_accepted(prefix):
    assert problems({**dev_raw_config(), "oke-rdma:namePrefix": prefix}) == []


@pytest.mark.parametrize("key, path, value", [
    ("tenants", ("analytics", "namespace"), "Analytics_NS"),
    ("platform", ("keda", "namespace"), "KEDA"),
    ("platform", ("kueue", "namespace"), "k" * 64),
])
def test_a_namespace_that_is_no_dns_label_is_refused_with_the_rule_and_a_suggestion(key, path, value):
    found = problems(edited(dev_raw_config(), key, path, value))
    at = f"oke-rdma:{key}." + ".".join(path)
    mine = [p for p in found if p.startswith(at + ": ")]
    assert len(mine) == 1, found
    assert RULE in mine[0] and f"e.g. to {suggest_k8s_name(value)!r}" in mine[0]


def test_the_suggestion_is_itself_a_valid_name():
    for bad in ("Vision_Team", "__", "-x-", "ML.Team.2", "a" * 80, "Ünïcode team"):
        assert k8s_label_problem(suggest_k8s_name(bad)) is None, bad


def test_new_stack_refuses_a_bad_tenant_name_without_advice_it_has_no_flag_for(tmp_path):
    from oke_rdma import new_stack
    from tests.inprocess import run_main

    code, _, err = run_main(new_stack.main, ["--stack", "nf", "--region", "uk-gov-london-1", "--availability-domains",
                                             "Xyzw:UK-GOV-LONDON-1-AD-1", "--tenant", "Vision_Team",
                                             "--output", str(tmp_path / "Pulumi.nf.yaml")])
    assert code == 2 and err.startswith("error: --tenant (oke-rdma:tenants.Vision_Team): "), err
    assert "set namespace" not in err and "e.g. to 'vision-team'" in err and len(err.strip().splitlines()) == 1


# -- every name the program derives fits every object it names ------------------------------------------------------
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
#: Kinds whose names are DNS-1123 labels (Kubernetes docs "Object Names and IDs"), or which Kubernetes copies into a
#: label value (a Job's name goes into its pods' job-name label).
_LABEL_NAMED = {"Namespace", "Service", "Job"}


def name_problems(plan: dict) -> list[str]:
    out = []
    for r in plan["resources"]:
        if not r["type"].startswith("kubernetes:"):
            continue
        kind = r["type"].rsplit(":", 1)[-1]
        meta = (r.get("inputs") or {}).get("metadata") or {}
        name = meta.get("name")
        if isinstance(name, str):
            limit = 63 if kind in _LABEL_NAMED else 253
            if len(name) > limit or not _SUBDOMAIN.match(name) or (kind in _LABEL_NAMED and "." in name):
                out.append(f"{kind} name {name!r}")
        for key, value in (meta.get("labels") or {}).items():
            if isinstance(value, str) and (len(value) > 63 or not _LABEL_VALUE.match(value)):
                out.append(f"{kind} {name} label {key}={value!r}")
    return out


def test_names_as_long_as_the_rules_allow_plan_only_valid_object_names_and_label_values(tmp_path):
    """namePrefix of 24, a tenant and a pool of 63 characters: every Kubernetes object name the plan holds is a
    valid name of its kind, and every label value a valid label value."""
    tenant, pool = "t" * 62 + "1", "p" * 62 + "2"

    def edit(config):
        config["oke-rdma:namePrefix"] = "n" * 23 + "3"
        config["oke-rdma:tenants"][tenant] = config["oke-rdma:tenants"].pop("analytics")
        config["oke-rdma:nodePools"][pool] = config["oke-rdma:nodePools"].pop("gpu")
        config["oke-rdma:network"]["dnsLabel"] = "nnn"

    code, plan = dev_plan(tmp_path, "long.json", edit)
    assert code == 0 and plan is not None
    assert any(tenant in (r.get("inputs") or {}).get("metadata", {}).get("name", "") for r in plan["resources"]
               if r["type"].startswith("kubernetes:"))
    assert name_problems(plan) == []


def test_the_name_check_of_the_plan_finds_an_invalid_name_and_label_value():
    plan = {"resources": [
        {"type": "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "inputs": {"metadata": {"name": "Vision_Team"}}},
        {"type": "kubernetes:batch/v1:Job", "inputs": {"metadata": {"name": "j" * 64}}},
        {"type": "kubernetes:core/v1:Namespace", "inputs": {"metadata": {"name": "ok", "labels": {"a": "x" * 64}}}},
    ]}
    assert len(name_problems(plan)) == 3
