#!/bin/bash
# Core dumps never reach the host's pipe handler. With a core_pattern of
# `|program` (systemd-coredump, apport) the kernel runs that program as
# root in the host's namespaces for every crash, whatever RLIMIT_CORE is
# (0 included), except exactly 1; kjail pins 1 for the whole sandbox
# (runtime/child.c) and its seccomp policies keep it there. The host
# cannot show this (core_pattern is the host's own); the guest sets a
# pipe handler of its own that logs each dump's executable name.
. /tests/lib.sh

WS=/tmp/core-ws
LOG=/tmp/core-handler.log
mkdir -p "$WS" && chmod 0777 "$WS"
cd "$WS" || exit 1
: >"$LOG"
cat >/tmp/core-handler <<'EOF'
#!/bin/sh
echo "$1" >>/tmp/core-handler.log
cat >/dev/null
EOF
chmod 0755 /tmp/core-handler
old_pattern=$(cat /proc/sys/kernel/core_pattern)
trap 'echo "$old_pattern" >/proc/sys/kernel/core_pattern' EXIT
echo '|/tmp/core-handler %e' >/proc/sys/kernel/core_pattern

# crasher NAME: a copy of bash called NAME (the dump's %e), in the workspace.
crasher() { cp /usr/bin/bash "$WS/$1" && chmod 0755 "$WS/$1"; }
# handled NAME: did the handler log a dump of NAME (waits up to 20 s)?
handled() {
	local i
	for i in $(seq 200); do
		grep -qx "$1" "$LOG" && return 0
		sleep 0.1
	done
	return 1
}
# crash_in NAME KJAIL-ARGS...: kjail exec ARGS -- ./NAME, which lowers its
# core limit to 0 (as ssh-agent does; the call answers 0 and changes
# nothing) and dies of SIGSEGV: exit 139.
crash_in() {
	local name=$1
	shift
	crasher "$name"
	"$@" -- "./$name" -c 'ulimit -c 0 || echo "ulimit failed"; kill -SEGV $$' >/tmp/core-out 2>&1
	is "$?:$(grep -v 'Segmentation' /tmp/core-out)" "139:" "${name}_crashed_in_the_sandbox"
}

crasher ctl-first
./ctl-first -c 'ulimit -c 0; kill -SEGV $$' >/dev/null 2>&1
if handled ctl-first; then ok "control_handler_runs_for_core_limit_0_outside_kjail"; else
	not_ok "control_handler_runs_for_core_limit_0_outside_kjail"
	diag "core_pattern: $(cat /proc/sys/kernel/core_pattern)" "log: $(cat "$LOG")"
fi

crash_in k-root "$KJAIL" exec
crash_in k-strict "$KJAIL" exec --seccomp strict
crash_in k-user as_user "$KJAIL" exec --memory max --pids max
S=core-$$
"$KJAIL" create "$S" >/dev/null 2>&1 || diag "kjail create failed"
crash_in k-session "$KJAIL" exec -s "$S"
"$KJAIL" rm "$S" >/dev/null 2>&1

# The handler has run for a later crash, so it would have for these.
crasher ctl-last
./ctl-last -c 'kill -SEGV $$' >/dev/null 2>&1
if handled ctl-last; then
	ok "control_handler_ran_again_after_the_sandboxes"
	sleep 1
	for name in k-root k-strict k-user k-session; do
		if grep -qx "$name" "$LOG"; then
			not_ok "${name}_crash_never_reached_the_pipe_handler"
		else
			ok "${name}_crash_never_reached_the_pipe_handler"
		fi
	done
else
	not_ok "control_handler_ran_again_after_the_sandboxes"
	diag "log: $(cat "$LOG")"
fi
diag "handler log: $(tr '\n' ' ' <"$LOG")"

# What doctor says with this handler: pinned; and, for a caller whose
# hard core limit is 0 (which kjail cannot raise to 1), a warning.
doc=$("$KJAIL" doctor 2>&1 | grep 'core dumps')
case $doc in
"ok    core dumps       none: RLIMIT_CORE pinned at 1 byte, "*"(core_pattern |/tmp/core-handler %e)") ok doctor_says_pinned_with_the_pipe_handler ;;
*) not_ok doctor_says_pinned_with_the_pipe_handler; diag "got: $doc" ;;
esac
doc=$(bash -c 'ulimit -c 0 && ulimit -Hc 0 && exec "$0" doctor' "$KJAIL" 2>&1 | grep 'core dumps')
case $doc in
"warn  core dumps       RLIMIT_CORE stays 0: "*"a crash inside reaches the handler"*) ok doctor_warns_hard_core_limit_0_with_a_pipe_handler ;;
*) not_ok doctor_warns_hard_core_limit_0_with_a_pipe_handler; diag "got: $doc" ;;
esac

done_testing
