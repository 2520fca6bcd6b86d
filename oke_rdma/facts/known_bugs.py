"""Known bugs of the add-on versions oke-rdma accepts that the product's own configuration triggers, as data.

A pin can be inside every supported range and still carry a bug that the settings oke-rdma writes (Kueue's
``waitForPodsReady`` with a recovery timeout and requeuing, the tenants' LimitRange defaults, the chart's default
integrations, RDMA pools under the GPU Operator's device plugin, tenants allowed to create KEDA ScaledObjects) walk
straight into. Each row names the bug (its upstream reference), the release that fixes it in each release line, which
of the product's settings triggers it (``trigger``: a predicate of ``oke_rdma.config.checks.known_bugs``, which a
test keeps in step with this table) and how the config check answers:

* :data:`REFUSE` — the bug breaks what the platform promises its tenants (quota: a ClusterQueue admits more than its
  nominal quota; isolation: a tenant's container gets devices it was not given). The pin is refused naming the fixed
  version, unless ``platform.<key>.acceptedBugs`` lists the bug (then it is a warning on every preview).
* :data:`WARN` — the bug costs availability (a gang evicted, pods Pending, a shared operator crashing): a warning on
  every preview naming the fixed version.

An unfixed bug (``fixed=()``: no release of any line fixes it yet) is recorded too, with its ``workaround``: the pin
is then affected from ``introduced`` on, and the message says "unfixed in <pin>" and names the workaround instead of a
version to move to.

Triggers read the release's FINAL Helm values (the product's values merged with the user's
``platform.<key>.values``), so a documented user value that turns a feature back on (Cilium's ``l7Proxy``) reaches its
rows.

Release lines: a version is affected when it is at or after ``introduced`` (None: every earlier version oke-rdma
accepts, since the source states no start) and its release line (``major.minor``: Kueue ``0.19``, the GPU Operator's
``26.3``) has no fix at or below it; a line newer than every line with a fix carries the fix, an older line without
one does not. ``gate``: the fix is behind that feature gate, so a fixed version counts as fixed only while the gate
is on in the release's final values.

Every row carries its source and the date it was verified (``checked 2026-12-02``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from oke_rdma.facts.charts import parse_version

REFUSE, WARN = "refuse", "warn"
CHECKED = "checked 2026-12-02"
_KUEUE = "kubernetes-sigs/kueue CHANGELOG/CHANGELOG-{}.md"


@dataclass(frozen=True)
class KnownBug:
    """One upstream bug of an add-on that oke-rdma's configuration triggers.

    :param addon: the add-on's key (``platform.<addon>``).
    :param ref: the upstream reference, ``owner/repo#number`` (what ``acceptedBugs`` lists).
    :param summary: what goes wrong, in one clause.
    :param fixed: the first fixed version in each release line that got the fix (``("0.18.8", "0.19.4")``);
        ``()`` when no release fixes it yet (then ``workaround`` is required).
    :param trigger: the name of the predicate (``oke_rdma.config.checks.known_bugs.TRIGGERS``) that says whether a
        stack's settings trigger it.
    :param setting: which of the product's settings triggers it, for the message.
    :param severity: :data:`REFUSE` or :data:`WARN`.
    :param source: where the bug and its fix are stated, and when that was checked.
    :param introduced: the first affected version (None: the source states none; every earlier version counts).
    :param gate: the feature gate the fix needs (None: the fix is unconditional).
    :param workaround: what an operator does to avoid or recover from it on an affected version (required when
        ``fixed`` is empty; named in the message).
    """

    addon: str
    ref: str
    summary: str
    fixed: tuple[str, ...]
    trigger: str
    setting: str
    severity: str
    source: str
    introduced: Optional[str] = None
    gate: Optional[str] = None
    workaround: Optional[str] = None

    def __post_init__(self) -> None:
        if self.severity not in (REFUSE, WARN):
            raise ValueError(f"{self.ref}: severity {self.severity!r} is not {REFUSE!r} or {WARN!r}")
        if not self.fixed and not self.workaround:
            raise ValueError(f"{self.ref}: a known bug names the release that fixes it, or (unfixed) its workaround")

    @property
    def unfixed(self) -> bool:
        """True when no release fixes the bug yet."""
        return not self.fixed

    def affects(self, version: str) -> bool:
        """True when ``version`` carries the bug (module docstring: release lines).

        :raises ValueError: when ``version`` is not a semantic version.
        """
        v = parse_version(version)
        if self.introduced is not None and v < parse_version(self.introduced):
            return False
        if not self.fixed:
            return True
        line = (v.major, v.minor)
        fixes = [parse_version(f) for f in self.fixed]
        same = [f for f in fixes if (f.major, f.minor) == line]
        if same:
            return v < min(same)
        return line < max((f.major, f.minor) for f in fixes)

    def fix_for(self, version: str) -> Optional[str]:
        """The fixed version to name for a pin at ``version``: the fix of its own line, else the oldest later one
        (None: unfixed)."""
        if not self.fixed:
            return None
        v = parse_version(version)
        later = sorted((parse_version(f), f) for f in self.fixed if parse_version(f) > v)
        same = [f for p, f in later if (p.major, p.minor) == (v.major, v.minor)]
        return same[0] if same else later[0][1] if later else self.fixed[-1]


KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#15350",
        "a workload requeued after its backoff is counted from its raw spec, without the LimitRange defaults, so the "
        "ClusterQueue admits beyond its quota",
        ("0.18.8", "0.19.4"), "kueue-requeue-limitrange",
        "every tenant namespace has a LimitRange with default requests (oke_rdma.tenant_defaults) and oke-rdma's "
        "waitForPodsReady requeues evicted workloads with a backoff",
        REFUSE,
        f"{_KUEUE.format('0.19')} v0.19.4 (#15350); {_KUEUE.format('0.18')} v0.18.8 (#15374, the same fix); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#16132",
        "a Job with parallelism greater than completions releases the quota of its still-running pods once some "
        "succeed, so the ClusterQueue admits beyond its quota",
        ("0.19.6",), "kueue-batch-job",
        "the batch/job integration is on (the chart's default frameworks, which oke-rdma keeps) and tenants may "
        "create Jobs",
        REFUSE, f"{_KUEUE.format('0.19')} v0.19.6 (#16132; no fix in CHANGELOG-0.18.md up to v0.18.8); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#16401",
        "during a StatefulSet or LeaderWorkerSet rolling update, pods at the current revision are ungated before the "
        "Workload is admitted and run without quota",
        ("0.19.7",), "kueue-statefulset",
        "the statefulset and leaderworkerset integrations are on (the chart's default frameworks, which oke-rdma "
        "keeps) and tenants may create StatefulSets",
        REFUSE, f"{_KUEUE.format('0.19')} v0.19.7 (#16401; no fix in CHANGELOG-0.18.md up to v0.18.8); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#14405",
        "a LeaderWorkerSet rolling update with a percentage maxSurge (such as 50%) reads the surge as zero and "
        "deletes the surge groups' Workloads while those groups still run",
        ("0.19.7",), "kueue-leaderworkerset",
        "the leaderworkerset integration is on (the chart's default frameworks, which oke-rdma keeps) and tenants may "
        "create LeaderWorkerSets wherever an LWS controller runs (Trainer's dataCache subchart or one an administrator "
        "installs)",
        WARN, f"{_KUEUE.format('0.19')} v0.19.7 (#14405; no fix in CHANGELOG-0.18.md up to v0.18.8); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#16047",
        "a Workload whose pod-level requests are smaller than its containers' requests reserves the pod-level "
        "amount, so the ClusterQueue admits beyond its quota",
        ("0.19.6",), "kueue-pod-level-resources",
        "tenants may create pods, and Kubernetes 1.34 and newer serve pod-level resources by default "
        "(PodLevelResources, Beta)",
        REFUSE, f"{_KUEUE.format('0.19')} v0.19.6 (#16047; no fix in CHANGELOG-0.18.md up to v0.18.8, whose #15015 "
                f"covers prebuilt Workloads only); Kubernetes docs 'Assign Pod-level CPU and memory resources' "
                f"(Beta, on by default since v1.34); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#16128",
        "an evicted Workload of a StatefulSet or LeaderWorkerSet scaled to zero keeps its quota reserved, blocking "
        "the other Workloads of its ClusterQueue",
        ("0.19.6",), "kueue-statefulset",
        "the statefulset and leaderworkerset integrations are on (the chart's default frameworks, which oke-rdma "
        "keeps) and tenants may create StatefulSets",
        WARN, f"{_KUEUE.format('0.19')} v0.19.6 (#16128; no fix in CHANGELOG-0.18.md up to v0.18.8); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#15910",
        "a pod group is evicted once waitForPodsReady.recoveryTimeout passes after one of its pods completes",
        ("0.19.6",), "kueue-pod-recovery",
        "oke-rdma sets waitForPodsReady.recoveryTimeout (20m) and the pod integration is on (the chart's default)",
        WARN, f"{_KUEUE.format('0.19')} v0.19.6 (#15910: fixed behind the Alpha gate "
              f"PodIntegrationCountSucceededPodsAsReady, off by default; oke-rdma turns it on); {CHECKED}",
        gate="PodIntegrationCountSucceededPodsAsReady"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#15195",
        "admitting a TrainJob drops its runtime's tolerations when ResourceFlavor tolerations apply, leaving its "
        "pods Pending on tainted nodes",
        ("0.18.8", "0.19.4"), "kueue-trainjob-flavor-tolerations",
        "Kubeflow Trainer is enabled and the GPU pools' ResourceFlavors carry the nvidia.com/gpu toleration "
        "(oke_rdma.scheduling)",
        WARN, f"{_KUEUE.format('0.19')} v0.19.4 (#15195); {_KUEUE.format('0.18')} v0.18.8 (#15197); {CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#15039",
        "a pod that sets only limits is charged the LimitRange's default requests instead of its limits (which "
        "Kubernetes copies into its requests), so the quota charged and the resources the pods use differ and the "
        "ClusterQueue admits beyond its quota",
        ("0.18.7", "0.19.3"), "kueue-limitrange-defaults",
        "every tenant namespace has a LimitRange with default requests (oke_rdma.tenant_defaults) and Kueue manages "
        "the tenants' pods and jobs",
        REFUSE, f"{_KUEUE.format('0.19')} v0.19.3 (#15039); {_KUEUE.format('0.18')} v0.18.7 (#15038, the same fix); "
                f"{CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#15302",
        "a StatefulSet scaled to zero and back up to another replica count keeps its Workload's original pod count, "
        "so it is admitted and charged for the wrong number of pods and the ClusterQueue admits beyond its quota",
        ("0.18.8", "0.19.4"), "kueue-statefulset",
        "the statefulset integration is on (the chart's default frameworks, which oke-rdma keeps) and tenants may "
        "create and scale StatefulSets",
        REFUSE, f"{_KUEUE.format('0.19')} v0.19.4 (#15302); {_KUEUE.format('0.18')} v0.18.8 (#15303, the same fix); "
                f"{CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#14630",
        "a pod that sets kueue.x-k8s.io/pod-group-name to another Workload's name is adopted into it and runs "
        "without quota (and finishing it releases the other Workload's quota while its pods still run)",
        ("0.18.6", "0.19.2"), "kueue-pod-integration",
        "the pod integration is on (the chart's default frameworks, which oke-rdma keeps) and tenants may create pods",
        REFUSE, f"{_KUEUE.format('0.19')} v0.19.2 (#14630); {_KUEUE.format('0.18')} v0.18.6 (#14617, the same fix); "
                f"{CHECKED}"),
    KnownBug(
        "kueue", "kubernetes-sigs/kueue#14793",
        "a pod group's pod evicted by waitForPodsReady.recoveryTimeout keeps Kueue's finalizer and stays Terminating "
        "forever, blocking its same-name replacement",
        ("0.18.7", "0.19.3"), "kueue-pod-recovery",
        "oke-rdma sets waitForPodsReady.recoveryTimeout (20m) and the pod integration is on (the chart's default)",
        WARN, f"{_KUEUE.format('0.19')} v0.19.3 (#14793); {_KUEUE.format('0.18')} v0.18.7 (#14795, the same fix); "
              f"{CHECKED}"),
    KnownBug(
        "mpiOperator", "kubeflow/mpi-operator#819",
        "resuming or suspending an MPIJob (what Kueue does to admit or evict it) changes the launcher Job in the "
        "controller's shared informer cache in place, so the controller acts on a launcher that differs from the "
        "API server's",
        ("0.8.2",), "mpi-operator-kueue",
        "Kueue manages MPIJobs (oke-rdma turns its kubeflow.org/mpijob integration on with the MPI Operator), so "
        "every admission and eviction suspends or resumes the launcher",
        WARN, f"kubeflow/mpi-operator commit c27e983 ('Fix missing DeepCopy when mutating the launcher job', #819) and "
              f"RELEASE.md v0.8.1/v0.8.2 (v0.8.1 was never published: its fixes shipped as v0.8.2); {CHECKED}"),
    KnownBug(
        "mpiOperator", "kubeflow/mpi-operator#810",
        "launcher pods that are still terminating are recreated (the launcher Job replaces them at once; kubernetes/"
        "kubernetes#115844), so a second mpirun can start beside the first",
        ("0.8.2",), "mpi-operator-launcher",
        "the MPI Operator runs tenants' MPIJobs (its launcher is a batch/v1 Job without podReplacementPolicy: "
        "Failed before the fix)",
        WARN, f"kubeflow/mpi-operator commit ce4c2fc ('Prevent terminating launcher pods from being recreated', #810: "
              f"podReplacementPolicy Failed on the launcher Job) and RELEASE.md v0.8.1/v0.8.2; {CHECKED}"),
    KnownBug(
        "mpiOperator", "kubeflow/mpi-operator#787",
        "the MPIJob's Running condition is emitted again when the pod and Job informers are out of sync, so its "
        "status flaps",
        ("0.8.2",), "mpi-operator-launcher",
        "the MPI Operator runs tenants' MPIJobs",
        WARN, f"kubeflow/mpi-operator commit 9e35b1a (#787) and RELEASE.md v0.8.1/v0.8.2; {CHECKED}"),
    KnownBug(
        "gpuOperator", "NVIDIA/gpu-operator#2525",
        "the device plugin turns the MOFED/GDS feature flags on unconditionally and injects every ibverbs device of "
        "the node into each GPU container, exposing RDMA interfaces the workload was not given",
        ("v26.3.3",), "gpu-operator-rdma-device-plugin",
        "the operator's device plugin runs on RDMA node pools (rdma: true; OKE's images ship OFED) with MOFED_ENABLED "
        "not pinned to 'false' in devicePlugin.env",
        REFUSE,
        "NVIDIA/cloud-native-docs gpu-operator/release-notes.rst (26.3.3 Fixed Issues: PR #2525, k8s-device-plugin "
        "PR #1837; 26.3.0 ships device plugin v0.19.0); NVIDIA/k8s-device-plugin commit 0af9b620a ('change default "
        f"value for gds, gdrcopy and mofed flags', first tag v0.19.0), reverted in v0.19.3 and v0.20.0. From v26.3.3 "
        "the operator's device-plugin start script turns MOFED_ENABLED/GDS_ENABLED back on where a node loads "
        "nvidia_fs and the variable is unset (assets/state-device-plugin/0400_configmap.yaml, commit 18220f413), so "
        "the fixed release alone does not hold: oke-rdma sets MOFED_ENABLED, GDS_ENABLED and GDRCOPY_ENABLED to "
        f"'false' on every version, which avoids both (oke_rdma/addons/gpu_operator.py); {CHECKED}",
        introduced="v26.3.0"),
    KnownBug(
        "keda", "kedacore/keda#7838",
        "a concurrent map read/write in the fallback status update panics the shared KEDA operator when several "
        "triggers scale at once, stopping every tenant's autoscaling",
        ("2.20.1",), "keda-tenant-scaledobjects",
        "tenants may create ScaledObjects (oke_rdma.facts.tenancy grants keda.sh scaledobjects), so any tenant's "
        "ScaledObject with a fallback and several triggers reaches it",
        WARN, f"kedacore/keda pull request #7847 (CHANGELOG.md v2.20.1: #7838); {CHECKED}"),
    KnownBug(
        "keda", "kedacore/keda#7910",
        "scalers with TLS (Kafka and others) append their CA certificates to one shared root CertPool without a lock; "
        "reconciling many such ScaledObjects at once panics the shared KEDA operator ('concurrent map writes') and "
        "mixes CAs between unrelated triggers ('x509: certificate signed by unknown authority')",
        ("2.20.2",), "keda-tenant-scaledobjects",
        "tenants may create ScaledObjects (oke_rdma.facts.tenancy grants keda.sh scaledobjects), so any tenants' TLS "
        "scaler triggers reach the shared pool",
        WARN, f"kedacore/keda issue #7910 (2026-07-10), pull request #7911; CHANGELOG.md v2.20.2 Fixes: 'concurrent map "
              f"writes panic in the shared root CA CertPool (#7910)'; {CHECKED}"),
    KnownBug(
        "keda", "kedacore/keda#7863",
        "a tenant's Deployment/StatefulSet/ReplicaSet read from the informer cache with an undefaulted spec.replicas "
        "makes GetCurrentReplicas dereference nil and panics the shared KEDA operator",
        ("2.20.2",), "keda-tenant-scaledobjects",
        "tenants may create ScaledObjects that target their own workloads (oke_rdma.facts.tenancy)",
        WARN, f"kedacore/keda CHANGELOG.md v2.20.2 Fixes (#7863; the nil ScaleTargetGVKR guard of #4389/#4955 in the "
              f"same release); {CHECKED}"),
    KnownBug(
        "keda", "kedacore/keda#7927",
        "a TriggerAuthentication with awsSecretManager but neither its credentials nor a pod identity makes the "
        "secret resolver dereference nil and panics the shared KEDA operator on every reconcile",
        ("2.20.2",), "keda-tenant-triggerauthentications",
        "tenants may create TriggerAuthentications (oke_rdma.facts.tenancy grants keda.sh triggerauthentications), "
        "and any tenant's ScaledObject that names such an authentication reaches the resolver",
        WARN, f"kedacore/keda issue #7927 (2026-07-22, closed); CHANGELOG.md v2.20.2 Fixes: 'nil pointer dereference "
              f"in AWS Secret Manager TriggerAuthentication when awsSecretManager.credentials is omitted and no "
              f"awsSecretManager.podIdentity is set (#7927)'; {CHECKED}"),
    KnownBug(
        "keda", "kedacore/keda#7798",
        "a ScaledJob with the custom scaling strategy and no customScalingQueueLengthDeduction makes "
        "GetEffectiveMaxScale dereference nil and panics the ScaledJob controller of the shared KEDA operator",
        ("2.20.2",), "keda-tenant-scaledjobs",
        "tenants may create ScaledJobs (oke_rdma.facts.tenancy grants keda.sh scaledjobs); the deduction is an "
        "optional field of the CRD",
        WARN, f"kedacore/keda issue #7798 (2026-05-29, closed), pull request #7871; CHANGELOG.md v2.20.2 Fixes "
              f"(#7798: the omitted deduction is now treated as zero); {CHECKED}"),
    KnownBug(
        "keda", "kedacore/keda#7700",
        "a certificate rotation can panic the operator (an unlocked shared CA pool in its metrics-service mTLS)",
        (), "keda-metrics-service-mtls",
        "the KEDA operator and its metrics API server always talk gRPC over mTLS, with certificates KEDA rotates "
        "(the chart's certificates.autoGenerated, kept by oke-rdma)",
        WARN, f"kedacore/keda#7700 (open; still seen 2026-09-04), #7691, #8126 (open); {CHECKED}",
        workaround="restart the KEDA operator and metrics server after a certificate rotation"),
    KnownBug(
        "cilium", "cilium/cilium#47624",
        "cilium-agent and cilium-envoy livelock on the cilium.NetworkPolicy xDS stream (ADS mode, the 1.20 default) "
        "once the last L7 listener drains: 85-100 % CPU on every node, L7 traffic answered 403, until both are "
        "restarted",
        ("1.20.1",), "cilium-l7-proxy",
        "Envoy and the L7 proxy are off in oke-rdma's values (l7Proxy: false, envoy.enabled: false); a user value "
        "in platform.cilium.values that turns either back on runs the affected xDS path",
        WARN, f"cilium/cilium issue #47624 (2026-07-31, closed, milestone v1.20.1), fixed by cilium/proxy pull request "
              f"#1982 in the cilium-envoy image cilium/cilium 1.20.1 ships (pull request #47899); {CHECKED}",
        introduced="1.20.0",
        workaround="keep l7Proxy and envoy.enabled false (oke-rdma's policies are Layer 3/4), or restart cilium-agent "
                   "then that node's cilium-envoy when it happens"),
)


def bugs_of(addon: str) -> tuple[KnownBug, ...]:
    """The rows of add-on ``addon`` (``()`` for none)."""
    return tuple(b for b in KNOWN_BUGS if b.addon == addon)
