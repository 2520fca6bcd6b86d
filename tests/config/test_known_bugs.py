"""A pinned add-on version with a known bug the stack's own settings trigger: refused (quota or isolation bugs) or
warned about (availability bugs), naming the bug, what triggers it here and the fixed version; acceptedBugs turns a
refusal into a warning; a bug no release fixes is warned about as unfixed with its workaround; today's pins carry
only KEDA's unfixed one."""

from __future__ import annotations

import pytest

from oke_rdma.addons import REGISTRY
from oke_rdma.config import ConfigError, load_stack_config
from oke_rdma.config.checks.known_bugs import TRIGGERS, known_bug_warnings
from oke_rdma.facts.charts import parse_version
from oke_rdma.facts.known_bugs import KNOWN_BUGS, REFUSE, WARN, KnownBug
from tests.stackcfg import dev_raw_config, load_dev_config

KEY = "oke-rdma:platform.kueue.version"


def problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_raw_config(**overrides))
    return err.value.problems


def lines_about(lines: list[str], ref: str) -> list[str]:
    return [line for line in lines if f" has {ref}:" in line or f" has {ref} (" in line or f"'{ref}'" in line
            or f" {ref} " in line]


#: The bug today's KEDA pin carries that no release fixes: every dev-stack config warns about it.
UNFIXED_KEDA = "kedacore/keda#7700"


def others(lines: list[str]) -> list[str]:
    """``lines`` without the warning every dev config gets about KEDA's unfixed bug."""
    return [line for line in lines if line not in lines_about(lines, UNFIXED_KEDA)]


def test_today_s_pins_carry_only_the_unfixed_keda_bug():
    """The dev stack on its pins (Kueue 0.19.7, GPU Operator v26.7.0, KEDA 2.20.2, Cilium 1.20.0): no refusal; one
    warning, KEDA's metrics-service CA rotation panic that no release fixes yet, saying so and naming the
    workaround instead of a version."""
    cfg = load_dev_config()
    assert cfg.platform.kueue.version == "0.19.7"
    [line] = known_bug_warnings(cfg)
    assert line.startswith("oke-rdma:platform.keda.version: keda 2.20.2 has kedacore/keda#7700 (unfixed in 2.20.2")
    assert "; workaround: restart the KEDA operator" in line and " or newer" not in line


def test_the_previous_kueue_pin_is_refused_naming_each_bug_and_its_fix():
    """Kueue 0.19.2 with the tenants' LimitRange defaults, requeuing, the chart's job/statefulset integrations and
    pod-level resources (Kubernetes 1.35): six quota bugs, each a line at platform.kueue.version naming what triggers
    it and the fixed patch (#15039, limits-only pods charged the LimitRange defaults, fixed in 0.19.3, among them)."""
    lines = [p for p in problems(platform={"kueue": {"version": "0.19.2"}}) if p.startswith(KEY)]
    expected = {"kubernetes-sigs/kueue#15350": "0.19.4", "kubernetes-sigs/kueue#16132": "0.19.6",
                "kubernetes-sigs/kueue#16401": "0.19.7", "kubernetes-sigs/kueue#16047": "0.19.6",
                "kubernetes-sigs/kueue#15039": "0.19.3", "kubernetes-sigs/kueue#15302": "0.19.4"}
    assert len(lines) == len(expected)
    for ref, fix in expected.items():
        [line] = lines_about(lines, ref)
        assert f"set {fix} or newer" in line and f"platform.kueue.acceptedBugs" in line
        assert "CHANGELOG-0.19.md" in line and "checked 2026-12-02" in line
    [limitrange] = lines_about(lines, "kubernetes-sigs/kueue#15350")
    assert "LimitRange default requests" in limitrange and "requeues" in limitrange
    [limits_only] = lines_about(lines, "kubernetes-sigs/kueue#15039")
    assert "only limits" in limits_only and "LimitRange default requests and Kueue manages" in limits_only


def test_accepting_the_four_older_refusals_still_names_the_limits_only_bug():
    """The bug hunt's input: 0.19.2 with the four bugs refused before #15039 was recorded accepted is refused again,
    naming #15039 (and the StatefulSet rescale bug #15302), each with its fixed patch; accepting them too loads, with
    every accepted bug a warning."""
    four = ["kubernetes-sigs/kueue#15350", "kubernetes-sigs/kueue#16132", "kubernetes-sigs/kueue#16401",
            "kubernetes-sigs/kueue#16047"]
    lines = [p for p in problems(platform={"kueue": {"version": "0.19.2", "acceptedBugs": four}})
             if p.startswith(KEY)]
    assert {ref for ref in ("kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302")
            if lines_about(lines, ref)} == {"kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302"}
    assert len(lines) == 2 and "set 0.19.3 or newer" in lines_about(lines, "kubernetes-sigs/kueue#15039")[0]
    six = four + ["kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302"]
    warnings = known_bug_warnings(load_dev_config(platform={"kueue": {"version": "0.19.2", "acceptedBugs": six}}))
    for ref in six:
        assert lines_about(warnings, ref)[0].endswith("(accepted in acceptedBugs)"), ref
    [stuck] = lines_about(warnings, "kubernetes-sigs/kueue#14793")
    assert "Terminating" in stuck and "set 0.19.3 or newer" in stuck


@pytest.mark.parametrize("version, refused", [
    ("0.18.2", {"kubernetes-sigs/kueue#14630", "kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302"}),
    ("0.18.6", {"kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302"}),
    ("0.18.7", {"kubernetes-sigs/kueue#15302"}),
    ("0.18.8", set()),
])
def test_the_0_18_line_is_refused_for_each_quota_bug_its_patch_lacks(version, refused):
    """The 0.18 line got the same fixes in its own patches: the pod-group adoption bypass in 0.18.6, limits-only
    charging in 0.18.7, the StatefulSet rescale count in 0.18.8; each earlier patch is refused for the ones it lacks
    and told the 0.18 fix."""
    checked = ("kubernetes-sigs/kueue#14630", "kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302")
    try:
        load_stack_config(dev_raw_config(platform={"kueue": {"version": version}}))
        lines: list[str] = []
    except ConfigError as err:
        lines = err.problems
    assert {ref for ref in checked if lines_about(lines, ref)} == refused
    for ref in refused:
        fix = next(b for b in KNOWN_BUGS if b.ref == ref).fix_for(version)
        assert fix.startswith("0.18.") and f"set {fix} or newer" in lines_about(lines, ref)[0]


def test_an_older_line_is_told_its_own_fix_first():
    """0.18.7 lacks #15350's fix, which the 0.18 line got in 0.18.8: the line names 0.18.8."""
    lines = problems(platform={"kueue": {"version": "0.18.7"}})
    [line] = lines_about(lines, "kubernetes-sigs/kueue#15350")
    assert "set 0.18.8 or newer" in line


def test_accepted_bugs_turn_the_refusal_into_warnings():
    """Listing the six refused bugs lets 0.19.2 load; each is then a warning, with the availability bug #15910
    (no succeeded-pods gate before 0.19.6) warned about as well."""
    refs = ["kubernetes-sigs/kueue#15350", "kubernetes-sigs/kueue#16132", "kubernetes-sigs/kueue#16401",
            "kubernetes-sigs/kueue#16047", "kubernetes-sigs/kueue#15039", "kubernetes-sigs/kueue#15302"]
    cfg = load_dev_config(platform={"kueue": {"version": "0.19.2", "acceptedBugs": refs}})
    warnings = known_bug_warnings(cfg)
    for ref in refs:
        [line] = lines_about(warnings, ref)
        assert line.endswith("(accepted in acceptedBugs)")
    [pods] = lines_about(warnings, "kubernetes-sigs/kueue#15910")
    assert "recoveryTimeout is 20m" in pods and "set 0.19.6 or newer" in pods


def test_an_unknown_accepted_bug_is_refused_and_a_stale_one_warned():
    """An entry that is no known bug of the add-on is refused (it could hide nothing); one the pin no longer carries
    is a warning asking to remove it."""
    lines = problems(platform={"kueue": {"acceptedBugs": ["kubernetes-sigs/kueue#1"]}})
    [line] = [p for p in lines if p.startswith("oke-rdma:platform.kueue.acceptedBugs[0]")]
    assert "no known bug of kueue" in line and "kubernetes-sigs/kueue#15350" in line
    cfg = load_dev_config(platform={"kueue": {"acceptedBugs": ["kubernetes-sigs/kueue#15350"]}})
    [stale] = others(known_bug_warnings(cfg))
    assert stale.startswith("oke-rdma:platform.kueue.acceptedBugs:") and "remove it" in stale


def test_a_gated_fix_needs_its_gate():
    """#15910 is fixed in 0.19.6 behind PodIntegrationCountSucceededPodsAsReady, which oke-rdma turns on; a user's
    featureGates list that turns it off (the list merges by gate name) brings the bug back as a warning."""
    cfg = load_dev_config(platform={"kueue": {"values": {"controllerManager": {"featureGates": [
        {"name": "PodIntegrationCountSucceededPodsAsReady", "enabled": False}]}}}})
    [line] = others(known_bug_warnings(cfg))
    assert "kubernetes-sigs/kueue#15910" in line and "PodIntegrationCountSucceededPodsAsReady" in line
    assert "is off" in line


def test_a_bug_whose_integration_is_off_is_not_reported():
    """0.19.6 carries #16401 (StatefulSet/LWS rolling updates); a manager configuration whose integrations leave
    statefulset and leaderworkerset out does not trigger it."""
    config = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanagedJobsNamespaceSelector:\n"
              "  matchExpressions:\n  - {key: okerdma.io/tenant, operator: Exists}\nintegrations:\n"
              "  frameworks: [batch/job]\n")
    cfg = load_dev_config(platform={"kueue": {"version": "0.19.6", "values": {
        "managerConfig": {"controllerManagerConfigYaml": config}}}})
    assert cfg.platform.kueue.version == "0.19.6"
    assert lines_about(known_bug_warnings(cfg), "kubernetes-sigs/kueue#16401") == []
    assert lines_about(problems(platform={"kueue": {"version": "0.19.6"}}), "kubernetes-sigs/kueue#16401")


def test_a_gpu_operator_that_exposes_every_rdma_device_is_avoided_by_the_platform_s_pinned_flags():
    """GPU Operator 26.3.0–26.3.2 injects every ibverbs device into GPU containers unless MOFED_ENABLED is set; the
    platform sets it "false" on every version, so those pins load. Without the pin (a device plugin env lacking it)
    the row's trigger fires on the dev stack's RDMA pool."""
    for version in ("v25.10.1", "v26.3.2", "v26.3.3", "v26.7.0"):
        cfg = load_dev_config(platform={"gpuOperator": {"version": version}})
        assert others(known_bug_warnings(cfg)) == []
    cfg = load_dev_config()
    trigger = TRIGGERS["gpu-operator-rdma-device-plugin"]
    assert trigger(cfg, {"gpuOperator": {"devicePlugin": {"env": [{"name": "MOFED_ENABLED", "value": "false"}]}}}) \
        is None
    hit = trigger(cfg, {"gpuOperator": {"devicePlugin": {"env": [{"name": "GDS_ENABLED", "value": "false"}]}}})
    assert hit and "RDMA pool gpu" in hit


def test_a_keda_that_panics_on_tenants_scaled_objects_is_warned_about():
    """KEDA 2.20.0's fallback status race crashes the shared operator; tenants may create ScaledObjects: a warning
    naming 2.20.1 (availability, not quota: the pin loads)."""
    cfg = load_dev_config(platform={"keda": {"version": "2.20.0"}})
    [line] = lines_about(known_bug_warnings(cfg), "kedacore/keda#7838")
    assert line.startswith("oke-rdma:platform.keda.version") and "set 2.20.1 or newer" in line


@pytest.mark.parametrize("version, expected", [
    ("2.20.0", {"kedacore/keda#7838", "kedacore/keda#7910", "kedacore/keda#7863", "kedacore/keda#7927",
                "kedacore/keda#7798", "kedacore/keda#7700"}),
    ("2.20.1", {"kedacore/keda#7910", "kedacore/keda#7863", "kedacore/keda#7927", "kedacore/keda#7798",
                "kedacore/keda#7700"}),
    ("2.20.2", {"kedacore/keda#7700"}),
])
def test_every_keda_release_of_the_accepted_line_is_warned_about_its_own_bugs(version, expected):
    """The 2.20 line from its first release to the pin: 2.20.1 still crashes on the shared TLS CertPool, on an
    undefaulted replica count, on a tenant's AWS Secret Manager TriggerAuthentication without credentials and on a
    tenant's custom-strategy ScaledJob without a queue-length deduction (all fixed in 2.20.2), and every release
    carries the unfixed CA rotation panic."""
    warnings = known_bug_warnings(load_dev_config(platform={"keda": {"version": version}}))
    found = {b.ref for b in KNOWN_BUGS if b.addon == "keda" and lines_about(warnings, b.ref)}
    assert found == expected
    for line in warnings:
        if "kedacore/keda#7910" in line:
            assert "set 2.20.2 or newer" in line and "concurrent map writes" in line
        if "kedacore/keda#7927" in line:
            assert "set 2.20.2 or newer" in line and "may create TriggerAuthentications" in line
        if "kedacore/keda#7798" in line:
            assert "set 2.20.2 or newer" in line and "may create ScaledJobs" in line


def test_mpi_operator_0_8_0_is_warned_about_its_launcher_bugs_fixed_in_0_8_2():
    """MPI Operator 0.8.0 (vendored, so pinnable) with Kueue managing MPIJobs: a warning per launcher bug fixed in
    0.8.2 (#819 the informer cache changed in place on Kueue's suspend/resume, #810 terminating launcher pods
    recreated, #787 the Running condition re-emitted), each naming 0.8.2; the default 0.8.2 warns about none."""
    refs = {"kubeflow/mpi-operator#819", "kubeflow/mpi-operator#810", "kubeflow/mpi-operator#787"}
    old = known_bug_warnings(load_dev_config(platform={"mpiOperator": {"enabled": True, "version": "0.8.0"}}))
    assert {ref for ref in refs if lines_about(old, ref)} == refs
    for ref in refs:
        [line] = lines_about(old, ref)
        assert line.startswith("oke-rdma:platform.mpiOperator.version: mpiOperator 0.8.0") and "set 0.8.2" in line
    [kueue] = lines_about(old, "kubeflow/mpi-operator#819")
    assert "kubeflow.org/mpijob integration suspends and resumes" in kueue
    new = known_bug_warnings(load_dev_config(platform={"mpiOperator": {"enabled": True}}))
    assert not any(lines_about(new, ref) for ref in refs)


def test_mpi_operator_s_kueue_row_needs_kueue_to_manage_mpijobs():
    """#819 is reached through Kueue's suspend/resume: with Kueue off it is not reported; the launcher rows still are."""
    lines = known_bug_warnings(load_dev_config(platform={"mpiOperator": {"enabled": True, "version": "0.8.0"},
                                                         "kueue": {"enabled": False}}))
    assert lines_about(lines, "kubeflow/mpi-operator#819") == []
    assert lines_about(lines, "kubeflow/mpi-operator#810")


def test_user_values_that_turn_cilium_s_l7_proxy_on_reach_the_livelock_row():
    """oke-rdma turns Cilium's L7 proxy and Envoy off; user values that turn them back on are read from the
    release's final values: on 1.20.0 a warning naming 1.20.1 and the workaround; the product's own values, or
    1.20.1 with the same user values, do not warn about it."""
    on = {"envoy": {"enabled": True}, "l7Proxy": True}
    cfg = load_dev_config(platform={"cilium": {"values": on}})
    [line] = lines_about(known_bug_warnings(cfg), "cilium/cilium#47624")
    assert line.startswith("oke-rdma:platform.cilium.version: cilium 1.20.0")
    assert "l7Proxy and envoy.enabled are true" in line and "set 1.20.1 or newer" in line and "workaround" in line
    only_envoy = load_dev_config(platform={"cilium": {"values": {"envoy": {"enabled": True}}}})
    assert "envoy.enabled is true" in lines_about(known_bug_warnings(only_envoy), "cilium/cilium#47624")[0]
    assert lines_about(known_bug_warnings(load_dev_config()), "cilium/cilium#47624") == []
    from oke_rdma.facts.known_bugs import bugs_of
    [row] = [b for b in bugs_of("cilium") if b.ref == "cilium/cilium#47624"]
    assert row.affects("1.20.0") and not row.affects("1.20.1") and not row.affects("1.19.6")


def test_an_unfixed_row_needs_a_workaround_and_affects_every_version_from_its_start():
    """A row without a fixed release must name a workaround; it then affects every version from ``introduced``."""
    with pytest.raises(ValueError, match="workaround"):
        KnownBug("keda", "x/y#2", "s", (), "keda-metrics-service-mtls", "t", WARN, "src; checked 2026-12-02")
    bug = KnownBug("keda", "x/y#2", "s", (), "keda-metrics-service-mtls", "t", WARN, "src; checked 2026-12-02",
                   introduced="2.19.0", workaround="restart it")
    assert [bug.affects(v) for v in ("2.18.3", "2.19.0", "2.20.2", "3.0.0")] == [False, True, True, True]
    assert bug.fix_for("2.20.2") is None and bug.unfixed


def _bug(fixed, introduced=None) -> KnownBug:
    return KnownBug("kueue", "x/y#1", "s", fixed, "kueue-batch-job", "t", WARN, "src; checked 2026-12-02",
                    introduced=introduced)


@pytest.mark.parametrize("version, affected", [
    ("0.17.9", True),   # an older line without its own fix
    ("0.18.7", True), ("0.18.8", False), ("0.18.9", False),
    ("0.19.3", True), ("0.19.4", False),
    ("0.20.0", False),  # a line newer than every line with a fix carries it
])
def test_release_lines(version, affected):
    assert _bug(("0.18.8", "0.19.4")).affects(version) is affected


def test_introduced_bounds_the_affected_range():
    bug = _bug(("26.3.3",), introduced="26.3.0")
    assert [bug.affects(v) for v in ("25.10.1", "26.3.0", "26.3.2", "26.3.3", "26.7.0")] == \
        [False, True, True, False, False]


def test_every_row_is_sourced_and_readable():
    """The class: every row names a registered add-on, a trigger the check knows, fixed versions that parse, a
    severity and a dated source; and at least two add-ons besides Kueue have rows."""
    for bug in KNOWN_BUGS:
        assert bug.addon in REGISTRY, bug.ref
        assert bug.trigger in TRIGGERS, bug.ref
        assert bug.severity in (REFUSE, WARN) and "checked 20" in bug.source, bug.ref
        assert all(parse_version(f) for f in bug.fixed) and "#" in bug.ref
        assert bug.fixed or bug.workaround, bug.ref  # an unfixed row names what to do instead
    assert set(TRIGGERS) == {b.trigger for b in KNOWN_BUGS}  # no predicate without a row
    assert len({b.addon for b in KNOWN_BUGS} - {"kueue"}) >= 2


def test_no_default_pin_carries_a_refused_bug():
    """Whatever the settings, a default version is never one the check would refuse."""
    for bug in KNOWN_BUGS:
        if bug.severity == REFUSE:
            assert not bug.affects(REGISTRY[bug.addon].defaults.version), bug.ref


def test_pod_level_resources_trigger_the_quota_bug_only_where_kubernetes_serves_them():
    """#16047 (fixed in 0.19.6) needs pod-level resources, on by default from Kubernetes 1.34: 0.19.5 on the dev
    stack's 1.35 is refused naming 0.19.6; the predicate stays silent on 1.33."""
    from oke_rdma.config.checks.known_bugs import _pod_level_resources
    [line] = lines_about(problems(platform={"kueue": {"version": "0.19.5"}}), "kubernetes-sigs/kueue#16047")
    assert "serves pod-level resources" in line and "set 0.19.6 or newer" in line
    from oke_rdma.config.checks.known_bugs import _final_values
    cfg = load_dev_config()
    _, final = _final_values(cfg)
    assert _pod_level_resources(cfg, final) is not None
    older = cfg.model_copy(update={"cluster": cfg.cluster.model_copy(update={"kubernetes_version": "v1.33.1"})})
    assert _pod_level_resources(older, final) is None
    assert _pod_level_resources(cfg, {}) is None  # no Kueue configuration read: nothing it manages


def test_a_percentage_lws_surge_is_warned_about_on_0_19_6_even_with_16401_accepted():
    """0.19.6 with the StatefulSet/LWS ungating bug accepted: the surge-group Workload deletion of LeaderWorkerSet
    rolling updates with a percentage maxSurge is still named, as a warning with its fix (0.19.7), because the chart's
    default integrations keep leaderworkerset on and the stack has tenants."""
    cfg = load_dev_config(platform={"kueue": {"version": "0.19.6", "acceptedBugs": ["kubernetes-sigs/kueue#16401"]}})
    [line] = lines_about(known_bug_warnings(cfg), "kubernetes-sigs/kueue#14405")
    assert line.startswith(KEY) and "percentage maxSurge" in line and "set 0.19.7 or newer" in line
    assert "leaderworkerset integration is on" in line


def test_the_lws_surge_bug_needs_the_leaderworkerset_integration_and_spares_the_pin():
    """Without leaderworkerset among Kueue's integrations (statefulset kept), 0.19.6 is not warned about the LWS
    surge bug; the pinned 0.19.7 carries its fix and the 0.18 line, which has none, is affected."""
    config = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanagedJobsNamespaceSelector:\n"
              "  matchExpressions:\n  - {key: okerdma.io/tenant, operator: Exists}\nintegrations:\n"
              "  frameworks: [statefulset]\n")
    cfg = load_dev_config(platform={"kueue": {"version": "0.19.6", "acceptedBugs": ["kubernetes-sigs/kueue#16401"],
                                              "values": {"managerConfig": {"controllerManagerConfigYaml": config}}}})
    assert lines_about(known_bug_warnings(cfg), "kubernetes-sigs/kueue#14405") == []
    assert lines_about(known_bug_warnings(load_dev_config()), "kubernetes-sigs/kueue#14405") == []
    [row] = [b for b in KNOWN_BUGS if b.ref == "kubernetes-sigs/kueue#14405"]
    assert row.severity == WARN and row.affects("0.18.8") and not row.affects("0.19.7")
