#!/bin/bash
# The quick session client (runtime/session_quick.c): a plain
# `kjail exec -s NAME [--] COMMAND` runs before glibc starts; everything
# else falls through to the full client. Each test proves which client
# ran, or that both give the same result.
. "$(dirname "$0")/../lib.sh"

session_test_setup
S=kjq-$$
trap '[ -p "$sdir/$S-f.state" ] && rm -f "$sdir/$S-f.state"; rm -f "$sdir/$S-r.extra-link"; for s in "$S" "$S-t" "$S-o" "$S-e" "$S-r" "$S-f"; do as_caller "$KJAIL" rm "$s" >/dev/null 2>&1; done; _cleanup' EXIT
chmod 0777 "$T"
if [ "$KJ_AS" = user ]; then sdir=$XDG_RUNTIME_DIR/kjail; else sdir=/run/kjail; fi

kj create $CREATE_ARGS "$S"
expect_rc create_ready 0

# Which client ran: the full one starts glibc, which sets up TLS with
# arch_prctl(ARCH_SET_FS) first thing; the quick one never makes that
# call. (strace itself failing shows as neither.)
client_of() {
	rm -f "$T/strace.out"
	as_caller strace -f -qq -e trace=arch_prctl -o "$T/strace.out" "$KJAIL" "$@" \
		</dev/null >/dev/null 2>&1
	if [ ! -s "$T/strace.out" ] && [ -e "$T/strace.out" ]; then
		echo quick
	elif grep -q 'arch_prctl(ARCH_SET_FS' "$T/strace.out" 2>/dev/null; then
		echo full
	else
		echo "strace failed"
	fi
}
# The sanitizer build is dynamic and starts no quick client (ASan must
# start first); only x86_64 builds have one.
quick=quick
if [ -n "${KJ_SANITIZE:-}" ] || [ "$(uname -m)" != x86_64 ]; then quick=full; fi
quick_is() { # args... name
	local name=${*: -1}
	if [ "$quick" = quick ]; then
		is "$(client_of "${@:1:$#-1}")" quick "$name"
	else
		skip "$name" "this build has no quick client (sanitizer build or not x86_64)"
	fi
}
quick_is exec -s "$S" -- true quick_client_for_dash_s
quick_is exec -s "$S" true quick_client_without_double_dash
quick_is exec --session "$S" -- true quick_client_for_long_flag
quick_is exec "--session=$S" -- true quick_client_for_long_flag_equals
is "$(client_of exec -s "$S" --quiet -- true)" full any_option_takes_full_client
is "$(client_of exec -s "nosuch-$$" -- true)" full unknown_session_takes_full_client
is "$(client_of exec -s "-bad" -- true)" full bad_name_takes_full_client
quick_is exec -s "$S" -- -x dash_command_after_double_dash_quick
is "$(client_of exec -s "$S" -x)" full dash_word_before_command_takes_full_client
is "$(KJAIL_TRACE=1 client_of exec -s "$S" -- true)" full trace_takes_full_client

# The same results from both clients (--quiet changes nothing here but
# the path taken).
both() { # name cmd...
	local name=$1 q f
	shift
	kj exec -s "$S" -- "$@"
	q="$rc|$out|$err"
	kj exec -s "$S" --quiet -- "$@"
	f="$rc|$out|$err"
	is "$q" "$f" "$name"
}
both same_status_and_output sh -c 'echo out; echo err >&2; exit 3'
both same_not_found_message nosuchcommand
both same_signal_status sh -c 'kill -TERM $$'
both same_exec_failure_message /etc/hostname
kj exec -s "$S" -- nosuchcommand
is "$rc|$err" "127|kjail: exec: nosuchcommand: No such file or directory" quick_not_found_line

# stdin, stdout and stderr are the caller's own fds, passed through.
out=$(printf 'abc' | as_caller "$KJAIL" exec -s "$S" -- cat)
is "$out" abc quick_stdin_passed_through
out=$(as_caller "$KJAIL" exec -s "$S" -- sh -c 'echo x; echo done >&2' 2>&1 >&-; echo "rc=$?")
is "$out" "done
rc=0" closed_stdout_still_runs

# A directory as stdin would open the host's file system to the command
# (CVE-2024-21626 class): refused, by the full client, with its message.
out=$(as_caller "$KJAIL" exec -s "$S" -- true </ 2>&1; echo " rc=$?")
out=$(printf '%s' "$out" | tr '\n' ' ')
like "$out" "kjail: stdio: stdin is a directory.*rc=125" directory_stdin_refused

# No terminal of the caller reaches the session: under a terminal the
# full client relays a pipe.
pty_run() {
	as_caller python3 -c 'import pty, sys; pty.spawn(sys.argv[1:])' "$KJAIL" exec -s "$S" "$@" \
		-- sh -c 'test -t 0 && echo tty || echo notty' 2>&1 </dev/null | tr -d '\r'
}
like "$(pty_run)" "^notty$" terminal_stdin_not_handed_to_session
like "$(pty_run --quiet)" "^notty$" terminal_stdin_not_handed_to_session_full

# SIGTERM to the client reaches the command (once: --foreground, so
# timeout does not signal its process group a second time).
for mode in quick full; do
	extra=
	[ "$mode" = full ] && extra=--quiet
	out=$(as_caller timeout --foreground --preserve-status -s TERM 2 "$KJAIL" exec -s "$S" $extra -- \
		sh -c 'trap "echo got-term; exit 7" TERM; echo ready; sleep 30 & wait' 2>&1)
	is "$?|$out" "7|ready
got-term" "sigterm_forwarded_$mode"
done

# Out of fds for a signalfd: a signal still ends the client (it is not
# left blocked), and init kills the command whose client went away.
# (-k 3: a client that ignored the signal is killed, and the test fails.)
for mode in quick full; do
	extra=
	[ "$mode" = full ] && extra=--quiet
	t0=$(date +%s%N)
	as_caller sh -c 'ulimit -n 4; exec timeout --foreground -k 3 -s TERM 1 "$@"' sh \
		"$KJAIL" exec -s "$S" $extra -- sleep 3$$ >/dev/null 2>&1
	rc=$?
	t1=$(date +%s%N)
	is "$rc" 124 "no_signalfd_signal_ends_client_$mode"
	ok "no_signalfd_client_ends_promptly_$mode ($(( (t1 - t0) / 1000000 )) ms)" \
		test $(( (t1 - t0) / 1000000 )) -lt $((3000 + KJ_TIME_SLACK_MS))
	kj exec -s "$S" -- sh -c 'for i in $(seq 50); do ps -eo args | grep -q "^sleep $1" || exit 0; sleep 0.1; done; exit 1' sh "3$$"
	is "$rc" 0 "no_signalfd_command_killed_$mode"
done

# A session created with a timeout or an output cap: the quick client
# leaves those to the full one, which applies them.
kj create $CREATE_ARGS --timeout 1 --kill-grace 1 "$S-t"
is "$(client_of exec -s "$S-t" -- true)" full session_timeout_takes_full_client
kj exec -s "$S-t" -- sleep 30
is "$rc" 124 session_timeout_applies_to_plain_exec
like "$err" "timed out after 1s" session_timeout_message
kj create $CREATE_ARGS --output-limit 100 "$S-o"
kj exec -s "$S-o" -- sh -c 'head -c 1000 /dev/zero | tr "\0" x'
is "${#out}" 100 session_output_limit_applies_to_plain_exec

# A command line too long for one request is refused, not cut.
kj exec -s "$S" -- sh -c 'echo $#' x $(seq 1 20000)
is "$rc" 125 long_command_line_125
like "$err" "the command line is too long" long_command_line_message
like "$err" "at most 64K of arguments, --setenv and --cwd; pass a long script on stdin" \
	long_command_line_says_limit_and_fix
# ... and the fix it names works: the script on stdin.
script="set -- $(seq 1 20000 | tr '\n' ' '); echo \$#"
out=$(printf '%s\n' "$script" | as_caller "$KJAIL" exec -s "$S" -- sh -s 2>&1)
is "$out" 20000 long_script_on_stdin_runs

# A session that ends under a running exec: the client says so.
kj create $CREATE_ARGS "$S-e"
( as_caller "$KJAIL" exec -s "$S-e" -- sleep 30 >"$T/e.out" 2>&1; echo "rc=$?" >>"$T/e.out" ) &
for i in $(seq 100); do
	kj exec -s "$S-e" -- sh -c 'ps -eo args | grep -q "^sleep 30"' && break
	sleep 0.05
done
kj stop "$S-e"
wait
like "$(tr '\n' ' ' <"$T/e.out")" "kjail: session: session '$S-e' ended \(kjail ls shows its state\).*rc=125" \
	session_ended_under_exec

# The state directory must be the caller's own (0700): the quick client
# judges it with the full client's check, so a shared one is refused.
if [ "$KJ_AS" = user ]; then
	mkdir -p "$T/xdg2/kjail" && chown -R "$KJ_USER" "$T/xdg2" && chmod 755 "$T/xdg2/kjail"
	out=$(XDG_RUNTIME_DIR=$T/xdg2 as_caller "$KJAIL" exec -s "$S" -- true 2>&1; echo " rc=$?")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "is not a private directory of yours.*rc=125" shared_state_dir_refused
	# Made by another user: not ours to remove (sticky /tmp), so the fix
	# says where sessions can live instead.
	mkdir -p "$T/xdg3/kjail" && chown "$KJ_USER" "$T/xdg3" && chmod 700 "$T/xdg3/kjail"
	out=$(XDG_RUNTIME_DIR=$T/xdg3 as_caller "$KJAIL" create $CREATE_ARGS "$S-o" 2>&1; echo " rc=$?")
	like "$out" "kjail: session: $T/xdg3/kjail belongs to uid 0, not to you \(set XDG_RUNTIME_DIR to a private directory of yours" \
		foreign_state_dir_refused_with_a_fix_that_works
	# A socket path must fit in 108 bytes; a missing XDG_RUNTIME_DIR is
	# not made. Both say what to do.
	long=$T/$(printf 'd%.0s' $(seq 60))
	mkdir -p "$long" && chown "$KJ_USER" "$long" && chmod 700 "$long"
	n64=n$(printf 'x%.0s' $(seq 63))
	out=$(XDG_RUNTIME_DIR=$long as_caller "$KJAIL" create $CREATE_ARGS "$n64" 2>&1; echo " rc=$?")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "File name too long \(use a shorter name, or a shorter XDG_RUNTIME_DIR\).* rc=125" \
		session_path_too_long_says_the_fix
	out=$(XDG_RUNTIME_DIR=$T/none as_caller "$KJAIL" create $CREATE_ARGS "$S-o" 2>&1; echo " rc=$?")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "create $T/none/kjail: No such file or directory \(point XDG_RUNTIME_DIR at a directory that exists\) +rc=125" \
		session_dir_parent_missing_says_the_fix
fi

# A record is a regular file of the caller's with one link, on both
# paths: the quick client read a hard-linked record that the full client
# refuses (a link to another file with timeout_ms=0, in place of a
# session's record, lifted its timeout on the quick path).
kj create $CREATE_ARGS "$S-r"
# (the link beside the record: in the VM /run and /tmp are two file systems)
ln "$sdir/$S-r.state" "$sdir/$S-r.extra-link"
for mode in quick full; do
	extra=
	[ "$mode" = full ] && extra=--quiet
	out=$(as_caller timeout 10 "$KJAIL" exec -s "$S-r" $extra -- echo ran </dev/null 2>&1; echo " rc=$?")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "^kjail: session: $sdir/$S-r.state is not a record kjail wrote .* rc=125$" \
		"hard_linked_record_refused_$mode"
done
rm -f "$sdir/$S-r.extra-link"

# A FIFO in a record's place is refused, not waited on in open().
kj create $CREATE_ARGS "$S-f"
mv "$sdir/$S-f.state" "$T/f.state" && mkfifo -m 600 "$sdir/$S-f.state" &&
	chown "$KJ_UID" "$sdir/$S-f.state"
for mode in quick full; do
	extra=
	[ "$mode" = full ] && extra=--quiet
	out=$(as_caller timeout 10 "$KJAIL" exec -s "$S-f" $extra -- true </dev/null 2>&1; echo " rc=$?")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "is not a record kjail wrote .* rc=125$" "fifo_record_refused_not_waited_on_$mode"
done
mv "$T/f.state" "$sdir/$S-f.state" # the record back, so the trap's kjail rm stops the session

# An error line of kj_err's full length (escaping control characters
# takes it there) reaches the client whole: it was read as the session's
# end (125) while the session ran on.
long=$(printf '\001%.0s' $(seq 100))$(printf 'a%.0s' $(seq 200))
for mode in quick full; do
	extra=
	[ "$mode" = full ] && extra=--quiet
	out=$(as_caller timeout 10 "$KJAIL" exec -s "$S" $extra -- "$long" </dev/null 2>&1; echo " rc=$?")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "^kjail: exec: .*aaaa.* rc=127$" "longest_error_line_not_session_end_$mode"
done

# stderr a pipe that is full and that nobody reads: the client's error
# line gets a second, then is dropped, and the run still ends with the
# command's status. The quick client wrote it with one blocking write,
# SIGTERM blocked, so it hung until SIGKILL (here: timeout's 20 s).
full_stderr() { as_caller timeout -s KILL 20 python3 -c '
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
os.set_blocking(w, False)
try:
    while True:
        os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(w, True)
t0 = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=w).returncode
print(rc, int((time.monotonic() - t0) * 1000))' "$KJAIL" "$@"; echo "python=$?"; }
for mode in quick full; do
	extra=
	[ "$mode" = full ] && extra=--quiet
	set -- $(full_stderr exec -s "$S" $extra -- nosuchcommand-kjq)
	is "$1:${3:-}" "127:python=0" "full_stderr_pipe_error_line_dropped_$mode (${2:-?} ms)"
	ok "full_stderr_pipe_bounded_wait_$mode (${2:-?} ms)" test "${2:-99999}" -lt $((4000 + KJ_TIME_SLACK_MS))
done

done_testing
