# SPDX-License-Identifier: MIT
# median_time.sh - sourced by the benchmarks that time commands
# (bench/model.sh, bench/export.sh):
#   median_time CMD...  runs CMD $RUNS times under /usr/bin/time (its
#                       output to /dev/null, $tmp/time the scratch file)
#                       and prints the medians "WALL CPU RSS": seconds by
#                       the wall clock, seconds of CPU (user + system),
#                       the peak RSS in KiB.
#   BEFORE_RUN=CMD      run (eval) before each run, untimed
median_time() {
	local w=() c=() m=()
	for _ in $(seq "$RUNS"); do
		[ -z "${BEFORE_RUN:-}" ] || eval "$BEFORE_RUN"
		/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" > /dev/null
		read -r e u s k < "$tmp/time"
		w+=("$e") c+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')") m+=("$k")
	done
	local mid=$(((RUNS + 1) / 2))
	med() { printf '%s\n' "$@" | sort -g | sed -n "${mid}p"; }
	echo "$(med "${w[@]}") $(med "${c[@]}") $(med "${m[@]}")"
}
