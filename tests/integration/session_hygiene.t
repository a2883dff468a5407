#!/bin/bash
# Sessions leave nothing of their caller's behind and nothing stray in the
# state directory, and `kjail ls --json` is JSON whatever the paths hold.
. "$(dirname "$0")/../lib.sh"

session_test_setup
S=hyg-$$
if [ "$KJ_AS" = user ]; then sdir=$XDG_RUNTIME_DIR/kjail; else sdir=/run/kjail; fi
holder=
filler=
full_init=
deaf_init=
deaf_client=
cleanup_sessions() {
	for s in "$S-pipe" "$S-fd" "$S-json" "$S-stuck" "$S-opt" "$S-fail" "$S-dead" "$S-full" "$S-gone" "$S-gonefail" "$S-kill" "$S-supkill" "$S-deaf" "$S-flood" "$S-idle" "$S-nofd"; do as_caller "$KJAIL" rm "$s" >/dev/null 2>&1; done
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "$filler" ] && kill "$filler" 2>/dev/null
	[ -n "$full_init" ] && kill -CONT "$full_init" 2>/dev/null
	[ -n "$deaf_init" ] && kill -CONT "$deaf_init" 2>/dev/null
	[ -n "$deaf_client" ] && kill -KILL "$deaf_client" 2>/dev/null
	touch "$T/marks/flood_let_go" "$T/marks/fds_let_go" 2>/dev/null
	# (an old kjail's gc leaves the stray sockets this file makes)
	rm -f "$sdir/$S-stray.sock" "$sdir/$S-stray.lock" "$sdir/$S-held.sock" "$sdir/$S-held.lock" \
		"$sdir/$S-dead.state" "$sdir/$S-dead.sock" "$sdir/$S-dead.lock"
}
trap 'cleanup_sessions; _cleanup' EXIT

# supervisor_pid NAME: the session's supervisor, from ls --json.
supervisor_pid() {
	as_caller "$KJAIL" ls --json | python3 -c 'import json,sys
print([s["pid"] for s in json.load(sys.stdin) if s["name"] == sys.argv[1]][0])' "$1"
}

# The supervisor keeps no fd of its caller's: a pipe the caller handed
# `create` on fd 5 reaches EOF once create returns (it hung until the
# session ended), and the session works.
t0=$(date +%s%N)
# shellcheck disable=SC2016
as_caller timeout 5 sh -c '"$0" create $1 "$2" 5>&1 | cat >/dev/null' \
	"$KJAIL" "$CREATE_ARGS" "$S-pipe" </dev/null >/dev/null 2>&1
prc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
is "$prc" 0 create_piped_with_extra_fd_returns
ok "supervisor_holds_no_caller_pipe ($ms ms)" test "$ms" -lt $((3000 + KJ_TIME_SLACK_MS))
kj exec -s "$S-pipe" -- echo alive
is "$rc:$out" "0:alive" session_works_after_piped_create

# A file the caller had open on fd 7 is not among the supervisor's fds.
echo secret >"$T/caller-file" && chmod 0644 "$T/caller-file"
kj create $CREATE_ARGS "$S-fd" 7<"$T/caller-file"
expect_rc create_with_open_file_fd 0
sup=$(supervisor_pid "$S-fd")
held=0
for f in /proc/"$sup"/fd/*; do
	[ "$(readlink "$f")" = "$T/caller-file" ] && held=1
done
ok "supervisor_found ($sup)" test -d "/proc/$sup/fd"
is "$held" 0 supervisor_holds_no_caller_file

# A socket with no record and no create holding its lock (a create killed
# between its bind and its supervisor's record): gc removes it, silently,
# and leaves no lock file in its place.
# shellcheck disable=SC2016
mksock='import socket,sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])'
as_caller python3 -c "$mksock" "$sdir/$S-stray.sock"
ok stray_socket_made test -S "$sdir/$S-stray.sock"
kj gc
is "$rc:$out" "0:" gc_silent_on_stray_socket
is "$(ls -A "$sdir" | grep -c "^$S-stray\.")" 0 gc_removes_stray_socket
ok gc_keeps_live_session_socket test -S "$sdir/$S-fd.sock"
kj exec -s "$S-fd" -- echo alive
is "$rc:$out" "0:alive" live_session_works_after_gc

# A socket whose lock is held (a create between its bind and its record)
# is that create's: gc leaves it, and removes it once the lock is free.
as_caller python3 -c "$mksock" "$sdir/$S-held.sock"
# shellcheck disable=SC2016
as_caller python3 -c 'import fcntl,os,sys,time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print(os.getpid(), flush=True)
time.sleep(30)' "$sdir/$S-held.lock" >"$T/holder.pid" 2>/dev/null &
lock_held() { [ -s "$T/holder.pid" ]; }
ok lock_holder_started settles 5 lock_held
holder=$(cat "$T/holder.pid")
kj gc
ok gc_keeps_socket_while_create_holds_lock test -S "$sdir/$S-held.sock"
kill "$holder"
wait
holder=
kj gc
is "$(ls -A "$sdir" | grep -c "^$S-held\.")" 0 gc_removes_socket_once_lock_free

# A dead session whose name a create is taking (the lock held) is that
# create's: gc checked it dead before, but by the time it removed the
# record and socket they could be the new session's (a live supervisor
# nobody could reach). gc leaves it, and reclaims it once the lock is free.
kj create $CREATE_ARGS "$S-dead"
dead_sup=$(supervisor_pid "$S-dead")
kill -9 "$dead_sup"
sup_gone() { ! kill -0 "$dead_sup" 2>/dev/null; }
ok dead_session_supervisor_gone settles 5 sup_gone
: >"$T/holder.pid"
# shellcheck disable=SC2016
as_caller python3 -c 'import fcntl,os,sys,time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print(os.getpid(), flush=True)
time.sleep(30)' "$sdir/$S-dead.lock" >"$T/holder.pid" 2>/dev/null &
ok dead_lock_holder_started settles 5 lock_held
holder=$(cat "$T/holder.pid")
kj gc
unlike "$out" "removed session $S-dead" gc_skips_dead_session_while_create_holds_lock
ok gc_keeps_record_while_create_holds_lock test -f "$sdir/$S-dead.state"
kill "$holder"
wait
holder=
kj gc
like "$out" "removed session $S-dead" gc_reclaims_dead_session_once_lock_free
is "$(ls -A "$sdir" | grep -c "^$S-dead\.")" 0 gc_reclaim_leaves_no_file

# A session that cannot answer (its init stopped) with its queue of
# connections full: a unix connect waits while the backlog is full, so
# ls hung there for ever. Now ls waits at most its 5 s, the connect
# included, and says busy (the supervisor lives: not dead).
kj create $CREATE_ARGS "$S-full"
full_sup=$(supervisor_pid "$S-full")
full_init=$(kj_children "$full_sup" | head -n 1)
ok "full_session_init_found ($full_init)" test -n "$full_init"
kill -STOP "$full_init"
: >"$T/filler.pid"
# shellcheck disable=SC2016
as_caller python3 -c 'import os,socket,sys,time
socks = []
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.setblocking(False)
    try:
        s.connect(sys.argv[1])
    except BlockingIOError:
        break
    socks.append(s)
print(os.getpid(), len(socks), flush=True)
time.sleep(60)' "$sdir/$S-full.sock" >"$T/filler.pid" 2>/dev/null &
filled() { [ -s "$T/filler.pid" ]; }
ok "session_queue_filled ($(cat "$T/filler.pid" 2>/dev/null))" settles 10 filled
filler=$(cut -d' ' -f1 "$T/filler.pid")
t0=$(date +%s%N)
out=$(as_caller timeout 30 "$KJAIL" ls 2>&1)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc" 0 "ls_returns_with_session_queue_full ($ms ms)"
ok "ls_waits_bounded_for_full_queue ($ms ms)" test "$ms" -lt $((12000 + KJ_TIME_SLACK_MS))
like "$out" "$S-full +busy" ls_says_busy_not_dead
kj gc
unlike "$out" "removed session $S-full" gc_leaves_busy_session
kill "$filler"
wait
filler=
kill -CONT "$full_init"
kj exec -s "$S-full" -- echo back
is "$rc:$out" "0:back" session_answers_after_queue_drains
kj rm "$S-full"
full_init=

# A client told to end (SIGTERM, SIGINT, SIGHUP) while its session's init
# does not serve (stopped here) ends within 1 s (session.h,
# SESSION_DEAF_MS) with 128+N and a line saying so: the signal it passed
# on sat unread and it waited for an exit status, until SIGKILL, hanging a
# harness that sends SIGTERM on its own timeout. The quick client (stdout
# and stderr pipes) and the full one (files, which it relays) alike. Once
# init serves again the session works, and the commands those clients
# asked for do not run: their callers were told they did not.
# deaf_client MODE OUT ARGS...: kjail as the caller in the background,
# $deaf_client its pid, its signals at their defaults; MODE quick: stdout
# and stderr are pipes, full: files. Its stderr ends up in OUT.err.
deaf_client() {
	local mode=$1 o=$2 run=(env --default-signal)
	shift 2
	[ "$KJ_AS" = user ] && run=(setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups --
		env --default-signal HOME="${KJ_HOME:-/nonexistent}")
	if [ "$mode" = quick ]; then
		"${run[@]}" "$KJAIL" "$@" </dev/null > >(cat >"$o.out") 2> >(cat >"$o.err") &
	else
		"${run[@]}" "$KJAIL" "$@" </dev/null >"$o.out" 2>"$o.err" &
	fi
	deaf_client=$!
}
gone() { ! kill -0 "$1" 2>/dev/null; }
said() { grep -q "did not take" "$1"; }
kj create $CREATE_ARGS "$S-deaf"
deaf_sup=$(supervisor_pid "$S-deaf")
deaf_init=$(kj_children "$deaf_sup" | head -n 1)
ok "deaf_session_init_found ($deaf_init)" test -n "$deaf_init"
kill -STOP "$deaf_init"
for c in quick:TERM full:INT quick:HUP; do
	mode=${c%%:*} sig=${c#*:}
	deaf_client "$mode" "$T/deaf-$mode-$sig" exec -s "$S-deaf" -- touch "deaf-ran-$sig"
	sleep 0.5 # connected, its command sent
	t0=$(date +%s%N)
	kill -"$sig" "$deaf_client"
	settles 3 gone "$deaf_client"
	ms=$((($(date +%s%N) - t0) / 1000000))
	if gone "$deaf_client"; then
		wait "$deaf_client"
		crc=$?
	else
		kill -KILL "$deaf_client"
		wait "$deaf_client"
		crc="still running"
	fi
	deaf_client=
	ok "deaf_session_${mode}_client_ends_on_sig$sig ($ms ms)" test "$ms" -lt $((2500 + KJ_TIME_SLACK_MS))
	settles 2 said "$T/deaf-$mode-$sig.err"
	is "$crc:$(cat "$T/deaf-$mode-$sig.err")" "$((128 + $(kill -l "$sig"))):kjail: session: session '$S-deaf' did not take SIG$sig within 1 s: its init does not answer (kjail ls shows it busy; kjail stop NAME ends it)" \
		"deaf_session_${mode}_client_says_why_sig$sig"
done
# Its own --timeout alike: 124, 1 s after the timeout's SIGTERM.
t0=$(date +%s%N)
KJ_KILL_AFTER=10 kj exec -s "$S-deaf" --timeout 1s -- touch deaf-ran-timeout
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc:$err" "124:kjail: session: session '$S-deaf' did not take the timeout's SIGTERM within 1 s: its init does not answer (kjail ls shows it busy; kjail stop NAME ends it)" \
	deaf_session_timeout_ends_the_client
ok "deaf_session_timeout_ends_it_in_time ($ms ms)" test "$ms" -lt $((3500 + KJ_TIME_SLACK_MS))
kill -CONT "$deaf_init"
deaf_init=
kj exec -s "$S-deaf" -- sh -c 'ls deaf-ran-* 2>/dev/null | wc -l'
is "$rc:$out" "0:0" deaf_session_serves_again_without_the_given_up_commands
kj ls
like "$out" "$S-deaf +running" deaf_session_listed_running
kj rm "$S-deaf"
expect_rc deaf_session_removed 0

# ls --json escapes what a workspace path may hold (" \ and a tab): the
# list parses, and the workspace reads back as it is.
WEIRD="$T/we\"ird\\dir	x"
mkdir -p "$WEIRD" && chmod 0777 "$WEIRD"
kj create $CREATE_ARGS --workspace "$WEIRD" "$S-json"
expect_rc create_with_odd_workspace 0
kj ls --json
got=$(printf '%s' "$out" | python3 -c 'import json,sys
print([s["workspace"] for s in json.load(sys.stdin) if s["name"] == sys.argv[1]][0])' "$S-json" 2>&1 | tail -1)
is "$got" "$WEIRD" ls_json_workspace_round_trips

# rm of a session whose supervisor does not stop (here: stopped with
# SIGSTOP) kills it, instead of forgetting the record of a live session.
kj create $CREATE_ARGS "$S-stuck"
stuck=$(supervisor_pid "$S-stuck")
kill -STOP "$stuck"
kj rm "$S-stuck"
expect_rc rm_of_unresponsive_session_returns 0
state=$(awk '{print $3}' "/proc/$stuck/stat" 2>/dev/null || echo gone)
like "$state" "^(Z|gone)$" rm_kills_a_supervisor_that_does_not_stop
kj ls
unlike "$out" "^$S-stuck " rm_of_unresponsive_session_forgets_it
kill -CONT "$stuck" 2>/dev/null

cleanup_sessions
is "$(ls -A "$sdir" | grep -c "^$S-")" 0 rm_leaves_no_file_of_this_suite

# A create that fails leaves no file of its session behind (bad input
# changes nothing): here the root has no /proc to mount on. The state
# directory itself stays, empty and private (below). The caller's own
# state directory, fresh: $XDG_RUNTIME_DIR for the user, a private /run
# for root.
mkdir -p "$T/emptyroot"
if [ "$KJ_AS" = user ]; then
	mkdir -p "$T/xdg2" && chmod 700 "$T/xdg2" && chown "$KJ_USER" "$T/xdg2"
	saved=$XDG_RUNTIME_DIR
	export XDG_RUNTIME_DIR=$T/xdg2
	# shellcheck disable=SC2086
	kj create $CREATE_ARGS --root "$T/emptyroot" "$S-fail"
	export XDG_RUNTIME_DIR=$saved
	left=$(ls -A "$T/xdg2/kjail" 2>/dev/null)
else
	# shellcheck disable=SC2016
	left=$(unshare -m --propagation private -- sh -c \
		'mount -t tmpfs tmpfs /run && "$0" create $1 --root "$2" "$3" >/dev/null 2>&1; echo "rc=$?"; ls -A /run/kjail 2>/dev/null' \
		"$KJAIL" "$CREATE_ARGS" "$T/emptyroot" "$S-fail")
	rc=${left%%$'\n'*}
	rc=${rc#rc=}
	left=$(printf '%s\n' "$left" | sed 1d)
fi
is "$rc:$left" "125:" failed_create_leaves_no_session_file

# A failed create keeps the state directory, as a one-shot run does: a
# sandbox still running masks it where it sees it, and the rmdir of it on
# the host detached that mask in the sandbox's namespace, so the next
# create made it anew, unmasked there: a --net none command saw a
# --net host session's socket and could exec into it. (Root's state
# directory, /run/kjail, no sandbox sees: its /run is its own.)
if [ "$KJ_AS" = user ]; then
	X=$WS/xdgm
	mkdir -p "$X" && chmod 700 "$X" && chown "$KJ_USER" "$X"
	saved=$XDG_RUNTIME_DIR
	export XDG_RUNTIME_DIR=$X
	# shellcheck disable=SC2016,SC2086
	as_caller "$KJAIL" exec $CREATE_ARGS --quiet --timeout 30s -- sh -c \
		'for i in $(seq 1 100); do [ -e "$0/kjail/$1.sock" ] && { echo seen; exit 0; }; sleep 0.1; done; echo hidden' \
		"$X" "$S-nh" >"$T/masked.out" 2>&1 </dev/null &
	masked=$!
	for _ in $(seq 1 50); do [ -d "$X/kjail" ] && break; sleep 0.1; done
	sleep 1 # the sandbox masks it once it is set up
	# shellcheck disable=SC2086
	kj create $CREATE_ARGS --root "$T/emptyroot" "$S-fail"
	# shellcheck disable=SC2086
	kj create $CREATE_ARGS --net host --quiet "$S-nh"
	wait "$masked"
	is "$(cat "$T/masked.out")" hidden failed_create_keeps_session_dir_masked_in_running_sandbox
	kj rm "$S-nh"
	export XDG_RUNTIME_DIR=$saved
else
	skip failed_create_keeps_session_dir_masked_in_running_sandbox "root's state directory is in /run, which no sandbox sees"
fi

# A create killed (kill -9) before its supervisor said "ready" got 137,
# not a session, so nothing of it may stay: the session ran on (a
# supervisor and an init nobody asked for, until its idle timeout), and
# when its setup then failed, its socket and lock file stayed. strace
# holds the supervisor in its first system call (setsid) while the create
# is killed. held_create NAME ARGS...: sets $client and $sup, and
# $held (the background job; create's stderr in $T/held.err). $hold: the
# supervisor's call to hold in (setsid).
held_create() {
	local name=$1 p ppid comm call=${hold:-setsid}
	shift
	client= sup=
	as_caller strace -f -qq -o /dev/null -e trace="$call" -e inject="$call:delay_enter=3000000" \
		"$KJAIL" create "$@" "$name" </dev/null >/dev/null 2>"$T/held.err" &
	held=$!
	# The create's kjail is strace's child; the supervisor, its grandchild,
	# is nobody's child of theirs once its parent (the fork between) exits.
	both_up() {
		client= sup=
		for p in $(pgrep -f -- "^$KJAIL create .*$name\$"); do
			# (The supervisor's cgroup sweeper shares its command line.)
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = kjail-sweep ] && continue
			read -r _ comm _ ppid _ <"/proc/$p/stat" 2>/dev/null || continue
			comm=$(cat "/proc/$ppid/comm" 2>/dev/null)
			if [ "$comm" = strace ]; then client=$p; else sup=$p; fi
		done
		[ -n "$client" ] && [ -n "$sup" ] && [ "$(awk '{print $4}' "/proc/$sup/stat" 2>/dev/null)" != "$client" ]
	}
	settles 20 both_up
}
abandoned_leaves_nothing() { # NAME WHAT
	gone_name=$1 # global: ok's own local $name would shadow a local here
	gone() {
		! kill -0 "$sup" 2>/dev/null &&
			[ "$(ls -A "$sdir" 2>/dev/null | grep -c "^$gone_name\.")" = 0 ]
	}
	settles 30 gone
	ok "$2 ($(ls -A "$sdir" 2>/dev/null | grep "^$gone_name\." | tr '\n' ' '))" gone
}
if command -v strace >/dev/null; then
	# shellcheck disable=SC2086
	held_create "$S-gone" $CREATE_ARGS
	ok "killed_create_supervisor_held ($client $sup)" test -n "$client" -a -n "$sup"
	kill -9 "$client"
	abandoned_leaves_nothing "$S-gone" killed_create_leaves_no_session
	kill -9 "$sup" 2>/dev/null
	kj ls
	unlike "$out" "^$S-gone " killed_create_is_not_listed
	# The same, when the supervisor's setup then fails (a workspace DEST
	# that cannot be made in the read-only root).
	# shellcheck disable=SC2086
	held_create "$S-gonefail" $CREATE_ARGS --workspace "$WS:/nonexistent-kj/dest"
	ok "killed_failing_create_supervisor_held ($client $sup)" test -n "$client" -a -n "$sup"
	kill -9 "$client"
	abandoned_leaves_nothing "$S-gonefail" killed_failing_create_leaves_no_socket_or_lock
	kill -9 "$sup" 2>/dev/null
	wait
	# The supervisor killed (kill -9) once it has taken the name (held in
	# clone3, its sandbox's start: the lock held, the socket bound):
	# create says so (125) and removes what it had made.
	# shellcheck disable=SC2086
	hold=clone3 held_create "$S-supkill" $CREATE_ARGS
	ok "held_in_clone3_supervisor_found ($client $sup)" test -n "$client" -a -n "$sup"
	files_made=$(ls -A "$sdir" 2>/dev/null | grep "^$S-supkill\." | tr '\n' ' ')
	kill -9 "$sup"
	wait "$held"
	rc=$?
	err=$(grep -v '^strace: ' "$T/held.err") # (strace's notes on the kill)
	is "$rc:$err" "125:kjail: session: the supervisor of '$S-supkill' died while starting (retry; if it repeats, kjail doctor checks the host)" \
		"killed_supervisor_reported_by_create (it had made: $files_made)"
	is "$(ls -A "$sdir" 2>/dev/null | grep "^$S-supkill\." | tr '\n' ' ')" "" \
		killed_supervisor_leaves_no_socket_or_lock
else
	skip killed_create_leaves_no_session "no strace"
fi

# A create killed (kill -9) at any moment of its start leaves nothing of
# the name behind: no lock, socket or record, no process. Or, killed once
# its supervisor had said "ready" (create's commit point: from there on
# the session is made, and a kill can come before create exits), a
# session that answers, which rm takes like any other. A create killed
# between taking the name's lock, binding its socket and forking the
# supervisor left the lock file and socket, with no process left to
# remove them (only kjail gc did).
K=$S-kill
# The processes of a create of $K that this test started: the create, its
# supervisor and the sandbox's init and proxy (forks of this kjail, none
# exec'd, with $K last; the path of this run's kjail first).
name_procs() { pgrep -f -- "^$KJAIL create .*$K\$" | tr '\n' ' '; }
name_files() { ls -A "$sdir" 2>/dev/null | grep "^$K\." | tr '\n' ' '; }
nothing_left() { [ -z "$(name_files)" ] && [ -z "$(name_procs)" ]; }
answers() { as_caller "$KJAIL" exec -s "$K" -- true </dev/null >/dev/null 2>&1; }
# soon SECONDS command...: settles, polled every 10 ms.
soon() {
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		read -r -t 0.01 -u "$nap"
	done
}
# after_kill: wait until no process of the name is left (none to remove
# what is there: the name is free, outcome=none) or its session answers
# (outcome=live; removed with rm); anything else stays as
# outcome="stray: ..." and fails.
after_kill() {
	settled() { [ -z "$(name_procs)" ] || answers; }
	outcome=none
	soon 20 settled
	if [ -n "$(name_procs)" ] && answers; then
		outcome=live
		as_caller "$KJAIL" rm "$K" >/dev/null 2>&1
		soon 10 nothing_left
	fi
	nothing_left || outcome="stray: $(name_files)procs: $(name_procs)"
	[ "$outcome" = none ] || [ "$outcome" = live ]
}
# The caller's argv for a kjail run in the background whose pid is
# kjail's own (as_caller there would be a subshell: kill -9 missed kjail).
if [ "$KJ_AS" = user ]; then
	caller=(setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups -- env
		HOME=/nonexistent USER="$KJ_USER" LOGNAME="$KJ_USER")
else
	caller=()
fi
mkfifo "$T/nap" && exec {nap}<>"$T/nap" # read -t on it: a sleep without a fork

# At random moments: 150 creates, each killed after 0 to 1.5 times what
# a create takes here (some are killed before kjail runs, some after it
# returned).
t0=${EPOCHREALTIME/./}
# shellcheck disable=SC2086
"${caller[@]}" "$KJAIL" create $CREATE_ARGS "$K" </dev/null >/dev/null 2>&1
span=$(((${EPOCHREALTIME/./} - t0) * 3 / 2))
as_caller "$KJAIL" rm "$K" >/dev/null 2>&1
tries=150 strays='' none=0 late=0 done=0
for i in $(seq "$tries"); do
	# shellcheck disable=SC2086
	"${caller[@]}" "$KJAIL" create $CREATE_ARGS "$K" </dev/null >/dev/null 2>&1 &
	pid=$!
	d=$((RANDOM * span / 32768))
	read -r -t "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))" -u "$nap"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null # (no "Killed" line)
	krc=$?
	if after_kill; then
		case $krc:$outcome in
		137:none) none=$((none + 1)) ;;
		137:live) late=$((late + 1)) ;;
		*) done=$((done + 1)) ;;
		esac
	else
		strays="$strays
try $i: $outcome"
	fi
done
_report "$([ -z "$strays" ] && echo 0 || echo 1)" \
	"killed_create_at_random_moments_leaves_nothing ($tries in $((span / 1000)) ms: $none killed, $late killed after ready, $done returned)" \
	"${strays#?}"
# shellcheck disable=SC2086
kj create $CREATE_ARGS "$K"
expect_rc create_after_random_kills_succeeds 0
kj rm "$K"

# Deterministically, at each system call of create (strace kills it at
# the entry of the Nth call of that name): from the list of a create
# traced whole. The fork's call, and the one just after it, by name.
if command -v strace >/dev/null; then
	mkdir "$T/trace" && chown "$KJ_UID" "$T/trace"
	# shellcheck disable=SC2086
	as_caller strace -qq -o "$T/trace/create" "$KJAIL" create $CREATE_ARGS "$K" </dev/null >/dev/null 2>&1
	as_caller "$KJAIL" rm "$K" >/dev/null 2>&1
	# "name n" for each call: the nth call of that name.
	# (not the execve strace starts kjail with: no injection there)
	sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' "$T/trace/create" | awk '{print $1, ++n[$1]}' |
		grep -v '^execve 1$' >"$T/trace/calls"
	fork_at=$(grep -nE '^(clone|clone3|fork|vfork) ' "$T/trace/calls" | head -1 | cut -d: -f1)
	ok "create_traced ($(wc -l <"$T/trace/calls") calls, fork at ${fork_at:-none})" test -n "$fork_at"
	# killed_at CALL N: create killed at the entry of its Nth CALL; sets
	# $krc (strace's status: 137 when it killed kjail) and $outcome.
	killed_at() {
		# shellcheck disable=SC2086
		as_caller strace -qq -o /dev/null -e trace="$1" -e inject="$1:signal=SIGKILL:when=$2" \
			"$KJAIL" create $CREATE_ARGS "$K" </dev/null >/dev/null 2>&1
		krc=$?
		after_kill
	}
	for at in "$fork_at" $((fork_at + 1)); do
		read -r call n < <(sed -n "${at}p" "$T/trace/calls")
		killed_at "$call" "$n"
		what=$([ "$at" = "$fork_at" ] && echo at_fork || echo just_after_fork)
		is "$krc:$outcome" 137:none "killed_create_${what}_leaves_nothing ($call #$n)"
	done
	strays=
	while read -r call n; do
		killed_at "$call" "$n"
		[ "$krc" = 137 ] || outcome="$outcome (not killed: $krc)"
		case $outcome in none | live) ;; *) strays="$strays
$call #$n: $outcome" ;; esac
	done <"$T/trace/calls"
	_report "$([ -z "$strays" ] && echo 0 || echo 1)" \
		"killed_create_at_each_system_call_leaves_nothing ($(wc -l <"$T/trace/calls") calls)" \
		"${strays#?}"
	# shellcheck disable=SC2086
	kj create $CREATE_ARGS "$K"
	expect_rc create_after_kills_at_each_call_succeeds 0
	kj rm "$K"
else
	skip killed_create_at_each_system_call_leaves_nothing "no strace"
fi
exec {nap}>&-

# Flags of kjail exec that a create cannot honour are refused, not dropped.
# shellcheck disable=SC2086
kj create $CREATE_ARGS --cwd sub "$S-opt"
is "$rc:$err" "125:kjail: option: --cwd does nothing for kjail create (give --cwd to each kjail exec -s NAME)" create_refuses_cwd
for f in --tty --no-tty --stats; do
	# shellcheck disable=SC2086
	kj create $CREATE_ARGS $f "$S-opt"
	like "$rc:$err" "^125:kjail: option: $f does nothing for kjail create \(" "create_refuses_${f#--}"
done
kj ls
unlike "$out" "^$S-opt " refused_create_makes_no_session

# ------------------------------------------------ init keeps serving
#
# The clients below run as the caller and leave their markers in $M.
M=$T/marks
mkdir -p "$M"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$M"
#
# A client that floods init with requests and never reads the replies:
# its replies are dropped, and init does not block on them (it stalled
# every other client until that one went away).
kj create $CREATE_ARGS "$S-flood"
cat >"$T/flood.py" <<'PY'
import os, socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.settimeout(0.5)
try:
    for _ in range(20000):
        s.send(struct.pack("<IiQQII", 4, 0, 0, 0, 0, 0))  # SESSION_INFO
except OSError:
    pass
open(sys.argv[2], "w").close()
for _ in range(300):  # connected, unread, until told to let go
    if os.path.exists(sys.argv[3]): break
    time.sleep(0.05)
PY
rm -f "$M/flooded" "$M/flood_let_go"
as_caller python3 "$T/flood.py" "$sdir/$S-flood.sock" "$M/flooded" "$M/flood_let_go" </dev/null >/dev/null 2>&1 &
flooder=$!
for _ in $(seq 200); do [ -e "$M/flooded" ] && break; sleep 0.05; done
ok flooding_client_connected test -e "$M/flooded"
start=${EPOCHREALTIME/./}
kj exec -s "$S-flood" --timeout 30s -- echo alive
ms=$(((${EPOCHREALTIME/./} - start) / 1000))
is "$rc:$out" "0:alive" session_serves_beside_a_client_that_never_reads
ok "session_not_stalled_by_that_client ($ms ms)" test "$ms" -lt $((3000 + KJ_TIME_SLACK_MS))
touch "$M/flood_let_go"
wait "$flooder" 2>/dev/null
flooder=
kj rm "$S-flood"

# The idle timeout does not end a session while a client is connected:
# its exec would be lost (an exec --create that found the session running
# then failed with 125). This client connects, waits 2.5 idle periods,
# then sends an exec: it runs. (3 s: with 1 s, a loaded VM took longer
# than that from create to the client's connect, and the session had
# ended before the test began.)
kj create $CREATE_ARGS --idle-timeout 3s "$S-idle"
cat >"$T/late_exec.py" <<'PY'
import os, socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
time.sleep(7.5)
n = os.open("/dev/null", os.O_RDWR)
try:
    socket.send_fds(s, [struct.pack("<IiQQII", 1, 0, 0, 0, 1, 0) + b"true\0"], [n, n, n])
    s.settimeout(5)
    r = s.recv(70000)
    print(struct.unpack("<Ii", r[:8]) if r else "ended")
except OSError as e:
    print("ended", e.errno)
PY
as_caller python3 "$T/late_exec.py" "$sdir/$S-idle.sock" </dev/null >"$T/late.out" 2>&1
is "$(cat "$T/late.out")" "(5, 0)" idle_timeout_waits_for_a_connected_client
# ... and ends it once no one is connected.
gone=no
for _ in $(seq 100); do
	[ -e "$sdir/$S-idle.sock" ] || { gone=yes; break; }
	kj ls
	case "$out" in *"$S-idle "*running*) ;; *) gone=yes; break ;; esac
	sleep 0.1
done
is "$gone" yes idle_session_still_ends_after_the_client
kj rm "$S-idle"

# Out of file descriptors (a low ulimit -n at create, idle connections
# holding the rest), init left the listener out of poll for a while
# instead of spinning on it (100% CPU, serving no one); once the
# connections go, the waiting exec runs.
as_caller sh -c 'ulimit -n 40 && exec "$@"' sh "$KJAIL" create $CREATE_ARGS "$S-nofd"
expect_rc create_with_few_fds 0
nofd_init=$(kj_children "$(supervisor_pid "$S-nofd")" | head -n 1)
ok "few_fds_session_init_found ($nofd_init)" test -n "$nofd_init"
cat >"$T/hold_fds.py" <<'PY'
import os, socket, sys, time
held = []
for _ in range(60):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1])
    held.append(s)
open(sys.argv[2], "w").close()
for _ in range(600):  # until told to let go (a kill may reach only as_caller's shell)
    if os.path.exists(sys.argv[3]): break
    time.sleep(0.05)
PY
rm -f "$M/fds_held" "$M/fds_let_go"
as_caller python3 "$T/hold_fds.py" "$sdir/$S-nofd.sock" "$M/fds_held" "$M/fds_let_go" </dev/null >/dev/null 2>&1 &
fd_holder=$!
for _ in $(seq 200); do [ -e "$M/fds_held" ] && break; sleep 0.05; done
ok fd_holding_client_connected test -e "$M/fds_held"
cpu() { awk '{print $14 + $15}' "/proc/$nofd_init/stat"; }
before=$(cpu)
sleep 1.5
spent=$(($(cpu) - before))
ok "init_does_not_spin_out_of_fds ($spent ticks in 1.5 s)" test "$spent" -lt 30
touch "$M/fds_let_go"
wait "$fd_holder" 2>/dev/null
fd_holder=
kj exec -s "$S-nofd" --timeout 20s -- echo back
is "$rc:$out" "0:back" few_fds_session_serves_once_fds_free
kj rm "$S-nofd"

done_testing
