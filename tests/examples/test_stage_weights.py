"""The training-job example's weights copy (examples/training-job/stage_weights.py) against a fake Object Storage:
it mirrors a prefix into a directory with parallel ranged GETs pinned to the listed ETag, skips what is already
there, copies again only what changed, removes what left the bucket, resumes after a pod was killed mid-copy, fetches
failed ranges again, serialises pods of one node on a lock, and refuses what it cannot copy in one line."""

from __future__ import annotations

import fcntl
import functools
import importlib.util
import threading
from pathlib import Path

import pytest

from tests.examples.objectstorage import FakeObjectStorage

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "training-job" / "stage_weights.py"
_spec = importlib.util.spec_from_file_location("stage_weights", SCRIPT)
stage_weights = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stage_weights)

MIB = 1024 * 1024
PREFIX = "models/llama/"


@functools.lru_cache(maxsize=None)
def _bytes(n: int, seed: int) -> bytes:
    return (bytes(range(seed, 251)) + bytes(range(seed))) * (n // 251) + bytes(n % 251)


def bucket(**kwargs) -> FakeObjectStorage:
    return FakeObjectStorage({
        f"{PREFIX}model-00001.safetensors": _bytes(3 * MIB + 12345, 1),  # four 1 MiB ranges
        f"{PREFIX}config.json": b'{"layers": 80}',
        f"{PREFIX}tokenizer/": b"",  # a folder placeholder, as the console creates
        f"{PREFIX}tokenizer/tokenizer.json": _bytes(2000, 2),
        f"{PREFIX}empty.txt": b"",
        "models/other/model.bin": _bytes(100, 3),  # another prefix: never copied
    }, **kwargs)


def argv(dest: Path, *extra: str, bucket_name: str = "weights") -> list[str]:
    return ["copy", "--namespace", "tenancyns", "--bucket", bucket_name, "--region", "sa-saopaulo-1", "--prefix", PREFIX,
            "--dest", str(dest), *extra]


def stage(client, dest: Path, **kwargs):
    return stage_weights.Stage(client, "tenancyns", "weights", PREFIX, dest, threads=4, part_mib=1, **kwargs)


def files(dest: Path) -> dict[str, bytes]:
    return {p.relative_to(dest).as_posix(): p.read_bytes() for p in dest.rglob("*")
            if p.is_file() and stage_weights.STATE not in p.relative_to(dest).parts}


def expected(client: FakeObjectStorage) -> dict[str, bytes]:
    return {n[len(PREFIX):]: d for n, (d, _) in client.objects.items() if n.startswith(PREFIX) and not n.endswith("/")}


def test_copies_every_object_under_the_prefix_with_ranged_gets_pinned_to_the_etag(tmp_path):
    client = bucket()
    s = stage(client, tmp_path)
    s.run()
    assert files(tmp_path) == expected(client)
    big = f"{PREFIX}model-00001.safetensors"
    ranges = [c[2] for c in client.gets(big)]
    # the first GET reads the object's size and first range; the rest are 1 MiB ranges fetched in parallel
    assert ranges[0] is None and sorted(ranges[1:]) == sorted(
        f"bytes={i * MIB}-{min((i + 1) * MIB, 3 * MIB + 12345) - 1}" for i in (1, 2, 3))
    assert not client.gets("models/other/model.bin") and not client.gets(f"{PREFIX}tokenizer/")
    assert sorted(s.copied) == sorted(n for n in client.objects if n.startswith(PREFIX) and not n.endswith("/"))
    assert [c for c in client.calls if c[0] == "list"] == [("list", PREFIX)] * 3  # pages of 2 followed to the end


def test_a_second_run_on_the_node_skips_unchanged_objects(tmp_path):
    client = bucket()
    stage(client, tmp_path).run()
    client.calls.clear()
    again = stage(client, tmp_path)
    again.run()
    assert client.gets() == [] and again.copied == [] and len(again.skipped) == len(expected(client))


def test_a_new_version_is_copied_again_and_a_removed_object_is_removed(tmp_path):
    client = bucket()
    stage(client, tmp_path).run()
    client.put(f"{PREFIX}config.json", b'{"layers": 96}')  # same size class, new ETag
    client.delete(f"{PREFIX}tokenizer/tokenizer.json")
    client.calls.clear()
    again = stage(client, tmp_path)
    again.run()
    assert again.copied == [f"{PREFIX}config.json"] and again.removed == ["tokenizer/tokenizer.json"]
    assert files(tmp_path) == expected(client)


def test_a_file_altered_on_the_node_is_copied_again(tmp_path):
    """The marker alone is not trusted: a file of the wrong size is fetched again."""
    client = bucket()
    stage(client, tmp_path).run()
    (tmp_path / "config.json").write_bytes(b"{}")
    again = stage(client, tmp_path)
    again.run()
    assert again.copied == [f"{PREFIX}config.json"] and files(tmp_path) == expected(client)


class Killed(BaseException):
    """The pod is killed: nothing in the script catches it. (Raised on the object's first GET, in the main thread:
    the SDK's download threads are a ``multiprocessing.dummy`` pool, which a BaseException would hang.)"""


def test_a_pod_killed_mid_copy_leaves_no_half_file_and_the_rerun_resumes(tmp_path):
    client = bucket()
    big = f"{PREFIX}model-00001.safetensors"

    def kill_while_copying_the_big_object(name, rng):
        if name == big:
            assert (tmp_path / stage_weights.STATE / "partial" / "model-00001.safetensors").exists()
            raise Killed()

    client.fail = kill_while_copying_the_big_object
    with pytest.raises(Killed):
        stage(client, tmp_path, part_retries=0).run()
    done_before = set(files(tmp_path))
    assert "model-00001.safetensors" not in done_before  # only whole files appear where the training reads
    assert "config.json" in done_before  # listed first (sorted names), complete before the kill
    client.fail = None
    client.calls.clear()
    rerun = stage(client, tmp_path)
    rerun.run()
    assert files(tmp_path) == expected(client)
    assert {c[1] for c in client.gets()} == {f"{PREFIX}{n}" for n in set(expected(client)) - done_before}
    assert rerun.skipped and all(n[len(PREFIX):] in done_before for n in rerun.skipped)


def test_failed_ranges_are_fetched_again(tmp_path, capsys):
    client = bucket()
    big = f"{PREFIX}model-00001.safetensors"
    failures = {f"bytes={MIB}-{2 * MIB - 1}": 1}

    def fail_once(name, rng):
        if name == big and failures.get(rng):
            failures[rng] -= 1
            raise ConnectionResetError("connection reset by peer")

    client.fail = fail_once
    stage(client, tmp_path).run()
    assert files(tmp_path) == expected(client)
    assert "1 part(s) failed; fetching them again (1/3)" in capsys.readouterr().out


def test_ranges_failing_beyond_the_retries_are_refused_in_one_line(tmp_path, capsys):
    client = bucket(fail=lambda name, rng: (_ for _ in ()).throw(ConnectionResetError("reset"))
                    if rng and rng.startswith(f"bytes={MIB}-") else None)
    code = stage_weights.main(argv(tmp_path, "--part-mib", "1", "--part-retries", "2"), client=client)
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and out[-1].startswith(f"stage_weights: {PREFIX}model-00001.safetensors: 1 part(s) still "
                                            "failing after 2 retries")
    assert "model-00001.safetensors" not in files(tmp_path)


def test_an_object_changed_during_the_copy_is_refused(tmp_path, capsys):
    client = bucket()
    big = f"{PREFIX}model-00001.safetensors"

    def overwrite_after_listing(name, rng):
        if name == big and rng is None:
            client.put(big, _bytes(3 * MIB + 12345, 9))

    client.fail = overwrite_after_listing
    code = stage_weights.main(argv(tmp_path), client=client)
    assert code == 1
    assert f"stage_weights: {big} changed in the bucket during the copy" in capsys.readouterr().out


def test_pods_of_one_node_copy_once_under_the_lock(tmp_path):
    """Two pods start at once: one copies, the other waits for the lock and then finds everything present."""
    client = bucket()
    runs = [stage(client, tmp_path, lock_poll_seconds=0.01) for _ in range(2)]
    threads = [threading.Thread(target=r.run) for r in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    n = len(expected(client))
    assert sorted([len(r.copied), len(r.skipped)] for r in runs) == [[0, n], [n, 0]]
    whole_gets = [c[1] for c in client.gets() if c[2] is None]  # one per object read (the empty one needs none)
    assert sorted(whole_gets) == sorted(f"{PREFIX}{k}" for k, v in expected(client).items() if v)
    assert files(tmp_path) == expected(client)


def test_a_pod_waits_while_another_holds_the_lock(tmp_path, monkeypatch):
    client = bucket()
    waiting = threading.Event()
    real_log = stage_weights.log
    monkeypatch.setattr(stage_weights, "log", lambda m: (waiting.set() if "waiting" in m else None, real_log(m)))
    (tmp_path / stage_weights.STATE).mkdir(parents=True)
    holder = open(tmp_path / stage_weights.STATE / "lock", "a+")
    fcntl.flock(holder, fcntl.LOCK_EX)
    run = stage(client, tmp_path, lock_poll_seconds=0.01)
    t = threading.Thread(target=run.run)
    t.start()
    assert waiting.wait(timeout=60)
    assert client.calls == []  # nothing listed or read while the other pod holds the lock
    fcntl.flock(holder, fcntl.LOCK_UN)
    holder.close()
    t.join(timeout=120)
    assert files(tmp_path) == expected(client)


@pytest.mark.parametrize("objects, message", [
    ({f"{PREFIX}../../etc/cron.d/x": b"x"}, "does not map to a file below the destination"),
    ({f"{PREFIX}a//b": b"x"}, "does not map to a file below the destination"),
    ({f"{PREFIX}{'.okerdma-stage'}/lock": b"x"}, "does not map to a file below the destination"),
    ({"models/other/x": b"x"}, f"no objects under weights/{PREFIX} in namespace tenancyns"),
])
def test_objects_it_cannot_copy_are_refused_in_one_line(tmp_path, capsys, objects, message):
    code = stage_weights.main(argv(tmp_path), client=FakeObjectStorage(objects))
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and len(out) == 1 and message in out[0], out
    assert files(tmp_path) == {}


def test_a_bucket_it_may_not_read_names_the_grant(tmp_path, capsys):
    code = stage_weights.main(argv(tmp_path, bucket_name="other"), client=bucket())
    out = capsys.readouterr().out
    assert code == 1 and "cannot list other/models/llama/ in namespace tenancyns (404 BucketNotFound)" in out
    assert "weights grant" in out


def test_without_workload_identity_it_says_what_is_missing(tmp_path, capsys, monkeypatch):
    """Outside a pod (no Kubernetes service host) the signer cannot start: one line, no traceback."""
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    code = stage_weights.main(argv(tmp_path))
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("stage_weights: cannot sign in with OKE Workload Identity (ValueError")


@pytest.mark.parametrize("argv", [
    ["--prefix", "models/llama"], ["--prefix", "/models/"], ["--prefix", PREFIX, "--threads", "0"],
])
def test_arguments_are_checked(tmp_path, argv):
    with pytest.raises(SystemExit) as e:
        stage_weights.parse_args(["copy", "--namespace", "n", "--bucket", "b", "--region", "r-r-1", "--dest", str(tmp_path),
                                   *argv])
    assert e.value.code == 2


def test_the_script_holds_no_credentials():
    """It signs only with the Workload Identity signer: no API key, config file or credential variable."""
    source = SCRIPT.read_text()
    assert "get_oke_workload_identity_resource_principal_signer()" in source
    assert not any(s in source for s in ("oci.config.from_file", "key_file", "private_key", "OCI_CLI_", "fingerprint"))


# --- prepare: the NVMe mount check and the tenant's directory ------------------------------------------------------
def mountinfo(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "mountinfo"
    path.write_text("".join(line + "\n" for line in (
        "22 1 8:3 / / rw,relatime shared:1 - xfs /dev/sda3 rw,attr2",
        "30 22 0:25 / /proc rw,nosuid - proc proc rw") + lines))
    return path


@pytest.fixture
def chowned(monkeypatch):
    """os.chown recorded (the tests need not run as root)."""
    calls = []
    monkeypatch.setattr(stage_weights.os, "chown", lambda path, uid, gid: calls.append((str(path), uid, gid)))
    return calls


def test_prepare_gives_the_tenant_a_private_directory_on_the_nvme_file_system(tmp_path, chowned):
    mount = tmp_path / "nvme"
    mount.mkdir()
    info = mountinfo(tmp_path, f"812 22 9:127 / {mount} rw,noatime - ext4 /dev/md127 rw,stripe=64")
    code = stage_weights.main(["prepare", "--mount", str(mount), "--directory", "research", "--owner", "20001:20002",
                               "--mountinfo", str(info)])
    assert code == 0 and chowned == [(str(mount / "research"), 20001, 20002)]
    assert (mount / "research").stat().st_mode & 0o777 == 0o700
    # again on the same node: the directory is kept, handed over again
    assert stage_weights.main(["prepare", "--mount", str(mount), "--directory", "research", "--owner",
                               "20001:20002", "--mountinfo", str(info)]) == 0


@pytest.mark.parametrize("line, what", [
    (None, "nothing mounted"),
    # the RAID failed: /mnt/nvme is a plain directory of the boot volume, bind-mounted into the pod
    ("812 22 8:3 /mnt/nvme {mount} rw,relatime - xfs /dev/sda3 rw", "xfs directory /mnt/nvme"),
    ("812 22 0:40 / {mount} rw - tmpfs tmpfs rw", "tmpfs directory /"),
])
def test_prepare_refuses_a_mount_that_is_not_the_nvme_file_system(tmp_path, capsys, chowned, line, what):
    mount = tmp_path / "nvme"
    mount.mkdir()
    info = mountinfo(tmp_path, *([line.format(mount=mount)] if line else []))
    code = stage_weights.main(["prepare", "--mount", str(mount), "--directory", "research", "--owner", "20001:20001",
                               "--mountinfo", str(info)])
    out = capsys.readouterr().out
    assert code == 1 and f"is not the node's NVMe file system ({what})" in out and "cordon it" in out
    assert not (mount / "research").exists() and chowned == []


def test_mountinfo_paths_with_escaped_spaces_are_read(tmp_path):
    mount = tmp_path / "my nvme"
    info = mountinfo(tmp_path, f"812 22 9:127 / {str(mount).replace(' ', chr(92) + '040')} rw - xfs /dev/md127 rw")
    assert stage_weights.mount_of(mount, info) == ("/", "xfs")


@pytest.mark.parametrize("argv", [
    ["--owner", "0:0", "--directory", "research"], ["--owner", "abc", "--directory", "research"],
    ["--owner", "20001:20001", "--directory", "../etc"], ["--owner", "20001:20001", "--directory", "a/b"],
])
def test_prepare_arguments_are_checked(argv):
    with pytest.raises(SystemExit) as e:
        stage_weights.parse_args(["prepare", "--mount", "/nvme", *argv])
    assert e.value.code == 2


# --- upload: the last checkpoint, after the training ended ---------------------------------------------------------
CHECKPOINTS = "research.checkpoints/train/"


def checkpoints(tmp_path: Path, exit_code: "str | None" = "0") -> tuple[Path, Path]:
    source = tmp_path / "checkpoints"
    source.mkdir()
    for step, size in ((200, 1000), (400, 3 * MIB + 7), (1000, 2 * MIB + 5)):
        (source / f"step-{step:08d}.pt").write_bytes(_bytes(size, step % 200))
    exit_file = tmp_path / "train-exit"
    if exit_code is not None:
        exit_file.write_text(exit_code + "\n")
    return source, exit_file


def upload_argv(source: Path, exit_file: Path, *extra: str) -> list[str]:
    return ["upload", "--namespace", "tenancyns", "--bucket", "weights", "--region", "sa-saopaulo-1", "--source",
            str(source), "--object-prefix", CHECKPOINTS, "--exit-file", str(exit_file), *extra]


def test_the_last_checkpoint_is_uploaded_in_parallel_parts_after_a_successful_run(tmp_path):
    client = FakeObjectStorage({}, writable="research.checkpoints/")
    source, exit_file = checkpoints(tmp_path)
    assert stage_weights.main(upload_argv(source, exit_file, "--index", "0", "--part-mib", "1"), client=client) == 0
    name = f"{CHECKPOINTS}step-00001000.pt"
    assert set(client.objects) == {name}  # the last step only
    assert client.objects[name][0] == (source / "step-00001000.pt").read_bytes()
    assert [c for c in client.calls if c[0] == "upload-part"] and ("commit-multipart", name) in client.calls


def test_a_small_checkpoint_goes_in_one_put(tmp_path):
    client = FakeObjectStorage({}, writable="research.checkpoints/")
    source, exit_file = checkpoints(tmp_path)
    assert stage_weights.upload_last_checkpoint(client, "tenancyns", "weights", source, CHECKPOINTS, exit_file,
                                                "0") == f"{CHECKPOINTS}step-00001000.pt"
    assert [c[0] for c in client.calls] == ["put"]


def test_only_the_first_pod_uploads_and_a_failed_run_uploads_nothing(tmp_path, capsys):
    client = FakeObjectStorage({}, writable="research.checkpoints/")
    source, exit_file = checkpoints(tmp_path, exit_code="1")
    assert stage_weights.main(upload_argv(source, exit_file, "--index", "1"), client=client) == 0
    assert stage_weights.main(upload_argv(source, exit_file, "--index", "0"), client=client) == 0
    out = capsys.readouterr().out
    assert "the first pod uploads" in out and "training ended with exit code 1: no checkpoint uploaded" in out
    assert client.calls == []


def test_the_upload_waits_for_the_training_to_end(tmp_path):
    """The exit file appears while the upload container polls (the sleep stands in for the training's end)."""
    client = FakeObjectStorage({}, writable="research.checkpoints/")
    source, exit_file = checkpoints(tmp_path, exit_code=None)
    polls = []

    def training_ends_on_the_second_poll(seconds):
        polls.append(seconds)
        assert client.calls == []  # nothing uploaded while training runs
        if len(polls) == 2:
            exit_file.write_text("0")

    name = stage_weights.upload_last_checkpoint(client, "tenancyns", "weights", source, CHECKPOINTS, exit_file, "0",
                                                poll_seconds=5, sleep=training_ends_on_the_second_poll)
    assert polls == [5, 5] and name in client.objects


@pytest.mark.parametrize("case, message", [
    ("no checkpoint", "training succeeded but"),
    ("outside the grant", "cannot upload research.checkpoints/train/step-00001000.pt to weights (404 "
                          "NotAuthorizedOrNotFound); the tenant's weights grant must be readWrite"),
])
def test_an_upload_it_cannot_do_is_refused_in_one_line(tmp_path, capsys, case, message):
    client = FakeObjectStorage({}, writable="other.checkpoints/" if case == "outside the grant" else "research.")
    source, exit_file = checkpoints(tmp_path)
    if case == "no checkpoint":
        for f in source.iterdir():
            f.unlink()
    assert stage_weights.main(upload_argv(source, exit_file, "--index", "0"), client=client) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert message in out[-1] and not client.objects


@pytest.mark.parametrize("extra", [["--object-prefix", "research.checkpoints"], ["--object-prefix", "/x/"],
                                   ["--threads", "0"], ["--index", "first"], []])
def test_upload_arguments_are_checked(tmp_path, monkeypatch, extra):
    """Among them: no index at all (not in an Indexed Job): never guessed as the first pod."""
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    with pytest.raises(SystemExit) as e:
        stage_weights.parse_args(upload_argv(tmp_path, tmp_path / "exit", *(extra if extra else ["--threads", "2"]),
                                             *([] if "--index" in extra or not extra else ["--index", "0"])))
    assert e.value.code == 2


def test_the_index_comes_from_the_indexed_job(tmp_path, monkeypatch):
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "3")
    assert stage_weights.parse_args(upload_argv(tmp_path, tmp_path / "exit")).index == "3"


def test_the_script_keeps_to_the_images_python():
    """Oracle's OCI CLI image runs Python 3.9: no newer syntax in the script (3.9 grammar)."""
    import ast
    ast.parse(SCRIPT.read_text(), feature_version=(3, 9))
    with pytest.raises(SyntaxError):  # the check can fail: 3.10 syntax is refused
        ast.parse("match x:\n    case 1:\n        pass\n", feature_version=(3, 9))
