#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_chrome_trace.py FILE - validates a Chrome trace-event JSON file as
`lowtrace export --format=chrome` writes it: well-formed JSON, an object
with a traceEvents list, the keys each phase requires, and per track
(pid, tid) slices and instants in non-decreasing time order, slices not
overlapping.  Prints counts; exits 1 with a message on the first fault."""
import json
import sys


def fail(msg):
    print("check_chrome_trace: " + msg)
    sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents list")
    required = {"X": ("name", "ph", "pid", "tid", "ts", "dur"),
                "i": ("name", "ph", "pid", "tid", "ts", "s"),
                "M": ("name", "ph", "pid", "args")}
    last = {}
    counts = {}
    names = set()
    for n, ev in enumerate(doc["traceEvents"]):
        ph = ev.get("ph")
        if ph not in required:
            fail("event %d: unknown phase %r" % (n, ph))
        for k in required[ph]:
            if k not in ev:
                fail("event %d (%s): no key %r" % (n, ph, k))
        counts[ph] = counts.get(ph, 0) + 1
        if ph == "M":
            if ev["name"] == "thread_name":
                names.add((ev["pid"], ev["tid"]))
            continue
        if not isinstance(ev["ts"], (int, float)) or ev["ts"] < 0:
            fail("event %d: bad ts %r" % (n, ev["ts"]))
        if ph == "X" and ev["dur"] < 0:
            fail("event %d: negative dur" % n)
        track = (ev["pid"], ev["tid"])
        prev_ts, prev_end = last.get(track, (-1.0, -1.0))
        if ev["ts"] < prev_ts:
            fail("event %d: ts %s before %s on track %s" % (n, ev["ts"], prev_ts, track))
        if ph == "X" and ev["ts"] + 0.0015 < prev_end:
            fail("event %d: slice at %s overlaps the previous one (ends %s) on track %s"
                 % (n, ev["ts"], prev_end, track))
        end = ev["ts"] + ev["dur"] if ph == "X" else ev["ts"]
        last[track] = (ev["ts"], max(end, prev_end))
    for track in last:
        if track not in names:
            fail("track %s has no thread_name" % (track,))
    print("ok: %d slices, %d instants, %d metadata, %d tracks"
          % (counts.get("X", 0), counts.get("i", 0), counts.get("M", 0), len(last)))


main()
