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
# The probes (and kjail, which some attacks aim at) must be visible inside
# the sandboxes: a clone under /tmp is not (the sandbox's /tmp is its
# own), so both are staged in a directory of the suite's own under
# /var/tmp, reachable by the unprivileged user too, and removed at exit.
stage=$(mktemp -d /var/tmp/kjail-tests.XXXXXX) || exit 1
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/probes"
find "$PROBES" -maxdepth 1 -type f -perm -u+x -exec cp {} "$stage/probes/" \;
cp "$KJAIL" "$stage/kjail"
chmod -R a+rX "$stage"
chmod 755 "$stage"
KJAIL=$stage/kjail
PROBES=$stage/probes
export KJAIL PROBES
chmod -R a+rX build

# On a host where cgroup v2 cannot enforce limits (hybrid cgroups), the
# host suite runs without limits; tests/integration/limits.t proves that
# kjail refuses to run when they are required, and the VM proves them.
if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	export KJ_EXEC_ARGS="--memory max --pids max"
	echo "tests: cgroup v2 limits are not available on this host: integration tests run with $KJ_EXEC_ARGS"
fi

# One prove run, one summary: every integration and escape file runs
# twice, as root and, through a two-line wrapper, as the unprivileged user.
as_user=$top/build/tests/as-user
rm -rf "$as_user"
mkdir -p "$as_user"
for t in tests/integration/*.t tests/escape/*.t; do
	printf 'KJ_AS=user exec bash %s\n' "$top/$t" > "$as_user/$(basename "$t")"
done
chmod -R a+rX build
# KJ_TEST_LANES picks the lanes: "root user" by default; the sanitizer
# build's run (make test SANITIZE=1) takes the root lane only, to keep
# .ci/run inside its time (the unprivileged lane's extra code paths run
# in the plain build, here and in the VM).
lanes=${KJ_TEST_LANES:-}
[ -n "$lanes" ] || { [ -n "${KJ_SANITIZE:-}" ] && lanes=root || lanes="root user"; }
set -- tests/unit/*.sh
for l in $lanes; do
	case $l in
	root) set -- "$@" tests/integration/*.t tests/escape/*.t;;
	user) set -- "$@" "$as_user"/*.t;;
	*) echo "tests: KJ_TEST_LANES: '$l' is neither root nor user" >&2; exit 1;;
	esac
done
[ "$lanes" = "root user" ] || echo "tests: lanes: $lanes (KJ_TEST_LANES=\"root user\" runs both)"
if [ -z "${KJ_SANITIZE:-}" ]; then
	prove -f --exec "bash tests/leak-guard.sh" "$@"
	exit $?
fi

# make test SANITIZE=1: the same suite on kjail built with ASan and UBSan
# (every UBSan finding fatal). Reports from kjail outside the sandbox go to
# $san_logs (any file there fails the run); kjail's pieces inside the
# sandbox cannot write there (the root is read-only), so a report there
# says "Can't open file" on stderr and dies, which fails its test.
# Leak detection is off, built in (tests/fuzz/asan_defaults.c says why);
# where a test resets the environment, reports go to stderr instead.
san_logs=$top/build/san-logs
rm -rf "$san_logs"
mkdir -m 1777 "$san_logs"
export ASAN_OPTIONS="detect_leaks=0:log_path=$san_logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$san_logs/ubsan"
echo "tests: $KJAIL is built with sanitizers; reports go to $san_logs"
prove -f --exec "bash tests/leak-guard.sh" "$@"
rc=$?
if [ -n "$(ls -A "$san_logs")" ]; then
	echo "tests: sanitizer reports:" >&2
	head -n 40 "$san_logs"/* >&2
	exit 1
fi
exit "$rc"
