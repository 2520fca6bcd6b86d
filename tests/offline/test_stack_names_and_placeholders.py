"""A stack name that has no file names the stacks that exist (with a did-you-mean), and placeholders left in a
stack file (values containing 'replacewith', as new_stack writes them) are named by key in the preview."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from oke_rdma.new_stack import placeholder_keys
from offline.stackfile import StackFileError, read_stack_file
from tests.inprocess import preview

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_stack_names_the_closest_existing_one(tmp_path):
    """--stack gov-lno beside Pulumi.gov-lon.yaml: did you mean gov-lon, and the stacks that exist."""
    (tmp_path / "Pulumi.gov-lon.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    with pytest.raises(StackFileError) as e:
        read_stack_file(tmp_path / "Pulumi.gov-lno.yaml")
    assert str(e.value).endswith("no such stack config file; did you mean --stack gov-lon? stacks here: dev, gov-lon; a "
                                 "stack file elsewhere or named otherwise: --config-file PATH --stack NAME")


def test_a_missing_stack_far_from_every_name_lists_them_without_a_guess(tmp_path):
    """No close name: only the list; an empty directory says so."""
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    with pytest.raises(StackFileError) as e:
        read_stack_file(tmp_path / "Pulumi.zzzzzz.yaml")
    assert "did you mean" not in str(e.value) and "stacks here: dev;" in str(e.value)
    assert str(e.value).endswith("--config-file PATH --stack NAME")
    with pytest.raises(StackFileError) as e:
        read_stack_file(tmp_path / "empty" / "Pulumi.dev.yaml")
    assert "no such stack config file" in str(e.value)


def test_the_missing_stack_example_in_new_stack_md_is_the_message_the_preview_gives(tmp_path):
    """docs/new-stack.md quotes the message for a mistyped --stack: it is what the reader gives for those files."""
    import re

    text = (ROOT / "docs" / "new-stack.md").read_text()
    quoted = re.search(r"is refused naming the stacks that exist \(`([^`]+)`\)", text).group(1)
    stacks = re.search(r"stacks here: ([a-z0-9-, ]+)", quoted).group(1).split(", ")
    for name in stacks:
        (tmp_path / f"Pulumi.{name}.yaml").write_text("config: {}\n")
    typo = re.search(r"`--stack ([a-z0-9-]+)` with no", text).group(1)
    with pytest.raises(StackFileError) as e:
        read_stack_file(tmp_path / f"Pulumi.{typo}.yaml")
    assert quoted in str(e.value)


def test_the_preview_refuses_a_typo_stack_with_exit_2_and_the_list():
    """The preview's own --stack: exit 2, one line naming dev and prod."""
    out = preview("--stack", "dve")
    assert out.returncode == 2 and "did you mean --stack dev? stacks here: dev, " in out.stderr
    assert "prod" in out.stderr.split("stacks here:")[1]  # the user's own untracked stack files may be listed too


def test_placeholder_keys_are_found_in_nested_and_json_values():
    """Key paths in pulumi config set --path notation, from a stack file's map or Pulumi's raw JSON text."""
    config = {"oke-rdma:compartmentId": "ocid1.compartment.oc1..aaaaaaaareplacewithcompartment000",
              "oke-rdma:nodePools": '{"gpu": {"imageId": "ocid1.image.oc1..aaaaaaaareplacewithgpu"}, '
                                    '"gpu-b": {"imageId": "ocid1.image.oc1..real"}}',
              "oke-rdma:tenants": {"t": {"members": [{"iamGroupId": "ocid1.group.oc1..aaaaaaaareplacewithg"}]}}}
    assert placeholder_keys(config) == ["oke-rdma:compartmentId", "oke-rdma:nodePools.gpu.imageId",
                                        "oke-rdma:tenants.t.members[0].iamGroupId"]
    assert placeholder_keys({"oke-rdma:nodePools": {"gpu": {"imageId": "ocid1.image.oc1..real"}}}) == []


def test_the_preview_names_the_placeholders_left_in_a_stack_file(tmp_path):
    """dev with its compartment replaced by a placeholder: a warning naming oke-rdma:compartmentId; dev itself has
    none and gets no such warning."""
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    doc["config"]["oke-rdma:compartmentId"] = ("ocid1.compartment.oc1..aaaaaaaareplacewithcompartmentid00000000000000"
                                               "00000000000000000000000000000")
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(doc))
    out = preview("--config-file", path, "--stack", "dev")
    text = " ".join(out.stdout.split())
    assert "Pulumi.dev.yaml still holds 1 placeholder" in text and "oke-rdma:compartmentId;" in text
    clean = preview("--stack", "dev")
    assert clean.returncode == 0 and "placeholder" not in clean.stdout
