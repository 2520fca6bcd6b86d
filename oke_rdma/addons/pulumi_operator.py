"""The Pulumi Kubernetes Operator v2 (PKO): runs a fleet's ``pulumi.com/v1`` Stacks, each in a workspace pod
(docs/fleet.md). Off by default: the management cluster of a fleet turns it on.

Pinned to 2.9.0: the ``destroyOnFinalize`` orphaning bugs of earlier v2 releases are fixed there (issues #1220,
#1233, #1222, fixed in 2.8.0); the source-free destroy path of 2.8-2.9 stalls for Python (#1299, fixed by #1320 after
2.9.0), which the fleet's decommissioned Stacks avoid with ``runProgram`` (docs/fleet.md, "Why PKO v2.9.0").
Namespace Pod Security ``restricted``: the chart runs the operator as 65532 with no privilege escalation and every
capability dropped, but leaves the seccomp profile commented out; oke-rdma sets ``RuntimeDefault`` on the pod.
Its CRDs (``pulumi.com``: Stack, Program; ``auto.pulumi.com``: Workspace, Update) come from the chart's ``crds/``:
Helm installs them on the first install and never upgrades them (docs/operations.md, CRD upgrades).

Sources: pulumi/pulumi-kubernetes-operator v2.9.0 ``deploy/helm/pulumi-operator`` (Chart.yaml: chart
``pulumi-kubernetes-operator`` 2.9.0; values.yaml: ``podSecurityContext``, ``securityContext``; templates/
deployment.yaml), ``.github/workflows/chart-publish.yaml`` (pushed to ``oci://ghcr.io/pulumi/helm-charts``),
CHANGELOG.md — checked 2026-12-01.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from oke_rdma.addons._registry import RESTRICTED, AddOn, HelmRelease, ValuesContext


class PulumiOperatorRelease(HelmRelease):
    """The Pulumi Kubernetes Operator, default 2.9.0 in ``pulumi-kubernetes-operator``; off unless enabled (a fleet's
    management cluster)."""

    enabled: bool = Field(False, description="Install the release (off by default; on for a fleet's management "
                                             "cluster, docs/fleet.md).")
    # renovate: datasource=docker depName=ghcr.io/pulumi/helm-charts/pulumi-kubernetes-operator
    version: str = Field("2.9.0", description="Exact chart version.")
    namespace: str = Field("pulumi-kubernetes-operator", description="Namespace of the operator.")
    crds_applied: Optional[str] = Field(default=None, description=(
        "The chart version whose CRDs you applied server-side before moving `version` to it (Helm never upgrades a "
        "chart's crds/; the offline preview refuses a version change until this names the new version)."))


def values(cfg: PulumiOperatorRelease, context: ValuesContext) -> dict[str, Any]:
    """The pod's seccomp profile (the rest of the restricted profile is the chart's default)."""
    return {"podSecurityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}


ADDON = AddOn(
    key="pulumiOperator",
    release_name="pulumi-kubernetes-operator",
    chart="oci://ghcr.io/pulumi/helm-charts/pulumi-kubernetes-operator",
    repository=None,
    config=PulumiOperatorRelease,
    pod_security=RESTRICTED,
    values=values,
    crds=("pulumi.com", "auto.pulumi.com"),
    value_shapes=((("podSecurityContext",), "map"),),
    source="pulumi/pulumi-kubernetes-operator v2.9.0 deploy/helm/pulumi-operator (Chart.yaml, values.yaml), "
           "chart-publish workflow, CHANGELOG; checked 2026-12-01",
)
