"""Internet-wide sources (0.0.0.0/1 + 128.0.0.0/1 = the whole internet) count as the internet in every exposure rule,
and the policy config schemas refuse values out of range (ports outside 1-65535, malformed CIDRs, repositories,
namespace names)."""
from __future__ import annotations

import json

import pytest

from offline import preview
from offline.policy_eval import PolicyConfigError, resolve_policy_config
from policies.security import _rules as R
from policies.security.pack import POLICIES
from tests.offline.test_cli import stack_file
from tests.policies.test_policies import NSG_RULE, SL, U, endpoint_stack, messages, proxied, res, rule, run
from tests.policies.test_storage_policies import EXPORT, OPEN_RULE, ROOT_RULE, export, option

API, API_STACK, SSH, INGRESS = ("kubernetes-api-not-public", "kubernetes-api-endpoint-restricted",
                                "no-internet-ssh-or-all-ports", "no-internet-ingress")


@pytest.mark.parametrize("cidr, wide", [
    ("0.0.0.0/0", True), ("::/0", True), ("0.0.0.0/1", True), ("128.0.0.0/1", True), ("64.0.0.0/2", True),
    ("11.0.0.0/7", True), ("2000::/3", True),
    ("10.0.0.0/8", False),  # the threshold itself: a /8 is still one network (and 10/8 is private)
    ("203.0.113.0/24", False), ("2001:db8::/32", False),
    ("fc00::/7", False),  # shorter than /16 but wholly private (unique local addresses)
    ("ocid1.networksecuritygroup.oc1..x", False), ("all-gru-services-in-oracle-services-network", False),
])
def test_internet_wide_threshold(cidr, wide):
    assert R.internet_wide(cidr) is wide
    assert R.internet_note(cidr) == (f", internet-wide (/{cidr.split('/')[1]})" if wide and not cidr.endswith("/0")
                                     else "")


def test_internet_wide_unknown_passes_through():
    assert R.internet_wide(R.UNKNOWN) is R.UNKNOWN
    assert R.from_internet(R.nsg_rule(proxied(rule(source=U)), "r")) is R.UNKNOWN


@pytest.mark.parametrize("policy", [API, INGRESS])
def test_half_internet_api_rules_fail_every_exposure_rule(policy):
    for source in ("0.0.0.0/1", "128.0.0.0/1"):
        [message] = messages(run(res(NSG_RULE, "r", rule(source=source)), policy=policy), policy)
        assert f"from {source}, internet-wide (/1))" in message, message


def test_half_internet_ssh_is_caught_and_a_slash_8_is_not():
    [message] = messages(run(res(NSG_RULE, "r", rule(source="0.0.0.0/1", ports=(22, 22))), policy=SSH), SSH)
    assert "INGRESS TCP 22 from 0.0.0.0/1, internet-wide (/1)) opens SSH (TCP 22) to the internet" in message
    assert run(res(NSG_RULE, "r", rule(source="10.0.0.0/8", ports=(22, 22))), policy=SSH).violations == []
    entry = {"protocol": "all", "source": "128.0.0.0/1"}
    [message] = messages(run(res(SL, "sl", {"ingressSecurityRules": [entry]}), policy=SSH), SSH)
    assert "from 128.0.0.0/1, internet-wide (/1)) opens SSH (TCP 22) and all ports" in message


def test_public_endpoint_behind_half_internet_rules_is_not_restricted():
    nsg, cluster, r = endpoint_stack(rule(source="128.0.0.0/1"))
    [v] = run(nsg, cluster, r, policy=API_STACK).violations
    assert v.urn == cluster.urn and "reachable from the internet" in v.message
    assert "from 128.0.0.0/1, internet-wide (/1))" in v.message
    assert run(*endpoint_stack(rule(source="198.51.100.0/24")), policy=API_STACK).violations == []


def test_export_to_half_the_internet_is_an_internet_export():
    [message] = messages(run(res(EXPORT, "e", export(option("0.0.0.0/1", "NONE"))), policy=ROOT_RULE), ROOT_RULE)
    assert "exports to 0.0.0.0/1, internet-wide (/1) with identitySquash NONE" in message
    [message] = messages(run(res(EXPORT, "e", export(option("128.0.0.0/1"))), policy=OPEN_RULE), OPEN_RULE)
    assert "exports to 128.0.0.0/1, internet-wide (/1) (identitySquash ROOT)" in message
    assert run(res(EXPORT, "e", export(option("10.0.0.0/8", "NONE"))), policy=ROOT_RULE).violations == []


def test_export_with_unknown_source_still_fails_closed():
    [message] = messages(run(res(EXPORT, "e", export(option(U, "NONE"))), policy=ROOT_RULE), ROOT_RULE)
    assert "cannot be verified during preview because source is unknown" in message


def test_stack_with_a_public_endpoint_split_in_two_halves_exits_1(tmp_path, capsys):
    def edit(cfg):
        cfg["oke-rdma:network"]["apiEndpoint"] = {"public": True, "allowedCidrs": ["0.0.0.0/1", "128.0.0.0/1"]}
    code = preview.main(["--config-file", str(stack_file(tmp_path, edit)), "--json", str(tmp_path / "p.json")])
    out = capsys.readouterr()
    if code == 2:  # the config may refuse such CIDRs itself (before any resource): fine, never silently accepted
        assert "allowedCidrs" in out.err
        return
    assert code == 1, out.err
    found = {(v["policy"], v["message"].split("(INGRESS TCP 6443 from ")[1].split(")")[0])
             for v in json.loads((tmp_path / "p.json").read_text())["policyViolations"]
             if "(INGRESS TCP 6443 from " in v["message"]}
    for source in ("0.0.0.0/1", "128.0.0.0/1"):
        for policy in (API, INGRESS, API_STACK):
            assert (policy, f"{source}, internet-wide (/1") in found, (policy, source, found)


# --- policy config bounds ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("config, expected", [
    ({INGRESS: {"publicListenerPorts": [0, 70000, -1]}},
     [f"{INGRESS}: publicListenerPorts.0: 0 is less than the minimum of 1",
      f"{INGRESS}: publicListenerPorts.1: 70000 is greater than the maximum of 65535",
      f"{INGRESS}: publicListenerPorts.2: -1 is less than the minimum of 1"]),
    ({INGRESS: {"publicListenerPorts": [443, 443]}}, [f"{INGRESS}: publicListenerPorts: [443, 443] has non-unique"]),
    ({API: {"allowedApiCidrs": ["999.1.1.1/24"]}}, [f"{API}: allowedApiCidrs.0: '999.1.1.1/24' does not match"]),
    ({API: {"allowedApiCidrs": ["10.0.0.0/33"]}}, [f"{API}: allowedApiCidrs.0: '10.0.0.0/33' does not match"]),
    ({"helm-release-pinned": {"allowedRepositories": ["", "ftp://charts.example.com"]}},
     ["helm-release-pinned: allowedRepositories.0: '' does not match",
      "helm-release-pinned: allowedRepositories.1: 'ftp://charts.example.com' does not match"]),
    ({"rdma-pods-in-privileged-namespaces": {"privilegedNamespaces": ["Team_A"]}},
     ["rdma-pods-in-privileged-namespaces: privilegedNamespaces.0: 'Team_A' does not match"]),
])
def test_out_of_range_policy_config_is_refused(config, expected):
    with pytest.raises(PolicyConfigError) as e:
        resolve_policy_config(POLICIES, config)
    assert len(e.value.problems) == len(expected)
    for problem, start in zip(e.value.problems, expected):
        assert problem.startswith(start), problem


@pytest.mark.parametrize("config", [
    {INGRESS: {"publicListenerPorts": [1, 443, 65535]}},
    {API: {"allowedApiCidrs": ["0.0.0.0/0", "10.0.0.0/8", "192.168.10.0/24", "2001:db8::/32"]}},
    {"helm-release-pinned": {"allowedRepositories": ["https://charts.example.com/stable", "oci://ghcr.io/org/charts"]}},
    {"rdma-pods-in-privileged-namespaces": {"privilegedNamespaces": ["team-a", "gpu-operator"]}},
])
def test_in_range_policy_config_is_accepted(config):
    resolve_policy_config(POLICIES, config)


def test_out_of_range_listener_ports_exit_2(tmp_path, capsys):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({INGRESS: {"publicListenerPorts": [0, 70000, -1]}}))
    assert preview.main(["--stack", "dev", "--policy-pack", "policies/security", "--policy-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "publicListenerPorts.1: 70000 is greater than the maximum of 65535" in err and "Traceback" not in err
