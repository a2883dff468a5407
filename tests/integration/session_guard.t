#!/bin/bash
# What guards a session from the commands of other sandboxes and from the
# per-exec options of its own callers: the session directory is hidden in
# every sandbox (a socket there would let a command exec into a session
# with other isolation, a record sets a session's limits); a record holds
# one value a line; an exec whose record cannot be read does not run
# without the session's limits; the admin policy bounds per-exec options
# as it bounds a one-shot run.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../config-lib.sh"

session_test_setup
S=kjg-$$
RAN=$WS/ran
cleanup_sessions() {
	for s in "$S" "$S-p" "$S-r" "$S-c" "$S-z"; do as_caller "$KJAIL" rm "$s" >/dev/null 2>&1; done
	[ -n "${X3:-}" ] && XDG_RUNTIME_DIR=$X3/run as_caller "$KJAIL" rm "$S-x" >/dev/null 2>&1
	[ "$KJ_AS" = user ] && (unset XDG_RUNTIME_DIR; as_caller "$KJAIL" rm "$S-t" >/dev/null 2>&1)
	[ -n "${TD_MADE:-}" ] && rm -rf "$TD_MADE"
	return 0
}
trap 'cleanup_sessions; _cleanup' EXIT

# The session directory, as kjail names it for this caller.
if [ "$KJ_AS" = user ]; then SD=$XDG_RUNTIME_DIR/kjail; else SD=/run/kjail; fi

kj create $CREATE_ARGS "$S"
expect_rc create_for_the_guards 0

# ------------------------------------------- the session directory, hidden
kj exec $CREATE_ARGS --ro "$SD" -- true
expect_rc grant_inside_session_dir_refused_125 125
like "$err" "^kjail: ro: $SD lies in kjail's session directory $SD \(grant a directory outside it\)$" \
	grant_inside_session_dir_message
if [ "$KJ_AS" = user ]; then
	# A grant of its parent shows the directory: hidden (an empty,
	# unreadable mount), its socket unreachable, and it stays in place.
	kj exec $CREATE_ARGS --ro "$XDG_RUNTIME_DIR" -- sh -c \
		'ls -A "$1" 2>/dev/null; test -S "$1/$2.sock" && echo reachable; echo end' sh "$SD" "$S"
	is "$rc:$out" "0:end" session_dir_hidden_under_ro_grant
	kj exec $CREATE_ARGS --rw "$XDG_RUNTIME_DIR" -- sh -c \
		'mv "$1" "$1.x" 2>/dev/null && echo moved; mkdir "$1/x" 2>/dev/null && echo made; echo end' sh "$SD"
	is "$rc:$out" "0:end" session_dir_cannot_be_moved_or_filled_under_rw_grant
	kj exec -s "$S" -- true
	expect_rc session_still_answers_after_the_attempts 0

	# Not made yet, under a writable grant: kjail makes it (private, the
	# caller's) and hides it, so the sandbox cannot plant one.
	X2=$T/xdg2
	mkdir -m 0700 "$X2" && chown "$KJ_USER" "$X2"
	XDG_RUNTIME_DIR=$X2 kj exec $CREATE_ARGS --rw "$X2" -- sh -c \
		'mkdir -p "$1/kjail/x" 2>/dev/null && echo planted; echo end' sh "$X2"
	is "$rc:$out" "0:end" missing_session_dir_cannot_be_planted
	# (seen from the host while the sandbox runs)
	rm -f "$WS/started" "$WS/go"
	XDG_RUNTIME_DIR=$X2 as_caller "$KJAIL" exec $CREATE_ARGS --rw "$X2" -- sh -c \
		'touch started; while [ ! -e go ]; do sleep 0.05; done' >/dev/null 2>&1 </dev/null &
	x2=$!
	for _ in $(seq 200); do [ -e "$WS/started" ] && break; sleep 0.05; done
	is "$(stat -c '%U %a' "$X2/kjail" 2>&1):$(ls -A "$X2/kjail" 2>&1)" "$KJ_USER 700:" \
		missing_session_dir_made_private_and_empty
	touch "$WS/go"
	wait "$x2"
	# It stays after the run: removed, it was unmasked in every sandbox
	# still running (an rmdir on the host detaches the mounts on it in
	# other mount namespaces), which could then plant a session there.
	rmdir "$X2/kjail"
	rm -f "$WS"/started-a "$WS"/go-a "$WS"/started-b "$WS"/go-b "$WS/planted"
	# A makes it and ends first; B, started meanwhile, tries to plant.
	XDG_RUNTIME_DIR=$X2 as_caller "$KJAIL" exec $CREATE_ARGS --rw "$X2" -- sh -c \
		'touch started-a; while [ ! -e go-a ]; do sleep 0.05; done' >/dev/null 2>&1 </dev/null &
	xa=$!
	for _ in $(seq 200); do [ -e "$WS/started-a" ] && break; sleep 0.05; done
	XDG_RUNTIME_DIR=$X2 as_caller "$KJAIL" exec $CREATE_ARGS --rw "$X2" -- sh -c \
		'touch started-b; while [ ! -e go-b ]; do sleep 0.05; done
		mkdir -p "$1/kjail/x" 2>/dev/null && touch planted; true' sh "$X2" >/dev/null 2>&1 </dev/null &
	xb=$!
	for _ in $(seq 200); do [ -e "$WS/started-b" ] && break; sleep 0.05; done
	touch "$WS/go-a"
	wait "$xa"
	touch "$WS/go-b"
	wait "$xb"
	is "$(test -e "$WS/planted" && echo planted):$(ls -A "$X2/kjail" 2>&1)" ":" \
		session_dir_stays_masked_when_an_overlapping_run_ends
	mkdir "$T/g" && chown "$KJ_USER" "$T/g"
	XDG_RUNTIME_DIR=$T/g/none kj exec $CREATE_ARGS --rw "$T/g" -- true
	like "$rc:$err" "^125:kjail: session: the session directory's parent $T/g/none is missing in a writable grant" \
		session_dir_parent_missing_in_rw_grant_refused

	# Not made yet, seen through a read-only grant: kjail makes it before
	# the sandbox starts, so it is masked there, and a session created
	# while the sandbox runs (with --net host, say) stays out of its reach.
	X3=$T/xdg3
	mkdir -p "$X3/run" && chmod 700 "$X3/run" && chown -R "$KJ_USER" "$X3"
	rm -f "$WS/started" "$WS/go"
	XDG_RUNTIME_DIR=$X3/run as_caller "$KJAIL" exec $CREATE_ARGS --ro "$X3" -- sh -c \
		'touch started; while [ ! -e go ]; do sleep 0.05; done
		test -S "$1" && echo reachable; echo end' sh "$X3/run/kjail/$S-x.sock" >"$T/x3.out" 2>&1 </dev/null &
	x3=$!
	for _ in $(seq 200); do [ -e "$WS/started" ] && break; sleep 0.05; done
	XDG_RUNTIME_DIR=$X3/run as_caller "$KJAIL" create $CREATE_ARGS --net host "$S-x" >/dev/null 2>&1 </dev/null
	touch "$WS/go"
	wait "$x3"
	is "$?:$(cat "$T/x3.out"):$(test -S "$X3/run/kjail/$S-x.sock" && echo made)" "0:end:made" \
		session_made_during_run_unreachable_under_ro_grant
	XDG_RUNTIME_DIR=$X3/run as_caller "$KJAIL" rm "$S-x" >/dev/null 2>&1

	# Sessions made with XDG_RUNTIME_DIR unset live in /tmp/kjail-UID:
	# hidden too from a sandbox run with it set (--workspace /tmp shows
	# /tmp), so their records cannot be rewritten (a timeout lifted).
	TD=/tmp/kjail-$KJ_UID
	[ -e "$TD" ] || TD_MADE=$TD # removed at the end: it is outside $T
	(unset XDG_RUNTIME_DIR; as_caller "$KJAIL" create $CREATE_ARGS --timeout 2s "$S-t" >/dev/null 2>&1 </dev/null)
	KJ_HOME=/nonexistent kj exec $CREATE_ARGS --workspace /tmp -- sh -c \
		'ls -A "$1" 2>/dev/null; sed -i s/^timeout_ms=.*/timeout_ms=0/ "$1/$2.state" 2>/dev/null && echo rewritten; echo end' \
		sh "$TD" "$S-t"
	is "$rc:$out" "0:end" other_session_dir_hidden_and_records_unwritable
	(unset XDG_RUNTIME_DIR; as_caller "$KJAIL" exec -s "$S-t" -- sleep 4 >/dev/null 2>&1 </dev/null; echo $? >"$T/t.rc")
	is "$(cat "$T/t.rc")" 124 other_session_keeps_its_timeout

	# A link planted where kjail writes a record's new copy: the record is
	# written to a new file, the link's target stays as it was.
	echo keep >"$T/victim" && chown "$KJ_USER" "$T/victim"
	(unset XDG_RUNTIME_DIR; as_caller ln -s "$T/victim" "$TD/$S-t.state.tmp"; as_caller "$KJAIL" stop "$S-t" >/dev/null 2>&1)
	is "$(cat "$T/victim")" keep record_write_does_not_follow_planted_link
	(unset XDG_RUNTIME_DIR; as_caller "$KJAIL" rm "$S-t" >/dev/null 2>&1)
else
	for t in session_dir_hidden_under_ro_grant session_dir_cannot_be_moved_or_filled_under_rw_grant \
		missing_session_dir_cannot_be_planted missing_session_dir_made_private_and_empty \
		session_dir_parent_missing_in_rw_grant_refused session_still_answers_after_the_attempts \
		session_made_during_run_unreachable_under_ro_grant other_session_dir_hidden_and_records_unwritable \
		other_session_keeps_its_timeout record_write_does_not_follow_planted_link; do
		skip $t "root's session directory is /run/kjail, below /run, which no grant may show"
	done
fi

# ------------------------------------------- a malformed exec request
# The socket's owner (only: the directory is hidden from sandboxes) sends
# an EXEC header claiming a million argv strings for a payload of one:
# init refuses it instead of reading past the payload, and stays up.
cat >"$T/bad_exec.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
hdr = struct.pack("<IiQQII", 1, 0, 0, 0, 1000000, 1000000)
socket.send_fds(s, [hdr + b"true\0"], [0, 1, 2])
s.settimeout(5)
print("reply" if s.recv(70000) else "closed")
PY
kj exec -s "$S" -- true
as_caller python3 "$T/bad_exec.py" "$SD/$S.sock" </dev/null >"$T/bad.out" 2>&1
kj exec -s "$S" -- echo alive
is "$(cat "$T/bad.out"):$rc:$out" "reply:0:alive" malformed_exec_refused_and_session_lives

# A socket as an exec's stdio brings the host's network namespace with
# it (SIOCGIFCONF on it lists the host's interfaces): kjail's client
# relays it through a pipe, and init refuses one that another client
# hands in.
out=$(as_caller python3 -c 'import socket, subprocess, sys
a, b = socket.socketpair()
r = subprocess.run(sys.argv[1:], stdin=b, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
sys.stdout.write(r.stdout.decode()); sys.exit(r.returncode)' "$KJAIL" exec -s "$S" -- "$PROBES/escape_stdio_socket" 0)
is "$?:$(printf '%s\n' "$out" | grep -c '^contained:')" 0:1 session_socket_stdin_reaches_command_as_pipe
like "$out" "fd 0 is a pipe" session_socket_stdin_relayed
cat >"$T/sock_exec.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
a, b = socket.socketpair()
hdr = struct.pack("<IiQQII", 1, 0, 0, 0, 1, 0)
socket.send_fds(s, [hdr + b"true\0"], [b.fileno(), 1, 2])
s.settimeout(5)
r = s.recv(70000)
print(struct.unpack("<I", r[:4])[0], r[32:].rstrip(b"\0").decode())
PY
as_caller python3 "$T/sock_exec.py" "$SD/$S.sock" </dev/null >"$T/sock.out" 2>&1
is "$(cat "$T/sock.out")" "6 stdio fd 0 is not a pipe or /dev/null (kjail's client relays sockets, terminals and files)" \
	session_refuses_socket_stdio_from_another_client

# An exec request without fds: refused with both replies (the failure,
# then an exit status), so a client never waits for a status that does
# not come.
cat >"$T/nofd_exec.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(struct.pack("<IiQQII", 1, 0, 0, 0, 1, 0) + b"true\0")
s.settimeout(5)
print(" ".join(str(struct.unpack("<Ii", s.recv(70000)[:8])) for _ in range(2)))
PY
as_caller python3 "$T/nofd_exec.py" "$SD/$S.sock" </dev/null >"$T/nofd.out" 2>&1
is "$(cat "$T/nofd.out")" "(6, 125) (5, 125)" malformed_exec_gets_failure_and_exit_status

kj exec -s "$S" --cwd /nonexistent-kjail-dir -- pwd
like "$rc:$err" "^125:kjail: session: cd /nonexistent-kjail-dir: No such file or directory \(give a directory that exists inside the sandbox\)$" \
	exec_into_session_missing_cwd_says_the_fix
kj exec -s "$S" --cwd '' -- pwd
like "$rc:$err" "^125:kjail: option: --cwd: empty path" exec_into_session_refuses_empty_cwd

# ------------------------------------------------- one value a line
NL=$T/$'p\ntimeout_ms=0'
mkdir "$NL" && chown "$KJ_UID" "$NL"
cd "$NL" && kj create $CREATE_ARGS --timeout 1s "$S-r"
cd "$WS"
like "$rc:$err" "^125:kjail: session: the workspace path holds a newline \(rename it: a session's record holds one value a line\)$" \
	workspace_with_newline_refused_for_a_session
as_caller "$KJAIL" ls | grep -q "^$S-r " && listed=yes || listed=no
is "$listed" no session_with_newline_workspace_not_left

# ------------------------------------------------- no record, no run
kj create $CREATE_ARGS --timeout 1s "$S-p"
mv "$SD/$S-p.state" "$SD/$S-p.state.away"
rm -f "$RAN"
kj exec -s "$S-p" -- sh -c 'sleep 1.5; touch "$1"' sh "$RAN"
like "$rc:$err" "^125:kjail: session: session '$S-p' has no record" exec_without_record_refused
ok exec_without_record_never_ran test ! -e "$RAN"
mv "$SD/$S-p.state.away" "$SD/$S-p.state"
kj exec -s "$S-p" -- sh -c 'sleep 1.5; touch "$1"' sh "$RAN"
is "$rc" 124 exec_keeps_session_timeout_with_record
as_caller "$KJAIL" rm "$S-p" >/dev/null 2>&1

# ------------------------------------------ --output-limit 0 is a cap
kj create $CREATE_ARGS --output-limit 0 "$S-z"
kj exec -s "$S-z" -- echo visible
is "$rc:$out" "0:" session_output_limit_zero_passes_nothing
like "$err" "kjail: stdout truncated after 0 bytes" session_output_limit_zero_said
# One exec may lift the session's cap with max, as it may change it.
kj exec -s "$S-z" --output-limit max -- echo visible
is "$rc:$out:$err" "0:visible:" session_output_limit_lifted_by_exec_max
as_caller "$KJAIL" rm "$S-z" >/dev/null 2>&1

# ------------------------------------------ --create with other options
kj exec -s "$S-c" --create $CREATE_ARGS --net host --timeout 1s -- true
expect_rc create_on_first_exec 0
rm -f "$RAN"
kj exec -s "$S-c" --create $CREATE_ARGS --net none --timeout 1s -- touch "$RAN"
like "$rc:$err" "^125:kjail: session: session '$S-c' runs with other options than this --create asks for" \
	create_refuses_a_session_made_otherwise
ok create_mismatch_never_ran test ! -e "$RAN"
kj exec -s "$S-c" --create $CREATE_ARGS --net host --timeout 1s -- touch "$RAN"
is "$rc:$([ -e "$RAN" ] && echo ran)" "0:ran" create_uses_a_session_made_alike
# (No --timeout here: the session's own 1 s holds, as for a plain exec -s.)
kj exec -s "$S-c" --create $CREATE_ARGS --net host -- sh -c 'sleep 2'
is "$rc" 124 create_on_a_running_session_keeps_its_timeout
as_caller "$KJAIL" rm "$S-c" >/dev/null 2>&1

# ------------------------------------------------- the policy, per exec
sys_policy 'max timeout 5s' 'max output-limit 1000' 'deny setenv LD_PRELOAD'
kje create $NOLIM --timeout 2s --output-limit 100 "$S-p"
is "$rc:$err" "0:" create_within_policy
exec_refused() { # name regex args...
	local name=$1 re=$2
	shift 2
	rm -f "$RAN"
	kje exec -s "$S-p" "$@" -- touch "$RAN"
	if [ "$rc" = 125 ] && [ ! -e "$RAN" ] && printf '%s' "$err" | grep -Eq -- "$re"; then
		_report 0 "$name"
	else
		_report 1 "$name" "rc=$rc ran=$([ -e "$RAN" ] && echo yes || echo no) stderr: $err"
	fi
}
exec_refused policy_bounds_exec_timeout_0 \
	"^kjail: policy: .*/etc/kjail/policy:1: max timeout 5s" --timeout 0
exec_refused policy_bounds_exec_timeout_1h "/etc/kjail/policy:1: max timeout 5s" --timeout 1h
exec_refused policy_bounds_exec_output_limit "/etc/kjail/policy:2: max output-limit 1000" \
	--output-limit 1G
# max lifts no admin bound: it exceeds every one.
exec_refused policy_bounds_exec_output_limit_max \
	"--output-limit max \(from the command line \(exec -s\)\) exceeds /etc/kjail/policy:2: max output-limit 1000" \
	--output-limit max
exec_refused policy_denies_exec_setenv "/etc/kjail/policy:3: deny setenv LD_PRELOAD" \
	--setenv LD_PRELOAD=/nonexistent.so
rm -f "$RAN"
kje exec -s "$S-p" --timeout 3s -- touch "$RAN"
is "$rc:$([ -e "$RAN" ] && echo ran)" "0:ran" policy_allows_exec_within_it
# A rule added after the session was made holds its defaults too, through
# the quick client as through the full one.
sys_policy 'require output-limit' 'max timeout 1s'
exec_refused policy_checks_session_defaults "/etc/kjail/policy:2: max timeout 1s"

done_testing
