"""A program exception never hangs the offline preview, and the product's own program never leaves the engine
waiting on an output it will not resolve: the exception is reported in one line (exit 3) within the run."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest

from offline import preview
from offline.engine import run_program
from offline.settle import HANG_NOTE
from oke_rdma.deferred import DeferredNotResolved, deferred_output

HANG_MARK = HANG_NOTE.split(":")[0]  # "pulumi preview would wait here forever and never show this error"


def _config_map(name, value):
    return k8s.core.v1.ConfigMap(name, data={"value": value})


def _notes(error: BaseException) -> str:
    return "\n".join(getattr(error, "__notes__", []))


def test_a_raise_after_an_unresolved_deferred_output_is_reported_with_the_hang_note():
    """The bare SDK pattern: a registration waits on a deferred output, the program raises before resolving it.
    The language host would wait forever; the offline run raises the program's exception and says so."""
    def program():
        value, _resolve = pulumi.deferred_output()
        _config_map("waits", value)
        pulumi.export("waits", value.apply(lambda v: v))
        raise RuntimeError("boom after the deferred output")

    with pytest.raises(RuntimeError, match="boom after the deferred output") as caught:
        run_program({}, [], "dev", program=program)
    assert HANG_MARK in _notes(caught.value) and "pulumi/pulumi#18559" in _notes(caught.value)


def test_a_raise_inside_an_apply_is_reported_without_the_hang_note():
    """An apply that raises fails its own output: the SDK re-raises it; nothing was left waiting."""
    def program():
        _config_map("ok", "1")
        pulumi.export("y", pulumi.Output.from_input(1).apply(lambda v: {}["missing"]))

    with pytest.raises(KeyError) as caught:
        run_program({}, [], "dev", program=program)
    assert HANG_MARK not in _notes(caught.value)


def test_a_raise_inside_an_apply_feeding_a_deferred_output_is_reported():
    """The deferred output resolved from an output whose apply raises fails with that error: no hang."""
    def program():
        value, resolve = pulumi.deferred_output()
        _config_map("waits", value)
        resolve(pulumi.Output.from_input("x").apply(lambda v: int(v)))

    with pytest.raises(ValueError, match="invalid literal") as caught:
        run_program({}, [], "dev", program=program)
    assert HANG_MARK not in _notes(caught.value)


def test_a_program_without_an_exception_still_resolves_its_deferred_output():
    """The helper's happy path: the value given to resolve reaches the registration that waited on it."""
    def program():
        with deferred_output() as value:
            _config_map("waits", value.output)
            value.resolve(pulumi.Output.from_input("resolved-later"))

    run = run_program({}, [], "dev", program=program)
    cm = next(r for r in run.resources if r.name == "waits")
    assert cm.inputs["data"] == {"value": "resolved-later"}


def test_the_deferred_helper_fails_its_output_with_the_block_exception():
    """Inside ``with deferred_output()``, an exception fails the output: the waiting registration fails with the
    same exception, which is reported with where the program raised and without the hang note."""
    def program():
        with deferred_output() as value:
            _config_map("waits", value.output)
            raise RuntimeError("boom inside the block")

    with pytest.raises(RuntimeError, match="boom inside the block") as caught:
        run_program({}, [], "dev", program=program)
    notes = _notes(caught.value)
    assert HANG_MARK not in notes and "before the deferred output it waits on was resolved" in notes
    assert __file__ in notes


def test_the_deferred_helper_refuses_a_block_that_never_resolves():
    """Leaving the block without resolve is a program error of its own, not a silent wait."""
    def program():
        with deferred_output() as value:
            _config_map("waits", value.output)

    with pytest.raises(DeferredNotResolved) as caught:
        run_program({}, [], "dev", program=program)
    assert HANG_MARK not in _notes(caught.value)


def test_the_product_program_failing_while_the_cluster_id_is_deferred_exits_3_with_one_line(capsys, monkeypatch):
    """The product's own program: the cluster-principal policy waits on the deferred cluster id; the Cluster
    component raising before it is declared is reported (exit 3, the error's one line first), never a hang."""
    import oke_rdma.cluster as cluster

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the cluster component")

    monkeypatch.setattr(cluster.Cluster, "__init__", broken)
    assert preview.main(["--stack", "dev"]) == preview.EXIT_PROGRAM == 3
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "error: the program failed: RuntimeError: a bug in the cluster component"
    assert HANG_MARK not in err  # the product settles its deferred output itself
    assert f"raised at {__file__}, line" in err  # where it raised (the SDK re-raises it with its own frames)
