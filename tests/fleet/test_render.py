"""The rendered fleet: fresh on disk, valid against the pinned PKO and Flux CRDs (unknown fields refused, CEL
rules evaluated), references resolved, and the Stack and Kustomization settings each fleet choice implies."""

from __future__ import annotations

import copy
import hashlib

import celpy
import pytest
import yaml

from oke_rdma.fleet import load_fleet, render, resolve
from oke_rdma.fleet.__main__ import main
from oke_rdma.fleet.render import STACK_HEALTH
from oke_rdma.fleet.validate import (crd_digest_problems, crd_sources, crd_text, reference_problems,
                                     schema_problems, validate_files)
from tests.fleet.fleetfiles import EXAMPLE, cluster, fleet_copy


@pytest.fixture(scope="module")
def example():
    fleet = load_fleet(EXAMPLE / "fleet.yaml")
    return render(fleet, resolve(fleet))


def _objects(rendered, kind):
    return [o for o in rendered.objects() if o["kind"] == kind]


def _stack(rendered, name):
    return next(o for o in _objects(rendered, "Stack") if o["metadata"]["name"] == name)


def test_rendered_directory_is_fresh(capsys):
    """fleet/rendered is what `python -m oke_rdma.fleet render` writes now (run it after editing the fleet)."""
    assert main(["render", "--check", "--fleet", str(EXAMPLE / "fleet.yaml")]) == 0, capsys.readouterr().err


def test_stale_rendered_directory_fails_the_check(tmp_path, capsys):
    """A rendered file edited by hand, or one no longer rendered, makes --check exit 1 naming it."""
    path = fleet_copy(tmp_path)
    assert main(["render", "--fleet", str(path)]) == 0
    (tmp_path / "rendered" / "waves" / "02-main" / "gpu-ash-a.yaml").write_text("edited\n")
    (tmp_path / "rendered" / "extra.yaml").write_text("x: 1\n")
    assert main(["render", "--check", "--fleet", str(path)]) == 1
    err = capsys.readouterr().err
    assert "extra.yaml" in err and "waves/02-main/gpu-ash-a.yaml" in err


def test_vendored_crds_match_their_recorded_sha256():
    """Each vendored CRD is byte for byte the file SOURCES.json names (its sha256), from the pinned tag."""
    assert crd_digest_problems() == []
    assert set(crd_sources()) == {"pulumi.com_stacks.yaml", "kustomize.toolkit.fluxcd.io_kustomizations.yaml",
                                  "source.toolkit.fluxcd.io_gitrepositories.yaml",
                                  "source.toolkit.fluxcd.io_ocirepositories.yaml"}
    name = "pulumi.com_stacks.yaml"
    assert hashlib.sha256(crd_text(name)).hexdigest() == crd_sources()[name]["sha256"]
    assert "v2.9.0" in crd_sources()[name]["url"]


def test_example_renders_valid_objects(example):
    """Every rendered object passes its CRD (or Kubernetes) schema, the CEL rules and the reference checks."""
    assert validate_files(example.files) == []
    kinds = sorted({o["kind"] for o in example.objects()})
    assert kinds == ["ClusterRoleBinding", "GitRepository", "Kustomization", "Namespace", "Role", "RoleBinding",
                     "ServiceAccount", "Stack"]
    assert len(_objects(example, "Stack")) == 10  # 5 operated stacks and their drift twins; not mgmt


@pytest.mark.parametrize("kind, where, field", [
    ("Stack", ("spec",), "destroyOnFinalise"),
    ("Stack", ("spec", "workspaceTemplate", "spec"), "serviceAcountName"),
    ("Kustomization", ("spec",), "healthcheckExprs"),
    ("GitRepository", ("spec", "ref"), "tag_name"),
])
def test_unknown_field_fails_the_check(example, kind, where, field):
    """A field the CRD does not define (the API server would drop it silently) is refused with its path."""
    obj = copy.deepcopy(_objects(example, kind)[0])
    node = obj
    for part in where:
        node = node[part]
    node[field] = True
    problems = schema_problems(obj)
    assert problems == [f"{'.'.join(where)}.{field}: unknown field (the API server would drop it silently); fix its "
                        "spelling or remove it"]


def test_unknown_field_in_a_builtin_kind_fails(example):
    """A built-in kind is checked strictly too (kubernetes-validate), on every Kubernetes minor OKE offers: a field no
    version knows is one problem, without a version list."""
    from oke_rdma.fleet.validate import KUBERNETES_VERSIONS

    assert len(KUBERNETES_VERSIONS) >= 2 and all(v.endswith(".0") for v in KUBERNETES_VERSIONS)
    sa = copy.deepcopy(_objects(example, "ServiceAccount")[0])
    sa["automountToken"] = False
    (problem,) = schema_problems(sa)
    assert "automountToken" in problem and "(Kubernetes" not in problem


def test_a_builtin_kind_refused_by_one_offered_version_names_that_version(example, monkeypatch):
    """The management cluster may run any minor OKE offers: an object one of their schemas refuses is refused,
    naming the versions that refuse it, and validation never changes the object."""
    import kubernetes_validate

    from oke_rdma.fleet import validate

    real = kubernetes_validate.validate
    monkeypatch.setattr(validate, "KUBERNETES_VERSIONS", ("1.34.0", "1.35.0", "1.36.0"))

    def only_newer(obj, version, strict=False):
        if version == "1.34.0" and "newField" in obj:
            import jsonschema

            raise kubernetes_validate.ValidationError(jsonschema.ValidationError(
                "Additional properties are not allowed ('newField' was unexpected)", path=["newField"]), version)
        return real({k: v for k, v in obj.items() if k != "newField"}, version, strict=strict)

    monkeypatch.setattr(kubernetes_validate, "validate", only_newer)
    sa = copy.deepcopy(_objects(example, "ServiceAccount")[0])
    sa["newField"] = 1
    before = copy.deepcopy(sa)
    assert schema_problems(sa) == ["newField: Additional properties are not allowed ('newField' was unexpected) "
                                   "(Kubernetes 1.34)"]
    assert sa == before
    del sa["newField"]
    assert schema_problems(sa) == []


def test_wrong_type_and_enum_fail(example):
    """Types and enums of the CRD schema are enforced (refresh is a boolean; workspaceReclaimPolicy Retain|Delete)."""
    stack = copy.deepcopy(_stack(example, "gpu-ash-a"))
    stack["spec"]["refresh"] = "yes"
    stack["spec"]["workspaceReclaimPolicy"] = "Keep"
    problems = schema_problems(stack)
    assert any(p.startswith("spec.refresh: 'yes' is not of type 'boolean'") for p in problems)
    assert any(p.startswith("spec.workspaceReclaimPolicy: 'Keep' is not one of") for p in problems)


def test_cel_rule_of_the_stack_crd_is_evaluated(example):
    """PKO's CEL rule (a Stack name of at most 42 characters) refuses a longer name and admits the rendered ones."""
    stack = copy.deepcopy(_stack(example, "gpu-ash-a"))
    assert schema_problems(stack) == []
    stack["metadata"]["name"] = "a" * 43
    assert schema_problems(stack) == ["(object): Stack name must be no more than 42 characters in length. (CEL rule "
                                      "'size(self.metadata.name) <= 42')"]


def test_cel_rule_of_the_gitrepository_crd_is_evaluated(example):
    """Flux's GitRepository rule (serviceAccountName only with provider azure or aws) is evaluated on spec."""
    repo = copy.deepcopy(_objects(example, "GitRepository")[0])
    repo["spec"]["serviceAccountName"] = "x"
    assert any("serviceAccountName can only be set when provider is 'azure'" in p for p in schema_problems(repo))
    repo["spec"]["provider"] = "azure"
    assert schema_problems(repo) == []


def _refs(example, mutate):
    objs = [(f, d) for f, t in sorted(example.files.items()) if f.endswith(".yaml") and not f.startswith("config/")
            and not f.endswith("kustomization.yaml") for d in yaml.safe_load_all(t) if d]
    objs = copy.deepcopy(objs)
    mutate(objs)
    return reference_problems(objs)


def _find(objs, kind, name):
    return next(o for _, o in objs if o["kind"] == kind and o["metadata"]["name"] == name)


@pytest.mark.parametrize("mutate, expected", [
    (lambda objs: _find(objs, "Stack", "gpu-ash-a")["spec"].update(serviceAccountName="nobody"),
     "Stack/gpu-ash-a: spec.serviceAccountName: no ServiceAccount pulumi-fleet/nobody is rendered"),
    (lambda objs: _find(objs, "Kustomization", "fleet-02-main")["spec"].update(dependsOn=[{"name": "fleet-9"}]),
     "Kustomization/fleet-02-main: spec.dependsOn[0]: no Kustomization pulumi-fleet/fleet-9 is rendered"),
    (lambda objs: _find(objs, "Kustomization", "fleet-01-canary")["spec"]["sourceRef"].update(name="other"),
     "Kustomization/fleet-01-canary: spec.sourceRef: no GitRepository pulumi-fleet/other is rendered"),
    (lambda objs: _find(objs, "Kustomization", "fleet-01-canary")["spec"]["healthChecks"][0].update(
        name="gpu-ash-a"), "Kustomization/fleet-01-canary: spec.healthChecks[0]: gpu-ash-a is not applied by this "
     "Kustomization (waves/02-main)"),
    (lambda objs: _find(objs, "Stack", "gpu-ash-a")["spec"].update(prerequisites=[{"name": "gpu-chi-a"}]),
     "Stack/gpu-ash-a: spec.prerequisites[0]: gpu-chi-a is not in an earlier wave"),
    (lambda objs: _find(objs, "Stack", "gpu-ash-a")["spec"]["envRefs"].update(
        OCI_REGION={"type": "Literal", "literal": {"value": "us-ashburn-1"}}),
     "Stack/gpu-ash-a: spec.envRefs.OCI_REGION: type 'Literal'; only references to Kubernetes Secrets"),
    (lambda objs: _find(objs, "Stack", "gpu-ash-a")["spec"]["config"].update(x={"secure": "AAAB"}),
     "Stack/gpu-ash-a: spec.config.x: a secure value in plain config; use secretsRef"),
    (lambda objs: _find(objs, "Stack", "gpu-ash-a")["spec"]["workspaceTemplate"]["spec"].update(
        image="pulumi/pulumi:latest"), "Stack/gpu-ash-a: spec.workspaceTemplate.spec.image: pulumi/pulumi:latest is "
     "not pinned by digest"),
    (lambda objs: _find(objs, "RoleBinding", "fleet-applier")["roleRef"].update(name="admin"),
     "RoleBinding/fleet-applier: roleRef: no Role pulumi-fleet/admin is rendered"),
])
def test_broken_references_fail_the_check(example, mutate, expected):
    """Each kind of cross-object reference that does not resolve is one problem line; the example has none."""
    assert _refs(example, lambda objs: None) == []
    assert any(expected in p for p in _refs(example, mutate)), _refs(example, mutate)


def test_stack_runs_the_pinned_release_with_refresh_and_no_destroy(example):
    """A Stack: the release's repository at its commit, refresh on, destroyOnFinalize off, the workspace image by
    digest with the restricted profile, the OCI key and Pulumi token by Secret reference, the landing zone as
    prerequisite, kept by Flux if its entry disappears; its drift twin only previews, periodically."""
    spec = _stack(example, "gpu-ash-a")["spec"]
    assert spec["stack"] == "example/oke-rdma/gpu-ash-a"
    assert (spec["projectRepo"], spec["commit"]) == ("https://github.com/example/oke-rdma.git",
                                                     "3f1c2b7a9d8e6f5a4b3c2d1e0f9a8b7c6d5e4f3a")
    assert spec["refresh"] is True and spec["destroyOnFinalize"] is False and "runProgram" not in spec
    assert spec["workspaceTemplate"]["spec"]["image"].startswith("ghcr.io/example/oke-rdma-workspace@sha256:")
    assert spec["workspaceTemplate"]["spec"]["securityProfile"] == "restricted"
    assert spec["envRefs"]["PULUMI_ACCESS_TOKEN"] == {"type": "Secret", "secret": {"name": "fleet-pulumi-token",
                                                                                   "key": "accessToken"}}
    assert spec["envRefs"]["OCI_CLI_KEY_CONTENT"]["secret"] == {"name": "fleet-oci-credentials", "key": "privateKey"}
    assert spec["prerequisites"] == [{"name": "lz-ashburn"}]
    assert _stack(example, "gpu-ash-a")["metadata"]["annotations"] == {"kustomize.toolkit.fluxcd.io/prune":
                                                                        "disabled"}
    assert "annotations" not in _stack(example, "gpu-ash-a-drift")["metadata"]
    assert spec["config"]["oke-rdma:cluster"]["kubernetesVersion"] == "v1.34.2"
    twin = _stack(example, "gpu-ash-a-drift")["spec"]
    assert twin["preview"] is True and twin["continueResyncOnCommitMatch"] is True
    assert twin["resyncFrequencySeconds"] == 360 * 60 and twin["destroyOnFinalize"] is False
    assert twin["stack"] == spec["stack"]


def test_decommissioned_stack_destroys_on_finalize_with_its_program(tmp_path):
    """decommissioned: destroyOnFinalize and runProgram (PKO #1299: the source-free destroy of v2.8-v2.9 fails
    for Python) on the Stack, never on its drift twin; the Stack loses its prune protection (Flux deletes it once its
    entry is removed)."""
    path = fleet_copy(tmp_path, lambda d: cluster(d, "gpu-chi-a").update(decommissioned=True))
    fleet = load_fleet(path)
    rendered = render(fleet, resolve(fleet))
    spec = _stack(rendered, "gpu-chi-a")["spec"]
    assert spec["destroyOnFinalize"] is True and spec["runProgram"] is True
    assert "annotations" not in _stack(rendered, "gpu-chi-a")["metadata"]  # Flux prunes it once removed
    assert spec["config"]["oke-rdma:storage"]["fss"]["protect"] is False
    assert _stack(rendered, "gpu-chi-a-drift")["spec"]["destroyOnFinalize"] is False
    assert _stack(rendered, "gpu-ash-a")["spec"]["destroyOnFinalize"] is False
    assert validate_files(rendered.files) == []


def test_waves_depend_on_the_previous_and_check_their_own_stacks(example):
    """One Kustomization per wave (landing zones first): each health-checks its own Stacks (not the twins) and
    depends on the previous one, so a wave starts when the previous wave's Stacks are Ready."""
    ks = {k["metadata"]["name"]: k["spec"] for k in _objects(example, "Kustomization")}
    assert list(ks) == ["fleet-00-landing-zones", "fleet-01-canary", "fleet-02-main"]
    assert "dependsOn" not in ks["fleet-00-landing-zones"]
    assert ks["fleet-01-canary"]["dependsOn"] == [{"name": "fleet-00-landing-zones"}]
    assert ks["fleet-02-main"]["dependsOn"] == [{"name": "fleet-01-canary"}]
    assert [h["name"] for h in ks["fleet-01-canary"]["healthChecks"]] == ["gpu-ash-canary", "gpu-chi-canary"]
    assert ks["fleet-02-main"]["path"] == "./fleet/rendered/waves/02-main"
    assert all(k["prune"] and k["serviceAccountName"] == "fleet-applier" for k in ks.values())


def _health(status, generation=3):
    obj = celpy.json_to_cel({"metadata": {"generation": generation}, "status": status})
    env = celpy.Environment()
    return {name: bool(env.program(env.compile(STACK_HEALTH[name])).evaluate({"status": obj["status"],
                                                                           "metadata": obj["metadata"]}))
            for name in ("inProgress", "failed", "current")}


def test_stack_health_expressions_judge_pko_conditions():
    """The healthCheckExprs (CEL, evaluated here with cel-python): Ready at the current generation is current; a
    Ready from an older generation is not; Stalled fails; Reconciling is in progress; no status is none of them."""
    ready = [{"type": "Ready", "status": "True"}]
    assert _health({"observedGeneration": 3, "conditions": ready}) == {"inProgress": False, "failed": False,
                                                                       "current": True}
    assert _health({"observedGeneration": 2, "conditions": ready})["current"] is False
    assert _health({"observedGeneration": 3, "conditions": [{"type": "Stalled", "status": "True"}]})["failed"]
    assert _health({"observedGeneration": 3, "conditions": [{"type": "Reconciling", "status": "True"}]})[
        "inProgress"]
    assert _health({}) == {"inProgress": False, "failed": False, "current": False}


def test_oci_release_and_self_managed_backend(tmp_path):
    """An OCI-artifact release becomes an OCIRepository pinned by digest and the Stack's fluxSource; a
    self-managed backend sets backend and secretsProvider and the S3 keys by Secret reference (no Pulumi token)."""
    digest = "sha256:" + "ab" * 32

    def edit(d):
        cluster(d, "gpu-chi-a")["release"] = {"oci": {"url": "oci://ghcr.io/example/oke-rdma", "tag": "v1.5.0",
                                                      "digest": digest}}
        d["backend"] = {"selfManaged": {"url": "s3://fleet-state?endpoint=ns.compat.objectstorage.us-ashburn-1."
                                               "oraclecloud.com&region=us-ashburn-1&s3ForcePathStyle=true",
                                        "secretsProvider": "hashivault://fleet"}}
    fleet = load_fleet(fleet_copy(tmp_path, edit))
    rendered = render(fleet, resolve(fleet))
    (oci,) = _objects(rendered, "OCIRepository")
    assert oci["spec"]["ref"] == {"digest": digest}
    spec = _stack(rendered, "gpu-chi-a")["spec"]
    assert spec["fluxSource"]["sourceRef"] == {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
                                               "name": oci["metadata"]["name"]}
    assert "projectRepo" not in spec and spec["stack"] == "organization/oke-rdma/gpu-chi-a"
    assert spec["backend"].startswith("s3://fleet-state") and spec["secretsProvider"] == "hashivault://fleet"
    assert "PULUMI_ACCESS_TOKEN" not in spec["envRefs"] and "AWS_SECRET_ACCESS_KEY" in spec["envRefs"]
    assert validate_files(rendered.files) == []


def test_secret_config_goes_by_reference(tmp_path):
    """A stack's secret key is not in spec.config: spec.secretsRef names the Secret <stack>-config and a key
    derived from the config key; secrets.txt lists it."""
    path = fleet_copy(tmp_path)
    stack = tmp_path / "stacks" / "Pulumi.gpu-ash-a.yaml"
    doc = yaml.safe_load(stack.read_text())
    doc["config"]["oke-rdma:platform"] = {"kubePrometheusStack": {"grafanaAdminPassword": {"secure": "AAABAx=="}}}
    stack.write_text(yaml.safe_dump(doc))
    fleet = load_fleet(path)
    rendered = render(fleet, resolve(fleet))
    spec = _stack(rendered, "gpu-ash-a")["spec"]
    assert "oke-rdma:platform" not in spec["config"]
    assert spec["secretsRef"] == {"oke-rdma:platform": {"type": "Secret", "secret": {
        "name": "gpu-ash-a-config", "key": "oke-rdma.platform"}}}
    assert "gpu-ash-a-config: oke-rdma.platform" in rendered.files["secrets.txt"]
    assert "AAABAx" not in "".join(t for f, t in rendered.files.items() if not f.startswith("config/"))
    assert validate_files(rendered.files) == []


def test_render_writes_nothing_when_a_rendered_object_is_invalid(tmp_path, monkeypatch, capsys):
    """render validates before it writes: an object with an unknown field makes it exit 1 naming the field, and the
    rendered directory is not created."""
    from oke_rdma.fleet import write

    real = write.render

    def broken(fleet, stacks):
        rendered = real(fleet, stacks)
        path = "waves/02-main/gpu-ash-a.yaml"
        rendered.files[path] = rendered.files[path].replace("  refresh: true", "  refresh: true\n  refesh: true", 1)
        return rendered
    monkeypatch.setattr(write, "render", broken)
    path = fleet_copy(tmp_path)
    assert write.render_command(path) == 1
    err = capsys.readouterr().err
    assert "waves/02-main/gpu-ash-a.yaml: Stack/gpu-ash-a: spec.refesh: unknown field" in err
    assert not (tmp_path / "rendered").exists()
