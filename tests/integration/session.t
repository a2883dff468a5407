#!/bin/bash
# Persistent sessions: create once, exec many times.
. "$(dirname "$0")/../lib.sh"

session_test_setup
S=kjt-$$
cleanup_sessions() { for s in "$S" "$S-b" "$S-idle" "$S-c" "$S-g" "$S-kg" "$S-cc" "$S-rm" "$S-nh" "$S-nq"; do as_caller "$KJAIL" rm "$s" >/dev/null 2>&1; done; }
trap 'cleanup_sessions; _cleanup' EXIT

kj create $CREATE_ARGS "$S"
expect_rc create_returns_ready 0
kj exec -s "$S" -- sh -c 'echo hello; echo err >&2; exit 3'
is "$out|$err|$rc" "hello|err|3" exec_into_session_output_and_status
kj exec -s "$S" -- sh -c 'echo state > /tmp/f; export X=1'
kj exec -s "$S" -- cat /tmp/f
is "$out" state tmp_state_carries_between_execs
# The background sleeps' durations are this run's own: the VM runs the
# root and user lanes side by side, and each looks for its own on the host.
BG1=1000$$ BG2=1001$$
# sleep_runs D: a host process "sleep D" exists.
sleep_runs() { for p in /proc/[0-9]*; do { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null; echo; done | grep -q "^sleep $1 "; }
sleep_gone() { ! sleep_runs "$1"; }
kj exec -s "$S" -- sh -c 'setsid sleep "$1" </dev/null >/dev/null 2>&1 & echo started' sh "$BG1"
# (setsid and sleep may still be starting when the next exec comes: wait
# up to 5 s for it to show.)
kj exec -s "$S" -- sh -c 'for i in $(seq 100); do ps -eo args | grep -q "^sleep $1" && break; sleep 0.05; done; ps -eo args | grep -c "^sleep $1"' sh "$BG1"
is "$out" 1 background_process_survives_between_execs
kj exec -s "$S" -- hostname
is "$out" kjail session_is_a_sandbox

# ------------------------------------------ an exec reports as a run does
# A slow reader gets all of it: the client gave up after 100 ms without a
# POLLOUT and dropped the rest, unsaid (65536 of 150000 bytes).
got=$(as_caller "$KJAIL" exec -s "$S" --output-limit 10M -- head -c 150000 /dev/zero 2>"$T/slow.err" | (sleep 1; wc -c))
is "$got:$(cat "$T/slow.err")" "150000:" session_exec_slow_reader_gets_all_output
# bg_kj OUT ERR ARGS...: kjail as the caller in the background, $bgpid
# its own pid (to signal it), its signals at their defaults.
bg_kj() {
	local o=$1 e=$2
	shift 2
	if [ "$KJ_AS" = user ]; then
		setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups -- \
			env --default-signal HOME="${KJ_HOME:-/nonexistent}" "$KJAIL" "$@" >"$o" 2>"$e" </dev/null &
	else
		env --default-signal "$KJAIL" "$@" >"$o" 2>"$e" </dev/null &
	fi
	bgpid=$!
}
gone() { ! kill -0 "$1" 2>/dev/null; }
# A background job that keeps writing once the command ended: SIGTERM
# ends the exec (it went on for as long as the job wrote).
bg_kj "$T/bg.out" "$T/bg.err" exec -s "$S" --output-limit 1M -- \
	sh -c '(while :; do echo x; sleep 0.05; done) & echo $! > bg.pid; echo started'
sleep 1
kill -TERM "$bgpid"
settles 3 gone "$bgpid"
ok session_exec_ends_on_sigterm_after_command_ended gone "$bgpid"
kill -KILL "$bgpid" 2>/dev/null
wait "$bgpid" 2>/dev/null
is "$(grep -c '^started$' "$T/bg.out"):$(grep -c '^x$' "$T/bg.out" | sed 's/^[1-9][0-9]*$/some/')" "1:some" \
	session_exec_background_output_relayed_until_told_to_end
kj exec -s "$S" -- sh -c 'kill "$(cat bg.pid)"; rm -f bg.pid'
# A background job that holds its stdout: with --output-limit that is
# kjail's pipe, closed when kjail exits, so a caller reading the output to
# its end (here $(...)) gets it at once (README, Sessions).
t0=$(date +%s%N)
got=$(as_caller timeout -s KILL 20 "$KJAIL" exec -s "$S" --output-limit 1M -- \
	sh -c 'sleep 300 & echo $! > bg.pid; echo fg' </dev/null 2>/dev/null)
ms=$((($(date +%s%N) - t0) / 1000000))
ok "session_exec_output_limit_caller_not_held_by_background_job ($ms ms)" \
	test "$got" = fg -a "$ms" -lt $((3000 + KJ_TIME_SLACK_MS))
kj exec -s "$S" -- sh -c 'kill "$(cat bg.pid)"; rm -f bg.pid'
# The signals a one-shot run passes on, and SIGCONT after an ending one.
bg_kj "$T/u.out" "$T/u.err" exec -s "$S" -- sh -c 'trap "exit 7" USR1; touch usr1-ready; sleep 5 & wait'
settles 5 test -e "$WS/usr1-ready"
sleep 0.2
kill -USR1 "$bgpid"
wait "$bgpid"
is "$?" 7 session_exec_forwards_sigusr1
rm -f "$WS/usr1-ready"
bg_kj "$T/c.out" "$T/c.err" exec -s "$S" -- sh -c 'trap "exit 5" TERM; touch stop-ready; kill -STOP $$'
settles 5 test -e "$WS/stop-ready"
sleep 0.3
kill -TERM "$bgpid"
settles 5 gone "$bgpid"
kill -KILL "$bgpid" 2>/dev/null
wait "$bgpid"
is "$?" 5 session_exec_sigterm_reaches_stopped_command
rm -f "$WS/stop-ready"
kj exec -s "$S" --quiet=1 -- true
like "$rc:$err" "^125:kjail: option: --quiet takes no value" session_exec_flag_value_refused
kj exec -s "$S" -- pwd
is "$out" "$WS" session_exec_starts_in_workspace
kj exec -s "$S" --cwd /tmp -- pwd
is "$out" /tmp cwd_option
kj exec -s "$S" --setenv FOO=bar -- sh -c 'echo $FOO'
is "$out" bar setenv_per_exec
kj exec -s "$S" -- grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status
is "$(echo $out | tr -s '\t ' ' ')" "CapEff: 0000000000000000 NoNewPrivs: 1 Seccomp: 2" exec_gets_same_privileges
kj exec -s "$S" -- nosuchcommand
expect_rc exec_not_found_127 127
like "$err" "kjail: exec: nosuchcommand: No such file or directory" exec_not_found_message
kj exec -s "$S" -- sh -c 'kill -9 $$'
expect_rc exec_signal_status 137

t0=$(date +%s%N)
kj exec -s "$S" --timeout 1 --kill-grace 1 -- sh -c 'sleep 30'
t1=$(date +%s%N)
expect_rc per_exec_timeout_124 124
like "$err" "timed out after 1s" per_exec_timeout_message
ok "per_exec_timeout_prompt ($(( (t1 - t0) / 1000000 )) ms)" test $(( (t1 - t0) / 1000000 )) -lt $((4000 + KJ_TIME_SLACK_MS))
kj exec -s "$S" -- cat /tmp/f
is "$out" state timeout_kills_only_that_exec

# An exec's stdout and stderr to one file (`> log 2>&1`) keep the order
# the command wrote them in, as a one-shot run's do; the timeout's note
# after a last line without a newline starts a line of its own (it was
# "partialkjail: timed out ...", where a one-shot run's was not).
interleave='for i in $(seq 1 500); do echo out$i; echo err$i >&2; done'
sh -c "$interleave" >"$T/ref.log" 2>&1
as_caller "$KJAIL" exec -s "$S" -- sh -c "$interleave" >"$T/one.log" 2>&1 </dev/null
ok session_exec_stdout_stderr_one_file_keep_order cmp -s "$T/ref.log" "$T/one.log"
as_caller "$KJAIL" exec -s "$S" --timeout 1 --kill-grace 1 -- sh -c 'printf partial; sleep 30' \
	>"$T/to.log" 2>&1 </dev/null
is "$?:$(cat "$T/to.log")" "124:partial
kjail: timed out after 1s and was killed" session_exec_timeout_note_starts_a_line
as_caller "$KJAIL" exec -s "$S" --timeout 1 --kill-grace 1 -- sh -c 'printf partial >&2; sleep 30' \
	2>"$T/to2.log" </dev/null
is "$?:$(cat "$T/to2.log")" "124:partial
kjail: timed out after 1s and was killed" session_exec_timeout_note_starts_a_line_on_stderr_file

# The timeout kills the command's process group and session, also what
# ignored the SIGTERM when the command itself died of it: the client's
# SIGKILL after the grace came only while the command ran, and that
# process ran on in the session.
BG3=1002$$
rm -f "$WS/term-ignored"
kj exec -s "$S" --timeout 1 --kill-grace 1 -- sh -c \
	'(trap "" TERM; touch term-ignored; exec sleep "$1") & sleep 300' sh "$BG3"
is "$rc:$(test -e "$WS/term-ignored" && echo started)" 124:started session_timeout_term_ignoring_process_started
ok session_timeout_kills_what_ignored_sigterm settles 5 sleep_gone "$BG3"
rm -f "$WS/term-ignored"

# A reader that takes nothing (it holds the FIFO open, unread) keeps an
# exec waiting no longer than a one-shot run: past the timeout, or once
# kjail was told to end while the command ran, what the reader did not
# take is dropped and said. The exec waited for the reader to go (it
# checked only a signal that came after the command ended).
mkfifo "$T/fifo"
# slow_reader: hold the FIFO open for reading and read nothing; $reader.
slow_reader() {
	sleep 60 <"$T/fifo" &
	reader=$!
}
slow_reader
as_caller timeout -s KILL 10 "$KJAIL" exec -s "$S" --timeout 1 --kill-grace 1 -- \
	sh -c 'trap "" TERM; head -c 1000000 /dev/zero; sleep 100' >"$T/fifo" 2>"$T/fifo.err" </dev/null
rc=$?
kill "$reader"
wait "$reader" 2>/dev/null
like "$rc:$(cat "$T/fifo.err")" "^124:.*not taken by the reader when the timeout expired" \
	session_exec_timeout_gives_up_on_slow_reader
slow_reader
rm -f "$WS/fifo-ready"
bg_kj "$T/fifo" "$T/fifo.err" exec -s "$S" -- sh -c 'head -c 100000 /dev/zero; touch fifo-ready; sleep 100'
settles 10 test -e "$WS/fifo-ready" && kill -TERM "$bgpid"
settles 10 gone "$bgpid"
kill -KILL "$bgpid" 2>/dev/null
wait "$bgpid"
rc=$?
kill "$reader"
wait "$reader" 2>/dev/null
like "$rc:$(cat "$T/fifo.err")" "^143:.*not taken by the reader when kjail got SIGTERM" \
	session_exec_sigterm_gives_up_on_slow_reader
rm -f "$WS/fifo-ready"

kj exec -s "$S" --output-limit 1000 -- sh -c 'head -c 100000 /dev/zero | tr "\0" x'
is "${#out}" 1000 output_limit_per_exec
like "$err" "stdout truncated after 1000 bytes \(99000 bytes dropped\)" output_limit_message

# 20 concurrent execs into one session each get their own output and status.
for i in $(seq 20); do
	( as_caller "$KJAIL" exec -s "$S" -- sh -c "sleep 0.2; echo out-$i; exit $i" > "$T/c$i.out" 2>/dev/null; echo $? > "$T/c$i.rc" ) &
done
wait
bad=0
for i in $(seq 20); do
	[ "$(cat "$T/c$i.out")" = "out-$i" ] && [ "$(cat "$T/c$i.rc")" = "$i" ] || bad=$((bad + 1))
done
is "$bad" 0 twenty_concurrent_execs_own_output_and_status

# Threat model: what a process inside a session can and cannot do.
kj exec -s "$S" -- sh -c 'kill -9 1; kill -TERM 1; sleep 0.2; echo alive'
is "$out" alive inside_cannot_kill_session_init
kj exec -s "$S" -- true
expect_rc session_survives_signals_to_init 0
kj exec -s "$S" -- sh -c 'ls -A /run; ls /proc/1/fd 2>&1 | head -1; cat /proc/1/environ 2>&1 | head -c 40'
unlike "$out" "sock|kjail" control_socket_and_init_fds_unreachable
like "$out" "Permission denied" init_fds_permission_denied
kj exec -s "$S" -- "$PROBES/fdcheck"
expect_rc exec_sees_only_its_own_stdio 0
kj exec -s "$S" -- sh -c 'cat /proc/1/status | grep -E "^(CapEff|NoNewPrivs|Seccomp):" | tr -s "\t" " " | tr "\n" " "'
is "$out" "CapEff: 0000000000000000 NoNewPrivs: 1 Seccomp: 2 " session_init_itself_confined
kj exec -s "$S" -- python3 -c 'import ctypes; l=ctypes.CDLL(None); print(l.ptrace(16, 1, 0, 0))'
is "$out" -1 ptrace_of_init_refused

kj ls
like "$out" "$S +running" ls_shows_running
kj ls --json
like "$out" "\"name\":\"$S\",\"state\":\"running\"" ls_json
# ls_json_times NAME: the types of the session's age_s and idle_s, and
# whether the old string "idle" ("12s" or "-") is still there.
ls_json_times() {
	printf '%s' "$out" | python3 -c 'import json,sys
s=[s for s in json.load(sys.stdin) if s["name"] == sys.argv[1]][0]
print(type(s["age_s"]).__name__, type(s.get("idle_s")).__name__, "idle" in s)' "$1" 2>&1 | tail -1
}
is "$(ls_json_times "$S")" "int int False" ls_json_idle_s_is_seconds_as_a_number
# ls_json_memory NAME: the type of the session's memory_bytes, whether it
# is what its cgroup's memory.current says (a number of bytes when that
# file is there, null when not: no cgroup of its own on a hybrid host, or
# freed at stop), and whether the old string "memory" ("1.2M", "n/a") is
# still there.
ls_json_memory() {
	local cg want=NoneType
	cg=$(sed -n 's/^cgroup=//p' "$sdir/$1.state")
	[ -n "$cg" ] && [ -r "$cg/memory.current" ] && want=int
	printf '%s' "$out" | python3 -c 'import json,sys
s=[s for s in json.load(sys.stdin) if s["name"] == sys.argv[1]][0]
m=s.get("memory_bytes", "absent")
print(type(m).__name__ == sys.argv[2] and (m is None or m > 0), "memory" in s)' "$1" "$want" 2>&1 | tail -1
}
if [ "$KJ_AS" = user ]; then sdir=$XDG_RUNTIME_DIR/kjail; else sdir=/run/kjail; fi
is "$(ls_json_memory "$S")" "True False" ls_json_memory_bytes_is_a_number_or_null

# kjail under another name (an installed kjail-1.2, say): its sessions
# are still told apart from a recycled pid, and rm leaves no record.
cp "$KJAIL" "$T/kj-renamed" && chmod 755 "$T/kj-renamed"
# shellcheck disable=SC2086
as_caller "$T/kj-renamed" create $CREATE_ARGS "$S-c" >/dev/null 2>&1
ls_out=$(as_caller "$T/kj-renamed" ls 2>&1)
like "$ls_out" "$S-c +running" renamed_kjail_session_running
as_caller "$T/kj-renamed" rm "$S-c" >/dev/null 2>&1
ls_out=$(as_caller "$T/kj-renamed" ls 2>&1)
unlike "$ls_out" "$S-c" renamed_kjail_rm_leaves_no_record

# Sessions are isolated from each other.
kj create $CREATE_ARGS "$S-b"
kj exec -s "$S-b" -- sh -c 'cat /tmp/f 2>/dev/null; ps -eo args | grep -c "^sleep $1"' sh "$BG1"
is "$out" 0 sessions_isolated_from_each_other

# Twenty sessions at once.
for i in $(seq 20); do
	( as_caller "$KJAIL" create $CREATE_ARGS "$S-m$i" >/dev/null 2>&1 &&
	  as_caller "$KJAIL" exec -s "$S-m$i" -- sh -c "echo m$i > /tmp/id; cat /tmp/id" > "$T/m$i.out" 2>&1 ) &
done
wait
bad=0
for i in $(seq 20); do [ "$(cat "$T/m$i.out")" = "m$i" ] || bad=$((bad + 1)); done
is "$bad" 0 twenty_sessions_at_once
for i in $(seq 20); do as_caller "$KJAIL" rm "$S-m$i" >/dev/null 2>&1; done

# Bad input.
kj create $CREATE_ARGS "$S"
expect_rc create_existing_name_125 125
like "$err" "session '$S' exists" create_existing_name_message
kj create $CREATE_ARGS "-bad"
expect_rc bad_name_125 125
kj create $CREATE_ARGS "a/b"
expect_rc bad_name_slash_125 125
like "$err" "invalid session name" bad_name_message
# Every -s NAME given is checked, not only the last (as a flag's value a
# later one replaces): the session must not run with a bad name before.
kj exec -s 'bad name' -s "$S" -- touch "$WS/s-ran"
like "$rc:$err" "^125:kjail: session: invalid session name 'bad name'" replaced_bad_session_name_refused
ok replaced_bad_session_name_never_runs test ! -e "$WS/s-ran"
rm -f "$WS/s-ran"
kj exec --session=a/b -s "$S" -- true
like "$rc:$err" "^125:kjail: session: invalid session name 'a/b'" replaced_bad_session_name_eq_form_refused
kj exec -s "nosuch-$$" -- true
expect_rc unknown_session_125 125
like "$err" "no running session 'nosuch-$$'" unknown_session_message
# A misspelt option is an unknown option (the quick client leaves every
# option to the full one, which says so), not one that "does not apply".
kj exec -s "$S" --timeot 1s -- true
is "$rc:$err" "125:kjail: option: unknown option --timeot (see kjail exec --help)" exec_unknown_option_named_unknown
kj exec -s "$S" --timeot=1s -- true
is "$rc:$err" "125:kjail: option: unknown option --timeot (see kjail exec --help)" exec_unknown_option_with_value_named_unknown
kj exec -s "$S" -x -- true
is "$rc:$err" "125:kjail: option: unknown option -x (see kjail exec --help)" exec_unknown_short_option_named_unknown
kj exec -s "$S" --net host -- true
like "$rc:$err" "^125:kjail: option: --net does not apply to one exec into a session" exec_sandbox_option_still_does_not_apply

# A second user cannot reach the first user's sessions.
if [ "$KJ_AS" = root ]; then
	OUT=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_RUNTIME_DIR=/nonexistent-x "$KJAIL" exec -s "$S" -- true 2>&1; echo rc=$?)
	like "$OUT" "rc=125" other_user_cannot_exec_into_root_session
	ok other_user_cannot_read_state_dir test "$(stat -c %a /run/kjail)" = 700
else
	ok other_user_state_dir_private test "$(stat -c %a "$XDG_RUNTIME_DIR/kjail")" = 700
	OUT=$(env -u XDG_RUNTIME_DIR "$KJAIL" ls 2>&1)
	unlike "$OUT" "$S" root_does_not_list_user_sessions_by_default
fi

# A .git/commondir that a process of the session made is set aside once
# the session has stopped (no process of it is left to make another).
mkdir -p "$T/gws" && chmod 0777 "$T/gws"
as_caller git init -q "$T/gws"
kj create $CREATE_ARGS --workspace "$T/gws" "$S-g"
kj exec -s "$S-g" -- sh -c 'echo /tmp/elsewhere > .git/commondir && echo planted'
is "$rc:$out" "0:planted" session_commondir_can_be_created
kj stop "$S-g"
ok session_commondir_set_aside_at_stop test ! -e "$T/gws/.git/commondir" -a -e "$T/gws/.git/commondir.kjail-refused"
kj rm "$S-g"

# A session created by a caller that ignores signals (32 and 33 too,
# which glibc's sigaction will not touch: tests/probes/sigignore.c): its
# execs do not inherit them (its init sets each back before any exec;
# exec would keep an ignored one ignored). Through the quick client and
# the full one.
# shellcheck disable=SC2086
as_caller "$PROBES/sigignore" 1,2,3,10,13,32,33,40 \
	"$KJAIL" create $CREATE_ARGS "$S-ign" >/dev/null 2>&1 </dev/null
kj exec -s "$S-ign" -- grep SigIgn /proc/self/status
is "$rc:$out" "0:SigIgn:	0000000000000000" session_exec_has_no_ignored_signal_of_creator
kj exec -s "$S-ign" --quiet -- grep SigIgn /proc/self/status
is "$rc:$out" "0:SigIgn:	0000000000000000" session_exec_full_client_has_no_ignored_signal_of_creator
kj rm "$S-ign"

# stop kills everything; the record stays until rm.
kj stop "$S"
expect_rc stop_ok 0
kj ls
like "$out" "$S +stopped" stopped_session_listed
kj ls --json
is "$(ls_json_times "$S")" "int NoneType False" ls_json_idle_s_null_when_stopped
is "$(ls_json_memory "$S")" "True False" ls_json_memory_bytes_when_stopped
if sleep_runs "$BG1"; then alive=1; else alive=0; fi
kj exec -s "$S" -- true
expect_rc exec_into_stopped_125 125
kj rm "$S"
kj ls
unlike "$out" "$S " rm_forgets
is "$(ls -A "$sdir" | grep -c "^$S\.")" 0 rm_leaves_no_state_file
# (the other session still has no sleep, so any left would be from $S)
is "$alive" 0 stop_kills_background_processes

# A create that fails while the sandbox is built (a root with no /proc to
# mount on) leaves nothing in the state directory, its lock file included.
mkdir -p "$T/emptyroot"
kj create $CREATE_ARGS --root "$T/emptyroot" "$S-f"
expect_rc failed_create_exits_125 125
is "$(ls -A "$sdir" | grep -c "^$S-f\.")" 0 failed_create_leaves_no_file
# The lock file of a create killed half-way is gc's to remove (silently:
# it is no session).
as_caller touch "$sdir/$S-o.lock"
kj gc
is "$rc:$out:$(ls -A "$sdir" | grep -c "^$S-o\.")" "0::0" gc_removes_orphan_lock_silently

# --create recreates.
kj exec -s "$S-c" --create $CREATE_ARGS -- echo made
is "$out" made exec_create_creates_session

# SIGKILL of the supervisor: every process dies, ls says dead, gc cleans.
kj exec -s "$S-b" -- sh -c 'setsid sleep "$1" </dev/null >/dev/null 2>&1 &' sh "$BG2"
sup=$(as_caller "$KJAIL" ls --json | python3 -c "import json,sys; print([s['pid'] for s in json.load(sys.stdin) if s['name']=='$S-b'][0])")
ok session_background_process_running_before_sigkill settles 5 sleep_runs "$BG2"
kill -9 "$sup"
ok supervisor_sigkill_leaves_no_process settles 5 sleep_gone "$BG2"
kj ls
like "$out" "$S-b +dead" ls_shows_dead
kj gc
like "$out" "removed session $S-b" gc_cleans_dead_session
kj ls
unlike "$out" "$S-b " gc_forgot_it
is "$(ls -A "$sdir" | grep -c "^$S-b\.")" 0 gc_leaves_no_state_file

# The session's --kill-grace 0 is SIGKILL at once, as for a one-shot run
# (0 read as "unset" gave every exec the 5 s default).
kj create $CREATE_ARGS --timeout 1 --kill-grace 0 "$S-kg"
start=${EPOCHREALTIME/./}
kj exec -s "$S-kg" -- sh -c 'trap "" TERM; sleep 10'
ms=$(((${EPOCHREALTIME/./} - start) / 1000))
is "$rc" 124 session_kill_grace_0_exec_times_out
ok session_kill_grace_0_kept_by_exec test "$ms" -lt $((3000 + KJ_TIME_SLACK_MS))
kj stop "$S-kg"
kj rm "$S-kg"

# Idle timeout stops a session.
kj create $CREATE_ARGS --idle-timeout 1s "$S-idle"
sleep 2.5
kj ls
like "$out" "$S-idle +stopped" idle_timeout_stops_session
kj exec -s "$S-idle" --create $CREATE_ARGS -- echo again
is "$out" again create_recreates_after_idle_stop
kj rm "$S-idle"

# Concurrent --create of one name: one creates, the others join it, and
# every command runs.
for i in 1 2 3 4; do
	as_caller "$KJAIL" exec -s "$S-cc" --create $CREATE_ARGS -- echo "ok$i" >"$T/cc.$i" 2>&1 </dev/null &
done
wait
is "$(cat "$T/cc.1" "$T/cc.2" "$T/cc.3" "$T/cc.4" | sort | tr '\n' ' ')" "ok1 ok2 ok3 ok4 " \
	concurrent_create_on_exec_all_run
kj rm "$S-cc"

# exec --create makes the checks kjail create makes.
kj exec -s "$S-cc" --create --profile host -- true
like "$rc:$err" "^125:kjail: session: the host profile has no sandbox to keep" create_on_exec_refuses_host_profile
kj exec -s "$S-cc" --create $CREATE_ARGS --stats -- true
like "$rc:$err" "^125:kjail: option: --stats does nothing for kjail create" create_on_exec_refuses_stats
kj ls
unlike "$out" "$S-cc " create_on_exec_refused_leaves_no_session

# Looking is no activity: a `kjail ls` every half second does not keep
# a session alive past its idle timeout.
kj create $CREATE_ARGS --idle-timeout 1s "$S-idle"
for _ in 1 2 3 4 5 6; do kj ls; sleep 0.5; done
like "$out" "$S-idle +stopped" idle_timeout_not_reset_by_ls

# The workspace removed on the host and made again (an agent's "fresh
# checkout"): the session's bind still holds the old, deleted directory,
# where nothing can be created and nothing written reaches the host. An
# exec says so (125) instead of running there: the command ran, exit 0,
# with "getcwd() failed" and "cannot create f: Directory nonexistent".
mkdir "$WS/gone" && chown "$KJ_UID" "$WS/gone"
(cd "$WS/gone" && kj create $CREATE_ARGS "$S-rm")
kj exec -s "$S-rm" -- sh -c 'echo x > f && echo made'
is "$rc:$out" 0:made removed_workspace_session_ran_before
rm -rf "$WS/gone" && mkdir "$WS/gone" && chown "$KJ_UID" "$WS/gone"
kj exec -s "$S-rm" -- sh -c 'echo x > f; echo ran'
like "$rc:$out:$err" "^125::kjail: session: $WS/gone was removed or renamed on the host after the session was made" \
	removed_workspace_exec_refused
kj rm "$S-rm"
# The same for a workspace outside /tmp (a checkout in a home or /srv),
# the common case: there DEST is the host's own directory seen through
# the read-only root, so the kernel detaches the session's bind when the
# host removes it, and an exec ran (exit 0) in the new directory, the
# host's, read-only; renamed, the exec failed with 'cd ...: No such file'.
# A bind gone kills the session (runtime/mount_watch.c), and the exec
# says so; one that comes before the kill is refused by init's check.
VWS=$(mktemp -d /var/tmp/kjail-ws.XXXXXX)
chmod 755 "$VWS"
mkdir "$VWS/gone" && chown "$KJ_UID" "$VWS/gone"
(cd "$VWS/gone" && kj create $CREATE_ARGS "$S-rm2")
rm -rf "$VWS/gone" && mkdir "$VWS/gone" && chown "$KJ_UID" "$VWS/gone"
kj exec -s "$S-rm2" -- sh -c 'echo x > f; echo ran'
like "$rc:$out:$err" "^125::kjail: session: ($VWS/gone was removed or renamed on the host after the session was made|session '$S-rm2' was killed: the host removed, replaced or renamed a path it had masked or bound)" \
	removed_workspace_outside_tmp_exec_refused
kj rm "$S-rm2"
mkdir "$VWS/mv" && chown "$KJ_UID" "$VWS/mv"
(cd "$VWS/mv" && kj create $CREATE_ARGS "$S-mv")
mv "$VWS/mv" "$VWS/mv2"
kj exec -s "$S-mv" -- true
# Renamed, the session is killed for it at once (runtime/mount_watch.c),
# or, an exec before the kill, refused by init's check.
like "$rc:$err" "^125:kjail: session: ($VWS/mv was removed or renamed on the host after the session was made|session '$S-mv' was killed: the host removed, replaced or renamed a path it had masked or bound)" \
	renamed_workspace_exec_refused_with_reason
kj rm "$S-mv"
rm -rf "$VWS"

# A downgrade a session was made with is said when it is made, as kjail
# exec says it: the supervisor's stderr is /dev/null, and kjail create
# once said nothing of --net host or --landlock off (or, under
# --limits best-effort, of the limits it could not enforce).
kj create $CREATE_ARGS --net host --landlock off "$S-nh"
is "$rc" 0 create_net_host_landlock_off_runs
like "$err" "^kjail: net: host: the command shares the host's network \(not isolated\)
kjail: landlock: off: no Landlock rules beneath the mounts" create_says_net_host_and_landlock_off
kj stop "$S-nh"
kj rm "$S-nh"
kj create $CREATE_ARGS --quiet --net host "$S-nq"
is "$rc:$err" "0:" create_quiet_net_host_is_silent
kj stop "$S-nq"
kj rm "$S-nq"

done_testing
