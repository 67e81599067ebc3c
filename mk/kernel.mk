# SPDX-License-Identifier: MIT
# The kernel channel (src/tool/kernel/): tests and benchmarks need nothing beyond
# the library; `make bench-kernel` runs the pipe ping-pong comparison.
.PHONY: bench-kernel
bench-kernel: all
	BUILD=$(BUILD) bash bench/kernel.sh
