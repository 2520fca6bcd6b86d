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
    assert "network.apiEndpoint.publicSubnet: true" in out and "prohibitPublicIpOnVnic" in out

