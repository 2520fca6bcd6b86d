"""A fake OCI Object Storage client for the training-job example's copy script: in memory, no network.

It answers ``list_objects`` and ``get_object`` with the SDK's own response and model classes (``oci.response.Response``,
``oci.object_storage.models.ListObjects`` / ``ObjectSummary``, ``oci.exceptions.ServiceError``), so the SDK's
pagination helper and ``DownloadManager`` run unchanged on top of it: pages of ``page_size`` objects linked by
``next_start_with``, ``Range: bytes=a-b`` answered with that slice, ``if_match`` refused with 412 when the ETag moved
on; and ``UploadManager``'s calls: ``put_object``, and ``create_multipart_upload`` / ``upload_part`` /
``commit_multipart_upload`` (Object Storage API, GetObject / ListObjects / PutObject / multipart uploads). Names the
caller may not write (``writable`` prefix) are refused with 404 NotAuthorizedOrNotFound, as OCI answers a denial.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from types import SimpleNamespace
from typing import Any, Callable, Optional

import oci
import requests
from oci.object_storage.models import ListObjects, MultipartUpload, ObjectSummary


def read_all(body: Any) -> bytes:
    """The bytes of a request body as requests would stream it: in chunks (the SDK's part reader refuses read())."""
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    chunks = []
    while chunk := body.read(1024 * 1024):
        chunks.append(bytes(chunk))
    return b"".join(chunks)


class Body:
    """The part of a ``requests`` streaming response the SDK reads: ``content``, ``iter_content``, ``close``."""

    def __init__(self, data: bytes):
        self.content = data

    def iter_content(self, chunk_size: int):
        for i in range(0, len(self.content), chunk_size):
            yield self.content[i:i + chunk_size]

    def close(self) -> None:
        pass


class FakeObjectStorage:
    """Objects by name; every call is recorded in ``calls`` (``("list", prefix)`` / ``("get", name, range)``).

    :param fail: hook called before each GET with ``(name, range)``; it may raise to simulate a failure.
    """

    def __init__(self, objects: dict[str, bytes], *, namespace: str = "tenancyns", bucket: str = "weights",
                 page_size: int = 2, fail: Optional[Callable[[str, Optional[str]], None]] = None,
                 writable: str = ""):
        self.namespace, self.bucket, self.page_size, self.fail = namespace, bucket, page_size, fail
        self.writable = writable
        self.uploads: dict[str, tuple[str, dict[int, bytes]]] = {}
        # UploadManager mounts a larger connection pool on the client's session for parallel parts
        self.base_client = SimpleNamespace(endpoint="https://objectstorage.sa-saopaulo-1.oraclecloud.com",
                                           session=requests.Session())
        self.objects: dict[str, tuple[bytes, str]] = {}
        self.calls: list[tuple] = []
        self._lock = threading.Lock()
        self._version = 0
        for name, data in objects.items():
            self.put(name, data)

    def put(self, name: str, data: bytes) -> None:
        """Write (or overwrite: a new ETag) an object."""
        self._version += 1
        self.objects[name] = (data, f"etag-{self._version}")

    def delete(self, name: str) -> None:
        del self.objects[name]

    def _check_bucket(self, namespace: str, bucket: str) -> None:
        if (namespace, bucket) != (self.namespace, self.bucket):
            raise oci.exceptions.ServiceError(404, "BucketNotFound", {}, "Either the bucket does not exist or you "
                                                                         "are not authorized to access it")

    def list_objects(self, namespace_name: str, bucket_name: str, prefix: str = "", fields: str = "name",
                     start: Optional[str] = None, **kwargs: Any) -> oci.response.Response:
        self._check_bucket(namespace_name, bucket_name)
        with self._lock:
            self.calls.append(("list", prefix))
        names = sorted(n for n in self.objects if n.startswith(prefix) and (start is None or n >= start))
        page, rest = names[:self.page_size], names[self.page_size:]
        wanted = set(fields.split(","))
        summaries = []
        for name in page:
            data, etag = self.objects[name]
            summaries.append(ObjectSummary(
                name=name, size=len(data) if "size" in wanted else None, etag=etag if "etag" in wanted else None,
                md5=base64.b64encode(hashlib.md5(data).digest()).decode() if "md5" in wanted else None))
        return oci.response.Response(200, {}, ListObjects(objects=summaries, next_start_with=rest[0] if rest else None),
                                     None)

    def get_object(self, namespace_name: str, bucket_name: str, object_name: str, range: Optional[str] = None,
                   if_match: Optional[str] = None, **kwargs: Any) -> oci.response.Response:
        self._check_bucket(namespace_name, bucket_name)
        with self._lock:
            self.calls.append(("get", object_name, range))
        if self.fail:
            self.fail(object_name, range)
        if object_name not in self.objects:
            raise oci.exceptions.ServiceError(404, "ObjectNotFound", {}, f"{object_name} not found")
        data, etag = self.objects[object_name]
        if if_match is not None and if_match != etag:
            raise oci.exceptions.ServiceError(412, "IfMatchFailed", {}, "The If-Match header does not match")
        body = data
        if range:
            first, _, last = range.removeprefix("bytes=").partition("-")
            body = data[int(first):(int(last) + 1 if last else len(data))]
        headers = {"Content-Length": str(len(body)), "ETag": etag,
                   "content-md5": base64.b64encode(hashlib.md5(data).digest()).decode()}
        return oci.response.Response(206 if range else 200, headers, Body(body), None)

    def _check_writable(self, name: str) -> None:
        if not name.startswith(self.writable):
            raise oci.exceptions.ServiceError(404, "NotAuthorizedOrNotFound", {}, f"not authorized to write {name}")

    def put_object(self, namespace_name: str, bucket_name: str, object_name: str, body: Any,
                   **kwargs: Any) -> oci.response.Response:
        self._check_bucket(namespace_name, bucket_name)
        self._check_writable(object_name)
        with self._lock:
            self.calls.append(("put", object_name))
            self.put(object_name, read_all(body))
        return oci.response.Response(200, {"etag": self.objects[object_name][1]}, None, None)

    def create_multipart_upload(self, namespace_name: str, bucket_name: str, details: Any,
                                **kwargs: Any) -> oci.response.Response:
        self._check_bucket(namespace_name, bucket_name)
        self._check_writable(details.object)
        upload_id = f"upload-{len(self.uploads) + 1}"
        with self._lock:
            self.calls.append(("create-multipart", details.object))
            self.uploads[upload_id] = (details.object, {})
        return oci.response.Response(200, {}, MultipartUpload(upload_id=upload_id, object=details.object), None)

    def upload_part(self, namespace_name: str, bucket_name: str, object_name: str, upload_id: str, part_num: int,
                    body: Any, **kwargs: Any) -> oci.response.Response:
        data = read_all(body)
        md5 = base64.b64encode(hashlib.md5(data).digest()).decode()
        with self._lock:
            self.calls.append(("upload-part", object_name, part_num))
            self.uploads[upload_id][1][part_num] = data
        return oci.response.Response(200, {"etag": f"part-{part_num}", "opc-content-md5": md5}, None, None)

    def commit_multipart_upload(self, namespace_name: str, bucket_name: str, object_name: str, upload_id: str,
                                details: Any, **kwargs: Any) -> oci.response.Response:
        name, parts = self.uploads.pop(upload_id)
        with self._lock:
            self.calls.append(("commit-multipart", object_name))
            self.put(name, b"".join(parts[p.part_num] for p in sorted(details.parts_to_commit,
                                                                          key=lambda p: p.part_num)))
        return oci.response.Response(200, {"etag": self.objects[name][1]}, None, None)

    def gets(self, name: Optional[str] = None) -> list[tuple]:
        """The GET calls, for one object or all."""
        return [c for c in self.calls if c[0] == "get" and (name is None or c[1] == name)]
