"""What a node runs at boot keeps the node closed: ``node-cloud-init-keeps-node-closed`` (MANDATORY).

Every carrier of cloud-init user data in the catalogue is read: a node pool's ``nodeMetadata`` (OKE copies it into
each node's instance metadata), an instance's ``metadata`` and ``extendedMetadata``, and an instance
configuration's ``instanceDetails.launchDetails`` and ``instanceDetails.options[].launchDetails`` (the same two
maps); an instance configuration made from an existing instance (``source: INSTANCE``) copies metadata the preview
cannot see and is refused. Instance pools, cluster networks and virtual node pools are refused by the catalogue.

Each ``user_data`` is unpacked as cloud-init unpacks it (``_user_data``: gzip, MIME multipart at any depth and in
any transfer encoding, cloud-config archives, JSON patches) and refused when any of it cannot be judged offline:
an ``#include``/``#include-once`` URL, a part handler, a Jinja template, a part of an unknown type, undecodable
bytes, an unknown value. What runs is then read, every text of every part:

* **Settings that open the node** (:data:`OPENING`): the kubelet's anonymous authentication, ``AlwaysAllow``, the
  read-only port, static pods from another directory or a URL, unsafe sysctls, another runtime endpoint; the
  runtime's API on TCP (containerd ``tcp_address``, dockerd ``-H tcp://``); registries without TLS. Kubernetes docs
  "Kubelet authentication/authorization", kubelet reference (``--pod-manifest-path``, ``--manifest-url``,
  ``--allowed-unsafe-sysctls``, ``--container-runtime-endpoint``); containerd docs "config.toml", "hosts.toml"
  (``skip_verify``); containers-registries.conf(5) (``insecure``); Docker docs "dockerd".
* **Files where the kubelet or the runtime reads its configuration** (:data:`NODE_CONFIG`), by ``write_files`` or
  named anywhere in a script: the static pod directory (the kubelet runs what is there with no admission, no pack,
  no Pod Security), the kubelet's config, credentials and environment, the runtime's configuration (CRI-O is OKE's),
  registries and image trust policy, the systemd units of both, CNI configuration and plugins (the pod network under
  the Cilium walls), CDI specs and NRI plugins (devices and hooks injected into containers), the NVIDIA runtime's
  configuration, FlexVolume plugins, the runtime's socket. A shell script can spell a path so no pattern sees it; a
  script that writes there through variables is not caught (docs/threat-model.md).
* **cloud-config modules** (:data:`CONFIG_KEYS`): only keys this rule judges or that were reviewed as harmless pass.
  ``write_files`` with ``source.uri`` fetches the file at boot; ``packages`` naming a URL or a path installs what is
  there; users, SSH keys and passwords are logins outside Kubernetes; package repositories, configuration
  management (Ansible, Chef, Puppet, Salt) and remote management run what another server serves; ``phone_home``,
  ``reporting`` and ``rsyslog`` send the node's data out; ``ca_certs`` adds a CA every TLS client of the node trusts;
  module lists change what cloud-init runs. cloud-init docs "Module reference".
* **A login key in the metadata**: ``ssh_authorized_keys`` in any of these maps installs a key for the image's
  default user (cloud-init ``DataSourceOracle`` reads it as the instance's public keys): ``node-pool-no-ssh-key``
  through another door.

OKE's own boot script (``#!`` shell that fetches and runs the ``oke_init_script`` from the instance metadata) and
oke-rdma's node script pass.

Sources (checked 2026-12-02): canonical/cloud-init@04eacd0 (see ``_user_data``; ``cloudinit/config/schemas/
schema-cloud-config-v1.json`` for the module keys); OKE docs "Using Custom Cloud-init Initialization Scripts to Set
Up Managed Nodes"; pulumi_oci 5.5.0 ``core`` Instance (``metadata``, ``extendedMetadata``), InstanceConfiguration
(``source``, ``instanceDetails.launchDetails``, ``instanceDetails.options``), ``containerengine`` NodePool
(``nodeMetadata``: "key/value pairs to add to each underlying OCI instance"); Kubernetes docs "Create static Pods".
"""
from __future__ import annotations

import functools

import posixpath
import re
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, Severity

if __package__:  # imported as the package `policies.security` (tests, offline/)
    from ._gate import examines
    from ._rules import NODE_POOL, UNKNOWN, elements, read
    from ._user_data import CLOUD_CONFIG, texts, unpack, write_files
else:  # run by the Pulumi CLI from inside policies/security/
    from _gate import examines
    from _rules import NODE_POOL, UNKNOWN, elements, read
    from _user_data import CLOUD_CONFIG, texts, unpack, write_files

POLICY_NAME = "node-cloud-init-keeps-node-closed"
INSTANCE = "oci:Core/instance:Instance"
INSTANCE_CONFIGURATION = "oci:Core/instanceConfiguration:InstanceConfiguration"
#: Metadata maps cloud-init reads, per resource type (instance configurations: see :func:`metadata_maps`).
METADATA = {NODE_POOL: (("nodeMetadata",),), INSTANCE: (("metadata",), ("extendedMetadata",))}
_LAUNCH_MAPS = ("metadata", "extendedMetadata")


def _patterns(*pairs: tuple[str, str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(p, re.IGNORECASE), why) for p, why in pairs)


#: Settings that open the node to its pods, with what each does (sources: the module docstring).
OPENING = _patterns(
    (r"--anonymous-auth(=|\s+)\"?true", "turns on the kubelet's anonymous authentication"),
    (r"anonymous\"?\s*:\s*\{?\s*\n?\s*\"?enabled\"?\s*:\s*true", "turns on the kubelet's anonymous authentication"),
    (r"AlwaysAllow", "sets the kubelet's authorization mode to AlwaysAllow"),
    (r"--read-only-port(=|\s+)\"?[1-9]", "opens the kubelet's unauthenticated read-only port"),
    (r"readOnlyPort\"?\s*:\s*\"?[1-9]", "opens the kubelet's unauthenticated read-only port"),
    (r"--pod-manifest-path|staticPodPath", "points the kubelet at a static pod directory (pods it runs with no "
                                           "admission)"),
    (r"--manifest-url|staticPodURL", "has the kubelet run static pods fetched from a URL"),
    (r"--allowed-unsafe-sysctls|allowedUnsafeSysctls", "lets pods set unsafe, node-wide sysctls"),
    (r"--container-runtime-endpoint|containerRuntimeEndpoint", "points the kubelet at another container runtime"),
    (r"tcp_address\s*=\s*\"[^\"]+\"", "serves containerd's API on TCP"),
    (r"(-H|--host)(=|\s+)\"?(tcp://|[0-9.]*:[0-9])|\"hosts\"\s*:\s*\[[^\]]*tcp://", "serves Docker's API on TCP"),
    (r"insecure_skip_verify\s*=\s*true|skip_verify\s*=\s*true", "skips TLS verification of image registries"),
    (r"--insecure-registry|insecure[-_]registries|\binsecure\s*=\s*true", "pulls images from a registry without TLS"),
)
#: Where the kubelet or the container runtime reads configuration it trusts (sources: the module docstring).
NODE_CONFIG = _patterns(
    (r"/etc/+kubernetes\b", "the kubelet's configuration, credentials and static pod manifests (/etc/kubernetes)"),
    (r"/var/+lib/+kubelet\b", "the kubelet's state: its configuration, credentials, device-plugin and plugin "
                              "sockets (/var/lib/kubelet)"),
    (r"/etc/+(default|sysconfig)/+kubelet\b", "the kubelet's environment file (its flags)"),
    (r"\b(kubelet|containerd|crio|cri-o|docker|dockerd)\.(service|socket)\b", "a systemd unit or drop-in of the "
                                                                               "kubelet or the container runtime"),
    (r"/etc/+(containerd|crio|containers|docker)\b", "the container runtime's configuration (registries, image "
                                                     "trust policy, runtimes)"),
    (r"/(etc|opt)/+cni\b", "the CNI configuration or plugins: the pod network the Cilium walls sit on"),
    (r"/(etc|var/+run|run)/+cdi\b", "CDI device specifications (devices injected into containers)"),
    (r"/(etc|opt)/+nri\b", "NRI plugins (hooks the runtime runs for every container)"),
    (r"/etc/+nvidia-container-(runtime|toolkit)\b", "the NVIDIA container runtime's configuration (which GPUs a "
                                                    "container gets)"),
    (r"/usr/+libexec/+kubernetes\b", "the kubelet's FlexVolume plugins (run as root by the kubelet)"),
    (r"/(var/+)?run/+(containerd|crio|docker)(\.sock|/|\b)", "the container runtime's API socket"),
)
_LOGIN = "installs logins onto the node (users, SSH keys, passwords) outside Kubernetes"
_FETCH = "installs or runs what another server serves (package sources, snaps, subscriptions)"
_MANAGED = "hands the node to a configuration-management or remote-management service that runs what it serves"
_SENDS = "sends the node's data (host keys, logs, events) to an endpoint"
#: cloud-config top-level keys: None = judged here or reviewed as harmless; else why the key is refused. A key not
#: listed is refused too (its module was not reviewed). cloud-init schema-cloud-config-v1.json, checked 2026-12-02.
CONFIG_KEYS: dict[str, Any] = {
    **{k: None for k in (
        # judged: the shell commands and files are read like a script (OPENING, NODE_CONFIG), write_files sources
        # and package names below
        "runcmd", "bootcmd", "write_files", "packages", "output", "power_state",
        # harmless: package updates from the image's own repositories, the host's name, time, locale, disks
        "package_update", "package_upgrade", "package_reboot_if_required", "apt_update", "apt_upgrade",
        "apt_reboot_if_required", "timezone", "locale", "locale_configfile", "hostname", "fqdn",
        "prefer_fqdn_over_hostname", "preserve_hostname", "create_hostname_file", "manage_etc_hosts", "growpart",
        "resize_rootfs", "disk_setup", "fs_setup", "device_aliases", "mounts", "mount_default_fields", "swap",
        "final_message", "merge_how", "merge_type", "launch-index", "keyboard", "no_ssh_fingerprints",
        "ssh_fp_console_blacklist", "ssh_key_console_blacklist", "ssh_quiet_keygen")},
    **{k: _LOGIN for k in ("users", "user", "groups", "ssh_authorized_keys", "ssh_import_id", "chpasswd", "password",
                           "ssh_pwauth", "ssh_keys", "disable_root", "disable_root_opts", "allow_public_ssh_keys",
                           "authkey_hash")},
    **{k: _FETCH for k in ("apt", "yum_repos", "yum_repo_dir", "zypper", "apk_repos", "snap", "spacewalk",
                           "rh_subscription", "ubuntu_pro", "ubuntu_advantage", "drivers", "updates")},
    **{k: _MANAGED for k in ("ansible", "chef", "puppet", "salt_minion", "mcollective", "landscape", "autoinstall",
                             "lxd", "wireguard")},
    **{k: _SENDS for k in ("phone_home", "reporting", "rsyslog")},
    **{k: "adds or replaces the certificate authorities every TLS client of the node trusts (image registries, the "
          "OCI and Kubernetes APIs)" for k in ("ca_certs", "ca-certs")},
    **{k: "changes which cloud-init modules run, or how" for k in (
        "cloud_init_modules", "cloud_config_modules", "cloud_final_modules", "system_info", "vendor_data")},
}
_NOT_REVIEWED = "is a cloud-config module this rule has not reviewed"


def metadata_maps(resource_type: str, props: Any) -> list[tuple[str, Any]]:
    """``(path, map)`` of every metadata map cloud-init reads on the nodes the resource makes."""
    if resource_type in METADATA:
        return [(".".join(p), read(props, *p)) for p in METADATA[resource_type]]
    if resource_type != INSTANCE_CONFIGURATION:
        return []
    details = read(props, "instanceDetails")
    if details is UNKNOWN:
        return [("instanceDetails", UNKNOWN)]
    found = [(f"instanceDetails.launchDetails.{k}", read(details, "launchDetails", k)) for k in _LAUNCH_MAPS]
    options = elements(read(details, "options"))
    if options is UNKNOWN:
        return found + [("instanceDetails.options", UNKNOWN)]
    for i, option in enumerate(options):
        found += [(f"instanceDetails.options[{i}].launchDetails.{k}", read(option, "launchDetails", k))
                  for k in _LAUNCH_MAPS]
    return found


_TOKEN_END = re.compile(r"[\s'\"<>;|&)(`]")


def _scan(text: str) -> list[str]:
    """What a text sets that opens the node, and the node configuration paths it names (the whole path shown)."""
    found = [why for pattern, why in OPENING if pattern.search(text)]
    for pattern, why in NODE_CONFIG:
        match = pattern.search(text)
        if match:
            end = _TOKEN_END.search(text, match.end())
            found.append(f"names {text[match.start():end.start() if end else len(text)]}: {why}")
    return found


def _config_problems(config: dict) -> list[str]:
    """Why a cloud-config's keys, files or packages cannot pass (see the module docstring)."""
    found = []
    for key in config:
        if not isinstance(key, str):
            found.append(f"has a key {key!r} that is not text")
        elif key not in CONFIG_KEYS:
            found.append(f"sets {key!r}, which {_NOT_REVIEWED}")
        elif CONFIG_KEYS[key] is not None:
            found.append(f"sets {key!r}, which {CONFIG_KEYS[key]}")
    for i, entry, _, problem in write_files(config):
        if problem is not None:
            found.append(f"write_files[{i}] {problem}")
            continue
        source = entry.get("source")
        if source is not None:
            uri = source.get("uri") if isinstance(source, dict) else source
            found.append(f"write_files[{i}] loads its content from {uri!r} at boot, so what is written is whatever "
                         "that address serves then")
        path = entry.get("path")
        if not isinstance(path, str):
            found.append(f"write_files[{i}] has no path that is text")
        else:
            full = posixpath.normpath(posixpath.join("/", path))
            found += [f"write_files[{i}] writes {full}: {why}" for pattern, why in NODE_CONFIG
                      if pattern.search(full + "/")]
    for text in _package_names(config.get("packages")):
        if not isinstance(text, str) or "://" in text or text.startswith(("/", ".", "~")):
            found.append(f"packages installs {text!r}, a URL or a path, not a package of the image's repositories")
    return found


def _package_names(packages: Any) -> list[Any]:
    """The names a cloud-config ``packages`` list installs: a name, ``[name, version]``, or ``{apt|snap: [...]}``."""
    names: list[Any] = []
    for item in packages if isinstance(packages, list) else []:
        if isinstance(item, dict):
            for value in item.values():
                names += _package_names(value if isinstance(value, list) else [value])
        elif isinstance(item, list):
            names.append(item[0] if item else None)
        else:
            names.append(item)
    return names


def user_data_problems(value: Any) -> list[str]:
    """Why a ``user_data`` value cannot pass, one phrase each (empty when it keeps the node closed). A string is
    judged once per text (:func:`_text_problems`)."""
    return list(_text_problems(value)) if isinstance(value, str) else _problems(value)


@functools.lru_cache(maxsize=256)
def _text_problems(value: str) -> tuple[str, ...]:
    """:func:`user_data_problems` of a text, once: every pool of a stack usually boots the same script (the 64-pool
    benchmark stack unpacked and scanned it 64 times, 0.19 s of the rule's 0.19 s)."""
    return tuple(_problems(value))


def _problems(value: Any) -> list[str]:
    unpacked = unpack(value)
    found = list(unpacked.problems)
    for part in unpacked.parts:
        where = f"{part.where} " if part.where else ""
        seen = []
        for text in texts(part):
            seen += [w for w in _scan(text) if w not in seen]
        found += [f"{where}{why}" for why in seen]
        if part.kind == CLOUD_CONFIG:
            found += [f"{where}{why}" for why in _config_problems(part.config)]
    return found


def boot_problems(resource_type: str, props: Any) -> list[str]:
    """``path: why`` for every carrier of the resource that runs something that opens the node, or cannot be
    read."""
    found = []
    if resource_type == INSTANCE_CONFIGURATION and str(read(props, "source", default="NONE")).upper() != "NONE":
        found.append(f"source is {read(props, 'source')!r}: the configuration copies an instance's metadata (its "
                     "boot script included), which the preview cannot read")
    for path, meta in metadata_maps(resource_type, props):
        if meta is None:
            continue
        if meta is UNKNOWN or not hasattr(meta, "keys"):
            found.append(f"{path} is {'unknown during preview' if meta is UNKNOWN else 'not a map'}, so its "
                         "user_data cannot be read")
            continue
        if read(meta, "ssh_authorized_keys") not in (None, ""):
            found.append(f"{path}.ssh_authorized_keys installs a login key for the image's default user (root "
                         "through sudo)")
        if read(meta, "user_data") is not None:
            found += [f"{path}.user_data {why}" for why in user_data_problems(read(meta, "user_data"))]
    return found


def validate_cloud_init_closed(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``node-cloud-init-keeps-node-closed`` (see the module docstring)."""
    for problem in boot_problems(args.resource_type, args.props):
        report_violation(f"'{args.name}' {problem}. What a node runs at boot must keep the kubelet's webhook "
                         "authentication and authorization, the runtime's local socket and the kubelet's and "
                         "runtime's configuration as OKE sets them, and be readable here: no includes, templates, "
                         "part handlers or remote content.", None)


POLICIES = [examines(ResourceValidationPolicy(
    name=POLICY_NAME,
    description=("User-supplied cloud-init keeps the kubelet's authentication and the container runtime's socket "
                 "closed, writes nothing where the kubelet or the runtime reads configuration, and is readable at "
                 "preview in every format cloud-init accepts."),
    validate=validate_cloud_init_closed, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.CRITICAL,
    remediation_steps=("Remove the kubelet flags (anonymous auth, AlwaysAllow, read-only port, static pod sources), "
                       "runtime TCP listeners, writes to the kubelet's or runtime's configuration, includes, "
                       "templates and remote content from user_data; bake node changes into the image. Source: "
                       "Kubernetes docs \"Kubelet authentication/authorization\"; cloud-init docs \"User data "
                       "formats\"."),
    tags=["node-access", "pod-privilege"]), NODE_POOL, INSTANCE, INSTANCE_CONFIGURATION)]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: ("fails closed: an unknown user_data or metadata map, a part that cannot be decoded or parsed, an "
                  "include, template, part handler or part of an unknown type is a violation"),
}
