"""What a Kubernetes RBAC rule grants, and which grants let a subject gain more privilege than intended.

One model serves every RBAC rule of the pack:

* :func:`parse_rules` reads a Role's or ClusterRole's ``rules[]`` into :class:`Rule` values (apiGroups × resources
  [/subresource] × verbs, or nonResourceURLs × verbs) and reports what it cannot interpret (a verb or group that is
  not a string, a list that is not a list, a ``*`` inside a name, resources and nonResourceURLs in one rule, an
  unknown value during preview). :meth:`Rule.allows` matches a request the way the API server's RBAC authorizer does
  (``k8s.io/kubernetes`` ``pkg/apis/rbac/v1/evaluation_helpers.go``: ``VerbMatches``, ``APIGroupMatches``,
  ``ResourceMatches`` — ``*`` matches every verb, group or resource, ``*/<subresource>`` that subresource of every
  resource; resourceNames are not taken to lessen a grant, except ``bind`` on named roles, judged by what those
  roles grant: ``rbac_bind``).
* :data:`DANGERS` is the catalogue of grants that let a subject escalate, each with the scope at which it takes
  effect: ``namespace`` dangers escalate even through a Role or a RoleBinding (escalate/bind, impersonating users
  or groups, modifying the own namespace's labels, binding pods to nodes), ``cluster`` dangers only through a cluster-wide grant (reading
  every Secret; creating workloads, exec/attach/port-forward/proxy, token requests, impersonation of service accounts
  or ConfigMap writes in every namespace — within one namespace these are what a tenant's workload creation already
  gives, the namespace being the trust boundary, so given to another namespace's service account they are refused
  too (:data:`CROSS_NAMESPACE_DANGERS`); the kubelet API (nodes/proxy, nodes/log, nodes/checkpoint); node, PersistentVolume, certificate, admission-webhook and API-registration writes; and the writes that break tenant isolation, ``rbac_isolation``: Endpoints, Service status, VolumeAttachments, Services and routes of every namespace, network policies, storage, scheduling and Kueue classes). Wildcards are judged by what they match in this catalogue, so
  ``*`` in apiGroups, resources or verbs grants every member it covers.
* ``rbac_builtin.BUILT_IN_ROLES`` holds the rules of the default ClusterRoles that matter here, so a binding to
  ``admin``, ``edit`` or a ``system:*`` role is judged by the same catalogue; :data:`AGGREGATION_LABELS` maps the
  ``rbac.authorization.k8s.io/aggregate-to-{admin,edit,view}`` labels to the roles they feed.

Sources (checked 2026-12-01): Kubernetes docs "Using RBAC Authorization"
(https://kubernetes.io/docs/reference/access-authn-authz/rbac/: referring to resources and subresources, ``*``,
aggregated ClusterRoles, default roles, "Privilege escalation prevention and bootstrapping": ``escalate``,
``bind``, ``impersonate``) and "Role Based Access Control Good Practices"
(https://kubernetes.io/docs/concepts/security/rbac-good-practices/, "privilege escalation risks": listing secrets,
workload creation, persistent volume creation, ``nodes/proxy``, escalate, bind, impersonate, CSRs and certificate
issuing, token request, control admission webhooks, namespace modification; wildcards); "Kubelet
authentication/authorization" (``get nodes/proxy`` is not read-only); "Node Authorization" / admission controller
"NodeRestriction" (node labels and taints steer workloads, so only the node itself may change its own); "Certificate
Signing Requests" (``approve`` on ``signers``, ``certificatesigningrequests/approval``); "Dynamic Admission
Control", "Validating Admission Policy" and "Mutating Admission Policy"; "Kubernetes API Aggregation Layer"
(APIService); "Versions in CustomResourceDefinitions" (conversion webhooks receive every object of the CRD); the
bootstrap roles in kubernetes/kubernetes ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`` (release
1.33).
"""
from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Iterable, Optional

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._rules import UNKNOWN, elements, read
    from .rbac_isolation import ISOLATION_DANGERS
else:  # run by the Pulumi CLI from inside policies/security/
    from _rules import UNKNOWN, elements, read
    from rbac_isolation import ISOLATION_DANGERS

RBAC_GROUP = "rbac.authorization.k8s.io"
#: Verbs that are escalations wherever they appear (RBAC docs "Privilege escalation prevention"): judged on any
#: resource, since aggregated API servers and webhook authorizers may honour them beyond the built-in resources.
ESCALATING_VERBS = ("escalate", "bind", "impersonate")
WRITE = ("create", "update", "patch")
READ = ("get", "list", "watch")
ANY_VERB = ("*",)  # a danger that any verb of the resource carries (``get nodes/proxy`` runs commands)
#: Labels that inject a ClusterRole's rules into a built-in user-facing role (RBAC docs "Default roles and role
#: bindings", "Aggregated ClusterRoles").
AGGREGATION_LABELS = {f"rbac.authorization.k8s.io/aggregate-to-{r}": r for r in ("admin", "edit", "view")}
#: Groups whose custom resources make their controller create Pods (workload creation by another name), from their
#: CRDs (checked 2026-12-01): kubeflow/training-operator ``kubeflow.org/v1`` jobs and kubeflow/notebooks
#: ``Notebook``, kubeflow/trainer 2.3.0 ``trainer.kubeflow.org``, kubernetes-sigs/jobset ``jobset.x-k8s.io/v1alpha2``,
#: ray-project/kuberay ``ray.io/v1``, kedacore/keda ``keda.sh/v1alpha1`` ScaledJob (creates Jobs), kubernetes-sigs/lws
#: ``leaderworkerset.x-k8s.io/v1``.
WORKLOAD_CUSTOM_RESOURCES = {
    "kubeflow.org": ("pytorchjobs", "tfjobs", "mpijobs", "xgboostjobs", "paddlejobs", "jaxjobs", "notebooks"),
    "trainer.kubeflow.org": ("trainjobs", "trainingruntimes", "clustertrainingruntimes"),
    "jobset.x-k8s.io": ("jobsets",),
    "ray.io": ("rayjobs", "rayclusters", "rayservices", "raycronjobs"),
    "keda.sh": ("scaledjobs",),
    "leaderworkerset.x-k8s.io": ("leaderworkersets",),
    # Operators that run what their custom resources name: the GPU Operator's driver/toolkit images as privileged
    # hostPID DaemonSets (NVIDIA "ClusterPolicy Custom Resource Reference", NVIDIADriver CRD), the Network
    # Operator's (NicClusterPolicy), prometheus-operator's StatefulSets with any containers and ServiceAccount
    # (Prometheus, Alertmanager, ThanosRuler, PrometheusAgent `containers`), Argo Workflows and Volcano jobs (pod
    # specs copied into pods) — checked 2026-12-01.
    "nvidia.com": ("clusterpolicies", "nvidiadrivers"),
    "mellanox.com": ("nicclusterpolicies",),
    "monitoring.coreos.com": ("prometheuses", "alertmanagers", "thanosrulers", "prometheusagents"),
    "argoproj.io": ("workflows", "cronworkflows", "workflowtemplates", "clusterworkflowtemplates", "workflowtasksets",
                    "sensors", "eventsources", "eventbus", "rollouts", "experiments", "analysisruns",
                    "analysistemplates", "clusteranalysistemplates", "applications", "applicationsets"),
    "batch.volcano.sh": ("jobs",),
    # Operators whose pods are built from their own fields (``_operator_pods``; CRD plurals at argo-workflows
    # v4.1.2, argo-events v1.9.11, argo-rollouts v1.9.1, spark-operator v2.5.2, tektoncd/pipeline v1.15.0, kserve
    # v0.20.0, flink-kubernetes-operator 1.15.0 — checked 2026-12-01). Templates others' runs name count too, as
    # Trainer's runtimes do.
    "sparkoperator.k8s.io": ("sparkapplications", "scheduledsparkapplications", "sparkconnects"),
    "tekton.dev": ("tasks", "clustertasks", "taskruns", "pipelines", "pipelineruns", "stepactions"),
    "serving.kserve.io": ("inferenceservices", "servingruntimes", "clusterservingruntimes",
                          "clusterstoragecontainers", "llminferenceservices", "localmodelnodegroups"),
    "flink.apache.org": ("flinkdeployments", "flinkbluegreendeployments"),
    "triggers.tekton.dev": ("eventlisteners", "triggertemplates", "triggers"),  # tektoncd/triggers v0.37.0
}
#: Non-resource URLs the default roles ``system:discovery``, ``system:public-info-viewer``, ``system:monitoring`` and
#: ``system:service-account-issuer-discovery`` grant ``get`` on: read-only discovery, health and metrics. Any other
#: URL (``*``, ``/logs`` — the control plane's log files, ``/debug/pprof``) or verb is refused.
SAFE_NON_RESOURCE_URLS = ("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/healthz/*", "/livez", "/livez/*",
                          "/readyz", "/readyz/*", "/openapi", "/openapi/*", "/version", "/version/", "/metrics",
                          "/metrics/slis", "/.well-known/openid-configuration",
                          "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/")


@dataclass(frozen=True)
class Rule:
    """One RBAC policy rule. ``resources`` hold ``name``, ``name/subresource``, ``*/subresource`` or ``*``."""

    groups: frozenset[str] = frozenset()
    resources: frozenset[str] = frozenset()
    verbs: frozenset[str] = frozenset()
    urls: frozenset[str] = frozenset()
    #: ``resourceNames``: they never lessen a grant here, except ``bind`` on named roles (:meth:`named_bind`).
    names: frozenset[str] = frozenset()

    def named_bind(self) -> bool:
        """Whether this rule is ``bind`` (and no other escalating verb, no ``*``) on named roles/clusterroles only:
        the subject may bind those roles and no other (RBAC docs "Restrictions on role binding creation or update":
        ``bind`` with resourceNames), which is judged by what the named roles grant (``rbac_bind``)."""
        return bool(self.names) and "bind" in self.verbs and not ({"*", "escalate", "impersonate"} & self.verbs) \
            and bool(self.resources) and self.resources <= {"roles", "clusterroles"} \
            and self.groups <= {RBAC_GROUP}

    def allows(self, group: str, resource: str, verb: str) -> bool:
        """Whether this rule authorizes ``verb`` on ``resource`` (``name`` or ``name/sub``) of API ``group`` (``""``
        is the core group). ``verb`` ``*`` asks "any verb at all"."""
        if not self.verbs or self.urls and not self.resources:
            return False
        verb_ok = "*" in self.verbs or (verb in self.verbs if verb != "*" else bool(self.verbs))
        group_ok = "*" in self.groups or group in self.groups
        sub = resource.split("/", 1)[1] if "/" in resource else None
        resource_ok = "*" in self.resources or resource in self.resources or (
            sub is not None and f"*/{sub}" in self.resources)
        return verb_ok and group_ok and resource_ok


def _strings(value: Any, where: str, problems: list[str]) -> Optional[frozenset[str]]:
    """A list of strings as a frozenset; absent is empty; anything else is a problem (and None)."""
    if value is UNKNOWN:
        problems.append(f"{where} is unknown during preview")
        return None
    if value is None:
        return frozenset()
    if isinstance(value, str) or not isinstance(value, Sequence):
        problems.append(f"{where} is {value!r}, not a list of strings")
        return None
    items = elements(value)
    if UNKNOWN in items:
        problems.append(f"{where} holds a value that is unknown during preview")
        return None
    odd = [i for i in items if not isinstance(i, str)]
    if odd:
        problems.append(f"{where} holds {odd!r}, not strings")
        return None
    return frozenset(items)


def parse_rules(rules_value: Any, namespaced: bool, where: str = "rules") -> tuple[list[Rule], list[str]]:
    """``rules[]`` of a Role (``namespaced``) or ClusterRole as :class:`Rule` values, and why parts of it cannot be
    interpreted (each such part is a problem, never skipped). An absent list is ``[]``."""
    problems: list[str] = []
    if rules_value is UNKNOWN:
        return [], [f"{where} is unknown during preview"]
    if rules_value is not None and (isinstance(rules_value, str) or not isinstance(rules_value, Sequence)):
        return [], [f"{where} is {rules_value!r}, not a list of rules"]
    items = elements(rules_value)
    parsed = []
    for i, item in enumerate(items):
        at = f"{where}[{i}]"
        if item is UNKNOWN:
            problems.append(f"{at} is unknown during preview")
            continue
        if not isinstance(item, Mapping):
            problems.append(f"{at} is {item!r}, not a rule object")
            continue
        before = len(problems)
        verbs = _strings(read(item, "verbs"), f"{at}.verbs", problems)
        groups = _strings(read(item, "apiGroups"), f"{at}.apiGroups", problems)
        resources = _strings(read(item, "resources"), f"{at}.resources", problems)
        urls = _strings(read(item, "nonResourceURLs"), f"{at}.nonResourceURLs", problems)
        names = _strings(read(item, "resourceNames"), f"{at}.resourceNames", problems)
        if len(problems) > before:
            continue
        for r in sorted(resources):
            if "*" in r and r != "*" and not (r.startswith("*/") and "*" not in r[2:]):
                problems.append(f"{at}.resources has {r!r}: RBAC matches '*' and '*/<subresource>' only, so what it "
                                "was meant to grant cannot be judged")
        if urls and (resources or groups):
            problems.append(f"{at} mixes resources and nonResourceURLs, which the API server rejects")
        if urls and namespaced:
            problems.append(f"{at} has nonResourceURLs in a namespaced Role, which the API server rejects")
        parsed.append(Rule(groups, resources, frozenset(v.lower() for v in verbs), urls, names or frozenset()))
    return parsed, problems


@dataclass(frozen=True)
class Danger:
    """A kind of grant that lets a subject escalate. ``perms`` are (group, resource[/sub], verbs) triples; ``scope``
    is ``namespace`` (effective through a namespaced grant too) or ``cluster`` (only through a cluster-wide one)."""

    key: str
    what: str
    scope: str
    perms: tuple[tuple[str, str, tuple[str, ...]], ...]
    #: Whether the resources are namespaced, so a RoleBinding grants the danger in its namespace: given to a subject
    #: of another namespace, it crosses the tenant boundary (:data:`CROSS_NAMESPACE_DANGERS`).
    namespaced: bool = False


def _perms(group: str, resources: Iterable[str], verbs: tuple[str, ...]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple((group, r, verbs) for r in resources)


_ADMISSION = ("validatingwebhookconfigurations", "mutatingwebhookconfigurations", "validatingadmissionpolicies",
              "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings")
DANGERS: tuple[Danger, ...] = (
    Danger("escalate", "escalate/bind (grant permissions the subject does not hold)", "namespace",
           _perms(RBAC_GROUP, ("roles", "clusterroles"), ("escalate", "bind"))),
    Danger("impersonate", "impersonate users, groups or their attributes (act as anyone, system:masters included)",
           "namespace", _perms("", ("users", "groups"), ("impersonate",))
           + _perms("authentication.k8s.io", ("userextras/*", "uids"), ("impersonate",))),
    # Acting as a namespace's service accounts is what workload creation there already gives (Good Practices,
    # "Workload creation"): a namespace is the trust boundary, so these two escalate only beyond one namespace.
    Danger("impersonate-serviceaccounts", "impersonate service accounts of every namespace", "cluster",
           _perms("", ("serviceaccounts",), ("impersonate",)), namespaced=True),
    Danger("token-request", "serviceaccounts/token create in every namespace (mint tokens of any service account)",
           "cluster", _perms("", ("serviceaccounts/token",), ("create",)), namespaced=True),
    # A Secret of type kubernetes.io/service-account-token naming a service account (annotation
    # kubernetes.io/service-account.name) is filled by the token controller with a long-lived token of that account
    # (Kubernetes docs "Service Accounts", "Manually create a long-lived API token for a ServiceAccount"): Secret
    # creation is token minting (token-request's power) for every account of the namespace — kube-system's
    # controllers for a cluster-wide grant. Update and patch return the stored object, data included (Kubernetes
    # docs "API Concepts": the response to a write is the object as stored; an empty merge patch reads any Secret),
    # and rewrite the credentials other workloads trust (webhook CAs, registry and cloud keys). Delete returns a
    # Status, not the object, and yields no credential. Checked 2026-12-02.
    Danger("secret-writes", "Secret writes in every namespace (a service-account-token Secret gets any service "
           "account's token; update and patch return and rewrite any Secret's contents)", "cluster",
           _perms("", ("secrets",), WRITE), namespaced=True),
    Danger("namespace-modification", "namespace writes (relabel a namespace's Pod Security level)", "namespace",
           _perms("", ("namespaces",), WRITE)),
    Danger("secrets-read", "Secret reads in every namespace (list and watch return contents)", "cluster",
           _perms("", ("secrets",), READ), namespaced=True),
    Danger("workload-creation", "workload creation in every namespace (pods run as any service account and mount "
           "any Secret)", "cluster",
           _perms("", ("pods", "replicationcontrollers", "podtemplates"), WRITE)
           + _perms("apps", ("deployments", "statefulsets", "daemonsets", "replicasets"), WRITE)
           + _perms("batch", ("jobs", "cronjobs"), WRITE)
           + tuple(p for g, rs in WORKLOAD_CUSTOM_RESOURCES.items() for p in _perms(g, rs, WRITE)), namespaced=True),
    # Port-forward and the API server's proxy reach a pod's ports past NetworkPolicies, and in-pod services often
    # trust their callers (Ray's dashboard takes job submissions: code as the pod's service account) — Kubernetes
    # docs "Use Port Forwarding to Access Applications in a Cluster", "Manipulating Resources" (proxy), Ray docs
    # "Ray Job Submission" (the dashboard has no authentication); checked 2026-12-01.
    Danger("pod-exec", "exec/attach/port-forward/proxy into pods of every namespace", "cluster",
           _perms("", ("pods/exec", "pods/attach", "pods/portforward"), ("create", "get"))
           + _perms("", ("pods/ephemeralcontainers",), ("update", "patch"))
           + _perms("", ("pods/proxy", "services/proxy"), ANY_VERB), namespaced=True),
    # ConfigMaps are files pods mount (Kubernetes docs "ConfigMaps": mounted ConfigMaps are updated in place) and
    # run: the MPI Operator launcher's discover_hosts.sh (mpi-operator v0.8.0 pkg/controller, the job's ConfigMap),
    # the platform's cordoner and topology-labeler scripts; kube-system's extension-apiserver-authentication holds
    # the client CAs aggregated API servers trust (docs "Configure the Aggregation Layer"); checked 2026-12-01.
    Danger("configmap-writes", "ConfigMap writes in every namespace (files pods mount and run; the aggregation "
           "layer's client CAs in kube-system)", "cluster", _perms("", ("configmaps",), WRITE), namespaced=True),
    Danger("kubelet-api", "the kubelet API through nodes/proxy (commands in every pod of a node; get suffices)",
           "cluster", _perms("", ("nodes/proxy",), ANY_VERB)),
    # The kubelet authorizes /logs/ as nodes/log (the host's /var/log: every pod's container logs) and /checkpoint/
    # as nodes/checkpoint (a checkpoint archive of any container: its memory and files) — Kubernetes docs "Kubelet
    # authentication/authorization" (request path -> subresource), "Kubelet Checkpoint API"; checked 2026-12-02.
    # nodes/stats, nodes/metrics, nodes/spec and nodes/healthz are the kubelet's read-only metrics and machine facts.
    Danger("kubelet-host-data", "the kubelet's host logs and container checkpoints (nodes/log: the host's /var/log, "
           "every pod's logs; nodes/checkpoint: a memory dump of any container)", "cluster",
           _perms("", ("nodes/log", "nodes/checkpoint"), ANY_VERB)),
    # A Binding (pods/binding; the legacy bindings resource) sets a pod's node, which is what the scheduler does:
    # created by a tenant, it places the tenant's pods on any node, past nodeSelector, affinity, taints, Kueue's
    # admission and the dedicated pools — Kubernetes API reference "Binding" ("pods/binding", create), the
    # system:kube-scheduler bootstrap role (bindings, pods/binding: create); checked 2026-12-02. Effective in one
    # namespace, so a namespace danger.
    Danger("pod-binding", "pod binding to a node (pods/binding, bindings: places pods on any node, past the "
           "scheduler, taints and Kueue)", "namespace", _perms("", ("pods/binding", "bindings"), ("create",))),
    Danger("node-modification", "node writes (labels, taints and addresses steer workloads and the API server's "
           "kubelet connections)", "cluster", _perms("", ("nodes", "nodes/status"), WRITE)),
    Danger("persistent-volume-creation", "PersistentVolume writes (a hostPath volume mounts the node's filesystem)",
           "cluster", _perms("", ("persistentvolumes",), WRITE)),
    Danger("certificate-issuing", "certificate approval or signing (client certificates with any identity)",
           "cluster", _perms("certificates.k8s.io", ("certificatesigningrequests/approval",
                                                    "certificatesigningrequests/status"), ("update", "patch"))
           + _perms("certificates.k8s.io", ("signers",), ("approve", "sign"))
           + _perms("certificates.k8s.io", ("certificatesigningrequests/nodeclient",
                                            "certificatesigningrequests/selfnodeclient"), ("create",))),
    Danger("admission-control", "admission webhook/policy, CRD conversion or APIService writes (read or rewrite "
           "every object sent to the API server)", "cluster",
           _perms("admissionregistration.k8s.io", _ADMISSION, WRITE + ("delete", "deletecollection"))
           + _perms("apiextensions.k8s.io", ("customresourcedefinitions",), WRITE)
           + _perms("apiregistration.k8s.io", ("apiservices",), WRITE)),
    # Writes that break tenant isolation (traffic, volumes, scheduling, network policy, quota): ``rbac_isolation``.
    *(Danger(*row) for row in ISOLATION_DANGERS),
)
DANGER_KEYS = tuple(d.key for d in DANGERS)
#: Dangers a RoleBinding grants in its namespace (:attr:`Danger.namespaced`): what a namespace's own workloads may
#: hold there (the namespace is the trust boundary), refused when the binding's subject is of another namespace.
CROSS_NAMESPACE_DANGERS = frozenset(d.key for d in DANGERS if d.namespaced)


def _format(group: str, resource: str, verb: str) -> str:
    """``verb resource[/sub][.group]``: ``create pods/exec``, ``create jobs.batch``, ``patch nodes/status``."""
    name, _, sub = resource.partition("/")
    if verb == "*":
        return f"any verb on {name}{'.' + group if group else ''}{'/' + sub if sub else ''}"
    return f"{verb} {name}{'.' + group if group else ''}{'/' + sub if sub else ''}"


def findings(rules: Iterable[Rule], scope: str) -> dict[str, set[str]]:
    """Danger key → the permissions (``verb resource.group``) ``rules`` grant of it, for dangers effective at
    ``scope`` (``namespace``: only namespace dangers; ``cluster``: all). ``escalate``/``bind``/``impersonate`` count
    on any resource; nonResourceURLs beyond :data:`SAFE_NON_RESOURCE_URLS` (or a verb other than get) count at
    cluster scope (they take effect only through a ClusterRoleBinding)."""
    rules = list(rules)
    found: dict[str, set[str]] = {}
    for danger in DANGERS:
        if danger.scope == "cluster" and scope != "cluster":
            continue
        for group, resource, verbs in danger.perms:
            for verb in verbs:
                if any(r.allows(group, resource, verb) and not (verb == "bind" and r.named_bind()) for r in rules):
                    found.setdefault(danger.key, set()).add(_format(group, resource, verb))
    for r in rules:
        if r.resources:
            for verb in sorted(set(ESCALATING_VERBS) & r.verbs - ({"bind"} if r.named_bind() else set())):
                key = "impersonate" if verb == "impersonate" else "escalate"
                others = r.resources - {"serviceaccounts"} if verb == "impersonate" else r.resources
                if key not in found and others:
                    found[key] = {f"{verb} {','.join(sorted(others))}"}
        if r.urls and scope == "cluster":
            bad_urls = sorted(u for u in r.urls if u not in SAFE_NON_RESOURCE_URLS)
            bad_verbs = sorted(r.verbs - {"get"})
            if bad_urls or bad_verbs:
                found.setdefault("non-resource-urls", set()).add(
                    f"{','.join(sorted(r.verbs))} {','.join(bad_urls or sorted(r.urls))}")
    return found


def describe(found: dict[str, set[str]]) -> str:
    """``found`` as one phrase: ``workload creation ... (create pods, create jobs.batch); ...``."""
    whats = {d.key: d.what for d in DANGERS}
    whats["non-resource-urls"] = "non-resource URLs beyond read-only discovery, health and metrics"
    parts = []
    for key in sorted(found):
        perms = sorted(found[key])
        shown = ", ".join(perms[:4]) + (f", +{len(perms) - 4} more" if len(perms) > 4 else "")
        parts.append(f"{whats.get(key, key)} ({shown})")
    return "; ".join(parts)


#: Dangers whose members all give the same power (any workload runs code as any service account of its namespace;
#: any Secret read is a Secret read): a role adding another member to a built-in role that holds one adds nothing.
EQUIVALENT_MEMBERS = frozenset({"workload-creation", "pod-exec", "secrets-read", "secret-writes"})


def minus(found: dict[str, set[str]], already: dict[str, set[str]]) -> dict[str, set[str]]:
    """``found`` without what ``already`` grants (what a role adds to a built-in role it feeds): the same
    permissions, or any member of an :data:`EQUIVALENT_MEMBERS` danger ``already`` holds."""
    out = {k: set() if k in EQUIVALENT_MEMBERS and already.get(k) else v - already.get(k, set())
           for k, v in found.items()}
    return {k: v for k, v in out.items() if v}


# --- label selectors -----------------------------------------------------------------------------------------------
def selector_matches(selector: Any, labels: dict[str, str]) -> Any:
    """Whether a ``clusterRoleSelectors[]`` label selector selects ``labels`` (Kubernetes docs "Labels and
    Selectors": matchLabels AND every matchExpression; In, NotIn, Exists, DoesNotExist). UNKNOWN when the selector
    is unknown or malformed."""
    if not isinstance(selector, Mapping):
        return UNKNOWN
    match_labels = read(selector, "matchLabels")
    if match_labels is UNKNOWN or (match_labels is not None and not isinstance(match_labels, Mapping)):
        return UNKNOWN
    for key, value in (match_labels or {}).items():
        value = read(match_labels, key)
        if value is UNKNOWN or not isinstance(value, str):
            return UNKNOWN
        if labels.get(key) != value:
            return False
    expressions = elements(read(selector, "matchExpressions"))
    if expressions is UNKNOWN:
        return UNKNOWN
    for expr in expressions:
        key, op, values = read(expr, "key"), read(expr, "operator"), elements(read(expr, "values"))
        if not isinstance(key, str) or op not in ("In", "NotIn", "Exists", "DoesNotExist") or values is UNKNOWN \
                or not all(isinstance(v, str) for v in values):
            return UNKNOWN
        has = key in labels
        if (op == "In" and not (has and labels[key] in values)) or (op == "NotIn" and has and labels[key] in values) \
                or (op == "Exists" and not has) or (op == "DoesNotExist" and has):
            return False
    return True


def glob(pattern: str, value: Any) -> bool:
    """Shell-style match (``*`` any run of characters), case-sensitive like Kubernetes names."""
    return isinstance(value, str) and fnmatch.fnmatchcase(value, pattern)
