"""The MPI Operator as a release-manifest add-on: the vendored manifest is pinned by checksum, applied as a ConfigGroup
whose objects the pack sees, in its own namespace (ours, not the manifest's) at Pod Security baseline, one controller
per tenant namespace with namespaced RBAC; off by default, a version without a vendored manifest refused; Kueue
enables the MPIJob integration only while it is on."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from oke_rdma.addons import REGISTRY, ValuesContext
from oke_rdma.addons.kueue import integration_frameworks
from oke_rdma.addons.mpi_operator import (CLUSTER_RESOURCES, MANIFEST_DIR, MANIFESTS, SCOPE_LABEL, ManifestError,
                                          MpiOperatorRelease, objects, upstream_objects)
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.platform import TenantNamespace
from policies.security.rbac import problems_of
from tests.addons.test_registry import RELEASE, _plan
from tests.stackcfg import dev_raw_config, of_type

CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"
ROOT = Path(__file__).resolve().parents[2]
TENANTS = {"research": TenantNamespace("research", rdma=True, gpu_quota=16),
           "analytics": TenantNamespace("analytics", gpu_quota=0)}


def _platform(**sections):
    model = type(load_stack_config(dev_raw_config()).platform)
    return model.model_validate(sections)


def _kueue_frameworks(run) -> list[str]:
    kueue = next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == "kueue")
    config = yaml.safe_load(kueue.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
    return config["integrations"]["frameworks"]


@pytest.mark.parametrize("version", sorted(MANIFESTS))
def test_each_vendored_manifest_is_the_pinned_file_with_its_source_header(version):
    vendored = MANIFESTS[version]
    data = vendored.path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == vendored.sha256
    header = data.decode().splitlines()[:4]
    assert vendored.url in header[1] and vendored.tag in header[2] and vendored.commit in header[2]
    # a tag's file, or (v0.8.2: no tag object in the snapshot read) the commit's permalink
    assert vendored.tag == f"v{version}" and (f"/blob/{vendored.tag}/" in vendored.url
                                              or f"/blob/{vendored.commit}/" in vendored.url)


def test_every_file_in_the_manifest_folder_is_pinned():
    assert sorted(p.name for p in MANIFEST_DIR.glob("*.yaml")) == sorted(m.file for m in MANIFESTS.values())


def test_an_edited_manifest_is_refused(tmp_path, monkeypatch):
    from oke_rdma.addons import mpi_operator

    edited = tmp_path / MANIFESTS["0.8.0"].file
    edited.write_bytes(MANIFESTS["0.8.0"].path.read_bytes().replace(b"replicas: 1", b"replicas: 2"))
    monkeypatch.setattr(mpi_operator, "MANIFEST_DIR", tmp_path)
    mpi_operator._parsed.cache_clear()
    try:
        with pytest.raises(ManifestError, match="sha256 .* is not the pinned"):
            upstream_objects("0.8.0")
    finally:
        monkeypatch.undo()
        mpi_operator._parsed.cache_clear()


def test_off_by_default_and_the_dev_stack_has_no_mpi_operator():
    cfg = load_stack_config(dev_raw_config())
    assert cfg.platform.mpi_operator.enabled is False
    run, component = _plan(REGISTRY, _platform(), TENANTS)
    assert not of_type(run.resources, CONFIG_GROUP) and "mpi-operator" not in component.namespaces
    assert "kubeflow.org/mpijob" not in _kueue_frameworks(run)


def test_the_prod_stack_turns_it_on():
    from offline.stackfile import read_stack_file

    raw, _ = read_stack_file(ROOT / "Pulumi.prod.yaml")
    assert load_stack_config(raw).platform.mpi_operator.enabled is True


@pytest.mark.parametrize("version", ["0.7.0", "1.0.0"])
def test_a_version_without_a_vendored_manifest_is_refused_in_one_line(version):
    raw = dev_raw_config(platform={"mpiOperator": {"enabled": True, "version": version}})
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    lines = [p for p in err.value.problems if "mpiOperator" in p and "Kueue" not in p]  # 0.7.0: Kueue too
    assert lines == [f"oke-rdma:platform.mpiOperator.version: no MPI Operator manifest of version {version!r} is "
                     f"vendored (have 0.8.0, 0.8.2); use one of those, or vendor deploy/v2beta1/mpi-operator.yaml of that tag "
                     f"into oke_rdma/addons/manifests/ and pin its sha256 in MANIFESTS"]


def test_enabled_it_is_a_config_group_in_its_own_baseline_namespace_without_the_manifest_namespace():
    """Two groups: the operator's own objects (CRD, cluster roles, accounts) waiting for its namespace, and the
    per-tenant ones (each tenant's controller and its Role there) waiting for the tenant namespaces, under the same
    resource prefix."""
    run, component = _plan(REGISTRY, _platform(mpiOperator={"enabled": True}), TENANTS)
    groups = {g.name: g for g in of_type(run.resources, CONFIG_GROUP)}
    assert set(groups) == {"t-mpi-operator", "t-mpi-operator-tenants"}
    group, per_tenant = groups["t-mpi-operator"], groups["t-mpi-operator-tenants"]
    ns = component.namespaces["mpi-operator"]
    assert component.pod_security["mpi-operator"] == "baseline"
    children = [r for r in run.resources if r.parent in (group.urn, per_tenant.urn)]
    assert {c.inputs["kind"] for c in children} >= {"CustomResourceDefinition", "Deployment", "Role", "RoleBinding"}
    assert {c.inputs["kind"] for c in children if c.parent == group.urn} >= {"CustomResourceDefinition",
                                                                              "ClusterRole", "ServiceAccount"}
    # The manifest's own Namespace (no Pod Security labels) is not applied: ours is, and the group waits for it.
    assert not [c for c in children if c.inputs["kind"] == "Namespace"]
    assert not [r for r in run.resources if r.type.endswith(":Namespace") and r.parent == group.urn]
    nss = {r.inputs["metadata"]["name"]: r.urn for r in run.resources if r.type == "kubernetes:core/v1:Namespace"}
    assert nss["mpi-operator"] in group.dependencies
    assert {nss["research"], nss["analytics"], group.urn} <= set(per_tenant.dependencies)
    assert ns is not None
    # Every namespaced object is in the operator's namespace or a tenant's; nothing lands in "default".
    placed = {c.inputs["metadata"].get("namespace") for c in children} - {None}
    assert placed <= {"mpi-operator", "research", "analytics"}
    assert component.manifests.keys() == {"mpiOperator"}
    assert component.manifest_tenant_parts.keys() == {"mpiOperator"}


def test_one_controller_per_tenant_namespace_scoped_by_its_flags():
    objs = objects(MpiOperatorRelease(enabled=True, namespace="mpi"),
                   ValuesContext(tenant_namespaces=("analytics", "research")))
    deployments = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Deployment"}
    assert set(deployments) == {"mpi-operator-analytics", "mpi-operator-research"}
    for tenant in ("analytics", "research"):
        d = deployments[f"mpi-operator-{tenant}"]
        assert d["metadata"]["namespace"] == "mpi"
        (c,) = d["spec"]["template"]["spec"]["containers"]
        assert f"--namespace={tenant}" in c["args"] and f"--lock-namespace={tenant}" in c["args"]
        assert not [a for a in c["args"] if a.startswith("--lock-namespace=") and a != f"--lock-namespace={tenant}"]
        assert d["spec"]["selector"]["matchLabels"][SCOPE_LABEL] == tenant
        assert d["spec"]["template"]["metadata"]["labels"][SCOPE_LABEL] == tenant
        assert d["spec"]["template"]["spec"]["serviceAccountName"] == f"mpi-operator-{tenant}"
        (binding,) = [o for o in objs if o["kind"] == "RoleBinding" and o["metadata"]["namespace"] == tenant]
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": f"mpi-operator-{tenant}",
                                        "namespace": "mpi"}]
    # The chosen namespace replaces the manifest's everywhere: no object or subject names "mpi-operator" as namespace.
    text = yaml.safe_dump(objs)
    assert "namespace: mpi-operator" not in text and "lock-namespace=mpi-operator" not in text


def test_no_rbac_object_reads_secrets_cluster_wide_and_the_pack_agrees():
    objs = objects(MpiOperatorRelease(enabled=True), ValuesContext(tenant_namespaces=("research",)))
    for o in objs:
        if o["kind"] in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"):
            assert list(problems_of(f"kubernetes:rbac.authorization.k8s.io/v1:{o['kind']}", o)) == [], o["metadata"]
    (cluster_role,) = [o for o in objs if o["kind"] == "ClusterRole" and o["metadata"]["name"] == "mpi-operator"]
    granted = {(g, r) for rule in cluster_role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert granted <= CLUSTER_RESOURCES
    (role,) = [o for o in objs if o["kind"] == "Role"]
    assert any("secrets" in rule["resources"] for rule in role["rules"])  # what the controller needs, in one namespace


def test_the_upstream_cluster_wide_role_is_what_the_pack_refuses():
    """Applied as released, the controller's ClusterRole reads every Secret in the cluster and creates CRDs: why it
    is scoped; the ClusterRole applied here keeps only its cluster-scoped reads and passes the RBAC rule."""
    from tests.policies.test_policies import res
    from tests.policies.test_rbac_stack import found
    (role,) = [o for o in upstream_objects("0.8.0") if o["kind"] == "ClusterRole" and o["metadata"]["name"] ==
               "mpi-operator"]
    got = found(res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "upstream", role))
    assert len(got) == 1 and "Secret reads" in got[0] and "customresourcedefinitions" in got[0], got
    (applied,) = [o for o in objects(MpiOperatorRelease(enabled=True), ValuesContext(tenant_namespaces=("research",)))
                  if o["kind"] == "ClusterRole" and o["metadata"]["name"] == "mpi-operator"]
    assert not any("customresourcedefinitions" in r["resources"] for r in applied["rules"])
    assert found(res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "applied", applied)) == []


def test_the_user_roles_aggregate_into_the_built_in_roles_not_kubeflows():
    """Tenant users holding edit/admin (view) in their namespace get MPIJob write (read) through the built-in
    roles' aggregation labels; Kubeflow Platform's labels and the unbound kubeflow-mpijobs-admin are not applied."""
    roles = {o["metadata"]["name"]: o["metadata"]["labels"] for o in
             objects(MpiOperatorRelease(enabled=True), ValuesContext()) if o["kind"] == "ClusterRole"}
    assert "kubeflow-mpijobs-admin" not in roles
    assert {k for k in roles["kubeflow-mpijobs-edit"] if k.startswith("rbac.")} == {
        "rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-admin"}
    assert {k for k in roles["kubeflow-mpijobs-view"] if k.startswith("rbac.")} == {
        "rbac.authorization.k8s.io/aggregate-to-view"}


def test_without_tenants_only_the_crd_and_cluster_roles_are_applied():
    objs = objects(MpiOperatorRelease(enabled=True), ValuesContext())
    assert {o["kind"] for o in objs} == {"CustomResourceDefinition", "ClusterRole"}


def test_an_unknown_object_or_rule_in_the_manifest_is_refused(monkeypatch):
    from oke_rdma.addons import mpi_operator

    extra = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "surprise", "namespace": "mpi-operator"}}
    base = upstream_objects("0.8.0")
    monkeypatch.setattr(mpi_operator, "upstream_objects", lambda v: [*base, extra])
    with pytest.raises(ManifestError, match="ConfigMap surprise"):
        objects(MpiOperatorRelease(enabled=True), ValuesContext(tenant_namespaces=("research",)))
    widened = [dict(o, rules=[*o["rules"], {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}])
               if o["kind"] == "ClusterRole" and o["metadata"]["name"] == "mpi-operator" else o for o in base]
    monkeypatch.setattr(mpi_operator, "upstream_objects", lambda v: widened)
    with pytest.raises(ManifestError, match="'nodes'"):
        objects(MpiOperatorRelease(enabled=True), ValuesContext(tenant_namespaces=("research",)))


def test_kueue_waits_for_the_operator_and_enables_mpijob_only_while_it_is_on():
    run, _ = _plan(REGISTRY, _platform(mpiOperator={"enabled": True}), TENANTS)
    (group,) = [g for g in of_type(run.resources, CONFIG_GROUP) if not g.name.endswith("-tenants")]
    kueue = next(r for r in of_type(run.resources, RELEASE) if r.inputs["name"] == "kueue")
    assert group.urn in kueue.dependencies
    assert "kubeflow.org/mpijob" in _kueue_frameworks(run)
    off, _ = _plan(REGISTRY, _platform(), TENANTS)
    assert "kubeflow.org/mpijob" not in _kueue_frameworks(off)
    assert "batch/job" in _kueue_frameworks(off)  # a kind no add-on installs keeps the chart's choice


@pytest.mark.parametrize("key", [a.key for a in REGISTRY if a.kueue_frameworks])
def test_each_operators_kueue_integrations_follow_its_enabled_flag(key):
    """The class: every add-on naming Kueue integrations gets them enabled when on, removed when off (unless another
    enabled add-on names the same one)."""
    frameworks = {a.key: a.kueue_frameworks for a in REGISTRY}
    defaults = ["batch/job", "kubeflow.org/mpijob", "ray.io/rayjob", "jobset.x-k8s.io/jobset",
                "trainer.kubeflow.org/trainjob", "kubeflow.org/pytorchjob", "pod"]
    on = integration_frameworks(defaults, ValuesContext(enabled=frozenset({key}), kueue_frameworks=frameworks))
    off = integration_frameworks(defaults, ValuesContext(enabled=frozenset(), kueue_frameworks=frameworks))
    assert set(REGISTRY[key].kueue_frameworks) <= set(on)
    assert not set(REGISTRY[key].kueue_frameworks) & set(off)
    assert {"batch/job", "kubeflow.org/pytorchjob", "pod"} <= set(off)


def test_no_two_addons_install_crds_of_the_same_api_group():
    """Two controllers for one kind (the MPI Operator's and the old Training Operator's kubeflow.org MPIJob) cannot be
    planned: every API group is installed by one add-on at most."""
    groups = [g for a in REGISTRY for g in a.crds]
    assert len(groups) == len(set(groups))


def test_the_prod_plan_has_the_operator_and_kueue_admits_mpijobs_not_trainjobs():
    """Prod runs the MPI Operator beside Kueue, which admits MPIJobs; Trainer is off there (no released Kueue builds
    against Trainer 2.3), so Kueue's TrainJob integration is dropped with it."""
    from offline.engine import run_program
    from offline.stackfile import read_stack_file

    raw, secrets = read_stack_file(ROOT / "Pulumi.prod.yaml")
    run = run_program(raw, secrets, "prod")
    (group,) = [g for g in of_type(run.resources, CONFIG_GROUP) if g.name.endswith("-mpi-operator-tenants")]
    cfg = load_stack_config(raw)
    tenant_namespaces = {cfg.tenant_namespace(t) for t in cfg.tenants}
    deployments = [r for r in run.resources if r.parent == group.urn and r.inputs["kind"] == "Deployment"]
    assert {d.inputs["metadata"]["name"] for d in deployments} == {f"mpi-operator-{ns}" for ns in tenant_namespaces}
    frameworks = set(_kueue_frameworks(run))
    assert "kubeflow.org/mpijob" in frameworks and "trainer.kubeflow.org/trainjob" not in frameworks


def _manifest_addon(**kw):
    from oke_rdma.addons import AddOn

    args = dict(key="thing", release_name="thing", chart="", repository=None, config=MpiOperatorRelease,
                pod_security="baseline", values=lambda c, ctx: {}, manifest=lambda c, ctx: [])
    args.update(kw)
    return AddOn(**args)


@pytest.mark.parametrize("kw, message", [
    (dict(chart="thing"), "a manifest add-on takes no chart, repository, value shapes or prepare hook"),
    (dict(repository="https://charts.example.com"), "a manifest add-on takes no chart"),
    (dict(value_shapes=((("a",), "map"),)), "a manifest add-on takes no chart"),
    (dict(config=type(REGISTRY["jobset"].defaults)), "a manifest add-on's config must be a ManifestRelease subclass"),
    (dict(kueue_frameworks=("",)), "kueue_frameworks [''] are not Kueue framework names"),
])
def test_a_malformed_manifest_addon_is_refused(kw, message):
    with pytest.raises(ValueError) as e:
        _manifest_addon(**kw)
    assert message in str(e.value) and "add-on 'thing'" in str(e.value)


def test_a_well_formed_manifest_addon_has_no_helm_values():
    addon = _manifest_addon()
    assert addon.is_manifest and addon.helm_values(addon.defaults, ValuesContext()) == {}


@pytest.mark.parametrize("version", ["latest", "0.8", ">=0.8.0", "0.8.0-rc.1"])
def test_a_version_that_is_not_exact_is_refused_by_the_model(version):
    raw = dev_raw_config(platform={"mpiOperator": {"enabled": True, "version": version}})
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert any(p.startswith("oke-rdma:platform.mpiOperator.version: ") for p in err.value.problems)


def test_values_are_not_a_setting_of_a_manifest_addon():
    """A Helm-style ``values`` section would be silently ignored: the model refuses it (unknown key)."""
    raw = dev_raw_config(platform={"mpiOperator": {"enabled": True, "values": {"replicas": 2}}})
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert any(p.startswith("oke-rdma:platform.mpiOperator.values") for p in err.value.problems)


def test_the_controller_image_names_its_registry_host():
    """The manifest's ``mpioperator/mpi-operator:<tag>`` (Docker Hub implied) is applied as the same image with
    ``docker.io`` written out, which the security pack's container-image-pinned requires."""
    from oke_rdma.addons.mpi_operator import docker_hub_explicit
    objs = objects(MpiOperatorRelease(enabled=True, namespace="mpi"), ValuesContext(tenant_namespaces=("research",)))
    [d] = [o for o in objs if o["kind"] == "Deployment"]
    (c,) = d["spec"]["template"]["spec"]["containers"]
    assert c["image"] == f"docker.io/mpioperator/mpi-operator:{MpiOperatorRelease().version}"
    assert docker_hub_explicit("busybox") == "docker.io/library/busybox"
    assert docker_hub_explicit("ghcr.io/x/y:1") == "ghcr.io/x/y:1" and docker_hub_explicit("localhost/y") == "localhost/y"
