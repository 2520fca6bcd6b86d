"""The fleet file: what it accepts, what it refuses (one line naming the key path and the fix, exit 2 from
``python -m oke_rdma.fleet render``), and each stack's resolved config."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from oke_rdma.fleet import FleetError, load_fleet, resolve
from oke_rdma.fleet.__main__ import main
from oke_rdma.fleet.resolve import deep_merge
from tests.fleet.fleetfiles import EXAMPLE, cluster, fleet_copy


def refused(tmp_path: Path, capsys, edit) -> list[str]:
    """The problem lines ``render`` prints for the edited example fleet (asserting exit 2)."""
    path = fleet_copy(tmp_path, edit)
    assert main(["render", "--check", "--fleet", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"error: {path}: invalid fleet")
    return [line.strip() for line in err[1:]]


def test_example_fleet_resolves_in_rollout_order():
    """The example fleet loads, and its stacks come management first, then the landing zone, then wave by wave."""
    stacks = resolve(load_fleet(EXAMPLE / "fleet.yaml"))
    assert [(s.name, s.wave) for s in stacks] == [
        ("mgmt", "management"), ("lz-ashburn", "landing-zones"), ("gpu-ash-canary", "canary"),
        ("gpu-chi-canary", "canary"), ("gpu-ash-a", "main"), ("gpu-chi-a", "main")]


def test_unknown_wave_is_refused(tmp_path, capsys):
    """A cluster in a wave the fleet does not list is refused at clusters[i].wave with the waves to choose from."""
    problems = refused(tmp_path, capsys, lambda d: cluster(d, "gpu-chi-a").update(wave="late"))
    assert problems == ["fleet.yaml: clusters[3].wave: 'late' is not a wave; use one of canary, main or add it to "
                        "waves"]


@pytest.mark.parametrize("edit, expected", [
    (lambda d: cluster(d, "gpu-chi-a").update(wave="mian"),
     "fleet.yaml: clusters[3].wave: 'mian' is not a wave (did you mean main?); use one of canary, main or add it to "
     "waves"),
    (lambda d: cluster(d, "gpu-ash-a").update(landingZone="lz-ashbrun"),
     "fleet.yaml: clusters[2].landingZone: 'lz-ashbrun' is not a landing zone (did you mean lz-ashburn?) (declared: "
     "lz-ashburn); add it to landingZones or fix the name"),
    (lambda d: d["operator"].update(workspaceImag="x"),
     "fleet.yaml: operator.workspaceImag: unknown key (did you mean workspaceImage?); fix its spelling"),
    (lambda d: cluster(d, "gpu-ash-a").update(stackfile="x"),
     "fleet.yaml: clusters[2].stackfile: unknown key (did you mean stackFile?); fix its spelling"),
])
def test_a_mistyped_enumerated_value_or_key_names_the_closest_one(tmp_path, capsys, edit, expected):
    """Waves, landing zones and keys of the fleet file are answered with a did-you-mean, like every config key."""
    assert expected in refused(tmp_path, capsys, edit)


def test_missing_stack_file_is_refused(tmp_path, capsys):
    """A stackFile that does not exist is refused at clusters[i].stackFile, saying how to write one."""
    problems = refused(tmp_path, capsys, lambda d: cluster(d, "gpu-ash-a").update(stackFile="stacks/nope.yaml"))
    assert len(problems) == 1
    assert problems[0].startswith("fleet.yaml: clusters[2].stackFile: stacks/nope.yaml does not exist")
    assert "python -m oke_rdma.new_stack --stack gpu-ash-a" in problems[0]


def test_two_clusters_with_one_name_are_refused(tmp_path, capsys):
    """Two entries with one name (one Pulumi stack, one Stack object) are refused at the second one's name."""
    problems = refused(tmp_path, capsys, lambda d: cluster(d, "gpu-chi-a").update(name="gpu-ash-a"))
    assert problems == ["fleet.yaml: clusters[3].name: 'gpu-ash-a' is already the name of clusters[2]; rename one "
                        "(a name is a Pulumi stack and a Stack object)"]


def test_a_landing_zone_name_is_taken_too(tmp_path, capsys):
    """A cluster named like a landing zone collides with it (landing zones, clusters and management share names)."""
    problems = refused(tmp_path, capsys, lambda d: cluster(d, "gpu-chi-a").update(name="lz-ashburn"))
    assert problems[0].startswith("fleet.yaml: clusters[3].name: 'lz-ashburn' is already the name of landingZones[0]")


def test_landing_zone_in_another_region_is_refused(tmp_path, capsys):
    """A cluster taking the network of a landing zone in another region is refused at clusters[i].landingZone."""
    problems = refused(tmp_path, capsys, lambda d: cluster(d, "gpu-chi-a").update(landingZone="lz-ashburn"))
    assert problems == ["fleet.yaml: clusters[3].landingZone: landing zone 'lz-ashburn' is in us-ashburn-1, the "
                        "cluster in us-chicago-1; a VCN serves one region: use a landing zone of us-chicago-1 or none"]


def test_undeclared_landing_zone_is_refused(tmp_path, capsys):
    """A landingZone that is not declared is refused, listing the declared ones."""
    problems = refused(tmp_path, capsys, lambda d: cluster(d, "gpu-ash-a").update(landingZone="lz-phoenix"))
    assert problems == ["fleet.yaml: clusters[2].landingZone: 'lz-phoenix' is not a landing zone (declared: "
                        "lz-ashburn); add it to landingZones or fix the name"]


@pytest.mark.parametrize("edit, expected", [
    (lambda d: d["operator"].update(workspaceImag="x"), "fleet.yaml: operator.workspaceImag: unknown key"),
    (lambda d: d["release"]["git"].update(commit="v1.4.0"), "fleet.yaml: release.git.commit: expected the full "
     "40-hex-digit commit"),
    (lambda d: d["operator"].update(workspaceImage="ghcr.io/example/ws:latest"), "fleet.yaml: "
     "operator.workspaceImage: expected an image pinned by digest"),
    (lambda d: d.update(waves=["canary", "main", "canary"]), "fleet.yaml: waves[2]: wave 'canary' is listed twice"),
    (lambda d: d.update(waves=["canary", "main", "late"]), "fleet.yaml: waves[2]: no cluster is in wave 'late'"),
    (lambda d: cluster(d, "gpu-chi-a").update(region="us-chicgo-1"), "fleet.yaml: clusters[3].region: "
     "'us-chicgo-1' is not an OCI region; did you mean us-chicago-1?"),
    (lambda d: cluster(d, "gpu-chi-a").update(name="GPU_chi"), "fleet.yaml: clusters[3].name: expected a DNS label"),
    (lambda d: d["backend"].update(selfManaged={"url": "s3://b", "secretsProvider": "awskms://k"}),
     "fleet.yaml: backend: give exactly one of pulumiCloud"),
    (lambda d: d.update(backend={"selfManaged": {"url": "s3://b", "secretsProvider": "passphrase"}}),
     "fleet.yaml: backend.selfManaged.secretsProvider: expected a KMS secrets provider URL"),
    (lambda d: d["management"].update(egressCidrs=[]), "fleet.yaml: management.egressCidrs: List should have at "
     "least 1 item"),
])
def test_other_fleet_file_problems_name_their_key(tmp_path, capsys, edit, expected):
    """Other members of the class: each refused with its key path."""
    problems = refused(tmp_path, capsys, edit)
    assert any(p.startswith(expected) for p in problems), problems


def test_a_key_defined_twice_is_refused(tmp_path):
    """A YAML key defined twice in fleet.yaml is an error with both lines (PyYAML would keep the last silently)."""
    path = fleet_copy(tmp_path)
    path.write_text(path.read_text() + "name: other\n")
    with pytest.raises(FleetError) as e:
        load_fleet(path)
    assert "key 'name' defined twice" in e.value.problems[0]


def test_a_stack_file_naming_another_region_is_refused(tmp_path):
    """oci:region in a stack file that differs from the fleet entry's region is refused at that entry."""
    path = fleet_copy(tmp_path)
    stack = tmp_path / "stacks" / "Pulumi.gpu-chi-a.yaml"
    stack.write_text(stack.read_text().replace("config:\n", "config:\n  oci:region: us-phoenix-1\n", 1))
    with pytest.raises(FleetError) as e:
        resolve(load_fleet(path))
    assert e.value.problems == ["fleet.yaml: clusters[3].region: stacks/Pulumi.gpu-chi-a.yaml sets oci:region "
                                "us-phoenix-1, the fleet us-chicago-1; remove oci:region from the stack file (the "
                                "fleet sets it)"]


def test_each_resolved_config_goes_through_the_product_config_model(tmp_path):
    """A bad value in the shared defaults is refused for every stack, by the product's own rules and key paths."""
    path = fleet_copy(tmp_path)
    defaults = tmp_path / "defaults.yaml"
    defaults.write_text(defaults.read_text().replace("kubernetesVersion: v1.34.2", "kubernetesVersion: 1.34"))
    with pytest.raises(FleetError) as e:
        resolve(load_fleet(path))
    assert len(e.value.problems) == 6
    assert all("oke-rdma:cluster.kubernetesVersion" in p for p in e.value.problems)
    assert e.value.problems[2].startswith("fleet.yaml: clusters[0] (gpu-ash-canary, stacks/Pulumi.gpu-ash-canary."
                                          "yaml): oke-rdma:cluster.kubernetesVersion")


def test_deep_merge_is_key_by_key_and_replaces_lists_and_secrets():
    """Mappings merge (the stack wins), lists and secure values are replaced whole; inputs are not changed."""
    base = {"a": {"x": 1, "l": [1, 2], "s": {"secure": "old"}}, "b": 1}
    over = {"a": {"y": 2, "l": [3], "s": {"secure": "new"}}}
    assert deep_merge(base, over) == {"a": {"x": 1, "y": 2, "l": [3], "s": {"secure": "new"}}, "b": 1}
    assert base == {"a": {"x": 1, "l": [1, 2], "s": {"secure": "old"}}, "b": 1}
    assert deep_merge({"s": {"secure": "c"}}, {"s": {"other": 1}}) == {"s": {"other": 1}}


def test_fleet_sets_region_landing_zone_egress_and_keeps_the_stack_values():
    """The resolved config: region from the fleet, the landing zone's network with this stack's own NSGs, the
    management egress CIDRs after the stack's own (not on the management stack), defaults under the stack file."""
    stacks = {s.name: s for s in resolve(load_fleet(EXAMPLE / "fleet.yaml"))}
    ash = stacks["gpu-ash-a"].config
    assert ash["oci:region"] == "us-ashburn-1"
    assert ash["oke-rdma:network"] == {"fromStack": {"createNsgs": True, "stack": "example/oke-rdma/lz-ashburn"},
                                       "apiEndpoint": {"allowedCidrs": ["10.30.0.0/16"]}}
    assert stacks["gpu-chi-a"].config["oke-rdma:network"]["apiEndpoint"]["allowedCidrs"] == ["10.51.0.0/16",
                                                                                           "10.30.0.0/16"]
    assert stacks["mgmt"].config["oke-rdma:network"]["apiEndpoint"]["allowedCidrs"] == ["10.30.0.0/16"]
    assert ash["oke-rdma:nodePools"]["system"]["shape"] == "VM.Standard.E5.Flex"  # from the defaults
    assert ash["oke-rdma:nodePools"]["gpu"]["size"] == 2  # from the stack file


def test_decommissioned_cluster_has_its_storage_unprotected(tmp_path):
    """decommissioned: true sets storage.fss.protect and, with a bucket, storage.objectStorage.protect false (the
    first step of deleting a cluster); the others stay protected."""
    path = fleet_copy(tmp_path, lambda d: cluster(d, "gpu-chi-a").update(decommissioned=True))
    stack = tmp_path / "stacks" / "Pulumi.gpu-chi-a.yaml"
    doc = yaml.safe_load(stack.read_text())
    doc["config"]["oke-rdma:storage"] = {"objectStorage": {"enabled": True, "protect": True}}
    stack.write_text(yaml.safe_dump(doc))
    stacks = {s.name: s for s in resolve(load_fleet(path))}
    assert stacks["gpu-chi-a"].config["oke-rdma:storage"]["fss"]["protect"] is False
    assert stacks["gpu-chi-a"].config["oke-rdma:storage"]["objectStorage"]["protect"] is False
    assert stacks["gpu-ash-a"].config["oke-rdma:storage"]["fss"]["protect"] is True


def test_secret_keys_are_the_top_level_keys_holding_a_secure_value(tmp_path):
    """A secure value nested anywhere makes its top-level key secret; the raw config hands the placeholder."""
    path = fleet_copy(tmp_path)
    stack = tmp_path / "stacks" / "Pulumi.gpu-ash-a.yaml"
    doc = yaml.safe_load(stack.read_text())
    doc["config"]["oke-rdma:platform"] = {"kubePrometheusStack": {"grafanaAdminPassword": {"secure": "AAABAx=="}}}
    stack.write_text(yaml.safe_dump(doc))
    s = next(s for s in resolve(load_fleet(path)) if s.name == "gpu-ash-a")
    assert s.secret_keys == ["oke-rdma:platform"]
    assert "AAABAx" not in s.raw(placeholder="hidden")["oke-rdma:platform"]
