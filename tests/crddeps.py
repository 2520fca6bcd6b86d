"""Which Helm release installs the CRD of a custom resource, and a check that every custom resource waits for it."""

from __future__ import annotations

from oke_rdma.addons import REGISTRY

RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"
#: API group of a custom resource → the Helm release (name in the cluster) that installs its CRD (each add-on
#: module's ``crds``).
CRD_RELEASES = {group: addon.release_name for addon in REGISTRY for group in addon.crds}


def crd_group(resource_type: str) -> str | None:
    """``kubernetes:kueue.x-k8s.io/v1beta2:Topology`` → ``kueue.x-k8s.io``; None for a built-in type."""
    if not resource_type.startswith("kubernetes:"):
        return None
    group = resource_type.split(":")[1].split("/")[0]
    return group if group in CRD_RELEASES else None


def crd_dependency_problems(resources: list) -> list[str]:
    """One line per custom resource that does not ``depends_on`` (directly) the release installing its CRD."""
    releases = {r.inputs.get("name"): r.urn for r in resources if r.type == RELEASE_TYPE}
    problems = []
    for r in resources:
        group = crd_group(r.type)
        if group is None:
            continue
        release = releases.get(CRD_RELEASES[group])
        if release is None:
            problems.append(f"{r.name} ({r.type}): the release {CRD_RELEASES[group]!r} installing its CRD is not in "
                            f"the stack")
        elif release not in r.dependencies:
            problems.append(f"{r.name} ({r.type}): does not depend on the release {CRD_RELEASES[group]!r}")
    return problems
