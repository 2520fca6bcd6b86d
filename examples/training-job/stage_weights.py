"""Copy model weights from Object Storage into this node's local NVMe (the training Job's ``weights`` init container).

``python3 stage_weights.py copy --namespace NS --bucket BUCKET --region R --prefix models/llama/ --dest DIR``
mirrors every object under ``--prefix`` into ``--dest`` (the object ``models/llama/a/b.bin`` lands at
``<dest>/a/b.bin``) and exits 0; on any failure it prints one line ``stage_weights: <what>; <fix>`` and exits 1.
``python3 stage_weights.py prepare --mount /nvme --directory <namespace> --owner UID:GID`` (the ``nvme-prepare`` init
container, as root with CHOWN and FOWNER) first checks that ``--mount`` is the NVMe file system itself, then creates
the tenant's 0700 directory on it. ``python3 stage_weights.py upload ... --exit-file F`` (the ``checkpoint-upload``
container beside the training) waits for the training's exit code in ``F`` and, on the Job's first pod after a
successful run, uploads the last checkpoint with the SDK's ``UploadManager``.

* **Identity**: OKE Workload Identity, no static credentials. The client signs with
  ``oci.auth.signers.get_oke_workload_identity_resource_principal_signer()``, which reads the pod's projected
  ServiceAccount token and the ``OCI_RESOURCE_PRINCIPAL_VERSION`` (2.2) and ``OCI_RESOURCE_PRINCIPAL_REGION``
  environment variables; the bucket must grant the pod's namespace and ServiceAccount ``read objects`` (OKE docs,
  "Granting Workloads Access to OCI Resources", contenggrantingworkloadaccesstoresources.htm; OCI Python SDK
  ``oci/auth/signers/resource_principals_signer.py``; checked 2026-12-01).
* **Parallel ranged downloads**: the SDK's ``oci.object_storage.DownloadManager`` splits each object into
  ``--part-mib`` ranges fetched by ``--threads`` threads, every range pinned to the listed ETag (``if_match``), and
  checks the byte count (OCI Python SDK 2.189.0, ``oci/object_storage/transfer/internal/download/``; checked
  2026-12-01). Parts that fail are fetched again (``--part-retries`` times) with ``resume_parts_to_path_multithread``.
* **Idempotent per node**: after an object is complete, a marker ``<dest>/.okerdma-stage/objects/<name>.json`` records
  its ETag, size and MD5 (as ``ListObjects`` reports them). An object whose marker matches the listing and whose file
  has the listed size is skipped, so a restarted pod, a second Job or the next pod on the node copies only what
  changed. A new version of an object (a new ETag) is copied again; a file whose object left the prefix is removed.
* **Resumable**: each object is written to ``<dest>/.okerdma-stage/partial/`` and renamed into place only when
  complete, so a pod killed mid-copy leaves no half file where the training reads, and its rerun resumes after the
  last complete object.
* **Several pods on one node**: the copy holds an exclusive ``flock`` on ``<dest>/.okerdma-stage/lock``; a pod that
  starts while another copies the same prefix waits, then finds the markers and skips.

Runs on Python 3.9+ with the OCI Python SDK (the ``ghcr.io/oracle/oci-cli`` image has both).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import sys
import time
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Optional

STATE = ".okerdma-stage"
#: ListObjects returns only names unless asked (OCI Object Storage API, ListObjects ``fields``).
LIST_FIELDS = "name,size,etag,md5"
MIB = 1024 * 1024


class StageError(Exception):
    """A failure the copy cannot recover from: one line ``<what>; <fix>``."""


def log(message: str) -> None:
    print(f"stage_weights: {message}", flush=True)


def workload_identity_client(region: str) -> Any:
    """An ``ObjectStorageClient`` for the bucket's ``region``, signed with the pod's OKE Workload Identity (no key,
    no config file). The config's region, when set, picks the endpoint before the signer's (SDK ``base_client.py``)."""
    import oci  # the SDK is in the init container's image, not needed to import this module in tests

    signer = oci.auth.signers.get_oke_workload_identity_resource_principal_signer()
    return oci.object_storage.ObjectStorageClient(config={"region": region}, signer=signer)


def relative_name(name: str, prefix: str) -> Optional[PurePosixPath]:
    """Where an object lands below ``--dest``; None for a folder placeholder (a name ending in ``/``).

    :raises StageError: for a name that would escape ``--dest`` (``..``, empty segments) or write into the state
        directory.
    """
    rest = name[len(prefix):]
    if rest == "" or rest.endswith("/"):
        return None
    parts = rest.split("/")
    if any(p in ("", ".", "..") for p in parts) or parts[0] == STATE:
        raise StageError(f"object {name!r} has a name that does not map to a file below the destination; rename "
                         "it in the bucket (no empty, '.' or '..' segments)")
    return PurePosixPath(*parts)


def list_objects(client: Any, namespace: str, bucket: str, prefix: str) -> list[Any]:
    """Every object under ``prefix`` (following ``next_start_with`` pages), with name, size, ETag and MD5."""
    import oci

    try:
        return list(oci.pagination.list_call_get_all_results_generator(
            client.list_objects, "record", namespace, bucket, prefix=prefix, fields=LIST_FIELDS))
    except oci.exceptions.ServiceError as e:
        raise StageError(f"cannot list {bucket}/{prefix} in namespace {namespace} ({e.status} {e.code}); check that "
                         "the pod's ServiceAccount has the tenant's weights grant and the bucket exists") from e


def _marker(obj: Any) -> dict[str, Any]:
    return {"etag": obj.etag, "size": int(obj.size), "md5": obj.md5}


class Stage:
    """One copy of ``prefix`` into ``dest`` (see the module docstring).

    :param client: an ``oci.object_storage.ObjectStorageClient`` (or anything answering ``list_objects`` and
        ``get_object`` like it).
    :param threads: / :param part_mib: parallel ranges per object and their size (MiB).
    """

    def __init__(self, client: Any, namespace: str, bucket: str, prefix: str, dest: Path, *, threads: int = 16,
                 part_mib: int = 128, part_retries: int = 3, lock_poll_seconds: float = 10.0):
        self.client, self.namespace, self.bucket, self.prefix = client, namespace, bucket, prefix
        self.dest, self.state = dest, dest / STATE
        self.threads, self.part_mib, self.part_retries = threads, part_mib, part_retries
        self.lock_poll_seconds = lock_poll_seconds
        self.copied: list[str] = []
        self.skipped: list[str] = []
        self.removed: list[str] = []

    # --- the lock shared by every pod of this node that stages the same prefix ----------------------------------
    def _lock(self) -> Any:
        self.state.mkdir(parents=True, exist_ok=True)
        handle = open(self.state / "lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"another pod on this node is copying {self.prefix}; waiting for it")
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(self.lock_poll_seconds)
        return handle

    # --- markers --------------------------------------------------------------------------------------------------
    def _marker_path(self, rel: PurePosixPath) -> Path:
        return self.state / "objects" / f"{rel}.json"

    def _read_marker(self, rel: PurePosixPath) -> Optional[dict[str, Any]]:
        try:
            return json.loads(self._marker_path(rel).read_text())
        except (OSError, ValueError):
            return None

    def _write_marker(self, rel: PurePosixPath, marker: dict[str, Any]) -> None:
        path = self._marker_path(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(marker, sort_keys=True))
        os.replace(tmp, path)

    def is_current(self, rel: PurePosixPath, obj: Any) -> bool:
        """The file is there, has the listed size, and its marker records the listed ETag, size and MD5."""
        target = self.dest / rel
        return (self._read_marker(rel) == _marker(obj) and target.is_file()
                and target.stat().st_size == int(obj.size))

    # --- one object -----------------------------------------------------------------------------------------------
    def _download(self, obj: Any, rel: PurePosixPath, manager: Any) -> None:
        import oci

        partial = self.state / "partial" / rel
        partial.parent.mkdir(parents=True, exist_ok=True)
        pinned = {"if_match": obj.etag} if obj.etag else {}
        try:
            if int(obj.size) == 0:
                partial.write_bytes(b"")
            else:
                try:
                    manager.get_object_to_path(self.namespace, self.bucket, obj.name, str(partial), **pinned)
                except oci.exceptions.ResumableDownloadException as e:
                    failed = dict(e.failed_parts)
                    for attempt in range(self.part_retries):
                        log(f"{obj.name}: {len(failed)} part(s) failed; fetching them again "
                            f"({attempt + 1}/{self.part_retries})")
                        try:
                            manager.resume_parts_to_path_multithread(self.namespace, self.bucket, obj.name,
                                                                     sorted(failed), str(partial), **pinned)
                            failed = {}
                            break
                        except oci.exceptions.ResumableDownloadException as again:
                            failed = dict(again.failed_parts)
                    if failed:
                        raise StageError(f"{obj.name}: {len(failed)} part(s) still failing after "
                                         f"{self.part_retries} retries ({next(iter(failed.values()))}); rerun the "
                                         "pod (complete objects are kept)") from e
        except oci.exceptions.ServiceError as e:
            if e.status == 412:
                raise StageError(f"{obj.name} changed in the bucket during the copy (ETag {obj.etag} is gone); "
                                 "rerun the pod to copy the new version") from e
            raise StageError(f"cannot read {obj.name} ({e.status} {e.code}); check the tenant's weights grant") from e
        size = partial.stat().st_size
        if size != int(obj.size):
            raise StageError(f"{obj.name}: {size} bytes written, the bucket lists {int(obj.size)}; rerun the pod")
        target = self.dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, target)
        self._write_marker(rel, _marker(obj))

    def _prune(self, listed: set[PurePosixPath]) -> None:
        """Remove files (and their markers) whose objects are no longer under the prefix."""
        root = self.state / "objects"
        if not root.is_dir():
            return
        for marker in sorted(root.rglob("*.json")):
            rel = PurePosixPath(marker.relative_to(root).as_posix()[:-len(".json")])
            if rel not in listed:
                (self.dest / rel).unlink(missing_ok=True)
                marker.unlink()
                self.removed.append(str(rel))

    def run(self) -> None:
        """Copy what changed; hold the node's lock throughout.

        :raises StageError: one line naming the object or bucket at fault and the fix."""
        self.dest.mkdir(parents=True, exist_ok=True)
        lock = self._lock()
        try:
            objects = list_objects(self.client, self.namespace, self.bucket, self.prefix)
            if not objects:
                raise StageError(f"no objects under {self.bucket}/{self.prefix} in namespace {self.namespace}; "
                                 "upload the weights there or correct training-job:weightsPrefix")
            manager = self._manager()
            listed: set[PurePosixPath] = set()
            for obj in objects:
                rel = relative_name(obj.name, self.prefix)
                if rel is None:
                    continue
                listed.add(rel)
                if self.is_current(rel, obj):
                    self.skipped.append(obj.name)
                    continue
                log(f"copying {obj.name} ({int(obj.size) / MIB:.1f} MiB)")
                self._download(obj, rel, manager)
                self.copied.append(obj.name)
            self._prune(listed)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()
        log(f"{len(self.copied)} object(s) copied, {len(self.skipped)} already present, "
            f"{len(self.removed)} removed, in {self.dest}")

    def _manager(self) -> Any:
        # oci.object_storage exports the module DownloadManager; the classes live in these two modules
        from oci.object_storage.transfer.internal.download.DownloadConfiguration import DownloadConfiguration
        from oci.object_storage.transfer.internal.download.DownloadManager import DownloadManager

        return DownloadManager(DownloadConfiguration(allow_multipart=True, num_download_threads=self.threads,
                                                     part_size_in_bytes=self.part_mib * MIB), self.client)


def _unescape(field: str) -> str:
    """A mountinfo path: the kernel writes space, tab, newline and backslash as three octal digits (``\\040``)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def mount_of(path: Path, mountinfo: Path) -> Optional[tuple[str, str]]:
    """``(root, fstype)`` of the file system mounted at ``path`` (the last one mounted there), from
    ``/proc/self/mountinfo`` (proc(5): ``id parent major:minor root mount-point options [optional...] - fstype source
    super-options``, spaces escaped as ``\\040``); None when nothing is mounted at ``path``."""
    found = None
    for line in mountinfo.read_text().splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5:
            continue
        if _unescape(fields[4]) == str(path):
            found = (_unescape(fields[3]), right.split()[0])
    return found


def prepare(mount: Path, directory: str, uid: int, gid: int, mountinfo: Path = Path("/proc/self/mountinfo")) -> Path:
    """Give the tenant its own directory ``<mount>/<directory>`` (owner ``uid:gid``, mode 0700), after checking that
    ``mount`` is the node's NVMe file system itself (the root of an ext4 or xfs file system, as node-init.sh makes it)
    and not a plain directory of the boot volume left behind when the RAID failed on this node.

    :raises StageError: for a mount that is not the NVMe file system."""
    found = mount_of(mount, mountinfo)
    if found is None or found[0] != "/" or found[1] not in ("ext4", "xfs"):
        what = "nothing mounted" if found is None else f"{found[1]} directory {found[0]}"
        raise StageError(f"{mount} is not the node's NVMe file system ({what}): the local NVMe RAID is missing on "
                         "this node; cordon it and check `journalctl -u cloud-final` there")
    target = mount / directory
    target.mkdir(exist_ok=True)
    os.chown(target, uid, gid)
    os.chmod(target, 0o700)
    log(f"{target} ready for {uid}:{gid}")
    return target


def upload_last_checkpoint(client: Any, namespace: str, bucket: str, source: Path, object_prefix: str,
                           exit_file: Path, index: str, *, poll_seconds: float = 30.0, part_mib: int = 128,
                           threads: int = 8, sleep: Any = time.sleep) -> Optional[str]:
    """After the training container ends (its exit code appears in ``exit_file``), upload the last ``step-*.pt``
    of ``source`` to ``<object_prefix><file name>`` with the SDK's ``UploadManager`` (multipart, ``threads`` parts
    at a time, ``part_mib`` MiB each; OCI Python SDK ``oci/object_storage/transfer/upload_manager.py``). Only the
    Job's first pod (``index`` "0") uploads; a failed training uploads nothing.

    :returns: the object name uploaded, or None.
    :raises StageError: no checkpoint after a successful run, or the bucket refused the upload."""
    import oci

    if index != "0":
        log(f"pod {index} of the Job: the first pod uploads the checkpoint")
        return None
    while not exit_file.exists():
        sleep(poll_seconds)
    code = exit_file.read_text().strip()
    if code != "0":
        log(f"training ended with exit code {code}: no checkpoint uploaded")
        return None
    saved = sorted(source.glob("step-*.pt"))
    if not saved:
        raise StageError(f"training succeeded but {source} holds no step-*.pt checkpoint; check CHECKPOINT_DIR")
    name = f"{object_prefix}{saved[-1].name}"
    log(f"uploading {saved[-1]} to {bucket}/{name}")
    try:
        manager = oci.object_storage.UploadManager(client, allow_parallel_uploads=True, parallel_process_count=threads)
        manager.upload_file(namespace, bucket, name, str(saved[-1]), part_size=part_mib * MIB)
    except oci.exceptions.ServiceError as e:
        raise StageError(f"cannot upload {name} to {bucket} ({e.status} {e.code}); the tenant's weights grant must "
                         "be readWrite and the name under its checkpointPrefix") from e
    log(f"uploaded {name}")
    return name


def parse_args(argv: Optional[Iterable[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ready = commands.add_parser("prepare", help="check the NVMe mount and create the tenant's directory (as root)")
    ready.add_argument("--mount", required=True, type=Path, help="where the node's NVMe is mounted in the container")
    ready.add_argument("--directory", required=True, help="the tenant's directory below it (one path segment)")
    ready.add_argument("--owner", required=True, help="UID:GID of the tenant's storage IDs")
    ready.add_argument("--mountinfo", type=Path, default=Path("/proc/self/mountinfo"), help=argparse.SUPPRESS)
    copy = commands.add_parser("copy", help="mirror a bucket prefix into a directory (as the tenant)")
    copy.add_argument("--namespace", required=True, help="Object Storage namespace of the bucket")
    copy.add_argument("--bucket", required=True, help="bucket name")
    copy.add_argument("--region", required=True, help="the bucket's region identifier, e.g. sa-saopaulo-1")
    copy.add_argument("--prefix", required=True, help="the weights' folder in the bucket, ending with '/'")
    copy.add_argument("--dest", required=True, type=Path, help="directory on the node's local NVMe")
    copy.add_argument("--threads", type=int, default=16, help="parallel ranges per object")
    copy.add_argument("--part-mib", type=int, default=128, help="size of a range, MiB")
    copy.add_argument("--part-retries", type=int, default=3, help="retries of failed ranges")
    up = commands.add_parser("upload", help="upload the last checkpoint once the training ends (as the tenant)")
    up.add_argument("--namespace", required=True, help="Object Storage namespace of the bucket")
    up.add_argument("--bucket", required=True, help="bucket name")
    up.add_argument("--region", required=True, help="the bucket's region identifier")
    up.add_argument("--source", required=True, type=Path, help="the checkpoint directory (step-*.pt)")
    up.add_argument("--object-prefix", required=True, help="object-name prefix, ending with '/'")
    up.add_argument("--exit-file", required=True, type=Path, help="where the training writes its exit code")
    # An Indexed Job's controller sets JOB_COMPLETION_INDEX in every container of its pods (Kubernetes docs, "Indexed
    # Job for Parallel Processing with Static Work Assignment"; checked 2026-12-01)
    up.add_argument("--index", default=os.environ.get("JOB_COMPLETION_INDEX"),
                    help="the pod's index in the Job (default $JOB_COMPLETION_INDEX)")
    up.add_argument("--poll-seconds", type=float, default=30.0, help="how often to look for the exit file")
    up.add_argument("--part-mib", type=int, default=128, help="size of an upload part, MiB")
    up.add_argument("--threads", type=int, default=8, help="parts uploaded at a time")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.command == "upload":
        if not args.object_prefix.endswith("/") or args.object_prefix.startswith("/"):
            up.error(f"--object-prefix must end with '/' and be relative (got {args.object_prefix!r})")
        if args.index is None or not args.index.isdigit():
            up.error(f"--index (or $JOB_COMPLETION_INDEX) must be the pod's index in an Indexed Job, got {args.index!r}")
        if min(args.part_mib, args.threads) < 1 or args.poll_seconds <= 0:
            up.error("--part-mib and --threads must be at least 1, --poll-seconds positive")
        return args
    if args.command == "prepare":
        uid, _, gid = args.owner.partition(":")
        if not (uid.isdigit() and gid.isdigit()) or int(uid) == 0:
            ready.error(f"--owner must be a non-root UID:GID such as 20001:20001 (got {args.owner!r})")
        args.uid, args.gid = int(uid), int(gid)
        if args.directory in ("", ".", "..") or "/" in args.directory:
            ready.error(f"--directory must be one path segment (got {args.directory!r})")
        return args
    if not args.prefix.endswith("/") or args.prefix.startswith("/"):
        copy.error(f"--prefix must be a folder such as models/llama/ (got {args.prefix!r})")
    if min(args.threads, args.part_mib) < 1 or args.part_retries < 0:
        copy.error("--threads and --part-mib must be at least 1, --part-retries at least 0")
    return args


def main(argv: Optional[Iterable[str]] = None, client: Any = None) -> int:
    """Run ``prepare``, ``copy`` or ``upload``; return the exit code (0 done, 1 failed with one line on stdout).

    :param client: an Object Storage client for ``copy`` and ``upload``; default one signed with the pod's OKE
        Workload Identity."""
    args = parse_args(argv)
    try:
        if args.command == "prepare":
            prepare(args.mount, args.directory, args.uid, args.gid, args.mountinfo)
            return 0
        if client is None:
            try:
                client = workload_identity_client(args.region)
            except Exception as e:  # the signer reads the token and env of the pod: say which is missing
                raise StageError(f"cannot sign in with OKE Workload Identity ({type(e).__name__}: {e}); run in a "
                                 "pod of an enhanced cluster with its ServiceAccount token mounted and "
                                 "OCI_RESOURCE_PRINCIPAL_VERSION=2.2, OCI_RESOURCE_PRINCIPAL_REGION set") from e
        if args.command == "upload":
            upload_last_checkpoint(client, args.namespace, args.bucket, args.source, args.object_prefix,
                                   args.exit_file, args.index, poll_seconds=args.poll_seconds,
                                   part_mib=args.part_mib, threads=args.threads)
            return 0
        Stage(client, args.namespace, args.bucket, args.prefix, args.dest, threads=args.threads,
              part_mib=args.part_mib, part_retries=args.part_retries).run()
    except StageError as e:
        log(str(e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
