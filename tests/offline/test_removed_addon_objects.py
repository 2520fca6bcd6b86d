"""An add-on switched off against the previous plan names the custom objects of its CRDs that the stack and the
tenants lose: deleted with templated or manifest CRDs, left without a controller with crds/-directory CRDs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from oke_rdma.facts.crds import CRD_LIFECYCLE, OBJECTS_DELETED_ON_REMOVAL, user_objects
from oke_rdma.addons import REGISTRY
from offline.crds import CONFIG_GROUP, RELEASE, removed_addon_objects

STACK = "urn:pulumi:dev::oke-rdma::"


def _res(type_: str, name: str) -> dict:
    return {"urn": f"{STACK}{type_}::{name}", "type": type_, "name": name, "inputs": {}}


def _run(deleted: list[dict], tenants=("research", "analytics")):
    changes = [SimpleNamespace(op="delete", urn=r["urn"], type=r["type"], name=r["name"]) for r in deleted]
    return SimpleNamespace(changes=changes, outputs={"tenants": {t: {"namespace": t} for t in tenants}})


def test_keda_switched_off_names_scaled_objects_and_the_tenants():
    """KEDA's templated CRDs go with its release: ScaledObjects and ScaledJobs are named as deleted, with the
    tenants' namespaces and the listing command."""
    release = _res(RELEASE, "okerdma-dev-keda")
    (warning,) = removed_addon_objects(_run([release]), {"resources": [release]})
    assert "platform.keda" in warning and "scaledobjects.keda.sh" in warning and "scaledjobs.keda.sh" in warning
    assert "are deleted with its CRDs" in warning and "analytics, research" in warning
    assert "kubectl get scaledobjects.keda.sh," in warning


def test_a_crds_directory_add_on_leaves_its_objects_without_a_controller():
    """KubeRay's CRDs are in crds/ (Helm never deletes them): RayJobs stay, but nothing acts on them."""
    release = _res(RELEASE, "okerdma-dev-kuberay-operator")
    (warning,) = removed_addon_objects(_run([release]), {"resources": [release]})
    assert "rayjobs.ray.io" in warning and "no controller acts on them" in warning


def test_a_manifest_add_on_deletes_its_objects_and_names_the_stacks_own():
    """The MPI Operator's CRD is an object of its manifest: MPIJobs go with it; the stack's own objects of its
    CRD groups being deleted are named too."""
    group = _res(CONFIG_GROUP, "okerdma-dev-mpi-operator")
    own = _res("kubernetes:kubeflow.org/v2beta1:MPIJob", "smoke")
    (warning,) = removed_addon_objects(_run([group, own]), {"resources": [group, own]})
    assert "mpijobs.kubeflow.org" in warning and "are deleted" in warning and "MPIJob smoke" in warning


@pytest.mark.parametrize("previous", [None, {"resources": []}])
def test_nothing_is_said_without_a_removed_add_on(previous):
    """No previous plan, or no add-on release deleted: no warning."""
    ns = _res("kubernetes:core/v1:Namespace", "okerdma-dev-ns-keda")
    assert removed_addon_objects(_run([ns]), previous) == []


def test_every_add_on_with_crds_names_objects_and_a_removal_behaviour():
    """Every add-on with CRDs has user objects to name and a known CRD lifecycle (so the warning can say whether
    they are deleted)."""
    for addon in REGISTRY:
        if addon.crds:
            assert user_objects(addon.key), addon.key
            assert CRD_LIFECYCLE[addon.key].mode in OBJECTS_DELETED_ON_REMOVAL, addon.key
