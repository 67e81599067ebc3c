#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the CTF 1.8 traces that readers must take leniently, for
tests/test_lenient.sh (gen_ctf.py's --clockless, --quirk, --empty-struct
and --damaged options call write()):

  clockless            no clock block and no timestamps: three streams of
                       several packets, events in stream order
  no-clock-block       timestamps but no clock block (babeltrace2 counts
                       them as ns since the epoch)
  empty-struct         an event whose payload and context are `struct {}`
  quirk NAME           a trace of one tracer's known quirk, its env naming
                       the tracer and version babeltrace2 fixes it for:
    event-after-packet   events a few ns after their packet's
                         timestamp_end (LTTng-UST before 2.11)
    event-before-packet  a packet's first event before its timestamp_begin
                         (barectf before 2.3.1)
    packet-overlap       a packet that begins a few ns before the previous
                         one of its stream ended (LTTng before 2.8)
    crash                timestamp_end 0 in the last packets of a stream
                         (a buffer lttng-crash recovered)
    discarded-back       events_discarded lower than the packet before's
    no-packet-times      packet contexts without timestamp_begin and
                         timestamp_end
  damaged              a packet whose first event has an unknown id and a
                       packet whose content_size is past its packet_size,
                       each in the middle of a stream; OUT_DIR.ref gets
                       the same trace without those two packets
A quirk's trace has its twin without the quirk in OUT_DIR.ref (babeltrace2
2.0.4 refuses packet-overlap: its events are compared with the twin's).
"""
import os
import random
import struct
import uuid as uuidlib

MAGIC = 0xC1FC1FC1
BASE = 1764740000 * 10**9  # the clock's offset, ns

TRACERS = {
    "event-after-packet": ("lttng-ust", 2, 10, 0),
    "event-before-packet": ("barectf", 2, 3, 0),
    "packet-overlap": ("lttng-modules", 2, 7, 0),
    "crash": ("lttng-ust", 2, 13, 0),
}


def metadata(uid, clock, times, tracer, empty, block=True):
    out = ["""/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 32; signed = false; } := uint32_t;
typealias integer { size = 64; align = 64; signed = false; } := uint64_t;
trace {
	major = 1;
	minor = 8;
	uuid = "%s";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};
env {
	hostname = "genhost";
	domain = "ust";
	tracer_name = "%s";
	tracer_major = %d;
	tracer_minor = %d;
	tracer_patch = %d;
};
""" % ((str(uid),) + tracer)]
    ts = "uint64_t"
    if clock and block:
        out.append("""clock {
	name = "gen";
	freq = 1000000000;
	offset_s = 1764740000;
};
typealias integer { size = 64; align = 64; signed = false; map = clock.gen.value; } := uint64_clock_t;
""")
        ts = "uint64_clock_t"
    pc = ("\t\t%s timestamp_begin;\n\t\t%s timestamp_end;\n" % (ts, ts)) if times else ""
    eh = ("\t\t%s timestamp;\n" % ts) if clock else ""
    out.append("""stream {
	id = 0;
	event.header := struct {
		uint32_t id;
%s	};
	packet.context := struct {
%s		uint64_t content_size;
		uint64_t packet_size;
		uint64_t events_discarded;
		uint32_t cpu_id;
	};
};
event {
	name = "gen:tick";
	id = 0;
	stream_id = 0;
	fields := struct { uint32_t seq; string s; };
};
""" % (eh, pc))
    if empty:
        out.append("""event {
	name = "gen:empty";
	id = 1;
	stream_id = 0;
	fields := struct { };
};
event {
	name = "gen:empty_ctx";
	id = 2;
	stream_id = 0;
	context := struct { };
	fields := struct { uint32_t seq; struct { } nothing; };
};
""")
    return "".join(out)


class Packet:
    def __init__(self, sid, inst, clock, times, begin, end, discarded, cpu):
        self.clock, self.times = clock, times
        b = bytearray()
        b += struct.pack("<I", MAGIC) + UID.bytes + struct.pack("<IQ", sid, inst)
        if times:
            b += struct.pack("<QQ", begin, end)
        self.sizes_at = len(b)
        b += struct.pack("<QQQI", 0, 0, discarded, cpu)
        self.b = b

    def align(self, n):
        while len(self.b) % n:
            self.b.append(0)

    def event(self, eid, ts, payload):
        self.align(8 if self.clock else 4)
        self.b += struct.pack("<I", eid)
        if self.clock:
            self.align(8)
            self.b += struct.pack("<Q", ts)
        self.b += payload

    def close(self):
        content = len(self.b) * 8
        size = (len(self.b) + 64 + 511) // 512 * 512
        self.b += bytes(size - len(self.b))
        struct.pack_into("<QQ", self.b, self.sizes_at, content, size * 8)
        return bytes(self.b)


def tick(seq, s):
    return struct.pack("<I", seq) + s.encode() + b"\0"


UID = None


def write(out, kind, quirk=None, n=300, seed=1):
    """Writes the trace of kind ('clockless', 'no-clock-block',
    'empty-struct', 'quirk' with quirk NAME, 'damaged') in out."""
    global UID
    rnd = random.Random(seed)
    lost = random.Random(seed)  # apart: a quirk's twin has the same events
    UID = uuidlib.UUID(int=rnd.getrandbits(128))
    clock = kind != "clockless"
    times = clock and quirk != "no-packet-times"
    tracer = TRACERS.get(quirk, ("gen_ctf", 1, 0, 0))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(metadata(UID, clock, times, tracer, kind == "empty-struct",
                         kind != "no-clock-block"))
    nstreams = 3
    words = ["alpha", "beta", "gamma delta", "x" * 20]
    # per stream: packets of events (eid, ts, payload), ts increasing
    ts = 1000
    streams = [[[]] for _ in range(nstreams)]
    for i in range(n):
        k = rnd.randrange(nstreams)
        ts += rnd.choice([3, 50, 700])
        if kind == "empty-struct" and i % 3:
            eid = i % 3
            payload = b"" if eid == 1 else struct.pack("<I", i)
        else:
            eid, payload = 0, tick(i, words[i % len(words)])
        streams[k][-1].append((eid, ts, payload))
        if len(streams[k][-1]) >= 12:
            streams[k].append([])
    bad = []
    ref = []
    for k, pkts in enumerate(streams):
        pkts = [p for p in pkts if p]
        data, rdata = bytearray(), bytearray()
        discarded = 0
        for j, evs in enumerate(pkts):
            # a packet begins where the one before ended, at its last
            # event
            begin = pkts[j - 1][-1][1] if j else evs[0][1] - 1
            end = evs[-1][1]
            last = j == len(pkts) - 1
            if quirk == "event-after-packet" and j % 2 == 0:
                end -= 3  # the last event 3 ns after the end
            if quirk == "event-before-packet" and j > 0:
                begin = evs[0][1] + 2  # the first event 2 ns before
            if quirk == "packet-overlap" and j > 0:
                begin -= 4  # 4 ns before the packet before ended
            if quirk == "crash" and last:
                end = 0
            if quirk == "discarded-back":
                discarded = [0, 4, 9, 2, 6][j % 5]
            elif j and quirk is None:
                # babeltrace2 times a loss from the packet before's end,
                # which these quirks move
                discarded += lost.randrange(2)
            p = Packet(0, k, clock, times, begin, end, discarded, k)
            damaged = kind == "damaged" and j == 1 and k < 2
            for m, (eid, t, payload) in enumerate(evs):
                if damaged and k == 0 and m == 0:
                    eid = 77  # an id the metadata has not
                p.event(eid, t, payload)
            pkt = p.close()
            if damaged and k == 1:
                # content_size past packet_size: the packet's size is
                # known, its content not
                pkt = bytearray(pkt)
                struct.pack_into("<Q", pkt, p.sizes_at, len(pkt) * 8 + 8)
                pkt = bytes(pkt)
            data += pkt
            if damaged:
                bad.append((k, len(data) - len(pkt)))
            else:
                rdata += pkt
        with open(os.path.join(out, "stream_%d" % k), "wb") as f:
            f.write(data)
        ref.append(rdata)
    if kind == "damaged":
        rout = out.rstrip("/") + ".ref"
        os.makedirs(rout, exist_ok=True)
        with open(os.path.join(rout, "metadata"), "w") as f:
            f.write(metadata(UID, clock, times, tracer, False))
        for k, rdata in enumerate(ref):
            with open(os.path.join(rout, "stream_%d" % k), "wb") as f:
                f.write(rdata)
    return bad


def main(out, args):
    """gen_ctf.py's options for these traces."""
    n = int(args[args.index("--events") + 1]) if "--events" in args else 300
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    if "--quirk" in args:
        write(out, "quirk", args[args.index("--quirk") + 1], n, seed)
        write(out.rstrip("/") + ".ref", "quirk", None, n, seed)
    elif "--clockless" in args:
        write(out, "clockless", None, n, seed)
    elif "--no-clock-block" in args:
        write(out, "no-clock-block", None, n, seed)
    elif "--empty-struct" in args:
        write(out, "empty-struct", None, n, seed)
    else:
        for k, off in write(out, "damaged", None, n, seed):
            print("stream_%d %d" % (k, off))
