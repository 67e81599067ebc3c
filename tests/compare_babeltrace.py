#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compares babeltrace2's text output with `lowtrace view`'s, event by event.

usage: compare_babeltrace.py BABELTRACE_OUTPUT LOWTRACE_OUTPUT

Both outputs are parsed: the time of day to the nanosecond, the trace's
host (hostname:procname:(vpid) of its env, as babeltrace2 prints it), the
event name, the CPU and every field value (integers, hex, enums with their
labels, floats, strings, arrays and sequences).  Events with the same timestamp may
come in either order (the two merges break ties differently); everything
else must agree.  Prints one line saying what was compared, or the first
difference, and exits non-zero on a difference.
"""
import re
import sys

# babeltrace2's line: the host when the trace's env names one, then the
# packet context: cpu_id (in its type's base: DPDK's is hex), then the
# packet context's other fields, which `lowtrace view` does not print
# (lowtrace's pid, DPDK's thread name)
BT = re.compile(r"^\[(\d\d:\d\d:\d\d\.\d{9})\] \((\+[0-9?.]+)\) (?:(\S+) )?(\S+): "
                r"\{ cpu_id = (0x[0-9A-Fa-f]+|\d+)(?:, pid = (\d+))?"
                r"(?:, \w+ = (?:\"(?:[^\"\\\\]|\\\\.)*\"|[-+.\w]+))* \}, (\{.*\})$")
# lowtrace's: the host as babeltrace2's, then the CPU
LT = re.compile(r"^\[(\d\d:\d\d:\d\d\.\d{9})\] \((\+[0-9?.]+)\) (?:(\S+) )?cpu (\d+) (\S+): "
                r"(\{.*\})$")


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
            elif self.peek("{"):
                self.eat("{")
                labels.append(self.string())
                while self.peek(","):
                    self.eat(",")
                    labels.append(self.string())
                self.eat("}")
            else:
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


def fields(text):
    """The payload, after the contexts' structs when there are some (their
    fields first, then a count of the structs)."""
    p = Parser(text)
    v = p.value()
    groups = [v]
    while p.peek(","):
        p.eat(",")
        groups.append(p.value())
    if len(groups) > 1:
        v = ("struct", sum((g[1] for g in groups), ()) +
             (("(structs)", ("int", len(groups))),))
    p.ws()
    if p.i != len(p.s):
        raise ValueError("trailing text in %r" % text)
    return v


def load(path, rx, bt):
    out = []
    for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        line = line.rstrip("\n")
        m = rx.match(line)
        if not m:
            sys.exit("compare: %s:%d: unexpected line: %s" % (path, n, line[:200]))
        if bt:
            t, d, host, name, cpu, _pid, f = m.groups()
        else:
            t, d, host, cpu, name, f = m.groups()
        # the host is compared with the name: "HOST NAME"
        out.append((t, d, "%s %s" % (host or "", name), int(cpu, 0), fields(f), n))
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
    bt = load(sys.argv[1], BT, True)
    lt = load(sys.argv[2], LT, False)
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
            nfields += len(e[4][1])
    # the deltas are between consecutive events: compare them in order
    for a, b in zip(bt, lt):
        if a[1] != b[1] and a[0] == b[0]:
            print("FAIL compare: delta %s vs %s at babeltrace2 line %d" % (a[1], b[1], a[5]))
            sys.exit(1)
    print("compared %d events, %d fields, %d timestamps: same" % (len(bt), nfields, len(gb)))


if __name__ == "__main__":
    main()
