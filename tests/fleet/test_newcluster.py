"""Self-service: ``python -m oke_rdma.fleet new-cluster`` writes a team's stack file (from new_stack, minus what the
fleet gives), appends its entry, checks and renders the fleet — or leaves nothing written."""

from __future__ import annotations

import pytest
import yaml

from oke_rdma.fleet import load_fleet, resolve
from oke_rdma.fleet.__main__ import main
from oke_rdma.fleet.newcluster import strip_defaults
from oke_rdma.new_stack import DEFAULT_KUBERNETES_VERSION
from tests.fleet.fleetfiles import fleet_copy

ARGS = ["--name", "gpu-ash-b", "--region", "us-ashburn-1", "--wave", "main", "--landing-zone", "lz-ashburn", "--",
        "--availability-domains", "Uocm:US-ASHBURN-AD-3", "--nodes", "4"]


def test_new_cluster_joins_the_fleet_and_follows_its_defaults(tmp_path):
    """The new stack file keeps only what the defaults do not give (no Kubernetes version: a bump of the defaults
    reaches it), no region and no network (the landing zone's); the fleet resolves and renders it in its wave."""
    path = fleet_copy(tmp_path)
    defaults = yaml.safe_load((tmp_path / "defaults.yaml").read_text())
    version = defaults["config"]["oke-rdma:cluster"]["kubernetesVersion"]
    assert version != DEFAULT_KUBERNETES_VERSION  # new_stack writes another one: it must not pin the stack
    assert main(["new-cluster", "--fleet", str(path), *ARGS]) == 0
    own = yaml.safe_load((tmp_path / "stacks" / "Pulumi.gpu-ash-b.yaml").read_text())["config"]
    assert "oke-rdma:cluster" not in own and "oci:region" not in own and "oke-rdma:network" not in own
    assert own["oke-rdma:nodePools"]["gpu"]["size"] == 4
    assert "shape" not in own["oke-rdma:nodePools"]["system"]  # the defaults' system pool
    stack = next(s for s in resolve(load_fleet(path)) if s.name == "gpu-ash-b")
    assert stack.wave == "main"
    assert stack.config["oke-rdma:cluster"]["kubernetesVersion"] == version
    assert stack.config["oke-rdma:network"]["fromStack"]["stack"] == "example/oke-rdma/lz-ashburn"
    assert (tmp_path / "rendered" / "waves" / "02-main" / "gpu-ash-b.yaml").is_file()
    assert "fleet.yaml" in path.name and "name: gpu-ash-b" in path.read_text()


def test_a_refused_cluster_leaves_nothing_written(tmp_path, capsys):
    """A wave the fleet does not have: exit 2 naming the key; the fleet file is unchanged, no stack file is left."""
    path = fleet_copy(tmp_path)
    before = path.read_text()
    args = [a if a != "main" else "late" for a in ARGS]
    assert main(["new-cluster", "--fleet", str(path), *args]) == 2
    assert "error: --wave: 'late' is not a wave of" in capsys.readouterr().err
    assert path.read_text() == before
    assert not (tmp_path / "stacks" / "Pulumi.gpu-ash-b.yaml").exists()


def test_an_existing_stack_file_is_not_overwritten(tmp_path, capsys):
    """A name whose stack file exists is refused before anything is written."""
    path = fleet_copy(tmp_path)
    args = [a if a != "gpu-ash-b" else "gpu-ash-a" for a in ARGS]
    assert main(["new-cluster", "--fleet", str(path), *args]) == 2
    assert "stacks/Pulumi.gpu-ash-a.yaml exists" in capsys.readouterr().err


def test_strip_defaults_drops_every_value_the_defaults_own_unless_a_flag_set_it():
    """A value at a path the defaults set goes whatever it is (it would pin the stack), a mapping left empty goes,
    a key the defaults lack stays; a path a flag set (``keep``) stays whole."""
    own = {"a": {"x": 5, "y": 2}, "b": [1, 2], "c": {"z": 3}}
    defaults = {"a": {"x": 1}, "b": [1], "c": {"z": 3}}
    assert strip_defaults(own, defaults) == {"a": {"y": 2}}
    assert strip_defaults({"c": {"z": 3}}, defaults) is ...
    assert strip_defaults(own, defaults, frozenset({"a.x", "b"})) == {"a": {"x": 5, "y": 2}, "b": [1, 2]}


OWN_VCN = ["--region", "us-chicago-1", "--wave", "main", "--", "--availability-domains", "Uocm:US-CHICAGO-1-AD-1"]


def test_two_new_clusters_with_their_own_vcn_get_free_ranges(tmp_path):
    """Each new cluster with its own VCN gets a range no other stack of the fleet uses, so two of them in one
    region do not both take 10.0.0.0/16."""
    from oke_rdma.fleet.resolve import own_vcn_cidr
    path = fleet_copy(tmp_path)
    assert main(["new-cluster", "--fleet", str(path), "--name", "gpu-chi-b", *OWN_VCN]) == 0
    assert main(["new-cluster", "--fleet", str(path), "--name", "gpu-chi-c", *OWN_VCN]) == 0
    cidrs = {s.name: own_vcn_cidr(s) for s in resolve(load_fleet(path))}
    mine = [cidrs["gpu-chi-b"], cidrs["gpu-chi-c"]]
    assert len(set(mine)) == 2 and not set(mine) & {v for k, v in cidrs.items() if k not in ("gpu-chi-b", "gpu-chi-c")}


def test_overlapping_vcns_the_management_cluster_reaches_are_refused_naming_both(tmp_path):
    """Two clusters whose VCNs overlap while the management cluster reaches both: one line naming both."""
    import pytest

    from oke_rdma.fleet import FleetError
    path = fleet_copy(tmp_path)
    stack = tmp_path / "stacks" / "Pulumi.gpu-chi-a.yaml"
    doc = yaml.safe_load(stack.read_text())
    doc["config"]["oke-rdma:network"]["vcnCidr"] = "10.50.0.0/16"  # gpu-chi-canary's
    stack.write_text(yaml.safe_dump(doc))
    with pytest.raises(FleetError) as e:
        resolve(load_fleet(path))
    [line] = [p for p in e.value.problems if "overlaps" in p]
    assert "gpu-chi-a" in line and "gpu-chi-canary" in line and "oke-rdma:network.vcnCidr" in line


def test_new_cluster_lists_the_placeholders_it_wrote_by_key(tmp_path, capsys):
    """The closing line and the file's header name every placeholder left (values containing 'replacewith') by its
    key path, and their count matches the list."""
    from oke_rdma.new_stack import placeholder_keys

    path = fleet_copy(tmp_path)
    assert main(["new-cluster", "--fleet", str(path), *ARGS]) == 0
    out = capsys.readouterr().out
    text = (tmp_path / "stacks" / "Pulumi.gpu-ash-b.yaml").read_text()
    keys = placeholder_keys(yaml.safe_load(text)["config"])
    assert keys, text  # the fleet's defaults leave some (the image OCIDs): the listing is not vacuous
    assert f"replace its {len(keys)} placeholder" in out and all(k in out for k in keys)
    assert all(f"#   {k}" in text for k in keys)


@pytest.mark.parametrize("flag, typo, expected", [
    ("--wave", "mian", "(did you mean main?); use one of canary, main or add it to waves"),
    ("--wave", "Canary", "(did you mean canary?)"),
    ("--landing-zone", "lz-ashbrn", "(did you mean lz-ashburn?); use one of lz-ashburn"),
])
def test_a_mistyped_choice_is_answered_with_the_closest_one_before_anything_is_written(tmp_path, capsys, flag, typo,
                                                                                       expected):
    path = fleet_copy(tmp_path)
    before = path.read_text()
    right = "main" if flag == "--wave" else "lz-ashburn"
    args = [typo if a == right else a for a in ARGS]
    assert main(["new-cluster", "--fleet", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert f"error: {flag}: {typo!r} is not a" in err and expected in err, err
    assert path.read_text() == before and not (tmp_path / "stacks" / "Pulumi.gpu-ash-b.yaml").exists()
