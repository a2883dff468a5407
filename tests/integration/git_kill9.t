#!/bin/bash
# The check of the workspace's git after the run (mounts/git_after.c) also
# happens when kjail, or a session's supervisor, is killed with SIGKILL
# (mounts/git_guard.c): a .git/commondir the command planted and then hung
# (so that a harness's timeout kill -9's kjail) stayed, and the user's next
# host `git status` ran the command's core.fsmonitor on the host.
# Deterministic: kjail is killed once the command says it planted.
. "$(dirname "$0")/../lib.sh"

session_test_setup
S=gk9-$$
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; _cleanup' EXIT

G=(-c user.email=k@j -c user.name=kj -c safe.directory='*' -c init.defaultBranch=main)
host_git() { as_caller env HOME="$T" git "${G[@]}" "$@" >/dev/null 2>&1; }
M=$T/markers
mkdir -p "$M" && chmod 1777 "$M"
repo() { git "${G[@]}" init -q "$1" && git -C "$1" "${G[@]}" commit -q --allow-empty -m init; }
# PLANT MARKER: the command makes ../evil (a git directory whose config
# runs core.fsmonitor, writing $M/MARKER) and points .git/commondir at it,
# says so in the file "planted", and hangs.
plant() {
	echo 'mkdir -p .git/evil/hooks && cp -r .git/objects .git/refs .git/HEAD .git/evil/ &&
printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"echo PWNED >'"$M/$1"'; false\"\n" >.git/evil/config &&
echo evil >.git/commondir && touch planted; exec sleep 1000'
}
not_pwned() { test ! -e "$M/$1"; }
# kjail's processes of this file's runs: each has a path under $T in its
# command line (the workspace, or the planted marker). The test VM runs
# the root and user lanes side by side, so counting every process of the
# binary counted the other lane's sandboxes. Not counted: the rename
# watch's closer (runtime/close_detached.c), which outlives kjail by
# design for the watch's last close (an SRCU grace period, a few ms);
# leak-guard.sh catches one that stays.
kjail_procs() {
	find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$KJAIL" 2>/dev/null | while read -r exe; do
		[ "$(cat "${exe%/exe}/comm" 2>/dev/null)" = kjail-close ] && continue
		tr '\0' ' ' <"${exe%/exe}/cmdline" 2>/dev/null | grep -qF "$T" && echo "${exe%/exe}"
	done | wc -l
}
none_left() { [ "$(kjail_procs)" = 0 ]; }
set_aside() { test ! -e "$1/.git/commondir" -a -e "$1/.git/commondir.kjail-refused"; }
if [ "$KJ_AS" = user ]; then
	caller=(setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups -- env
		HOME=/nonexistent USER="$KJ_USER" LOGNAME="$KJ_USER")
else
	caller=()
fi

# ------------------------------------------------- kill -9 of kjail exec

R=$T/g1
repo "$R" && chown -R "$KJ_UID:$KJ_GID" "$R"
cd "$R" || exit 1
# shellcheck disable=SC2086
"${caller[@]}" "$KJAIL" exec $CREATE_ARGS --quiet -- sh -c "$(plant exec)" \
	</dev/null >/dev/null 2>"$T/e1" &
kjpid=$!
settles 10 test -e "$R/planted"
ok kill9_exec_fixture_planted test -e "$R/.git/commondir" -o -e "$R/.git/commondir.kjail-refused"
# The guardian's set-up (runtime/guardian.c, shared with kjail-tty):
# kjail's own child, every signal blocked (all but SIGKILL, SIGSTOP and
# glibc's two), a session of its own, in /, /dev/null on 0 and 1, the
# caller's stderr on 2 for its line, its socket on 3 and init's pidfd.
gpid=$(for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = kjail-git ] &&
		[ "$(awk '/^PPid:/{print $2}' "$p/status" 2>/dev/null)" = "$kjpid" ] && echo "${p#/proc/}"
done)
is "$(guardian_state "$gpid")" \
	"blk=fffffffe7ffbfeff session=own cwd=/ fds=0:/dev/null 1:/dev/null 2:$(readlink -f "$T/e1") 3:socket 4:pidfd" \
	git_guardian_blocks_signals_leads_its_session_holds_only_its_fds
kill -9 "$kjpid"
{ wait "$kjpid"; } 2>/dev/null
ok kill9_of_kjail_commondir_set_aside settles 5 set_aside "$R"
like "$(cat "$T/e1")" "kjail: git: the command created \.git/commondir .*renamed to \.git/commondir\.kjail-refused" \
	kill9_of_kjail_set_aside_said
host_git -C "$R" status
ok kill9_of_kjail_no_fsmonitor_runs_on_host not_pwned exec
ok kill9_of_kjail_guardian_gone settles 5 none_left
cd "$WS" || exit 1

# kill -9 of kjail's whole process group (kill -9 %1, a harness's
# os.killpg): the guardian left it before kjail went on (setsid: kjail
# leads a group of its own here).
R=$T/g1g
repo "$R" && chown -R "$KJ_UID:$KJ_GID" "$R"
cd "$R" || exit 1
# shellcheck disable=SC2086
setsid "${caller[@]}" "$KJAIL" exec $CREATE_ARGS --quiet -- sh -c "$(plant group)" \
	</dev/null >/dev/null 2>/dev/null &
kjpid=$!
settles 10 test -e "$R/planted"
is "$(ps -o pgid= -p "$kjpid" | tr -d ' ')" "$kjpid" kill9_group_fixture_kjail_leads_its_group
kill -9 -- "-$kjpid"
{ wait "$kjpid"; } 2>/dev/null
ok kill9_of_kjails_group_commondir_set_aside settles 5 set_aside "$R"
host_git -C "$R" status
ok kill9_of_kjails_group_no_fsmonitor_runs_on_host not_pwned group
ok kill9_of_kjails_group_guardian_gone settles 5 none_left
cd "$WS" || exit 1

# A run that ends by itself: kjail did the check, and its guardian is gone
# when kjail returns (no process of kjail's is left a moment later).
R=$T/g2
repo "$R" && chown -R "$KJ_UID:$KJ_GID" "$R"
# shellcheck disable=SC2086
kj exec $CREATE_ARGS --workspace "$R" -- sh -c 'echo evil >.git/commondir'
like "$rc:$err" "^0:kjail: git: the command created \.git/commondir .*renamed to" \
	normal_run_commondir_set_aside_once
ok normal_run_leaves_no_guardian none_left

# kjail waits for its guardian's end with no time bound (a bound of a
# second left a guardian slow to exit running when kjail returned, under
# the test VM's TCG), but not for one someone stopped: kjail returns, and
# the guardian, continued, reads kjail's word and ends without a check.
R=$T/g2s
repo "$R" && chown -R "$KJ_UID:$KJ_GID" "$R"
# shellcheck disable=SC2086
"${caller[@]}" "$KJAIL" exec $CREATE_ARGS --quiet --workspace "$R" -- \
	sh -c 'until [ -e go ]; do sleep 0.05; done' </dev/null >/dev/null 2>&1 &
kjpid=$!
guardian_of() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = kjail-git ] &&
			[ "$(awk '/^PPid:/{print $2}' "$p/status" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
	done
}
settles 10 test -n "$(guardian_of "$kjpid")"
gpid=$(guardian_of "$kjpid")
kjail_ended() { ! ps -o stat= -p "$kjpid" | grep -qv Z; }
if [ -n "$gpid" ]; then
	kill -STOP "$gpid"
	touch "$R/go"
	ok stopped_guardian_does_not_hold_kjails_end settles $((5 + KJ_TIME_SLACK_MS / 1000)) kjail_ended
	wait "$kjpid"
	is "$?" 0 stopped_guardian_run_status
	# The count sees a guardian left alive (none_left can fail).
	is "$(kjail_procs)" 1 stopped_guardian_is_counted
	kill -CONT "$gpid"
	ok continued_guardian_ends settles $((5 + KJ_TIME_SLACK_MS / 1000)) none_left
else
	ok stopped_guardian_fixture_found_the_guardian false
	touch "$R/go"
	wait "$kjpid"
fi

# ------------------------------------------ kill -9 of a session's supervisor

R=$T/g3
repo "$R" && chown -R "$KJ_UID:$KJ_GID" "$R"
# shellcheck disable=SC2086
kj create $CREATE_ARGS --workspace "$R" "$S"
expect_rc session_created 0
as_caller "$KJAIL" exec -s "$S" -- sh -c "$(plant session)" </dev/null >/dev/null 2>&1 &
client=$!
settles 10 test -e "$R/planted"
ok kill9_session_fixture_planted test -e "$R/.git/commondir"
sup=$(as_caller "$KJAIL" ls --json | python3 -c 'import json,sys
print([s["pid"] for s in json.load(sys.stdin) if s["name"] == sys.argv[1]][0])' "$S")
kill -9 "$sup"
{ wait "$client"; } 2>/dev/null
ok kill9_of_supervisor_commondir_set_aside settles 5 set_aside "$R"
host_git -C "$R" status
ok kill9_of_supervisor_no_fsmonitor_runs_on_host not_pwned session
ok kill9_of_supervisor_guardian_gone settles 5 none_left
as_caller "$KJAIL" rm "$S" >/dev/null 2>&1

done_testing
