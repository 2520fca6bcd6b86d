"""The Platform component under mocks: pinned releases, dependency edges, explicit provider, PSA labels."""

from __future__ import annotations

import pulumi_kubernetes as k8s

from oke_rdma.adapter import platform_args, tenant_namespaces
from oke_rdma.platform import Platform, namespace_levels
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one, pinned_knowingly
from offline.engine import run_program

NS = "kubernetes:core/v1:Namespace"
RELEASE = "kubernetes:helm.sh/v3:Release"
PROVIDER = "pulumi:providers:kubernetes"
PSA_KEYS = ("pod-security.kubernetes.io/enforce", "pod-security.kubernetes.io/audit",
            "pod-security.kubernetes.io/warn")
DEV_LEVELS = {"cilium": "privileged", "monitoring": "privileged", "gpu-operator": "privileged",
              "kueue-system": "restricted",
              "keda": "restricted", "research": "privileged", "analytics": "restricted"}
PINNED = {  # Helm release name → (chart, repo, version) in the dev stack
    "cilium": ("cilium", "https://helm.cilium.io", "1.20.0"),
    "kube-prometheus-stack": ("kube-prometheus-stack", "https://prometheus-community.github.io/helm-charts",
                              "88.5.3"),
    "gpu-operator": ("gpu-operator", "https://helm.ngc.nvidia.com/nvidia", "v26.7.0"),
    "kueue": ("oci://registry.k8s.io/kueue/charts/kueue", None, "0.19.7"),
    "keda": ("keda", "https://kedacore.github.io/charts", "2.20.2"),
}


def _run(unknowns: bool = False, **overrides):
    raw = dev_raw_config(**overrides)
    cfg = load_dev_config(**overrides)
    built: dict[str, Platform] = {}

    def program():
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\nclusters: []\n")
        built["p"] = Platform("platform", platform_args(cfg, provider))

    run = run_program(raw, [], "dev", unknowns=unknowns, program=program)
    return run, built["p"]


def _releases(run) -> dict:
    return {r.inputs["name"]: r for r in of_type(run.resources, RELEASE)}


def _namespaces(run) -> dict:
    return {r.inputs["metadata"]["name"]: r for r in of_type(run.resources, NS)}


def test_releases_pinned_to_config_versions():
    run, platform = _run()
    releases = _releases(run)
    assert set(releases) == set(PINNED)
    for name, (chart, repo, version) in PINNED.items():
        r = releases[name]
        assert r.name == f"okerdma-dev-{name}"
        assert r.inputs["chart"] == chart
        assert r.inputs["version"] == version
        assert r.inputs.get("repositoryOpts") == ({"repo": repo} if repo else None)
        assert r.inputs["createNamespace"] is False
    assert set(platform.releases) == {"cilium", "kubePrometheusStack", "gpuOperator", "kueue", "keda"}


def test_versions_follow_config():
    run, _ = _run(platform={"keda": {"version": "2.20.1"}, "kueue": pinned_knowingly("kueue", "0.17.0")})
    releases = _releases(run)
    assert releases["keda"].inputs["version"] == "2.20.1"
    assert releases["kueue"].inputs["version"] == "0.17.0"


def test_release_values():
    run, _ = _run()
    releases = _releases(run)
    kps = releases["kube-prometheus-stack"].inputs["values"]
    spec = kps["prometheus"]["prometheusSpec"]
    assert {k: v for k, v in spec.items() if k.endswith("NilUsesHelmValues")} == {
        "serviceMonitorSelectorNilUsesHelmValues": False, "podMonitorSelectorNilUsesHelmValues": False,
        "ruleSelectorNilUsesHelmValues": False, "probeSelectorNilUsesHelmValues": False}
    assert spec["retention"] == "15d" and spec["retentionSize"] == "80GB"
    assert spec["storageSpec"] == {"volumeClaimTemplate": {"spec": {
        "storageClassName": "oke-rdma-bv", "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "100Gi"}}}}}
    grafana = dict(kps["grafana"])
    ini = grafana.pop("grafana.ini")
    # the dashboards sidecar reads the release's namespace only (the chart's default searches ALL)
    assert grafana.pop("sidecar") == {"dashboards": {"searchNamespace": "monitoring"}}
    assert grafana == {"adminPassword": ""}  # no password given: Grafana generates one, never the default
    # Nothing Grafana shows leaves by default (external snapshots, public dashboards, usage reports off).
    assert ini["snapshots"]["external_enabled"] is False and ini["public_dashboards"]["enabled"] is False
    assert ini["analytics"]["reporting_enabled"] is False and ini["security"]["disable_gravatar"] is True
    assert releases["kueue"].inputs["values"]["enablePrometheus"] is True
    gpu = releases["gpu-operator"].inputs["values"]
    assert gpu["driver"] == {"enabled": False}
    assert gpu["cdi"] == {"enabled": True}
    assert gpu["devicePlugin"]["enabled"] is True
    assert gpu["dcgmExporter"]["serviceMonitor"] == {"enabled": True}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in gpu["daemonsets"]["tolerations"]


def test_dependency_edges():
    run, _ = _run()
    releases, namespaces = _releases(run), _namespaces(run)
    for name, ns in (("kube-prometheus-stack", "monitoring"), ("gpu-operator", "gpu-operator"),
                     ("kueue", "kueue-system"), ("keda", "keda")):
        assert namespaces[ns].urn in releases[name].dependencies, name
        assert releases[name].inputs["namespace"] == ns
    assert releases["kube-prometheus-stack"].urn in releases["gpu-operator"].dependencies
    assert releases["kube-prometheus-stack"].urn in releases["kueue"].dependencies  # its ServiceMonitor
    cilium = releases.pop("cilium")
    assert not any(r.urn in cilium.dependencies for r in releases.values())
    for name in ("kube-prometheus-stack", "keda"):  # Cilium only (pods started before it are not enforced)
        assert [d for d in releases[name].dependencies if d in {r.urn for r in releases.values()} | {cilium.urn}] \
            == [cilium.urn], name


def test_every_kubernetes_resource_uses_the_explicit_provider():
    run, _ = _run()
    provider = one(run.resources, PROVIDER, "k8s")
    k8s_resources = [r for r in run.resources if r.type.startswith("kubernetes:")]
    assert len(k8s_resources) == 15  # 7 namespaces + 2 tenant ResourceQuotas + 5 releases + the block-volume class
    for r in k8s_resources:
        assert r.provider is not None and r.provider.startswith(provider.urn + "::"), r.name
    component = one(run.resources, "oke-rdma:platform:Platform")
    assert {r.parent for r in k8s_resources} == {component.urn}


def test_pod_security_labels_per_namespace():
    run, platform = _run()
    namespaces = _namespaces(run)
    assert set(namespaces) == set(DEV_LEVELS)
    for name, level in DEV_LEVELS.items():
        labels = namespaces[name].inputs["metadata"]["labels"]
        assert {k: labels[k] for k in PSA_KEYS} == dict.fromkeys(PSA_KEYS, level), name
        assert namespaces[name].name == f"okerdma-dev-ns-{name}"
    assert platform.pod_security == DEV_LEVELS
    assert set(platform.namespaces) == set(DEV_LEVELS)
    assert platform.tenant_namespaces == {"research": "research", "analytics": "analytics"}


def test_tenant_namespace_override_and_rdma_level():
    cfg = load_dev_config(tenants={"research": {"namespace": "team-research", "rdma": False},
                                   "vision": {"rdma": True}})
    levels = namespace_levels(cfg.platform, tenant_namespaces(cfg))
    assert levels["team-research"] == "restricted"
    assert levels["vision"] == "privileged"
    assert "research" not in levels


def test_disabled_releases_are_skipped():
    run, platform = _run(platform={"keda": {"enabled": False}, "kubePrometheusStack": {"enabled": False},
                                   "cilium": {"enabled": False}})
    releases = _releases(run)
    assert set(releases) == {"gpu-operator", "kueue"}
    assert releases["kueue"].inputs["values"]["enablePrometheus"] is False
    assert releases["kueue"].dependencies == [_namespaces(run)["kueue-system"].urn]
    assert set(_namespaces(run)) == {"gpu-operator", "kueue-system", "research", "analytics"}
    # Without kube-prometheus-stack there is no ServiceMonitor CRD: no dependency, no ServiceMonitor.
    gpu = releases["gpu-operator"]
    assert gpu.inputs["values"]["dcgmExporter"]["serviceMonitor"] == {"enabled": False}
    assert gpu.dependencies == [_namespaces(run)["gpu-operator"].urn]
    assert set(platform.releases) == {"gpuOperator", "kueue"}


def test_first_preview_registers_everything():
    run, _ = _run(unknowns=True)
    assert set(_releases(run)) == set(PINNED)
    assert set(_namespaces(run)) == set(DEV_LEVELS)
    provider = one(run.resources, PROVIDER, "k8s")
    assert all(r.provider.startswith(provider.urn + "::") for r in run.resources if r.type.startswith("kubernetes:"))
    assert _releases(run)["kube-prometheus-stack"].urn in _releases(run)["gpu-operator"].dependencies


# --- values merged over ours, tenant quotas, the Grafana secret -----------------------------------------------------
def test_user_values_merge_over_ours():
    run, _ = _run(platform={"gpuOperator": {"values": {"dcgmExporter": {"enabled": True}, "cdi": {"default": True},
                                                       "daemonsets": {"tolerations": []}}},
                            "keda": {"values": {"resources": {"operator": {"limits": {"memory": "1Gi"}}}}}})
    releases = _releases(run)
    gpu = releases["gpu-operator"].inputs["values"]
    assert gpu["dcgmExporter"]["enabled"] is True and gpu["dcgmExporter"]["serviceMonitor"] == {"enabled": True}
    assert gpu["dcgmExporter"]["config"]["name"] == "okerdma-dcgm-metrics"  # maps merge: ours kept
    assert gpu["cdi"] == {"enabled": True, "default": True}
    assert gpu["daemonsets"] == {"tolerations": []}  # a list replaces ours
    assert gpu["driver"] == {"enabled": False}
    assert releases["keda"].inputs["values"] == {"resources": {"operator": {"limits": {"memory": "1Gi"}}}}


def test_tenant_namespaces_get_a_gpu_resource_quota():
    run, platform = _run()
    quotas = {r.inputs["metadata"]["namespace"]: r for r in of_type(run.resources, "kubernetes:core/v1:ResourceQuota")}
    assert {ns: q.inputs["spec"]["hard"] for ns, q in quotas.items()} == {
        "research": {"requests.nvidia.com/gpu": "16"}, "analytics": {"requests.nvidia.com/gpu": "8"}}
    namespaces = _namespaces(run)
    assert all(namespaces[ns].urn in q.dependencies for ns, q in quotas.items())
    run, _ = _run(tenants={"vision": {"rdma": True}})
    vision = next(r for r in of_type(run.resources, "kubernetes:core/v1:ResourceQuota")
                  if r.inputs["metadata"]["namespace"] == "vision")
    assert vision.inputs["spec"]["hard"] == {"requests.nvidia.com/gpu": "0"}  # no quota: no GPU


PASSWORD = "s3cret-Grafana-admin-pw"


def test_grafana_password_stays_secret_everywhere():
    from offline.preview import SECRET_SIG, mask, render, to_json
    from offline.policy_eval import evaluate_packs
    from policies import PACK_DIRS

    raw = dev_raw_config(platform={"kubePrometheusStack": {"grafanaAdminPassword": PASSWORD}})
    run = run_program(raw, ["oke-rdma:platform"], "dev")
    secret = one(run.resources, "kubernetes:core/v1:Secret", "okerdma-dev-grafana-admin")
    wrapped = secret.inputs["stringData"]
    assert wrapped[SECRET_SIG[0]] == SECRET_SIG[1] and wrapped["value"]["admin-password"] == PASSWORD
    kps = _releases(run)["kube-prometheus-stack"]
    assert kps.inputs["values"]["grafana"]["admin"] == {
        "existingSecret": "grafana-admin", "userKey": "admin-user", "passwordKey": "admin-password"}
    assert "adminPassword" not in kps.inputs["values"]["grafana"]
    assert secret.urn in kps.dependencies
    # The plaintext appears in no recorded input outside a secret wrapper, nor in the report or the JSON plan.
    assert all(PASSWORD not in str(mask(r.inputs)) and PASSWORD not in str(mask(r.outputs)) for r in run.resources)
    assert PASSWORD not in str(run.outputs)
    report = evaluate_packs(PACK_DIRS, run.resources)
    assert PASSWORD not in render("dev", run, report, False)
    assert PASSWORD not in str(to_json("dev", run, report))
    assert report.violations == []


def test_two_addons_sharing_a_namespace_get_one_namespace_at_the_laxer_level():
    """KEDA moved into kube-prometheus-stack's namespace: one Namespace, labelled privileged (the laxer of the two
    levels), and both releases wait for it."""
    run, platform = _run(platform={"keda": {"namespace": "monitoring"}})
    namespaces, releases = _namespaces(run), _releases(run)
    assert "keda" not in namespaces
    assert namespaces["monitoring"].inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    assert releases["keda"].inputs["namespace"] == "monitoring"
    assert namespaces["monitoring"].urn in releases["keda"].dependencies
    assert platform.pod_security["monitoring"] == "privileged"


def test_the_topology_labelers_namespace_comes_from_the_kueue_addon():
    """With the labeler enabled, Kueue's add-on asks for its privileged namespace; without Kueue it is not created."""
    run, platform = _run(platform={"kueue": {"topologyLabeler": {"enabled": True}}})
    assert platform.pod_security["oke-rdma-topology"] == "privileged"
    assert "oke-rdma-topology" in _namespaces(run)
    run, platform = _run(platform={"kueue": {"enabled": False, "topologyLabeler": {"enabled": True}}})
    assert "oke-rdma-topology" not in platform.pod_security


def test_tenant_namespaces_wait_for_every_addon_whose_objects_or_finalizers_they_hold():
    """pulumi destroy deletes dependents first: each tenant namespace depends on every enabled add-on with CRDs or
    finalizers (Kueue, KEDA, kube-prometheus-stack, the GPU Operator, Cilium), so it is emptied while their operators
    still remove Kueue's and KEDA's finalizers; the add-ons' own namespaces depend on no release."""
    run, platform = _run()
    releases, namespaces = _releases(run), _namespaces(run)
    assert set(platform.finalizing) == {"cilium", "keda", "kubePrometheusStack", "gpuOperator", "kueue"}
    for tenant_ns in ("research", "analytics"):
        assert {r.urn for r in releases.values()} <= set(namespaces[tenant_ns].dependencies), tenant_ns
    for own in ("cilium", "monitoring", "gpu-operator", "kueue-system", "keda"):
        assert not set(namespaces[own].dependencies) & {r.urn for r in releases.values()}, own
    # O(tenants x add-ons): one edge per tenant namespace and finalizing add-on, none between tenants.
    tenant_urns = {namespaces[n].urn for n in ("research", "analytics")}
    assert not any(set(namespaces[n].dependencies) & tenant_urns for n in ("research", "analytics"))


def test_an_addon_without_crds_or_finalizers_is_not_waited_for():
    """Only add-ons with CRDs or finalizers hold tenant objects: with KEDA off, the tenant namespaces do not name it,
    and still wait for Kueue."""
    run, platform = _run(platform={"keda": {"enabled": False}})
    releases, namespaces = _releases(run), _namespaces(run)
    assert "keda" not in platform.finalizing and "keda" not in releases
    assert releases["kueue"].urn in namespaces["research"].dependencies


def test_the_operators_that_finalize_tenant_objects_declare_it():
    """The class of operators whose finalizers sit on tenants' objects: each declares them, and every add-on that
    declares finalizers also has CRDs (its objects)."""
    from oke_rdma.addons import REGISTRY
    declared = {a.key: a.finalizers for a in REGISTRY if a.finalizers}
    assert "kueue.x-k8s.io/resource-in-use" in declared["kueue"]
    assert declared["keda"] == ("finalizer.keda.sh",)
    assert declared["kuberay"] == ("ray.io/rayjob-finalizer",)
    assert all(REGISTRY[k].crds for k in declared)


def test_a_manifest_addon_s_per_tenant_objects_come_after_the_tenant_namespaces():
    """MPI Operator (a release manifest) runs one controller per tenant namespace with a Role there: those objects
    form their own group after the tenant namespaces, under the same resource prefix (names unchanged); its CRD
    group does not wait for them, so Kueue (which waits for the MPIJob CRD) and then the tenant namespaces can be
    ordered without a cycle."""
    run, platform = _run(platform={"mpiOperator": {"enabled": True}})
    namespaces, releases = _namespaces(run), _releases(run)
    groups = {r.name: r for r in of_type(run.resources, "kubernetes:yaml/v2:ConfigGroup")}
    own, tenants = groups["okerdma-dev-mpi-operator"], groups["okerdma-dev-mpi-operator-tenants"]
    assert tenants.inputs["resourcePrefix"] == "okerdma-dev-mpi-operator"
    assert own.urn in releases["kueue"].dependencies and own.urn in namespaces["research"].dependencies
    assert not {namespaces[n].urn for n in ("research", "analytics")} & set(own.dependencies)
    assert {namespaces["research"].urn, namespaces["analytics"].urn, own.urn} <= set(tenants.dependencies)
    kinds = {(o["kind"], o["metadata"].get("namespace")) for o in tenants.inputs["objs"]}
    assert {("Role", "research"), ("RoleBinding", "analytics"), ("Deployment", "mpi-operator")} <= kinds
    assert not any(o["metadata"].get("namespace") in ("research", "analytics") or o["kind"] == "Deployment"
                   for o in own.inputs["objs"])


SC = "kubernetes:storage.k8s.io/v1:StorageClass"


def test_the_block_volume_class_attaches_paravirtualized_and_prometheus_waits_for_it():
    """The stack's block-volume StorageClass: the OCI Block Volume CSI driver, attachment-type paravirtualized (the
    only attachment the driver makes to a node with in-transit encryption), created in the pod's AD
    (WaitForFirstConsumer), expandable, the cluster's default class; kube-prometheus-stack, whose Prometheus claims
    it, waits for it, and a release that names no class does not."""
    run, platform = _run()
    sc = one(run.resources, SC)
    assert sc.inputs["metadata"]["name"] == "oke-rdma-bv"
    assert sc.inputs["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert sc.inputs["provisioner"] == "blockvolume.csi.oraclecloud.com"
    assert sc.inputs["parameters"] == {"attachment-type": "paravirtualized"}
    assert sc.inputs["volumeBindingMode"] == "WaitForFirstConsumer" and sc.inputs["reclaimPolicy"] == "Delete"
    assert sc.inputs["allowVolumeExpansion"] is True
    releases = _releases(run)
    assert sc.urn in releases["kube-prometheus-stack"].dependencies
    assert sc.urn not in releases["kueue"].dependencies


def test_no_block_volume_class_without_a_name():
    """PlatformArgs without block_volume_class (another registry's platform) creates none."""
    cfg = load_dev_config()
    built = {}

    def program():
        provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\nclusters: []\n")
        args = platform_args(cfg, provider)
        args.block_volume_class = None
        built["p"] = Platform("platform", args)

    run = run_program(dev_raw_config(), [], "dev", program=program)
    assert of_type(run.resources, SC) == [] and built["p"].block_volume_class is None
