"""A program that passes NaN or an infinity as a resource input: the pack's gRPC layer cannot carry it (protobuf's
JSON form has no NaN), so the offline preview refuses it before the packs with one line per property, naming the
resource and the property path, exit 3 — never a traceback; the same program with a finite number previews."""
from __future__ import annotations

from offline.preview import main

PROGRAM = """import pulumi_oci as oci
oci.core.NetworkSecurityGroupSecurityRule("r", network_security_group_id="ocid1.networksecuritygroup.oc1..n",
    direction="INGRESS", protocol="6", source="10.0.0.0/16", source_type="CIDR_BLOCK",
    tcp_options={{"destination_port_range": {{"min": {lo}, "max": 443}}}})
"""


def _preview(tmp_path, capsys, lo: str) -> tuple[int, str]:
    path = tmp_path / "p.py"
    path.write_text(PROGRAM.format(lo=lo))
    code = main(["--program", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_nan_port_is_refused_naming_the_resource_and_property(tmp_path, capsys):
    code, out = _preview(tmp_path, capsys, "float('nan')")
    assert code == 3 and "Traceback" not in out, out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("error:")]
    assert "'r'" in line and "tcpOptions.destinationPortRange.min is nan" in line


def test_a_finite_port_previews(tmp_path, capsys):
    code, out = _preview(tmp_path, capsys, "443")
    assert code == 0, out


def test_only_a_struct_protobuf_cannot_write_as_json_is_walked_for_non_finite_numbers():
    """A registration's inputs in wire form, and the paths of their NaN or infinite numbers: none for a struct
    protobuf's JSON form accepts (its dict is MessageToDict's), every one — nested in maps and lists — otherwise."""
    from google.protobuf import json_format, struct_pb2

    from offline.engine import wire_dict_and_non_finite

    finite = struct_pb2.Struct()
    finite.update({"a": [1, 2.5, {"b": -3}], "c": "x"})
    assert wire_dict_and_non_finite(finite) == (json_format.MessageToDict(finite), [])
    bad = struct_pb2.Struct()
    bad.update({"a": [1, {"b": float("-inf")}], "n": float("nan"), "c": "x"})
    value, paths = wire_dict_and_non_finite(bad)
    assert sorted(paths) == ["a[1].b", "n"] and value["c"] == "x" and value["a"][0] == 1
