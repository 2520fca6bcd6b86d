"""Red-team cases for objects applied from manifests rather than declared one by one: a ``yaml/v2:ConfigFile`` read
from a local path and a ``yaml/v2:ConfigGroup`` of a vendored release manifest's objects. The pack judges each object
they hold (the offline preview records them as the provider's children), so the same rules apply as to a typed
resource: an RDMA MPIJob or TrainingRuntime only in a privileged namespace, no cluster-wide Secret reads."""
from __future__ import annotations

from pathlib import Path

import pulumi_kubernetes as k8s

from oke_rdma.addons import ValuesContext
from oke_rdma.addons.mpi_operator import MpiOperatorRelease, objects, upstream_objects
from tests.policies.redteam.programs import case, namespace

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "nccl-allreduce"


@case("pod", "rdma-pods-in-privileged-namespaces")
def nccl_mpijob_from_a_local_file_in_a_restricted_namespace(bad):
    namespace("research", "restricted" if bad else "privileged")
    k8s.yaml.v2.ConfigFile("nccl", file=str(EXAMPLES / "nccl-allreduce-mpijob.yaml"))


@case("pod", "rdma-pods-in-privileged-namespaces")
def nccl_trainjob_runtime_from_a_local_file_in_a_restricted_namespace(bad):
    namespace("research", "restricted" if bad else "privileged")
    k8s.yaml.v2.ConfigFile("nccl", file=str(EXAMPLES / "nccl-allreduce-trainjob.yaml"))


@case("identity", "kubernetes-rbac-no-escalation")
def mpi_operator_manifest_applied_as_released(bad):
    """As released, the MPI Operator's controller lists and watches Secrets in every namespace; oke-rdma's objects
    scope one controller per tenant namespace with a Role there."""
    namespace("mpi-operator", "baseline")
    namespace("research", "privileged")
    objs = ([o for o in upstream_objects("0.8.0") if o["kind"] != "Namespace"] if bad else
            objects(MpiOperatorRelease(enabled=True), ValuesContext(tenant_namespaces=("research",))))
    k8s.yaml.v2.ConfigGroup("mpi", objs=objs)


@case("pod", "kubernetes-manifest-source-pinned")
def manifest_from_a_branch_url(bad):
    """A manifest fetched from a branch can serve other objects at the next pulumi up than the ones judged; at a
    commit SHA it cannot."""
    revision = "master" if bad else "101db144e019e1de65aaded07745e9d805c2852a"
    k8s.yaml.v2.ConfigFile("mpi", file=f"https://raw.githubusercontent.com/kubeflow/mpi-operator/{revision}/deploy/"
                                       f"v2beta1/mpi-operator.yaml")
