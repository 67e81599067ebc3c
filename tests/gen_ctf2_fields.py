# SPDX-License-Identifier: MIT
"""The CTF 2 trace of the field classes CTF 1.8 lacks, and the text
`lowtrace view` should print of its events (tests/gen_ctf2.py --fields
says what it holds).  The expected text is made here from the values
written, in babeltrace2's notation, not by reading the trace back."""
import json
import os
import shutil
import struct

RS = "\x1e"
# the bit map's flags, in order: bit index ranges
FLAGS = {"A": [[0, 0]], "B": [[1, 2]], "HIGH": [[7, 7]]}
UUID = bytes(range(0x10, 0x20))


def u(n, align=8, **kw):
    fc = {"type": "fixed-length-unsigned-integer", "length": n,
          "byte-order": "little-endian", "alignment": align}
    fc.update(kw)
    return fc


def loc(*path, origin="event-record-payload"):
    return {"origin": origin, "path": list(path)}


def member(name, fc):
    return {"name": name, "field-class": fc}


def struct_fc(*members, **kw):
    fc = {"type": "structure", "member-classes": list(members)}
    fc.update(kw)
    return fc


def metadata():
    bstr = {"type": "null-terminated-string"}
    frags = [
        {"type": "preamble", "version": 2, "uuid": list(UUID),
         "attributes": {"gen.example": {"unknown": True}}},
        {"type": "field-class-alias", "name": "u8", "field-class": u(8)},
        {"type": "field-class-alias", "name": "u64", "field-class": u(64)},
        {"type": "trace-class", "environment": {"hostname": "fieldhost",
                                                "tracer_major": 2},
         "packet-header-field-class": struct_fc(
             member("m", u(32, roles=["packet-magic-number"])),
             member("u", {"type": "static-length-blob", "length": 16,
                          "roles": ["metadata-stream-uuid"]}),
             member("sc", u(32, roles=["data-stream-class-id"])))},
        {"type": "clock-class", "id": "clk", "frequency": 1000000000,
         "origin": "unix-epoch", "precision": 2, "accuracy": 5,
         "offset-from-origin": {"seconds": 1764740000, "cycles": 500}},
        {"type": "data-stream-class", "default-clock-class-id": "clk",
         "packet-context-field-class": struct_fc(
             member("tb", u(64, roles=["default-clock-timestamp"])),
             member("te", u(64, roles=[
                 "packet-end-default-clock-timestamp"])),
             member("cs", u(64, roles=["packet-content-length"])),
             member("ps", u(64, roles=["packet-total-length"])),
             member("sq", u(64, roles=["packet-sequence-number"])),
             member("cpu_id", u(32))),
         "event-record-header-field-class": struct_fc(
             member("i", u(16, roles=["event-record-class-id"])),
             member("t", u(64, roles=["default-clock-timestamp"])))},
        {"type": "event-record-class", "id": 0, "name": "f:bool",
         "payload-field-class": struct_fc(
             member("b1", {"type": "fixed-length-boolean", "length": 8,
                           "byte-order": "little-endian", "alignment": 8}),
             member("b2", {"type": "fixed-length-boolean", "length": 1,
                           "byte-order": "little-endian"}),
             member("bits", {"type": "fixed-length-bit-array",
                             "length": 12, "byte-order": "little-endian"}),
             member("after", "u8"),
             member("fl", {"type": "fixed-length-bit-map", "length": 8,
                           "byte-order": "little-endian", "alignment": 8,
                           "flags": FLAGS}))},
        {"type": "event-record-class", "id": 1, "name": "f:blob",
         "payload-field-class": struct_fc(
             member("fixed", {"type": "static-length-blob", "length": 4,
                              "media-type": "application/octet-stream"}),
             member("n", "u8"),
             member("dyn", {"type": "dynamic-length-blob",
                            "length-field-location": loc("n")}),
             member("text", {"type": "dynamic-length-string",
                             "length-field-location": loc("n")}),
             member("six", {"type": "static-length-string", "length": 6}))},
        {"type": "event-record-class", "id": 2, "name": "f:vl",
         "payload-field-class": struct_fc(
             member("vu", {"type": "variable-length-unsigned-integer"}),
             member("vs", {"type": "variable-length-signed-integer"}),
             member("cnt", {"type": "variable-length-unsigned-integer"}),
             member("arr", {"type": "dynamic-length-array",
                            "length-field-location": loc("cnt"),
                            "element-field-class": u(16, 16)}),
             member("ve", {"type": "variable-length-unsigned-integer",
                           "mappings": {"LOW": [[0, 99]],
                                        "HIGH": [[100, 100000]]}}))},
        {"type": "event-record-class", "id": 3, "name": "f:opt",
         "payload-field-class": struct_fc(
             member("has", {"type": "fixed-length-boolean", "length": 8,
                            "byte-order": "little-endian",
                            "alignment": 8}),
             member("o1", {"type": "optional", "field-class": bstr,
                           "selector-field-location": loc("has")}),
             member("sel", "u8"),
             member("o2", {"type": "optional", "field-class": u(32),
                           "selector-field-location": {"path": ["sel"]},
                           "selector-field-ranges": [[1, 5]]}))},
        {"type": "event-record-class", "id": 4, "name": "f:var",
         "payload-field-class": struct_fc(
             member("k", {"type": "fixed-length-signed-integer",
                          "length": 8, "byte-order": "little-endian",
                          "alignment": 8}),
             member("v", {"type": "variant",
                          "selector-field-location": loc("k"),
                          "options": [
                              {"name": "neg", "field-class": u(16),
                               "selector-field-ranges": [[-10, -1]]},
                              {"name": "str", "field-class": bstr,
                               "selector-field-ranges": [[0, 0], [5, 9]]}]}),
             member("e", u(8, mappings={"ZERO": [[0, 0]],
                                        "SMALL": [[1, 9]],
                                        "ODD": [[1, 1], [3, 3]]})))},
        {"type": "event-record-class", "id": 5, "name": "f:nest",
         "payload-field-class": struct_fc(
             member("items", {"type": "static-length-array", "length": 2,
                              "element-field-class": struct_fc(
                                  member("x", {"type":
                                               "variable-length-signed-integer"}),
                                  member("p", {"type": "fixed-length-boolean",
                                               "length": 8, "alignment": 8,
                                               "byte-order": "little-endian"}),
                                  member("o", {"type": "optional",
                                               "field-class": "u8",
                                               "selector-field-location":
                                                   {"path": ["p"]}}))}),
             member("last", "u64"))},
        {"type": "event-record-class", "id": 6, "name": "f:utf",
         "payload-field-class": struct_fc(
             member("s16", {"type": "null-terminated-string",
                            "encoding": "utf-16le"}),
             member("s16be", {"type": "static-length-string",
                              "length": 12, "encoding": "utf-16be"}),
             member("n", "u8"),
             member("s32", {"type": "dynamic-length-string",
                            "length-field-location": loc("n"),
                            "encoding": "utf-32le"}),
             member("s8", {"type": "null-terminated-string",
                           "encoding": "utf-8"}))},
        {"type": "event-record-class", "id": 7, "name": "f:vlvar",
         "payload-field-class": struct_fc(
             member("k", {"type": "variable-length-signed-integer"}),
             member("v", {"type": "variant",
                          "selector-field-location": loc("k"),
                          "options": [
                              {"name": "big", "field-class": u(16),
                               "selector-field-ranges": [[-1000, -1]]},
                              {"name": "str", "field-class": bstr,
                               "selector-field-ranges": [[0, 300]]}]}),
             member("after", "u8"))},
    ]
    return "".join(RS + json.dumps(f, indent=1) + "\n" for f in frags)


def leb(v, signed=False):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40) \
            if signed else v == 0
        out.append(b if done else b | 0x80)
        if done:
            return bytes(out)


class W:
    """Bytes of a packet, aligned from its start; bits LSB first."""

    def __init__(self):
        self.b = bytearray()
        self.bit = 0

    def align(self, bits):
        self.bit = (self.bit + bits - 1) // bits * bits
        while len(self.b) * 8 < self.bit:
            self.b.append(0)

    def bits(self, v, n, align=1):
        self.align(align)
        for i in range(n):
            if self.bit % 8 == 0:
                self.b.append(0)
            self.b[self.bit // 8] |= ((v >> i) & 1) << (self.bit % 8)
            self.bit += 1

    def raw(self, data):
        self.align(8)
        self.b += data
        self.bit = 8 * len(self.b)

    def u(self, v, n, align=8):
        self.align(align)
        self.raw(v.to_bytes(n // 8, "little", signed=v < 0))


def quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def hexs(b):
    return "{ length = %d, data = %s }" % (len(b), b.hex().upper())


def event(w, k, i):
    """Event of class k, the i-th: written to w; its expected text."""
    if k == 0:
        b1, b2, bits, after = i % 2 == 0, i % 3 == 0, 0xA5 + 13 * i, i
        w.u(int(b1), 8)
        w.bits(int(b2), 1)
        w.bits(bits & 0xFFF, 12)
        w.u(after, 8)
        fl = [0, 1, 6, 0x85, 0x80][i % 5]
        w.u(fl, 8)
        on = [name for name, ranges in FLAGS.items()
              if any((fl >> b) & 1 for lo, hi in ranges
                     for b in range(lo, hi + 1))]
        labels = ", ".join('"%s"' % n for n in on) or "<unknown>"
        return ("f:bool: { b1 = %s, b2 = %s, bits = 0x%X, after = %d, "
                "fl = ( %s : container = 0x%X ) }" % (
                    str(b1).lower(), str(b2).lower(), bits & 0xFFF, after,
                    labels, fl))
    if k == 1:
        fixed = bytes([0xDE, 0xAD, i, 0x0F])
        n = i % 4
        dyn = bytes(range(0xF0, 0xF0 + n))
        text = "abcd"[:n]
        six = "six" + str(i)
        w.raw(fixed)
        w.u(n, 8)
        w.raw(dyn)
        w.raw(text.encode())
        w.raw(six.encode().ljust(6, b"\0"))
        return ("f:blob: { fixed = %s, n = %d, dyn = %s, text = %s, "
                "six = %s }" % (hexs(fixed), n, hexs(dyn), quote(text),
                                quote(six)))
    if k == 2:
        vu = [0, 127, 128, 300, 2 ** 64 - 1][i % 5]
        vs = [0, -1, 63, -64, -2 ** 63][i % 5]
        cnt = i % 3
        ve = [5, 100, 99999][i % 3]
        w.raw(leb(vu))
        w.raw(leb(vs, True))
        w.raw(leb(cnt))
        w.align(16)  # the array, even empty
        for j in range(cnt):
            w.u(1000 + j, 16, 16)
        w.raw(leb(ve))
        arr = "[ ]" if not cnt else "[ " + ", ".join(
            "[%d] = %d" % (j, 1000 + j) for j in range(cnt)) + " ]"
        label = "LOW" if ve < 100 else "HIGH"
        return ('f:vl: { vu = %d, vs = %d, cnt = %d, arr = %s, '
                've = ( "%s" : container = %d ) }' % (vu, vs, cnt, arr,
                                                       label, ve))
    if k == 3:
        has = i % 2 == 1
        sel = i % 7
        w.u(int(has), 8)
        o1 = "<none>"
        if has:
            w.raw(b"here" + bytes([0]))
            o1 = '{ "here" }'
        w.u(sel, 8)
        o2 = "<none>"
        if 1 <= sel <= 5:
            w.u(70000 + sel, 32)
            o2 = "{ %d }" % (70000 + sel)
        return "f:opt: { has = %s, o1 = %s, sel = %d, o2 = %s }" % (
            str(has).lower(), o1, sel, o2)
    if k == 4:
        kk = [-10, -1, 0, 5, 9][i % 5]
        w.u(kk, 8)
        if kk < 0:
            w.u(40000 + i, 16)
            v = "{ %d }" % (40000 + i)
        else:
            w.raw(b"s" + str(i).encode() + b"\0")
            v = '{ "s%d" }' % i
        e = i % 4
        w.u(e, 8)
        labels = {0: '"ZERO"', 1: '"SMALL", "ODD"', 2: '"SMALL"',
                  3: '"SMALL", "ODD"'}[e]
        return "f:var: { k = %d, v = %s, e = ( %s : container = %d ) }" % (
            kk, v, labels, e)
    if k == 6:
        words = ["", "a", "\u00e9t\u00e9", "x\U0001F600y", "\u4e2d"]
        a, b, c = (words[(i + d) % 5] for d in range(3))
        w.raw(a.encode("utf-16-le") + b"\0\0")
        w.raw(b.encode("utf-16-be").ljust(12, b"\0"))
        data = c.encode("utf-32-le")
        w.u(len(data), 8)
        w.raw(data)
        w.raw(b"\xc3\xa9\0")
        return "f:utf: { s16 = %s, s16be = %s, n = %d, s32 = %s, " \
            "s8 = %s }" % (quote(a), quote(b), len(data), quote(c),
                           quote("\u00e9"))
    if k == 7:
        # a LEB128 selector of a variant in the payload itself
        kk = [-1000, -1, 0, 200, 300][i % 5]
        w.raw(leb(kk, True))
        if kk < 0:
            w.u(50000 + i, 16)
            v = "{ %d }" % (50000 + i)
        else:
            w.raw(b"t" + str(i).encode() + b"\0")
            v = '{ "t%d" }' % i
        w.u(i % 256, 8)
        return "f:vlvar: { k = %d, v = %s, after = %d }" % (kk, v, i % 256)
    items = []
    for j in range(2):
        x = -300 * (i + j) + 7
        p = (i + j) % 2 == 0
        w.raw(leb(x, True))
        w.u(int(p), 8)
        o = "<none>"
        if p:
            w.u(i + j, 8)
            o = "{ %d }" % (i + j)
        items.append("[%d] = { x = %d, p = %s, o = %s }" % (
            j, x, str(p).lower(), o))
    w.u(2 ** 63 + i, 64)
    return "f:nest: { items = [ %s ], last = %d }" % (", ".join(items),
                                                       2 ** 63 + i)


def packet(seq, t0, kinds):
    w = W()
    hdr = struct.pack("<I16sI", 0xC1FC1FC1, UUID, 0)
    w.raw(hdr)
    ctx_at = len(w.b)
    w.raw(bytes(44))  # the context, filled at the end
    lines, t = [], t0
    for n, k in enumerate(kinds):
        w.u(k, 16)
        w.u(t, 64)
        # a payload is aligned as its widest member: f:vl's 16-bit
        # array elements
        w.align(16 if k == 2 else 8)
        lines.append(event(w, k, seq * 100 + n))
        t += 1000
    content = w.bit
    w.align(8)
    total = len(w.b) + 16
    w.b += bytes(16)
    struct.pack_into("<QQQQQI", w.b, ctx_at, t0, t - 1000, content,
                     8 * total, seq, 0)
    return bytes(w.b), lines


def write(out):
    d = os.path.join(out, "ctf2")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "metadata"), "w", encoding="utf-8") as f:
        f.write(metadata())
    data, lines = b"", []
    t = 1000
    for seq in range(2):
        kinds = [k for _ in range(5) for k in range(8)]
        p, ls = packet(seq, t, kinds)
        data += p
        lines += ls
        t += 1000 * len(kinds) + 5000
    with open(os.path.join(d, "stream"), "wb") as f:
        f.write(data)
    with open(os.path.join(out, "expected.txt"), "w",
              encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
