# SPDX-License-Identifier: MIT
"""lowtrace.logging: a logging handler whose records become lowtrace
events of the class python:logging, on the same timeline as the
process's C tracepoints and the kernel's events.

    import logging, lowtrace.logging
    logging.getLogger().addHandler(lowtrace.logging.Handler())

The record's fields: logger, level (levelno), msg (unformatted), args
(their repr(), "" for none), pathname, lineno, func, thread (Python's
thread ident) and tid (the kernel's).  Nothing is formatted, and nothing
of the record is read, while no one records the event.  message(ev)
formats a record read back from a trace.
"""
import ast
import logging as _logging

from . import _emit

CLASS = "python:logging"


class Handler(_logging.Handler):
    """Records each record as an event (no lock, no formatter: the
    record goes to the trace as it is)."""

    # a C function, which does not bind: hdlr.handle(record) is one call
    handle = _emit.log

    def addFilter(self, f):
        super().addFilter(f)
        # filters apply: the Python handle()
        self.handle = self._handle_filtered

    def _handle_filtered(self, record):
        if self.filter(record):
            _emit.log(record)
            return True
        return False

    def emit(self, record):
        _emit.log(record)


def enabled():
    """Whether someone records python:logging now."""
    return _emit.log_enabled()


def message(ev):
    """The message of a python:logging event read back (a
    lowtrace.Event or a dict of its payload): msg % args, where args
    reads back; else msg as it is."""
    msg = ev["msg"]
    args = ev["args"]
    if not args:
        return msg
    try:
        return msg % ast.literal_eval(args)
    except (ValueError, SyntaxError, TypeError, KeyError):
        return msg
