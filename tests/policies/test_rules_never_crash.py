"""The new exposure, identity and pod-privilege rules never raise on props of the wrong shape: whatever a program
passes (a string where a map is expected, a number for a flag, lists of maps of lists), a rule reports or passes,
and the preview never ends in a traceback."""
from __future__ import annotations

from hypothesis import example, given, HealthCheck, settings
from hypothesis import strategies as st

from tests.policies.test_policies import U, res, run

KEYS = ["spec", "metadata", "annotations", "type", "values", "hostPath", "path", "securityContext", "capabilities",
        "add", "containers", "volumes", "hostPID", "privileged", "statements", "direction", "protocol", "source",
        "sourceType", "tcpOptions", "destinationPortRange", "min", "max", "icmpOptions", "isPrivate", "namespace",
        "ingressSecurityRules", "createVnicDetails", "assignPublicIp", "clientCidrBlockAllowLists", "rules", "verbs",
        "resources", "roleRef", "subjects", "name", "groupId", "members", "whitelistedIps", "hard", "labels",
        "sysctls", "seccompProfile", "externalIPs", "template", "chart", "version", "repositoryOpts", "repo",
        "namespaceSelector", "matchLabels", "cohortName", "exportOptions", "identitySquash", "rootSquashConfiguration",
        "clientExceptions", "value", "volumeClaimTemplate", "ephemeral", "volumeName"]
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-5, 70000), st.sampled_from(
    ["0.0.0.0/0", "::ffff:0.0.0.0/96", "INGRESS", "ingress", "6", "all", "tcpp", "/", "LoadBalancer", U, "true",
     "Allow group A to manage policies in tenancy", "SYS_ADMIN", "privileged", "x"]))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=12)
TYPES = ["oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
         "oci:Core/securityList:SecurityList", "oci:LoadBalancer/loadBalancer:LoadBalancer",
         "kubernetes:core/v1:Service", "kubernetes:helm.sh/v3:Release", "kubernetes:core/v1:Pod",
         "oci:Identity/policy:Policy", "oci:Identity/userGroupMembership:UserGroupMembership",
         "oci:Bastion/bastion:Bastion", "oci:Core/instance:Instance",
         "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "kubernetes:core/v1:Namespace",
         "kubernetes:core/v1:ResourceQuota", "oci:Database/autonomousDatabase:AutonomousDatabase",
         "kubernetes:core/v1:PersistentVolume", "kubernetes:networking.k8s.io/v1:Ingress",
         "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", "kubernetes:core/v1:ConfigMap",
         "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "oci:FileStorage/export:Export",
         "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TYPES), st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6))
@example("oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule", {"spec": None, "sourceType": {}})
@example("oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule", {"metadata": {"namespace": {}}})
@example("kubernetes:core/v1:Pod", {"metadata": {"namespace": []}, "namespace": {}})
@example("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", {"metadata": {"namespace": {}}, "subjects": [{"kind": "User", "name": "x", "namespace": {}}]})
@example("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", {"spec": {"namespaceSelector": {"matchLabels": []}}})
@example("oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem",
         {"rootSquashConfiguration": {"clientExceptions": [None, 5, "x"]}})
@example("kubernetes:core/v1:Pod", {"spec": {"securityContext": {"sysctls": [{"name": "net.ipv4.ip_unprivileged_port_start", "value": {}}]}}})
def test_rules_report_or_pass_on_any_shape(type_, props):
    run(res(type_, "x", props))  # evaluate raises PolicyRuntimeError if any rule raises
