# SPDX-License-Identifier: MIT
"""Mutated traces through the module: bytes of the stream files and of the
metadata flipped, cut or zeroed, each trace opened and read whole (every
field's value made); each must read or raise a lowtrace.Error with the
reader's message, never crash the interpreter (the mutations run in a
child interpreter, whose death by a signal fails the test)."""
import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import made_traces

CHILD = textwrap.dedent("""
    import os, random, shutil, sys
    import lowtrace
    src, work, seed, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rnd = random.Random(seed)
    files = sorted(f for f in os.listdir(src) if not f.startswith("."))
    read = raised = 0
    for i in range(rounds):
        d = os.path.join(work, "m%d" % i)
        shutil.copytree(src, d)
        f = os.path.join(d, rnd.choice(files))
        b = bytearray(open(f, "rb").read())
        how = rnd.randrange(4)
        if how == 0 and b:
            for _ in range(rnd.randrange(1, 8)):
                b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        elif how == 1 and b:
            del b[rnd.randrange(len(b)):]
        elif how == 2 and b:
            at = rnd.randrange(len(b))
            b[at:at + 16] = bytes(min(16, len(b) - at))
        elif b:
            at = rnd.randrange(len(b))
            b[at:at + 4] = rnd.randbytes(min(4, len(b) - at))
        open(f, "wb").write(b)
        try:
            t = lowtrace.open(d)
            for ev in t.events():
                ev.payload, ev.context, ev.name, ev.timestamp
            tab = [c.name for c in t.classes]
            read += 1
        except lowtrace.Error as e:
            assert str(e), "an error without a message"
            raised += 1
        shutil.rmtree(d)
    print("read %d raised %d" % (read, raised))
""")


def test_mutated_traces(tmp_path):
    src = next((p for n, p in made_traces() if n == "gen_le_small"), None)
    if src is None:
        pytest.skip("no generated trace (run from tests/test_python.sh)")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(__import__("lowtrace").__file__)),
         os.path.dirname(__file__)])
    r = subprocess.run([sys.executable, str(script), src, str(tmp_path),
                        "7", "150"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, "child died (%d): %s" % (r.returncode,
                                                       r.stderr[-2000:])
    read, raised = [int(x) for x in r.stdout.split()[1::2]]
    # the mutations must reach the reader's checks
    assert raised > 0 and read + raised == 150
