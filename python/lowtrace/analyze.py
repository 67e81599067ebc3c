# SPDX-License-Identifier: MIT
"""lowtrace.analyze: the analyses of `lowtrace analyze` as Python data.

Each function runs `lowtrace analyze VERB TRACE ... --json` and returns
its document, parsed (dicts and lists; docs/analysis-json.md has the
schema):

    import lowtrace, lowtrace.analyze
    d = lowtrace.analyze.latency("/tmp/demo", anchor="demo:late", top=3)
    for x in d["explanations"]:
        print(x["late_ns"], x["verdict"])

TRACE is a path or a lowtrace.Trace.  The command is the lowtrace beside
the package (the build tree's, or the prefix's bin/), else LOWTRACE_CMD,
else the one on PATH.  A run that fails raises lowtrace.Error with the
command's message.
"""
import json
import os
import shutil
import subprocess

from . import Error, Trace

__all__ = ["latency", "jitter", "sched", "cpu", "syscalls", "irq"]


def command():
    """The lowtrace command the analyses run."""
    env = os.environ.get("LOWTRACE_CMD")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    # build/python/lowtrace/ -> build/lowtrace; PREFIX/lib/pythonX.Y/
    # dist-packages/lowtrace/ -> PREFIX/bin/lowtrace
    for rel in (("..", "..", "lowtrace"),
                ("..", "..", "..", "..", "bin", "lowtrace")):
        p = os.path.normpath(os.path.join(here, *rel))
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which("lowtrace") or "lowtrace"


def run(verb, trace, **opts):
    """`lowtrace analyze VERB TRACE --OPT VALUE ... --json`, parsed: an
    option given None is left out, one given True is a flag, a name's
    '_' is '-'."""
    path = trace.path if isinstance(trace, Trace) else os.fspath(trace)
    argv = [command(), "analyze", verb, path]
    for k, v in opts.items():
        if v is None or v is False:
            continue
        argv.append("--" + k.replace("_", "-"))
        if v is not True:
            argv.append(str(v))
    argv.append("--json")
    try:
        r = subprocess.run(argv, capture_output=True, text=True,
                           errors="replace")
    except OSError as e:
        raise Error(e.errno or 0, "%s: %s" % (argv[0], e.strerror)) from e
    if r.returncode != 0:
        raise Error(r.returncode, r.stderr.strip() or
                    "lowtrace analyze %s exited %d" % (verb, r.returncode))
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise Error(0, "lowtrace analyze %s: not a JSON document: %s"
                    % (verb, e)) from e


def latency(trace, anchor=None, by=None, top=None, span=None, min=None):
    """The worst anchors (or spans, span="START..END") and where their
    time went: the walk-back's verdict, its parts and the events it rests
    on."""
    return run("latency", trace, anchor=anchor, by=by, top=top, span=span,
               min=min)


def jitter(trace, event=None, period=None, top=None):
    """The worst expiries of a periodic event."""
    return run("jitter", trace, event=event, period=period, top=top)


def sched(trace, top=None):
    """Per thread, the wait for a CPU after each wake-up."""
    return run("sched", trace, top=top)


def cpu(trace, top=None):
    """CPU time per thread and per CPU."""
    return run("cpu", trace, top=top)


def syscalls(trace, top=None):
    """Time in system calls per syscall, the slowest calls."""
    return run("syscalls", trace, top=top)


def irq(trace, top=None):
    """Interrupt and softirq handler durations."""
    return run("irq", trace, top=top)
