#!/usr/bin/python3
"""Writes CTF 1.8 traces in other tracers' shapes, for the comparison of
`lowtrace view` with babeltrace2 (tests/test_ctf_gen.sh).

usage: gen_ctf.py OUT_DIR [--be] [--packetized] [--events N] [--freq HZ]
                  [--seed S]

The trace has what other tracers write and lowtrace does not:
- type names: typealias (of one and of two words), typedef, named struct
  and enum declared once and used by name;
- byte order per trace (--be: big-endian, bit-fields numbered from the
  most significant bit) and per type (a little-endian field in a
  big-endian trace and the converse);
- packetized metadata (--packetized), cut into several packets;
- a clock with an offset in seconds and in counts, of any frequency;
- two stream classes: LTTng's compact event header (5-bit id, 27-bit
  timestamp bit-fields) and LTTng's large one (16-bit id, 32-bit
  timestamp), each with its extended form (ids past the compact range,
  gaps past the timestamp's wrap); timestamps that wrap between events;
- a packet context of LTTng's layout (32-bit events_discarded, cpu_id),
  several packets per stream, padding after the content;
- a stream event context (vtid and a length) and an event context;
- integers of 8 to 64 bits, signed and not, in hex, aligned 8 to 64;
  structs in structs, aligned as their widest field;
  enums with ranges and implicit values; floats of 32 and 64 bits;
  strings, char arrays as text; sequences whose length is a field of
  the payload (relative and absolute path) or of the stream event
  context.
"""
import os
import random
import struct
import sys
import uuid as uuidlib

MAGIC = 0xC1FC1FC1


class Buf:
    """Bytes of a packet, aligned from its start."""

    def __init__(self, be):
        self.b = bytearray()
        self.be = be
        self.bitpos = None  # in bits, while writing bit-fields

    def align(self, nbytes):
        self.bitpos = None  # a byte field ends the bit-fields
        while len(self.b) % nbytes:
            self.b.append(0)

    def bits(self, v, size, align=1):
        """A bit-field: LSB first in a little-endian trace, MSB first in a
        big-endian one, as CTF numbers the bits."""
        pos = self.bitpos if self.bitpos is not None else 8 * len(self.b)
        pos = (pos + align - 1) // align * align
        v &= (1 << size) - 1
        while len(self.b) * 8 < pos + size:
            self.b.append(0)
        for j in range(size):
            bit = (v >> j) & 1 if not self.be else (v >> (size - 1 - j)) & 1
            k = pos + j
            if bit:
                self.b[k // 8] |= (1 << (k % 8)) if not self.be else (0x80 >> (k % 8))
        self.bitpos = pos + size

    def uint(self, v, size, be=None, align=None):
        be = self.be if be is None else be
        self.align(align or size)
        self.b += (v & ((1 << (8 * size)) - 1)).to_bytes(size, "big" if be else "little")

    def sint(self, v, size, be=None, align=None):
        self.uint(v & ((1 << (8 * size)) - 1), size, be, align)

    def flt(self, v, double):
        self.align(8 if double else 4)
        self.b += struct.pack((">" if self.be else "<") + ("d" if double else "f"), v)

    def string(self, s):
        self.b += s.encode() + b"\0"


def metadata(be, freq, uid, hostname):
    bo = "be" if be else "le"
    other = "le" if be else "be"
    return """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 16; signed = false; } := uint16_t;
typealias integer { size = 32; align = 32; signed = false; } := uint32_t;
typealias integer { size = 64; align = 64; signed = false; } := uint64_t;
typealias integer { size = 32; align = 32; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 27; align = 1; signed = false; } := uint27_t;
typedef integer { size = 32; align = 32; signed = true; } int32_t;
trace {
	major = 1;
	minor = 8;
	uuid = "%(uuid)s";
	byte_order = %(bo)s;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
	};
};
env {
	hostname = "%(host)s";
	domain = "ust";
	tracer_name = "gen_ctf";
	tracer_major = 1;
};
clock {
	name = "gen";
	uuid = "5a71a43c-1390-4365-9baf-111c565e78c3";
	description = "a clock of its own frequency";
	freq = %(freq)d;
	offset_s = 1764740000;
	offset = %(offset)d;
	precision = 1;
	absolute = false;
};
typealias integer { size = 27; align = 1; signed = false; map = clock.gen.value; } := uint27_clock_t;
typealias integer { size = 32; align = 32; signed = false; map = clock.gen.value; } := uint32_clock_t;
typealias integer { size = 64; align = 64; signed = false; map = clock.gen.value; } := uint64_clock_t;
struct packet_context {
	uint64_clock_t timestamp_begin;
	uint64_clock_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	unsigned long events_discarded;
	uint32_t cpu_id;
};
struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct { uint27_clock_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_t timestamp; } extended;
	} v;
} align(32);
struct event_header_large {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct { uint32_clock_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_t timestamp; } extended;
	} v;
} align(16);
enum state : int32_t { "IDLE" = 0, "BUSY", RANGE = 5 ... 9, "A" = 20 ... 25, "B" };
stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
	event.context := struct {
		int32_t _vtid;
		uint8_t n;
	};
};
stream {
	id = 1;
	event.header := struct event_header_large;
	packet.context := struct packet_context;
};
event {
	name = "gen:ints";
	id = 0;
	stream_id = 0;
	loglevel = 13;
	fields := struct {
		uint8_t a;
		integer { size = 8; align = 8; signed = true; } b;
		uint16_t c;
		integer { size = 16; align = 16; signed = true; byte_order = %(other)s; } d;
		integer { size = 32; align = 32; signed = false; base = 16; } x;
		int32_t e;
		integer { size = 64; align = 64; signed = false; byte_order = %(other)s; } f;
		integer { size = 64; align = 64; signed = true; } g;
		integer { size = 32; align = 8; signed = false; base = x; } unaligned;
	};
};
event {
	name = "gen:mix";
	id = 1;
	stream_id = 0;
	fields := struct {
		enum state st;
		floating_point { exp_dig = 8; mant_dig = 24; align = 32; } r;
		floating_point { exp_dig = 11; mant_dig = 53; align = 64; } v;
		string s;
		integer { size = 8; align = 8; signed = true; encoding = UTF8; } tag[8];
		uint16_t __seq_length;
		integer { size = 16; align = 16; signed = true; } seq[__seq_length];
		uint8_t bytes[event.fields.__seq_length];
		uint8_t ctx[stream.event.context.n];
	};
};
event {
	name = "gen:ctx";
	id = 40;
	stream_id = 0;
	context := struct { string tag; uint32_t k; };
	fields := struct { uint32_t x; integer { size = 8; align = 8; signed = false; encoding = ASCII; } txt[x]; };
};
event {
	name = "gen:nest";
	id = 2;
	stream_id = 0;
	fields := struct {
		uint8_t a;
		struct {
			uint16_t b;
			struct { uint64_t c; string d; } inner;
			uint8_t e;
		} outer;
		struct { struct { uint8_t f; } deep; } first;
		uint32_t g;
	};
};
event {
	name = "gen:bits";
	id = 3;
	stream_id = 0;
	fields := struct {
		integer { size = 3; align = 1; signed = false; } a;
		integer { size = 5; align = 1; signed = true; } b;
		integer { size = 12; align = 1; signed = false; base = 16; } c;
		integer { size = 4; align = 4; signed = true; base = 16; } d;
		enum : integer { size = 2; align = 1; signed = false; } { X, Y, Z } e;
		integer { size = 30; align = 1; signed = true; } f;
		integer { size = 64; align = 1; signed = false; } g;
		uint8_t h;
		integer { size = 1; align = 1; signed = false; } last;
	};
};
event {
	name = "gen:var";
	id = 4;
	stream_id = 0;
	fields := struct {
		enum : uint8_t { INT = 0, STR = 1, PAIR = 2 ... 3 } sel;
		variant <sel> {
			int32_t INT;
			string STR;
			struct { uint16_t x; uint16_t y; } PAIR;
		} v;
		uint8_t after;
		variant <sel> { uint8_t INT; uint16_t STR; uint32_t PAIR; } w;
	};
};
event {
	name = "gen:one";
	id = 0;
	stream_id = 1;
	fields := struct { uint64_t x; };
};
event {
	name = "gen:far";
	id = 70000;
	stream_id = 1;
	fields := struct { int32_t y; string w; };
};
""" % {"uuid": str(uid), "bo": bo, "other": other, "host": hostname,
       "freq": freq, "offset": freq // 3}


def packetize(text, be, uid, chunk=700):
    out = bytearray()
    data = text.encode()
    bo = ">" if be else "<"
    for off in range(0, len(data), chunk):
        c = data[off:off + chunk]
        content = (37 + len(c)) * 8
        size = content + 8 * 11
        out += struct.pack(bo + "I", 0x75D11D57) + uid.bytes
        out += struct.pack(bo + "III", 0, content, size) + bytes([0, 0, 0, 1, 8])
        out += c + bytes(11)
    return bytes(out)


class Stream:
    def __init__(self, be, sid, cpu, uid, large):
        self.be, self.sid, self.cpu, self.uid, self.large = be, sid, cpu, uid, large
        self.file = bytearray()
        self.pkt = None
        self.discarded = 0

    def begin(self, ts):
        p = Buf(self.be)
        p.uint(MAGIC, 4)
        p.b += self.uid.bytes
        p.uint(self.sid, 4)
        self.ctx_at = len(p.b)
        p.uint(ts, 8)          # timestamp_begin
        p.uint(0, 8)           # timestamp_end, later
        p.uint(0, 8)           # content_size, later
        p.uint(0, 8)           # packet_size, later
        p.uint(self.discarded, 4)
        p.uint(self.cpu, 4)
        self.pkt, self.prev, self.begin_ts = p, ts, ts

    def header(self, eid, ts):
        p = self.pkt
        bits = 32 if self.large else 27
        gap_ok = ts - self.prev < (1 << bits)
        if not self.large:
            p.align(4)
            if eid < 31 and gap_ok:
                low = ts & ((1 << 27) - 1)
                word = (eid << 27 | low) if self.be else (low << 5 | eid)
                p.uint(word, 4)
            else:
                p.uint((31 << 27) if self.be else 31, 4)
                p.align(8)  # the extended struct: aligned as its timestamp
                p.uint(eid, 4)
                p.uint(ts, 8)
        else:
            if eid < 65535 and gap_ok:
                p.uint(eid, 2)
                p.uint(ts & 0xFFFFFFFF, 4)
            else:
                p.uint(65535, 2)
                p.align(8)
                p.uint(eid, 4)
                p.uint(ts, 8)
        self.prev = ts

    def end(self, size_to=4096):
        p = self.pkt
        # content_size counts bits: a last event ending inside a byte
        # ends the content there
        content = p.bitpos if p.bitpos is not None else len(p.b) * 8
        size = ((len(p.b) + 64 + size_to - 1) // size_to) * size_to
        p.b += bytes(size - len(p.b))
        bo = ">" if self.be else "<"
        struct.pack_into(bo + "QQQ", p.b, self.ctx_at + 8, self.prev, content, size * 8)
        self.file += p.b
        self.pkt = None


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    out = args.pop(0)
    be = "--be" in args
    packetized = "--packetized" in args
    n = int(args[args.index("--events") + 1]) if "--events" in args else 3000
    freq = int(args[args.index("--freq") + 1]) if "--freq" in args else 1000000000
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    rnd = random.Random(seed)
    uid = uuidlib.UUID(int=rnd.getrandbits(128))
    os.makedirs(out, exist_ok=True)
    text = metadata(be, freq, uid, "genhost")
    with open(os.path.join(out, "metadata"), "wb") as f:
        f.write(packetize(text, be, uid) if packetized else text.encode())
    names = ["alpha", "beta gamma", "", "quote \" back \\ tab\t", "x" * 40]
    ts = 1 << 30  # the low 27 bits wrap at once
    streams = [Stream(be, 0, cpu, uid, False) for cpu in range(2)] + \
              [Stream(be, 1, 2, uid, True)]
    for s in streams:
        s.begin(ts)
    count = [0] * len(streams)
    for i in range(n):
        k = rnd.randrange(len(streams))
        s = streams[k]
        r = rnd.random()
        # mostly short gaps; some wrap the compact 27 bits, a few need
        # the extended header
        ts += rnd.choice([1, 7, 300, 5000, 90000]) if r < 0.9 else \
            ((1 << 27) - rnd.randrange(1, 1000) if r < 0.97 else (1 << 33) + rnd.randrange(100))
        p = s.pkt
        if s.sid == 0:
            choice = rnd.randrange(6)
            eid = [0, 1, 40, 2, 3, 4][choice]
            s.header(eid, ts)
            # stream event context
            nctx = rnd.randrange(4)
            p.sint(1000 + k, 4)
            p.uint(nctx, 1)
            if eid in (0, 1):
                p.align(8)  # a struct is aligned as its widest field
            if eid == 0:
                p.uint(i & 0xFF, 1)
                p.sint(-(i % 128), 1)
                p.uint(i * 7 & 0xFFFF, 2)
                p.sint(-i % 30000, 2, be=not be)
                p.uint(i * 0x10001 & 0xFFFFFFFF, 4)
                p.sint(-i * 1000, 4)
                p.uint(i * 0x123456789, 8, be=not be)
                p.sint(-i * 0x987654321, 8)
                p.uint(0xDEAD0000 + i, 4, align=1)
            elif eid == 1:
                p.sint([0, 1, 5, 7, 9, 20, 26, 3][i % 8], 4)
                p.flt(i / 4.0, False)
                p.flt(i / 3.0, True)
                p.string(names[i % len(names)])
                p.b += (names[(i + 1) % len(names)].encode() + bytes(8))[:8]
                m = i % 5
                p.uint(m, 2)
                for j in range(m):
                    p.sint(j * 1000 - 2000, 2)
                for j in range(m):
                    p.uint(j + 1, 1)
                for j in range(nctx):
                    p.uint(200 + j, 1)
            elif eid == 3:
                p.bits(i & 7, 3)
                p.bits(-(i % 16), 5)
                p.bits(i * 37, 12)
                p.bits(-(i % 8), 4, align=4)
                p.bits(i % 3, 2)
                p.bits(-i * 1001, 30)
                p.bits(i * 0x123456789ABC, 64)
                p.uint(i & 0xFF, 1)
                p.bits(i & 1, 1)
            elif eid == 4:
                sel = i % 4
                p.uint(sel, 1)
                if sel == 0:
                    p.sint(-i, 4)
                elif sel == 1:
                    p.string(names[i % len(names)])
                else:
                    p.uint(i & 0xFFFF, 2)
                    p.uint(sel, 2)
                p.uint(i & 0xFF, 1)
                p.uint(i & 0xFF, [1, 2, 4, 4][sel])
            elif eid == 2:
                p.align(8)  # the payload, aligned as its widest field
                p.uint(i & 0xFF, 1)
                p.align(8)  # outer, aligned as inner's c
                p.uint(i & 0xFFFF, 2)
                p.uint(i * 3, 8)  # inner: aligned 8
                p.string(names[i % len(names)])
                p.uint(i & 0x7F, 1)
                p.uint(i & 0x3F, 1)  # first.deep.f
                p.uint(i * 5, 4)
            else:
                p.align(4)  # the event context, aligned as its k
                p.string(names[(i + 2) % len(names)])
                p.uint(i, 4)
                m = i % 6
                p.uint(m, 4)
                p.b += b"abcdef"[:m]
        else:
            far = rnd.random() < 0.3
            s.header(70000 if far else 0, ts)
            if far:
                p.sint(-i, 4)
                p.string(names[i % len(names)])
            else:
                p.uint(i * 0x1000000001, 8)
        count[k] += 1
        if len(p.b) > 3000:
            s.end()
            s.discarded += rnd.randrange(3)
            s.begin(ts)
    for s in streams:
        s.end()
    for k, s in enumerate(streams):
        with open(os.path.join(out, "chan_%d_%d" % (s.sid, s.cpu)), "wb") as f:
            f.write(s.file)


if __name__ == "__main__":
    main()
