"""The Monitoring component: the shipped Prometheus rules as a PrometheusRule and the Grafana dashboards as
ConfigMaps, in kube-prometheus-stack's namespace.

* ``PrometheusRule`` ``okerdma-gpu`` (``monitoring.coreos.com/v1``) with every group of ``rules/*.yaml``. The
  platform sets ``ruleSelectorNilUsesHelmValues: false``, so Prometheus loads every PrometheusRule in the cluster.
  It ``depends_on`` the kube-prometheus-stack release (the CRD).
* One ConfigMap per dashboard labelled ``grafana_dashboard: "1"``: kube-prometheus-stack's Grafana sidecar loads
  every such ConfigMap in any namespace (chart 87.2.1 values: ``sidecar.dashboards.label``/``labelValue``,
  ``searchNamespace: ALL``).

Sources: prometheus-operator PrometheusRule CRD v0.92.0 (shipped by kube-prometheus-stack 87.2.1,
``charts/crds/crds/crd-prometheusrules.yaml``); kube-prometheus-stack 87.2.1 values.yaml — checked 2026-11-30.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from oke_rdma.monitoring.dashboards import SIDECAR_LABEL, dashboards
from oke_rdma.monitoring.facts import rule_groups
from oke_rdma.readiness import ApiGate, ApiGateArgs, Probe

RULE_NAME = "okerdma-gpu"


def prometheus_rule(namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    """The PrometheusRule manifest (dict) holding every shipped rule group."""
    return {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
            "metadata": {"name": RULE_NAME, "namespace": namespace, "labels": labels},
            "spec": {"groups": rule_groups()}}


def dashboard_configmaps(namespace: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    """One ConfigMap manifest (dict) per dashboard, labelled for the Grafana sidecar."""
    return [{"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": f"dashboard-{file.removesuffix('.json')}", "namespace": namespace,
                          "labels": {**labels, SIDECAR_LABEL[0]: SIDECAR_LABEL[1]}},
             "data": {file: json.dumps(board, indent=1, sort_keys=True)}}
            for file, board in dashboards().items()]


#: The kind the program creates through kube-prometheus-stack, probed by the readiness gate (prometheus-operator
#: v0.92.0 PrometheusRule CRD: ``spec.groups`` may be empty; its admission webhook validates the rules).
PROMETHEUS_RULE_PROBE = Probe("monitoring.coreos.com/v1", "PrometheusRule", "prometheusrules", True, {"groups": []})


class MonitoringArgs:
    """Inputs of :class:`Monitoring`.

    :param name_prefix: the stack's name prefix (logical names ``<prefix>-...``).
    :param provider: the explicit Kubernetes provider of the OKE cluster.
    :param namespace: kube-prometheus-stack's namespace (name).
    :param depends_on: the kube-prometheus-stack release (installs the PrometheusRule CRD and Grafana) and the
        namespace.
    :param release: / :param namespace_resource: / :param kubectl_version: the kube-prometheus-stack release, its
        ``Namespace`` resource and the cluster's Kubernetes version: the PrometheusRule waits for a readiness gate
        (:class:`oke_rdma.readiness.ApiGate`) that dry-runs a PrometheusRule until the CRD and the operator's
        admission webhook answer. None: no gate (a program that manages readiness itself).
    """

    def __init__(self, *, name_prefix: str, provider: pulumi.ProviderResource, namespace: str,
                 depends_on: Sequence[pulumi.Resource] = (), release: Optional[pulumi.Resource] = None,
                 namespace_resource: Optional[k8s.core.v1.Namespace] = None, kubectl_version: Optional[str] = None):
        self.name_prefix = name_prefix
        self.provider = provider
        self.namespace = namespace
        self.depends_on = list(depends_on)
        self.release = release
        self.namespace_resource = namespace_resource
        self.kubectl_version = kubectl_version


class Monitoring(pulumi.ComponentResource):
    """GPU/RDMA alert and metering rules and Grafana dashboards (type ``oke-rdma:monitoring:Monitoring``).

    Attributes: ``rule`` (the PrometheusRule ``CustomResource``), ``dashboards`` (ConfigMap name → ``ConfigMap``).
    Raises nothing: the rule files and dashboards ship with the package and are tested.
    """

    def __init__(self, name: str, args: MonitoringArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("oke-rdma:monitoring:Monitoring", name, None, opts)
        prefix = args.name_prefix
        labels = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": prefix}
        child = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=args.depends_on)
        rule = prometheus_rule(args.namespace, labels)
        self.gate: Optional[ApiGate] = None
        if args.release is not None and args.namespace_resource is not None and args.kubectl_version:
            self.gate = ApiGate(f"{prefix}-monitoring-gate", ApiGateArgs(
                args.release, args.namespace_resource, [PROMETHEUS_RULE_PROBE], args.provider, args.kubectl_version,
                prefix), pulumi.ResourceOptions(parent=self))
        rule_opts = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(
            depends_on=[self.gate.job] if self.gate else []))
        self.rule = k8s.apiextensions.CustomResource(
            f"{prefix}-gpu-rules", api_version=rule["apiVersion"], kind=rule["kind"], metadata=rule["metadata"],
            spec=rule["spec"], opts=rule_opts)
        self.dashboards: dict[str, k8s.core.v1.ConfigMap] = {}
        for cm in dashboard_configmaps(args.namespace, labels):
            name_ = cm["metadata"]["name"]
            self.dashboards[name_] = k8s.core.v1.ConfigMap(
                f"{prefix}-{name_}", metadata=cm["metadata"], data=cm["data"], opts=child)
        self.register_outputs({"rule": RULE_NAME, "dashboards": sorted(self.dashboards)})
