# SPDX-License-Identifier: MIT
"""pytest setup for the lowtrace module's tests (tests/test_python.sh runs
them): the traces tests/test_python.sh made (LT_PY_TRACES, a directory of
traces), the shared LTTng kernel traces, and the tools they need."""
import os

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(TOP), "shared", "data")


def require(what, why):
    """Skips (fails under LOWTRACE_REQUIRE_ALL=1) when what is None."""
    if what is not None:
        return what
    if os.environ.get("LOWTRACE_REQUIRE_ALL", "0") not in ("", "0"):
        pytest.fail("under LOWTRACE_REQUIRE_ALL=1: " + why)
    pytest.skip(why)


def made_traces():
    """(name, path) of each trace tests/test_python.sh made."""
    d = os.environ.get("LT_PY_TRACES")
    if not d or not os.path.isdir(d):
        return []
    return [(n, os.path.join(d, n)) for n in sorted(os.listdir(d))]


def shared_traces():
    out = []
    for n in ("bug446190", "flipping-endianness"):
        p = os.path.join(SHARED, n)
        if os.path.isdir(p):
            out.append(("shared_" + n, p))
    return out
