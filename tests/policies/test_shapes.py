"""Inputs no rule can read are refused, never passed: a property given in another shape than the provider takes,
one string holding several IAM statements, and IAM conditions nested deeper than the parser reads (a refusal naming
the limit, never a crash)."""
from __future__ import annotations

import importlib
import inspect
import re

import pytest

from policies.security import shapes
from policies.security.iam import MAX_CONDITION_DEPTH, StatementSyntaxError, parse_statement
from policies.security.shapes import LIST, MAP, STRING, SHAPES, validate_input_shape
from tests.policies.test_policies import U, call_resource_rule, messages, res, run

POLICY = "oci:Identity/policy:Policy"


def found(type_: str, props: dict) -> list[str]:
    return call_resource_rule(validate_input_shape, type_, props)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _sdk_shape(token: str, path: str) -> str:
    """The shape pulumi_oci's Args annotations give ``path`` (``a.b``, ``a[]``) of resource ``token``."""
    module_name, cls = token.split(":")[1].split("/")[0].lower(), token.rsplit(":", 1)[1]
    module = importlib.import_module(f"pulumi_oci.{module_name}")
    args_cls = getattr(module, f"{cls}Args")
    steps = path.split(".")
    for i, step in enumerate(steps):
        many = step.endswith("[]")
        note = str(inspect.signature(args_cls.__init__).parameters[_snake(step.rstrip("[]"))].annotation)
        if many:
            assert note.startswith("typing.Union[typing.Sequence["), (token, path, note)
            note = note[len("typing.Union[typing.Sequence["):]
        if i == len(steps) - 1:
            if note.startswith("typing.Union[typing.Sequence["):
                return LIST
            if note.startswith("typing.Union[typing.Mapping[") or re.match(r"(typing\.Union\[)?ForwardRef\('\w+Args'\)",
                                                                            note):
                return MAP
            if note.startswith("typing.Union[str") or note.startswith("str"):
                return STRING
            return f"other: {note[:60]}"
        args_cls = getattr(module, re.search(r"ForwardRef\('(\w+Args)'\)", note).group(1))
    raise AssertionError(path)


@pytest.mark.parametrize("token, path, shape", [(t, p, s) for t, rows in SHAPES.items() if t.startswith("oci:")
                                                for p, s in rows])
def test_each_oci_row_has_the_shape_the_installed_sdk_gives(token, path, shape):
    assert _sdk_shape(token, path) == shape


@pytest.mark.parametrize("type_, props, where", [
    (POLICY, {"statements": "Allow group A to manage all-resources in tenancy"}, "statements is a string"),
    (POLICY, {"statements": ["Allow group A to read buckets in tenancy", 5]}, "statements[1] is a number"),
    (POLICY, {"statements": [{"text": "Allow group A to manage all-resources in tenancy"}]}, "statements[0] is a map"),
    ("oci:ContainerEngine/nodePool:NodePool", {"nodeConfigDetails": {"nsgIds": "ocid1.nsg.oc1..a"}},
     "nodeConfigDetails.nsgIds is a string"),
    ("oci:ContainerEngine/cluster:Cluster", {"endpointConfig": {"nsgIds": "ocid1.nsg.oc1..a"}},
     "endpointConfig.nsgIds is a string"),
    ("oci:Core/securityList:SecurityList", {"ingressSecurityRules": {"source": "0.0.0.0/0", "protocol": "all"}},
     "ingressSecurityRules is a map"),
    ("oci:FileStorage/export:Export", {"exportOptions": {"source": "0.0.0.0/0", "identitySquash": "NONE"}},
     "exportOptions is a map"),
    ("oci:Bastion/bastion:Bastion", {"clientCidrBlockAllowLists": "0.0.0.0/0"}, "clientCidrBlockAllowLists is"),
    ("oci:FileStorage/mountTarget:MountTarget", {"nsgIds": "ocid1.nsg.oc1..a"}, "nsgIds is a string"),
    ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", {"rules": {"verbs": ["*"]}}, "rules is a map"),
])
def test_a_value_of_another_shape_is_refused(type_, props, where):
    [message] = found(type_, props)
    assert where in message and "refused, not passed" in message


@pytest.mark.parametrize("type_, props", [
    (POLICY, {"statements": ["Allow group A to read buckets in tenancy", U]}),
    (POLICY, {"statements": U}),
    ("oci:ContainerEngine/nodePool:NodePool", {"nodeConfigDetails": {"nsgIds": ["ocid1.nsg.oc1..a", U]}}),
    ("oci:FileStorage/export:Export", {"exportOptions": [{"source": "10.0.0.0/16"}]}),
    ("oci:Core/vcn:Vcn", {"cidrBlocks": "10.0.0.0/16"}),  # a type no row reads
])
def test_values_of_the_provider_shape_or_unknown_pass(type_, props):
    assert found(type_, props) == []


def test_a_string_of_statements_is_refused_by_the_pack_not_passed():
    """End to end: without the shape rule the IAM rules would read the string as no statements at all."""
    report = run(res(POLICY, "p", {"statements": "Allow group Admins to manage all-resources in tenancy"}))
    assert report.mandatory and messages(report, "input-shape-readable")


@pytest.mark.parametrize("text", [
    "Allow group A to read buckets in tenancy\nAllow group B to manage all-resources in tenancy",
    "Allow group A to read buckets in tenancy; Allow group B to manage all-resources in tenancy",
    "Allow group A to read buckets in tenancy Allow group B to manage all-resources in tenancy",
    "Allow group A to read buckets in compartment x Allow group B to manage users in tenancy",
    "Allow group A to read buckets in tenancy\r\nEndorse group B to manage all-resources in tenancy Other",
])
def test_one_string_holding_more_than_one_statement_is_unparseable(text):
    with pytest.raises(StatementSyntaxError):
        parse_statement(text)


def test_several_statements_in_one_string_are_refused_by_the_identity_rules():
    text = "Allow group A to read buckets in tenancy Allow group B to manage all-resources in tenancy"
    report = run(res(POLICY, "p", {"statements": [text]}))
    assert messages(report, "iam-no-identity-escalation") or messages(report, "iam-no-node-access")
    assert report.mandatory


@pytest.mark.parametrize("depth", [MAX_CONDITION_DEPTH + 1, 200, 5000, 50000])
def test_conditions_nested_deeper_than_the_parser_reads_are_refused_naming_the_limit(depth):
    where = "all {" * depth + "request.principal.type = 'workload'" + "}" * depth
    with pytest.raises(StatementSyntaxError, match=f"deeper than {MAX_CONDITION_DEPTH} levels"):
        parse_statement(f"Allow any-user to read objects in tenancy where {where}")


def test_deep_conditions_never_crash_a_rule():
    where = "any {" * 3000 + "request.principal.type = 'workload'" + "}" * 3000
    report = run(res(POLICY, "p", {"statements": [f"Allow any-user to manage all-resources in tenancy where {where}"]}))
    refusals = [v for v in report.mandatory if "deeper than" in v.message]
    assert refusals  # refused (iam-no-identity-escalation / iam-no-node-access), no PolicyRuntimeError


def test_conditions_within_the_limit_still_parse():
    where = "all {" * MAX_CONDITION_DEPTH + "request.principal.type = 'workload'" + "}" * MAX_CONDITION_DEPTH
    assert parse_statement(f"Allow any-user to read objects in tenancy where {where}").condition is not None
    assert parse_statement("Allow group A to read buckets in compartment a:b").location == "compartment a:b"
    assert parse_statement("Endorse group A to manage objects in tenancy Other").location == "tenancy Other"


def test_every_row_names_a_known_shape():
    assert all(shape in (LIST, MAP, STRING) for rows in shapes.SHAPES.values() for _, shape in rows)


# --- statements hidden by an unknown value --------------------------------------------------------------------------
def test_unknown_statements_derived_from_nothing_in_the_stack_are_refused():
    report = run(res(POLICY, "p", {"statements": [U]}), policy="iam-statements-readable")
    [message] = messages(report, "iam-statements-readable")
    assert "statements[0] are unknown" in message and report.mandatory


def test_unknown_statements_derived_from_a_resource_of_the_stack_wait_for_pulumi_up():
    cluster = res("oci:ContainerEngine/cluster:Cluster", "oke", {"name": "oke"})
    policy = res(POLICY, "p", {"statements": [U, "Allow group A to read buckets in tenancy"]},
                 deps={"statements": [cluster]})
    report = run(cluster, policy, policy="iam-statements-readable")
    assert messages(report, "iam-statements-readable") == []


def test_a_wholly_unknown_statement_list_without_dependencies_is_refused():
    report = run(res(POLICY, "p", {"statements": U}), policy="iam-statements-readable")
    assert messages(report, "iam-statements-readable")
