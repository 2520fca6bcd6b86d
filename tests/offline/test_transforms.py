"""The offline engine runs resource and stack transforms as the Pulumi engine does (offline/transforms.py): the
recorded registration carries the transformed inputs and options; a transform that raises, or one that cannot be
called, fails the preview (exit 3) naming the resource."""
from __future__ import annotations

import pulumi
import pulumi_oci as oci
import pytest
from pulumi.runtime.proto import callback_pb2, resource_pb2

from offline.engine import run_program
from offline.preview import main
from offline.transforms import TransformNotRun, Transforms

C = "ocid1.compartment.oc1..aaaaaaaaredteam"


def _run(program):
    return run_program({"oci:region": "sa-saopaulo-1"}, [], "t", program=program)


def _bucket(opts=None):
    return oci.objectstorage.Bucket("b", compartment_id=C, namespace="ns", name="data", opts=opts)


def _by_name(run, name):
    return next(r for r in run.resources if r.name == name)


def test_a_transform_replaces_inputs_and_options_the_engine_registers():
    def tighten(args):
        return pulumi.ResourceTransformResult({**args.props, "versioning": "Enabled"},
                                              pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(
                                                  protect=True, ignore_changes=["freeformTags"])))
    res = _by_name(_run(lambda: _bucket(pulumi.ResourceOptions(transforms=[tighten]))), "b")
    assert res.inputs["versioning"] == "Enabled" and res.protect and res.ignore_changes == ["freeformTags"]


def test_a_transform_returning_none_leaves_the_registration_as_declared():
    res = _by_name(_run(lambda: _bucket(pulumi.ResourceOptions(transforms=[lambda args: None]))), "b")
    assert "versioning" not in res.inputs and not res.protect and res.inputs["name"] == "data"


def test_transforms_run_in_the_engines_order_own_then_parents_then_stack():
    seen = []

    def mark(tag):
        def fn(args):
            if args.type_ == "oci:ObjectStorage/bucket:Bucket":
                seen.append(tag)
        return fn

    class Box(pulumi.ComponentResource):
        def __init__(self, name, opts=None):
            super().__init__("acme:index:Box", name, None, opts)
            _bucket(pulumi.ResourceOptions(parent=self, transforms=[mark("own")]))

    def program():
        pulumi.runtime.register_resource_transform(mark("stack"))
        Box("box", pulumi.ResourceOptions(transforms=[mark("parent")]))
    _run(program)
    assert seen == ["own", "parent", "stack"]


def test_a_transform_that_raises_fails_the_preview_naming_the_resource(tmp_path, capsys):
    path = tmp_path / "prog.py"
    path.write_text("import pulumi, pulumi_oci as oci\n"
                    "def boom(args):\n    raise ValueError('no buckets here')\n"
                    f"oci.objectstorage.Bucket('b', compartment_id={C!r}, namespace='ns', name='data',\n"
                    "    opts=pulumi.ResourceOptions(transforms=[boom]))\n")
    assert main(["--program", str(path)]) == 3
    out = capsys.readouterr()
    assert "oci:ObjectStorage/bucket:Bucket b" in out.out + out.err and "no buckets here" in out.out + out.err


def test_a_transform_that_cannot_be_called_is_refused_not_skipped():
    request = resource_pb2.RegisterResourceRequest(
        type="oci:ObjectStorage/bucket:Bucket", name="b", custom=True,
        transforms=[callback_pb2.Callback(token="gone", target="127.0.0.1:1")])
    with pytest.raises(TransformNotRun, match="oci:ObjectStorage/bucket:Bucket b: a transform applies"):
        Transforms().run(request)


def test_without_transforms_the_request_is_passed_through_unchanged():
    request = resource_pb2.RegisterResourceRequest(type="oci:ObjectStorage/bucket:Bucket", name="b")
    assert Transforms().run(request) is request


def test_a_stack_invoke_transform_changes_the_arguments_the_provider_answers():
    seen = []

    def retarget(args: pulumi.InvokeTransformArgs):
        seen.append(args.token)
        return pulumi.InvokeTransformResult({**args.args, "filters": [{"name": "name", "values": ["transformed"]}]},
                                            args.opts)

    def program(transform: bool):
        def body():
            if transform:
                pulumi.runtime.register_invoke_transform(retarget)
            found = oci.core.get_services(filters=[{"name": "name", "values": ["declared"]}])
            oci.objectstorage.Bucket("b", compartment_id=C, namespace="ns", name=found.filters[0].values[0])
        return body
    assert _by_name(_run(program(True)), "b").inputs["name"] == "transformed"
    assert seen == ["oci:Core/getServices:getServices"]
    assert _by_name(_run(program(False)), "b").inputs["name"] == "declared"
