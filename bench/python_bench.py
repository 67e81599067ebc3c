#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The measurements of bench/python.sh, one per call:

  python_bench.py read TRACE [RUNS]     every event with all its fields as
                                        Python values: lowtrace.open()
                                        beside python3-bt2, side by side
  python_bench.py table TRACE CLASS [RUNS]
                                        trace.table() of one class, every
                                        top-level field
  python_bench.py log HANDLER [CALLS] [RUNS]
                                        what a handler adds to
                                        logger.info(): HANDLER lowtrace
                                        or lttngust (its agent's handler on
                                        the root logger, as it installs it)

Each prints "key value" lines; times are medians of RUNS runs."""
import logging
import resource
import statistics
import sys
import time


def median_time(fn, runs):
    ts = []
    out = None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def lt_read(path):
    import lowtrace
    t = lowtrace.open(path)
    n = f = 0
    for ev in t.events():
        p = ev.payload
        c = ev.context
        ev.name, ev.timestamp, ev.cpu
        n += 1
        f += len(p) + len(c)
    return n, f


def bt_plain(f, bt2):
    if f is None:
        return {}
    if isinstance(f, bt2._StructureFieldConst):
        return {k: bt_plain(v, bt2) for k, v in f.items()}
    if isinstance(f, bt2._VariantFieldConst):
        return bt_plain(f.selected_option, bt2)
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._ArrayFieldConst):
        return [bt_plain(x, bt2) for x in f]
    if isinstance(f, bt2._IntegerFieldConst):
        return int(f)
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    return f


def bt_read(path):
    import bt2
    n = f = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        p = bt_plain(ev.payload_field, bt2)
        c = bt_plain(ev.common_context_field, bt2)
        c.update(bt_plain(ev.specific_context_field, bt2))
        ev.name, msg.default_clock_snapshot.ns_from_origin
        n += 1
        f += len(p) + len(c)
    return n, f


def cmd_read(path, runs=3):
    runs = int(runs)
    tl, (n, f) = median_time(lambda: lt_read(path), runs)
    tb, (nb, fb) = median_time(lambda: bt_read(path), runs)
    assert (n, f) == (nb, fb), ((n, f), (nb, fb))
    print("events", n)
    print("fields", f)
    print("lowtrace_s %.3f" % tl)
    print("lowtrace_ev_per_s %.0f" % (n / tl))
    print("bt2_s %.3f" % tb)
    print("bt2_ev_per_s %.0f" % (n / tb))
    print("ratio %.1f" % (tb / tl))


def cmd_table(path, cls, runs=5):
    import numpy  # noqa: F401 (its import is not the table's time)
    import lowtrace
    t = lowtrace.open(path)
    c = next(c for c in t.classes if c.name == cls)
    names = []
    for f in c.fields:
        if f.depth == 0 and not f.option and f.name not in names:
            names.append(f.name)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tt, tab = median_time(lambda: t.table(cls, fields=names), int(runs))
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    size = 0
    for k in tab.keys():
        v = tab[k]
        size += v.codes.nbytes if hasattr(v, "codes") else v.nbytes
    print("events", len(tab))
    print("columns", len(names) + 3)
    print("table_s %.3f" % tt)
    print("table_ev_per_s %.0f" % (len(tab) / tt))
    print("arrays_MiB %.1f" % (size / 1048576))
    print("maxrss_growth_MiB %.1f" % ((rss1 - rss0) / 1024))


def loop(log, calls):
    t0 = time.perf_counter_ns()
    for i in range(calls):
        log.info("frame %d late by %d us", i, 250)
    return (time.perf_counter_ns() - t0) / calls


def cmd_log(which, calls=200000, runs=5):
    calls, runs = int(calls), int(runs)
    root = logging.getLogger()
    log = logging.getLogger("bench")
    log.setLevel(logging.INFO)
    if which == "lowtrace":
        import lowtrace.logging
        h = lowtrace.logging.Handler()
        recording = lowtrace.logging.enabled()
    elif which == "lttngust":
        import lttngust  # noqa: F401 (registers with the session daemon)
        # the agent adds its handler to the root logger when a session
        # enables a Python event
        for _ in range(100):
            hs = [x for x in root.handlers if "lttngust" in type(x).__module__]
            if hs:
                break
            time.sleep(0.05)
        if not hs:
            raise SystemExit("lttngust: no handler on the root logger")
        h = hs[0]
        recording = True
    else:
        raise SystemExit("handler: lowtrace or lttngust")
    base, withh, added = [], [], []
    for _ in range(runs):
        # side by side: the same calls without, then with, the handler,
        # and again without (the load of the machine drifts)
        root.handlers = []
        b0 = loop(log, calls)
        root.handlers = [h]
        w = loop(log, calls)
        root.handlers = []
        b1 = loop(log, calls)
        base.append((b0 + b1) / 2)
        withh.append(w)
        added.append(w - (b0 + b1) / 2)
    # the handler's own call, as Logger.callHandlers() makes it, on one
    # record: less disturbed by the machine's load than the difference
    rec = log.makeRecord("bench", logging.INFO, __file__, 1,
                         "frame %d late by %d us", (1, 250), None,
                         func="bench")
    import timeit
    own = min(timeit.repeat(lambda: h.handle(rec), number=calls,
                            repeat=runs)) / calls * 1e9
    empty = min(timeit.repeat(lambda: None, number=calls,
                              repeat=runs)) / calls * 1e9
    print("recording", int(bool(recording)))
    print("handle_call_ns %.0f" % (own - empty))
    print("no_handler_ns %.0f" % statistics.median(base))
    print("handler_ns %.0f" % statistics.median(withh))
    print("added_ns %.0f" % statistics.median(added))


if __name__ == "__main__":
    cmds = {"read": cmd_read, "table": cmd_table, "log": cmd_log}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
