#!/bin/sh
# make bench: start-up cost of kjail against bubblewrap and unshare, in one
# hyperfine run, with medians and ratios. Not a timed test: it prints.
set -eu
KJAIL=$(readlink -f "${1:-build/kjail}")
RUNS=${BENCH_RUNS:-300}
WS=$(mktemp -d /tmp/kjail-bench.XXXXXX)
trap 'rm -rf "$WS"' EXIT
cd "$WS"

echo "machine: $(uname -sr), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "kjail: start-up steps of one run (KJAIL_TRACE=1):"
KJAIL_TRACE=1 "$KJAIL" exec -- /bin/true 2>&1 | sed 's/^/  /'

limits=""
"$KJAIL" exec --help 2>/dev/null | grep -q -- '--limits' && limits="--limits best-effort"

hyperfine -N --style basic -w 30 -r "$RUNS" --export-json "$WS/bench.json" \
	-n kjail "$KJAIL exec --quiet $limits -- /bin/true" \
	-n bwrap "bwrap --ro-bind / / --tmpfs /tmp --bind $WS $WS --proc /proc --dev /dev --unshare-all --die-with-parent --new-session --cap-drop ALL --chdir $WS /bin/true" \
	-n unshare "unshare -Urmpfn --mount-proc /bin/true" \
	-n true "/bin/true" >/dev/null

python3 - "$WS/bench.json" "$KJAIL" "$limits" <<'PY'
import json, statistics, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {k: statistics.median(v["times"]) * 1000 for k, v in res.items()}
print("%-8s %10s %10s" % ("", "median ms", "mean ms"))
for k in ("kjail", "bwrap", "unshare", "true"):
    print("%-8s %10.2f %10.2f" % (k, med[k], res[k]["mean"] * 1000))
print("kjail / bwrap   = %.2f  (target <= 0.5)" % (med["kjail"] / med["bwrap"]))
print("kjail / unshare = %.2f  (target <= 1.2)" % (med["kjail"] / med["unshare"]))
PY
printf 'kjail peak RSS: %s KiB (GNU time: kjail and the processes it reaped)\n' \
	"$(/usr/bin/time -f %M "$KJAIL" exec --quiet $limits -- /bin/true 2>&1 >/dev/null | tail -1)"
printf '/bin/true peak RSS: %s KiB\n' "$(/usr/bin/time -f %M /bin/true 2>&1 | tail -1)"
