#!/bin/bash
# Core dumps: RLIMIT_CORE is 1 byte for everything in the sandbox and
# stays there, so a crash reaches neither the host's core pipe handler
# (systemd-coredump, apport: run as root outside the sandbox, see
# runtime/child.c) nor a core file. The pipe handler itself is proven in
# the VM (tests/vm/guest/30-coredump.t), where core_pattern may change.
. "$(dirname "$0")/../lib.sh"

P=$PROBES/core_limit

kj exec -- "$P"
is "$rc:$out" "0:1 1" core_limit_is_one_byte_inside

# Every way to change it answers success (ssh-agent exits when setting 0
# fails) and changes nothing; under both built-in policies.
for pol in default strict; do
	for form in "set-self 0 0" "set-self 0 1" "set-self inf inf" "set-raw 0 0"; do
		# shellcheck disable=SC2086 # form is the probe's arguments
		kj exec --seccomp $pol -- "$P" $form
		is "$rc:$out" "0:rc=0 now=1 1" "${pol}_${form// /_}_changes_nothing"
	done
	kj exec --seccomp $pol -- sh -c '
		sleep 30 & p=$!
		"$0" set-pid $p 0 0; kill $p' "$P"
	is "$rc:$out" "0:rc=0 now=1 1" "${pol}_another_processes_core_limit_stays"
	kj exec --seccomp $pol -- sh -c 'ulimit -c 0 && ulimit -c unlimited && echo rc=$? &&
		awk "/^Max core file size/ {print \$5, \$6}" /proc/self/limits'
	is "$rc:$out" "0:rc=0
1 1" "${pol}_shell_ulimit_c_changes_nothing"
	# The other limits are not caught by the core rule.
	kj exec --seccomp $pol -- sh -c 'ulimit -n 64 && ulimit -n && ulimit -s 4096 && ulimit -s'
	is "$rc:$out" "0:64
4096" "${pol}_other_limits_still_set"
done

# A caller whose hard core limit is 0 (pam_limits' `hard core 0`): kjail
# cannot raise it to 1, runs with 0 as every process of the caller's has
# (kjail doctor warns where a pipe handler would still be called), and
# the command cannot raise it either.
as_caller prlimit --core=0:0 "$KJAIL" exec $KJ_EXEC_ARGS -- sh -c '"$0"; "$0" set-self inf inf; "$0" set-self 1 1' "$P" >"$T/h0.out" 2>"$T/h0.err"
rc=$?
err=$(cat "$T/h0.err") # shown if the check fails
is "$rc:$(cat "$T/h0.out")" "0:0 0
rc=0 now=0 0
rc=0 now=0 0" hard_core_limit_0_runs_and_stays_0
as_caller prlimit --core=0:0 "$KJAIL" doctor $KJ_EXEC_ARGS >"$T/h0.out" 2>&1
like "$(grep 'core dumps' "$T/h0.out")" "^(info|warn) +core dumps +RLIMIT_CORE stays 0: the caller's hard limit is 0" doctor_says_hard_core_limit_0_stays

# Another process's other limits: default lets the sandbox set them (one
# trust domain), strict only a process's own (pid 0, which setrlimit and
# ulimit use), which keeps its filter small (profiles/seccomp-strict.policy).
sibling_nofile='sleep 30 & p=$!; prlimit --pid $p --nofile=64:64 2>&1; echo rc=$?; prlimit --pid $p --nofile --noheadings -o SOFT | tr -d " "; kill $p'
kj exec -- sh -c "$sibling_nofile"
is "$rc:$out" "0:rc=0
64" default_sets_a_siblings_other_limits
kj exec --seccomp strict -- sh -c "$sibling_nofile"
like "$out" "Operation not permitted" strict_refuses_a_siblings_other_limits

if command -v ssh-agent >/dev/null; then
	kj exec -- ssh-agent sh -c 'test -S "$SSH_AUTH_SOCK" && echo agent-up'
	is "$rc:$out" "0:agent-up" ssh_agent_starts_though_it_sets_core_0
else
	skip ssh_agent_starts_though_it_sets_core_0 "ssh-agent is not installed"
fi

# A crash writes no core file. Only where the host's core_pattern names a
# file relative to the crashing process's directory; the same crash
# outside kjail, in a directory of this test's, shows the check can fail.
pattern=$(cat /proc/sys/kernel/core_pattern)
ctl=$T/control && mkdir "$ctl" && chmod 0777 "$ctl"
case $pattern in
'|'* | /*) control="core_pattern is '$pattern', not a file in the crash's directory" ;;
*)
	(cd "$ctl" && as_caller sh -c 'ulimit -c unlimited && exec "$0" crash' "$P") >/dev/null 2>&1
	if [ -n "$(ls -A "$ctl")" ]; then control=""; else
		control="the control crash outside kjail left no core file (hard core limit: $(ulimit -Hc))"
	fi
	;;
esac
if [ -z "$control" ]; then
	kj exec -- sh -c 'ulimit -c unlimited; "$0" crash; echo "status $?"' "$P"
	is "$out" "status 139" crash_inside_dies_of_sigsegv
	is "$(ls -A "$WS")" "" crash_inside_leaves_no_core_file
else
	skip crash_inside_leaves_no_core_file "$control"
fi

# A session's execs start from its init, so they inherit the limit; a
# lowering by one exec is not seen by the next.
session_test_setup
S=kjcore-$$
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; _cleanup' EXIT
kj create $CREATE_ARGS "$S"
expect_rc session_created 0
kj exec -s "$S" -- sh -c 'ulimit -c 0; "$0" set-self 0 0' "$P"
is "$rc:$out" "0:rc=0 now=1 1" session_exec_cannot_lower_core_limit
kj exec -s "$S" -- "$P"
is "$rc:$out" "0:1 1" next_session_exec_has_one_byte
kj rm "$S"

done_testing
