"""All problems at once, cross-field rules next to field errors, and secrets as the Pulumi runtime reports them."""

import json

import pytest

from oke_rdma.config import ConfigError, load_stack_config
from offline.engine import run_program
from tests.stackcfg import dev_config, edited

RAW, SECRET_KEYS = dev_config()
GRAFANA = "oke-rdma:platform.kubePrometheusStack.grafanaAdminPassword"


def problems(raw, secret_keys=None) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw, secret_keys)
    return err.value.problems


def test_cross_field_rules_on_valid_sections_run_next_to_field_errors():
    raw = edited(RAW, "network", ("vcnCidr",), "10.0.0.1/16")  # network invalid: its rules are deferred
    raw = edited(raw, "nodePools", ("gpu", "faultDomains"), ["FAULT-DOMAIN-1"])  # a pool rule: runs
    raw = edited(raw, "tenants", ("analytics", "namespace"), "monitoring")  # a tenant rule: runs
    found = problems(raw)
    assert found[0].startswith("oke-rdma:network.vcnCidr: expected an IPv4 CIDR block")
    assert any(p.startswith("oke-rdma:nodePools.gpu.faultDomains: must be empty") for p in found)
    assert any(p.startswith("oke-rdma:tenants.analytics.namespace: 'monitoring' is a system") for p in found)
    assert len(found) == 3


def test_a_rule_reading_an_invalid_section_is_deferred_not_guessed():
    raw = edited(RAW, "network", ("subnets", "pods"), "10.0.128.0/25")  # too small for the pools ...
    raw = edited(raw, "cluster", ("kubernetesVersion",), "latest")  # ... but the capacity rule reads cluster too
    found = problems(raw)
    assert found == ["oke-rdma:cluster.kubernetesVersion: must be an OKE Kubernetes version like v1.35.2, got "
                     "'latest'; correct the value (docs/configuration.md describes the key)"]
    fixed = edited(raw, "cluster", ("kubernetesVersion",), "v1.35.2")
    assert problems(fixed)[0].startswith("oke-rdma:network.subnets.pods: 10.0.128.0/25 has 125 usable IPs")


def test_unknown_and_missing_top_level_keys_keep_the_other_rules_running():
    raw = {k: v for k, v in RAW.items() if k != "oke-rdma:cluster"}
    raw = edited(raw, "tenants", ("analytics", "namespace"), "research")
    found = problems(raw)
    assert found[0] == "oke-rdma:cluster: required; set it in the stack config (docs/configuration.md lists its type)"
    assert any("is already the namespace of tenant" in p for p in found)


@pytest.mark.parametrize("namespace", ["okerdma", "oke_rdma", "oke-rdm", "OKE-RDMA", "oke-rdma-"])
def test_look_alike_namespaces(namespace):
    raw = dict(RAW)
    raw[f"{namespace}:nodePool"] = "{}"
    found = problems(raw)
    assert f"{namespace}:nodePool: the namespace {namespace!r} is not this project's (oke-rdma), so the key would " \
           f"be ignored; did you mean oke-rdma:nodePools?" in found


def test_other_namespaces_and_oci_provider_keys_are_left_alone():
    raw = dict(RAW) | {"kubernetes:context": "x", "oci:tenancyOcid": "ocid1.tenancy.oc1..aaaa", "pulumi:tags": "{}",
                       "oci:someFutureSetting": "1"}
    load_stack_config(raw)


PLAIN_TEXT = (f"{GRAFANA}: is a secret but is stored in plain text in the stack config; encrypt it with "
              f"pulumi config set --path --secret '{GRAFANA}' <value>")


def test_plain_text_secret_is_refused_with_the_command():
    raw = edited(RAW, "platform", ("kubePrometheusStack", "grafanaAdminPassword"), "correct-horse-battery")
    assert problems(raw, []) == [PLAIN_TEXT]
    cfg = load_stack_config(raw, ["oke-rdma:platform"])
    assert cfg.platform.kube_prometheus_stack.grafana_admin_password == "correct-horse-battery"
    load_stack_config(raw)  # secret keys unknown (None): existing callers are not checked


def test_a_short_plain_text_secret_gives_one_problem_not_two():
    """The exposed value must be replaced anyway: its length is not reported as well (one mistake, one message);
    the length rule speaks once the value is a Pulumi secret."""
    raw = edited(RAW, "platform", ("kubePrometheusStack", "grafanaAdminPassword"), "hunter2")
    assert problems(raw, []) == [PLAIN_TEXT]
    assert problems(raw, ["oke-rdma:platform"]) == [
        f"{GRAFANA}: expected a password of at least 12 characters, got a shorter one (not shown); choose a longer "
        "one and set it with pulumi config set --path --secret"]


def test_the_program_reads_secret_keys_from_the_pulumi_runtime():
    raw = edited(RAW, "platform", ("kubePrometheusStack", "grafanaAdminPassword"), "correct-horse-battery")
    with pytest.raises(ConfigError) as err:
        run_program(raw, [], "dev")
    assert err.value.problems == [PLAIN_TEXT]
    run = run_program(raw, ["oke-rdma:platform"], "dev")
    assert run.resources


def test_the_secret_check_also_reads_pulumi_config_secret_keys(monkeypatch):
    from oke_rdma.config.loader import pulumi_secret_keys
    monkeypatch.setenv("PULUMI_CONFIG_SECRET_KEYS", json.dumps(["oke-rdma:platform"]))
    assert pulumi_secret_keys([]) == {"oke-rdma:platform"}


def test_image_of_another_region_and_old_style_region_keys():
    image = json.loads(RAW["oke-rdma:nodePools"])["gpu"]["imageId"]
    iad = image.replace(".sa-saopaulo-1.", ".iad.")
    assert problems(edited(RAW, "nodePools", ("gpu", "imageId"), iad)) == [
        "oke-rdma:nodePools.gpu.imageId: expected an image in oci:region sa-saopaulo-1, got an image of us-ashburn-1; "
        "use the OCID of the same image in sa-saopaulo-1 (images are regional)"]
    load_stack_config(edited(RAW, "nodePools", ("gpu", "imageId"), image.replace(".sa-saopaulo-1.", ".gru.")))


@pytest.mark.parametrize("labels", [{"okerdma.io/role": ""}, {"a": "b"}, {"example.com/x-y_z.1": "A-b_c.9"},
                                    {"node.kubernetes.io/exclude-from-external-load-balancers": "true"}])
def test_valid_labels(labels):
    load_stack_config(edited(RAW, "nodePools", ("gpu", "labels"), labels))


@pytest.mark.parametrize("labels", [{"": "x"}, {"a/": "x"}, {"/a": "x"}, {"Example.com/a": "x"}, {"a" * 64: "x"},
                                    {"a": "x" * 64}, {"a": "-x"}, {"a/b/c": "x"}, {"a": "x y"}])
def test_invalid_labels(labels):
    assert problems(edited(RAW, "nodePools", ("gpu", "labels"), labels))[0].startswith(
        "oke-rdma:nodePools.gpu.labels: expected label")


@pytest.mark.parametrize("edit, expected", [
    # found by the fuzz test: a key or a map key with a line separator split one problem over two lines
    (("freeformTags", ("project",), {"\x1e": None}),
     "oke-rdma:freeformTags.project: expected text, got a map with keys '\\x1e'; docs/configuration.md lists this key's type"),
    (("nodePools", ("gpu", "\r"), 1), 'oke-rdma:nodePools.gpu["\\r"]: unknown key; valid keys here:'),
    (("tenants", ("data team",), {}), 'oke-rdma:tenants["data team"]: the tenant name \'data team\' names its Kueue queues'),
])
def test_odd_keys_are_quoted_and_every_problem_is_one_line(edit, expected):
    key, path, value = edit
    found = problems(edited(RAW, key, path, value))
    assert any(p.startswith(expected) for p in found), found
    assert all(len(p.splitlines()) == 1 for p in found)


def test_a_look_alike_key_with_a_control_character_is_quoted():
    found = problems(dict(RAW) | {"okerdma:\u2028x": "1"})
    assert found[0].startswith('"okerdma:\\u2028x": the namespace')


# --- type hints give a value that passes ------------------------------------------------------------------------------
def _type_problems(key, path, value):
    from oke_rdma.config import ConfigError, load_stack_config
    from tests.stackcfg import dev_config, edited

    raw, _ = dev_config()
    try:
        load_stack_config(edited(raw, key, path, value))
    except ConfigError as e:
        return e.problems
    return []


def test_a_version_written_as_a_number_names_the_version_to_write():
    """kubernetesVersion: 1.36 (a YAML number) is answered with the supported patch release, not 'quote it'."""
    [p] = _type_problems("cluster", ("kubernetesVersion",), 1.36)
    assert p.startswith("oke-rdma:cluster.kubernetesVersion: expected text, got the number 1.36; quoting it is not "
                        "enough") and "write v1.36.1" in p
    assert not [x for x in _type_problems("cluster", ("kubernetesVersion",), "v1.36.1") if ".kubernetesVersion:" in x]


def test_a_number_whose_quoted_text_is_valid_is_told_to_quote_it():
    """A namespace written as a number is valid once quoted: the hint says so with the text to write."""
    assert "oke-rdma:tenants.research.namespace: expected text, got the number 12; quote it: '12'" in \
        _type_problems("tenants", ("research", "namespace"), 12)


@pytest.mark.parametrize("value, fix", [
    ("4", "write 4 without quotes"),
    ("-4", "write a number from 0 to 1000 without quotes (-4 is not one)"),
    (2.5, "use a whole number such as 2 or 3"),
])
def test_a_number_hint_names_a_number_the_key_accepts(value, fix):
    [p] = [x for x in _type_problems("nodePools", ("gpu", "size"), value) if ".size:" in x]
    assert p.endswith(fix), p


@pytest.mark.parametrize("value, fix", [("yes", "write true without quotes"), ("off", "write false without quotes"),
                                        ("maybe", "write true or false without quotes")])
def test_a_boolean_hint_names_the_boolean_the_text_meant(value, fix):
    ps = _type_problems("nodePools", ("gpu", "rdma"), value)
    assert any(fix in x for x in ps), ps


@pytest.mark.parametrize("value, fix", [("root", "did you mean 'ROOT'?"), ("NON", "did you mean 'NONE'?"),
                                        ("squash-everything", "pick one of them")])
def test_a_fixed_choice_hint_names_the_closest_choice(value, fix):
    ps = _type_problems("storage", ("fss", "identitySquash"), value)
    assert any(x.startswith("oke-rdma:storage.fss.identitySquash: expected one of") and x.endswith(fix) for x in ps), ps
