#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes CTF 1.8 traces in other tracers' shapes, for the comparison of
`lowtrace view` with babeltrace2 (tests/test_ctf_gen.sh).

usage: gen_ctf.py OUT_DIR [--be] [--packetized] [--events N] [--freq HZ]
                  [--seed S]
       gen_ctf.py OUT_DIR --kernel [--events N] [--seed S]
       gen_ctf.py OUT_DIR --compound [--events N] [--seed S]
       gen_ctf.py OUT_DIR --session [--periods N] [--seed S]
       gen_ctf.py OUT_DIR --clockless | --no-clock-block | --empty-struct |
                  --quirk NAME | --damaged [--events N] [--seed S]

--clockless, --no-clock-block, --empty-struct, --quirk and --damaged
write the traces a reader must take leniently (tests/gen_ctf_lenient.py
says which).

--kernel writes an lttng-modules kernel trace instead (two CPUs: the
scheduler's events of a pool of 300 threads, irqs, softirqs) for the
analyses and bench/model.sh.  Otherwise:

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

--session writes an LTTng session instead: an lttng-modules kernel
trace with a state dump (kernel/) and an LTTng-UST per-UID trace with
vpid, vtid and procname contexts (ust/uid/1000/64-bit/), on clocks that
correlate; a UST thread's periodic event, late twice for a scheduling
cause in the kernel trace (session_trace() says which), for
tests/test_lttng_session.sh.

--compound writes a trace of each compound type TSDL allows instead:
arrays and sequences of structs (with strings, bit-fields and variants
tagged inside the struct), arrays of arrays, char arrays in arrays,
sequences of variants, variants in variants (as an option and in a
struct option), a sequence whose length is a variant's option or a
struct's field.
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


KERNEL_METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 16; signed = false; } := uint16_t;
typealias integer { size = 32; align = 32; signed = false; } := uint32_t;
typealias integer { size = 64; align = 64; signed = false; } := uint64_t;
typealias integer { size = 64; align = 64; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 27; align = 1; signed = false; } := uint27_t;
trace {
	major = 1;
	minor = 8;
	uuid = "%(uuid)s";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};
env {
	hostname = "genhost";
	domain = "kernel";
	sysname = "Linux";
	tracer_name = "lttng-modules";
	tracer_major = 2;
	tracer_minor = 13;
};
clock {
	name = "monotonic";
	uuid = "5a71a43c-1390-4365-9baf-111c565e78c3";
	description = "Monotonic Clock";
	freq = 1000000000;
	precision = 1;
	offset_s = 1764740000;
	offset = 0;
	absolute = FALSE;
};
typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 64; align = 64; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
};
struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct { uint27_clock_monotonic_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;
	} v;
} align(32);
stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
};
event {
	name = "sched_switch";
	id = 0;
	stream_id = 0;
	fields := struct {
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _prev_comm[16];
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_tid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_prio;
		integer { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _prev_state;
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _next_comm[16];
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _next_tid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _next_prio;
	};
};
event {
	name = "sched_waking";
	id = 1;
	stream_id = 0;
	fields := struct {
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _comm[16];
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _tid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prio;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _target_cpu;
	};
};
event {
	name = "sched_wakeup";
	id = 2;
	stream_id = 0;
	fields := struct {
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _comm[16];
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _tid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prio;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _target_cpu;
	};
};
event {
	name = "irq_handler_entry";
	id = 3;
	stream_id = 0;
	fields := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _irq;
		string _name;
	};
};
event {
	name = "irq_handler_exit";
	id = 4;
	stream_id = 0;
	fields := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _irq;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _ret;
	};
};
event {
	name = "softirq_entry";
	id = 5;
	stream_id = 0;
	fields := struct { integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _vec; };
};
event {
	name = "softirq_exit";
	id = 6;
	stream_id = 0;
	fields := struct { integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _vec; };
};
"""


class LttngStream:
    """One LTTng per-CPU stream file being written (LTTng's packet header
    and context): lttng-modules's compact event header (4-byte aligned)
    or LTTng-UST's packed large one; a packet is closed once its content
    passes packet bytes, and the next one opened at once."""

    def __init__(self, uid, cpu, large, packet):
        self.uid, self.cpu, self.large, self.packet = uid, cpu, large, packet
        self.file = bytearray()
        self.seq = 0
        self.discarded = 0  # the running count packets carry
        self.b = None

    def open(self, ts):
        b = bytearray(struct.pack("<I", MAGIC) + self.uid.bytes)
        b += struct.pack("<IQ", 0, self.cpu)  # stream_id, stream_instance_id
        b += bytes(48) + struct.pack("<I", self.cpu)
        self.b, self.begin, self.prev = b, ts, ts

    def event(self, ts, eid, payload):
        b = self.b
        if self.large:
            if eid < 65535 and ts - self.prev < (1 << 32):
                b += struct.pack("<HI", eid, ts & 0xFFFFFFFF)
            else:
                b += struct.pack("<HIQ", 65535, eid, ts)
        else:
            while len(b) % 4:
                b.append(0)
            if eid < 31 and ts - self.prev < (1 << 27):
                b += struct.pack("<I", ((ts & ((1 << 27) - 1)) << 5) | eid)
            else:
                b += struct.pack("<I", 31)
                while len(b) % 8:
                    b.append(0)
                b += struct.pack("<IIQ", eid, 0, ts)
        b += payload
        self.prev = ts
        if len(b) > self.packet:
            self.end()
            self.open(ts)

    def end(self):
        b = self.b
        content = len(b) * 8
        size = (len(b) + 4095) // 4096 * 4096
        b += bytes(size - len(b))
        struct.pack_into("<QQQQQQ", b, 32, self.begin, self.prev, content, size * 8, self.seq,
                         self.discarded)
        self.file += b
        self.seq += 1

    def close(self):
        """The file's bytes, its last packet closed."""
        self.end()
        return bytes(self.file)


def kernel_trace(out, n, cpus, seed):
    """An lttng-modules kernel trace of the scheduler's events (2.13's
    packed layout: byte-aligned fields, compact headers), cpus streams:
    wake-ups of threads of a pool and switches to them, irqs and
    softirqs."""
    rnd = random.Random(seed)
    uid = uuidlib.UUID(int=rnd.getrandbits(128))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(KERNEL_METADATA % {"uuid": str(uid)})
    threads = [(1000 + t, ("worker-%d" % t).encode()[:15]) for t in range(300)]
    ts = 1 << 34
    cur = [(0, b"swapper/%d" % c) for c in range(cpus)]
    streams = [LttngStream(uid, c, False, 60000) for c in range(cpus)]

    def ev(c, eid, payload):
        streams[c].event(ts, eid, payload)

    for c in range(cpus):
        streams[c].open(ts)
    i = 0
    while i < n:
        c = rnd.randrange(cpus)
        ts += rnd.randrange(200, 20000)
        r = rnd.random()
        if r < 0.08:
            ev(c, 3, struct.pack("<i", 24 + c) + b"eth0\0")
            ts += rnd.randrange(1000, 5000)
            ev(c, 4, struct.pack("<ii", 24 + c, 1))
            i += 2
        elif r < 0.22:
            ev(c, 5, struct.pack("<I", 3))
            ts += rnd.randrange(1000, 9000)
            ev(c, 6, struct.pack("<I", 3))
            i += 2
        else:
            tid, comm = threads[rnd.randrange(len(threads))]
            if tid == cur[c][0]:
                continue
            wk = struct.pack("<16siii", comm, tid, 120, c)
            ev(c, 1, wk)
            ts += rnd.randrange(100, 2000)
            ev(c, 2, wk)
            ts += rnd.randrange(1000, 50000)
            ptid, pcomm = cur[c]
            ev(c, 0, struct.pack("<16siiq16sii", pcomm, ptid, 120, rnd.choice([0, 1]), comm, tid, 120))
            cur[c] = (tid, comm)
            i += 3
    for c in range(cpus):
        with open(os.path.join(out, "kernel_%d" % c), "wb") as f:
            f.write(streams[c].close())


STATEDUMP_METADATA = """event {
	name = "lttng_statedump_start";
	id = 7;
	stream_id = 0;
	fields := struct { };
};
event {
	name = "lttng_statedump_process_state";
	id = 8;
	stream_id = 0;
	fields := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _tid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _pid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _ppid;
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _name[16];
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _type;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _mode;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _submode;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _status;
		integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _cpu;
	};
};
event {
	name = "lttng_statedump_end";
	id = 9;
	stream_id = 0;
	fields := struct { };
};
"""

# LTTng-UST 2.13's metadata, per-UID buffers (as tests/lttng/record.sh
# records it): byte-packed types, the large event header, the clock's
# offset in counts only, vpid/vtid/procname contexts.
UST_METADATA = """/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 27; align = 1; signed = false; } := uint27_t;

trace {
	major = 1;
	minor = 8;
	uuid = "%(uuid)s";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

env {
	domain = "ust";
	tracer_name = "lttng-ust";
	tracer_major = 2;
	tracer_minor = 13;
	tracer_buffering_scheme = "uid";
	tracer_buffering_id = 1000;
	architecture_bit_width = 64;
	trace_name = "gen_session";
	trace_creation_datetime = "20251203T052000+0000";
	hostname = "genhost";
};

clock {
	name = "monotonic";
	uuid = "5a71a43c-1390-4365-9baf-111c565e78c3";
	description = "Monotonic Clock";
	freq = 1000000000; /* Frequency, in Hz */
	/* clock value offset from Epoch is: offset * (1/freq) */
	offset = %(offset)d;
};

typealias integer {
	size = 32; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint32_clock_monotonic_t;

typealias integer {
	size = 64; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint64_clock_monotonic_t;

struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
};

struct event_header_large {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct {
			uint32_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

stream {
	id = 0;
	event.header := struct event_header_large;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vpid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _procname[17];
	};
};

event {
	name = "app:tick";
	id = 0;
	stream_id = 0;
	loglevel = 13;
	fields := struct {
		integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _seq;
		integer { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _late_us;
	};
};

event {
	name = "app:work";
	id = 1;
	stream_id = 0;
	loglevel = 13;
	fields := struct {
		integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _item;
	};
};
"""


def session_trace(out, periods, seed):
    """An LTTng session (kernel/ and ust/uid/1000/64-bit/) on two CPUs of
    one monotonic clock: app-tick (tid 4243 of app, 4242) emits app:tick
    (seq, late_us) every 10 ms on CPU 0.  It is woken at its due time by
    the timer (in swapper's context), runs and emits at once, except in
    two periods: in period 3 a hog (tid 5000) runs on CPU 0 when it is
    woken and keeps the CPU 4 ms (sched_switch to app-tick only after
    the hog); in period 6 app-tick blocks after its wake-up until
    app-worker (tid 4244, on CPU 1) wakes it 6 ms later.  app-worker
    emits app:work on CPU 1.  The kernel's state dump names every
    thread; the UST stream of CPU 1 ends with an empty packet telling of
    42 events lost.  The UST trace's clock has another offset (in counts only,
    as LTTng-UST writes it) and its counts are shifted to match."""
    rnd = random.Random(seed)
    kuid = uuidlib.UUID(int=rnd.getrandbits(128))
    uuid2 = uuidlib.UUID(int=rnd.getrandbits(128))
    offset = 1764740000 * 10 ** 9 + 123456789
    # each tracer measures its clock's offset from the epoch itself: the
    # UST trace's is off by USKEW ns, its counts by as many the other way
    USKEW = 777
    kdir = os.path.join(out, "kernel")
    udir = os.path.join(out, "ust", "uid", "1000", "64-bit")
    os.makedirs(kdir, exist_ok=True)
    os.makedirs(udir, exist_ok=True)
    with open(os.path.join(kdir, "metadata"), "w") as f:
        f.write((KERNEL_METADATA % {"uuid": str(kuid)}).replace(
            "offset_s = 1764740000;\n\toffset = 0;",
            "offset = %d;" % offset) + STATEDUMP_METADATA)
    with open(os.path.join(udir, "metadata"), "w") as f:
        f.write(UST_METADATA % {"uuid": str(uuid2), "offset": offset + USKEW})
    APP, TICK, WORKER, HOG = 4242, 4243, 4244, 5000
    names = {1: b"systemd", APP: b"app", TICK: b"app-tick", WORKER: b"app-worker", HOG: b"hog"}
    kev = [[], []]
    uev = [[], []]
    cur = [0, 0]
    comm = {0: b"swapper/0"}
    comm.update(names)

    def switch(c, ts, nxt, state):
        prev = cur[c]
        pc = comm[prev] if prev else b"swapper/%d" % c
        nc = comm[nxt] if nxt else b"swapper/%d" % c
        kev[c].append((ts, 0, struct.pack("<16siiq16sii", pc, prev, 120, state, nc, nxt, 120)))
        cur[c] = nxt

    def waking(c, ts, tid, target):
        kev[c].append((ts, 1, struct.pack("<16siii", comm[tid], tid, 120, target)))

    def ust(c, ts, tid, eid, payload):
        ctx = struct.pack("<ii17s", APP, tid, comm[tid])
        uev[c].append((ts - USKEW, eid, ctx + payload))

    t0 = 1 << 34
    kev[0].append((t0, 7, b""))
    for k, tid in enumerate(sorted(names)):
        pid = APP if tid in (TICK, WORKER) else tid
        kev[0].append((t0 + 1000 * (k + 1), 8, struct.pack(
            "<iii16siiiiI", tid, pid, 1 if tid != 1 else 0, names[tid], 0, 0, 0, 5, 0)))
    kev[0].append((t0 + 9000, 9, b""))
    ms = 1000000
    for k in range(1, periods + 1):
        due = t0 + k * 10 * ms
        if k == 3:
            # the hog is woken 1 ms before and runs past the due time
            waking(0, due - ms - 5000, HOG, 0)
            switch(0, due - ms, HOG, 0)
            waking(0, due, TICK, 0)
            run = due + 4 * ms
            switch(0, run, TICK, 0)  # the hog preempted (R)
        elif k == 6:
            waking(0, due, TICK, 0)
            switch(0, due + 15000, TICK, 0)
            switch(0, due + 40000, 0, 1)  # blocks on the worker's lock
            waking(1, due - 2 * ms, WORKER, 1)
            switch(1, due - 2 * ms + 9000, WORKER, 0)
            ust(1, due + 2 * ms, WORKER, 1, struct.pack("<I", k))
            waking(1, due + 6 * ms, TICK, 0)
            switch(1, due + 6 * ms + 30000, 0, 1)
            run = due + 6 * ms + 20000
            switch(0, run, TICK, 0)
        else:
            waking(0, due, TICK, 0)
            run = due + 15000 + rnd.randrange(5000)
            switch(0, run, TICK, 0)
        at = run + 10000
        ust(0, at, TICK, 0, struct.pack("<Iq", k, (at - due) // 1000))
        if k == 3:
            switch(0, at + 20000, HOG, 1)
            switch(0, at + ms, 0, 1)
        else:
            switch(0, at + 20000, 0, 1)
    for c in range(2):
        kev[c].sort(key=lambda e: e[0])
        for d, uid, evs, large in ((kdir, kuid, kev[c], False), (udir, uuid2, uev[c], True)):
            if not evs:
                continue
            st = LttngStream(uid, c, large, 3500)
            st.open(evs[0][0])
            for e in evs:
                st.event(*e)
            if large and c == 1:
                # events lost at the end: an empty last packet whose
                # count grew, as LTTng-UST leaves when its buffer is full
                st.end()
                st.discarded += 42
                st.open(evs[-1][0] + ms)
            with open(os.path.join(d, "channel0_%d" % c), "wb") as f:
                f.write(st.close())


COMPOUND_METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 16; signed = false; } := uint16_t;
typealias integer { size = 32; align = 32; signed = false; } := uint32_t;
typealias integer { size = 64; align = 64; signed = false; } := uint64_t;
typealias integer { size = 32; align = 32; signed = true; } := int32_t;
typealias integer { size = 4; align = 1; signed = false; } := uint4_t;
trace {
	major = 1;
	minor = 8;
	uuid = "%(uuid)s";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
	};
};
env {
	hostname = "genhost";
	domain = "ust";
	tracer_name = "gen_ctf";
};
clock {
	name = "gen";
	freq = 1000000000;
	offset_s = 1764740000;
};
typealias integer { size = 64; align = 64; signed = false; map = clock.gen.value; } := uint64_clock_t;
enum kind : uint8_t { A, B, C };
stream {
	id = 0;
	event.header := struct { uint16_t id; uint64_clock_t timestamp; };
	packet.context := struct {
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint32_t events_discarded;
		uint32_t cpu_id;
	};
};
event {
	name = "gen:arrays_of_structs";
	id = 0;
	stream_id = 0;
	fields := struct {
		uint8_t n;
		struct { uint16_t a; string s; } fixed[2];
		struct { uint8_t x; int32_t y; uint4_t b; } seq[n];
		uint8_t after;
	};
};
event {
	name = "gen:arrays_of_arrays";
	id = 1;
	stream_id = 0;
	fields := struct {
		uint8_t n;
		uint16_t grid[2][3];
		uint32_t rows[n][2];
		integer { size = 8; align = 8; signed = false; encoding = UTF8; } names[2][4];
	};
};
event {
	name = "gen:sequence_of_variants";
	id = 2;
	stream_id = 0;
	fields := struct {
		enum kind tag;
		uint8_t n;
		variant <tag> { uint16_t A; string B; struct { uint8_t p; uint32_t q; } C; } items[n];
	};
};
event {
	name = "gen:variant_in_variant";
	id = 3;
	stream_id = 0;
	fields := struct {
		enum kind outer;
		enum kind inner;
		variant <outer> {
			uint8_t A;
			variant <inner> { uint16_t A; string B; uint32_t C; } B;
			struct { uint8_t k; variant <inner> { uint8_t A; uint16_t B; string C; } w; } C;
		} v;
		struct { enum kind t; variant <t> { uint8_t A; uint32_t B; string C; } u; } tagged[2];
	};
};
event {
	name = "gen:length_in_variant";
	id = 4;
	stream_id = 0;
	fields := struct {
		enum kind sel;
		variant <sel> { uint8_t A; uint16_t B; string C; } v;
		uint16_t data[v.A];
		struct { uint8_t len; } h;
		uint16_t more[h.len];
	};
};
event {
	name = "gen:scoped_names";
	id = 5;
	stream_id = 0;
	fields := struct {
		uint8_t n;
		struct { uint8_t len; } h;
		struct { uint8_t len; } g;
		uint16_t by_path[h.len];
		struct {
			uint8_t n;
			struct { uint8_t n; } s;
			uint8_t own[n];
			struct { uint8_t c; } p;
			struct { uint8_t c; } q;
			uint8_t deep[p.c];
			struct { enum kind k; struct { variant <k> { uint8_t A; uint16_t B; string C; } v; } w; } t;
		} elems[2];
		uint8_t outer[n];
	};
};
"""


def compound_trace(out, n, seed):
    """A trace of arrays and sequences of structs, variants and arrays,
    variants in variants, a sequence whose length is a variant's option
    (every compound type TSDL allows), lengths and tags named by relative
    paths that the scoping of CTF 1.8 resolves."""
    rnd = random.Random(seed)
    uid = uuidlib.UUID(int=rnd.getrandbits(128))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(COMPOUND_METADATA % {"uuid": str(uid)})
    names = ["alpha", "beta gamma", "", "q\"x"]
    s = Stream(False, 0, 0, uid, False)
    ts = 1000
    s.begin(ts)
    for i in range(n):
        ts += rnd.choice([1, 300, 5000])
        p = s.pkt
        eid = rnd.randrange(6)
        p.align(8)  # the header struct: aligned as its timestamp
        p.uint(eid, 2)
        p.uint(ts, 8)
        s.prev = ts
        m = rnd.randrange(4)
        if eid == 0:
            p.uint(m, 1)
            for j in range(2):
                p.uint(i * 3 + j & 0xFFFF, 2)
                p.string(names[(i + j) % len(names)])
            p.align(4)  # seq: aligned as its element, even empty
            for j in range(m):
                p.align(4)  # the struct: aligned as its y
                p.uint(i + j & 0xFF, 1)
                p.sint(-i * 7 - j, 4)
                p.bits(i + j & 15, 4)
            p.uint(i & 0xFF, 1)
        elif eid == 1:
            p.uint(m, 1)
            for j in range(6):
                p.uint(i * 6 + j & 0xFFFF, 2)
            p.align(4)  # rows: aligned as its element, even empty
            for j in range(2 * m):
                p.uint(i * 1000 + j, 4)
            p.b += (names[i % 2].encode() + bytes(4))[:4]
            p.b += b"wxyz"
        elif eid == 2:
            tag = rnd.randrange(3)
            p.uint(tag, 1)
            p.uint(m, 1)
            for j in range(m):
                if tag == 0:
                    p.uint(i + j & 0xFFFF, 2)
                elif tag == 1:
                    p.string(names[(i + j) % len(names)])
                else:
                    p.align(4)  # the struct: aligned as its q
                    p.uint(j, 1)
                    p.uint(i * 11 + j, 4)
        elif eid == 5:
            # names scoped as CTF 1.8 says: the struct holding the field
            # first, then the ones around it, then the payload's root
            p.uint(m, 1)  # n
            hl, gl = rnd.randrange(3), rnd.randrange(3)
            p.uint(hl, 1)  # h.len
            p.uint(gl, 1)  # g.len
            p.align(2)
            for j in range(hl):  # by_path[h.len]
                p.uint(i + j & 0xFFFF, 2)
            for e in range(2):  # elems: n, s.n, own[n], p.c, q.c, deep[p.c], t
                en, sn = rnd.randrange(3), rnd.randrange(3)
                p.uint(en, 1)
                p.uint(sn, 1)
                for j in range(en):
                    p.uint(i + e + j & 0xFF, 1)
                pc, qc = rnd.randrange(3), rnd.randrange(3)
                p.uint(pc, 1)
                p.uint(qc, 1)
                for j in range(pc):
                    p.uint(j + 7, 1)
                k = rnd.randrange(3)
                p.uint(k, 1)
                if k == 0:
                    p.uint(i + e & 0xFF, 1)
                elif k == 1:
                    p.align(2)
                    p.uint(i + e & 0xFFFF, 2)
                else:
                    p.string(names[(i + e) % len(names)])
            for j in range(m):  # outer[n]
                p.uint(200 + j, 1)
        elif eid == 4:
            # the length is held only when sel is A
            p.uint(0, 1)
            p.uint(m, 1)
            for j in range(m):
                p.uint(i + j, 2)
            k = i % 3  # a length in a struct
            p.uint(k, 1)
            p.align(2)
            for j in range(k):
                p.uint(i * 3 + j, 2)
        else:
            outer, inner = rnd.randrange(3), rnd.randrange(3)
            p.uint(outer, 1)
            p.uint(inner, 1)
            if outer == 0:
                p.uint(i & 0xFF, 1)
            elif outer == 1:
                if inner == 0:
                    p.uint(i & 0xFFFF, 2)
                elif inner == 1:
                    p.string(names[i % len(names)])
                else:
                    p.uint(i, 4)
            else:
                p.uint(i & 0x7F, 1)
                if inner == 0:
                    p.uint(i & 0xFF, 1)
                elif inner == 1:
                    p.uint(i & 0xFFFF, 2)
                else:
                    p.string(names[i % len(names)])
            for j in range(2):
                t = rnd.randrange(3)
                p.uint(t, 1)
                if t == 0:
                    p.uint(j, 1)
                elif t == 1:
                    p.uint(i + j, 4)
                else:
                    p.string(names[j])
        if len(p.b) > 3000:
            s.end()
            s.discarded += rnd.randrange(3)
            s.begin(ts)
    s.end()
    with open(os.path.join(out, "chan_0_0"), "wb") as f:
        f.write(s.file)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    out = args.pop(0)
    if {"--clockless", "--no-clock-block", "--empty-struct", "--quirk",
            "--damaged"} & set(args):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import gen_ctf_lenient
        gen_ctf_lenient.main(out, args)
        return
    if "--kernel" in args:
        n = int(args[args.index("--events") + 1]) if "--events" in args else 3000
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
        kernel_trace(out, n, 2, seed)
        return
    if "--session" in args:
        n = int(args[args.index("--periods") + 1]) if "--periods" in args else 20
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
        session_trace(out, n, seed)
        return
    if "--compound" in args:
        n = int(args[args.index("--events") + 1]) if "--events" in args else 400
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
        compound_trace(out, n, seed)
        return
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
