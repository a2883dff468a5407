# Shared helpers for kjail's integration tests (bash). Each test file
# sources this, calls plan-less TAP helpers and ends with `done_testing`.
#
#   KJAIL     path to the kjail binary (absolute)
#   KJ_AS     "root" or "user": who runs kjail (the test script itself runs
#             as root so it can prepare host-side fixtures)
#   KJ_USER   the unprivileged account for KJ_AS=user (default nobody)
#
# Everything a test creates lives under $T, a fresh directory in /tmp that
# is removed at exit.
set -u
KJAIL=${KJAIL:?KJAIL must name the kjail binary}
KJ_AS=${KJ_AS:-root}
KJ_USER=${KJ_USER:-nobody}
PROBES=${PROBES:-$(dirname "$KJAIL")/tests}
_n=0
_failed=0

# Where the caller's kjail settings live (runtime/conffile.c,
# conf_user_dir): a test that wants one sets it itself.
unset XDG_CONFIG_HOME

T=$(mktemp -d /tmp/kjail-test.XXXXXX)
chmod 0755 "$T"
_cleanup() {
	cd /
	# Fixtures mounted by a test are unmounted before the directory goes.
	for m in $(awk -v t="$T" '$5 ~ "^"t {print $5}' /proc/self/mountinfo | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$T"
}
trap _cleanup EXIT

# A workspace owned by whoever runs kjail.
WS=$T/ws
mkdir -p "$WS"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$WS"
cd "$WS"

if [ "$KJ_AS" = user ]; then
	KJ_UID=$(id -u "$KJ_USER")
	KJ_GID=$(id -g "$KJ_USER")
else
	KJ_UID=0
	KJ_GID=0
fi

# as_caller CMD...: run CMD as the account the tests are about; with
# KJ_NETNS=PID set, in that process's network namespace (a test's own,
# for host state kjail lists there: its unix sockets).
as_caller() {
	local ns=()
	[ -n "${KJ_NETNS:-}" ] && ns=(nsenter -t "$KJ_NETNS" -n)
	if [ "$KJ_AS" = user ]; then
		"${ns[@]}" setpriv --reuid="$KJ_USER" --regid="$(id -g "$KJ_USER")" --clear-groups \
			-- env HOME="${KJ_HOME:-/nonexistent}" USER="$KJ_USER" LOGNAME="$KJ_USER" "$@"
	else
		"${ns[@]}" "$@"
	fi
}

# KJ_TIME_SLACK_MS: added to the upper bound of the timing checks (0; the
# TCG VM sets 2000, see tests/vm/hostsuite). Each bound plus the slack
# stays below the failure it guards against.
KJ_TIME_SLACK_MS=${KJ_TIME_SLACK_MS:-0}

# KJ_EXEC_ARGS: options added to every `kj exec` (tests/run.sh sets
# "--memory max --pids max" on a host where cgroup v2 limits cannot be
# enforced, such as a hybrid-cgroup machine; the limits themselves are
# proven in the VM).
KJ_EXEC_ARGS=${KJ_EXEC_ARGS:-}

# session_test_setup: for the session suites. Each run gets its own state
# directory (XDG_RUNTIME_DIR for the unprivileged user; root's is
# /run/kjail, so names carry $$). Options that shape a sandbox go to
# create, in $CREATE_ARGS (on a hybrid host KJ_EXEC_ARGS holds the
# no-limits pair); single execs carry none.
session_test_setup() {
	if [ "$KJ_AS" = user ]; then
		export XDG_RUNTIME_DIR=$T/xdg
		mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR" &&
			chown "$KJ_USER" "$XDG_RUNTIME_DIR"
	fi
	CREATE_ARGS=$KJ_EXEC_ARGS
	KJ_EXEC_ARGS=
}

# kj ARGS...: run kjail as the caller; sets $out, $err, $rc.
kj() {
	local o e
	o=$T/.out.$$ e=$T/.err.$$
	if [ "${1:-}" = exec ] && [ -n "$KJ_EXEC_ARGS" ]; then
		shift
		# shellcheck disable=SC2086
		set -- exec $KJ_EXEC_ARGS "$@"
	fi
	# KJ_KILL_AFTER=SECONDS: a kjail that hangs is killed (137), so a
	# test of a hang fails instead of stalling the suite.
	as_caller ${KJ_KILL_AFTER:+timeout -s KILL "$KJ_KILL_AFTER"} "$KJAIL" "$@" >"$o" 2>"$e" </dev/null
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}

_report() { # ok? name [diag]
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_n - $2"
	else
		_failed=$((_failed + 1))
		echo "not ok $_n - $2"
		# On stderr as well: prove shows it without -v, so a failed
		# run in CI says what it got.
		if [ -n "${3:-}" ]; then
			printf '%s\n' "$3" | sed 's/^/#   /'
			printf '%s\n' "$3" | sed 's/^/#   /' >&2
		fi
	fi
	return 0
}

ok() { # name command...
	local name=$1
	shift
	if "$@"; then _report 0 "$name"; else _report 1 "$name"; fi
}

is() { # got expected name
	if [ "$1" = "$2" ]; then
		_report 0 "$3"
	else
		_report 1 "$3" "got:      $(printf %q "$1")
expected: $(printf %q "$2")
stderr:   ${err:-}"
	fi
}

like() { # got regex name
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		_report 0 "$3"
	else
		_report 1 "$3" "got:      $1
expected to match: $2$(_context "$1")"
	fi
}

# _context GOT: the last kj run's status and stderr, when GOT is not that
# stderr itself (a failed match on $out says why the run printed nothing).
_context() {
	[ "$1" != "${err-}" ] || return 0
	printf '\nrc:       %s\nstderr:   %s' "${rc-}" "${err-}"
}

unlike() { # got regex name
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		_report 1 "$3" "got:      $1
expected not to match: $2"
	else
		_report 0 "$3"
	fi
}

# settles SECONDS command...: run the command every 0.05 s until it
# succeeds or SECONDS have passed; its last status. For what must become
# true soon after an event (the processes a kill leaves are gone), where
# a fixed sleep fails on a loaded machine.
settles() {
	local end=$((${EPOCHREALTIME/./} / 1000 + $1 * 1000))
	shift
	until "$@"; do
		[ $((${EPOCHREALTIME/./} / 1000)) -lt "$end" ] || return 1
		sleep 0.05
	done
}

# kj_children PID: PID's children, one per line, but a cgroup leaf's
# sweeper (kjail's child outside the leaf that removes it if kjail is
# killed, runtime/cgroup_sweep.c): it exists only where limits are
# enforced, as in the test VM, not on a hybrid-cgroup host; and the
# rename watch's closer (runtime/close_detached.c), which kjail starts
# as the sandbox has ended.
kj_children() {
	local c comm
	for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
		comm=$(cat "/proc/$c/comm" 2>/dev/null)
		[ "$comm" = kjail-sweep ] || [ "$comm" = kjail-close ] || echo "$c"
	done
}

# guardian_state PID: the set-up a guardian process (runtime/guardian.c:
# kjail-tty, kjail-git) runs with: its blocked signals, whether it leads
# a session of its own, its cwd, and its fds in order (N:target, socket:[I]
# as "socket", a pidfd as "pidfd").
guardian_state() {
	local p=/proc/$1 fds="" f
	for f in $(ls "$p/fd" | sort -n); do
		fds="$fds $f:$(readlink "$p/fd/$f" | sed 's/^socket:.*/socket/; s/^anon_inode:\[pidfd\]/pidfd/')"
	done
	echo "blk=$(awk '/^SigBlk/{print $2}' "$p/status") session=$([ "$(ps -o sid= -p "$1" | tr -d ' ')" = "$1" ] && echo own) cwd=$(readlink "$p/cwd") fds=${fds# }"
}

# expect_rc NAME WANT: check $rc from the last kj
expect_rc() {
	if [ "$rc" = "$2" ]; then
		_report 0 "$1"
	else
		_report 1 "$1" "exit status $rc, expected $2
stdout: $out
stderr: $err"
	fi
}

skip() { # name reason
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP $2"
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" = 0 ]
}
