# SPDX-License-Identifier: MIT
"""lowtrace.analyze: the analyses' JSON documents as Python data, beside
what the module reads of the same trace."""
import pytest

import lowtrace
import lowtrace.analyze
from conftest import made_traces


def kernel_trace():
    p = next((p for n, p in made_traces() if n == "gen_kernel"), None)
    if p is None:
        pytest.skip("no generated trace (run from tests/test_python.sh)")
    return p


def test_cpu_agrees_with_the_reader():
    t = lowtrace.open(kernel_trace())
    d = lowtrace.analyze.cpu(t, top=3)
    assert d["schema_version"] == 1 and d["analysis"] == "cpu"
    ts = [e.timestamp for e in t.events()]
    assert d["origin_ns"] == ts[0]
    assert d["span_ns"] == ts[-1] - ts[0]
    assert 0 < len(d["threads"]) <= 3
    # the busiest threads are threads the scheduler switched to
    sw = t.table("sched_switch", fields=["next_tid"])
    ran = set(int(x) for x in sw["next_tid"])
    assert all(th["tid"] in ran for th in d["threads"])


def test_sched_by_path():
    d = lowtrace.analyze.sched(kernel_trace(), top=2)
    assert d["analysis"] == "sched" and len(d["threads"]) == 2
    a, b = d["threads"]
    assert a["max_ns"] >= b["max_ns"]


def test_failure_raises():
    with pytest.raises(lowtrace.Error) as e:
        lowtrace.analyze.cpu("/nonexistent/trace")
    assert "/nonexistent/trace" in str(e.value)
