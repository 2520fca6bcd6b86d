"""Where an offline preview's wall time goes: named phases, printed by ``python -m offline.preview --timings``.

The preview marks the end of each phase (:func:`mark`); the analyzer client adds what each pack's server cost
(:func:`add`: calls and seconds per pack and gRPC method) and, once it stopped a server, that server's CPU time and
peak memory (:func:`server_usage`). :func:`report` renders them as one stderr line each; :func:`as_dict` gives the
same figures as JSON for ``make bench``.
The first mark is taken by ``offline/preview.py`` before its imports, so "imports" is the interpreter start plus
every import of the preview process (``make bench`` compares it with ``python -m bench.imports``). Standard library
only: importing this module costs nothing measurable.
"""
from __future__ import annotations

import threading
import time
from typing import Any

#: (phase name, ``time.perf_counter()`` at its end), in order; the first entry is the start.
MARKS: list[tuple[str, float]] = []
#: (pack directory name, gRPC method) → [calls, seconds] (the client's wall time per call, waiting included).
CALLS: dict[tuple[str, str], list] = {}
#: Pack directory name → (CPU seconds, peak RSS in MB) of its analyzer server, read when it was stopped and reaped
#: (``os.wait4``); a pack whose server served several previews of one process counts once, at its end.
SERVERS: dict[str, tuple[float, float]] = {}
_lock = threading.Lock()


def mark(phase: str) -> None:
    """Record that ``phase`` ended now (the first call records the start)."""
    MARKS.append((phase, time.perf_counter()))


def add(pack: str, method: str, seconds: float) -> None:
    """Count one ``method`` call of ``pack``'s analyzer server that took ``seconds`` (thread-safe)."""
    with _lock:
        entry = CALLS.setdefault((pack, method), [0, 0.0])
        entry[0] += 1
        entry[1] += seconds


def server_usage(pack: str, usage: Any) -> None:
    """Record the ``resource.struct_rusage`` of ``pack``'s stopped server (Linux reports ``ru_maxrss`` in KiB)."""
    with _lock:
        SERVERS[pack] = (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def as_dict() -> dict[str, Any]:
    """The same figures as :func:`report`, for a program to read (``offline.preview --timings-json``): ``phases``
    (name → seconds), ``cpuS`` and ``peakMb`` of this process, ``servers`` (pack → ``cpuS``, ``peakMb``) and
    ``calls`` (pack → method → ``[calls, seconds]``)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    phases = {name: round(end - start, 4) for (_, start), (name, end) in zip(MARKS, MARKS[1:])}
    with _lock:
        servers = {pack: {"cpuS": round(cpu, 3), "peakMb": round(mb, 1)} for pack, (cpu, mb) in SERVERS.items()}
        calls: dict[str, dict[str, list]] = {}
        for (pack, method), (count, seconds) in sorted(CALLS.items()):
            calls.setdefault(pack, {})[method] = [count, round(seconds, 4)]
    return {"phases": phases, "cpuS": round(own.ru_utime + own.ru_stime, 3), "peakMb": round(own.ru_maxrss / 1024, 1),
            "servers": servers, "calls": calls}


def report() -> list[str]:
    """``timings: imports 1.24 s, program 0.30 s, ...``, the CPU time of this process and of the child processes
    it has waited for (``getrusage``), and one ``timings: pack <pack> <method>: N calls, X s`` line per pack and
    method."""
    lines = []
    if len(MARKS) > 1:
        steps = [f"{name} {end - start:.2f} s" for (_, start), (name, end) in zip(MARKS, MARKS[1:])]
        lines.append(f"timings: {', '.join(steps)} (total {MARKS[-1][1] - MARKS[0][1]:.2f} s)")
    import resource

    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    lines.append(f"timings: CPU {own.ru_utime + own.ru_stime:.2f} s in this process, "
                 f"{children.ru_utime + children.ru_stime:.2f} s in the child processes it waited for (the packs' "
                 "analyzer servers, once stopped)")
    lines.append(f"timings: peak memory {own.ru_maxrss / 1024:.0f} MB in this process")
    with _lock:
        for pack, (cpu, mb) in sorted(SERVERS.items()):
            lines.append(f"timings: pack {pack} server: CPU {cpu:.2f} s, peak memory {mb:.0f} MB")
    with _lock:
        for (pack, method), (calls, seconds) in sorted(CALLS.items()):
            lines.append(f"timings: pack {pack} {method}: {calls} call{'s' if calls != 1 else ''}, {seconds:.3f} s")
    return lines


def reset() -> None:
    """Forget every mark and call (a process that previews several times, like the tests)."""
    MARKS.clear()
    with _lock:
        CALLS.clear()
        SERVERS.clear()
