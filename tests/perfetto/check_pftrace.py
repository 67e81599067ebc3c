#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_pftrace.py - decodes a `lowtrace export --format perfetto` file with
# python3-protobuf and the subset of Perfetto's messages in
# perfetto_subset.proto (compiled by protoc into PYDIR), checks that it
# follows Perfetto's rules, and that what it holds reads back equal to
# `TZ=UTC lowtrace view --no-delta` of the same trace (VIEW, its output):
#
#   sequences   each sequence's first packet clears its incremental state
#               (SEQ_INCREMENTAL_STATE_CLEARED) before any packet needs it
#   interned    every name, category and annotation name iid a packet uses
#               was interned on its sequence at or before it, as text
#   tracks      every track a TrackEvent names was described before it
#   slices      every slice end closes a begin of its track
#   compact     per bundle, the switch arrays have one length, the waking
#               arrays one length, and comm indices are in the intern table
#   switches    the sched_switch events (time, CPU, next tid, next comm,
#               prev_state) equal view's
#   wakings     the same of the wake-ups (sched_waking and sched_wakeup_new,
#               and sched_wakeup when the trace has no sched_waking)
#   events      the instants (time, name, fields, and the thread and process
#               of their track) equal view's events (their thread and
#               process fields: tid, vtid or common_tid, vpid or
#               common_tgid) that the export does not map to scheduling,
#               interrupts or system calls
#   threads     each thread's name in the process tree is a name view
#               shows for that tid
#
# usage: check_pftrace.py PYDIR FILE.pftrace VIEW [--expect KEY=N ...]
#   --expect packets=N, switches=N, ... : a count the file must have
# Prints "ok NAME" or "FAIL NAME: why" per check, then the counts
# ("counts: packets=N ..."); exits 1 when a check fails.
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from compare_babeltrace import groups_of  # noqa: E402  view's fields

DAY_NS = 86400 * 10**9
SWITCH = ("sched:sched_switch", "sched_switch")
WAKING = ("sched:sched_waking", "sched_waking")
WAKEUP = ("sched:sched_wakeup", "sched_wakeup")
WAKEUP_NEW = ("sched:sched_wakeup_new", "sched_wakeup_new")
# the events the export maps to something else than an instant
MAPPED = re.compile(
    r"^(sched:sched_switch|sched_switch|sched:sched_waking|sched_waking|"
    r"sched:sched_wakeup|sched_wakeup|sched:sched_wakeup_new|"
    r"sched_wakeup_new|irq:irq_handler_entry|irq:irq_handler_exit|"
    r"irq:softirq_entry|irq:softirq_exit|irq_handler_entry|irq_handler_exit|"
    r"softirq_entry|softirq_exit|raw_syscalls:sys_enter|raw_syscalls:sys_exit|"
    r"exit_syscall|lttng_statedump_process_state|"
    r"(compat_)?syscall_(entry|exit)_.*|sys_.*)$")

failed = 0


def ok(name):
    print("ok " + name)


def fail(name, why):
    global failed
    failed += 1
    print("FAIL %s: %s" % (name, why))


# ---- view's text ----

def flat(tree, fields, name=None):
    """compare_babeltrace's parse of a field (a tagged tuple) into
    fields: structs' members by their own names, enums as (label, n) or
    n, arrays as tuples."""
    tag = tree[0]
    if tag == "struct":
        for k, v in tree[1]:
            flat(v, fields, k)
        if name is not None:
            fields[name] = None  # a struct: its members stand alone
    elif tag == "enum":
        n = flat(tree[2], {}, "n")
        fields[name] = (tree[1][0], n) if tree[1] else n
    elif tag == "array":
        fields[name] = tuple(flat(e, {}, "e") for e in tree[1])
    elif tag in ("int", "float", "str"):
        fields[name] = tree[1]
    elif tag == "bin":
        fields[name] = int(tree[1], 2)
    else:  # a variant's option, without its name
        fields[name] = None
    return fields.get(name)


LINE = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\.(\d{9})\] (?:(\S+) )?cpu (\d+) "
                  r"(\S+?):(?: (.*))?$")


def read_view(path):
    events = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = LINE.match(line)
            if not m:
                continue
            h, mi, s, ns, _, cpu, name, rest = m.groups()
            tod = ((int(h) * 60 + int(mi)) * 60 + int(s)) * 10**9 + int(ns)
            fields = {}
            if rest and not name.startswith("lt_tracef:"):
                try:
                    for g in groups_of(rest):
                        flat(g, fields)
                except (ValueError, IndexError, AttributeError):
                    fields = None
            events.append((tod, int(cpu), name, fields))
    return events


def num(v):
    return v[1] if isinstance(v, tuple) and len(v) == 2 and \
        isinstance(v[0], str) else v


def first(fields, *names):
    for n in names:
        if n in fields:
            return fields[n]
    return None


# ---- the .pftrace ----

def main():
    pydir, path, viewpath = sys.argv[1:4]
    expect = {}
    args = sys.argv[4:]
    while args:
        if args[0] == "--expect":
            k, v = args[1].split("=")
            expect[k] = int(v)
            args = args[2:]
        else:
            sys.exit("bad argument " + args[0])
    sys.path.insert(0, pydir)
    import perfetto_subset_pb2 as P

    trace = P.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())

    TE = P.TrackEvent
    seqs = {}  # id -> state
    tracks = {}  # uuid -> descriptor
    open_slices = Counter()
    bad = {k: [] for k in ("sequences", "interned", "tracks", "slices",
                           "compact")}
    switches, wakings, instants, threads = [], [], [], {}
    counts = Counter()
    counts["packets"] = len(trace.packet)
    for i, p in enumerate(trace.packet):
        sid = p.trusted_packet_sequence_id
        s = seqs.get(sid)
        if s is None:
            s = seqs[sid] = {"cleared": False, "names": {}, "cats": {},
                             "anns": {}, "clock": None, "last": 0,
                             "default_clock": None}
            if not p.sequence_flags & 1:
                bad["sequences"].append("sequence %d starts at packet %d "
                                        "without clearing its state" % (sid, i))
        if p.sequence_flags & 1:
            s.update(cleared=True, names={}, cats={}, anns={})
        if (p.sequence_flags & 2 or p.HasField("interned_data")) and \
                not s["cleared"]:
            bad["sequences"].append("packet %d needs state of sequence %d "
                                    "before it is cleared" % (i, sid))
        if p.HasField("trace_packet_defaults"):
            s["default_clock"] = p.trace_packet_defaults.timestamp_clock_id
        if p.HasField("clock_snapshot"):
            for c in p.clock_snapshot.clocks:
                if c.is_incremental:
                    s["clock"] = c.clock_id
                    s["last"] = c.timestamp
        for table, entries in (("names", p.interned_data.event_names),
                               ("cats", p.interned_data.event_categories),
                               ("anns",
                                p.interned_data.debug_annotation_names)):
            for e in entries:
                # text, not bytes (python3-protobuf's for bad UTF-8)
                if not isinstance(e.name, str) or not e.name.isprintable():
                    bad["interned"].append("packet %d: %s iid %d is %r" %
                                           (i, table, e.iid, e.name))
                s[table][e.iid] = e.name
        # the packet's time, ns since the epoch
        ts = None
        if p.HasField("timestamp"):
            clock = p.timestamp_clock_id or s["default_clock"]
            if clock and clock == s["clock"]:
                s["last"] += p.timestamp
                ts = s["last"]
            else:
                ts = p.timestamp
        kind = p.WhichOneof("data")
        if kind == "track_descriptor":
            d = p.track_descriptor
            tracks[d.uuid] = d
            counts["tracks"] += 1
        elif kind == "track_event":
            ev = p.track_event
            if ev.track_uuid not in tracks:
                bad["tracks"].append("packet %d: track %d not described"
                                     % (i, ev.track_uuid))
            if ev.HasField("name_iid") and ev.name_iid not in s["names"]:
                bad["interned"].append("packet %d: name iid %d" %
                                       (i, ev.name_iid))
            cats = []
            for c in ev.category_iids:
                if c not in s["cats"]:
                    bad["interned"].append("packet %d: category iid %d" %
                                           (i, c))
                cats.append(s["cats"].get(c))
            cats += list(ev.categories)
            if ev.type == TE.TYPE_SLICE_BEGIN:
                open_slices[ev.track_uuid] += 1
                counts["slices"] += 1
                for c in cats:
                    counts["slices_%s" % c] += 1
            elif ev.type == TE.TYPE_SLICE_END:
                if open_slices[ev.track_uuid] <= 0:
                    bad["slices"].append("packet %d: an end without a begin"
                                         % i)
                open_slices[ev.track_uuid] -= 1
            elif ev.type == TE.TYPE_COUNTER:
                counts["counters"] += 1
            elif ev.type == TE.TYPE_INSTANT:
                fields = {}
                for a in ev.debug_annotations:
                    name = s["anns"].get(a.name_iid) if \
                        a.HasField("name_iid") else a.name
                    if name is None:
                        bad["interned"].append("packet %d: annotation iid "
                                               "%d" % (i, a.name_iid))
                        continue
                    v = a.WhichOneof("value")
                    if v is not None:
                        fields[name] = getattr(a, v)
                    else:
                        fields[name] = tuple(
                            getattr(x, x.WhichOneof("value"))
                            for x in a.array_values)
                d = tracks.get(ev.track_uuid)
                th = d.thread if d is not None and d.HasField("thread") \
                    else None
                instants.append((ts % DAY_NS, s["names"].get(ev.name_iid),
                                 fields, th, "anchor" in cats))
        elif kind == "ftrace_events":
            b = p.ftrace_events
            cs = b.compact_sched
            sw = [cs.switch_timestamp, cs.switch_prev_state,
                  cs.switch_next_pid, cs.switch_next_prio,
                  cs.switch_next_comm_index]
            wk = [cs.waking_timestamp, cs.waking_pid, cs.waking_target_cpu,
                  cs.waking_prio, cs.waking_comm_index]
            counts["bundles"] += 1
            if len(set(len(a) for a in sw)) != 1 or \
                    len(set(len(a) for a in wk)) != 1:
                bad["compact"].append("packet %d: arrays of lengths %s %s" %
                                      (i, [len(a) for a in sw],
                                       [len(a) for a in wk]))
                continue
            table = list(cs.intern_table)
            if any(c >= len(table) for c in list(sw[4]) + list(wk[4])):
                bad["compact"].append("packet %d: a comm index past the "
                                      "table" % i)
                continue
            t = 0
            for k in range(len(sw[0])):
                t += sw[0][k]
                switches.append((t % DAY_NS, b.cpu, sw[2][k], table[sw[4][k]],
                                 sw[1][k]))
            t = 0
            for k in range(len(wk[0])):
                t += wk[0][k]
                wakings.append((t % DAY_NS, b.cpu, wk[1][k], table[wk[4][k]],
                                wk[2][k]))
        elif kind == "process_tree":
            for th in p.process_tree.threads:
                threads[th.tid] = th.name
    counts["switches"] = len(switches)
    counts["wakings"] = len(wakings)
    counts["instants"] = len(instants)
    counts["anchors"] = sum(1 for e in instants if e[4])
    counts["threads"] = len(threads)
    counts["interned_names"] = sum(len(s["names"]) for s in seqs.values())
    counts["sequences"] = len(seqs)

    for k, v in bad.items():
        if v:
            fail(k, "; ".join(v[:5]) + (" (%d in all)" % len(v)))
        else:
            ok(k)

    # ---- the round trip against view ----
    view = read_view(viewpath)
    names = set(e[2] for e in view)
    has_waking = any(n in names for n in WAKING)
    want_sw, want_wk, want_ev, comms = [], [], [], {}
    for tod, cpu, name, f in view:
        if f is None:
            f = {}
        for a, b in (("prev_pid", "prev_comm"), ("prev_tid", "prev_comm"),
                     ("next_pid", "next_comm"), ("next_tid", "next_comm"),
                     ("pid", "comm"), ("tid", "comm"), ("child_pid",
                                                        "child_comm"),
                     ("child_tid", "child_comm"), ("tid", "name"),
                     ("vtid", "procname")):
            if a in f and b in f and isinstance(f[b], str):
                comms.setdefault(num(f[a]), set()).add(f[b][:15])
        if name in SWITCH:
            want_sw.append((tod, cpu, num(first(f, "next_pid", "next_tid")),
                            f.get("next_comm"),
                            num(f.get("prev_state", 0))))
        elif name in WAKING or name in WAKEUP_NEW or \
                (name in WAKEUP and not has_waking):
            want_wk.append((tod, cpu, num(first(f, "pid", "tid")),
                            f.get("comm"), num(f.get("target_cpu", cpu))))
        elif not MAPPED.match(name):
            want_ev.append((tod, name, f))

    def same(what, got, want):
        g, w = Counter(got), Counter(want)
        if g == w:
            ok(what)
            return
        extra = list((g - w).elements())[:3]
        missing = list((w - g).elements())[:3]
        fail(what, "%d read back, %d in view; not in view: %s; missing: %s"
             % (len(got), len(want), extra, missing))

    same("switches", switches, want_sw)
    same("wakings", wakings, want_wk)

    def g(v):
        # a double as view prints it (%g); 0.0 == 0 as view's "0" reads
        return float("%g" % v) if isinstance(v, float) else v

    def norm(fields):
        out = []
        for k, v in fields.items():
            if v is None:
                continue  # structs, variants' missing options
            v = v[0] if isinstance(v, tuple) and len(v) == 2 and \
                isinstance(v[0], str) else v
            if isinstance(v, tuple):
                v = tuple(g(x[0] if isinstance(x, tuple) else x) for x in v)
            out.append((k, g(v)))
        return tuple(sorted(out, key=repr))

    # the thread and process fields are the track's, not annotations
    def split(f):
        tf = next((k for k in ("tid", "vtid", "common_tid") if k in f), None)
        pf = next((k for k in ("vpid", "common_tgid") if k in f), None)
        rest = {k: v for k, v in f.items() if k not in (tf, pf)}
        tid = num(f[tf]) if tf else None
        pid = num(f[pf]) if pf else None
        if tid is not None and tid < 0 and pid is not None:
            tid = pid  # no thread (-1): the export takes the process
        return rest, tid, pid

    want, has_tid, has_pid = [], set(), set()
    for tod, name, f in want_ev:
        if name.startswith("lt_tracef:"):
            want.append((tod, name))
            continue
        rest, tid, pid = split(f or {})
        if tid is not None:
            has_tid.add(name)
        if pid is not None:
            has_pid.add(name)
        want.append((tod, name, norm(rest), tid, pid))
    got_ev = []
    for tod, name, f, th, _ in instants:
        if name and name.startswith("lt_tracef:"):
            got_ev.append((tod, name))
            continue
        tid = th.tid if th is not None and name in has_tid else None
        pid = th.pid if th is not None and name in has_pid else None
        got_ev.append((tod, name, norm(f), tid, pid))
    same("events", got_ev, want)

    badnames = ["%d %r (view: %s)" % (t, n, sorted(comms.get(t, [])))
                for t, n in threads.items()
                if n and n[:15] not in comms.get(t, set())]
    if badnames:
        fail("threads", "; ".join(badnames[:5]))
    else:
        ok("threads")

    for k, v in expect.items():
        if counts[k] != v:
            fail("expect_" + k, "%d, not %d" % (counts[k], v))
        else:
            ok("expect_" + k)
    print("counts: " + " ".join("%s=%d" % kv for kv in sorted(counts.items())))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
