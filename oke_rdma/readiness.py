"""Readiness gates: a custom resource is created only once the API serving it really answers.

Why a gate. A Helm release (``pulumi_kubernetes.helm.v3.Release``) is done when Helm's install returns; the
controller's Deployment may be Ready while its admission webhook does not answer yet (Kueue's built-in certificate
rotation starts the webhook server after the Pod reports ready), and a CRD created from a chart's templates may not
be ``Established`` yet. pulumi-kubernetes retries a create only on "not found" and "no matches for kind"
(``provider/pkg/await/await.go`` ``Creation``: ``retrier.Do(apierrors.IsNotFound, meta.IsNoMatchError)``, 5 retries
with backoff factor 2, pulumi-kubernetes 4.32, checked 2026-11-30); a webhook error such as ``failed calling webhook
... 502`` is neither, so ``pulumi up`` stops at the first custom resource.

The gate. One ``batch/v1`` Job per release whose custom resources the program creates, in the release's namespace:
its only container runs ``kubectl create --dry-run=server`` of one throw-away object of every kind the program
creates through that release. A server-side dry run goes through discovery (the CRD must be established and its
version served) and through every mutating and validating admission webhook, and persists nothing (Kubernetes docs
"Dry-run": admission controllers run, nothing is stored). While the API does not answer, the container exits
non-zero and the Job starts another Pod after its back-off (10 s doubling up to 6 min, ``backoffLimit`` tries:
Kubernetes docs "Jobs", "Pod backoff failure policy"), so the probe needs no shell loop and runs on the
distroless ``registry.k8s.io/kubectl`` image (published for every Kubernetes release from 1.28:
kubernetes/kubernetes#116672, kubernetes/sig-release#2260). pulumi-kubernetes awaits a Job until its ``Complete``
condition, failing on ``Failed`` or after the timeout (``provider/pkg/await/job.go``, default 10 minutes; the gate
sets ``customTimeouts.create`` to cover its whole back-off), and every custom resource ``depends_on`` the gate Job,
so none is sent before the probe succeeded. The gate itself ``depends_on`` the release.

The probe's RBAC is exactly ``create`` on the probed resources: a ClusterRole bound cluster-wide for cluster-scoped
kinds and through a RoleBinding in the gate's namespace for namespaced ones (a dry-run create needs the ``create``
verb). The Pod runs as a non-root UID with a read-only root filesystem, no capabilities and RuntimeDefault seccomp
(the release namespaces are ``restricted``); ``HOME`` is an ``emptyDir`` for kubectl's discovery cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import yaml

#: Probe Pods back off 10 s, 20 s, 40 s, ... capped at 6 min (Kubernetes docs "Jobs"); 12 tries ≈ 35 min.
BACKOFF_LIMIT = 12
#: The Job's own deadline (s) and how long ``pulumi up`` waits for it: both cover the back-off above.
DEADLINE_SECONDS = 45 * 60
AWAIT_TIMEOUT = "50m"
KUBECTL_IMAGE = "registry.k8s.io/kubectl"
PROBE_UID = 65532


@dataclass(frozen=True)
class Probe:
    """One kind the program creates through a release, and a minimal valid object of it for the dry run.

    :param api_version: ``group/version`` (``kueue.x-k8s.io/v1beta2``).
    :param kind: / :param plural: the kind and its resource name (for RBAC).
    :param namespaced: True for a namespaced kind (probed in the gate's namespace).
    :param spec: the object's ``spec`` (must pass the webhook's validation).
    """

    api_version: str
    kind: str
    plural: str
    namespaced: bool
    spec: dict[str, Any] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return self.api_version.split("/")[0]


def probe_manifest(probes: Sequence[Probe], name: str, namespace: str) -> str:
    """The multi-document YAML ``kubectl create --dry-run=server -f`` reads: one object per probe with
    ``generateName: <name>-`` (the server picks a fresh name, so an existing object can never make the dry run fail
    with AlreadyExists)."""
    docs = []
    for p in probes:
        metadata: dict[str, Any] = {"generateName": f"{name}-"}
        if p.namespaced:
            metadata["namespace"] = namespace
        docs.append({"apiVersion": p.api_version, "kind": p.kind, "metadata": metadata, "spec": p.spec})
    return yaml.safe_dump_all(docs, sort_keys=True)


class ApiGateArgs:
    """Inputs of :class:`ApiGate`.

    :param release: the Helm release installing the CRDs and webhooks; the gate waits for it.
    :param namespace: the release's ``Namespace`` resource (the Job runs there).
    :param probes: the kinds the program creates through the release (:class:`Probe`).
    :param provider: the explicit Kubernetes provider of the cluster.
    :param kubectl_version: the tag of ``registry.k8s.io/kubectl`` (the cluster's Kubernetes version, ``v1.34.1``).
    :param prefix: the stack's name prefix (labels, and the probe objects' name ``<prefix>-readiness-probe``).
    """

    def __init__(self, release: pulumi.Resource, namespace: k8s.core.v1.Namespace, probes: Sequence[Probe],
                 provider: pulumi.ProviderResource, kubectl_version: str, prefix: str):
        self.release = release
        self.namespace = namespace
        self.probes = list(probes)
        self.provider = provider
        self.kubectl_version = kubectl_version
        self.prefix = prefix


class ApiGate(pulumi.ComponentResource):
    """A Job that completes once every probed kind can be created through its API server and webhooks
    (type ``oke-rdma:readiness:ApiGate``). See the module docstring for why and how.

    Attributes: ``job`` (the ``batch/v1`` Job every custom resource must ``depends_on``), ``probes``,
    ``manifest`` (the probe YAML, with ``__NAMESPACE__`` for the release namespace), ``service_account``,
    ``cluster_roles`` (``cluster``/``namespace`` →
    ``ClusterRole``, the ones the probes need).
    Raises nothing.
    """

    def __init__(self, name: str, args: ApiGateArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:readiness:ApiGate", name, None, opts)
        self.probes = args.probes
        prefix = args.prefix
        ns = args.namespace.metadata.name
        labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": prefix,
                  "app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/component": "readiness-gate"}
        opts_ = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[args.namespace])
        object_name = f"{prefix}-readiness-probe"

        self.service_account = k8s.core.v1.ServiceAccount(f"{name}-sa", k8s.core.v1.ServiceAccountInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=ns, labels=labels)), opts_)
        subject = k8s.rbac.v1.SubjectArgs(kind="ServiceAccount", name=self.service_account.metadata.name,
                                          namespace=ns)

        def create_rules(namespaced: bool) -> list[k8s.rbac.v1.PolicyRuleArgs]:
            chosen = [p for p in self.probes if p.namespaced == namespaced]
            return [k8s.rbac.v1.PolicyRuleArgs(api_groups=[g], resources=sorted({p.plural for p in chosen
                                                                                  if p.group == g}),
                                               verbs=["create"]) for g in sorted({p.group for p in chosen})]

        # Cluster-scoped kinds: a ClusterRole bound cluster-wide. Namespaced kinds: a ClusterRole bound only in the
        # gate's namespace by a RoleBinding. Either is created only when a probe needs it.
        self.cluster_roles: dict[str, k8s.rbac.v1.ClusterRole] = {}
        bindings: list[pulumi.Resource] = []
        for scope, namespaced in (("cluster", False), ("namespace", True)):
            rules = create_rules(namespaced)
            if not rules:
                continue
            role = self.cluster_roles[scope] = k8s.rbac.v1.ClusterRole(f"{name}-{scope}-role",
                k8s.rbac.v1.ClusterRoleInitArgs(metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=f"{name}-{scope}", labels=labels), rules=rules), opts_)
            role_ref = k8s.rbac.v1.RoleRefArgs(api_group="rbac.authorization.k8s.io", kind="ClusterRole",
                                               name=role.metadata.name)
            if namespaced:
                bindings.append(k8s.rbac.v1.RoleBinding(f"{name}-binding", k8s.rbac.v1.RoleBindingInitArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=ns, labels=labels),
                    role_ref=role_ref, subjects=[subject]), opts_))
            else:
                bindings.append(k8s.rbac.v1.ClusterRoleBinding(f"{name}-cluster-binding",
                    k8s.rbac.v1.ClusterRoleBindingInitArgs(
                        metadata=k8s.meta.v1.ObjectMetaArgs(name=f"{name}-cluster", labels=labels),
                        role_ref=role_ref, subjects=[subject]), opts_))

        self.manifest = probe_manifest(self.probes, object_name, "__NAMESPACE__")
        manifest = ns.apply(lambda n: probe_manifest(self.probes, object_name, n))
        probe_cm = k8s.core.v1.ConfigMap(f"{name}-probe", k8s.core.v1.ConfigMapInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(name=f"{name}-probe", namespace=ns, labels=labels),
            data={"probe.yaml": manifest}), opts_)

        container = k8s.core.v1.ContainerArgs(
            name="probe", image=f"{KUBECTL_IMAGE}:{args.kubectl_version}",
            args=["create", "--dry-run=server", "-o", "name", "-f", "/probe/probe.yaml"],
            env=[k8s.core.v1.EnvVarArgs(name="HOME", value="/home/probe")],
            resources=k8s.core.v1.ResourceRequirementsArgs(requests={"cpu": "10m", "memory": "32Mi"},
                                                           limits={"cpu": "200m", "memory": "128Mi"}),
            security_context=k8s.core.v1.SecurityContextArgs(
                allow_privilege_escalation=False, read_only_root_filesystem=True, run_as_non_root=True,
                run_as_user=PROBE_UID, run_as_group=PROBE_UID,
                capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"])),
            volume_mounts=[k8s.core.v1.VolumeMountArgs(name="probe", mount_path="/probe", read_only=True),
                           k8s.core.v1.VolumeMountArgs(name="home", mount_path="/home/probe")])
        self.job = k8s.batch.v1.Job(f"{name}-job", k8s.batch.v1.JobInitArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=ns, labels=labels),
            spec=k8s.batch.v1.JobSpecArgs(
                backoff_limit=BACKOFF_LIMIT, active_deadline_seconds=DEADLINE_SECONDS,
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(labels=labels),
                    spec=k8s.core.v1.PodSpecArgs(
                        restart_policy="Never", service_account_name=self.service_account.metadata.name,
                        security_context=k8s.core.v1.PodSecurityContextArgs(
                            run_as_non_root=True,
                            seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault")),
                        containers=[container],
                        volumes=[k8s.core.v1.VolumeArgs(name="probe", config_map=k8s.core.v1.ConfigMapVolumeSourceArgs(
                                     name=probe_cm.metadata.name)),
                                 k8s.core.v1.VolumeArgs(name="home", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(
                                     size_limit="64Mi"))])))),
            # pulumi-kubernetes replaces a Job whose spec.template changes (provider/pkg/provider/diff.go: a Job's
            # .spec.template is force-new); declared here too so a preview names it as a replacement.
            pulumi.ResourceOptions(parent=self, provider=args.provider,
                                   depends_on=[args.release, args.namespace, probe_cm, *bindings],
                                   replace_on_changes=["spec.template"],
                                   custom_timeouts=pulumi.CustomTimeouts(create=AWAIT_TIMEOUT,
                                                                         update=AWAIT_TIMEOUT)))
        self.register_outputs({"job": self.job.metadata.name})
