"""Program code the engine calls back at deploy time, which no policy pack is shown (offline/engine_code.py): every
kind of resource hook, error hooks, hooks a transform binds and state migrations are refused by the offline preview
(exit 1), one line naming the resource, each hook's kind and name and the fix; the same resource without them, and a
transform that binds none, preview clean."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest

from offline.engine import run_program
from offline.engine_code import HOOK_KINDS
from offline.preview import main


def _noop(args):
    return None


def _retry(args):
    return True


def _run(program):
    return run_program({"oci:region": "sa-saopaulo-1"}, [], "t", program=program)


def _config_map(opts=None):
    k8s.core.v1.ConfigMap("cm", metadata={"name": "x", "namespace": "apps"}, data={"a": "b"}, opts=opts)


def _hooked(kind, hook):
    return pulumi.ResourceOptions(hooks=pulumi.ResourceHookBinding(**{kind: [hook]}))


@pytest.mark.parametrize("kind", [k for k in HOOK_KINDS if k != "on_error"])
def test_every_kind_of_resource_hook_is_refused_naming_resource_kind_and_hook(kind):
    run = _run(lambda: _config_map(_hooked(kind, pulumi.ResourceHook(f"h-{kind}", _noop))))
    (line,) = run.refusals
    assert line.startswith("kubernetes:core/v1:ConfigMap 'cm': ") and f"{kind} hook 'h-{kind}'" in line
    assert "remove it from the resource's options" in line


def test_an_anonymous_function_hook_is_refused_under_the_name_the_sdk_gives_it():
    (line,) = _run(lambda: _config_map(_hooked("after_create", _noop))).refusals
    assert "after_create hook 'kubernetes:core/v1:ConfigMap_cm_after_create_0'" in line


def test_an_error_hook_that_retries_a_failed_operation_is_refused():
    (line,) = _run(lambda: _config_map(_hooked("on_error", pulumi.ErrorHook("retry", _retry)))).refusals
    assert "on_error hook 'retry'" in line


def test_a_hook_that_also_runs_during_pulumi_preview_says_so():
    hook = lambda: pulumi.ResourceHook("dry", _noop, pulumi.ResourceHookOptions(on_dry_run=True))  # noqa: E731
    (line,) = _run(lambda: _config_map(_hooked("before_update", hook()))).refusals
    assert "before_update hook 'dry' (on_dry_run: pulumi preview runs it too)" in line


def test_a_state_migration_is_refused():
    (line,) = _run(lambda: _config_map(pulumi.ResourceOptions(state_migrations=[_noop]))).refusals
    assert "1 state migration" in line


def _bind_delete_hook(args):
    hook = pulumi.ResourceHook("wipe", _noop)
    return pulumi.ResourceTransformResult(args.props, pulumi.ResourceOptions.merge(
        args.opts, pulumi.ResourceOptions(hooks=pulumi.ResourceHookBinding(before_delete=[hook]))))


def test_a_stack_transform_binding_a_hook_to_every_resource_is_refused_on_each():
    def program():
        pulumi.runtime.register_resource_transform(_bind_delete_hook)
        k8s.core.v1.Namespace("ns", metadata={"name": "apps"})
        _config_map()
    refusals = _run(program).refusals
    assert len(refusals) == 2 and all("before_delete hook 'wipe'" in line for line in refusals)
    assert any(line.startswith("kubernetes:core/v1:Namespace 'ns'") for line in refusals)


def test_a_transform_that_removes_every_hook_leaves_nothing_to_refuse():
    def unhook(args):
        return pulumi.ResourceTransformResult(args.props, pulumi.ResourceOptions(hooks=None))
    run = _run(lambda: _config_map(pulumi.ResourceOptions(
        hooks=pulumi.ResourceHookBinding(after_create=[pulumi.ResourceHook("h", _noop)]), transforms=[unhook])))
    assert run.refusals == []


def test_a_transform_that_binds_no_hook_and_a_resource_without_hooks_are_not_refused():
    def program():
        pulumi.runtime.register_resource_transform(lambda args: None)
        _config_map()
    assert _run(program).refusals == []


PROGRAM = """import pulumi, pulumi_kubernetes as k8s
def apply_anything(args):
    pass  # a `kubectl apply` of anything, with the deployer's credentials
opts = pulumi.ResourceOptions(hooks=pulumi.ResourceHookBinding(
    after_create=[pulumi.ResourceHook("apply-anything", apply_anything)])) if {bad} else None
k8s.core.v1.ConfigMap("cm", metadata={{"name": "x", "namespace": "default"}}, data={{"a": "b"}}, opts=opts)
"""


@pytest.mark.parametrize("bad, expected", [(True, 1), (False, 0)])
def test_the_preview_exits_1_on_a_hook_and_names_it_in_diagnostics(bad, expected, tmp_path, capsys):
    path = tmp_path / "p.py"
    path.write_text(PROGRAM.format(bad=bad))
    code = main(["--program", str(path)])
    out = capsys.readouterr()
    assert code == expected, out.out + out.err
    if bad:
        assert "error: kubernetes:core/v1:ConfigMap 'cm': after_create hook 'apply-anything'" in out.out + out.err
        assert "Traceback" not in out.out + out.err
