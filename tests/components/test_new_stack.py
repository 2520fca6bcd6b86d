"""`python -m oke_rdma.new_stack` writes a commented starting stack that previews clean offline, for any region and
shape, and refuses a bad flag in one line naming the flag and the config key (exit 2) before writing anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from oke_rdma import new_stack
from oke_rdma.config import ConfigError, StackConfig, load_stack_config
from offline.preview import main as preview_main
from offline.preview import read_stack_file
from tests.inprocess import run_main

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, *flags: str, stack: str = "mine") -> tuple[int, Path, str]:
    """Run the command in-process; returns its exit code, the file it writes and what it printed on stderr."""
    out = tmp_path / f"Pulumi.{stack}.yaml"
    code, _, err = run_main(new_stack.main, ["--stack", stack, "--output", str(out), *flags])
    return code, out, err


def preview(path: Path, tmp_path: Path) -> dict:
    code, out, err = run_main(preview_main, ["--config-file", str(path), "--json", str(tmp_path / "plan.json")])
    assert code == 0, out[-3000:] + err
    assert "no violations" in out
    return json.loads((tmp_path / "plan.json").read_text())


@pytest.mark.parametrize("region, ad", [
    ("eu-frankfurt-1", "Uocm:EU-FRANKFURT-1-AD-1"),
    ("ap-tokyo-1", "Uocm:AP-TOKYO-1-AD-1"),
    ("us-ashburn-1", "Uocm:US-ASHBURN-AD-1"),  # the legacy AD stem (no -1)
    ("us-phoenix-1", "Uocm:PHX-AD-1"),
])
def test_written_stack_previews_clean_in_its_region(tmp_path, region, ad):
    code, path, err = write(tmp_path, "--region", region, "--availability-domains", ad, "--nodes", "3")
    assert code == 0, err
    plan = preview(path, tmp_path)
    assert plan["policyViolations"] == []
    pools = {r["name"]: r["inputs"] for r in plan["resources"]
             if r["type"] == "oci:ContainerEngine/nodePool:NodePool"}
    gpu = pools["okerdma-mine-gpu"]
    assert (gpu["nodeShape"], gpu["nodeConfigDetails"]["size"]) == ("BM.GPU.H100.8", 3)
    assert gpu["nodeConfigDetails"]["computeClusterId"].startswith(f"ocid1.computecluster.oc1.{region}.")
    assert plan["outputs"]["region"] == region
    assert plan["outputs"]["tenants"]["research"]["rdma"] is True


def test_a_gpu_shape_outside_the_rdma_list_gets_no_compute_cluster(tmp_path):
    code, path, err = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                            "Uocm:EU-FRANKFURT-1-AD-1", "--shape", "VM.GPU.A10.2", "--gpus-per-node", "2",
                            "--nodes", "4")
    assert code == 0, err
    cfg = load_stack_config(*read_stack_file(path))
    assert cfg.compute_cluster is None and cfg.node_pools["gpu"].rdma is False
    assert cfg.node_pools["gpu"].size == 4 and cfg.node_pools["gpu"].gpus_per_node == 2
    assert cfg.tenants["research"].quota.gpu == 0 and cfg.tenants["research"].rdma is False
    assert "warning: oke-rdma:nodePools.gpu: a plain GPU pool (exclusive, not RDMA): no tenant can use" in err
    plan = preview(path, tmp_path)
    assert not [r for r in plan["resources"] if r["type"] == "oci:Core/computeCluster:ComputeCluster"]


def test_every_key_written_carries_its_description(tmp_path):
    code, path, _ = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                          "Uocm:EU-FRANKFURT-1-AD-1")
    assert code == 0
    lines = path.read_text().splitlines()
    config = yaml.safe_load(path.read_text())["config"]
    names = set(config["oke-rdma:nodePools"]) | set(config["oke-rdma:tenants"])  # map keys: names, not settings
    body = lines[lines.index("config:") + 1:]
    for i, line in enumerate(body):
        if line.lstrip().startswith("#") or line.strip().split(": ")[0].rstrip(":") in names:
            continue
        assert body[i - 1].lstrip().startswith("#"), f"no comment above {line!r}"
    comments = " ".join(" ".join(line.strip().lstrip("#").split()) for line in lines if line.lstrip().startswith("#"))
    described = []

    def walk(value: dict, model: type) -> None:
        fields = {(f.alias or n): f for n, f in model.model_fields.items()}
        for key, item in value.items():
            described.append(key)
            assert " ".join(fields[key].description.split()) in comments, key
            sub, is_map = new_stack._value_model(fields[key])
            if isinstance(item, dict) and sub is not None:
                for each in (item.values() if is_map else [item]):
                    walk(each, sub)

    for key, value in config.items():
        field = next(f for n, f in StackConfig.model_fields.items()
                     if (f.alias or n) == key.split(":", 1)[1] or (key == "oci:region" and n == "region"))
        sub, is_map = new_stack._value_model(field)
        if isinstance(value, dict) and sub is not None:
            for each in (value.values() if is_map else [value]):
                walk(each, sub)
    assert len(described) > 30


def test_placeholders_are_valid_ocids_and_plainly_fake(tmp_path):
    code, path, err = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                            "Uocm:EU-FRANKFURT-1-AD-1")
    assert code == 0
    text = path.read_text()
    assert text.count("replacewith") == 4 + 1  # four OCIDs, and the header naming them
    for key in ("compartmentId", "nodePools.gpu.imageId", "nodePools.system.imageId", "iam.deployerGroupId"):
        assert f"warning: oke-rdma:{key} is a placeholder" in err


def test_given_ocids_are_written_as_given(tmp_path):
    compartment = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
    image = "ocid1.image.oc1.eu-frankfurt-1.aaaaaaaak3s7w2nb5qj4x6l9d2r8t1y3u5i7o9p0a2s4d6f8g1h3j5k7gsys"
    code, path, err = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                            "Uocm:EU-FRANKFURT-1-AD-1", "--compartment-id", compartment, "--image-id", image)
    assert code == 0
    cfg = load_stack_config(*read_stack_file(path))
    assert cfg.compartment_id == compartment and cfg.node_pools["gpu"].image_id == image
    assert "compartmentId is a placeholder" not in err and "gpu.imageId is a placeholder" not in err


@pytest.mark.parametrize("flags, flag", [
    (("--shape", "H100"), "--shape (oke-rdma:nodePools.gpu.shape)"),
    (("--nodes", "-1"), "--nodes (oke-rdma:nodePools.gpu.size)"),
    (("--region", "frankfurt"), "--region (oci:region)"),
    (("--kubernetes-version", "1.34"), "--kubernetes-version (oke-rdma:cluster.kubernetesVersion)"),
    (("--compartment-id", "ocid1.subnet.oc1..aaaa"), "--compartment-id (oke-rdma:compartmentId)"),
    (("--image-id", "ocid1.image.oc1.us-ashburn-1.aaaaaaaak3s7w2nb5qj4x6l9d2r8t1y3u5i7o9p0a2s4d6f8g1h3j5k7gsys"),
     "--image-id (oke-rdma:nodePools.gpu.imageId)"),
    (("--vcn-cidr", "10.0.0.1/16"), "--vcn-cidr (oke-rdma:network.vcnCidr)"),
    (("--api-client-cidr", "0.0.0.0/0"), "--api-client-cidr (oke-rdma:network.apiEndpoint.allowedCidrs)"),
    (("--name-prefix", "OKE"), "--name-prefix (oke-rdma:namePrefix)"),
    (("--availability-domains", "AD-1"), "--availability-domains (oke-rdma:availabilityDomains)"),
    (("--tenant-cpu", "0"), "--tenant-cpu (oke-rdma:tenants.research.quota.cpu)"),
    (("--tenant", "vision", "--tenant-memory-gb", "0"), "--tenant-memory-gb (oke-rdma:tenants.vision.quota.memoryGb)"),
])
def test_a_bad_flag_is_one_line_naming_it_and_nothing_is_written(tmp_path, flags, flag):
    base = {"--region": "eu-frankfurt-1", "--availability-domains": "Uocm:EU-FRANKFURT-1-AD-1"}
    base.update(dict(zip(flags[::2], flags[1::2])))
    code, path, err = write(tmp_path, *[x for kv in base.items() for x in kv])
    assert code == 2 and not path.exists()
    assert any(line.startswith(f"error: {flag}: ") for line in err.splitlines()), err
    assert "Traceback" not in err


def test_an_unlisted_bare_metal_shape_in_a_compute_cluster_needs_the_explicit_flag(tmp_path):
    flags = ("--region", "eu-frankfurt-1", "--availability-domains", "Uocm:EU-FRANKFURT-1-AD-1",
             "--shape", "BM.Standard.E5.192", "--rdma")
    code, path, err = write(tmp_path, *flags)
    assert code == 2 and not path.exists() and err.startswith("error: --shape (oke-rdma:nodePools.gpu.shape): ")
    code, path, err = write(tmp_path, *flags, "--allow-unlisted-rdma-shape")
    assert code == 0, err
    cfg = load_stack_config(*read_stack_file(path))
    assert cfg.node_pools["gpu"].rdma and cfg.node_pools["gpu"].allow_unlisted_rdma_shape
    assert cfg.tenants["research"].quota.gpu == 0  # a CPU shape: no GPUs to queue


def test_a_flex_gpu_shape_needs_its_size_flags(tmp_path):
    code, path, err = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                            "Uocm:EU-FRANKFURT-1-AD-1", "--shape", "VM.Standard.E5.Flex")
    assert code == 2 and not path.exists()
    assert err.startswith("error: --ocpus and --memory-gb: required for the Flex shape VM.Standard.E5.Flex")


def test_an_existing_file_is_kept_unless_forced(tmp_path):
    flags = ("--region", "eu-frankfurt-1", "--availability-domains", "Uocm:EU-FRANKFURT-1-AD-1")
    (tmp_path / "Pulumi.mine.yaml").write_text("mine\n")
    code, path, err = write(tmp_path, *flags)
    assert code == 2 and path.read_text() == "mine\n" and "--force" in err
    code, path, _ = write(tmp_path, *flags, "--force")
    assert code == 0 and "oke-rdma:nodePools" in path.read_text()


def test_the_command_prints_the_exact_preview_command_for_the_file_it_wrote(tmp_path):
    """--output elsewhere (a name that is not Pulumi.<stack>.yaml): the printed command names the file and the stack,
    and running it previews that stack, not dev; the project's own file needs only --stack."""
    import shlex

    out = tmp_path / "team-a.yaml"
    code, printed, _ = run_main(new_stack.main, ["--stack", "team-a", "--output", str(out), "--region",
                                                 "eu-frankfurt-1", "--availability-domains", "Uocm:EU-FRANKFURT-1-AD-1"])
    assert code == 0
    (line,) = [x for x in printed.splitlines() if x.startswith("preview it: ")]
    command = line.removeprefix("preview it: ").split(" && ")[-1]
    assert f"--config-file {out.resolve()} --stack team-a" in command
    args = shlex.split(command)[3:]  # after <python> -m offline.preview
    code, report, _ = run_main(preview_main, args)
    assert code == 0 and "pulumi:pulumi:Stack oke-rdma-team-a" in report and "defaulted to dev" not in report
    assert new_stack.preview_command(ROOT / "Pulumi.x.yaml", "x").endswith("-m offline.preview --stack x")


def test_an_output_in_a_missing_directory_is_one_line_not_a_traceback(tmp_path):
    code, _, err = run_main(new_stack.main, ["--stack", "x", "--output", str(tmp_path / "no" / "x.yaml"), "--region",
                                             "eu-frankfurt-1", "--availability-domains", "Uocm:EU-FRANKFURT-1-AD-1"])
    assert code == 2 and err.startswith("error: --output ") and "Traceback" not in err


def test_a_stack_name_pulumi_refuses_is_refused(tmp_path):
    code, _, err = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                         "Uocm:EU-FRANKFURT-1-AD-1", stack="my stack")
    assert code == 2 and err.startswith("error: --stack: ")


def test_default_kubernetes_version_is_the_example_stacks_version():
    for stack in ("dev", "prod"):
        cfg = load_stack_config(*read_stack_file(ROOT / f"Pulumi.{stack}.yaml"))
        assert cfg.cluster.kubernetes_version == new_stack.DEFAULT_KUBERNETES_VERSION


def test_placeholder_ocids_pass_the_ocid_check_of_their_kind():
    raw, secrets = read_stack_file(ROOT / "Pulumi.dev.yaml")
    raw = dict(raw, **{"oke-rdma:compartmentId": new_stack.placeholder("compartment")})
    pools = json.loads(raw["oke-rdma:nodePools"])
    pools["gpu"]["imageId"] = new_stack.placeholder("image", "sa-saopaulo-1", "gpuimageid")
    raw["oke-rdma:nodePools"] = json.dumps(pools)
    cfg = load_stack_config(raw, secrets)
    assert "replacewith" in cfg.compartment_id and "replacewith" in cfg.node_pools["gpu"].image_id
    pools["gpu"]["imageId"] = new_stack.placeholder("subnet", "sa-saopaulo-1")
    with pytest.raises(ConfigError):
        load_stack_config(dict(raw, **{"oke-rdma:nodePools": json.dumps(pools)}), secrets)


def test_the_tenant_quota_defaults_to_what_the_gpu_nodes_offer(tmp_path):
    """Without --tenant-cpu/--tenant-memory-gb the tenant's CPU and memory quota are the GPU nodes' vCPUs (2 per
    OCPU) and memory, so Kueue can admit its GPU jobs; the flags still override them."""
    from oke_rdma.facts.shapes import SHAPES
    code, path, err = write(tmp_path, "--region", "us-ashburn-1", "--availability-domains", "Uocm:US-ASHBURN-AD-1",
                            "--nodes", "2")
    assert code == 0, err
    quota = load_stack_config(*read_stack_file(path)).tenants["research"].quota
    h100 = SHAPES["BM.GPU.H100.8"]
    assert (quota.gpu, quota.cpu, quota.memory_gb) == (16, 2 * h100.ocpus * 2, h100.memory_gb * 2)
    code, path, err = write(tmp_path, "--region", "us-ashburn-1", "--availability-domains", "Uocm:US-ASHBURN-AD-1",
                            "--nodes", "2", "--tenant-cpu", "100", "--tenant-memory-gb", "500", stack="given")
    quota = load_stack_config(*read_stack_file(path)).tenants["research"].quota
    assert (quota.cpu, quota.memory_gb) == (100, 500)


def _one_region_per_realm() -> list[str]:
    from oke_rdma.facts import regions
    firsts: dict[str, str] = {}
    for region in regions.regions():
        firsts.setdefault(regions.realm_of(region), region)
    return sorted(firsts.values())


@pytest.mark.parametrize("region", _one_region_per_realm())
def test_a_stack_in_any_realm_is_written_with_placeholders_of_that_realm(tmp_path, region, capsys):
    """Every realm (commercial oc1, the US government realms oc2/oc3, the UK government, sovereign and dedicated
    ones): the placeholders carry the region's realm, so the stack written passes the config checks at once instead
    of being refused for realm-mismatched OCIDs the user never typed."""
    from oke_rdma.facts import regions
    out = tmp_path / "Pulumi.mine.yaml"
    ad = f"Uocm:{regions.ad_stem(region)}-AD-1"
    code = new_stack.main(["--stack", "mine", "--output", str(out), "--region", region,
                           "--availability-domains", ad])
    err = capsys.readouterr().err
    assert code == 0, err
    cfg = load_stack_config(*read_stack_file(out))
    realm = regions.realm_of(region)
    assert cfg.compartment_id.startswith(f"ocid1.compartment.{realm}..")
    assert cfg.node_pools["gpu"].image_id.startswith(f"ocid1.image.{realm}.{region}.")
    assert cfg.iam.deployer_group_id.startswith(f"ocid1.group.{realm}..")


def test_a_stack_in_a_us_government_region_previews_clean(tmp_path):
    code, path, err = write(tmp_path, "--region", "us-langley-1", "--availability-domains",
                            "Uocm:US-LANGLEY-1-AD-1", "--nodes", "2")
    assert code == 0, err
    plan = preview(path, tmp_path)
    assert plan["outputs"]["region"] == "us-langley-1"
    assert plan["outputs"]["clusterId"].startswith("ocid1.cluster.oc2.us-langley-1.")


@pytest.mark.parametrize("ads", ["", ",", " , ,"])
def test_no_availability_domain_is_one_line_not_a_traceback(tmp_path, ads):
    code, path, err = write(tmp_path, "--region", "us-phoenix-1", "--availability-domains", ads)
    assert code == 2 and not path.exists()
    assert err.startswith("error: --availability-domains (oke-rdma:availabilityDomains): ")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("shape", ["BM.GPU2.2", "BM.GPU.A10.4", "BM.GPU3.8", "VM.GPU.A100.1"])
def test_a_gpu_shape_the_table_does_not_know_needs_its_gpu_count(tmp_path, shape):
    """A GPU shape outside oke_rdma/facts/shapes.py has no known GPU count: the tool asks for --gpus-per-node instead
    of writing a GPU pool whose tenant gets 0 GPUs; given, the count is written and used."""
    base = ("--region", "us-ashburn-1", "--availability-domains", "Uocm:US-ASHBURN-AD-1", "--shape", shape,
            "--allow-unknown-shape")
    code, path, err = write(tmp_path, *base)
    assert code == 2 and not path.exists()
    assert err.startswith("error: --gpus-per-node (oke-rdma:nodePools.gpu.gpusPerNode): ") and shape in err
    assert len(err.strip().splitlines()) == 1
    code, path, err = write(tmp_path, *base, "--gpus-per-node", "4")
    assert code == 0, err
    cfg = load_stack_config(*read_stack_file(path))
    assert cfg.node_pools["gpu"].gpus == 4 and cfg.node_pools["gpu"].allow_unknown_shape


@pytest.mark.parametrize("shape, meant", [("BM.GPU.A100.8", "BM.GPU.A100-v2.8 or BM.GPU.B4.8 or BM.GPU4.8"),
                                          ("BM.GPU.H100.4", "BM.GPU.H100.8"), ("bm.gpu.h200.8", "BM.GPU.H200.8"),
                                          ("VM.GPU.A10.3", "VM.GPU.A10.2")])
def test_an_unknown_gpu_shape_is_refused_with_the_shapes_it_likely_means(tmp_path, shape, meant):
    """A typo in --shape is refused before anything else (even with --gpus-per-node), naming the known shapes of
    the GPU model it spells; nothing is written."""
    base = ("--region", "us-ashburn-1", "--availability-domains", "Uocm:US-ASHBURN-AD-1", "--shape", shape)
    for extra in ((), ("--gpus-per-node", "8")):
        code, path, err = write(tmp_path, *base, *extra)
        assert code == 2 and not path.exists()
        assert err.startswith(f"error: --shape (oke-rdma:nodePools.gpu.shape): {shape} (did you mean {meant}?)")
        assert "--allow-unknown-shape" in err and len(err.strip().splitlines()) == 1


def test_a_known_cpu_shape_needs_no_gpu_count(tmp_path):
    code, path, err = write(tmp_path, "--region", "uk-london-1", "--availability-domains", "Uocm:UK-LONDON-1-AD-2",
                            "--shape", "BM.Optimized3.36")
    assert code == 0, err
    cfg = load_stack_config(*read_stack_file(path))
    assert cfg.node_pools["gpu"].rdma and cfg.tenants["research"].quota.gpu == 0


@pytest.mark.parametrize("region, flag", [("US-PHOENIX-1", "--region (oci:region)"),
                                          ("eu-frankfurt-1", "--nodes (oke-rdma:nodePools.gpu.size)")])
def test_a_bad_value_is_reported_once_not_again_on_values_derived_from_it(tmp_path, region, flag):
    """A region the SDK does not know is not copied into the placeholder OCIDs, and a negative --nodes is not
    multiplied into the tenant's quotas: only the flag the user typed is named."""
    code, path, err = write(tmp_path, "--region", region, "--availability-domains", "Uocm:PHX-AD-1",
                            *(["--nodes", "-1"] if region == "eu-frankfurt-1" else []))
    assert code == 2 and not path.exists()
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert [line.split(": ", 2)[1] for line in lines if "availabilityDomains" not in line] == [flag], err


@pytest.mark.parametrize("shape, per_ocpu", [("BM.GPU.GB200.4", 1), ("BM.GPU.H200.8", 2), ("BM.GPU.B200.8", 2)])
def test_the_tenant_cpu_quota_counts_vcpus_by_processor(tmp_path, shape, per_ocpu, capsys):
    """Kubernetes counts vCPUs: an OCPU is 2 on x86 and 1 on Arm (Grace in GB200), so the default CPU quota of an
    Arm GPU pool is not twice what its nodes have."""
    from oke_rdma.facts.shapes import SHAPES
    out = tmp_path / "Pulumi.mine.yaml"
    code = new_stack.main(["--stack", "mine", "--output", str(out), "--region", "us-chicago-1",
                           "--availability-domains", "Uocm:US-CHICAGO-1-AD-2", "--shape", shape, "--nodes", "2"])
    assert code == 0, capsys.readouterr().err
    quota = load_stack_config(*read_stack_file(out)).tenants["research"].quota
    assert quota.cpu == per_ocpu * SHAPES[shape].ocpus * 2 and quota.gpu == SHAPES[shape].gpus * 2


def test_a_pool_too_large_for_the_pod_subnet_is_fixed_with_a_flag(tmp_path, capsys):
    """600 H100 nodes at 64 pods each need more pod IPs than the largest VCN's pod subnet: the refusal names the flags
    that fix it, and --max-pods-per-node does."""
    out = tmp_path / "Pulumi.mine.yaml"
    base = ["--stack", "mine", "--output", str(out), "--region", "us-ashburn-1",
            "--availability-domains", "Uocm:US-ASHBURN-AD-3", "--nodes", "600"]
    assert new_stack.main(base) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --max-pods-per-node or --nodes (oke-rdma:network.subnets.pods): ") and not out.exists()
    assert new_stack.main(base + ["--max-pods-per-node", "48"]) == 0, capsys.readouterr().err
    assert load_stack_config(*read_stack_file(out)).node_pools["gpu"].max_pods_per_node == 48


def test_a_withdrawn_kubernetes_version_is_refused_suggesting_only_versions_the_pins_support(tmp_path):
    """The command applies the preview's version checks: a version OKE withdrew is refused (a new cluster on it
    fails), naming the offered versions every pinned add-on supports (not one the KEDA pin refuses)."""
    from oke_rdma.config.checks.chart_versions import kubernetes_versions_supported
    from oke_rdma.facts import kubernetes
    withdrawn = next(v for v, row in kubernetes.OKE_VERSIONS.items() if not row.offered)
    code, path, err = write(tmp_path, "--region", "eu-frankfurt-1", "--availability-domains",
                            "Uocm:EU-FRANKFURT-1-AD-1", "--kubernetes-version", withdrawn)
    assert code == 2 and not path.exists()
    (line,) = [x for x in err.splitlines() if x.startswith("error: --kubernetes-version")]
    supported = kubernetes_versions_supported(load_stack_config(*read_stack_file(ROOT / "Pulumi.dev.yaml")))
    assert line.endswith(", ".join(supported)) and set(supported) < set(kubernetes.offered_versions())
