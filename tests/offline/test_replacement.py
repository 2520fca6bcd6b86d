"""``--previous``: a node pool whose computeClusterId changed is shown as a replacement naming the property."""

import inspect
import json
import re
from pathlib import Path

import pulumi_oci as oci
import pytest

from offline import preview
from tests.offline.plans import dev_plan as plan_variant
from offline.replacement import FORCE_NEW, changed_paths, compare

ROOT = Path(__file__).resolve().parents[2]
POOL = "oci:ContainerEngine/nodePool:NodePool"
EXISTING = "ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaaexisting"


plan = plan_variant


def test_compute_cluster_change_is_a_loud_replace(tmp_path, capsys):
    code, old = plan(tmp_path, "old.json")
    assert code == 0
    gpu = next(r for r in old["resources"] if r["name"] == "okerdma-dev-gpu")
    assert gpu["replaceOnChanges"] == ["nodeConfigDetails.computeClusterId"]  # what --previous needs is in the JSON
    capsys.readouterr()

    def existing(cfg):
        cfg["oke-rdma:computeCluster"]["existingId"] = EXISTING
    code, new = plan(tmp_path, "new.json", existing, "--previous", str(tmp_path / "old.json"), "--details")
    assert code == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "okerdma-dev-gpu" in ln and POOL in ln)
    assert line.startswith(" +-") and "replace [diff: ~nodeConfigDetails.computeClusterId]" in line
    assert "Replacements (1): each resource below is DESTROYED and CREATED AGAIN" in out
    assert "  changed: nodeConfigDetails.computeClusterId (1):" in out and f"    +- {POOL}: okerdma-dev-gpu" in out
    assert "a replaced node pool loses every node" in out
    assert re.search(r"- +oci:Core/computeCluster:ComputeCluster +okerdma-dev-compute-cluster +delete", out)
    ops = {c["name"]: c for c in new["changes"]}
    assert ops["okerdma-dev-gpu"]["op"] == "replace"
    assert ops["okerdma-dev-gpu"]["replaceBecause"] == ["nodeConfigDetails.computeClusterId"]
    assert ops["okerdma-dev-system"]["op"] == "same" and ops["okerdma-dev-oke"]["op"] == "same"
    assert ops["okerdma-dev-compute-cluster"]["op"] == "delete"


def test_updatable_change_is_an_update_not_a_replace(tmp_path, capsys):
    plan(tmp_path, "old.json")

    def bigger(cfg):
        cfg["oke-rdma:nodePools"]["gpu"]["size"] = 4
    _, new = plan(tmp_path, "new.json", bigger, "--previous", str(tmp_path / "old.json"))
    ops = {c["name"]: c for c in new["changes"] if c["op"] != "same"}
    assert {n: c["op"] for n, c in ops.items()} == {"okerdma-dev-gpu": "update"}
    assert ops["okerdma-dev-gpu"]["changed"] == ["nodeConfigDetails.size"]
    assert "Replacements" not in capsys.readouterr().out


@pytest.mark.parametrize("content", ["not json", '{"resources": 3}', "[]"])
def test_unusable_previous_file_exits_2(tmp_path, capsys, content):
    bad = tmp_path / "old.json"
    bad.write_text(content)
    assert preview.main(["--stack", "dev", "--previous", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --previous {bad}") and "Traceback" not in err


def _res(inputs, rtype=POOL, roc=()):
    return {"urn": f"urn:{rtype}::p", "type": rtype, "name": "p", "inputs": inputs, "replaceOnChanges": list(roc)}


@pytest.mark.parametrize("old, new, op, because", [
    ({"nodeConfigDetails": {"size": 2}}, {"nodeConfigDetails": {"size": 2, "computeClusterId": "cc"}}, "replace",
     ["nodeConfigDetails.computeClusterId"]),  # joining a Compute Cluster
    ({"nodeConfigDetails": {"computeClusterId": "cc"}}, {}, "replace", ["nodeConfigDetails"]),  # whole object gone
    ({"compartmentId": "a"}, {"compartmentId": "b"}, "replace", ["compartmentId"]),  # OCI forces it (FORCE_NEW)
    ({"nodeShape": "a"}, {"nodeShape": "b"}, "update", []),
    ({"clusterId": "x"}, {"clusterId": "[unknown]"}, "replace", ["clusterId"]),  # unknown now: possible replacement
    ({"a": [1, 2]}, {"a": [1, 2]}, "same", []),
])
def test_compare_cases(old, new, op, because):
    [change] = compare({"resources": [_res(old)]}, {"resources": [_res(new)]})
    assert (change.op, list(change.replace_because)) == (op, because)


def test_program_replace_on_changes_with_wildcards_count_too():
    old = _res({"opts": [{"mode": "a"}]}, "x:y:Z", ["opts[*].mode"])
    new = _res({"opts": [{"mode": "b"}]}, "x:y:Z", ["opts[*].mode"])
    [change] = compare({"resources": [old]}, {"resources": [new]})
    assert change.op == "replace" and change.replace_because == ("opts[0].mode",)
    assert changed_paths({"a": [1]}, {"a": [1, 2]}) == ["a"]


def _param_doc(args_cls, camel_path: str) -> str:
    """The pulumi_oci 5.5.0 docstring line of an input, following nested Args classes (``a.b[*].c``)."""
    cls, line = args_cls, ""
    for part in camel_path.replace("[*]", "").split("."):
        snake = re.sub(r"([A-Z])", r"_\1", part).lower()
        doc = cls.__init__.__doc__ or ""
        line = next(ln for ln in doc.splitlines() if f"] {snake}:" in ln)
        nested = re.search(r"\['(\w+Args)'\]", line)
        if nested:
            cls = next(getattr(m, nested.group(1)) for m in (oci.containerengine, oci.core, oci.filestorage,
                                                              oci.identity, oci.lustre, oci.objectstorage)
                       if hasattr(m, nested.group(1)))
    return line


@pytest.mark.parametrize("rtype, path", [(t, p) for t, paths in FORCE_NEW.items() for p in paths])
def test_every_force_new_entry_is_an_input_of_pulumi_oci(rtype, path):
    """Each path read from terraform-provider-oci's schema names a real pulumi_oci 5.5.0 input (snake_case to
    camelCase, one-item blocks flattened to objects), so a change to that input is compared against it."""
    module = {"ContainerEngine": oci.containerengine, "Core": oci.core, "FileStorage": oci.filestorage,
              "Identity": oci.identity, "Lustre": oci.lustre, "ObjectStorage": oci.objectstorage}[rtype.split(":")[1].split("/")[0]]
    args_cls = getattr(module, rtype.rsplit(":", 1)[1] + "Args")
    cls = args_cls
    for part in path.replace("[*]", "").split("."):
        params = inspect.signature(cls.__init__).parameters
        snake = re.sub(r"([A-Z])", r"_\1", part).lower()
        assert snake in params, (rtype, path, cls.__name__)
        nested = re.search(r"ForwardRef\('(\w+Args)'\)", str(params[snake].annotation))
        if nested:
            cls = next(getattr(m, nested.group(1)) for m in (oci.containerengine, oci.core, oci.filestorage,
                                                              oci.identity, oci.lustre, oci.objectstorage)
                       if hasattr(m, nested.group(1)))


def _top_level_docs(rtype: str) -> dict[str, str]:
    """camelCase input → its pulumi_oci 5.5.0 docstring text, for the top-level Args of ``rtype``."""
    module = getattr(oci, rtype.split(":")[1].split("/")[0].lower())
    args_cls = getattr(module, rtype.rsplit(":", 1)[1] + "Args")
    docs = {}
    for line in (args_cls.__init__.__doc__ or "").splitlines():
        m = re.match(r"\s*:param pulumi\.Input\[.*?\] (\w+): (.*)", line)
        if m:
            docs[re.sub(r"_([a-z])", lambda g: g.group(1).upper(), m.group(1))] = m.group(2)
    return docs


@pytest.fixture(scope="module")
def stack_plans(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("plans")
    docs = []
    for stack in ("dev", "prod"):
        assert preview.main(["--stack", stack, "--json", str(tmp / f"{stack}.json")]) == 0
        docs.append(json.loads((tmp / f"{stack}.json").read_text()))
    return docs


def test_every_oci_input_a_stack_sets_that_pulumi_oci_cannot_update_is_force_new(stack_plans, capsys):
    """The class check behind FORCE_NEW: for every OCI resource the dev and prod stacks declare, each top-level input
    it sets that pulumi_oci documents without "(Updatable)" is listed, so a change to it previews as a replacement."""
    missing = set()
    for doc in stack_plans:
        for res in doc["resources"]:
            if not res["type"].startswith("oci:") or not res["custom"]:
                continue
            documented = _top_level_docs(res["type"])
            for key in res["inputs"]:
                text = documented.get(key)
                if text is not None and "(Updatable)" not in text and key not in FORCE_NEW.get(res["type"], ()) \
                        and key not in NOT_FORCE_NEW.get(res["type"], ()):
                    missing.add((res["type"], key))
    assert not missing, sorted(missing)


#: Inputs pulumi_oci documents without "(Updatable)" that OCI does update in place. An NSG security rule is updated
#: in place by UpdateNetworkSecurityGroupSecurityRules (OCI API reference, Core Services, "UpdateSecurityRuleDetails",
#: checked 2026-11-30); a cluster's endpointConfig and clusterPodNetworkOptions are objects whose immutable fields are
#: listed one by one in FORCE_NEW (the rest is updated through UpdateClusterEndpointConfig / UpdateCluster).
NOT_FORCE_NEW: dict[str, tuple[str, ...]] = {
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": (
        "description", "destination", "destinationType", "direction", "icmpOptions", "protocol", "source",
        "sourceType", "stateless", "tcpOptions", "udpOptions"),
    "oci:ContainerEngine/cluster:Cluster": ("clusterPodNetworkOptions", "endpointConfig"),
}


@pytest.mark.parametrize("key", ["requests.nvidia.com/gpu", "app.kubernetes.io/name", "nvidia.com/gpu.present",
                                 "a[0]", 'say "hi"', ""])
def test_map_keys_with_dots_slashes_or_brackets_are_quoted_and_read_back(key):
    """A map key that a dotted path would misread is written ``["key"]`` (Pulumi property path syntax) in every
    property, and the report reads the old and new value back through the same path."""
    from offline.replacement import _value_at, path_parts

    for outer in ("spec.hard", "metadata.labels", "metadata.annotations"):
        a, b = outer.split(".")
        old, new = {a: {b: {key: "16", "cpu": "1"}}}, {a: {b: {key: "32", "cpu": "1"}}}
        [path] = changed_paths(old, new)
        assert path == f"{outer}[{json.dumps(key)}]"
        assert (_value_at(old, path), _value_at(new, path)) == ("16", "32")
        assert path_parts(path) == [a, b, key]


def test_plain_keys_keep_the_dotted_notation():
    """Identifier-like keys (letters, digits, ``_``, ``-``) stay dotted: ``values.devicePlugin.time-slicing-8``."""
    assert changed_paths({"values": {"time-slicing-8": 1}}, {"values": {"time-slicing-8": 2}}) == [
        "values.time-slicing-8"]
