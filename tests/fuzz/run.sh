#!/bin/sh
# make fuzz: run every libFuzzer target in BUILD for SECONDS each, from its
# checked-in seed corpus (tests/fuzz/corpus/NAME, never written to: new
# inputs go to BUILD/corpus/NAME). A crash, a sanitizer report, a leak in a
# target that checks for leaks, or a timeout fails the run; the input that
# caused it is kept as BUILD/artifacts/NAME-*, the output in
# BUILD/logs/NAME.log. One line per target.
#
#   sh tests/fuzz/run.sh BUILD SECONDS [NAME...]
set -u
build=$1
seconds=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
failed=
mkdir -p "$build/artifacts" "$build/logs"
targets=${*:-$(find "$build" -maxdepth 1 -type f -perm -u+x -name 'fuzz_*' | sed 's|.*/fuzz_||' | sort)}
[ -n "$targets" ] || { echo "fuzz: no targets in $build" >&2; exit 1; }
for name in $targets; do
	bin=$build/fuzz_$name
	seeds=$top/tests/fuzz/corpus/$name
	work=$build/corpus/$name
	log=$build/logs/$name.log
	mkdir -p "$work" "$seeds"
	dict=
	[ -f "$top/tests/fuzz/$name.dict" ] && dict=-dict=$top/tests/fuzz/$name.dict
	# -timeout: one input taking 25 s is a hang (a seccomp policy may take its
	# compiler child's 2 s of CPU first, longer on a loaded host);
	# -rss_limit_mb: a blow-up.
	# UBSan findings are fatal at compile time (-fno-sanitize-recover).
	if "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" $dict \
		"$work" "$seeds" >"$log" 2>&1; then
		echo "fuzz: $name: ok, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
			grep -o '[0-9]*$') runs in ${seconds}s, corpus $(ls "$work" | wc -l) inputs"
	else
		echo "fuzz: $name: FAILED (log: $log)"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' "$log" |
			head -8 | sed 's/^/fuzz:   /'
		failed="$failed $name"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed"
	exit 1
fi
echo "fuzz: every target ran clean"
