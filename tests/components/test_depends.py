"""``depends_on=[all_of(rs)]`` makes a resource wait for exactly what ``depends_on=list(rs)`` does: the same URNs reach
the engine, a local component standing for its children."""

import pulumi
import pulumi_kubernetes as k8s

from offline.engine import run_program
from oke_rdma.depends import all_of


def _dependencies(form):
    """Each ConfigMap's recorded dependencies when it depends on three namespaces and a component (holding two
    more) in the given form ("list" or "all_of")."""

    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        opts = pulumi.ResourceOptions(provider=provider)
        namespaces = [k8s.core.v1.Namespace(f"ns-{i}", metadata={"name": f"ns-{i}"}, opts=opts) for i in range(3)]
        group = pulumi.ComponentResource("test:index:Group", "group")
        for i in range(2):
            k8s.core.v1.Namespace(f"inner-{i}", metadata={"name": f"inner-{i}"},
                                  opts=pulumi.ResourceOptions(provider=provider, parent=group))
        group.register_outputs({})
        waited = [*namespaces, group]
        shared = [all_of(waited)] if form == "all_of" else None
        for i in range(2):
            k8s.core.v1.ConfigMap(f"cm-{i}", metadata={"name": f"cm-{i}"}, opts=pulumi.ResourceOptions(
                provider=provider, depends_on=list(shared) if shared else list(waited)))

    run = run_program({}, [], "test", program=program)
    return {r.name: sorted(r.dependencies) for r in run.resources if r.type == "kubernetes:core/v1:ConfigMap"}


def test_all_of_gives_the_same_dependencies_as_the_list():
    by_list, by_all_of = _dependencies("list"), _dependencies("all_of")
    assert by_all_of == by_list
    names = sorted(u.rsplit("::", 1)[1] for u in by_all_of["cm-0"])
    assert names == ["inner-0", "inner-1", "ns-0", "ns-1", "ns-2"]  # the component's children, not the component


def test_all_of_nothing_adds_no_dependency():
    """The must-fail side: an all_of over no resource is no dependency at all (the dependents wait for nothing)."""

    def program():
        provider = k8s.Provider("k8s", kubeconfig="{}")
        k8s.core.v1.ConfigMap("cm", metadata={"name": "cm"},
                              opts=pulumi.ResourceOptions(provider=provider, depends_on=[all_of([])]))

    run = run_program({}, [], "test", program=program)
    (cm,) = [r for r in run.resources if r.type == "kubernetes:core/v1:ConfigMap"]
    assert cm.dependencies == []
