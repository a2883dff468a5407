#!/bin/bash
# The cgroup step's cost on the hot path (make bench cannot see it on a
# hybrid host, where no cgroup is made): N runs of `kjail exec -- true` with
# the default limits (--memory 512M --pids 256: locate, reclaim, mkdir the
# leaf, write limits, clone into it, remove it) against N runs with no
# limits (no cgroup at all), interleaved so drift hits both alike; wall
# time from bash's $EPOCHREALTIME (no fork of date to blur it). Then the prepare step alone from KJAIL_TRACE.
# Prints; fails only if limits make a run more than 1.5x slower.
. /tests/lib.sh

N=${LIMITS_COST_RUNS:-50}
mkdir -p /tmp/cost-ws && cd /tmp/cost-ws || exit 1
rm -f /tmp/cost-*.us

# one FILE ARGS...: time one run, append microseconds to FILE.
one() {
	local f=$1 a b
	shift
	a=${EPOCHREALTIME/./}
	"$@" >/dev/null 2>&1 || return 1
	b=${EPOCHREALTIME/./}
	echo $((b - a)) >>"$f"
}
stat_line() { # FILE: median mean min (ms)
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
		END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%.2f %.2f %.2f\n", m / 1000, s / NR / 1000, v[1] / 1000 }'
}

failed=0
for i in $(seq "$N"); do
	one /tmp/cost-limits.us "$KJAIL" exec -- true || failed=1
	one /tmp/cost-none.us "$KJAIL" exec --memory max --pids max --cpus max -- true || failed=1
done
is "$failed" 0 "all_${N}_runs_succeed"

read -r lm lmean lmin <<<"$(stat_line /tmp/cost-limits.us)"
read -r nm nmean nmin <<<"$(stat_line /tmp/cost-none.us)"
ratio=$(awk -v a="$lm" -v b="$nm" 'BEGIN { printf "%.3f", a / b }')
diag "kjail exec -- true, $N runs each (TCG guest, ms):" \
	"  with limits  median $lm  mean $lmean  min $lmin" \
	"  no limits    median $nm  mean $nmean  min $nmin" \
	"  ratio (median) $ratio, difference $(awk -v a="$lm" -v b="$nm" 'BEGIN { printf "%.2f", a - b }') ms"

# The prepare step alone: "seccomp compiled" -> "cgroup ready".
prep() {
	KJAIL_TRACE=1 "$KJAIL" exec "$@" -- true 2>&1 >/dev/null | awk '
		/seccomp compiled$/ { a = $3 } /cgroup ready$/ { b = $3 }
		END { print b - a }'
}
for i in $(seq 20); do
	prep >>/tmp/cost-prep-limits.us
	prep --memory max --pids max --cpus max >>/tmp/cost-prep-none.us
done
diag "cgroup_prepare alone (trace, 20 runs, ms): with limits median $(stat_line /tmp/cost-prep-limits.us | cut -d' ' -f1)," \
	"  without $(stat_line /tmp/cost-prep-none.us | cut -d' ' -f1)"
check "limits_cost_under_1.5x ($ratio)" awk -v r="$ratio" 'BEGIN { exit !(r > 0 && r < 1.5) }'

done_testing
