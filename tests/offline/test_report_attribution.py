"""What the --previous report says about a change is made from the plans, never guessed: the config keys that changed
(recorded in each plan), lists read as items added and removed, a deletion's reason, what a destroyed volume leaves,
a node pool's shape changed in place, and the causes of a non-zero exit printed once where one reader sees both
streams."""

from __future__ import annotations

from offline.config_diff import SECRET, UNSET, config_changes, describe, plan_config
from offline.replacement import Change

URN = "urn:pulumi:dev::oke-rdma::"


def _c(op, typ, name, **kw):
    return Change(f"{URN}{typ}::{name}", typ, name, op, **kw)


def test_a_plan_records_its_config_with_secrets_hidden_and_maps_decoded():
    config = plan_config({"oci:region": "sa-saopaulo-1", "oke-rdma:network": '{"vcnCidr": "10.0.0.0/16"}',
                          "oke-rdma:platform": '{"x": "hunter2"}', "oke-rdma:namePrefix": "[not json"},
                         ["oke-rdma:platform"])
    assert config == {"oci:region": "sa-saopaulo-1", "oke-rdma:network": {"vcnCidr": "10.0.0.0/16"},
                      "oke-rdma:platform": SECRET, "oke-rdma:namePrefix": "[not json"}


def test_the_changed_keys_are_the_paths_that_differ_a_map_on_one_side_being_one_change():
    before = {"config": {"oke-rdma:network": {"apiEndpoint": {"public": False}},
                         "oke-rdma:tenants": {"nlp": {"quota": {"gpu": 0}}, "vision": {"rdma": True}}}}
    after = {"oke-rdma:network": {"apiEndpoint": {"public": False, "publicSubnet": True}},
             "oke-rdma:tenants": {"vision": {"rdma": True}}, "oci:region": "x"}
    changed = config_changes(before, after)
    assert changed == [("network.apiEndpoint.publicSubnet", UNSET, True), ("oci:region", UNSET, "x"),
                       ("tenants.nlp", {"quota": {"gpu": 0}}, UNSET)]
    assert describe(changed[:1]) == "network.apiEndpoint.publicSubnet (unset → true)"
    assert config_changes({"resources": []}, after) is None  # a plan written before plans held their config


def test_a_subnet_made_public_is_attributed_to_the_keys_that_changed():
    """The CAUSE names the changed key and what undoing it means; another network key is named as it is; a plan
    without config says it cannot name one."""
    from offline.report_changes import endpoint_cause

    subnet = _c("replace", "oci:Core/subnet:Subnet", "cp", changed=("prohibitPublicIpOnVnic",))
    (public,) = endpoint_cause([subnet], [("network.apiEndpoint.public", False, True)])
    assert "network.apiEndpoint.public (false → true)" in public and "keep network.apiEndpoint.public" in public
    (subnet_key,) = endpoint_cause([subnet], [("network.apiEndpoint.publicSubnet", UNSET, True)])
    assert "creation-time choice" in subnet_key and "keep network.apiEndpoint.public" not in subnet_key
    (other,) = endpoint_cause([subnet], [("network.subnets.controlPlane", "10.0.0.0/28", "10.0.0.16/28"),
                                         ("tenants.x.quota.gpu", 1, 2)])
    assert "network.subnets.controlPlane" in other and "tenants.x" not in other
    (unknown,) = endpoint_cause([subnet], None)
    assert "records no config" in unknown


def test_a_list_of_statements_or_rules_reads_as_items_added_and_removed():
    from offline.report_changes import change_lines

    old = {"statements": ["Allow group a to use clusters", "Allow group b to use clusters"],
           "rules": [{"verbs": ["get"], "resources": ["pods"]}],
           "env": [{"name": "A", "value": "1"}]}
    new = {"statements": ["Allow group a to use clusters", "Allow group c to use clusters"],
           "rules": [{"verbs": ["get"], "resources": ["pods"]}, {"verbs": ["list"], "resources": ["jobs"]}],
           "env": [{"name": "A", "value": "2"}]}
    change = _c("update", "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "r",
                changed=("env[0].value", "rules", "statements[1]"))
    text = "\n".join(change_lines(change, old, new, 100))
    assert "statements: 1 added, 1 removed\n        - Allow group b to use clusters\n" in text
    assert "        + Allow group c to use clusters" in text
    assert 'rules: 1 added\n        + {"resources":["jobs"],"verbs":["list"]}' in text
    assert "env[0].value: 1 → 2" in text  # a map of a list whose length holds: by the field that changed
    policy = _c("update", "oci:Identity/policy:Policy", "p", changed=("statements[1]",))
    assert "statements: 1 added, 1 removed (listed under IAM statements below)" in "\n".join(
        change_lines(policy, old, new, 100, frozenset({"p"})))


def test_the_iam_block_shows_only_the_statements_that_change():
    from types import SimpleNamespace

    from offline.report_changes import iam_changes

    old = {"iamPolicies": {"a": {"compartmentId": "c", "statements": ["Allow x", "Allow y"]},
                           "b": {"compartmentId": "c", "statements": ["Allow z"]}}}
    run = SimpleNamespace(outputs={"iamPolicies": {"a": {"compartmentId": "c", "statements": ["Allow x"]},
                                                   "b": {"compartmentId": "c", "statements": ["Allow z"]},
                                                   "n": {"compartmentId": "c", "statements": ["Allow n"]}}})
    text = "\n".join(iam_changes(run, old))
    assert "    a (updated; attach to c)\n      - Allow y" in text
    assert "    n (created; attach to c)\n      + Allow n" in text
    assert "Allow x" not in text and "Allow z" not in text and "(1 policy unchanged)" in text


def test_a_deleted_resource_whose_users_are_all_deleted_says_nothing_uses_it():
    """The shared tenant-admin ClusterRole goes when its last RoleBinding does; one still used, or one named after
    a tenant the config removed (Config changed says so), gets no reason."""
    from offline.report_changes import unused_reasons

    role, binding, kept = (f"{URN}k:ClusterRole::admin", f"{URN}k:RoleBinding::vision-admin",
                           f"{URN}k:ClusterRole::viewer")
    previous = {"resources": [{"urn": binding, "name": "vision-admin", "dependencies": [role, kept]},
                              {"urn": f"{URN}k:RoleBinding::other", "name": "other", "dependencies": [kept]},
                              {"urn": f"{URN}k:Queue::lq-nlp", "name": "lq-nlp",
                               "propertyDependencies": {"x": [f"{URN}k:Queue::cq-nlp"]}}]}
    changes = [Change(u, "k", u.rsplit("::", 1)[1], "delete") for u in (role, binding, f"{URN}k:Queue::cq-nlp",
                                                                       f"{URN}k:Queue::lq-nlp")]
    reasons = unused_reasons(changes, previous, [("tenants.nlp", {"rdma": False}, UNSET)])
    assert reasons == {role: "nothing uses it any more: vision-admin, which was its last user, is deleted too"}


def test_a_destroyed_volume_says_whether_its_files_stay():
    from offline.report import what_stays

    pv = "kubernetes:core/v1:PersistentVolume"
    retain = {"spec": {"persistentVolumeReclaimPolicy": "Retain", "csi": {"volumeHandle": "ocid1.fs:10.0.3.5:/shared"}}}
    assert "its files stay on the file system (export /shared)" in what_stays(pv, retain)
    assert "is deleted with it" in what_stays(pv, {"spec": {"persistentVolumeReclaimPolicy": "Delete"}})
    assert what_stays("kubernetes:core/v1:PersistentVolumeClaim", retain) == ""


def test_a_pool_shape_changed_in_place_warns_when_gpu_generations_would_mix():
    from offline.report import mixed_generations

    cc = {"nodeConfigDetails": {"computeClusterId": "ocid1.computecluster..x"}}
    found = mixed_generations({"nodeShape": "BM.GPU.A100-v2.8"}, {"nodeShape": "BM.GPU.H100.8", **cc})
    assert "mixes GPU generations and, in its Compute Cluster, one RDMA network joins them" in found
    assert "GPUs per node differ" in mixed_generations({"nodeShape": "BM.GPU.H100.8"}, {"nodeShape": "BM.GPU.GB200.4"})
    assert "GPUs unknown" in mixed_generations({"nodeShape": "BM.GPU.H100.8"}, {"nodeShape": "BM.GPU.X9.8"})
    assert mixed_generations({"nodeShape": "BM.GPU4.8"}, {"nodeShape": "BM.GPU4.8"}) == ""
    assert mixed_generations({"nodeShape": "VM.Standard.E4.Flex"}, {"nodeShape": "VM.Standard.E5.Flex"}) == ""


def test_the_causes_are_repeated_on_stderr_once_per_reader(capsys, monkeypatch):
    """stderr on its own (CI) gets every cause; stdout and stderr on one terminal or file get one pointer line."""
    from offline import preview

    monkeypatch.setattr(preview, "same_stream", lambda: False)
    preview.repeat_causes(["error: a", "error: b"], 4)
    assert capsys.readouterr().err == "error: a\nerror: b\n"
    monkeypatch.setattr(preview, "same_stream", lambda: True)
    preview.repeat_causes(["error: a", "error: b"], 4)
    err = capsys.readouterr().err
    assert err.startswith("error: exit 4: 2 problems above") and "error: a" not in err
    preview.repeat_causes([], 0)
    assert capsys.readouterr().err == ""


def test_a_replacement_is_attributed_to_the_keys_whose_change_forces_it():
    """Of the keys that changed, only those the change-cost reference records as replacing a resource of that type
    are named; a key it does not cover is named as possible only when no known key forces it; with neither, every
    changed key is named (a combination may force it)."""
    from offline.config_diff import attribute

    subnet = "oci:Core/subnet:Subnet"
    cidrs = ("network.apiEndpoint.allowedCidrs", ["10.0.0.0/16"], ["10.0.0.0/16", "203.0.113.0/24"])
    public = ("network.apiEndpoint.public", False, True)
    members = ("tenants.vision.members", [], [{"group": "g"}])
    assert attribute([cidrs, public, members], subnet) == "network.apiEndpoint.public (false → true)"
    assert attribute([cidrs, members], subnet) == 'possibly tenants.vision.members ([] → [{"group":"g"}])'
    assert attribute([cidrs], subnet) == describe([cidrs])
    # a tenant added as a whole is the reference's "a new tenant", which replaces no subnet
    assert attribute([("tenants.speech", UNSET, {"rdma": True}), public], subnet) == \
        "network.apiEndpoint.public (false → true)"


def test_a_refused_label_names_only_the_key_behind_its_replacement():
    """A subnet's kept dnsLabel refused: the fix names network.apiEndpoint.public, not a CIDR changed beside it."""
    from offline.report import _in_config_terms

    subnet = _c("replace", "oci:Core/subnet:Subnet", "okerdma-dev-cp", changed=("prohibitPublicIpOnVnic",))
    reason = ("dnsLabel: 'cp' is kept in the same vcnId; set deleteBeforeReplace on it (it is then gone until "
              "created again) or give it another dnsLabel")
    said = _in_config_terms(subnet, reason, [("network.apiEndpoint.allowedCidrs", [], ["1.2.3.0/24"]),
                                             ("network.apiEndpoint.public", False, True)])
    assert "undo the config change that causes it (network.apiEndpoint.public (false → true))" in said
    assert "allowedCidrs" not in said


def test_the_cause_leaves_out_a_cidr_changed_beside_the_public_switch():
    from offline.report_changes import endpoint_cause

    subnet = _c("replace", "oci:Core/subnet:Subnet", "cp", changed=("prohibitPublicIpOnVnic",))
    (cause,) = endpoint_cause([subnet], [("network.apiEndpoint.allowedCidrs", [], ["1.2.3.0/24"]),
                                         ("network.apiEndpoint.public", False, True)])
    assert "network.apiEndpoint.public (false → true)" in cause and "allowedCidrs" not in cause


def test_config_changed_shows_a_list_of_maps_as_items_removed_and_added():
    """A tenant's members (a list of maps) read as the members removed and added, not as two character counts; a
    list of text the same way."""
    from offline.report_changes import config_block

    old = [{"group": "ocid1.group.oc4..a", "role": "admin"}, {"oidcGroup": "eng", "role": "developer"}]
    new = [{"group": "ocid1.group.oc4..b", "role": "admin"}, {"oidcGroup": "eng", "role": "viewer"},
           {"oidcGroup": "contractors", "role": "viewer"}]
    lines = config_block([("tenants.vision.members", old, new),
                          ("network.apiEndpoint.allowedCidrs", ["10.0.0.0/16"], ["10.0.0.0/16", "10.9.0.0/24"])],
                         100)
    assert "    tenants.vision.members: 3 added, 2 removed" in lines
    assert '      - {"oidcGroup":"eng","role":"developer"}' in lines
    assert '      + {"oidcGroup":"contractors","role":"viewer"}' in lines
    assert "    network.apiEndpoint.allowedCidrs: 1 added" in lines and "      + 10.9.0.0/24" in lines
    assert not any("characters" in line for line in lines)


def test_config_changed_shows_a_new_map_as_its_leaf_keys_against_their_defaults():
    """A section set for the first time reads as each key it sets against the default it replaces; a key without a
    default in the model reads (unset); a removed settings map reads as its keys back to their defaults; a removed
    tenant stays one line."""
    from offline.report_changes import config_block

    lines = config_block([("platform.kubePrometheusStack", UNSET, {"version": "88.6.0"}),
                          ("platform.keda", {"enabled": False}, UNSET),
                          ("tenants.nlp", {"quota": {"gpu": 1}}, UNSET),
                          ("tenants.speech", UNSET, {"quota": {"gpu": 8}, "rdma": True})], 100)
    assert "    platform.kubePrometheusStack.version: 88.5.3 (default) → 88.6.0" in lines
    assert "    platform.keda.enabled: false → true (default)" in lines
    assert "    tenants.nlp: a map (quota) → (unset)" in lines
    assert "    tenants.speech.quota.gpu: 0 (default) → 8" in lines and "    tenants.speech.rdma: false (default) → true" \
        in lines
    assert not any("a map (version)" in line for line in lines)


def test_config_changed_never_prints_a_secret():
    """A key the model marks secret is [secret] even when the stack file holds it in plain text, inside a new map
    too; a secure: stand-in inside a list is [secret]."""
    from offline.report_changes import config_block
    from offline.stackfile import SECRET_PLACEHOLDER

    lines = "\n".join(config_block([
        ("platform.kubePrometheusStack.grafanaAdminPassword", "hunter2", "hunter3"),
        ("platform.kubePrometheusStack", UNSET, {"grafanaAdminPassword": "hunter4"}),
        ("tenants.vision.members", [], [{"oidcGroup": SECRET_PLACEHOLDER, "role": "viewer"}]),
        ("oke-rdma:platform", SECRET, SECRET)], 100))
    assert "hunter" not in lines and SECRET_PLACEHOLDER not in lines
    assert "platform.kubePrometheusStack.grafanaAdminPassword: [secret] → [secret]" in lines
    assert "platform.kubePrometheusStack.grafanaAdminPassword: (unset) → [secret]" in lines
    assert '+ {"oidcGroup":"[secret]","role":"viewer"}' in lines
