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
