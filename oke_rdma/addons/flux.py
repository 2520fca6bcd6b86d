"""Flux (the CNCF GitOps toolkit): its source-controller fetches the fleet repository (``GitRepository``) and pinned
releases (``OCIRepository``), its kustomize-controller applies a fleet's waves in order (``Kustomization`` with
``dependsOn`` and health checks on the Stacks; docs/fleet.md). Off by default: a fleet's management cluster turns it
on.

Installed with the flux2 community chart 2.18.3 (Flux v2.8.5: kustomize-controller v1.8.3, source-controller v1.8.2,
the versions whose CRDs ``oke_rdma/fleet/crds`` vendors). Only the two controllers a fleet uses run: the helm,
notification and image controllers are not created (less to run, to patch and to trust with cluster-wide access).
Namespace Pod Security ``restricted``: the chart's controllers run non-root, read-only, all capabilities dropped, with
the RuntimeDefault seccomp profile by default.

Sources: fluxcd-community/helm-charts ``charts/flux2`` at tag flux2-2.18.3 (Chart.yaml appVersion 2.8.5; values.yaml
``helmController.create``, ``imageAutomationController.create``, ``imageReflectionController.create``,
``notificationController.create``, ``installCRDs``; templates/kustomize-controller.yaml default securityContext);
fluxcd/flux2 v2.8.5 ``manifests/bases`` (controller versions) — checked 2026-12-01.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from oke_rdma.addons._registry import RESTRICTED, AddOn, HelmRelease, ValuesContext

#: The Flux controllers a fleet does not use (flux2 chart values ``<controller>.create``).
UNUSED_CONTROLLERS = ("helmController", "imageAutomationController", "imageReflectionController",
                      "notificationController")


class FluxRelease(HelmRelease):
    """Flux (source and kustomize controllers), chart flux2 default 2.18.3 in ``flux-system``; off unless enabled (a
    fleet's management cluster)."""

    enabled: bool = Field(False, description="Install the release (off by default; on for a fleet's management "
                                             "cluster, docs/fleet.md).")
    # renovate: datasource=helm depName=flux2 registryUrl=https://fluxcd-community.github.io/helm-charts
    version: str = Field("2.18.3", description="Exact flux2 chart version (2.18.3 installs Flux v2.8.5).")
    namespace: str = Field("flux-system", description="Namespace of the Flux controllers.")


def values(cfg: FluxRelease, context: ValuesContext) -> dict[str, Any]:
    """Only the source and kustomize controllers."""
    return {name: {"create": False} for name in UNUSED_CONTROLLERS}


ADDON = AddOn(
    key="flux",
    release_name="flux",
    chart="flux2",
    repository="https://fluxcd-community.github.io/helm-charts",
    config=FluxRelease,
    pod_security=RESTRICTED,
    values=values,
    crds=("source.toolkit.fluxcd.io", "kustomize.toolkit.fluxcd.io"),
    value_shapes=tuple(((name,), "map") for name in UNUSED_CONTROLLERS),
    source="fluxcd-community/helm-charts flux2 2.18.3 (values.yaml, templates); fluxcd/flux2 v2.8.5 manifests/bases; "
           "checked 2026-12-01",
)
