"""Pulumi.yaml and README describe every config key the model accepts, and nothing else."""

import re
from pathlib import Path

import yaml

from oke_rdma.config import StackConfig

ROOT = Path(__file__).resolve().parents[2]
MODEL_KEYS = {f.alias or n for n, f in StackConfig.model_fields.items()} - {"region"}  # region is oci:region


def test_pulumi_yaml_declares_or_lists_every_key():
    text = (ROOT / "Pulumi.yaml").read_text()
    project = yaml.safe_load(text)
    declared = set(project["config"])
    listed = set(re.findall(r"^#\s+oke-rdma:(\w+)\s+object", text, re.M))
    assert declared.isdisjoint(listed)
    assert declared | listed == MODEL_KEYS
    for key, decl in project["config"].items():
        # Pulumi's project schema types only these; anything else makes `pulumi preview` refuse the project.
        assert decl["type"] in {"string", "integer", "boolean", "array"} and decl["description"], key
        assert set(decl) <= {"type", "description", "default", "secret", "items"}, key


def test_readme_config_reference_names_every_key():
    readme = (ROOT / "README.md").read_text()
    for key in MODEL_KEYS:
        assert f"`{key}" in readme, key
