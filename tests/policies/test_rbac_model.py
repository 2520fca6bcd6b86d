"""The RBAC grant model matches requests as the API server's RBAC authorizer does, reports what it cannot interpret,
and the RBAC rule never raises on props of any shape."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policies.security._rules import UNKNOWN
from policies.security.rbac_builtin import BUILT_IN_ROLES
from policies.security.rbac_model import DANGERS, Rule, findings, minus, parse_rules, selector_matches
from tests.policies.test_policies import U, res, run


def one(verbs, resources, groups=("",)) -> Rule:
    rules, problems = parse_rules([{"apiGroups": list(groups), "resources": list(resources), "verbs": list(verbs)}],
                                  namespaced=False)
    assert problems == []
    return rules[0]


@pytest.mark.parametrize("rule, request_, allowed", [
    (one(["get"], ["pods"]), ("", "pods", "get"), True),
    (one(["get"], ["pods"]), ("", "pods/exec", "get"), False),  # a resource does not cover its subresources
    (one(["get"], ["*/exec"]), ("", "pods/exec", "get"), True),
    (one(["get"], ["*/exec"]), ("", "pods", "get"), False),
    (one(["*"], ["pods"]), ("", "pods", "create"), True),
    (one(["get"], ["*"]), ("", "secrets", "get"), True),
    (one(["get"], ["*"]), ("apps", "deployments", "get"), False),  # the group still has to match
    (one(["get"], ["deployments"], ["*"]), ("apps", "deployments", "get"), True),
    (one(["get"], ["pods"]), ("", "pods", "*"), True),  # "any verb at all"
    (one(["create"], ["pods"], ["apps"]), ("", "pods", "create"), False),
])
def test_a_rule_allows_what_the_rbac_authorizer_allows(rule, request_, allowed):
    assert rule.allows(*request_) is allowed


@pytest.mark.parametrize("rules, problem", [
    (UNKNOWN, "unknown during preview"),
    ("get pods", "not a list of rules"),
    (["x"], "not a rule object"),
    ([{"apiGroups": [""], "resources": ["pods"], "verbs": [U]}], "unknown during preview"),
    ([{"apiGroups": "", "resources": ["pods"], "verbs": ["get"]}], "not a list of strings"),
    ([{"apiGroups": [""], "resources": ["pods/*"], "verbs": ["get"]}], "'*/<subresource>' only"),
    ([{"apiGroups": [""], "resources": ["se*"], "verbs": ["get"]}], "'*/<subresource>' only"),
    ([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "nonResourceURLs": ["/x"]}], "mixes"),
])
def test_what_cannot_be_interpreted_is_a_problem_never_skipped(rules, problem):
    _, problems = parse_rules(rules, namespaced=False)
    assert len(problems) == 1 and problem in problems[0]


def test_non_resource_urls_in_a_role_are_a_problem():
    _, problems = parse_rules([{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}], namespaced=True)
    assert "namespaced Role" in problems[0]


def test_every_danger_is_found_through_a_full_wildcard_and_only_cluster_dangers_need_cluster_scope():
    everything = [one(["*"], ["*"], ["*"])]
    assert set(findings(everything, "cluster")) >= {d.key for d in DANGERS}
    assert set(findings(everything, "namespace")) == {d.key for d in DANGERS if d.scope == "namespace"}


def test_the_user_facing_roles_grant_what_the_kubernetes_docs_say():
    """view reads no Secrets and creates nothing; edit and admin read Secrets, run pods and impersonate service
    accounts (Kubernetes docs "User-facing roles")."""
    assert findings(BUILT_IN_ROLES["view"], "cluster") == {}
    for name in ("edit", "admin"):
        got = findings(BUILT_IN_ROLES[name], "cluster")
        assert {"secrets-read", "workload-creation", "impersonate-serviceaccounts", "token-request"} <= set(got)
        assert findings(BUILT_IN_ROLES[name], "namespace") == {}  # the namespace is the tenant's boundary
    assert "escalate" in findings(BUILT_IN_ROLES["cluster-admin"], "namespace")


def test_a_role_adds_to_a_built_in_role_only_what_it_does_not_already_grant():
    edit = findings(BUILT_IN_ROLES["edit"], "cluster")
    assert minus(findings([one(["create"], ["rayjobs"], ["ray.io"])], "cluster"), edit) == {}
    assert minus(findings([one(["impersonate"], ["users"])], "cluster"), edit) != {}


@pytest.mark.parametrize("selector, labels, match", [
    ({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True),
    ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
    ({}, {}, True),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}, {"a": "2"}, True),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
])
def test_label_selectors_select_as_kubernetes_does(selector, labels, match):
    assert selector_matches(selector, labels) is match


@pytest.mark.parametrize("selector", [U, "a=1", {"matchLabels": U}, {"matchLabels": {"a": 1}},
                                      {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}])
def test_a_selector_that_cannot_be_interpreted_is_unknown(selector):
    assert selector_matches(selector, {"a": "1"}) is not True and selector_matches(selector, {"a": "1"}) is not False


KEYS = ["metadata", "name", "namespace", "labels", "rules", "verbs", "resources", "apiGroups", "nonResourceURLs",
        "roleRef", "kind", "subjects", "aggregationRule", "clusterRoleSelectors", "matchLabels", "matchExpressions",
        "key", "operator", "values", "items"]
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-1, 3), st.sampled_from(
    ["*", "", "get", "pods", "secrets", "nodes/proxy", "ClusterRole", "Role", "Group", "ServiceAccount",
     "system:authenticated", "cluster-admin", "edit", "In", "NotIn", "rbac.authorization.k8s.io/aggregate-to-admin",
     "true", U, "x"]))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=14)
KINDS = [f"kubernetes:rbac.authorization.k8s.io/v1:{k}{s}" for k in ("ClusterRole", "Role", "ClusterRoleBinding",
                                                                      "RoleBinding") for s in ("", "Patch", "List")]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5)),
                min_size=1, max_size=3))
def test_the_rbac_rules_report_or_pass_on_any_shape(objects):
    resources = [res(t, f"x{i}", props) for i, (t, props) in enumerate(objects)]
    run(*resources, policy="kubernetes-rbac-no-escalation")  # raises PolicyRuntimeError if the rule raises
