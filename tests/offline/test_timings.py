"""What ``--timings-json`` writes (offline.timings.as_dict): the phases, this process's CPU time and peak memory,
each stopped server's CPU time and peak memory, and the calls per pack; reset forgets the servers too."""
from __future__ import annotations

import types

from offline import timings


def test_the_figures_of_each_process_and_pack():
    timings.reset()
    try:
        timings.mark("start")
        timings.mark("program")
        timings.add("security", "Analyze", 0.25)
        timings.add("security", "Analyze", 0.25)
        timings.server_usage("security", types.SimpleNamespace(ru_utime=1.5, ru_stime=0.5, ru_maxrss=204800))
        figures = timings.as_dict()
        assert list(figures["phases"]) == ["program"] and figures["cpuS"] > 0 and figures["peakMb"] > 10
        assert figures["servers"] == {"security": {"cpuS": 2.0, "peakMb": 200.0}}
        assert figures["calls"] == {"security": {"Analyze": [2, 0.5]}}
        assert "timings: pack security server: CPU 2.00 s, peak memory 200 MB" in timings.report()
    finally:
        timings.reset()
    assert timings.as_dict()["servers"] == {} and timings.as_dict()["calls"] == {}
