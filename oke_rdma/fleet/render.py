"""The Kubernetes objects that run a fleet on the management cluster: the Pulumi Kubernetes Operator's ``Stack``
per stack, delivered wave by wave by Flux ``Kustomization`` objects (docs/fleet.md).

What is rendered (all in ``operator.namespace``):

* ``bootstrap/``: the Namespace (Pod Security ``restricted``); the workspace ServiceAccount (every workspace pod
  runs as it) bound to ``system:auth-delegator`` (PKO v2's agent authenticates the operator's calls with
  TokenReviews: PKO docs/migration.md "service account"); the ServiceAccount Flux impersonates to apply the
  waves, allowed only Stacks (and the release's OCIRepository) in this namespace; the Flux sources (the fleet
  repository; an ``OCIRepository`` per OCI release, pinned by digest); and one Flux ``Kustomization`` per wave.
* ``bootstrap/network.yaml`` (a release from OCI): the NetworkPolicy in Flux's namespace that lets the workspace
  pods of ``operator.namespace`` (PKO label ``auto.pulumi.com/component: workspace``) reach source-controller's
  ``http`` port (9090, behind its Service's port 80) to download the release's artifact. The flux2 chart's own
  NetworkPolicies (``policies.create``, on by default) admit ingress to Flux's pods only from Flux's namespace (and
  port 8080 from any), so with policy enforced (Cilium on the management cluster) the workspaces' ``fetch`` init
  container cannot download the program without it (PKO docs/troubleshooting.md "Fetching from Flux Source" and
  operator/config/flux/network_policy.yaml at v2.9.0; pulumi/pulumi-kubernetes-operator#839, #469; flux2 chart
  2.18.3 templates/policies.yaml and templates/source-controller.yaml; checked 2026-12-02).
* ``waves/<NN>-<wave>/``: one file per stack (its ``Stack`` and, with ``driftPreview``, its preview-only twin
  ``<name>-drift``), and a ``kustomization.yaml`` listing them. Landing zones are wave ``00-landing-zones``. A Stack
  that is not decommissioned carries ``kustomize.toolkit.fluxcd.io/prune: disabled``: removed from git without
  being decommissioned first, Flux leaves it in place (still managed) instead of deleting it.
* ``config/Pulumi.<name>.yaml``: every stack's resolved config (the management cluster's too), what the offline
  preview reads.
* ``secrets.txt``: the Kubernetes Secrets the Stacks reference (created out of band: never rendered).

A wave's Kustomization health-checks its own Stacks (``healthChecks`` with ``healthCheckExprs`` for
``pulumi.com/v1`` Stack: Ready True at the current generation; Stalled True fails it) and the next wave
``dependsOn`` it, so a wave starts only when every Stack of the previous one is Ready.

Sources (checked 2026-12-01): PKO v2.9.0 ``deploy/crds/pulumi.com_stacks.yaml`` and docs/stacks.md (``secretsRef``,
``envRefs``, ``workspaceTemplate``, ``prerequisites``, ``preview``, ``runProgram``), its CHANGELOG and issues
#1220/#1223, #1233, #1222, #1299/#1320 (why ``runProgram`` goes with ``destroyOnFinalize``, docs/fleet.md); Flux
v2.8.5 / kustomize-controller v1.8.3 docs/spec/v1/kustomizations.md ("Health check expressions", "Dependencies",
"Role-based access control": ``serviceAccountName`` impersonation); source-controller v1 OCIRepository
(``ref.digest``) and GitRepository.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from oke_rdma import yamlsafe
from oke_rdma.addons.flux import FluxRelease

from .load import Fleet
from .model import DRIFT_SUFFIX, Release
from .resolve import ResolvedStack, is_secure

STACK_API, SOURCE_API, KUSTOMIZE_API = "pulumi.com/v1", "source.toolkit.fluxcd.io/v1", "kustomize.toolkit.fluxcd.io/v1"
WORKSPACE_SA, APPLIER_SA, FLEET_SOURCE = "fleet-workspace", "fleet-applier", "fleet"
#: How Flux judges a Stack (PKO v2 sets Ready/Reconciling/Stalled conditions and status.observedGeneration).
STACK_HEALTH = {
    "apiVersion": STACK_API, "kind": "Stack",
    "inProgress": "has(status.conditions) && status.conditions.exists(c, c.type == 'Reconciling' && "
                  "c.status == 'True')",
    "failed": "has(status.conditions) && status.conditions.exists(c, c.type == 'Stalled' && c.status == 'True')",
    "current": "has(status.observedGeneration) && status.observedGeneration == metadata.generation && "
               "has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
}
#: The OCI credentials the program (pulumi-oci's OCI_* variables) and the kubeconfig's exec credential (the OCI CLI's
#: OCI_CLI_* variables) read, from keys of ``operator.ociCredentialsSecret``.
OCI_ENV = {"OCI_TENANCY_OCID": "tenancy", "OCI_USER_OCID": "user", "OCI_FINGERPRINT": "fingerprint",
           "OCI_PRIVATE_KEY": "privateKey", "OCI_CLI_TENANCY": "tenancy", "OCI_CLI_USER": "user",
           "OCI_CLI_FINGERPRINT": "fingerprint", "OCI_CLI_KEY_CONTENT": "privateKey"}
#: Flux keeps an object carrying this annotation with the value ``disabled`` when it leaves the source (kustomize-
#: controller v1.8.3 docs/spec/v1/kustomizations.md, "Prune").
PRUNE_ANNOTATION = "kustomize.toolkit.fluxcd.io/prune"
#: A Stack's update (a GPU cluster and its node pools) takes up to about an hour; Flux waits this long for a wave.
WAVE_TIMEOUT = "3h"
#: PKO v2 labels every workspace pod with this (operator/internal/controller/auto/common.go, v2.9.0).
WORKSPACE_POD_LABEL = ("auto.pulumi.com/component", "workspace")
#: source-controller's pod label and the name of its artifact-serving container port (9090; the Service's port 80
#: targets it): flux2 chart 2.18.3 templates/source-controller.yaml and source-controller-service.yaml.
SOURCE_CONTROLLER_LABEL, SOURCE_CONTROLLER_PORT = ("app", "source-controller"), "http"
ARTIFACT_POLICY = "allow-fleet-workspaces-fetch-artifacts"


def secret_key_name(config_key: str) -> str:
    """A config key as a Kubernetes Secret data key (``[-._a-zA-Z0-9]+``): ``oke-rdma:platform`` →
    ``oke-rdma.platform``."""
    return re.sub(r"[^-._a-zA-Z0-9]", ".", config_key)


def _meta(name: str, namespace: str, **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(sorted(labels.items()))
    return meta


def _source_name(release: Release) -> str:
    return f"release-{release.oci.digest.removeprefix('sha256:')[:12]}"


def _program(release: Release) -> dict[str, Any]:
    if release.git:
        return {"projectRepo": release.git.url, "commit": release.git.commit,
                **({"repoDir": release.git.dir} if release.git.dir not in ("", ".") else {})}
    return {"fluxSource": {"sourceRef": {"apiVersion": SOURCE_API, "kind": "OCIRepository",
                                         "name": _source_name(release)},
                           **({"dir": release.oci.dir} if release.oci.dir not in ("", ".") else {})}}


@dataclass
class Rendered:
    """The rendered files: relative path → text."""

    files: dict[str, str]

    def objects(self) -> list[dict[str, Any]]:
        """Every Kubernetes object in the rendered files (not the kustomization.yaml lists nor config files)."""
        found = []
        for path, text in sorted(self.files.items()):
            if path.endswith(".yaml") and not path.startswith("config/") and not path.endswith("kustomization.yaml"):
                found += [d for d in yamlsafe.load_all(text) if d]
        return found


def _dump(objects: list[dict[str, Any]]) -> str:
    return "---\n".join(yaml.safe_dump(o, sort_keys=False, width=120) for o in objects)


class _Renderer:
    def __init__(self, fleet: Fleet, stacks: list[ResolvedStack]):
        self.fleet, self.spec, self.stacks = fleet, fleet.spec, stacks
        self.ns = fleet.spec.operator.namespace
        #: The management stack (Flux runs there), when the fleet has one.
        self.management = next((s for s in stacks if s.kind == "management"), None)

    def waves(self) -> list[tuple[str, list[ResolvedStack]]]:
        """The operator's waves in order: ``landing-zones`` (if any), then the fleet's waves."""
        order = (["landing-zones"] if self.spec.landing_zones else []) + list(self.spec.waves)
        return [(w, [s for s in self.stacks if s.wave == w]) for w in order]

    def wave_dir(self, index: int, wave: str) -> str:
        return f"waves/{index:02d}-{wave}"

    def env_refs(self) -> dict[str, Any]:
        op = self.spec.operator

        def ref(secret: str, key: str) -> dict[str, Any]:
            return {"type": "Secret", "secret": {"name": secret, "key": key}}
        refs = {env: ref(op.oci_credentials_secret, key) for env, key in OCI_ENV.items()}
        if self.spec.backend.pulumi_cloud:
            refs["PULUMI_ACCESS_TOKEN"] = ref(op.pulumi_token_secret, "accessToken")
        else:
            store = self.spec.backend.self_managed.credentials_secret
            refs["AWS_ACCESS_KEY_ID"] = ref(store, "accessKeyId")
            refs["AWS_SECRET_ACCESS_KEY"] = ref(store, "secretAccessKey")
        return dict(sorted(refs.items()))

    def stack(self, s: ResolvedStack, drift: bool = False) -> dict[str, Any]:
        spec = self.spec
        decommissioned = bool(getattr(s.entry, "decommissioned", False)) and not drift
        secrets = set(s.secret_keys)
        body: dict[str, Any] = {
            "stack": spec.qualified(s.name),
            **_program(spec.release_of(s.entry)),
            "serviceAccountName": WORKSPACE_SA,
            "refresh": True,
            "destroyOnFinalize": decommissioned,
        }
        if decommissioned:
            # PKO v2.8.0-v2.9.0 destroy a runProgram=false Stack from a source-free workspace whose `pulumi install`
            # fails for Python (issue #1299, fixed by #1320 after v2.9.0): with runProgram the destroy uses the
            # pinned source, which stays fetchable.
            body["runProgram"] = True
        if drift:
            body.update({"preview": True, "continueResyncOnCommitMatch": True,
                         "resyncFrequencySeconds": spec.operator.drift_interval_minutes * 60})
        if spec.backend.self_managed:
            body["backend"] = spec.backend.self_managed.url
            body["secretsProvider"] = spec.backend.self_managed.secrets_provider
        body["config"] = {k: v for k, v in sorted(s.config.items()) if k not in secrets}
        if secrets:
            body["secretsRef"] = {k: {"type": "Secret", "secret": {"name": f"{s.name}-config",
                                                                   "key": secret_key_name(k)}}
                                  for k in sorted(secrets)}
        body["envRefs"] = self.env_refs()
        zone = getattr(s.entry, "landing_zone", None)
        if zone and not drift:
            body["prerequisites"] = [{"name": zone}]
        body["workspaceReclaimPolicy"] = "Delete"
        body["workspaceTemplate"] = {"spec": {
            "image": spec.operator.workspace_image, "imagePullPolicy": "IfNotPresent",
            "securityProfile": "restricted",
            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}}}}
        name = s.name + (DRIFT_SUFFIX if drift else "")
        meta = _meta(name, self.ns, **{"fleet.okerdma.io/fleet": spec.name, "fleet.okerdma.io/wave": s.wave,
                                       "fleet.okerdma.io/role": "drift" if drift else "deploy"})
        if not drift and not decommissioned:
            # a Stack whose entry disappears without decommissioning is kept by Flux (not pruned), so it stays
            # managed: only a decommissioned Stack is deleted, and then destroyed (Flux docs, "Prune")
            meta["annotations"] = {PRUNE_ANNOTATION: "disabled"}
        return {"apiVersion": STACK_API, "kind": "Stack", "metadata": meta, "spec": body}

    def bootstrap(self) -> list[dict[str, Any]]:
        ns = self.ns
        objects: list[dict[str, Any]] = [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {
                "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version":
                "latest"}}},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(WORKSPACE_SA, ns)},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
             "metadata": {"name": f"{ns}:{WORKSPACE_SA}:system:auth-delegator"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                         "name": "system:auth-delegator"},
             "subjects": [{"kind": "ServiceAccount", "name": WORKSPACE_SA, "namespace": ns}]},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(APPLIER_SA, ns)},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": _meta(APPLIER_SA, ns),
             "rules": [{"apiGroups": ["pulumi.com"], "resources": ["stacks"],
                        "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": _meta(APPLIER_SA, ns),
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": APPLIER_SA},
             "subjects": [{"kind": "ServiceAccount", "name": APPLIER_SA, "namespace": ns}]},
            {"apiVersion": SOURCE_API, "kind": "GitRepository", "metadata": _meta(FLEET_SOURCE, ns),
             "spec": {"url": self.spec.operator.fleet_repository, "interval": "5m",
                      "ref": {"branch": self.spec.operator.fleet_branch}}},
        ]
        releases = {self.spec.release_of(s.entry) for s in self.stacks if s.kind != "management"}
        for release in sorted((r for r in releases if r.oci), key=_source_name):
            objects.append({"apiVersion": SOURCE_API, "kind": "OCIRepository",
                            "metadata": _meta(_source_name(release), ns),
                            "spec": {"url": release.oci.url, "interval": "1h",
                                     "ref": {"digest": release.oci.digest}}})
        previous = None
        for i, (wave, stacks) in enumerate(self.waves()):
            name = f"fleet-{i:02d}-{wave}"
            spec: dict[str, Any] = {
                "interval": "10m", "retryInterval": "2m", "timeout": WAVE_TIMEOUT,
                "path": f"./{self._repo_path()}/{self.wave_dir(i, wave)}",
                "prune": True, "sourceRef": {"kind": "GitRepository", "name": FLEET_SOURCE},
                "serviceAccountName": APPLIER_SA, "targetNamespace": ns,
                "healthChecks": [{"apiVersion": STACK_API, "kind": "Stack", "name": s.name, "namespace": ns}
                                 for s in stacks],
                "healthCheckExprs": [dict(STACK_HEALTH)],
            }
            if previous:
                spec["dependsOn"] = [{"name": previous}]
            objects.append({"apiVersion": KUSTOMIZE_API, "kind": "Kustomization",
                            "metadata": _meta(name, ns, **{"fleet.okerdma.io/fleet": self.spec.name}),
                            "spec": spec})
            previous = name
        return objects

    def flux_namespace(self) -> str:
        """Flux's namespace on the management cluster: its stack's ``platform.flux.namespace``, else the default."""
        mgmt = self.management
        platform = (mgmt.config.get("oke-rdma:platform") if mgmt else None) or {}
        flux = platform.get("flux") if isinstance(platform, dict) else None
        namespace = flux.get("namespace") if isinstance(flux, dict) else None
        return namespace if isinstance(namespace, str) and namespace else FluxRelease.model_fields["namespace"].default

    def network(self) -> list[dict[str, Any]]:
        """The NetworkPolicy letting the workspace pods fetch Flux artifacts (none when no release comes from
        OCI: only a ``fluxSource`` workspace downloads from source-controller)."""
        if not any(self.spec.release_of(s.entry).oci for s in self.stacks if s.kind != "management"):
            return []
        return [{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                 "metadata": _meta(ARTIFACT_POLICY, self.flux_namespace(),
                                   **{"fleet.okerdma.io/fleet": self.spec.name}),
                 "spec": {"podSelector": {"matchLabels": dict([SOURCE_CONTROLLER_LABEL])},
                          "policyTypes": ["Ingress"],
                          "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
                                                     "kubernetes.io/metadata.name": self.ns}},
                                                 "podSelector": {"matchLabels": dict([WORKSPACE_POD_LABEL])}}],
                                       "ports": [{"protocol": "TCP", "port": SOURCE_CONTROLLER_PORT}]}]}}]

    def _repo_path(self) -> str:
        """The rendered directory's path inside the fleet repository."""
        return f"{self.spec.operator.fleet_path.strip('/')}/rendered".lstrip("/")

    def files(self) -> dict[str, str]:
        files: dict[str, str] = {}
        boot = self.bootstrap()
        files["bootstrap/namespace.yaml"] = _dump(boot[:1])
        files["bootstrap/rbac.yaml"] = _dump(boot[1:6])
        files["bootstrap/sources.yaml"] = _dump([o for o in boot if o["apiVersion"] == SOURCE_API])
        files["bootstrap/waves.yaml"] = _dump([o for o in boot if o["kind"] == "Kustomization"])
        network = self.network()
        if network:
            files["bootstrap/network.yaml"] = _dump(network)
        files["bootstrap/kustomization.yaml"] = yaml.safe_dump({
            "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": ["namespace.yaml", "rbac.yaml", "sources.yaml", "waves.yaml"]
            + (["network.yaml"] if network else [])}, sort_keys=False)
        for i, (wave, stacks) in enumerate(self.waves()):
            d = self.wave_dir(i, wave)
            for s in stacks:
                objs = [self.stack(s)] + ([self.stack(s, drift=True)] if self.spec.operator.drift_preview else [])
                files[f"{d}/{s.name}.yaml"] = _dump(objs)
            files[f"{d}/kustomization.yaml"] = yaml.safe_dump({
                "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                "resources": [f"{s.name}.yaml" for s in stacks]}, sort_keys=False)
        for s in self.stacks:
            files[f"config/Pulumi.{s.name}.yaml"] = (
                f"# Resolved config of stack {s.name} (fleet {self.spec.name}, wave {s.wave}): written by\n"
                "# `python -m oke_rdma.fleet render`; do not edit (edit the stack file or the fleet's defaults).\n"
                + yaml.safe_dump({"config": s.config}, sort_keys=True, width=120))
        lines = ["# Kubernetes Secrets the rendered Stacks reference (namespace "
                 f"{self.ns}); create them out of band (External Secrets from OCI Vault, sealed secrets): the",
                 "# fleet never renders a secret value.", ""]
        needed: dict[str, set[str]] = {}
        for s in self.stacks:
            if s.kind == "management":
                continue
            for ref in [*self.env_refs().values(), *self.stack(s).get("spec", {}).get("secretsRef", {}).values()]:
                needed.setdefault(ref["secret"]["name"], set()).add(ref["secret"]["key"])
        for name in sorted(needed):
            lines.append(f"{name}: {', '.join(sorted(needed[name]))}")
        files["secrets.txt"] = "\n".join(lines) + "\n"
        return files


def render(fleet: Fleet, stacks: list[ResolvedStack]) -> Rendered:
    """Render ``fleet`` (its resolved ``stacks``, management included: only its config file is written).

    The management stack is not rendered as a Stack: it runs the operator and is deployed by ``pulumi up``."""
    r = _Renderer(fleet, stacks)
    operated = [s for s in stacks if s.kind != "management"]
    r.stacks = operated
    files = r.files()
    for s in stacks:
        if s.kind == "management":
            files[f"config/Pulumi.{s.name}.yaml"] = (
                f"# Resolved config of the management stack {s.name} (fleet {fleet.spec.name}): deployed with pulumi"
                " up, not by the operator.\n" + yaml.safe_dump({"config": s.config}, sort_keys=True, width=120))
    return Rendered(dict(sorted(files.items())))


def plain_config(value: Any) -> bool:
    """True when ``value`` holds no ``{secure: ...}`` anywhere (a Stack's ``spec.config`` may only hold these)."""
    return not (is_secure(value) or (isinstance(value, dict) and any(not plain_config(v) for v in value.values()))
                or (isinstance(value, list) and any(not plain_config(v) for v in value)))

