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


JOB_TYPE = "kubernetes:batch/v1:Job"
CONFIGMAP_TYPE = "kubernetes:core/v1:ConfigMap"


def gate_problems(resources: list) -> list[str]:
    """One line per custom resource that does not wait for a readiness gate able to vouch for it: a Job that
    ``depends_on`` the release installing the CRD and whose probe ConfigMap dry-runs that kind (same apiVersion)."""
    import yaml

    by_urn = {r.urn: r for r in resources}
    releases = {r.inputs.get("name"): r.urn for r in resources if r.type == RELEASE_TYPE}
    problems = []
    for r in resources:
        group = crd_group(r.type)
        if group is None:
            continue
        api_version, kind = r.type.split(":")[1], r.type.split(":")[2]
        gates = [by_urn[d] for d in r.dependencies if d in by_urn and by_urn[d].type == JOB_TYPE]
        ok = False
        for gate in gates:
            if releases.get(CRD_RELEASES[group]) not in gate.dependencies:
                continue
            probes = [by_urn[d] for d in gate.dependencies if d in by_urn and by_urn[d].type == CONFIGMAP_TYPE]
            kinds = {(doc["apiVersion"], doc["kind"]) for cm in probes
                     for doc in yaml.safe_load_all(cm.inputs.get("data", {}).get("probe.yaml", "")) if doc}
            ok = ok or (api_version, kind) in kinds
        if not ok:
            problems.append(f"{r.name} ({r.type}): no readiness gate Job that depends on the release "
                            f"{CRD_RELEASES[group]!r} and dry-runs {api_version} {kind}")
    return problems
