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

ret=0
prove_run() {
	label=$1
	shift
	echo "== $label"
	prove -f "$@" || ret=1
}
prove_run "unit" --exec sh tests/unit/*.sh
KJ_AS=root prove_run "integration as root" --exec bash tests/integration/*.t
KJ_AS=user prove_run "integration as an unprivileged user" --exec bash tests/integration/*.t
exit $ret
