# SPDX-License-Identifier: MIT
"""lowtrace: read CTF traces (lowtrace's, LTTng's, babeltrace2's test
traces) into Python, fast, and emit events from Python programs.

    import lowtrace
    trace = lowtrace.open("/path/to/trace")   # what `lowtrace view` opens
    for ev in trace.events(names=["sched:*"], cpus=[0]):
        print(ev.name, ev.timestamp, ev.cpu, ev["prev_tid"])
    tab = trace.table("sched_switch", fields=["prev_tid", "next_comm"])
    df = tab.to_pandas()
    lowtrace.event("myapp:frame", id=7, late_ms=1.5, name="render")

docs/python.md has the whole of it.
"""
from . import _reader
from ._reader import CorruptTraceError, Error, Event, OpenError

__all__ = [
    "open", "Trace", "Table", "Event", "EnumValue", "Error",
    "CorruptTraceError", "OpenError", "EventClass", "Field", "event",
    "enabled",
]


class EnumValue(int):
    """An enumeration's value: an int, with its labels (a tuple, empty
    when no label's range holds it)."""

    def __new__(cls, value, labels):
        o = int.__new__(cls, value)
        o.labels = labels
        return o

    def __repr__(self):
        return "EnumValue(%d, %r)" % (int(self), self.labels)


_reader.set_enum_type(EnumValue)


class Field:
    """A field of an event class: name, section ("payload",
    "event_context", "stream_context"), type (a dict: kind, size,
    signed, base, ...), depth (structs and variants it is in)."""

    __slots__ = ("name", "section", "type", "depth", "option")

    def __init__(self, d):
        self.name = d["name"]
        self.section = d["section"]
        self.type = d["type"]
        self.depth = d["depth"]
        self.option = d["option"]

    def __repr__(self):
        return "Field(%r, %s, %s)" % (self.name, self.section,
                                       self.type["kind"])


class EventClass:
    """An event class: index, name, id, stream_id, loglevel (None when
    the metadata gives none), format (an lt_tracef marker's, else None),
    fields (a list of Field, contexts then payload)."""

    __slots__ = ("index", "name", "id", "stream_id", "loglevel", "format",
                 "fields")

    def __init__(self, d):
        self.index = d["index"]
        self.name = d["name"]
        self.id = d["id"]
        self.stream_id = d["stream_id"]
        self.loglevel = d["loglevel"] if d["loglevel"] >= 0 else None
        self.format = d["format"]
        self.fields = [Field(f) for f in d["fields"]]

    @property
    def payload(self):
        return [f for f in self.fields if f.section == "payload"]

    def __repr__(self):
        return "EventClass(%r, id=%d, %d fields)" % (
            self.name, self.id, len(self.fields))


def _ns(t, name):
    if t is None:
        return None
    if isinstance(t, int):
        return t
    raise TypeError("%s: give ns since the epoch (an int)" % name)


class Trace:
    """A trace opened by lowtrace.open()."""

    def __init__(self, path):
        import os
        self.path = os.fspath(path)
        self._h = _reader.open(self.path)
        self.classes = [EventClass(c) for c in _reader.classes(self._h)]
        self.streams = _reader.streams(self._h)
        info = _reader.info(self._h)
        self.clock = info["clock"]
        self.begin_ns = info["begin_ns"]

    @property
    def clocks(self):
        """The distinct clocks of the streams (a tree of traces has one
        per trace)."""
        seen = []
        for s in self.streams:
            if s["clock"] not in seen:
                seen.append(s["clock"])
        return seen

    @property
    def env(self):
        """The env block of the trace (of its first trace, in a tree),
        values as text."""
        return dict(self.streams[0]["env"]) if self.streams else {}

    @property
    def discarded(self):
        """Events the tracer discarded, all streams (each stream's count
        is in streams[i]["discarded"])."""
        return sum(s["discarded"] for s in self.streams)

    def class_indexes(self, names):
        """The indexes of the classes whose name one of names (patterns
        as `lowtrace view -e` takes, or one name) takes."""
        if names is None:
            return None
        if isinstance(names, str):
            names = [names]
        names = list(names)
        # the patterns on the names' bytes as the trace has them, and a
        # name as Python reads it
        out = set(_reader.matching(self._h, names))
        out.update(c.index for c in self.classes if c.name in names)
        return sorted(out)

    def events(self, names=None, start=None, end=None, cpus=None,
               tids=None):
        """The events in time order.  names: patterns of class names;
        start, end: ns since the epoch (inclusive); cpus, tids: sets of
        numbers (a tid is the context's vtid or tid, else the packet's
        pid).  Events the filters leave out are not made into objects,
        and no field of any event is decoded until asked for."""
        return _reader.events(self._h, self.path,
                              self.class_indexes(names),
                              _ns(start, "start"), _ns(end, "end"),
                              None if cpus is None else list(cpus),
                              None if tids is None else list(tids))

    __iter__ = events

    def table(self, names, fields=(), start=None, end=None, cpus=None,
              tids=None):
        """The events of the classes names takes as columns, in one pass:
        a Table of NumPy arrays "timestamp" (int64 ns), "cpu", "stream"
        and one per field (int64, uint64 or float64; strings as
        categorical codes with their labels).  Every class taken must
        have every field, at the top level of a section."""
        idx = self.class_indexes(names)
        if not idx:
            raise KeyError("no event class matches %r" % (names,))
        raw = _reader.table(self._h, self.path, idx, list(fields),
                            _ns(start, "start"), _ns(end, "end"),
                            None if cpus is None else list(cpus),
                            None if tids is None else list(tids))
        return Table(raw, list(fields))

    def __repr__(self):
        return "<lowtrace.Trace %s: %d streams, %d event classes>" % (
            self.path, len(self.streams), len(self.classes))


class Column:
    """A string column: codes (int32, -1 where the event has no value)
    into labels (a list of str)."""

    __slots__ = ("codes", "labels")

    def __init__(self, codes, labels):
        self.codes = codes
        self.labels = labels

    def __len__(self):
        return len(self.codes)

    def to_numpy(self):
        """The strings as a NumPy array of objects (None where absent)."""
        import numpy as np
        lab = np.array(self.labels + [None], dtype=object)
        return lab[self.codes]

    def __getitem__(self, i):
        c = self.codes[i]
        return None if c < 0 else self.labels[c]


class Table:
    """Columns of a trace's events: table["timestamp"], table["cpu"],
    table["stream"], table[FIELD]: NumPy arrays, or a Column (codes and
    labels) for strings, or a list for arrays and compound fields."""

    def __init__(self, raw, fields):
        import numpy as np
        self.columns = {
            "timestamp": np.frombuffer(raw["timestamp"], dtype=np.int64),
            "cpu": np.frombuffer(raw["cpu"], dtype=np.uint32),
            "stream": np.frombuffer(raw["stream"], dtype=np.uint32),
        }
        for name in fields:
            c = raw["columns"][name]
            if c[0] == "codes":
                self.columns[name] = Column(
                    np.frombuffer(c[1], dtype=np.int32), c[2])
            elif c[0] == "object":
                self.columns[name] = c[1]
            else:
                self.columns[name] = np.frombuffer(c[1], dtype=c[0])

    def __getitem__(self, name):
        return self.columns[name]

    def __len__(self):
        return len(self.columns["timestamp"])

    def keys(self):
        return self.columns.keys()

    def to_pandas(self):
        """A pandas DataFrame (strings as categoricals)."""
        import pandas as pd
        data = {}
        for k, v in self.columns.items():
            if isinstance(v, Column):
                data[k] = pd.Categorical.from_codes(v.codes, v.labels)
            else:
                data[k] = v
        return pd.DataFrame(data)


def __getattr__(name):
    # the emitting half loads liblowtrace.so (and joins a recording):
    # only when asked for
    if name == "event":
        from . import _emit
        globals()["event"] = _emit.event
        return _emit.event
    if name == "enabled":
        from . import _emit
        globals()["enabled"] = _emit.enabled
        return _emit.enabled
    if name in ("logging", "analyze"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'lowtrace' has no attribute %r" % name)


def open(path):
    """Opens the trace at path: a CTF trace directory, or a tree of them
    (an LTTng session), as `lowtrace view` does.  Raises OpenError (a
    lowtrace.Error) when it cannot, CorruptTraceError when its bytes are
    not what its metadata says."""
    return Trace(path)
