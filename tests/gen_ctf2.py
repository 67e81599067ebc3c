#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes CTF 2 traces: the CTF 2 twin of each trace tests/gen_ctf.py
writes, and a trace of the field classes CTF 1.8 lacks, for
tests/test_ctf2.sh.

usage: gen_ctf2.py OUT_DIR [gen_ctf.py's options]
       gen_ctf2.py OUT_DIR --from CTF18_DIR
       gen_ctf2.py OUT_DIR --fields

The first form runs gen_ctf.py into OUT_DIR/ctf-1.8 and writes
OUT_DIR/ctf2: the same stream files beside a CTF 2 metadata stream (a
JSON text sequence, RFC 7464; packetized, as version 2.0 packets, when
the CTF 1.8 one is) that says what the TSDL says.  Both traces hold the
same events.  The TSDL is read by a small parser of the grammar
gen_ctf.py writes (type aliases and typedefs, named structs and enums,
variants, arrays and sequences); a member's leading '_' is dropped, as
CTF 1.8 readers do.  Reserved member names become roles.  Every metadata
file under the output (a --session's kernel and UST traces) is
converted.  --from takes the CTF 1.8 trace (or tree of traces) in
CTF18_DIR instead of running gen_ctf.py (a trace lttng-tools recorded,
for bench/view.sh): OUT_DIR/ctf2 is its twin.

--fields writes OUT_DIR/ctf2 alone (gen_ctf2_fields.py): booleans, bit
arrays, bit maps, static- and dynamic-length BLOBs and strings, LEB128 integers and
enumerations (one the length of a dynamic-length array), optionals
selected by a boolean and by integer ranges, a variant selected by a
signed integer's ranges, CTF 2.0's enumerations (integers with
mappings), field class aliases, header members found by their roles
under names of their own, a clock with an origin; and
OUT_DIR/expected.txt, each event's name and payload as `lowtrace view`
should print them (babeltrace2's notation; a BLOB as its length and its
bytes in hex).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RS = "\x1e"

# Reserved CTF 1.8 member names and the CTF 2 role they stand for, by scope.
ROLES = {
    "packet-header": {
        "magic": "packet-magic-number",
        "uuid": "metadata-stream-uuid",
        "stream_id": "data-stream-class-id",
        "stream_instance_id": "data-stream-id",
    },
    "packet-context": {
        "timestamp_begin": "default-clock-timestamp",
        "timestamp_end": "packet-end-default-clock-timestamp",
        "content_size": "packet-content-length",
        "packet_size": "packet-total-length",
        "events_discarded": "discarded-event-record-counter-snapshot",
        "packet_seq_num": "packet-sequence-number",
    },
    "event-header": {
        "id": "event-record-class-id",
        "timestamp": "default-clock-timestamp",
    },
}

LOG_LEVELS = ["emergency", "alert", "critical", "error", "warning", "notice",
              "info", "debug:system", "debug:program", "debug:process",
              "debug:module", "debug:unit", "debug:function", "debug:line",
              "debug"]

TOKEN = re.compile(r"\s+|/\*.*?\*/|//[^\n]*|(?P<s>\"(?:[^\"\\]|\\.)*\")|"
                   r"(?P<n>-?0[xX][0-9a-fA-F]+|-?\d+)|(?P<i>[A-Za-z_]\w*)|"
                   r"(?P<p>:=|\.\.\.|[{}\[\]()<>;=,:.*+-])", re.S)


def tokens(text):
    pos, out = 0, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise SystemExit(f"gen_ctf2: TSDL: cannot read {text[pos:pos+20]!r}")
        pos = m.end()
        if m.group("s"):
            out.append(("s", m.group("s")[1:-1]))
        elif m.group("n"):
            out.append(("n", int(m.group("n"), 0)))
        elif m.group("i"):
            out.append(("i", m.group("i")))
        elif m.group("p"):
            out.append(("p", m.group("p")))
    out.append(("eof", None))
    return out


def strip(name):
    """A member name as a CTF 1.8 reader keeps it."""
    return name[1:] if name.startswith("_") and len(name) > 1 else name


class Tsdl:
    """The TSDL gen_ctf.py writes, parsed into dicts: types are
    {"k": "int"|"float"|"string"|"enum"|"struct"|"variant"|"array"|"seq"}."""

    def __init__(self, text):
        self.t = tokens(text)
        self.i = 0
        self.names = {}
        self.trace, self.env, self.clocks = {}, {}, []
        self.streams, self.events = [], []
        while self.peek()[0] != "eof":
            self.top()

    def peek(self, k=0):
        return self.t[self.i + k]

    def next(self):
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, p):
        tok = self.next()
        if tok != ("p", p):
            raise SystemExit(f"gen_ctf2: TSDL: expected {p!r}, got {tok!r}")

    def ident(self):
        tok = self.next()
        if tok[0] != "i":
            raise SystemExit(f"gen_ctf2: TSDL: expected a name, got {tok!r}")
        return tok[1]

    def dotted(self):
        parts = [self.ident()]
        while self.peek() == ("p", "."):
            self.next()
            parts.append(self.ident())
        return ".".join(parts)

    def value(self):
        tok = self.next()
        if tok[0] == "i":
            v = tok[1]
            while self.peek() == ("p", "."):
                self.next()
                v += "." + self.ident()
            return v
        return tok[1]

    def top(self):
        kw = self.peek()[1]
        if kw in ("typealias", "typedef"):
            self.type_decl()
        elif kw in ("trace", "env", "clock", "stream", "event", "callsite"):
            self.next()
            self.block(kw)
        else:
            self.type()
            self.expect(";")

    def type_decl(self):
        alias = self.next()[1] == "typealias"
        t = self.type()
        if alias:
            self.expect(":=")
        words = []
        while self.peek()[0] == "i":
            words.append(self.next()[1])
        self.expect(";")
        self.names[" ".join(words)] = t

    def attrs(self, t):
        self.expect("{")
        while self.peek() != ("p", "}"):
            k = self.ident()
            self.expect("=")
            t[k] = self.value()
            self.expect(";")
        self.next()

    def type(self):
        kw = self.peek()[1]
        if kw == "integer":
            self.next()
            t = {"k": "int"}
            self.attrs(t)
            return t
        if kw == "floating_point":
            self.next()
            t = {"k": "float"}
            self.attrs(t)
            return t
        if kw == "string":
            self.next()
            t = {"k": "string"}
            if self.peek() == ("p", "{"):
                self.attrs(t)
            return t
        if kw == "enum":
            self.next()
            name = None
            if self.peek()[0] == "i":
                name = "enum " + self.next()[1]
                if self.peek() not in (("p", ":"), ("p", "{")):
                    return self.names[name]
            cont = self.names.get("int")
            if self.peek() == ("p", ":"):
                self.next()
                cont = self.type()
            t = {"k": "enum", "cont": cont, "map": []}
            self.expect("{")
            cur = 0
            while self.peek() != ("p", "}"):
                label = self.next()[1]
                lo = hi = cur
                if self.peek() == ("p", "="):
                    self.next()
                    lo = hi = self.next()[1]
                    if self.peek() == ("p", "..."):
                        self.next()
                        hi = self.next()[1]
                t["map"].append((label, lo, hi))
                cur = hi + 1
                if self.peek() == ("p", ","):
                    self.next()
            self.next()
            if name:
                self.names[name] = t
            return t
        if kw in ("struct", "variant"):
            self.next()
            name = tag = None
            if self.peek()[0] == "i":
                name = kw + " " + self.next()[1]
            if kw == "variant" and self.peek() == ("p", "<"):
                self.next()
                tag = self.dotted()
                self.expect(">")
            if name and self.peek() != ("p", "{"):
                t = self.names[name]
                return dict(t, tag=tag) if tag else t
            t = {"k": kw, "tag": tag, "fields": [], "align": 1}
            self.expect("{")
            while self.peek() != ("p", "}"):
                if self.peek()[1] in ("typealias", "typedef"):
                    self.type_decl()
                    continue
                ft = self.type()
                fname = self.ident()
                dims = []
                while self.peek() == ("p", "["):
                    self.next()
                    if self.peek()[0] == "n":
                        dims.append(("array", self.next()[1]))
                    else:
                        dims.append(("seq", self.dotted()))
                    self.expect("]")
                for kind, n in reversed(dims):
                    ft = {"k": kind, "elem": ft, "len": n}
                self.expect(";")
                t["fields"].append((strip(fname), ft))
            self.next()
            if kw == "struct" and self.peek() == ("i", "align"):
                self.next()
                self.expect("(")
                t["align"] = self.next()[1]
                self.expect(")")
            if name:
                self.names[name] = t
            return t
        for n in (3, 2, 1):
            words = [self.peek(k) for k in range(n)]
            name = " ".join(str(w[1]) for w in words)
            if all(w[0] == "i" for w in words) and name in self.names:
                self.i += n
                return self.names[name]
        raise SystemExit(f"gen_ctf2: TSDL: unknown type at {self.peek()!r}")

    def block(self, kw):
        obj = {}
        self.expect("{")
        while self.peek() != ("p", "}"):
            lhs = self.dotted()
            if self.peek() == ("p", ":="):
                self.next()
                obj[lhs] = self.type()
            else:
                self.expect("=")
                obj[lhs] = self.value()
            self.expect(";")
        self.next()
        self.expect(";")
        if kw == "trace":
            self.trace = obj
        elif kw == "env":
            self.env = obj
        elif kw == "clock":
            self.clocks.append(obj)
        elif kw == "stream":
            self.streams.append(obj)
        elif kw == "event":
            self.events.append(obj)


class Conv:
    """TSDL types as CTF 2 field classes."""

    def __init__(self, tsdl):
        self.bo = ("big-endian" if tsdl.trace.get("byte_order") == "be"
                   else "little-endian")
        self.clock = None  # the clock a stream class's integers map to

    def int_fc(self, t, roles=None, signed_key="signed"):
        size = t["size"]
        signed = str(t.get(signed_key, "false")) in ("true", "1")
        align = t.get("align", 1 if size % 8 else 8)
        bo = t.get("byte_order")
        fc = {"type": "fixed-length-%s-integer" % ("signed" if signed else
                                                   "unsigned"),
              "length": size,
              "byte-order": ("big-endian" if bo in ("be", "network")
                             else "little-endian" if bo == "le" else self.bo),
              "alignment": align}
        base = {"x": 16, "X": 16, "hex": 16, "16": 16, 16: 16, "o": 8,
                8: 8, "b": 2, 2: 2}.get(t.get("base"))
        if base:
            fc["preferred-display-base"] = base
        if "map" in t:
            self.clock = t["map"].split(".")[1]
        if roles:
            fc["roles"] = roles
        return fc

    def fc(self, t, scope=None, name=None):
        roles = [ROLES[scope][name]] if scope in ROLES and \
            name in ROLES[scope] else None
        k = t["k"]
        if k == "int":
            return self.int_fc(t, roles)
        if k == "enum":
            fc = self.int_fc(t["cont"], roles)
            maps = {}
            for label, lo, hi in t["map"]:
                maps.setdefault(label, []).append([lo, hi])
            fc["mappings"] = maps
            return fc
        if k == "float":
            return {"type": "fixed-length-floating-point-number",
                    "length": 32 if t["mant_dig"] == 24 else 64,
                    "byte-order": self.bo,
                    "alignment": t.get("align", 8)}
        if k == "string":
            return {"type": "null-terminated-string"}
        if k in ("array", "seq"):
            e = t["elem"]
            text = e["k"] == "int" and e["size"] == 8 and \
                e.get("encoding", "none") not in ("none", "NONE")
            if k == "array":
                fc = {"type": "static-length-string" if text else
                      "static-length-array", "length": t["len"]}
            else:
                fc = {"type": "dynamic-length-string" if text else
                      "dynamic-length-array",
                      "length-field-location": location(t["len"])}
            if scope == "packet-header" and name == "uuid" and not text:
                return {"type": "static-length-blob", "length": 16,
                        "roles": ["metadata-stream-uuid"]}
            if not text:
                fc["element-field-class"] = self.fc(e)
            return fc
        if k == "struct":
            fc = {"type": "structure", "member-classes": [
                {"name": n, "field-class": self.fc(ft, scope, n)}
                for n, ft in t["fields"]]}
            if t["align"] > 1:
                fc["minimum-alignment"] = t["align"]
            return fc
        if k == "variant":
            tag = self.find_enum(t["tag"])
            opts = []
            for n, ft in t["fields"]:
                ranges = [[lo, hi] for label, lo, hi in tag["map"]
                          if label == n]
                opts.append({"name": n, "field-class": self.fc(ft, scope),
                             "selector-field-ranges": ranges})
            return {"type": "variant", "options": opts,
                    "selector-field-location": location(t["tag"])}
        raise SystemExit(f"gen_ctf2: no CTF 2 form for {k}")

    def find_enum(self, ref):
        """The enum a variant's tag names: the last enum member of that
        name seen in the scope being converted."""
        name = strip(ref.split(".")[-1])
        for n, t in reversed(self.members):
            if n == name and t["k"] == "enum":
                return t
        raise SystemExit(f"gen_ctf2: tag {ref} is no enum")

    def root(self, t, scope=None):
        self.members = []
        collect(t, self.members)
        return self.fc(t, scope)


def collect(t, out):
    for n, ft in t.get("fields", []):
        out.append((n, ft))
        collect(ft, out)
    if t.get("elem"):
        collect(t["elem"], out)


def location(ref):
    origins = [("stream.event.context.", "event-record-common-context"),
               ("stream.event.header.", "event-record-header"),
               ("stream.packet.context.", "packet-context"),
               ("event.context.", "event-record-specific-context"),
               ("event.fields.", "event-record-payload")]
    for pre, origin in origins:
        if ref.startswith(pre):
            return {"origin": origin,
                    "path": [strip(p) for p in ref[len(pre):].split(".")]}
    return {"path": [strip(p) for p in ref.split(".")]}


def uuid_bytes(s):
    h = s.replace("-", "")
    return [int(h[i:i + 2], 16) for i in range(0, 32, 2)]


def ctf2_metadata(text):
    """The CTF 2 fragments saying what TSDL text says."""
    ts = Tsdl(text)
    cv = Conv(ts)
    frags = [{"type": "preamble", "version": 2}]
    if "uuid" in ts.trace:
        frags[0]["uuid"] = uuid_bytes(ts.trace["uuid"])
    tc = {"type": "trace-class"}
    if "packet.header" in ts.trace:
        tc["packet-header-field-class"] = cv.root(ts.trace["packet.header"],
                                                  "packet-header")
    if ts.env:
        tc["environment"] = ts.env
    frags.append(tc)
    for c in ts.clocks:
        cc = {"type": "clock-class", "id": c["name"], "name": c["name"],
              "frequency": c.get("freq", 1000000000),
              "offset-from-origin": {"seconds": c.get("offset_s", 0),
                                     "cycles": c.get("offset", 0)}}
        if c.get("absolute") in ("true", 1):
            cc["origin"] = "unix-epoch"
        if "precision" in c:
            cc["precision"] = c["precision"]
        if "description" in c:
            cc["description"] = c["description"]
        frags.append(cc)
    for s in ts.streams:
        cv.clock = None
        d = {"type": "data-stream-class", "id": s.get("id", 0)}
        for key, prop, scope in (
                ("packet.context", "packet-context-field-class",
                 "packet-context"),
                ("event.header", "event-record-header-field-class",
                 "event-header"),
                ("event.context", "event-record-common-context-field-class",
                 None)):
            if key in s:
                d[prop] = cv.root(s[key], scope)
        if cv.clock:
            d["default-clock-class-id"] = cv.clock
        frags.append(d)
    for e in ts.events:
        f = {"type": "event-record-class", "id": e.get("id", 0),
             "data-stream-class-id": e.get("stream_id", 0),
             "name": e.get("name", "")}
        if "loglevel" in e:
            f["attributes"] = {"babeltrace.org,2020": {
                "log-level": LOG_LEVELS[e["loglevel"]]}}
        if "context" in e:
            f["specific-context-field-class"] = cv.root(e["context"])
        if "fields" in e:
            f["payload-field-class"] = cv.root(e["fields"])
        frags.append(f)
    return "".join(RS + json.dumps(f, indent=1) + "\n" for f in frags)


def packetize(text, be, chunk=700):
    """Metadata packets of version 2.0 (CTF 1.8's packet header)."""
    data = text.encode()
    out = bytearray()
    e = ">" if be else "<"
    for i in range(0, len(data), chunk):
        part = data[i:i + chunk]
        size = 37 + len(part)
        out += struct.pack(e + "I16sIIIBBBBB", 0x75D11D57, bytes(16), 0,
                           8 * size, 8 * size, 0, 0, 0, 2, 0) + part
    return bytes(out)


def twin(out, args, src=None):
    dst = os.path.join(out, "ctf2")
    shutil.rmtree(dst, ignore_errors=True)
    if src is None:
        src = os.path.join(out, "ctf-1.8")
        shutil.rmtree(src, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_ctf.py"),
                        src] + args, check=True, stdout=subprocess.DEVNULL)
    shutil.copytree(src, dst)
    for root, _, files in os.walk(dst):
        if "metadata" not in files:
            continue
        path = os.path.join(root, "metadata")
        raw = open(path, "rb").read()
        packed = raw[:4] in (b"\x57\x1d\xd1\x75", b"\x75\xd1\x1d\x57")
        if packed:
            be = raw[0] == 0x75
            text, off = b"", 0
            while off < len(raw):
                e = ">" if be else "<"
                content, size = struct.unpack(e + "II", raw[off + 24:off + 32])
                text += raw[off + 37:off + content // 8]
                off += size // 8
            text = text.decode()
        else:
            text = raw.decode()
        meta = ctf2_metadata(text)
        with open(path, "wb") as fp:
            fp.write(packetize(meta, be) if packed else meta.encode())


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    if sys.argv[2:] == ["--fields"]:
        sys.path.insert(0, HERE)
        import gen_ctf2_fields
        gen_ctf2_fields.write(sys.argv[1])
    elif sys.argv[2:3] == ["--from"] and len(sys.argv) == 4:
        twin(sys.argv[1], [], sys.argv[3])
    else:
        twin(sys.argv[1], sys.argv[2:])
