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
