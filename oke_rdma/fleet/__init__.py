"""A fleet of oke-rdma stacks run by the Pulumi Kubernetes Operator with Flux (docs/fleet.md): the fleet file
(:mod:`.model`, :mod:`.load`), each stack's resolved config (:mod:`.resolve`), the rendered Kubernetes objects
(:mod:`.render`) and their offline validation against the pinned CRDs (:mod:`.validate`). CLI:
``python -m oke_rdma.fleet render``."""

from .load import Fleet, FleetError, load_fleet
from .render import Rendered, render
from .resolve import ResolvedStack, resolve

__all__ = ["Fleet", "FleetError", "ResolvedStack", "Rendered", "load_fleet", "render", "resolve"]
