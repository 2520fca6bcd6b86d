"""Start the policy packs' analyzer servers at the very start of ``python -m offline.preview``.

A Python pack's server is a separate ``python -m pulumi.policy`` process that imports ``pulumi`` and
``pulumi_policy`` before it prints its port (:mod:`offline.analyzer`): about as long as the preview's own imports.
Spawned before those imports, on the machine's other core, it is ready when the program has run, so policy
evaluation adds only the gRPC calls to the preview's wall time (``make bench``: the dev preview against the import
floor). This module imports only the standard library, so spawning costs a few milliseconds.

:func:`spawn` reads ``--policy-pack`` from the command line the way ``argparse`` will (``--policy-pack DIR`` and
``--policy-pack=DIR``, repeatable; default both packs of this repository) and starts nothing for an invalid or
help-only command line: the preview then reports the problem itself. :func:`claim` hands the processes to
:func:`offline.analyzer.start_analyzers` when its pack list is the same; otherwise they are stopped and new ones
started. :func:`release` stops whatever was not claimed (the preview calls it when it exits).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional, Sequence

PROJECT_DIR = Path(__file__).resolve().parent.parent
#: The packs the preview runs without ``--policy-pack`` (``policies.PACK_DIRS``, without importing ``policies``).
DEFAULT_PACKS = (PROJECT_DIR / "policies" / "security", PROJECT_DIR / "policies" / "placement")

_spawned: Optional[tuple[list[Path], str, list[tuple[subprocess.Popen, object]]]] = None


def pack_dirs(argv: Sequence[str]) -> Optional[list[Path]]:
    """The ``--policy-pack`` directories of a command line (default: both packs), resolved; None for ``-h``."""
    found: list[Path] = []
    args = list(argv)
    for i, arg in enumerate(args):
        if arg in ("-h", "--help"):
            return None
        if arg == "--policy-pack" and i + 1 < len(args):
            found.append(Path(args[i + 1]))
        elif arg.startswith("--policy-pack="):
            found.append(Path(arg.split("=", 1)[1]))
    return [p.resolve() for p in found] if found else list(DEFAULT_PACKS)


def free_address() -> str:
    """A ``127.0.0.1:<port>`` no one listens on now: the engine address packs are given (served later by
    :class:`offline.analyzer.EngineLog`; a Python pack does not dial it, see :mod:`offline.analyzer`)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def pack_python(pack_dir: Path) -> str:
    """The interpreter the CLI would use: the pack's ``venv/bin/python`` if present (``PulumiPolicy.yaml``
    ``runtime.options.virtualenv: venv``), else this interpreter."""
    venv = pack_dir / "venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


#: In a server's environment: end when standard input ends (the packs' ``_serve.exit_with_stdin``).
EXIT_WITH_STDIN = {"OKE_RDMA_EXIT_WITH_STDIN": "1"}


def popen(pack_dir: Path, engine_address: str, env: Optional[dict[str, str]] = None):
    """``python -u -m pulumi.policy <engine address> .`` in ``pack_dir``: (process, stderr file).

    Its standard input is a pipe whose writing end only this process holds (``close_fds``), and
    :data:`EXIT_WITH_STDIN` asks the packs of this repository to end when it closes: when this process ends in any
    way, on any thread. ``PR_SET_PDEATHSIG`` (:func:`_die_with_parent`) covers any other pack started by the
    command-line preview."""
    stderr = tempfile.TemporaryFile()
    process = subprocess.Popen([pack_python(pack_dir), "-u", "-m", "pulumi.policy", engine_address, "."],
                               cwd=pack_dir, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                               env={**os.environ, **EXIT_WITH_STDIN, **(env or {})}, preexec_fn=_die_with_parent())
    lower_priority(process.pid)
    return process, stderr


#: How much nicer than the preview a pack's server runs (``nice(2)`` increment; 0..19).
SERVER_NICENESS = 10


def lower_priority(pid: int) -> None:
    """Run process ``pid`` :data:`SERVER_NICENESS` steps nicer than this process (never less nice than it is).

    The servers start while the preview imports and runs the program, and they are busy mostly at their own start
    (importing ``pulumi``, ``grpc`` and ``pulumi_policy``). On a machine with fewer free cores than busy processes
    (two cores: the preview and two packs) Linux's fair scheduler would give each an equal share, slowing the
    program that feeds them; nicer, they take what the preview leaves, and any idle core. What they compute and
    answer is unchanged: only the order in which the kernel runs them. A failure (a system that forbids it) is
    ignored: the preview is then as fast as the machine allows, and correct."""
    try:
        target = min(19, os.getpriority(os.PRIO_PROCESS, 0) + SERVER_NICENESS)
        if os.getpriority(os.PRIO_PROCESS, pid) < target:
            os.setpriority(os.PRIO_PROCESS, pid, target)
    except (OSError, AttributeError):  # the process already exited, or no setpriority on this platform
        pass


def _die_with_parent():
    """A ``preexec_fn`` setting Linux ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: the server stops when the preview
    process dies, even by ``os._exit`` (a program may call it) or SIGKILL, where neither ``close()`` nor ``atexit``
    runs. Only before gRPC is loaded (as in :func:`spawn`, the first thing ``python -m offline.preview`` does): a
    ``preexec_fn`` forces ``fork()``, and in a process whose gRPC threads run, gRPC's fork handlers break the child
    ("epoll_wait error: Bad file descriptor"). ``prctl`` is looked up here, in the parent; the child only calls it."""
    if "grpc" in sys.modules or not sys.platform.startswith("linux"):
        return None
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    sigterm = int(signal.SIGTERM)
    return lambda: prctl(1, sigterm)  # 1 = PR_SET_PDEATHSIG


def spawn(argv: Sequence[str]) -> None:
    """Start a server for every pack of the command line now (nothing if a directory is not a pack)."""
    global _spawned
    dirs = pack_dirs(argv)
    if not dirs or not all((d / "__main__.py").is_file() and (d / "PulumiPolicy.yaml").is_file() for d in dirs):
        return
    address = free_address()
    env = {"PULUMI_DRY_RUN": "true"}
    _spawned = (dirs, address, [popen(d, address, env) for d in dirs])


def claim(dirs: Sequence[Path]) -> Optional[tuple[str, list]]:
    """The spawned ``(engine address, [(process, stderr)])`` if they serve exactly ``dirs`` (in order); else stop
    them and return None."""
    global _spawned
    spawned, _spawned = _spawned, None
    if spawned is None:
        return None
    wanted = [Path(d).resolve() for d in dirs]
    if spawned[0] == wanted:
        return spawned[1], spawned[2]
    for process, stderr in spawned[2]:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        stderr.close()
    return None


def release() -> None:
    """Stop servers that were spawned but never claimed (idempotent)."""
    claim([])


def reap(process: subprocess.Popen, timeout: Optional[float]) -> Any:
    """Wait for ``process`` to end (``os.wait4``, so its CPU time and peak memory are known) and set its return
    code; its ``resource.struct_rusage``, or None when it was already reaped.

    :raises subprocess.TimeoutExpired: it is still running after ``timeout`` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            pid, status, usage = os.wait4(process.pid, 0 if deadline is None else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere
            process.returncode = process.returncode if process.returncode is not None else -1
            return None
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return usage
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(process.args, timeout)
        time.sleep(0.005)
