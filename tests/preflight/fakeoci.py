"""A fake OCI API behind the real OCI SDK clients: requests are answered at the HTTP session, so the SDK builds,
signs and sends them and deserializes the answers exactly as it does against OCI. Answers are built from the SDK's
own response models (``oci.<service>.models``) and serialized the way the SDK serializes them (camelCase JSON)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlparse

import oci
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.stackcfg import dev_config

TENANCY = "ocid1.tenancy.oc1..aaaaaaaatenancyfake0000000000000000000000000000000000000001"
AD = "bxtG:SA-SAOPAULO-1-AD-1"
RAW, _ = dev_config()
POOLS = json.loads(RAW["oke-rdma:nodePools"])
SYSTEM_IMAGE, GPU_IMAGE = POOLS["system"]["imageId"], POOLS["gpu"]["imageId"]
#: The SDK's own serializer (``BaseClient.sanitize_for_serialization``), without a client's configuration.
_SERIALIZER = object.__new__(oci.base_client.BaseClient)
_SERIALIZER.complex_type_mappings = {}


_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def write_oci_config(tmp: Path) -> Path:
    """An OCI config file with a throwaway API key (requests are signed with it, never sent: the session is fake)."""
    key = _KEY
    pem = tmp / "key.pem"
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    path = tmp / "config"
    path.write_text(f"[DEFAULT]\nuser=ocid1.user.oc1..aaaaaaaauserfake\nfingerprint={':'.join(['ab'] * 16)}\n"
                    f"tenancy={TENANCY}\nregion=sa-saopaulo-1\nkey_file={pem}\n")
    return path


class _Response:
    def __init__(self, status: int, body: Any):
        self.status_code = status
        self.content = json.dumps(_SERIALIZER.sanitize_for_serialization(body)).encode()
        self.headers = {"opc-request-id": "fake", "content-type": "application/json"}
        self.text = self.content.decode()

    def json(self) -> Any:
        return json.loads(self.content)

    def close(self) -> None:
        pass


@dataclass
class Tenancy:
    """What the fake tenancy holds; tests change it, then run the pre-flight. Defaults: the dev stack fits."""

    ads: list[str] = field(default_factory=lambda: [AD])
    shapes: dict[str, list[str]] = field(default_factory=lambda: {AD: ["VM.Standard.E5.Flex", "BM.GPU.H100.8"]})
    shape_info: dict[str, dict[str, Any]] = field(default_factory=dict)  # name → Shape fields (gpus, quota_names...)
    limit_names: dict[str, list[str]] = field(default_factory=lambda: {
        "compute": ["gpu-h100-count", "compute-cluster-count", "standard-e5-core-ad-count"],
        "filesystem": ["mount-target-count"]})
    quota: dict[tuple[str, str, str], tuple[float, float]] = field(default_factory=dict)  # → (quota, used)
    available: dict[tuple[str, str, str], Optional[int]] = field(default_factory=lambda: {
        ("compute", "gpu-h100-count", AD): 32, ("compute", "compute-cluster-count", AD): 5,
        ("compute", "standard-e5-core-ad-count", AD): 100,
        ("filesystem", "mount-target-count", AD): 2})
    cluster_versions: list[str] = field(default_factory=lambda: ["v1.34.2", "v1.35.2", "v1.36.1"])
    pool_versions: list[str] = field(default_factory=lambda: ["v1.34.2", "v1.35.2", "v1.36.1"])
    sources: dict[str, str] = field(default_factory=lambda: {
        SYSTEM_IMAGE: "Oracle-Linux-8.10-2026.10.30-0-OKE-1.35.2-900",
        GPU_IMAGE: "Oracle-Linux-8.10-Gen2-GPU-2026.10.30-0-OKE-1.35.2-900"})
    images: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # id → (display name, shapes)
    compute_clusters: dict[str, tuple[str, str]] = field(default_factory=dict)  # id → (state, AD)
    compartments: dict[str, str] = field(default_factory=lambda: {
        RAW["oke-rdma:compartmentId"]: "ACTIVE"})  # id → lifecycle state
    refused: dict[str, int] = field(default_factory=dict)  # path regex → HTTP status
    unreachable: bool = False
    calls: list[str] = field(default_factory=list)

    def answer(self, method: str, url: str, params: Optional[dict]) -> _Response:
        path = urlparse(url).path
        params = params or {}
        self.calls.append(f"{method} {path}")
        if self.unreachable:
            raise oci._vendor.requests.exceptions.ConnectionError("fake: no route to host")
        for pattern, status in self.refused.items():
            if re.search(pattern, path):
                return _Response(status, {"code": "NotAuthorizedOrNotFound" if status == 404 else "Error",
                                          "message": "Authorization failed or requested resource not found."})
        m = oci.identity.models
        c = oci.core.models
        lm = oci.limits.models
        ce = oci.container_engine.models
        if (hit := re.search(r"/compartments/([^/]+)$", path)):
            if hit[1] not in self.compartments:
                return _Response(404, {"code": "NotAuthorizedOrNotFound", "message": "not found"})
            return _Response(200, m.Compartment(id=hit[1], name="c", lifecycle_state=self.compartments[hit[1]],
                                                compartment_id=TENANCY))
        if path.endswith("/availabilityDomains"):
            return _Response(200, [m.AvailabilityDomain(name=a, id=f"ocid1.availabilitydomain.oc1..{i}",
                                                        compartment_id=TENANCY) for i, a in enumerate(self.ads)])
        if path.endswith("/shapes") and "/images/" not in path:
            ad = params.get("availabilityDomain")
            return _Response(200, [c.Shape(shape=s, **self.shape_info.get(s, {})) for s in self.shapes.get(ad, [])])
        if (hit := re.search(r"/images/([^/]+)/shapes$", path)):
            return _Response(200, [c.ImageShapeCompatibilitySummary(image_id=hit[1], shape=s)
                                   for s in self.images[hit[1]][1]])
        if (hit := re.search(r"/images/([^/]+)$", path)):
            if hit[1] not in self.images:
                return _Response(404, {"code": "NotAuthorizedOrNotFound", "message": "not found"})
            return _Response(200, c.Image(id=hit[1], display_name=self.images[hit[1]][0], compartment_id="c",
                                          lifecycle_state="AVAILABLE"))
        if (hit := re.search(r"/computeClusters/([^/]+)$", path)):
            state, ad = self.compute_clusters[hit[1]]
            return _Response(200, c.ComputeCluster(id=hit[1], availability_domain=ad, lifecycle_state=state,
                                                   compartment_id="c"))
        if path.endswith("/computeClusters"):
            return _Response(200, c.ComputeClusterCollection(items=[]))
        if path.endswith("/limitDefinitions"):
            svc = params.get("serviceName")
            return _Response(200, [lm.LimitDefinitionSummary(name=n, service_name=svc, scope_type="AD",
                                                              description=n) for n in self.limit_names.get(svc, [])])
        if (hit := re.search(r"/services/([^/]+)/limits/([^/]+)/resourceAvailability$", path)):
            at = (hit[1], hit[2], params.get("availabilityDomain"))
            if at not in self.available:
                return _Response(404, {"code": "NotFound", "message": "no availability for this limit"})
            quota, used = self.quota.get(at, (None, 0))
            return _Response(200, lm.ResourceAvailability(available=self.available[at], used=used,
                                                          effective_quota_value=quota))
        if path.endswith("/clusterOptions/all"):
            return _Response(200, ce.ClusterOptions(kubernetes_versions=self.cluster_versions))
        if path.endswith("/nodePoolOptions/all"):
            return _Response(200, ce.NodePoolOptions(
                kubernetes_versions=self.pool_versions, shapes=[], images=[],
                sources=[ce.NodeSourceViaImageOption(source_type="IMAGE", source_name=n, image_id=i)
                         for i, n in self.sources.items()]))
        if path.endswith("/clusters"):
            return _Response(200, [])
        if path.endswith("/policies"):
            return _Response(200, [])
        raise AssertionError(f"the fake OCI API has no answer for {method} {path}")
