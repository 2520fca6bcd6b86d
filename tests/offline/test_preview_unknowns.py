"""The offline preview's report never assumes the shape of a value: any input, a whole object included, may be unknown
at a first preview (built in ``.apply()``) or a secret, and the tree summaries, the IAM section and the JSON plan show
``[unknown]``/``?``/``[secret]`` instead of failing."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from offline import preview
from offline.preview import SECRET_SIG, UNKNOWN

C = 'C = "ocid1.compartment.oc1..aaaa"\n'
VCN = 'vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.0.0.0/16"])\n'
SUBNET = 'sub = oci.core.Subnet("cp", compartment_id=C, vcn_id=vcn.id, cidr_block="10.0.0.0/28")\n'
CLUSTER = ('cl = oci.containerengine.Cluster("oke", compartment_id=C, kubernetes_version="v1.34.1", vcn_id=vcn.id, '
           'type="ENHANCED_CLUSTER", endpoint_config={endpoint})\n')

#: Programs whose whole object inputs are built in .apply(): name → (source, the tree line's summary at a first preview).
PROGRAMS = {
    "node_pool_config_details": (
        "import pulumi, pulumi_oci as oci\n" + C + VCN + SUBNET
        + CLUSTER.format(endpoint='{"subnet_id": sub.id, "is_public_ip_enabled": False}')
        + 'cc = oci.core.ComputeCluster("cc", availability_domain="AD-1", compartment_id=C)\n'
          'oci.containerengine.NodePool("gpu", cluster_id=cl.id, compartment_id=C, node_shape="BM.GPU.H100.8", '
          'kubernetes_version="v1.34.1", node_source_details={"source_type": "IMAGE", "image_id": "ocid1.image.oc1..x"}, '
          'node_config_details=pulumi.Output.all(cc.id, sub.id).apply(lambda a: {"size": 2, "computeClusterId": a[0], '
          '"placementConfigs": [{"availabilityDomain": "AD-1", "subnetId": a[1]}]}))\n',
        "BM.GPU.H100.8 ×[unknown] computeClusterId=?"),
    "cluster_endpoint_config": (
        "import pulumi, pulumi_oci as oci\n" + C + VCN + SUBNET
        + CLUSTER.format(endpoint='sub.id.apply(lambda s: {"subnetId": s, "isPublicIpEnabled": False})'),
        "type=ENHANCED_CLUSTER v1.34.1 endpoint=?"),
    "persistent_volume_spec": (
        "import pulumi, pulumi_oci as oci, pulumi_kubernetes as k8s\n" + C + VCN
        + 'prov = k8s.Provider("p", kubeconfig="{}")\n'
          'k8s.core.v1.PersistentVolume("pv", spec=vcn.id.apply(lambda v: {"capacity": {"storage": "1Gi"}, '
          '"accessModes": ["ReadWriteMany"], "csi": {"driver": "fss.csi.oraclecloud.com", "volumeHandle": v}}), '
          'opts=pulumi.ResourceOptions(provider=prov))\n',
        "[unknown] [unknown]"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_whole_object_input_unknown_at_a_first_preview_is_shown_not_a_traceback(tmp_path, capsys, name):
    source, summary = PROGRAMS[name]
    program = tmp_path / f"{name}.py"
    program.write_text(source)
    (tmp_path / "Pulumi.t.yaml").write_text("config:\n  oci:region: us-ashburn-1\n")
    plan = tmp_path / "plan.json"
    code = preview.main(["--unknowns", "--details", "--program", str(program), "--config-file",
                         str(tmp_path / "Pulumi.t.yaml"), "--json", str(plan)])
    out = capsys.readouterr()
    assert code in (0, 1), out.err  # policy findings allowed; never 3 (a traceback of the preview itself)
    assert "Traceback" not in out.err and UNKNOWN not in out.out
    assert any(line.rstrip().endswith("create  " + summary) for line in out.out.splitlines()), out.out
    doc = json.loads(plan.read_text())
    inputs = json.dumps([r["inputs"] for r in doc["resources"]])  # (a provider reference keeps Pulumi's own form)
    assert UNKNOWN not in inputs and "[unknown]" in inputs
    # the plan of a first preview is a valid --previous for the next run, which still shows the unknowns
    code = preview.main(["--unknowns", "--program", str(program), "--config-file", str(tmp_path / "Pulumi.t.yaml"),
                         "--previous", str(plan)])
    assert code in (0, 1) and "Traceback" not in capsys.readouterr().err


SECRET = {SECRET_SIG[0]: SECRET_SIG[1], "value": "hidden-text"}
#: type → the summarised inputs: every one of them a whole unknown, then a whole secret.
SUMMARISED = ["oci:ContainerEngine/cluster:Cluster", "oci:ContainerEngine/nodePool:NodePool", "oci:Core/subnet:Subnet",
              "oci:Core/vcn:Vcn", "kubernetes:helm.sh/v3:Release", "oci:Identity/policy:Policy",
              "oci:FileStorage/mountTarget:MountTarget", "kubernetes:core/v1:PersistentVolume",
              "kubernetes:core/v1:PersistentVolumeClaim", "kubernetes:storage.k8s.io/v1:StorageClass"]
KEYS = ["endpointConfig", "type", "kubernetesVersion", "nodeConfigDetails", "nodeShape", "cidrBlock", "cidrBlocks",
        "chart", "version", "namespace", "statements", "requestedThroughput", "spec", "metadata", "parameters",
        "provisioner"]


@pytest.mark.parametrize("typ", SUMMARISED)
@pytest.mark.parametrize("value", [UNKNOWN, SECRET, [UNKNOWN], {"csi": UNKNOWN, "size": SECRET}, 7, None],
                         ids=["unknown", "secret", "list-of-unknown", "object-of-unknown", "number", "missing"])
def test_summary_assumes_no_shape(typ, value):
    line = preview._summary(SimpleNamespace(type=typ, inputs={k: value for k in KEYS}))
    assert UNKNOWN not in line and "hidden-text" not in line
    if value == UNKNOWN:
        assert "[unknown]" in line or "?" in line, line


def test_summary_of_a_whole_unknown_resource_input_object():
    for typ in SUMMARISED:
        line = preview._summary(SimpleNamespace(type=typ, inputs={}))
        assert UNKNOWN not in line


def test_summary_still_shows_known_values():
    pool = SimpleNamespace(type="oci:ContainerEngine/nodePool:NodePool",
                           inputs={"nodeShape": "BM.GPU.H100.8", "nodeConfigDetails": {"size": 2.0, "computeClusterId": "x"}})
    assert preview._summary(pool) == "BM.GPU.H100.8 ×2 computeClusterId=set"
    vcn = SimpleNamespace(type="oci:Core/vcn:Vcn", inputs={"cidrBlocks": ["10.0.0.0/16", UNKNOWN]})
    assert preview._summary(vcn) == "10.0.0.0/16,[unknown]"
    policy = SimpleNamespace(type="oci:Identity/policy:Policy", inputs={"statements": UNKNOWN})
    assert preview._summary(policy) == "? statements"


@pytest.mark.parametrize("policies", [UNKNOWN, {"p": UNKNOWN}, {"p": {"compartmentId": UNKNOWN, "statements": UNKNOWN}},
                                      {"p": SECRET}, {"p": {"statements": [UNKNOWN, "Allow x"]}}])
@pytest.mark.parametrize("groups", [None, UNKNOWN, {"g": UNKNOWN}, {"g": {"matchingRule": UNKNOWN}}])
def test_iam_section_assumes_no_shape(policies, groups):
    outputs = {"policyStatements": UNKNOWN, "iamPolicies": policies}
    if groups is not None:
        outputs["iamDynamicGroups"] = groups
    lines = preview.iam_section(SimpleNamespace(outputs=outputs, resources=[]))
    text = "\n".join(lines)
    assert UNKNOWN not in text and "hidden-text" not in text
    assert "IAM statements (?)" in text
