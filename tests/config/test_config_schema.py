"""Pulumi.yaml and docs/configuration.md describe every config key the model accepts, and nothing else: both are
generated from the model (oke_rdma.config.reference), and every field carries a description."""

import re
from pathlib import Path
from typing import Any, Literal, Optional

import pytest
import yaml
from pydantic import Field

from oke_rdma.config import StackConfig, StrList
from oke_rdma.config._base import _Model
from oke_rdma.config.reference import (bounds_text, default_text, iter_rows, pulumi_config_schema, render_table,
                                       type_name)

ROOT = Path(__file__).resolve().parents[2]
MODEL_KEYS = {f.alias or n for n, f in StackConfig.model_fields.items()} - {"region"}  # region is oci:region


def test_pulumi_yaml_declares_or_lists_every_top_level_key():
    text = (ROOT / "Pulumi.yaml").read_text()
    project = yaml.safe_load(text)
    declared = set(project["config"])
    listed = set(re.findall(r"^#\s+oke-rdma:(\w+)\s{2,}\S", text, re.M))
    assert declared.isdisjoint(listed)
    assert declared | listed == MODEL_KEYS
    for key, decl in project["config"].items():
        # Pulumi's project schema (configTypeDeclaration) types only these; anything else makes the CLI refuse it.
        assert decl["type"] in {"string", "integer", "boolean", "array"} and decl["description"], key
        assert set(decl) <= {"type", "description", "default", "secret", "items"}, key
        if decl["type"] == "array":
            assert decl["items"]["type"] in {"string", "integer", "boolean"}, key


def test_pulumi_yaml_declared_defaults_are_the_model_defaults():
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    fields = {f.alias or n: f for n, f in StackConfig.model_fields.items()}
    for key, decl in project["config"].items():
        if "default" in decl:
            assert decl["default"] == fields[key].default, key


def test_configuration_page_names_every_key_path():
    page = (ROOT / "docs" / "configuration.md").read_text()
    paths = [row.path for row in iter_rows()]
    assert len(paths) == len(set(paths)) > 100
    for path in paths:
        assert f"| `{path}` |" in page, path
    for nested in ("nodePools.<pool>.cycling.maxSurge", "tenants.<tenant>.serviceAccounts.<serviceAccount>.allow",
                   "network.existing.nsgIds.storage", "platform.kueue.topologyLabeler.image", "oci:region"):
        assert nested in paths


def test_every_row_has_type_default_and_description():
    rows = {row.path: row for row in iter_rows()}
    assert rows["nodePools.<pool>.size"].bounds == "0 to 1000"
    assert rows["nodePools.<pool>.size"].default == "**required**"
    assert rows["availabilityDomains"].bounds == "at least 1 entry"
    assert rows["namePrefix"].default == "`okerdma`"
    assert rows["network.existing"].default == "—"
    assert rows["storage.fss.identitySquash"].type == "one of `ROOT`, `ALL`, `NONE`"
    assert rows["platform.kubePrometheusStack.grafanaAdminPassword"].type == "string (**secret**)"
    assert rows["platform.kueue.version"].default == "`0.19.7`"
    assert rows["tenants.<tenant>.quota.gpu"].bounds == "at least 0"
    assert all(row.description for row in rows.values())


class _Undocumented(_Model):
    size: int = Field(1, ge=1)


class _Strange(_Model):
    when: complex = Field(0j, description="a type the reference cannot describe")


def test_a_field_without_a_description_is_refused_by_name():
    with pytest.raises(ValueError, match=r"oke-rdma:x\.size \(_Undocumented\.size\) has no description"):
        list(iter_rows(_Undocumented, "x."))


def test_a_type_the_reference_cannot_describe_is_refused():
    with pytest.raises(TypeError, match="cannot describe"):
        list(iter_rows(_Strange))


@pytest.mark.parametrize("annotation, text", [
    (str, "string"), (int, "integer"), (float, "number"), (bool, "boolean"), (Optional[int], "integer"),
    (StrList, "list of string"), (Literal["A", "B"], "one of `A`, `B`"), (dict[str, str], "map of name → string"),
    (dict[str, Any], "map (any YAML)"),
])
def test_type_names(annotation, text):
    assert type_name(annotation) == text


@pytest.mark.parametrize("field, text", [
    (Field(ge=0, le=10), "0 to 10"), (Field(gt=0), "above 0"), (Field(lt=5), "below 5"), (Field(ge=1), "at least 1"),
    (Field(min_length=2), "at least 2 entries"), (Field(), ""),
])
def test_bounds_in_words(field, text):
    assert bounds_text(field) == text


@pytest.mark.parametrize("field, text", [
    (Field(), "**required**"), (Field(None), "—"), (Field(False), "`false`"), (Field(()), "`[]`"),
    (Field(default_factory=dict), "`{}`"), (Field("15d"), "`15d`"),
])
def test_defaults_as_written_in_a_stack_file(field, text):
    assert default_text(field) == text


def test_renderers_are_deterministic():
    assert render_table() == render_table() and pulumi_config_schema() == pulumi_config_schema()
