#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make bench`: every benchmark, one after the other, in one run.
set -euo pipefail
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
"$BUILD"/bench/ring
for b in "$BUILD"/bench/rcu; do
	[ -x "$b" ] && "$b"
done
bash bench/compare-lttng.sh
