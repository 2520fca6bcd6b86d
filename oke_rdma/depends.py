"""One ``depends_on`` entry standing for many resources, for the components that make several resources wait for the
same M others (the platform's wall and the guard's label-selecting policies wait for every tenant namespace; until
2026-12-02 every tenant's wall and admission policy did too, docs/architecture.md).

The Pulumi Python SDK resolves ``depends_on`` entry by entry for each resource it registers (pulumi 3.272.0,
``pulumi/runtime/_depends_on.py``, ``_resolve_depends_on``: an ``Output`` built from the entry and two awaits per
entry, read 2026-12-02), so N resources each listing the same M resources cost N × M of that work: for 200 tenants,
80 000 entries and about 9 s of CPU of a preview (docs/benchmark.md). :func:`all_of` builds the one ``Output`` that
carries the M resources once; each dependent resource lists it instead of the M resources and the SDK reads its
resources in one await. The dependencies sent to the engine are the same URNs (the SDK still expands a component
into its children: ``_expand_dependencies`` in ``pulumi/runtime/rpc.py``), so the plan and every ``pulumi up``
order stay as they were; ``tests/components/test_depends.py`` compares both forms.
"""

from __future__ import annotations

from typing import Iterable

import pulumi


def all_of(resources: Iterable[pulumi.Resource]) -> pulumi.Output[None]:
    """An ``Output`` (value None) whose dependencies are ``resources``: ``depends_on=[all_of(rs)]`` makes a resource
    wait for exactly what ``depends_on=list(rs)`` would. Build it once and pass it to every dependent resource.

    :param resources: custom or component resources (a local component stands for its children, as in a list).
    """
    return pulumi.Output.all(*(r.urn for r in resources)).apply(lambda _: None)
