"""Turning the API endpoint public replaces the control-plane subnet and the cluster when the subnet was created
private, and the preview says so with the in-place way; a stack created with network.apiEndpoint.publicSubnet turns
the endpoint public as an in-place update of the cluster (OKE UpdateClusterEndpointConfig)."""

from __future__ import annotations

from tests.offline.plans import dev_plan

CLUSTER = "oci:ContainerEngine/cluster:Cluster"


def _endpoint(public: bool, public_subnet: bool):
    def edit(config: dict) -> None:
        api = config["oke-rdma:network"]["apiEndpoint"]
        api.update(public=public, allowedCidrs=["10.0.0.0/16", "203.0.113.0/24"])
        if public_subnet:
            api["publicSubnet"] = True
    return edit


def test_a_stack_created_with_a_public_subnet_turns_the_endpoint_public_in_place(tmp_path, capsys):
    code, _ = dev_plan(tmp_path, "base.json", _endpoint(False, True))
    assert code == 0, capsys.readouterr().out
    capsys.readouterr()
    code, plan = dev_plan(tmp_path, "public.json", _endpoint(True, True), "--previous", str(tmp_path / "base.json"))
    out = capsys.readouterr().out
    assert code == 0, out
    changed = {c["name"]: c for c in plan["changes"] if c["op"] != "same"}
    assert {c["op"] for c in changed.values()} == {"update"}, changed
    cluster = next(c for c in changed.values() if c["type"] == CLUSTER)
    assert cluster["changed"] == ["endpointConfig.isPublicIpEnabled"]
    assert "endpointConfig.isPublicIpEnabled: false → true" in out


def test_turning_a_private_subnet_public_names_the_cause_and_the_in_place_way(tmp_path, capsys):
    """The report opens with the cause (the subnet's public-IP setting) and the config-level fix, the last error line
    repeats it (not only a resource option the config cannot set), and the objects replaced only because their
    Kubernetes provider is replaced are one count line, not one line each."""
    code, _ = dev_plan(tmp_path, "base.json", _endpoint(False, False))
    assert code == 0
    capsys.readouterr()
    code, plan = dev_plan(tmp_path, "public.json", _endpoint(True, False), "--previous", str(tmp_path / "base.json"))
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    body = [line for line in out.split("\n") if line.strip()]
    assert body[1].startswith("CAUSE: oci:Core/subnet:Subnet"), body[:5]
    last = [line for line in err.splitlines() if line.startswith("error:")][-1]
    assert "network.apiEndpoint.public" in last and "publicSubnet: true" in last
    followers = [c for c in plan["changes"] if c["op"] == "replace" and c["replaceBecause"] == ["provider"]]
    assert len(followers) > 10 and "(changed: provider)" not in out
    assert f"+- {len(followers)} objects replaced because their provider is replaced" in out
    assert code != 0  # the subnet and the cluster would be replaced (and the subnet's DNS label is kept: refused)
    assert any(c["type"] == CLUSTER and c["op"] == "replace" for c in plan["changes"])
    flat = " ".join(out.split())  # the report is wrapped at the width
    assert "network.apiEndpoint.publicSubnet: true" in flat and "prohibitPublicIpOnVnic" in out
    # the CAUSE names the key that changed, read from the two plans' configs
    assert "the config change behind it: network.apiEndpoint.public (false → true)" in flat
    assert "Config changed (1):\n    network.apiEndpoint.public: false → true\n" in out


def test_adding_public_subnet_to_an_existing_stack_names_that_key_not_another(tmp_path, capsys):
    """publicSubnet added to a stack created without it replaces the control-plane subnet too: the CAUSE and the
    refused dnsLabel name network.apiEndpoint.publicSubnet (the key that changed) and say it is a creation-time
    choice, never "keep network.apiEndpoint.public", which did not change."""
    code, _ = dev_plan(tmp_path, "base.json", _endpoint(False, False))
    assert code == 0
    capsys.readouterr()
    code, _ = dev_plan(tmp_path, "subnet.json", _endpoint(False, True), "--previous", str(tmp_path / "base.json"))
    captured = capsys.readouterr()
    cause = captured.out.split("CAUSE: ", 1)[1].split("\n\n", 1)[0]
    assert code == 4 and "network.apiEndpoint.publicSubnet (unset → true)" in " ".join(cause.split())
    assert "creation-time choice" in cause and "keep network.apiEndpoint.public" not in cause
    refused = next(line for line in captured.out.splitlines() if line.startswith("error:") and "dnsLabel" in line)
    assert "undo the config change that causes it (network.apiEndpoint.publicSubnet (unset → true))" in refused
    problems = [line.strip() for line in captured.out.splitlines()
                if line.strip().startswith(("error:", "warning:", "CAUSE:"))]
    assert len(problems) == len(set(problems)), problems  # no problem line twice in the report



def test_the_cause_names_only_the_key_that_forces_the_replacement(tmp_path, capsys):
    """The endpoint made public and a CIDR added in one change: the CAUSE and the refused dnsLabel name
    network.apiEndpoint.public only (a CIDR added alone creates one NSG rule and replaces nothing); Config changed
    still lists both keys, and the --details view opens with the same CAUSE."""
    def before(config: dict) -> None:
        config["oke-rdma:network"]["apiEndpoint"].update(public=False, allowedCidrs=["10.0.0.0/16"])

    code, _ = dev_plan(tmp_path, "base.json", before)
    assert code == 0
    capsys.readouterr()
    for view in ([], ["--details"]):
        code, _ = dev_plan(tmp_path, "both.json", _endpoint(True, False), "--previous", str(tmp_path / "base.json"),
                           *view)
        out = capsys.readouterr().out
        assert code == 4
        cause = " ".join(out.split("CAUSE: ", 1)[1].split("\n\n", 1)[0].split())
        assert "the config change behind it: network.apiEndpoint.public (false → true);" in cause
        assert "allowedCidrs" not in cause
        refused = " ".join(next(line for line in out.splitlines()
                                if line.startswith("error:") and "dnsLabel" in line).split())
        assert "(network.apiEndpoint.public (false → true))" in refused and "allowedCidrs" not in refused
        if not view:
            assert "Config changed (2):" in out and "network.apiEndpoint.allowedCidrs" in out
