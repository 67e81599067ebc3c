# SPDX-License-Identifier: MIT
"""Events from Python: a program's logging records (lowtrace.logging.Handler)
and ad hoc events (lowtrace.event) recorded by `lowtrace record -- python3
app.py`, beside the kernel's scheduling events (as root), and by `lowtrace
record -p PID` attached to a running program, read back with
lowtrace.open(); and nothing emitted while no one records."""
import os
import subprocess
import sys
import textwrap

import pytest

import lowtrace

APP = textwrap.dedent("""
    import logging, threading, lowtrace, lowtrace.logging
    log = logging.getLogger("app.worker")
    log.setLevel(logging.DEBUG)
    log.addHandler(lowtrace.logging.Handler())
    print("enabled", lowtrace.logging.enabled(), flush=True)
    def work(n):
        for i in range(n):
            log.info("frame %d late by %.1f ms (%s)", i, i * 1.5, "render")
            lowtrace.event("pyapp:frame", id=i, late=i * 1.5, name="f%d" % i)
    work(20)
    t = threading.Thread(target=work, args=(5,))
    t.start(); t.join()
    log.warning("done: %r", {"a": 1})
    log.error("no args, 100%")
""")


def lt_cmd():
    b = os.environ.get("BUILD", "build")
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    if not os.path.isabs(b):
        b = os.path.join(top, b)
    return os.path.join(b, "lowtrace")


def test_record_python_program(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(APP)
    out = tmp_path / "trace"
    kernel = os.geteuid() == 0
    cmd = [lt_cmd(), "record", "-o", str(out)]
    if kernel:
        cmd += ["-k", "sched:sched_switch"]
    cmd += ["--", sys.executable, str(app)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "enabled True" in r.stdout
    t = lowtrace.open(str(out))
    logs = list(t.events(names=["python:logging"]))
    assert len(logs) == 27
    first = logs[0]
    assert first["logger"] == "app.worker"
    assert first["level"] == 20
    assert first["msg"] == "frame %d late by %.1f ms (%s)"
    assert first["pathname"] == str(app)
    assert first["func"] == "work"
    assert first["lineno"] == 9
    assert lowtrace.logging.message(first) == \
        "frame 0 late by 0.0 ms (render)"
    assert [lowtrace.logging.message(e) for e in logs[-2:]] == \
        ["done: {'a': 1}", "no args, 100%"]
    assert logs[-1]["level"] == 40
    # the second thread's records: its own tid
    tids = {e["tid"] for e in logs}
    assert len(tids) == 2
    frames = list(t.events(names=["pyapp:frame"]))
    assert [e["id"] for e in frames] == list(range(20)) + list(range(5))
    assert frames[3]["late"] == 4.5 and frames[3]["name"] == "f3"
    if kernel:
        sched = t.table("sched:sched_switch", fields=["next_pid"])
        assert len(sched) > 0
        # on one timeline: the program's events between the kernel's
        ts = sched["timestamp"]
        assert ts[0] < logs[0].timestamp < ts[-1]
        assert any(int(n) in tids for n in sched["next_pid"])
    else:
        pytest.skip("kernel events need root: the Python events alone")


def test_nothing_emitted_unrecorded():
    env = dict(os.environ)
    for k in ("LOWTRACE_TRACE", "LOWTRACE_SESSION_SOCK"):
        env.pop(k, None)
    code = textwrap.dedent("""
        import logging, lowtrace, lowtrace.logging
        h = lowtrace.logging.Handler()
        log = logging.getLogger("x"); log.addHandler(h)
        log.warning("w %s", object())
        assert lowtrace.event("pyapp:x", a=1) is None
        assert not lowtrace.enabled("pyapp:x")
        assert not lowtrace.logging.enabled()
        try:
            lowtrace.event("noprovider", a=1)
        except ValueError:
            print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


ATTACHED = textwrap.dedent("""
    import logging, sys, time, lowtrace.logging
    log = logging.getLogger("svc")
    log.setLevel(logging.INFO)
    log.addHandler(lowtrace.logging.Handler())
    print("ready", flush=True)
    # until `lowtrace record -p` has joined
    end = time.monotonic() + 20
    while not lowtrace.logging.enabled() and time.monotonic() < end:
        time.sleep(0.01)
    for i in range(10):
        log.info("tick %d", i)
""")


def test_attach_python_program(tmp_path):
    """lowtrace record -p PID joins a running Python program."""
    app = tmp_path / "svc.py"
    app.write_text(ATTACHED)
    p = subprocess.Popen([sys.executable, str(app)], stdout=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        out = tmp_path / "trace"
        r = subprocess.run([lt_cmd(), "record", "-o", str(out), "-p",
                            str(p.pid)], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
    msgs = [lowtrace.logging.message(e) for e in
            lowtrace.open(str(out)).events(names=["python:logging"])]
    assert msgs == ["tick %d" % i for i in range(10)]
