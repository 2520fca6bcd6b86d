"""The Kubernetes versions generated objects are validated against: every minor OKE offers today
(:func:`oke_rdma.facts.kubernetes.offered_versions`) whose official OpenAPI schema kubernetes-validate ships offline
(1.37.0 ships up to 1.37), so the schema follows the versions the stacks can run instead of a fixed one."""

from __future__ import annotations

import os

import kubernetes_validate

from oke_rdma.facts.kubernetes import offered_versions


def _shipped() -> set[str]:
    root = os.path.join(os.path.dirname(kubernetes_validate.__file__), "kubernetes-json-schema")
    return {d.split("-", 1)[0].removeprefix("v").rsplit(".", 1)[0] for d in os.listdir(root) if d.startswith("v")}


#: ``"1.35.0"``-style versions for ``kubernetes_validate.validate``, oldest first.
SCHEMA_VERSIONS = tuple(f"{m}.0" for m in sorted({v.lstrip("v").rsplit(".", 1)[0] for v in offered_versions()}
                                                  & _shipped(), key=lambda m: tuple(map(int, m.split(".")))))


def validate_all(obj: dict) -> None:
    """Validate ``obj`` strictly (unknown fields are errors) against every :data:`SCHEMA_VERSIONS` schema."""
    import copy

    for version in SCHEMA_VERSIONS:
        assert kubernetes_validate.validate(copy.deepcopy(obj), version, strict=True) == version.rsplit(".", 1)[0]
