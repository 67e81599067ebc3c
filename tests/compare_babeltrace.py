#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compares babeltrace2's text output with `lowtrace view`'s, event by event.

usage: compare_babeltrace.py [--packet-fields A,B] BABELTRACE_OUTPUT LOWTRACE_OUTPUT

Both outputs are parsed: the time of day to the nanosecond, the trace's
host (hostname:procname:(vpid) of its env, as babeltrace2 prints it), the
event name, the CPU and every field value (integers, hex, enums with their
labels, floats, strings, arrays and sequences).  Events with the same timestamp may
come in either order (the two merges break ties differently); everything
else must agree.  Lines without a time (a trace without a clock) must come
in the same order.  Prints one line saying what was compared, or the first
difference, and exits non-zero on a difference.

babeltrace2 prints a packet context's fields but its sizes, times and
counters in braces first; lowtrace prints its cpu_id only ("cpu N", 0
when the stream has none).  A first struct whose fields are cpu_id and
pid, or the ones --packet-fields names (a comma list), is the packet
context, its other fields not compared.
"""
import re
import sys

# babeltrace2's line: the host when the trace's env names one, then the
# structs: the packet context's (cpu_id, lowtrace's pid), the contexts, the
# payload, each when the event has it
BT = re.compile(r"^(?:\[(\d\d:\d\d:\d\d\.\d{9})\] \((\+[0-9?.]+)\) )?(?:(\S+) )?(\S+): "
                r"(.*)$")
# the packet context's fields that babeltrace2 prints (--packet-fields)
PACKET_FIELDS = {"cpu_id", "pid"}
# lowtrace's: the host as babeltrace2's, then the CPU
LT = re.compile(r"^(?:\[(\d\d:\d\d:\d\d\.\d{9})\] \((\+[0-9?.]+)\) )?(?:(\S+) )?cpu (\d+) "
                r"(\S+): (.*)$")


class Parser:
    """babeltrace2's field notation: { a = 1, b = [ [0] = 2 ], ... }."""

    def __init__(self, text):
        self.s, self.i = text, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def eat(self, tok):
        self.ws()
        if not self.s.startswith(tok, self.i):
            raise ValueError("expected %r at %d in %r" % (tok, self.i, self.s))
        self.i += len(tok)

    def peek(self, tok):
        self.ws()
        return self.s.startswith(tok, self.i)

    def string(self):
        self.eat('"')
        out = []
        while self.s[self.i] != '"':
            c = self.s[self.i]
            if c == "\\":
                self.i += 1
                c = self.s[self.i]
                c = {"n": "\n", "t": "\t", "r": "\r"}.get(c, c)
            out.append(c)
            self.i += 1
        self.i += 1
        return "".join(out)

    def value(self):
        self.ws()
        if self.peek("{"):
            return self.struct()
        if self.peek("[ "):
            return self.array()
        if self.peek('"'):
            return ("str", self.string())
        if self.peek("("):
            self.eat("(")
            labels = []
            if self.peek("<unknown>"):
                self.eat("<unknown>")
            else:
                # one label or several: ( "A", "B" : container = 5 )
                labels.append(self.string())
                while self.peek(","):
                    self.eat(",")
                    labels.append(self.string())
            self.eat(":")
            self.eat("container =")
            c = self.value()
            self.eat(")")
            return ("enum", tuple(labels), c)
        m = re.compile(r"[-+0-9a-zA-Z.]+").match(self.s, self.i)
        if not m:
            raise ValueError("no value at %d in %r" % (self.i, self.s))
        self.i = m.end()
        t = m.group(0)
        if t.startswith("0x"):
            return ("int", int(t, 16))
        if t.startswith("0b"):
            # binary: every bit printed, compared as text
            return ("bin", t)
        if re.match(r"^-?0[0-7]+$", t):  # octal, as C prints base 8
            return ("int", int(t, 8))
        try:
            return ("int", int(t))
        except ValueError:
            return ("float", float(t))

    def struct(self):
        self.eat("{")
        out = []
        if self.peek("}"):
            self.eat("}")
            return ("struct", tuple(out))
        # a variant: "{ VALUE }", the option's value without its name
        self.ws()
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]* =").match(self.s, self.i)
        if not m:
            v = self.value()
            self.eat("}")
            return ("variant", v)
        while True:
            self.ws()
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(self.s, self.i)
            self.i = m.end()
            self.eat("=")
            out.append((m.group(0), self.value()))
            if self.peek(","):
                self.eat(",")
                continue
            self.eat("}")
            return ("struct", tuple(out))

    def array(self):
        self.eat("[")
        out = []
        if self.peek("]"):
            self.eat("]")
            return ("array", tuple(out))
        while True:
            self.eat("[")
            m = re.compile(r"\d+").match(self.s, self.i)
            self.i = m.end()
            self.eat("]")
            self.eat("=")
            out.append(self.value())
            if self.peek(","):
                self.eat(",")
                continue
            self.eat("]")
            return ("array", tuple(out))


def groups_of(text):
    """The structs of a line: contexts and payload (none for an event
    without either)."""
    p = Parser(text)
    p.ws()
    if p.i == len(p.s):
        return []
    groups = [p.value()]
    while p.peek(","):
        p.eat(",")
        groups.append(p.value())
    p.ws()
    if p.i != len(p.s):
        raise ValueError("trailing text in %r" % text)
    return groups


def packet_context(groups):
    """babeltrace2's line: (the packet context's cpu_id, the other
    structs); the packet context is the first struct when its fields are
    all packet context fields and there is another struct."""
    g = groups[0] if len(groups) > 1 else None
    if g and g[0] == "struct" and g[1] and all(n in PACKET_FIELDS for n, _ in g[1]):
        cpu = dict(g[1]).get("cpu_id", ("int", 0))[1]
        return cpu, groups[1:]
    return 0, groups


def fields(groups):
    """The payload, after the contexts' structs when there are some (their
    fields first, then a count of the structs)."""
    if not groups:
        return ("none",)
    v = groups[0]
    if len(groups) > 1:
        v = ("struct", sum((g[1] for g in groups), ()) +
             (("(structs)", ("int", len(groups))),))
    return v


def load(path, rx, bt):
    out = []
    for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        line = line.rstrip("\n")
        m = rx.match(line)
        if not m:
            sys.exit("compare: %s:%d: unexpected line: %s" % (path, n, line[:200]))
        try:
            if bt:
                t, d, host, name, f = m.groups()
                cpu, groups = packet_context(groups_of(f))
            else:
                t, d, host, cpu, name, f = m.groups()
                groups = groups_of(f)
        except ValueError as e:
            sys.exit("compare: %s:%d: %s" % (path, n, e))
        # the host is compared with the name: "HOST NAME"; a line without
        # time (a trace without a clock) is compared in its place
        if t is None:
            t = "#%09d" % len(out)
        out.append((t, d, "%s %s" % (host or "", name), int(cpu), fields(groups), n))
    return out


def same(bt, lt):
    """Values equal, but for babeltrace2 2.0.4's empty strings: it prints
    an empty string field as the string printed before it."""
    if bt == lt:
        return True
    if lt == ("str", "") and bt[0] == "str":
        return True
    if bt[0] != lt[0] or len(bt) != len(lt):
        return False
    if bt[0] in ("struct",):
        return all(x[0] == y[0] and same(x[1], y[1]) for x, y in zip(bt[1], lt[1])) \
            and len(bt[1]) == len(lt[1])
    if bt[0] == "variant":
        return same(bt[1], lt[1])
    if bt[0] == "array":
        return len(bt[1]) == len(lt[1]) and all(same(x, y) for x, y in zip(bt[1], lt[1]))
    return False


def relaxed_equal(a, b):
    """Runs of one timestamp equal but for babeltrace2's empty strings."""
    if len(a) != len(b):
        return False
    ka = sorted(a, key=lambda e: (e[0], e[2], e[3]))
    kb = sorted(b, key=lambda e: (e[0], e[2], e[3]))
    return all(x[0] == y[0] and x[2] == y[2] and x[3] == y[3] and same(x[4], y[4])
               for x, y in zip(ka, kb))


def groups(events):
    """Runs of events with the same time, each sorted for comparison."""
    out, cur = [], []
    for e in events:
        if cur and cur[0][0] != e[0]:
            out.append(cur)
            cur = []
        cur.append(e)
    if cur:
        out.append(cur)
    return out


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--packet-fields":
        PACKET_FIELDS.update(args[1].split(","))
        args = args[2:]
    if len(args) != 2:
        sys.exit("usage: compare_babeltrace.py [--packet-fields A,B] BT_OUTPUT LT_OUTPUT")
    bt = load(args[0], BT, True)
    lt = load(args[1], LT, False)
    if len(bt) != len(lt):
        print("FAIL compare: babeltrace2 has %d events, lowtrace %d" % (len(bt), len(lt)))
        sys.exit(1)
    gb, gl = groups(bt), groups(lt)
    if len(gb) != len(gl):
        print("FAIL compare: the timestamps differ (%d vs %d distinct)" % (len(gb), len(gl)))
        sys.exit(1)
    nfields = 0
    for a, b in zip(gb, gl):
        ka = sorted((e[0], e[2], e[3], repr(e[4])) for e in a)
        kb = sorted((e[0], e[2], e[3], repr(e[4])) for e in b)
        if ka != kb and not relaxed_equal(a, b):
            print("FAIL compare: babeltrace2 line %d differs from lowtrace line %d" % (a[0][5], b[0][5]))
            print("  babeltrace2: %s" % (ka,))
            print("  lowtrace:    %s" % (kb,))
            sys.exit(1)
        for e in a:
            nfields += len(e[4][1]) if e[4][0] == "struct" else 0
    # the deltas are between consecutive events: compare them in order
    for a, b in zip(bt, lt):
        if a[1] != b[1] and a[0] == b[0]:
            print("FAIL compare: delta %s vs %s at babeltrace2 line %d" % (a[1], b[1], a[5]))
            sys.exit(1)
    print("compared %d events, %d fields, %d timestamps: same" % (len(bt), nfields, len(gb)))


if __name__ == "__main__":
    main()
