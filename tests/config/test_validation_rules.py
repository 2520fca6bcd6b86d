"""Every row of the validation-rule table in docs/configuration.md has a case here that produces its message, and
vice versa.

A case edits ``Pulumi.dev.yaml`` the way a user would (a text substitution, a change to the parsed config, or a
whole file), reads it like the Pulumi CLI (:func:`offline.preview.read_stack_file`) and loads it with its secret
keys; the table's example message must be among the problems reported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Union

import pytest
import yaml

from oke_rdma.config import ConfigError, load_stack_config
from offline.preview import StackFileError, read_stack_file

ROOT = Path(__file__).resolve().parents[2]
DEV = (ROOT / "Pulumi.dev.yaml").read_text()
OTHER_REGION_IMAGE = "ocid1.image.oc1.us-ashburn-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"

Sub = tuple[str, str]  # replace the first occurrence of the text in Pulumi.dev.yaml
Edit = Callable[[dict], Any]  # change the parsed ``config:`` mapping in place
Case = Union[Sub, Edit, str]  # ... or a whole file


def _pool(name: str, **changes: Any) -> Edit:
    return lambda c: c["oke-rdma:nodePools"][name].update(changes)


def _drop(key: str, *path: str) -> Edit:
    def edit(c: dict) -> None:
        node = c[key]
        for p in path[:-1]:
            node = node[p]
        if path:
            del node[path[-1]]
        else:
            del c[key]
    return edit


def _set(key: str, *path_and_value: Any) -> Edit:
    *path, value = path_and_value

    def edit(c: dict) -> None:
        if not path:
            c[key] = value
            return
        node = c[key]
        for p in path[:-1]:
            node = node.setdefault(p, {})
        node[path[-1]] = value
    return edit


CASES: dict[str, Case] = {
    # reading the stack file
    "yaml-syntax": "config:\n  oke-rdma:network: [unclosed\n",
    "yaml-duplicate-key": ("  oke-rdma:namePrefix: okerdma-dev\n",
                           "  oke-rdma:namePrefix: okerdma-dev\n  oke-rdma:namePrefix: other\n"),
    "yaml-tag": ("    bootVolumeGb: 100\n", "    bootVolumeGb: !!int big\n"),
    "yaml-nan": ("    throughputGbps: 1\n", "    throughputGbps: .nan\n"),
    # the stack file's shape: where Pulumi reads config from
    "stack-file-no-config": "oci:region: sa-saopaulo-1\noke-rdma:namePrefix: okerdma-dev\n",
    "stack-file-top-level-key": ("config:\n", "configs:\n"),
    "stack-file-config-beside": DEV + "oke-rdma:tenants: {}\n",
    "stack-file-config-list": "config:\n  - oci:region: sa-saopaulo-1\n",
    "stack-file-nested": "config:\n  oke-rdma:\n    namePrefix: okerdma-dev\n",
    # keys
    "unknown-key": _pool("gpu", maxPodPerNode=16),
    "unknown-top-level-key": _set("oke-rdma:nodepools", {}),
    "key-wrong-section": lambda c: c.update({"oke-rdma:fss": c["oke-rdma:storage"].pop("fss")}),
    "key-wrong-entry-level": _set("oke-rdma:nodePools", "size", 3),
    "look-alike-namespace": lambda c: c.update({"okerdma:nodePools": c.pop("oke-rdma:nodePools")}),
    "oci-provider-key": lambda c: c.update({"oci:regoin": c.pop("oci:region")}),
    "required": _drop("oke-rdma:cluster", "kubernetesVersion"),
    "required-region": _drop("oci:region"),
    "compute-cluster-ad-required": _set("oke-rdma:computeCluster", {
        "existingId": "ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaabcdefgh"}),
    # types
    "type-number": _pool("system", size="3"),
    "type-bool": ("      public: false\n", "      public: yes\n"),
    "type-map": _set("oke-rdma:network", "10.0.0.0/16"),
    "type-list": _set("oke-rdma:availabilityDomains", "bxtG:SA-SAOPAULO-1-AD-1"),
    "type-text": _set("oke-rdma:availabilityDomains", [1]),
    "type-text-version": _set("oke-rdma:cluster", "kubernetesVersion", 1.36),
    "type-whole-number": _pool("gpu", size=2.5),
    # ranges and formats
    "range-boot-volume": _pool("gpu", bootVolumeGb=20),
    "range-size": _pool("gpu", size=-1),
    "range-max-pods": _pool("gpu", maxPodsPerNode=0),
    "range-ocpus": _pool("system", ocpus=0),
    "min-items": _set("oke-rdma:availabilityDomains", []),
    "min-pools": _set("oke-rdma:nodePools", {}),
    "enum": _set("oke-rdma:storage", "fss", "identitySquash", "root"),
    "ocid-kind": _set("oke-rdma:compartmentId", "ocid1.subnet.oc1.sa-saopaulo-1.aaaaaaaabc"),
    "ocid-format": _pool("gpu", imageId="ami-0abc"),
    "cidr": _set("oke-rdma:network", "vcnCidr", "10.0.0.1/16"),
    "region-format": _set("oci:region", "saopaulo"),
    "ad-format": _set("oke-rdma:availabilityDomains", ["AD-1"]),
    "shape-format": _pool("gpu", shape="H100"),
    "kubernetes-version": _set("oke-rdma:cluster", "kubernetesVersion", "1.34.2"),
    "label-key": _pool("gpu", labels={"-bad/key": "x"}),
    "label-value": _pool("gpu", labels={"okerdma.io/role": "gpu pool"}),
    "dns-label": _set("oke-rdma:network", "dnsLabel", "oke-rdma"),
    "name-prefix": _set("oke-rdma:namePrefix", "OKE"),
    "fault-domain-format": _pool("system", faultDomains=["FD-1"]),
    "chart-version": _set("oke-rdma:platform", "kueue", "version", "^0.18"),
    "namespace-name": _set("oke-rdma:platform", "keda", "namespace", "KEDA"),
    "fss-tier": _set("oke-rdma:storage", "fss", "throughputGbps", 10),
    "export-path": _set("oke-rdma:storage", "fss", "exportPath", "shared"),
    # secrets
    "secret-in-plain-text": _set("oke-rdma:platform", "kubePrometheusStack", "grafanaAdminPassword", "hunter2"),
    "secret-not-decryptable": _pool("gpu", size={"secure": "AAABAMh7"}),
    # cross-field rules
    "rdma-fault-domains": _pool("gpu", faultDomains=["FAULT-DOMAIN-1"]),
    "rdma-shape": _pool("gpu", shape="BM.Standard.E5.192"),
    "rdma-needs-compute-cluster": _drop("oke-rdma:computeCluster"),
    "compute-cluster-ad-listed": _set("oke-rdma:computeCluster", "availabilityDomain", "bxtG:SA-SAOPAULO-1-AD-2"),
    "pool-ad-listed": _pool("system", availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-3"]),
    "rdma-one-placement": lambda c: (c["oke-rdma:availabilityDomains"].append("bxtG:SA-SAOPAULO-1-AD-2"),
                                     _pool("gpu", availabilityDomains=["bxtG:SA-SAOPAULO-1-AD-1",
                                                                       "bxtG:SA-SAOPAULO-1-AD-2"])(c)),
    "flex-needs-size": _drop("oke-rdma:nodePools", "system", "ocpus"),
    "fixed-shape-no-size": _pool("gpu", ocpus=4),
    "pool-name": lambda c: c["oke-rdma:nodePools"].update({"GPU_2": c["oke-rdma:nodePools"].pop("gpu")}),
    "image-region": _pool("gpu", imageId=OTHER_REGION_IMAGE),
    "subnet-overlap": _set("oke-rdma:network", "subnets", "storage", "10.0.16.0/24"),
    "subnet-in-vcn": _set("oke-rdma:network", "subnets", "storage", "192.168.0.0/24"),
    "vcn-too-small": _set("oke-rdma:network", "vcnCidr", "10.0.0.0/24"),
    "pod-ip-capacity": _set("oke-rdma:network", "subnets", "pods", "10.0.128.0/25"),
    "public-api-cidrs": _set("oke-rdma:network", "apiEndpoint", {"public": True}),
    "services-cidr-overlap": _set("oke-rdma:cluster", "servicesCidr", "10.0.0.0/16"),
    "tenant-namespace-shared": _set("oke-rdma:tenants", "analytics", "namespace", "research"),
    "tenant-namespace-reserved": _set("oke-rdma:tenants", "analytics", "namespace", "monitoring"),
    "tenant-name": lambda c: c["oke-rdma:tenants"].update({"Data_Team": {}}),
    # sizes and limits OCI documents, bypasses through Helm values, labels, grants, regions, messages
    "vcn-size": _set("oke-rdma:network", "vcnCidr", "10.0.0.0/8"),
    "subnet-size": _set("oke-rdma:network", "subnets", "storage", "10.0.3.0/32"),
    "worker-ip-capacity": _set("oke-rdma:network", "subnets", "workers", "10.0.16.0/30"),
    "lustre-client-pool": lambda c: c["oke-rdma:storage"].update(
        {"lustre": {"capacityGb": 31200, "tenants": ["research"], "client": {"pools": ["nope"]}}}),
    "storage-ip-capacity": lambda c: (c["oke-rdma:storage"].update({"lustre": {"capacityGb": 31200}}),
                                      c["oke-rdma:network"].setdefault("subnets", {}).update(
                                          {"storage": "10.0.3.0/27"})),
    "api-cidr-internet": _set("oke-rdma:network", "apiEndpoint", "allowedCidrs", ["0.0.0.0/1", "128.0.0.0/1"]),
    "helm-values-password": _set("oke-rdma:platform", "kubePrometheusStack", "values",
                                 {"grafana": {"adminPassword": "hunter2hunter2"}}),
    "helm-values-driver": _set("oke-rdma:platform", "gpuOperator", "values", {"driver": {"enabled": "true"}}),
    "helm-values-section": _set("oke-rdma:platform", "gpuOperator", "values", {"devicePlugin": False}),
    "release-namespace-reserved": _set("oke-rdma:platform", "keda", "namespace", "kube-system"),
    "grant-iam-admin": lambda c: c["oke-rdma:tenants"]["research"]["serviceAccounts"]["trainer"]["allow"].append(
        "use dynamic-groups in tenancy"),
    "grant-platform-reach": lambda c: c["oke-rdma:tenants"]["research"]["serviceAccounts"]["trainer"]["allow"].append(
        "read secret-family in tenancy"),
    "label-program": _pool("gpu", labels={"okerdma.io/node-pool": "other"}),
    "label-kubelet": _pool("gpu", labels={"node-role.kubernetes.io/worker": ""}),
    "gpus-per-node-known": _pool("gpu", gpusPerNode=16),
    "gpu-shape-known": _pool("gpu", shape="BM.GPU.A100.8", rdma=False),
    "ocid-region": _set("oke-rdma:computeCluster", "existingId", "ocid1.computecluster.oc1.us-ashburn-1.aaaaaaaabcdefgh"),
    "flex-ocpus": _pool("system", ocpus=2.5),
    "flex-memory": _pool("system", memoryGb=1e308),
    "tag-key-length": _set("oke-rdma:freeformTags", {"k" * 101: "v"}),
    "tag-value-length": _set("oke-rdma:freeformTags", {"project": "v" * 257}),
    "secret-malformed": _set("oke-rdma:platform", "kubePrometheusStack", "grafanaAdminPassword", {"secure": {"a": 1}}),
    "topology-hostname-last": _set("oke-rdma:platform", "kueue", "topologyLevels",
                                   ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
    "range-size-huge": _pool("gpu", size=10**30),
    # facts: regions, ADs, realms, versions, VNICs, IAM names
    "ad-region": _set("oci:region", "us-ashburn-1"),
    "ad-exists": lambda c: c["oke-rdma:availabilityDomains"].append("bxtG:SA-SAOPAULO-1-AD-2"),
    "ocid-realm": _set("oci:region", "us-gov-ashburn-1"),
    "k8s-offered": _set("oke-rdma:cluster", "kubernetesVersion", "v1.99.1"),
    "pods-per-node": _pool("system", ocpus=2, memoryGb=16, maxPodsPerNode=64),
    "grant-resource-type": _set("oke-rdma:tenants", "research", "serviceAccounts", "trainer", "allow",
                                ["read object in tenancy"]),
    "gpu-vendor": _pool("gpu", shape="BM.GPU.MI300X.8"),
    "local-nvme-shape": _pool("system", localNvme={"enabled": True}),
    # tenants' people and OIDC sign-in
    "member-one-subject": lambda c: c["oke-rdma:tenants"]["research"]["members"][0].pop("iamGroupId"),
    "member-oidc-needs-cluster-oidc": lambda c: c["oke-rdma:cluster"].pop("oidc"),
    "oidc-enhanced-only": _set("oke-rdma:cluster", "type", "BASIC_CLUSTER"),
    "oidc-https-issuer": _set("oke-rdma:cluster", "oidc", "issuerUrl", "http://idp.example.com"),
    "oidc-prefix": _set("oke-rdma:cluster", "oidc", "groupsPrefix", "system:"),
    # add-ons: what keeps their CRDs upgraded, the operators Kueue drives
    "crd-upgrade": _set("oke-rdma:platform", "gpuOperator", "values", {"operator": {"upgradeCRD": False}}),
    "crd-templated-since": _set("oke-rdma:platform", "trainer", {"enabled": True, "version": "2.2.0"}),
    "kueue-drives": _set("oke-rdma:platform", "kuberay", {"enabled": True, "version": "1.0.0"}),
    "addon-api-break": _set("oke-rdma:platform", "trainer", {"enabled": True}),
    "known-bug": _set("oke-rdma:platform", "kueue", "version", "0.19.6"),
    "storage-class-attach": _set("oke-rdma:platform", "kubePrometheusStack", "storageClass", "oci-bv"),
    "chart-template": _set("oke-rdma:platform", "cilium", "values", {"gatewayAPI": {"enabled": True}}),
    "chart-image": _set("oke-rdma:platform", "cilium", "values",
                        {"image": {"override": "docker.io/evilacct/cilium:v1.20.0"}}),
}


def stack_text(case: Case) -> str:
    if isinstance(case, str):
        return case
    if isinstance(case, tuple):
        old, new = case
        assert old in DEV, old
        return DEV.replace(old, new, 1)
    doc = yaml.safe_load(DEV)
    case(doc["config"])
    return yaml.safe_dump(doc, sort_keys=False)


def messages(case: Case, tmp_path: Path) -> list[str]:
    """Every problem the case produces, reading the file as Pulumi would and loading it with its secret keys."""
    path = tmp_path / "Pulumi.rule.yaml"
    path.write_text(stack_text(case))
    try:
        raw, secret_keys = read_stack_file(path)
        load_stack_config(raw, secret_keys)
    except StackFileError as e:
        return [str(e)]
    except ConfigError as e:
        return e.problems
    return []


def documented_rules() -> dict[str, str]:
    """``id → message`` from the "Validation rules" table of docs/configuration.md (the message column, without
    backticks)."""
    text = (ROOT / "docs" / "configuration.md").read_text()
    section = text.partition("\n## Validation rules\n")[2].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\| `([a-z0-9-]+)` \|.*\| (`+) ?(.+?) ?\2 \|$", line)
        if m:
            rows[m.group(1)] = m.group(3)
    return rows


RULES = documented_rules()


def test_every_documented_rule_has_a_case_and_every_case_a_row():
    assert RULES, "docs/configuration.md has no validation-rule table"
    assert set(RULES) == set(CASES)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_documented_rule_message(rule, tmp_path):
    found = messages(CASES[rule], tmp_path)
    assert any(RULES[rule] in m for m in found), (RULES[rule], found)
    assert all(m.startswith(("oke-rdma:", "oci:", "okerdma:", str(tmp_path))) for m in found), found
