#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_analysis_json.py - checks one `lowtrace analyze VERB --json`
document against docs/analysis.schema.json and against the text the same
analysis printed without --json: each figure the text shows must be the
document's, to the text's precision.

usage: check_analysis_json.py SCHEMA DOC.json TEXT.txt

The schema is checked by the small validator below (the standard library
has none): the subset the schema uses, $ref into $defs, oneOf, type,
const, enum, properties, required, additionalProperties false, items and
minimum.  Prints what it compared; exits 1 with the first difference.
"""
import json
import re
import sys


class Bad(Exception):
    pass


def validate(v, sch, root, path="$"):
    if "$ref" in sch:
        name = sch["$ref"].rsplit("/", 1)[1]
        return validate(v, root["$defs"][name], root, path)
    if "oneOf" in sch:
        ok = []
        for i, s in enumerate(sch["oneOf"]):
            try:
                validate(v, s, root, path)
                ok.append(i)
            except Bad:
                pass
        if len(ok) != 1:
            # say why the one named by "analysis" failed, if any
            for s in sch["oneOf"]:
                d = root["$defs"].get(s.get("$ref", "").rsplit("/", 1)[-1], {})
                want = d.get("properties", {}).get("analysis", {}).get("const")
                if isinstance(v, dict) and want is not None and v.get("analysis") == want:
                    validate(v, s, root, path)
            raise Bad(f"{path}: matches {len(ok)} of oneOf")
    if "const" in sch and v != sch["const"]:
        raise Bad(f"{path}: {v!r} is not {sch['const']!r}")
    if "enum" in sch and v not in sch["enum"]:
        raise Bad(f"{path}: {v!r} not in {sch['enum']}")
    if "type" in sch:
        types = sch["type"] if isinstance(sch["type"], list) else [sch["type"]]
        if not any(is_type(v, t) for t in types):
            raise Bad(f"{path}: {v!r} is not {types}")
    if "minimum" in sch and is_type(v, "number") and v < sch["minimum"]:
        raise Bad(f"{path}: {v} < {sch['minimum']}")
    if isinstance(v, dict) and "properties" in sch:
        for k in sch.get("required", []):
            if k not in v:
                raise Bad(f"{path}: no {k}")
        for k, x in v.items():
            if k in sch["properties"]:
                validate(x, sch["properties"][k], root, f"{path}.{k}")
            elif sch.get("additionalProperties") is False:
                raise Bad(f"{path}: {k} is not in the schema")
    if isinstance(v, list) and "items" in sch:
        for i, x in enumerate(v):
            validate(x, sch["items"], root, f"{path}[{i}]")


def is_type(v, t):
    return {
        "null": v is None,
        "boolean": isinstance(v, bool),
        "integer": isinstance(v, int) and not isinstance(v, bool),
        "number": isinstance(v, (int, float)) and not isinstance(v, bool),
        "string": isinstance(v, str),
        "array": isinstance(v, list),
        "object": isinstance(v, dict),
    }[t]


compared = 0


def same(what, text, value, scale=1.0):
    """text: a figure as printed; value: the document's, times scale."""
    global compared
    compared += 1
    if isinstance(text, str) and re.fullmatch(r"[-+]?\d+(\.\d+)?", text):
        dec = len(text.split(".")[1]) if "." in text else 0
        got = value * scale
        if abs(got - float(text)) > 0.5 * 10**-dec + 1e-9 * max(1.0, abs(got)):
            raise Bad(f"{what}: text {text}, JSON {value} (x{scale})")
        return
    if str(text) != str(value):
        raise Bad(f"{what}: text {text!r}, JSON {value!r}")


def rows_after(lines, title_re):
    """The lines after the one matching title_re and its column titles,
    up to a blank line."""
    for i, l in enumerate(lines):
        if re.match(title_re, l):
            out = []
            for r in lines[i + 2:]:
                if not r.strip():
                    break
                out.append(r)
            return l, out
    raise Bad(f"no line like {title_re!r} in the text")


def check_sched(d, lines):
    head, rows = rows_after(lines, r"wake-up to run latency")
    m = re.match(r"wake-up to run latency, (\d+) threads woken; the (\d+) worst", head)
    same("threads woken", m.group(1), d["threads_woken"])
    same("threads shown", m.group(2), len(d["threads"]))
    rows = [r for r in rows if not r.startswith("(")]
    same("rows", len(rows), len(d["threads"]))
    for r, t in zip(rows, d["threads"]):
        f = r.split()
        same("tid", f[0], t["tid"])
        same("comm", " ".join(f[1:-9]), t["comm"])
        same("wakeups", f[-9], t["wakeups"])
        same("mean_us", f[-8], t["mean_ns"], 1e-3)
        same("max_us", f[-7], t["max_ns"], 1e-3)
        same("max_at_s", f[-6], t["max_at_ns"], 1e-9)
        for k in range(5):
            same("hist", f[-5 + k], t["hist"][k])


def check_cpu(d, lines):
    head, rows = rows_after(lines, r"CPU time over")
    m = re.match(r"CPU time over ([\d.]+) s .*, (\d+) CPUs, (\d+) threads ran; the (\d+) busiest", head)
    same("span", m.group(1), d["span_ns"], 1e-9)
    same("cpus", m.group(2), d["cpus_seen"])
    same("threads ran", m.group(3), d["threads_ran"])
    same("threads shown", m.group(4), len(d["threads"]))
    same("rows", len(rows), len(d["threads"]))
    for r, t in zip(rows, d["threads"]):
        m = re.match(r"\s*(-?\d+) (.+?) +(-?\d+) +([\d.]+) +([\d.]+) +(\d+)  (.*)$", r)
        same("tid", m.group(1), t["tid"])
        same("comm", m.group(2).strip(), t["comm"])
        same("pid", m.group(3), t["pid"])
        same("cpu_ms", m.group(4), t["cpu_ns"], 1e-6)
        same("%span", m.group(5), t["span_pct"])
        same("slices", m.group(6), t["slices"])
        by = re.findall(r"cpu(\d+) ([\d.]+)", m.group(7))
        for (c, ms), b in zip(by, t["by_cpu"]):
            same("by cpu", c, b["cpu"])
            same("by cpu ms", ms, b["ns"], 1e-6)
        more = re.search(r"\.\.\. \((\d+) CPUs\)", m.group(7))
        same("cpus ran on", more.group(1) if more else len(by), len(t["by_cpu"]))
    _, rows = rows_after(lines, r"per CPU \(unknown")
    same("cpu rows", len(rows), len(d["cpus"]))
    for r, c in zip(rows, d["cpus"]):
        f = r.split()
        keys = ["cpu", "busy_ns", "busy_pct", "idle_ns", "idle_pct", "unknown_ns", "irq_ns", "softirq_ns", "slices"]
        for k, x in zip(keys, f):
            same(k, x, c[k], 1e-6 if k.endswith("_ns") else 1.0)
        busiest = re.findall(r"(-?\d+) (\S.*?) ([\d.]+)(?:, |$)", " ".join(f[9:]))
        same("busiest", len(busiest), len(c["busiest"]))
        for (tid, comm, ms), b in zip(busiest, c["busiest"]):
            same("busiest tid", tid, b["tid"])
            same("busiest comm", comm, b["comm"])
            same("busiest ms", ms, b["ns"], 1e-6)


def check_hist(what, f, hist):
    for k in range(8):
        same(what + " hist", f[-8 + k], hist[k])


def check_syscalls(d, lines):
    head, rows = rows_after(lines, r"system calls over")
    m = re.match(r"system calls over ([\d.]+) s: (\d+) timed calls by (\d+) threads, (\d+) unfinished; the (\d+) syscalls of (\d+)", head)
    for g, k, sc in [(1, "span_ns", 1e-9), (2, "timed_calls", 1), (3, "threads_with_calls", 1), (4, "unfinished", 1), (6, "syscalls_seen", 1)]:
        same(k, m.group(g), d[k], sc)
    same("syscalls shown", m.group(5), len(d["syscalls"]))
    same("rows", len(rows), len(d["syscalls"]))
    for r, s in zip(rows, d["syscalls"]):
        f = r.split()
        same("name", f[0], s["name"])
        same("calls", f[1], s["count"])
        same("unfin", f[2], s["unfinished"])
        same("total_ms", f[3], s["total_ns"], 1e-6)
        same("mean_us", f[4], s["mean_ns"], 1e-3)
        same("max_us", f[5], s["max_ns"], 1e-3)
        check_hist("syscall", f, s["hist"])
    head, rows = rows_after(lines, r"the \d+ slowest calls")
    same("slowest", len(rows), len(d["slowest"]))
    for r, s in zip(rows, d["slowest"]):
        f = r.split()
        same("duration_us", f[1], s["duration_ns"], 1e-3)
        same("name", f[2], s["name"])
        same("tid", f[3], s["tid"])
        same("comm", " ".join(f[4:-2]), s["comm"])
        same("cpu", f[-2], s["cpu"])
        same("at_s", f[-1], s["at_ns"], 1e-9)
    head, rows = rows_after(lines, r"the \d+ threads of \d+ with the most time")
    same("threads", len(rows), len(d["threads"]))
    for r, t in zip(rows, d["threads"]):
        f = r.split()
        same("tid", f[0], t["tid"])
        same("comm", " ".join(f[1:-5]), t["comm"])
        same("pid", f[-5], t["pid"])
        same("calls", f[-4], t["calls"])
        same("total_ms", f[-3], t["total_ns"], 1e-6)
        same("max_us", f[-2], t["max_ns"], 1e-3)
        same("slowest", f[-1], t["slowest"]["name"])
    un = [l for l in lines if l.startswith("unfinished: ")][0]
    m = re.match(r"unfinished: (\d+) calls .*, (\d+) still open at the end", un)
    same("unfinished exited", m.group(1), d["unfinished_exited"])
    same("open at end", m.group(2), d["open_at_end"])
    if d["open"]:
        _, rows = rows_after(lines, r"unfinished: ")
        same("open", len(rows) - 1, len(d["open"]))  # the skipped line
        for r, o in zip(rows, d["open"]):
            f = r.split()
            same("open name", f[0], o["name"])
            same("open tid", f[1], o["tid"])
            same("since_s", f[-2], o["since_ns"], 1e-9)
            same("open_ms", f[-1], o["open_ns"], 1e-6)
    sk = [l for l in lines if l.startswith("skipped: ")][0]
    n = re.findall(r"(\d+) ", sk)
    sk_json = d["skipped"]
    same("skipped", " ".join(n[:3]), " ".join(str(sk_json[k]) for k in ["exits_without_enter", "exits_of_another_syscall", "enters_while_open"]))


def check_irq(d, lines):
    head, rows = rows_after(lines, r"interrupts over")
    m = re.match(r"interrupts over ([\d.]+) s on (\d+) CPUs: (\d+) irq and (\d+) softirq handler runs, on (\d+) lines", head)
    for g, k, sc in [(1, "span_ns", 1e-9), (2, "cpus_seen", 1), (3, "irq_runs", 1), (4, "softirq_runs", 1), (5, "lines_seen", 1)]:
        same(k, m.group(g), d[k], sc)
    same("rows", len(rows), len(d["lines"]))
    for r, l in zip(rows, d["lines"]):
        f = r.split()
        same("kind", f[0], l["kind"])
        same("vec", f[1], l["vec"])
        same("name", " ".join(f[2:-13]), l["name"])
        same("count", f[-13], l["count"])
        same("total_ms", f[-12], l["total_ns"], 1e-6)
        same("mean_us", f[-11], l["mean_ns"], 1e-3)
        same("max_us", f[-10], l["max_ns"], 1e-3)
        same("%span", f[-9], l["span_pct"])
        check_hist("irq", f, l["hist"])
    _, rows = rows_after(lines, r"the \d+ longest:")
    rows = [r for r in rows if not r.startswith("skipped")]
    same("longest", len(rows), len(d["longest"]))
    for r, l in zip(rows, d["longest"]):
        f = r.split()
        same("duration_us", f[1], l["duration_ns"], 1e-3)
        same("kind", f[2], l["kind"])
        same("vec", f[3], l["vec"])
        k = len(l["comm"].split())
        same("comm", " ".join(f[-k:]), l["comm"])
        same("tid", f[-k - 1], l["tid"])
        same("at_s", f[-k - 2], l["at_ns"], 1e-9)
        same("cpu", f[-k - 3], l["cpu"])
    sk = [l for l in lines if l.startswith("skipped: ")][0]
    same("exits without entry", re.search(r"(\d+)", sk).group(1), d["exits_without_entry"])


def check_jitter(d, lines):
    m = re.match(r"(\d+) (\S+) events, (\d+) intervals, period ([\d.]+) ms: worst ([-\d.]+) ms late, mean lateness ([-\d.]+) ms", lines[0])
    same("events", m.group(1), d["events"])
    same("event", m.group(2), d["event"])
    same("intervals", m.group(3), d["intervals"])
    same("period", m.group(4), d["period_ns"], 1e-6)
    same("worst", m.group(5), d["worst_late_ns"], 1e-6)
    same("mean", m.group(6), d["mean_late_ns"], 1e-6)
    rows = lines[1:]
    same("expiries", len(rows), len(d["expiries"]))
    for r, e in zip(rows, d["expiries"]):
        m = re.match(r"#\d+ at \+([\d.]+) s tid (-?\d+) seq (-?\d+): ([-\d.]+) ms after the previous one, ([-\d.]+) ms late", r)
        for g, k, sc in [(1, "at_ns", 1e-9), (2, "tid", 1), (3, "seq", 1), (4, "interval_ns", 1e-6), (5, "late_ns", 1e-6)]:
            same(k, m.group(g), e[k], sc)


def who_text(w):
    if w is None:
        return "nobody"
    if w["kind"] == "unseen":
        return "a wake-up not in the trace (from idle)"
    if w["kind"] == "idle":
        return "idle (tid 0)"
    s = f"tid {w['tid']} {w['comm']}"
    return s + (f" (pid {w['pid']})" if w["pid"] else "")


def check_latency(d, lines):
    m = re.match(r"(?:the last of )?(\d+) (anchors|spans)", lines[0])
    same("matched", m.group(1), d["matched"])
    starts = [i for i, l in enumerate(lines) if re.match(r"#\d+ ", l)]
    same("explanations", len(starts), len(d["explanations"]))
    for n, (i, e) in enumerate(zip(starts, d["explanations"])):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        block = lines[i:end]
        m = re.match(r"#(\d+) (\S+) at \+([\d.]+) s, (.*?)(?:: (.*))?$", block[0])
        same("rank", m.group(1), e["rank"])
        same("event", m.group(2), e["event"])
        same("at", m.group(3), e["at_ns"], 1e-9)
        same("thread", m.group(4), who_text(e["thread"]))
        if e["kind"] == "span":
            same("duration", m.group(5).split()[0], e["duration_ns"], 1e-6)
        elif e["by"]:
            same("by", m.group(5), f"{e['by']} = {e['by_value']}")
        verdict = [l for l in block if l.startswith("   verdict: ")]
        same("verdict", verdict[0][len("   verdict: "):], e["verdict"]["text"])
        if not e["sched_events"]:
            continue
        p = e["parts"]
        r = [l for l in block if l.startswith("   runnable ")][0]
        same("runnable", r.split()[1], p["runnable_ns"], 1e-6)
        shares = re.findall(r"(?:: |, )(.+?) ([\d.]+) ms \((\d+)%\)", r)
        same("ran meanwhile", len(shares), min(5, len(e["ran_meanwhile"])) if p["runnable_ns"] and e["cpu"] >= 0 else 0)
        for (w, ms, pct), s in zip(shares, e["ran_meanwhile"]):
            same("meanwhile who", w, who_text(s["thread"]))
            same("meanwhile ms", ms, s["ns"], 1e-6)
            same("meanwhile pct", pct, s["pct"])
        b = [l for l in block if l.startswith("   blocked ")][0]
        same("blocked", b.split()[1], p["blocked_ns"], 1e-6)
        same("running", b.split("; running ")[1].split()[0], p["running_ns"], 1e-6)
        q = [l for l in block if l.startswith("   irq ")][0]
        m = re.match(r"   irq ([\d.]+) ms, softirq ([\d.]+) ms on CPU (-?\d+)", q)
        same("irq", m.group(1), p["irq_ns"], 1e-6)
        same("softirq", m.group(2), p["softirq_ns"], 1e-6)
        same("cpu", m.group(3), e["cpu"])
        mw = [l for l in block if l.startswith("   meanwhile ")]
        same("chain", len(mw), len(e["chain"]))
        for l, c in zip(mw, e["chain"]):
            same("chain thread", l[len("   meanwhile "):].split(" was running ")[0], who_text(c["thread"]))
            same("chain blocked", re.search(r"blocked ([\d.]+) ms", l).group(1), c["blocked_ns"], 1e-6)


def main():
    schema = json.load(open(sys.argv[1]))
    text = open(sys.argv[3]).read()
    try:
        doc = json.loads(open(sys.argv[2]).read())
        validate(doc, schema, schema)
        lines = text.rstrip("\n").split("\n")
        globals()["check_" + doc["analysis"]](doc, lines)
    except (Bad, ValueError, KeyError, IndexError, AttributeError, TypeError) as e:
        print(f"{sys.argv[2]}: {type(e).__name__}: {e}")
        return 1
    print(f"{doc['analysis']}: valid, {compared} figures as the text's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
