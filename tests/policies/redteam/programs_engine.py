"""Red-team programs that change a resource between the program and the engine: resource transforms
(``ResourceOptions(transforms=...)``, run by the engine for the resource and its children), stack transforms
(``pulumi.runtime.register_resource_transform``) and legacy ``transformations`` (run by the SDK). The packs must judge
what the engine registers, not what the constructor was given. Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import pulumi
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, container, pod

BUCKET = "oci:ObjectStorage/bucket:Bucket"


def _public(args: pulumi.ResourceTransformArgs):
    if args.type_ == BUCKET:
        return pulumi.ResourceTransformResult({**args.props, "accessType": "ObjectRead"}, args.opts)
    return None


async def _public_async(args: pulumi.ResourceTransformArgs):
    return _public(args)


def _bucket(opts=None) -> None:
    oci.objectstorage.Bucket("b", compartment_id=C, namespace="ns", name="data", access_type="NoPublicAccess",
                             opts=opts)


@case("data", "no-public-endpoints")
def stack_transform_makes_every_bucket_public(bad):
    if bad:
        pulumi.runtime.register_resource_transform(_public)
    _bucket()


@case("data", "no-public-endpoints")
def resource_transform_makes_the_bucket_public(bad):
    _bucket(pulumi.ResourceOptions(transforms=[_public] if bad else []))


@case("data", "no-public-endpoints")
def async_resource_transform_makes_the_bucket_public(bad):
    _bucket(pulumi.ResourceOptions(transforms=[_public_async] if bad else []))


class _Storage(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("oke-rdma:test:Storage", name, None, opts)  # a package the catalogue places
        _bucket(pulumi.ResourceOptions(parent=self))


@case("data", "no-public-endpoints")
def component_transform_reaches_its_children(bad):
    _Storage("store", pulumi.ResourceOptions(transforms=[_public] if bad else []))


def _legacy_public(args: pulumi.ResourceTransformationArgs):
    if args.type_ == BUCKET:
        return pulumi.ResourceTransformationResult({**args.props, "access_type": "ObjectRead"}, args.opts)
    return None


@case("data", "no-public-endpoints")
def legacy_stack_transformation_makes_the_bucket_public(bad):
    if bad:
        pulumi.runtime.register_stack_transformation(_legacy_public)
    _bucket()


def _host_root(args: pulumi.ResourceTransformArgs):
    if args.type_ == "kubernetes:core/v1:Pod":
        spec = {**args.props["spec"], "hostPID": True,
                "volumes": [{"name": "root", "hostPath": {"path": "/"}}]}
        return pulumi.ResourceTransformResult({**args.props, "spec": spec}, args.opts)
    return None


@case("pod", "node-escape-only-in-node-agent-namespaces")
def stack_transform_mounts_the_host_root_into_a_pod(bad):
    if bad:
        pulumi.runtime.register_resource_transform(_host_root)
    pod({"containers": [container()]}, ns="research", level="privileged")


@case("pod", "node-escape-only-in-node-agent-namespaces")
def stack_transform_reaches_the_objects_of_a_config_group(bad):
    """A ConfigGroup's objects are registered by the Kubernetes provider through the engine: transforms apply."""
    import pulumi_kubernetes as k8s
    from tests.policies.redteam.programs import namespace
    namespace("research", "privileged")
    if bad:
        pulumi.runtime.register_resource_transform(_host_root)
    k8s.yaml.v2.ConfigGroup("cg", objs=[{"apiVersion": "v1", "kind": "Pod",
                                         "metadata": {"name": "w", "namespace": "research"},
                                         "spec": {"containers": [container()]}}])
