"""Red-team programs (pass 6, pod): a ControllerRevision is the template ``kubectl rollout undo`` applies — the
DaemonSet or StatefulSet controller adopts one its selector matches — so the pod template in its ``data`` is judged
as a workload's: a privileged hostPID template, a StatefulSet's revision mounting the node's root, and data of no
known shape. Registered in ``programs.CASES`` on import."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case, container, namespace

TEMPLATE = {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": [container()]}}


def _revision(data: dict, ns: str = "apps") -> None:
    k8s.apps.v1.ControllerRevision("rev", metadata={"name": "w-6d4f8b7c9", "namespace": ns, "labels": {"app": "w"}},
                                   revision=1, data=data)


def _template(spec: dict) -> dict:
    return {"spec": {"template": {"metadata": {"labels": {"app": "w"}}, "spec": spec, "$patch": "replace"}}}


@case("pod", "node-escape-only-in-node-agent-namespaces")
def controller_revision_privileged_host_pid(bad):
    namespace("apps", "restricted")
    k8s.apps.v1.DaemonSet("w", metadata={"name": "w", "namespace": "apps"},
                          spec={"selector": {"matchLabels": {"app": "w"}}, "template": TEMPLATE})
    _revision(_template({"hostPID": True, "containers": [container(privileged=True)]} if bad else TEMPLATE["spec"]))


@case("pod", "node-escape-only-in-node-agent-namespaces")
def statefulset_revision_mounts_the_node_root(bad):
    namespace("research", "privileged")
    volume = {"name": "h", "hostPath": {"path": "/"}} if bad else {"name": "h", "emptyDir": {}}
    _revision(_template({"volumes": [volume], "containers": [container()]}), "research")


@case("pod", "rdma-pods-in-privileged-namespaces")
def controller_revision_data_of_unknown_shape(bad):
    namespace("apps", "restricted")
    _revision({"template": {"spec": {"hostNetwork": True}}} if bad else _template(TEMPLATE["spec"]))
