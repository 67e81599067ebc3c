#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages that lowtrace's build, tests and benchmarks need.
# Idempotent: packages already present are left alone. Needs root (or sudo).
set -euo pipefail
pkgs=(
	build-essential make gcc clang clang-format libclang-rt-14-dev valgrind
	g++ cmake pkg-config     # C++ test, install test (CMake and pkg-config users)
	babeltrace2 python3-bt2 # reference CTF reader the tests compare against
	liburcu-dev             # liburcu, benchmarked beside our RCU
	liblttng-ust-dev lttng-tools # LTTng-UST, benchmarked beside our tracer
	spin                    # model checker for models/
	linux-perf              # perf, benchmarked beside kernel tracing
	chromium                # headless browser for the report test
	postgresql-15 python3.11 # programs with USDT markers, traced by tests/test_probes.sh
	passwd util-linux       # useradd and setpriv: tests/test_attach.sh's other user
	python3-barectf         # barectf: another CTF writer, tests/test_barectf.sh
	libdpdk-dev             # DPDK's trace library: another CTF writer, tests/test_dpdk.sh
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross # the aarch64 cross build
	qemu-user               # its tests, emulated (make check-cross ARCH=aarch64)
	gcc-riscv64-linux-gnu g++-riscv64-linux-gnu libc6-dev-riscv64-cross # the generic path's build
	libjansson-dev          # JSON parser for CTF 2 metadata (docs/reader.md says why)
	libbpf-dev bpftool      # the eBPF kernel channel (BPF programs built by clang)
	protobuf-compiler python3-protobuf # an independent reader of the Perfetto export
	python3-dev python3-numpy python3-pandas python3-pytest # the Python module and its tests
	python3-lttngust        # LTTng's Python agent, benchmarked beside ours
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
