#!/bin/sh
# make test: unit tests, then the integration and escape suites as root and
# as an unprivileged user. prove prints the summary line.
set -u
KJAIL=$(readlink -f "${1:-build/kjail}")
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export KJAIL PROBES="$top/build/tests"

if [ "$(id -u)" -ne 0 ]; then
	echo "tests: run as root (the suite drops to an unprivileged user itself)" >&2
	exit 1
fi
sh tests/probes/build.sh "$PROBES" || exit 1
# The unprivileged user must be able to reach the binary and the probes.
chmod -R a+rX build

# On a host where cgroup v2 cannot enforce limits (hybrid cgroups), the
# host suite runs without limits; tests/integration/limits.t proves that
# kjail refuses to run when they are required, and the VM proves them.
if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	export KJ_EXEC_ARGS="--memory max --pids max"
	echo "tests: cgroup v2 limits are not available on this host: integration tests run with $KJ_EXEC_ARGS"
fi

# One prove run, one summary: every integration file runs twice, as root
# and, through a two-line wrapper, as the unprivileged user.
as_user=$top/build/tests/as-user
rm -rf "$as_user"
mkdir -p "$as_user"
for t in tests/integration/*.t; do
	printf 'KJ_AS=user exec bash %s\n' "$top/$t" > "$as_user/$(basename "$t")"
done
chmod -R a+rX build
exec prove -f --exec bash tests/unit/*.sh tests/integration/*.t "$as_user"/*.t
