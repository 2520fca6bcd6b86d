"""Where an offline preview's wall time goes: named phases, printed by ``python -m offline.preview --timings``.

The preview marks the end of each phase (:func:`mark`); the analyzer client adds what each pack's server cost
(:func:`add`: calls and seconds per pack and gRPC method). :func:`report` renders both as one stderr line each.
The first mark is taken by ``offline/preview.py`` before its imports, so "imports" is the interpreter start plus
every import of the preview process (``make bench`` compares it with ``python -m bench.imports``). Standard library
only: importing this module costs nothing measurable.
"""
from __future__ import annotations

import threading
import time

#: (phase name, ``time.perf_counter()`` at its end), in order; the first entry is the start.
MARKS: list[tuple[str, float]] = []
#: (pack directory name, gRPC method) → [calls, seconds] (the client's wall time per call, waiting included).
CALLS: dict[tuple[str, str], list] = {}
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
    with _lock:
        for (pack, method), (calls, seconds) in sorted(CALLS.items()):
            lines.append(f"timings: pack {pack} {method}: {calls} call{'s' if calls != 1 else ''}, {seconds:.3f} s")
    return lines


def reset() -> None:
    """Forget every mark and call (a process that previews several times, like the tests)."""
    MARKS.clear()
    with _lock:
        CALLS.clear()
