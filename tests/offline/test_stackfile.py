"""Stack files are read as the Pulumi CLI reads them (Go yaml.v3 + config.Value), not with YAML 1.1 rules."""

import json

import pytest

from offline.stackfile import SECRET_PLACEHOLDER, StackFileError, read_stack_file, resolve_plain


def read(tmp_path, text: str):
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(text)
    return read_stack_file(path)


def test_top_level_scalars_are_handed_over_as_their_source_text(tmp_path):
    config, secrets = read(tmp_path, "config:\n  oke-rdma:a: yes\n  oke-rdma:b: 010\n  oke-rdma:c: 1_0\n"
                                     "  oke-rdma:d: 1:20\n  oke-rdma:e: 2024-01-01\n  oke-rdma:f: ~\n  g: 3.0\n"
                                     "  oke-rdma:h: !!binary aGVsbG8=\n  oci:region: 'sa-saopaulo-1'\n")
    assert config == {"oke-rdma:a": "yes", "oke-rdma:b": "010", "oke-rdma:c": "1_0", "oke-rdma:d": "1:20",
                      "oke-rdma:e": "2024-01-01", "oke-rdma:f": "", "oke-rdma:g": "3.0", "oke-rdma:h": "hello",
                      "oci:region": "sa-saopaulo-1"}
    assert secrets == []


@pytest.mark.parametrize("text, value", [
    ("yes", "yes"), ("No", "No"), ("on", "on"), ("OFF", "OFF"), ("y", "y"),  # YAML 1.1 booleans are text in yaml.v3
    ("true", True), ("False", False), ("TRUE", True),
    ("010", 8), ("0o17", 15), ("0x1F", 31), ("0b11", 3), ("1_0", 10), ("-0x10", -16), ("+5", 5),  # Go base prefixes
    ("09", 9.0),  # not octal, so Go reads it as a float
    ("1:20", "1:20"),  # no base-60 numbers
    ("3.0", 3.0), (".5", 0.5), ("1e3", 1000.0), ("1e400", "1e400"),
    ("~", None), ("null", None), ("NULL", None),
    ("2024-01-01", "2024-01-01T00:00:00Z"), ("2024-13-01", "2024-13-01"),
    ("10.0.0.0/16", "10.0.0.0/16"), ("<<", "<<"),
])
def test_plain_scalars_resolve_like_yaml_v3(text, value):
    assert resolve_plain(text)[1] == value


def test_nested_values_become_go_json(tmp_path):
    config, _ = read(tmp_path, "config:\n  oke-rdma:network:\n    public: yes\n    size: 3.0\n    mode: 010\n"
                               "    when: 2024-01-01\n    z: 1\n    a: [on, 0x10, 1.5, 1e-7]\n    1: int-key\n")
    assert config["oke-rdma:network"] == ('{"1":"int-key","a":["on",16,1.5,1e-7],"mode":8,"public":"yes","size":3,'
                                          '"when":"2024-01-01T00:00:00Z","z":1}')
    assert json.loads(config["oke-rdma:network"])["size"] == 3  # an integer, as the Go program would see it


def test_merge_keys_and_anchors(tmp_path):
    config, _ = read(tmp_path, "config:\n  oke-rdma:nodePools:\n    base: &b {size: 1, shape: X}\n"
                               "    gpu:\n      <<: *b\n      size: 2\n")
    assert json.loads(config["oke-rdma:nodePools"])["gpu"] == {"shape": "X", "size": 2}


def test_secure_values_are_placeholders_and_their_keys_secret(tmp_path):
    config, secrets = read(tmp_path, "config:\n  oke-rdma:token:\n    secure: AAABAC==\n  oke-rdma:platform:\n"
                                     "    kubePrometheusStack:\n      grafanaAdminPassword:\n        secure: AAAB\n"
                                     "  oke-rdma:plain: {secure: 3}\n")
    assert config["oke-rdma:token"] == SECRET_PLACEHOLDER
    assert json.loads(config["oke-rdma:platform"]) == {
        "kubePrometheusStack": {"grafanaAdminPassword": SECRET_PLACEHOLDER}}
    assert secrets == ["oke-rdma:token", "oke-rdma:platform"]  # {secure: 3} is not a ciphertext: plain config
    assert json.loads(config["oke-rdma:plain"]) == {"secure": 3}


def test_the_placeholder_is_the_one_the_config_loader_recognises():
    from oke_rdma.config._base import SECRET_PLACEHOLDER as LOADER_PLACEHOLDER
    assert SECRET_PLACEHOLDER == LOADER_PLACEHOLDER


@pytest.mark.parametrize("text, message", [
    ("config:\n  oke-rdma:namePrefix: a\n  oke-rdma:namePrefix: b\n",
     'line 3: mapping key "oke-rdma:namePrefix" already defined at line 2; keep one of them'),
    ("config:\n  oke-rdma:network:\n    vcnCidr: 10.0.0.0/16\n    dnsLabel: x\n    vcnCidr: 10.1.0.0/16\n",
     'line 5: mapping key "vcnCidr" already defined at line 3; keep one of them'),
    ("config: 1\nconfig: 2\n", 'line 2: mapping key "config" already defined at line 1'),
    ("config:\n  oke-rdma:network: [unclosed\n", ":3:1: not valid YAML: expected ',' or ']', but got '<stream end>' "
                                               "(while parsing a flow sequence at line 2); fix the syntax there"),
    ("config:\n  oke-rdma:a: b\n c: d\n", ":3:2: not valid YAML"),
    ("config:\n  oke-rdma:storage:\n    fss:\n      throughputGbps: .nan\n", "line 3: json: unsupported value: NaN"),
    ("config:\n  oke-rdma:x: !!int abc\n", "line 2: cannot decode !!str `abc` as a !!int"),
    ("config:\n  oke-rdma:x: &a\n    y: *a\n", "an anchor's value contains an alias to itself"),
    ("config:\n  oke-rdma:x:\n    ? [a]\n    : 1\n", "line 3: a mapping key must be a scalar"),
    ("config: [a]\n", "line 1: 'config:' is a list (its entries start with '- ')"),
    ("- a\n", "line 1: expected a mapping with a 'config:' mapping of key: value"),
    ("config:\n  oke-rdma:x: !!binary '%%%'\n", "!!binary value contains invalid base64 data"),
])
def test_malformed_stack_files_name_the_line(tmp_path, text, message):
    with pytest.raises(StackFileError) as err:
        read(tmp_path, text)
    assert message in str(err.value)
    assert str(err.value).startswith(str(tmp_path / "Pulumi.test.yaml"))


def test_empty_files_and_empty_config_are_empty(tmp_path):
    assert read(tmp_path, "") == ({}, [])
    assert read(tmp_path, "config:\n") == ({}, [])
    assert read(tmp_path, "secretsprovider: passphrase\n") == ({}, [])


@pytest.mark.parametrize("text", ["environment:\n  - team/dev\nconfig:\n  a: b\n",
                                  "config:\n  a: b\nenvironment: [team/dev, team/shared]\n"])
def test_a_stack_file_importing_esc_environments_is_refused_naming_the_offline_way(tmp_path, text):
    path = tmp_path / "Pulumi.esc.yaml"
    path.write_text(text)
    with pytest.raises(StackFileError) as err:
        read_stack_file(path)
    assert "Pulumi ESC" in str(err.value) and "--config-json" in str(err.value) and "line " in str(err.value)


def test_an_empty_environment_key_is_no_esc_import(tmp_path):
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text("environment:\nconfig:\n  a: b\n")
    assert read_stack_file(path)[0] == {"oke-rdma:a": "b"}


def test_a_stack_file_read_again_gives_fresh_copies_and_follows_its_text(tmp_path):
    """Reading the same text twice gives equal results that the caller may change without touching the next read;
    a file whose text changed (same size, same instant) is read anew; a bad file still fails every time."""
    from offline.stackfile import StackFileError, read_stack_file

    path = tmp_path / "Pulumi.x.yaml"
    path.write_text("config:\n  oke-rdma:namePrefix: abc\n")
    first = read_stack_file(path)
    first[0]["oke-rdma:namePrefix"] = "changed"
    first[1].append("oke-rdma:namePrefix")
    assert read_stack_file(path) == ({"oke-rdma:namePrefix": "abc"}, [])
    path.write_text("config:\n  oke-rdma:namePrefix: xyz\n")
    assert read_stack_file(path) == ({"oke-rdma:namePrefix": "xyz"}, [])
    path.write_text("config:\n  a: [1\n")
    for _ in range(2):
        with pytest.raises(StackFileError, match=r"Pulumi.x.yaml:\d+:\d+: not valid YAML"):
            read_stack_file(path)
