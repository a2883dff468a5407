#!/bin/bash
# What kjail relays, and that relaying never stops it from keeping its
# promises: the timeout fires while a destination is slow or full, a reader
# that goes away gives the command SIGPIPE, the end of a last line without
# a newline reaches a command on a pty, and a file or device of the
# caller's given as stdio never reaches the command as the host's inode
# (whose mode and times the command could otherwise change).
. "$(dirname "$0")/../lib.sh"

# elapsed_ms CMD...: run CMD, set $rc and $ms.
elapsed_ms() {
	local t0
	t0=$(date +%s%N)
	"$@"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}
kjx() { as_caller "$KJAIL" exec $KJ_EXEC_ARGS "$@"; }
LIMIT=$((4000 + KJ_TIME_SLACK_MS))

# A command that never reads its terminal while kjail has 3 MB to give it:
# kjail's writes to the pty no longer block its loop, so --timeout fires.
feed_tty() { yes | head -c 3000000 | timeout -k 5 30 "$KJAIL" exec $KJ_EXEC_ARGS --tty --timeout 1 --kill-grace 1 -- sleep 5 >/dev/null 2>&1; }
if [ "$KJ_AS" = root ]; then
	elapsed_ms feed_tty
else
	feed_tty_user() { yes | head -c 3000000 | as_caller timeout -k 5 30 "$KJAIL" exec $KJ_EXEC_ARGS --tty --timeout 1 --kill-grace 1 -- sleep 5 >/dev/null 2>&1; }
	elapsed_ms feed_tty_user
fi
ok "timeout_fires_while_pty_input_is_full ($rc in $ms ms)" test "$rc" = 124 -a "$ms" -lt "$LIMIT"

# --output-limit relays stdout: a reader that does not read does not
# delay the timeout, and the command does not run on past it.
rm -f "$WS/late"
slow_reader() { kjx --timeout 1 --kill-grace 1 --output-limit 10M -- sh -c 'head -c 300000 /dev/zero; sleep 3; touch late' 2>/dev/null | sleep 4; }
elapsed_ms slow_reader
ok "timeout_fires_while_stdout_reader_is_slow" test ! -e "$WS/late"
( kjx --timeout 1 --kill-grace 1 --output-limit 10M -- sh -c 'head -c 300000 /dev/zero; sleep 3' 2>/dev/null; echo $? >"$T/slow.rc" ) | sleep 2
is "$(cat "$T/slow.rc")" 124 timeout_status_with_slow_reader

# A reader that goes away: the command gets SIGPIPE (141), as it would
# writing to the pipe itself, instead of running on.
first_status=$( (as_caller timeout -k 5 20 "$KJAIL" exec $KJ_EXEC_ARGS --output-limit 1M -- yes 2>/dev/null; echo $? >"$T/pipe.rc") | head -1 >/dev/null; cat "$T/pipe.rc")
is "$first_status" 141 output_limited_command_gets_sigpipe

# Past --output-limit a relay only discards, and writes nothing that
# could meet EPIPE: it still notices the reader went away, and the
# command gets SIGPIPE instead of running on to the timeout.
capped_status=$( (as_caller timeout -k 5 20 "$KJAIL" exec $KJ_EXEC_ARGS --output-limit 10 --timeout 8 -- yes 2>/dev/null; echo $? >"$T/cap.rc") | head -c 4 >/dev/null; cat "$T/cap.rc")
is "$capped_status" 141 output_limit_reached_command_still_gets_sigpipe

# A destination that fails (not a reader gone) is said once, and the
# command runs on: no silent SIGPIPE.
kjx --output-limit 1M -- sh -c 'echo hi; sleep .2; echo hi; echo st=$? >&2' >/dev/full 2>"$T/full.err"
is "$?:$(cat "$T/full.err")" "0:kjail: stdout: write failed: No space left on device (the rest of stdout is discarded)
st=0" relay_write_error_said_and_command_runs_on

# A reader that never reads, once COMMAND has ended: once kjail is told
# to end (a signal, before or after that end) or the timeout expired, it
# waits for the reader no longer, and what the reader did not take counts
# as dropped. The reader is a FIFO held open by sleep 20 (pid $reader);
# kjail used to wait for it to exit.
stall_start() { # KJAIL-ARGS...: kjail in the background, stdout the stalled FIFO
	rm -f "$T/stall" "$WS/ran" && mkfifo -m 0666 "$T/stall"
	sleep 20 <"$T/stall" &
	reader=$!
	if [ "$KJ_AS" = user ]; then
		setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups -- \
			env HOME=/nonexistent env --default-signal "$KJAIL" exec $KJ_EXEC_ARGS "$@" \
			>"$T/stall" 2>"$T/stall.err" </dev/null &
	else
		env --default-signal "$KJAIL" exec $KJ_EXEC_ARGS "$@" >"$T/stall" 2>"$T/stall.err" </dev/null &
	fi
	kjpid=$!
}
stall_end() { # set $rc, $ms (since $t0) and $err; the reader goes
	wait "$kjpid"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	err=$(cat "$T/stall.err")
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
}
# kjail has reaped the sandbox's init, its only child (but a sweeper).
kj_reaped() {
	[ -r "/proc/$kjpid/task/$kjpid/children" ] && [ -z "$(kj_children "$kjpid")" ]
}
# stall_signal SIG READY: once READY holds, SIG to kjail; then stall_end.
stall_signal() {
	if settles 5 test -e "$WS/ran" && settles 5 "$2"; then
		t0=$(date +%s%N)
		kill -s "$1" "$kjpid"
		stall_end
	else
		kill -9 "$kjpid"
		t0=$(date +%s%N) && stall_end && rc=never-ready
	fi
}
BOUND=$((3000 + KJ_TIME_SLACK_MS))
DROPPED='^kjail: stdout truncated after [0-9]+ bytes \([0-9]+ bytes dropped: not taken by the reader'

stall_start --output-limit 1M -- sh -c 'touch ran; head -c 100000 /dev/zero; exit 3'
stall_signal TERM kj_reaped
ok "sigterm_after_exit_ends_wait_for_reader ($rc in $ms ms)" test "$rc" = 3 -a "$ms" -lt "$BOUND"
like "$err" "$DROPPED when kjail got SIGTERM\)$" sigterm_after_exit_says_output_dropped

# Told to end while it runs (timeout(1) sends one SIGTERM): forwarded, and
# kjail does not wait for the reader after the command's end.
stall_start --output-limit 1M -- sh -c 'trap "exit 5" TERM; head -c 100000 /dev/zero; touch ran; sleep 30 & wait'
stall_signal TERM true
ok "sigterm_while_running_ends_wait_for_reader ($rc in $ms ms)" test "$rc" = 5 -a "$ms" -lt "$BOUND"

# The command ended by itself before the timeout: its own status. No
# --output-limit: a FIFO of the caller's is relayed all the same.
t0=$(date +%s%N)
stall_start --timeout 2 -- sh -c 'head -c 100000 /dev/zero; exit 3'
stall_end
ok "timeout_after_exit_ends_wait_for_reader ($rc in $ms ms)" test "$rc" = 3 -a "$ms" -lt $((BOUND + 2000))
like "$err" "$DROPPED when the timeout expired\)$" timeout_after_exit_says_output_dropped

# The timeout killed the command: 124 at once, not after the reader.
t0=$(date +%s%N)
stall_start --timeout 1 --kill-grace 5 --output-limit 1M -- yes
stall_end
ok "timeout_with_stalled_reader_returns_at_timeout ($rc in $ms ms)" test "$rc" = 124 -a "$ms" -lt $((BOUND + 1000))

# kjail's notes start a line of their own; 1 byte, not 1 bytes; on a pty
# stdout and stderr are one stream, "output".
out=$(kjx --output-limit 5 -- printf abcdefg 2>&1)
is "$out" "abcde
kjail: stdout truncated after 5 bytes (2 bytes dropped)" truncation_note_starts_a_line
kj exec --output-limit 5 -- printf abcdef
is "$out:$err" "abcde:kjail: stdout truncated after 5 bytes (1 byte dropped)" truncation_note_says_1_byte
kj exec --tty --output-limit 5 -- sh -c 'echo abcdefgh >&2'
is "$err" "kjail: output truncated after 5 bytes (5 bytes dropped)" tty_truncation_note_says_output

# `> log 2>&1` (a CI runner's log): stdout and stderr to one file are
# relayed through one pipe, so the file gets the command's writes in the
# order it made them (two relays mixed them up: out1 out2 ... err1 err2),
# also when the file was opened twice (`>log 2>log`: each relay wrote at
# its own offset, over the other's). A note of kjail's after a last line
# without a newline still starts a line.
interleave='for i in $(seq 1 500); do echo out$i; echo err$i >&2; done'
sh -c "$interleave" >"$T/ref.log" 2>&1
kjx -- sh -c "$interleave" >"$T/one.log" 2>&1
ok stdout_stderr_one_file_keep_order cmp -s "$T/ref.log" "$T/one.log"
kjx -- sh -c "$interleave" >"$T/two.log" 2>"$T/two.log"
ok stdout_stderr_two_opens_of_one_file_keep_order cmp -s "$T/ref.log" "$T/two.log"
kjx -- sh -c "$interleave" >>"$T/app.log" 2>&1
ok stdout_stderr_one_appended_file_keep_order cmp -s "$T/ref.log" "$T/app.log"
kjx --timeout 1 --kill-grace 1 -- sh -c 'printf partial >&2; sleep 30' >"$T/to.log" 2>&1
is "$?:$(cat "$T/to.log")" "124:partial
kjail: timed out after 1s and was killed" one_file_timeout_note_starts_a_line
# With --output-limit each stream keeps its own relay and cap.
kjx --output-limit 4 -- sh -c 'echo 12345678; echo abcdefgh >&2' >"$T/cap.log" 2>&1
like "$(cat "$T/cap.log")" "kjail: stdout truncated after 4 bytes" one_file_output_limit_caps_stdout
like "$(cat "$T/cap.log")" "kjail: stderr truncated after 4 bytes" one_file_output_limit_caps_stderr

# The last line of input without a newline, on a pty: the command sees
# it and then end of file.
out=$(printf 'partial' | as_caller timeout -k 5 10 "$KJAIL" exec $KJ_EXEC_ARGS --tty -- sh -c 'cat >/dev/null; echo eof-seen' 2>/dev/null)
rc=$?
like "$rc:$out" "^0:.*eof-seen" pty_input_without_final_newline_ends

# A file of the caller's as stdin and stdout: the command works on the
# data, but cannot change the file's mode or times (it gets a pipe).
printf 'data\n' >"$T/in" && chmod 0600 "$T/in" && chown "$KJ_UID" "$T/in"
: >"$T/out" && chmod 0600 "$T/out" && chown "$KJ_UID" "$T/out"
kjx -- python3 -c 'import os, sys
for fd in (0, 1):
    try: os.fchmod(fd, 0o666)
    except OSError: pass
sys.stdout.write(sys.stdin.read())' <"$T/in" >"$T/out" 2>/dev/null
is "$(stat -c %a "$T/in") $(stat -c %a "$T/out") $(cat "$T/out")" "600 600 data" file_stdio_relayed_not_chmodded

# The caller's /dev/null as stdin: reopened from the sandbox's read-only
# /dev, so fchmod fails (chmod to the mode it has: harmless if it did not).
out=$(kjx -- python3 -c 'import os
try:
    os.fchmod(0, 0o666); print("changed")
except OSError as e: print("refused", e.errno)' </dev/null 2>&1)
like "$out" "^refused (30|1)$" devnull_stdin_metadata_refused
echo x | kjx -- sh -c 'cat >/dev/null; echo ok' >"$T/ok" 2>&1
is "$(cat "$T/ok")" ok pipes_still_pass_straight

# Output to the same file as stdin (<>f >&0): stdin is relayed, so the
# command cannot write past --output-limit through fd 0.
: >"$T/same" && chown "$KJ_UID" "$T/same"
kjx --output-limit 100 -- sh -c 'head -c 5000 /dev/zero >&0; head -c 5000 /dev/zero' <>"$T/same" >&0 2>/dev/null
ok "output_limit_holds_through_stdin ($(stat -c %s "$T/same") bytes)" test "$(stat -c %s "$T/same")" -le 100

done_testing
