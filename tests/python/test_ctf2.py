# SPDX-License-Identifier: MIT
"""CTF 2 through the module: each CTF 2 trace of ../shared/data/ctf2 gives
the events its CTF 1.8 twin gives, CTF 2's LEB128 integers read as ints,
and the field classes CTF 1.8 lacks (tests/gen_ctf2.py --fields) come as
Python values: booleans as bool, BLOBs as bytes, absent optionals as
None, UTF-16 and UTF-32 strings as str."""
import os
import subprocess
import sys

import pytest

import lowtrace
from conftest import SHARED, TOP, require

CTF2 = os.path.join(SHARED, "ctf2")
TWINS = ("trace-with-index", "succeed1", "lttng-event-after-packet")


def events(path):
    return [(ev.timestamp, ev.name, ev.cpu, dict(ev.context),
             dict(ev.payload)) for ev in lowtrace.open(path).events()]


@pytest.mark.parametrize("name", TWINS)
def test_twins_give_the_same_events(name):
    d = require(os.path.join(CTF2, name) if os.path.isdir(
        os.path.join(CTF2, name)) else None, "../shared/data/ctf2 missing")
    old = events(os.path.join(d, "ctf-1.8"))
    new = events(os.path.join(d, "ctf2"))
    assert old, name + ": no event"
    assert new == old


def test_leb128_integers():
    d = os.path.join(CTF2, "vl-ints", "ctf2")
    require(d if os.path.isdir(d) else None, "../shared/data/ctf2 missing")
    ev = next(iter(lowtrace.open(d).events()))
    # the trace's extremes: 10-byte unsigned and signed LEB128 values
    assert ev["vu10"] == 2**64 - 1
    assert ev["vi10c"] == -2**63
    assert ev["vi1b"] == -1
    assert all(type(v) is int for v in ev.payload.values())


def test_field_classes_ctf2_alone(tmp_path):
    out = tmp_path / "fields"
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "gen_ctf2.py"),
                    str(out), "--fields"], check=True)
    seen = set()

    def kinds(v):
        seen.add(type(v))
        if isinstance(v, dict):
            for x in v.values():
                kinds(x)
        elif isinstance(v, list):
            for x in v:
                kinds(x)

    n = 0
    for ev in lowtrace.open(str(out / "ctf2")).events():
        kinds(dict(ev.payload))
        n += 1
    want = sum(1 for line in open(out / "expected.txt") if line.strip())
    assert n == want
    assert {bool, bytes, type(None), str, int} <= seen, seen
