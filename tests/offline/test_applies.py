"""A resource created inside an ``Output.apply`` callback is named as not judged on a first preview: the default
(update-like) run says the packs see it only once the callback's value is known; ``--unknowns`` names each one it did
not register because that value is unknown. A program that creates nothing inside a callback is named nowhere."""
from __future__ import annotations

from pathlib import Path

import pytest

from offline.applies import ApplyWatch, skipped_notes
from offline.engine import run_program
from offline.preview import main

HEAD = ("import pulumi, pulumi_oci as oci, pulumi_kubernetes as k8s\n"
        'vcn = oci.core.Vcn("v", compartment_id="ocid1.compartment.oc1..aaaa", cidr_blocks=["10.0.0.0/16"])\n'
        "NS = {'metadata': {'name': 'late', 'labels': {'pod-security.kubernetes.io/enforce': 'restricted'}}}\n")
PROGRAMS = {
    "inside": HEAD + "vcn.id.apply(lambda i: k8s.core.v1.Namespace('late', **NS))\n",
    "inside_async": HEAD + ("async def make(i):\n    k8s.core.v1.Namespace('late', **NS)\n    return i\n"
                            "vcn.id.apply(make)\n"),
    "inside_a_component": HEAD + (
        "class Tenant(pulumi.ComponentResource):\n"
        "    def __init__(self, name):\n"
        "        super().__init__('oke-rdma:test:Tenant', name)\n"
        "        k8s.core.v1.Namespace('late', **NS, opts=pulumi.ResourceOptions(parent=self))\n"
        "pulumi.Output.all(vcn.id, vcn.cidr_blocks).apply(lambda a: Tenant('t'))\n"),
    "outside": HEAD + "k8s.core.v1.Namespace('late', **NS)\nvcn.id.apply(lambda i: i.upper())\n",
    "inside_but_known": HEAD + "pulumi.Output.from_input('x').apply(lambda i: k8s.core.v1.Namespace('late', **NS))\n",
}
LATE = "kubernetes:core/v1:Namespace late: "


def preview(tmp_path: Path, capsys, name: str, *flags: str) -> tuple[int, str]:
    path = tmp_path / f"{name}.py"
    path.write_text(PROGRAMS[name])
    code = main(["--program", str(path), *flags])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("name", ["inside", "inside_async", "inside_a_component"])
def test_a_resource_created_inside_an_apply_is_named_in_both_runs(name, tmp_path, capsys):
    code, out = preview(tmp_path, capsys, name)
    assert code == 0 and LATE + "created inside an apply callback" in out, out
    code, out = preview(tmp_path, capsys, name, "--unknowns")
    assert code == 0 and LATE + "not registered on this preview and not judged" in out, out


def test_a_program_that_creates_nothing_inside_an_apply_is_named_nowhere(tmp_path, capsys):
    for flags in ((), ("--unknowns",)):
        code, out = preview(tmp_path, capsys, "outside", *flags)
        assert code == 0 and "apply callback" not in out, out


def test_a_callback_on_a_known_value_runs_on_a_first_preview_too(tmp_path, capsys):
    """Its resource is registered (and judged) with --unknowns: nothing is skipped there."""
    code, out = preview(tmp_path, capsys, "inside_but_known", "--unknowns")
    assert code == 0 and "not registered on this preview" not in out and "late" in out, out


def test_the_watch_marks_only_registrations_inside_callbacks_and_restores_the_sdk():
    import pulumi

    apply = pulumi.Output.apply
    source = PROGRAMS["inside"] + "k8s.core.v1.Namespace('early', metadata={'name': 'early'})\n"
    run = run_program({}, [], "dev", program=lambda: exec(source, {}))
    assert [u.rsplit("::", 1)[1] for u in run.inside_apply] == ["late"]
    assert pulumi.Output.apply is apply
    with ApplyWatch():
        assert pulumi.Output.apply is not apply
    assert pulumi.Output.apply is apply


def test_skipped_notes_name_only_what_the_first_preview_missed():
    urns = ["urn:pulumi:dev::p::kubernetes:core/v1:Namespace::a", "urn:pulumi:dev::p::kubernetes:core/v1:Namespace::b"]
    notes = skipped_notes(urns[:1], urns)
    assert len(notes) == 1 and notes[0].startswith("kubernetes:core/v1:Namespace b: not registered")
