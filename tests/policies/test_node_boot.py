"""What a node runs at boot: cloud-init user data is read in every format cloud-init accepts (gzip, MIME multipart at
any depth and transfer encoding, archives, JSON patches, boothooks, cloud-config commands and files), so a script
that opens the node is refused however it is wrapped, and OKE's own boot script passes in every wrapper. What cannot
be judged offline (includes, templates, part handlers, unknown types, undecodable bytes) is refused; so are files
written where the kubelet or the container runtime reads its configuration, cloud-config modules that log in, fetch
or hand the node to another server, and login keys in the metadata, on every carrier of user data."""
from __future__ import annotations

import base64
import gzip
import json
from types import SimpleNamespace
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
import yaml

from oke_rdma import node_init
from policies.placement import _pools
from policies.security import _user_data, node_boot
from tests.policies.test_policies import NODE_POOL, U, call_resource_rule, proxied

OKE = ("#!/bin/bash\ncurl --fail -H 'Authorization: Bearer Oracle' -L0 "
       "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script | base64 --decode >/var/run/oke-init.sh\n"
       "bash /var/run/oke-init.sh\n")


def run_oke_with(args: str) -> str:
    """OKE's boot script, its bootstrap run with kubelet flags."""
    return OKE.replace("bash /var/run/oke-init.sh\n", f"bash /var/run/oke-init.sh --kubelet-extra-args '{args}'\n")


OPEN = run_oke_with("--anonymous-auth=true --authorization-mode=AlwaysAllow")


def b64(data) -> str:
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


def mime(*parts) -> bytes:
    message = MIMEMultipart()
    for part in parts:
        message.attach(part)
    return message.as_bytes()


def problems(data) -> list[str]:
    """The rule's findings for ``data`` as a node pool's user data (bytes/str are base64-encoded as OCI wants)."""
    value = data if data is U else b64(data)
    return call_resource_rule(node_boot.validate_cloud_init_closed, NODE_POOL, {"nodeMetadata": {"user_data": value}})


def _config(doc: dict) -> str:
    return "#cloud-config\n" + yaml.safe_dump(doc)


#: Every wrapper cloud-init unpacks, around a script (a function of the script text).
WRAPPERS = {
    "plain script": lambda s: s,
    "gzip": lambda s: gzip.compress(s.encode(), mtime=0),
    "MIME, base64 part": lambda s: mime(MIMEText(s, "x-shellscript", "utf-8")),
    "MIME, quoted-printable part": lambda s: mime(MIMEText(s, "x-shellscript", "iso-8859-1")),
    "MIME, text/plain typed by #!": lambda s: mime(MIMEText(s, "plain")),
    "MIME, per-boot script": lambda s: mime(MIMEText(s, "x-shellscript-per-boot")),
    "MIME, nested multipart": lambda s: mime(MIMEText("#cloud-config\ntimezone: UTC\n", "cloud-config"),
                                             _nested(MIMEText(s, "x-shellscript"))),
    "MIME, gzip part": lambda s: mime(MIMEApplication(gzip.compress(s.encode(), mtime=0), "x-gzip")),
    "gzip of MIME": lambda s: gzip.compress(mime(MIMEText(s, "x-shellscript")), mtime=0),
    "boothook": lambda s: "#cloud-boothook\n" + s,
    "archive, string entry": lambda s: "#cloud-config-archive\n" + yaml.safe_dump([s]),
    "archive, typed entry": lambda s: "#cloud-config-archive\n" + yaml.safe_dump(
        [{"type": "text/x-shellscript", "content": s}]),
    "cloud-config runcmd": lambda s: _config({"runcmd": [s]}),
    "cloud-config bootcmd list": lambda s: _config({"bootcmd": [["sh", "-c", s]]}),
    "write_files, plain": lambda s: _config({"write_files": [{"path": "/usr/local/bin/boot.sh", "content": s}],
                                             "runcmd": ["sh /usr/local/bin/boot.sh"]}),
    "write_files, gz+b64": lambda s: _config({"write_files": [{
        "path": "/usr/local/bin/boot.sh", "encoding": "gz+b64",
        "content": b64(gzip.compress(s.encode(), mtime=0))}], "runcmd": ["sh /usr/local/bin/boot.sh"]}),
    "JSON patch": lambda s: "#cloud-config-jsonp\n" + json.dumps([{"op": "add", "path": "/runcmd", "value": [s]}]),
}


def _nested(part):
    inner = MIMEMultipart()
    inner.attach(part)
    return inner


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_a_kubelet_opening_script_is_refused_in_every_format_and_okes_own_passes(wrapper):
    """The same script, wrapped in each format cloud-init unpacks: opening the kubelet is refused, OKE's own
    bootstrap passes."""
    found = problems(WRAPPERS[wrapper](OPEN))
    assert any("anonymous authentication" in m for m in found) and any("AlwaysAllow" in m for m in found), found
    assert problems(WRAPPERS[wrapper](OKE)) == []


@pytest.mark.parametrize("data, needle", [
    ("#include\nhttps://example.com/boot.sh\n", "includes https://example.com/boot.sh"),
    ("#include https://example.com/boot.sh\n", "includes https://example.com/boot.sh"),
    ("#include-once\nhttps://example.com/once.sh\n", "includes https://example.com/once.sh"),
    (mime(MIMEText("https://example.com/x\n", "x-include-url")), "includes https://example.com/x"),
    (mime(MIMEText("https://example.com/x\n", "x-include-once-url")), "includes https://example.com/x"),
    ("#cloud-config-archive\n- {type: text/x-include-url, content: 'https://example.com/y'}\n", "includes"),
    ("#part-handler\ndef handle_part(*a): pass\n", "part handler"),
    ("## template: jinja\n#!/bin/bash\necho {{ v1.instance_id }}\n", "Jinja template"),
    (mime(MIMEText("<p>hi</p>", "html")), "text/html"),
    (mime(MIMEApplication(b"\x00\x01", "octet-stream")), "application/octet-stream"),
    (b"#!/bin/bash\n\xff\xfe echo\n", "not UTF-8"),
    (b"\x1f\x8b\x08\x00broken", "does not decompress"),
    (gzip.compress(b"#!/bin/sh\n" + b"#" * (_user_data.MAX_BYTES + 1)), "larger than"),
    ("echo hello\n", "none of cloud-init's format markers"),
    ("#cloud-config\nruncmd: [unclosed\n", "does not parse"),
    ("#cloud-config\n- a list\n", "not a map"),
    ("#cloud-config-jsonp\n" + json.dumps([{"op": "copy", "from": "/a", "path": "/runcmd"}]), "'copy'"),
    ("#cloud-config\n" + "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcde", "bcdef")), "excessive aliasing"),
    (U, "unknown during preview"),
])
def test_what_cannot_be_judged_offline_is_refused(data, needle):
    """Remote content, templates, part handlers, unknown types and formats, undecodable or oversized data, documents
    that do not parse and unknown values are refused, each named."""
    found = problems(data)
    assert any(needle in m for m in found), found


def test_formats_nested_deeper_than_the_limit_are_refused():
    """Archives nested in archives past the nesting limit are refused; within it, the script inside is read."""
    def nest(text: str, times: int) -> str:
        for _ in range(times):
            text = "#cloud-config-archive\n" + yaml.safe_dump([{"type": "text/cloud-config-archive", "content": text}])
        return text
    assert any("more than" in m for m in problems(nest("#cloud-config-archive\n- " + json.dumps(OKE),
                                                       _user_data.MAX_DEPTH + 1)))
    assert any("anonymous" in m for m in problems(nest("#cloud-config-archive\n- " + json.dumps(OPEN), 2)))


@pytest.mark.parametrize("path", [
    "/etc/kubernetes/manifests/agent.yaml", "etc/kubernetes/manifests/agent.yaml", "/etc//kubernetes/kubelet.conf",
    "/etc/kubernetes/../kubernetes/manifests/x.yaml", "/var/lib/kubelet/config.yaml", "/etc/default/kubelet",
    "/etc/systemd/system/kubelet.service.d/10-flags.conf", "/etc/crio/crio.conf.d/99-x.conf",
    "/etc/containers/registries.conf", "/etc/containers/policy.json", "/etc/containerd/certs.d/x/hosts.toml",
    "/etc/docker/daemon.json", "/etc/cni/net.d/00-x.conflist", "/opt/cni/bin/x", "/etc/cdi/x.yaml",
    "/etc/nri/conf.d/x", "/etc/nvidia-container-runtime/config.toml", "/usr/libexec/kubernetes/kubelet-plugins/x",
])
def test_files_where_the_kubelet_or_the_runtime_reads_configuration_are_refused(path):
    """write_files to a static pod, kubelet, runtime, CNI, CDI, NRI or NVIDIA runtime path is refused, and so is a
    script that names it; a file elsewhere passes."""
    written = problems(_config({"write_files": [{"path": path, "content": "x"}]}))
    assert any("write_files[0] writes" in m for m in written), written
    if path.startswith("/"):  # a relative path in a script depends on its working directory
        scripted = problems(OKE + f"cat >{path} <<'EOF'\nx\nEOF\n")
        assert any(" names " in m for m in scripted), scripted
    assert problems(_config({"write_files": [{"path": "/etc/motd", "content": "hello"}]})) == []


@pytest.mark.parametrize("setting, needle", [
    ("--pod-manifest-path=/tmp/pods", "static pod directory"),
    ("--manifest-url=https://example.com/pods.yaml", "static pods fetched from a URL"),
    ("--allowed-unsafe-sysctls='net.*'", "unsafe, node-wide sysctls"),
    ("--container-runtime-endpoint=tcp://10.0.0.5:2375", "another container runtime"),
    ("--read-only-port=10255", "read-only port"),
])
def test_kubelet_flags_that_open_the_node_are_refused(setting, needle):
    """Kubelet flags passed through OKE's bootstrap that open the node are refused."""
    found = problems(run_oke_with(setting))
    assert any(needle in m for m in found), found


@pytest.mark.parametrize("line, needle", [
    ("dockerd -H 0.0.0.0:2375 &", "Docker's API on TCP"), ("dockerd --host=tcp://0.0.0.0:2375 &", "Docker's API"),
    ("echo 'skip_verify = true' >>hosts.toml", "TLS verification"),
    ("echo 'insecure = true' >>registries.conf", "without TLS"),
])
def test_runtime_settings_that_open_the_node_are_refused(line, needle):
    """The runtime's API on TCP and registries without TLS, however spelled, are refused."""
    assert any(needle in m for m in problems(OKE + line + "\n"))


@pytest.mark.parametrize("doc, needle", [
    ({"ssh_authorized_keys": ["ssh-ed25519 AAAA k"]}, "logins"),
    ({"users": [{"name": "ops", "sudo": "ALL=(ALL) NOPASSWD:ALL"}]}, "logins"),
    ({"ssh_import_id": ["gh:someone"]}, "logins"), ({"chpasswd": {"expire": False}}, "logins"),
    ({"apt": {"sources": {"x": {"source": "deb http://example.com/ x main"}}}}, "another server"),
    ({"yum_repos": {"x": {"baseurl": "https://example.com/repo"}}}, "another server"),
    ({"snap": {"commands": ["snap install x"]}}, "another server"),
    ({"ansible": {"pull": {"url": "https://example.com/p.git"}}}, "configuration-management"),
    ({"chef": {"omnibus_url": "https://example.com/install.sh"}}, "configuration-management"),
    ({"puppet": {"install": True}}, "configuration-management"),
    ({"salt_minion": {"conf": {"master": "salt.example.com"}}}, "configuration-management"),
    ({"phone_home": {"url": "https://example.com/$INSTANCE_ID"}}, "sends the node's data"),
    ({"ca_certs": {"trusted": ["-----BEGIN CERTIFICATE-----"]}}, "certificate authorities"),
    ({"cloud_final_modules": ["scripts_user"]}, "which cloud-init modules run"),
    ({"some_new_module": {"x": 1}}, "not reviewed"),
    ({"write_files": [{"path": "/usr/local/bin/x", "source": {"uri": "https://example.com/x"}}]}, "at boot"),
    ({"write_files": [{"path": "/x", "encoding": "b64", "content": "@@not base64@@"}]}, "does not decode"),
    ({"packages": ["https://example.com/x.rpm"]}, "a URL or a path"),
    ({"packages": [{"apt": ["/tmp/x.deb"]}]}, "a URL or a path"),
])
def test_cloud_config_modules_that_log_in_fetch_or_send_out_are_refused(doc, needle):
    """cloud-config keys that install logins, fetch and run remote content, hand the node to another server, send
    its data out, trust another CA or change the module lists are refused, as is any key not reviewed."""
    found = problems(_config(doc))
    assert any(needle in m for m in found), found


def test_reviewed_cloud_config_passes():
    """Package updates from the image's repositories, time, host name, disks, and OKE's bootstrap as runcmd pass."""
    doc = {"package_update": True, "packages": ["mdadm", ["nvme-cli", "1.16"], {"apt": ["jq"]}], "timezone": "UTC",
           "hostname": "gpu-node", "mounts": [["/dev/md0", "/mnt/nvme"]], "final_message": "done",
           "write_files": [{"path": "/etc/motd", "content": "GPU node"}], "runcmd": [OKE]}
    assert problems(_config(doc)) == []


CARRIERS = {
    "pool nodeMetadata": (NODE_POOL, lambda m: {"nodeMetadata": m}),
    "instance metadata": (node_boot.INSTANCE, lambda m: {"metadata": m}),
    "instance extendedMetadata": (node_boot.INSTANCE, lambda m: {"extendedMetadata": m}),
    "configuration launchDetails": (node_boot.INSTANCE_CONFIGURATION, lambda m: {"instanceDetails": {
        "instanceType": "compute", "launchDetails": {"metadata": m}}}),
    "configuration launchDetails extendedMetadata": (node_boot.INSTANCE_CONFIGURATION, lambda m: {
        "instanceDetails": {"instanceType": "compute", "launchDetails": {"extendedMetadata": m}}}),
    "configuration options": (node_boot.INSTANCE_CONFIGURATION, lambda m: {"instanceDetails": {
        "instanceType": "instance_options", "options": [{"launchDetails": {"metadata": m}}]}}),
}


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_every_carrier_of_user_data_is_read(carrier):
    """Node pools, instances (metadata and extendedMetadata) and instance configurations (launch details and each
    option): an opening script, gzip-wrapped, and a login key are refused; OKE's script passes."""
    kind, props = CARRIERS[carrier]
    rule = node_boot.validate_cloud_init_closed
    found = call_resource_rule(rule, kind, props({"user_data": b64(gzip.compress(OPEN.encode()))}))
    assert any("anonymous authentication" in m for m in found), found
    found = call_resource_rule(rule, kind, props({"ssh_authorized_keys": "ssh-ed25519 AAAA k"}))
    assert any("ssh_authorized_keys installs a login key" in m for m in found), found
    assert call_resource_rule(rule, kind, props({"user_data": b64(OKE)})) == []
    assert call_resource_rule(rule, kind, props(U))


def test_an_instance_configuration_copied_from_an_instance_is_refused():
    """An instance configuration made from an existing instance copies metadata the preview cannot read."""
    found = call_resource_rule(node_boot.validate_cloud_init_closed, node_boot.INSTANCE_CONFIGURATION,
                               {"source": "INSTANCE", "instanceId": "ocid1.instance.oc1..x"})
    assert any("copies an instance's metadata" in m for m in found), found
    assert call_resource_rule(node_boot.validate_cloud_init_closed, node_boot.INSTANCE_CONFIGURATION,
                              {"source": "NONE", "instanceDetails": {"instanceType": "compute"}}) == []


@pytest.mark.parametrize("nvme, lustre, taints", [
    (False, None, ()), (True, None, ()), (True, {}, ("node.cilium.io/agent-not-ready=true:NoExecute",)),
    (True, {"oracleLinux8": node_init.LustreArchive("https://example.com/l.tgz", "a" * 64),
            "ubuntu2204": node_init.LustreArchive("https://example.com/u.tgz", "b" * 64)},
     ("node.cilium.io/agent-not-ready=true:NoExecute",)),
])
def test_oke_rdmas_own_node_script_passes_in_every_configuration(nvme, lustre, taints):
    """The node script the program renders (NVMe RAID, the Lustre client, startup taints) keeps the node closed."""
    data = node_init.user_data(nvme=nvme, lustre_client=lustre, taints=taints)
    assert call_resource_rule(node_boot.validate_cloud_init_closed, NODE_POOL,
                              {"nodeMetadata": {"user_data": data}}) == []


def test_the_placement_pack_reads_node_labels_through_every_format():
    """Node labels set by a gzip-wrapped or MIME-wrapped script are the pool's labels; a pool whose user data
    cannot be read in full has unknown labels."""
    script = "#!/bin/bash\noke bootstrap --kubelet-extra-args '--node-labels=okerdma.io/node-pool=gpu,team=x'\n"
    def labels(data):
        [pool] = _pools.node_pools([SimpleNamespace(resource_type=NODE_POOL, name="p", urn="u", props=proxied(
            {"nodeShape": "BM.GPU.H100.8", "nodeMetadata": {"user_data": b64(data)}}))])
        return pool.labels
    for data in (gzip.compress(script.encode()), mime(MIMEText(script, "x-shellscript", "utf-8"))):
        assert labels(data) == {"okerdma.io/node-pool": "gpu", "team": "x"}
    assert labels("#include https://example.com/labels.sh\n") is _pools.UNKNOWN


@pytest.mark.parametrize("extra", [
    "bash /var/run/oke-init.sh --kubelet-extra-args '--anonymous-auth=true'",
    "bash /var/run/oke-init.sh --kubelet-extra-args '--authorization-mode=AlwaysAllow'",
    "bash /var/run/oke-init.sh --kubelet-extra-args '--read-only-port=10255'",
    "cat >/etc/kubernetes/kubelet-config.json <<EOF\n{\"authentication\": {\"anonymous\": {\"enabled\": true}}}\nEOF",
    "printf '[grpc]\\n  tcp_address = \"0.0.0.0:8888\"\\n' >>/etc/containerd/config.toml",
    "sed -i 's/insecure_skip_verify = false/insecure_skip_verify = true/' /etc/containerd/config.toml",
])
@pytest.mark.parametrize("kind, key", [(NODE_POOL, "nodeMetadata"), (node_boot.INSTANCE, "metadata")])
def test_a_boot_script_that_opens_the_node_is_refused_base64_or_plain(extra, kind, key):
    """User data is read whether it is base64 (OCI's form) or the text itself."""
    for data in (b64(OKE + extra), OKE + extra):
        assert call_resource_rule(node_boot.validate_cloud_init_closed, kind, {key: {"user_data": data}})
