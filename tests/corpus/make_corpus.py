#!/usr/bin/python3
"""Builds tests/corpus/: small traces, each corrupt in one way.

usage: make_corpus.py GOOD_TRACE_DIR OUT_DIR

GOOD_TRACE_DIR is a small trace from bench/gen_trace with one stream file
default_4242_0 (e.g. `gen_trace DIR 40 --cpus 1 --packet 512`).  Every
entry of OUT_DIR is a trace directory that `lowtrace view` must reject
with a message naming a file in it.  The stream files are cut to a few
packets so that the corpus stays small; it also seeds the fuzzer.
"""
import os
import shutil
import struct
import sys

HDR = 88


def packets(data):
    """Offsets and sizes of the packets of a stream file."""
    out, off = [], 0
    while off < len(data):
        size = struct.unpack_from("<Q", data, off + 56)[0] // 8
        out.append((off, size))
        off += size
    return out


def put64(data, off, v):
    struct.pack_into("<Q", data, off, v)


def put32(data, off, v):
    struct.pack_into("<I", data, off, v)


def main():
    good, out = sys.argv[1], sys.argv[2]
    meta = open(os.path.join(good, "metadata")).read()
    stream = bytearray(open(os.path.join(good, "default_4242_0"), "rb").read())
    pk = packets(stream)
    if len(pk) < 3:
        sys.exit("make_corpus: the good trace needs 3 packets or more")
    stream = stream[: pk[2][0] + pk[2][1]]
    pk = pk[:3]
    (p1, s1), (p2, s2), (p3, s3) = pk

    cases = {}

    def case(name, data=None, metadata=None):
        cases[name] = (stream if data is None else data,
                       meta if metadata is None else metadata)

    def mod(fn):
        d = bytearray(stream)
        fn(d)
        return d

    case("bad_magic", mod(lambda d: put32(d, p2, 0xDEADBEEF)))
    case("packet_size_zero", mod(lambda d: put64(d, p2 + 56, 0)))
    case("packet_size_beyond_file",
         mod(lambda d: put64(d, p3 + 56, (s3 + 64) * 8)))
    case("content_size_over_packet_size",
         mod(lambda d: put64(d, p2 + 48, (s2 + 8) * 8)))
    # compact id 30: no such event in stream 0
    case("unknown_event_id",
         mod(lambda d: d.__setitem__(p1 + HDR, (d[p1 + HDR] & ~31) | 30)))

    def cut_content(d):
        put64(d, p1 + 48, (s1 - 3) * 8)

    case("field_past_content_end", mod(cut_content))
    case("timestamp_after_end",
         mod(lambda d: put64(d, p1 + 40,
                             struct.unpack_from("<Q", d, p1 + 32)[0])))

    def end_before_begin(d):
        b = struct.unpack_from("<Q", d, p2 + 32)[0]
        put64(d, p2 + 40, b - 1)

    case("timestamp_end_before_begin", mod(end_before_begin))
    case("uuid_mismatch", mod(lambda d: d.__setitem__(p2 + 9, d[p2 + 9] ^ 0xFF)))
    case("unknown_stream_id", mod(lambda d: put32(d, p1 + 20, 7)))
    case("truncated_packet", stream[: p3 + s3 // 2])
    case("truncated_header", stream[: p3 + 40])
    case("garbage_stream", bytes((i * 37 + 11) & 0xFF for i in range(700)))
    case("metadata_syntax", metadata=meta.replace("major = 1;", "major = 1", 1))
    case("metadata_empty", metadata="")
    case("metadata_no_header", metadata=meta.replace("/* CTF 1.8 */", "", 1))
    case("metadata_big_endian",
         metadata=meta.replace("byte_order = le;", "byte_order = be;", 1))
    case("metadata_bad_integer",
         metadata=meta.replace("size = 32; align = 8; signed = false; } id;",
                               "size = 99; align = 8; signed = false; } id;", 1))
    case("metadata_unknown_length",
         metadata=meta.replace("samples[_samples_length]", "samples[nope]", 1))
    case("metadata_unterminated_comment", metadata=meta + "\n/* open")
    case("metadata_header_layout",
         metadata=meta.replace("integer { size = 32; align = 8; signed = false; } cpu_id;",
                               "string cpu_id;", 1))

    if os.path.isdir(out):
        for e in os.listdir(out):
            p = os.path.join(out, e)
            if os.path.isdir(p):
                shutil.rmtree(p)
    os.makedirs(out, exist_ok=True)
    for name, (data, metadata) in cases.items():
        d = os.path.join(out, name)
        os.makedirs(d)
        with open(os.path.join(d, "metadata"), "w") as f:
            f.write(metadata)
        with open(os.path.join(d, "default_4242_0"), "wb") as f:
            f.write(data)
    # one case without a metadata file at all
    d = os.path.join(out, "metadata_missing")
    os.makedirs(d)
    with open(os.path.join(d, "default_4242_0"), "wb") as f:
        f.write(stream)


if __name__ == "__main__":
    main()
