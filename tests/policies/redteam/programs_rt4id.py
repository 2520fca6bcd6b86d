"""Red-team pass 4 (2026-12-02), identity: RBAC writes that break tenant isolation without a classic escalation
(EndpointSlices, VolumeAttachments, Services of every namespace), and OCI grants whose principal set or target is
wider than it reads (a dynamic group of every instance, a pin to the protected bucket, bucket administration by
pin, a tenancy-wide resource-principal type)."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, T, case, statements, vault_key

RBAC = "rbac.authorization.k8s.io"
SA = {"kind": "ServiceAccount", "name": "ctl", "namespace": "apps"}


def _bound(group: str, resources: list[str], verbs: list[str]) -> None:
    """A ClusterRole with one rule, bound cluster-wide to one named ServiceAccount."""
    k8s.rbac.v1.ClusterRole("cr", metadata={"name": "rt-ctl"},
                            rules=[{"api_groups": [group], "resources": resources, "verbs": verbs}])
    k8s.rbac.v1.ClusterRoleBinding("crb", metadata={"name": "rt-ctl"}, subjects=[SA],
                                   role_ref={"api_group": RBAC, "kind": "ClusterRole", "name": "rt-ctl"})


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_endpointslice_writes(bad):
    _bound("discovery.k8s.io", ["endpointslices"], ["create", "update", "patch"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_volumeattachment_create(bad):
    _bound("storage.k8s.io", ["volumeattachments"], ["create", "update"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_service_writes(bad):
    _bound("", ["services"], ["patch", "update"] if bad else ["get", "list", "watch"])


@case("identity", "kubernetes-rbac-no-escalation")
def cluster_wide_runtimeclass_create(bad):
    # not named by the red team: a RuntimeClass's scheduling.tolerations are merged into every pod naming it
    _bound("node.k8s.io", ["runtimeclasses"], ["create"] if bad else ["get", "list", "watch"])


WL = ("request.principal.type = 'workload', request.principal.namespace = 'research', "
      "request.principal.service_account = 'trainer', "
      "request.principal.cluster_id = 'ocid1.cluster.oc1.sa-saopaulo-1.aaaaaaaaredteamcluster'")


def _protected_bucket() -> None:
    oci.objectstorage.Bucket("b", compartment_id=C, namespace="platformns", name="model-weights",
                             versioning="Enabled", kms_key_id=vault_key().id,
                             opts=pulumi.ResourceOptions(protect=True))


@case("identity", "iam-dynamic-group-pinned")
def dynamic_group_of_every_instance(bad):
    rule = "ANY {resource.type = 'instance'}" if bad else f"ALL {{instance.compartment.id = '{C}'}}"
    oci.identity.DynamicGroup("dg", compartment_id=T, name="rt-nodes", description="rt", matching_rule=rule)
    statements(f"Allow dynamic-group rt-nodes to read objects in compartment id {C} where "
               "target.bucket.name = 'model-weights'")


@case("identity", "iam-dynamic-group-pinned")
def dynamic_group_of_every_function_by_tag(bad):
    # not named by the red team: a tag is on whatever anyone allowed to tag puts it on
    rule = ("ALL {resource.type = 'fnfunc', tag.team.owner.value = 'ml'}" if bad
            else f"ALL {{resource.type = 'fnfunc', resource.compartment.id = '{C}'}}")
    oci.identity.DynamicGroup("dg", compartment_id=T, name="rt-fns", description="rt", matching_rule=rule)


@case("data", "iam-protected-bucket-kept")
def workload_manages_objects_of_the_protected_bucket_by_pin(bad):
    _protected_bucket()
    bucket = "model-weights" if bad else "research-scratch"
    statements(f"Allow any-user to manage objects in compartment id {C} where all {{{WL}, "
               f"target.bucket.name = '{bucket}'}}")


@case("data", "iam-protected-bucket-kept")
def pin_to_the_protected_bucket_in_other_case(bad):
    _protected_bucket()
    bucket = "MODEL-WEIGHTS" if bad else "research-scratch"
    statements(f"Allow any-user to manage objects in compartment id {C} where all {{{WL}, "
               f"target.bucket.name = '{bucket}'}}")


@case("data", "iam-no-run-time-undo")
def group_manages_its_bucket_by_pin(bad):
    statements(f"Allow group research-team to {'manage' if bad else 'read'} buckets in compartment id {C} where "
               "target.bucket.name = 'research-scratch'")


@case("identity", "iam-principal-type-pinned")
def any_user_every_function_of_the_tenancy(bad):
    extra = "" if bad else ", request.principal.id = 'ocid1.fnfunc.oc1.sa-saopaulo-1.aaaaaaaarteam'"
    statements(f"Allow any-user to read objects in compartment id {C} where all {{request.principal.type = 'fnfunc', "
               f"target.bucket.name = 'model-weights'{extra}}}")


@case("identity", "iam-principal-type-pinned")
def any_user_every_data_science_job(bad):
    # not named by the red team: another resource-principal type
    extra = "" if bad else f", request.principal.compartment.id = '{C}'"
    statements(f"Allow any-user to read secret-bundles in compartment id {C} where all "
               f"{{request.principal.type = 'datasciencejob'{extra}}}")
