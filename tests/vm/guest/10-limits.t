#!/bin/bash
# cgroup v2 limits (issue 3): memory, pids and cpu enforced from the first
# instruction, the sandbox's own read-only view of its cgroup, reporting,
# removal (normal exit, timeout, kill -9 + reclaim / kjail gc), rootless
# with and without a delegated subtree.
. /tests/lib.sh

CG=$CGROUP_ROOT
KJ=$CG/kjail # root's kjail subtree (the test itself runs elsewhere)
WS=/tmp/limits-ws
mkdir -p "$WS" && chmod 0777 "$WS"
cd "$WS" || exit 1

have() { command -v "$1" >/dev/null 2>&1; }
leaves() { ls -d "$1"/run-* 2>/dev/null | wc -l; }

# run ARGS...: kjail exec ARGS as root; sets out, err, rc.
run() {
	out=$("$KJAIL" exec "$@" 2>/tmp/limits-err); rc=$?
	err=$(cat /tmp/limits-err)
}
# like TEXT REGEX NAME
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok "$3"; else
		not_ok "$3"; diag "got: $1" "want to match: $2"
	fi
}
# count_lines TEXT REGEX: how many lines of TEXT match
count_lines() { printf '%s\n' "$1" | grep -Ec -- "$2"; }
# wait_for SECONDS CMD...: poll CMD every 0.05 s until it succeeds
wait_for() {
	local n=$(($1 * 20))
	shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.05; n=$((n - 1)); done
	return 1
}

# --- placement ------------------------------------------------------------
run -- sh -c 'cat /proc/self/cgroup'
is "$rc:$out" "0:0::/" "proc_self_cgroup_inside_is_namespace_root"
is "$(leaves "$KJ")" 0 "leaf_removed_after_normal_exit"
sub=" $(cat "$KJ/cgroup.subtree_control" 2>/dev/null) "
case $sub in
*" memory "*) case $sub in *" pids "*) sub=ok;; esac;;
esac
is "$sub" ok "root_subtree_under_top_with_memory_and_pids_enabled"
# The test's own cgroup holds processes; kjail must not build below it.
is "$(ls "$CG/kjail-vm-tests/10-limits" | grep -c '^kjail$')" 0 "no_subtree_under_kjails_own_cgroup"

# --- the sandbox's view of its cgroup ---------------------------------------
run --memory 32M --pids 64 --cpus 0.5 -- sh -c '
	cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max /sys/fs/cgroup/cpu.max
	cat /sys/fs/cgroup/memory.swap.max 2>/dev/null || echo no-swap-file'
is "$out" "$(printf '33554432\n64\n50000 100000\n0')" "sys_fs_cgroup_shows_own_limits"
run -- sh -c 'echo 1 >/sys/fs/cgroup/memory.max'
check_fail "sys_fs_cgroup_memory_max_not_writable" test "$rc" = 0
like "$err" "Read-only file system" "sys_fs_cgroup_write_fails_erofs"
run -- sh -c 'echo 1 >/sys/fs/cgroup/cgroup.procs || mkdir /sys/fs/cgroup/child'
check_fail "sys_fs_cgroup_procs_and_mkdir_refused" test "$rc" = 0
run -- sh -c 'ls /sys/fs/cgroup | grep -c "^kjail\|^kjail-vm"; grep " /sys/fs/cgroup " /proc/self/mountinfo | tail -n 1'
like "$out" "^0" "sys_fs_cgroup_shows_no_other_cgroup"
like "$out" " / /sys/fs/cgroup ro,nosuid,nodev,noexec" "sys_fs_cgroup_fresh_ro_nosuid_nodev_noexec_mount"
run --memory 32M --memory-swap 16M -- cat /sys/fs/cgroup/memory.swap.max
is "$out" 16777216 "memory_swap_written"
run --net host -- sh -c 'cat /proc/self/cgroup; cat /sys/fs/cgroup/pids.max'
is "$rc:$out" "$(printf '0:0::/\n256')" "net_host_sees_own_cgroup_too"

# --- memory -------------------------------------------------------------------
if have memhog; then
	run --memory 32M -- memhog 200
	is "$rc" 137 "memory_hog_oom_killed_exit_137"
	like "$err" "^kjail: killed: out of memory \(limit 32M\)$" "memory_oom_message"
	is "$(leaves "$KJ")" 0 "leaf_removed_after_oom"
	run --memory 64M -- memhog 16
	is "$rc" 0 "memory_under_limit_runs"
else
	skip "memory_hog_oom_killed_exit_137" "no memhog probe (sh tests/probes/build.sh build/tests)"
fi
check "harness_unaffected_by_oom" sh -c 'x=$(head -c 1000000 /dev/zero | wc -c); [ "$x" = 1000000 ]'

# --- pids -----------------------------------------------------------------------
if have forkbomb; then
	# pids.peak is in every kernel since 6.1; its absence fails the check.
	run --pids 64 -- sh -c 'forkbomb; cat /sys/fs/cgroup/pids.peak 2>/dev/null || echo no-pids.peak'
	like "$out" "^forkbomb: forked 6[0-2], then Resource temporarily unavailable" "forks_refused_at_64"
	is "$(printf '%s\n' "$out" | tail -n 1)" 64 "pids_peak_is_64"
	is "$(count_lines "$err" '^kjail: process limit reached \(64\)$')" 1 "process_limit_message_once"

	# The classic bomb (every child forks, nothing waits) ends with its
	# --timeout; count its tasks from outside meanwhile. Not pids.current:
	# the kernel charges a fork before it checks the limit and takes the
	# charge back when it is over, so concurrent forks show 65 or more
	# there for a moment while no 65th task ever exists (CI saw 65).
	start=$(date +%s)
	"$KJAIL" exec --pids 64 --timeout 3 --kill-grace 1s -- forkbomb forever >/dev/null 2>/tmp/limits-bomb &
	bomb=$!
	peak=0
	while kill -0 $bomb 2>/dev/null; do
		for f in "$KJ"/run-*/cgroup.threads; do
			[ -f "$f" ] && v=$(wc -l <"$f" 2>/dev/null) && [ "${v:-0}" -gt $peak ] && peak=$v
		done
		sleep 0.1
	done
	wait $bomb; brc=$?
	took=$(($(date +%s) - start))
	is "$brc" 124 "fork_bomb_ends_with_timeout_124"
	check "fork_bomb_ends_within_timeout_and_grace (${took}s)" test $took -le 8
	check "fork_bomb_tasks_stay_at_most_64 (peak sampled $peak)" test $peak -le 64 -a $peak -gt 1
	is "$(count_lines "$(cat /tmp/limits-bomb)" '^kjail: process limit reached \(64\)$')" 1 \
		"process_limit_message_once_after_timeout"
	is "$(leaves "$KJ")" 0 "leaf_removed_after_fork_bomb"
	# Too few for init and COMMAND: refused before any cgroup is made.
	run --pids 1 -- true
	is "$rc" 125 "pids_1_cannot_start_125"
	like "$err" "^kjail: option: --pids 1: a sandbox needs 2 processes \(its init and COMMAND\)" \
		"pids_1_refused_up_front"
else
	skip "forks_refused_at_64" "no forkbomb probe"
fi

# --- cpu ------------------------------------------------------------------------
if have spin; then
	run --cpus 0.5 -- sh -c 'spin 3; cat /sys/fs/cgroup/cpu.stat'
	wall=$(printf '%s\n' "$out" | awk '/^spin:/ { print $3 }')
	usage=$(printf '%s\n' "$out" | awk '$1 == "usage_usec" { print $2 }')
	thr=$(printf '%s\n' "$out" | awk '$1 == "nr_throttled" { print $2 }')
	share=$(awk -v u="${usage:-0}" -v w="${wall:-1}" 'BEGIN { printf "%.2f", u / 1e6 / w }')
	diag "cpus 0.5: usage ${usage}us over ${wall}s wall = $share of a CPU, throttled $thr times"
	check "cpus_half_gets_about_half_a_cpu ($share)" \
		awk -v s="$share" 'BEGIN { exit !(s >= 0.25 && s <= 0.65) }'
	check "cpus_half_is_throttled" test "${thr:-0}" -gt 0
else
	skip "cpus_half_gets_about_half_a_cpu" "no spin probe"
fi

# All limits enforceable: best-effort is as quiet as required.
run --limits best-effort --cpus 1 -- true
is "$rc:$err" "0:" "best_effort_silent_when_everything_is_enforced"

# --- stats --------------------------------------------------------------------------
run --stats -- true
like "$err" "^kjail: stats: memory peak ([0-9.]+[BKMG]|n/a), cpu [0-9]+\.[0-9]{2}s user [0-9]+\.[0-9]{2}s system$" "stats_line"
# One line of usage, one of Landlock (20-landlock.t checks its content).
is "$(count_lines "$err" '^kjail: stats: memory')" 1 "stats_one_usage_line"
is "$(count_lines "$err" '^kjail: ')" 2 "stats_usage_and_landlock_lines_only"

# --- a daemon cannot leave -------------------------------------------------------------
# The sandbox lives 6 s: scanning /proc is slow under TCG, and a second
# scan after wait_for could find the daemon already gone with its sandbox,
# so the pid comes from the one scan that saw it.
"$KJAIL" exec -- sh -c 'setsid sh -c "sleep 4242 & exit"; sleep 6' >/dev/null 2>&1 &
kj=$!
daemon_pid() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" = "sleep 4242 " ] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}
if d=$(wait_for 10 daemon_pid); then
	like "$(cat /proc/$d/cgroup)" "^0::/kjail/run-[0-9]+-[0-9a-f]+$" "double_forked_setsid_daemon_stays_in_cgroup"
	wait $kj
	check_fail "double_forked_daemon_dies_with_sandbox" test -d /proc/$d
else
	not_ok "double_forked_setsid_daemon_stays_in_cgroup"; diag "daemon never seen"
	wait $kj
fi

# --- removal ------------------------------------------------------------------------------
run --timeout 1 -- sleep 30
is "$rc" 124 "timeout_exit_124"
is "$(leaves "$KJ")" 0 "leaf_removed_after_timeout"

# kill -9 of kjail: the sandbox dies with it (parent-death signal), and
# the leaf's sweeper (runtime/cgroup_sweep.c), a child of kjail's outside
# the leaf, empties and removes the leaf.
# sweeper_of KJPID: kjail's child named kjail-sweep
sweeper_of() {
	local c
	for c in $(cat /proc/$1/task/$1/children 2>/dev/null); do
		[ "$(cat /proc/$c/comm 2>/dev/null)" = kjail-sweep ] && echo "$c" && return 0
	done
	return 1
}
# sweepers: every kjail-sweep process on the machine
sweepers() { grep -lx kjail-sweep /proc/[0-9]*/comm 2>/dev/null | cut -d/ -f3; }
# start_kj ARGS...: kjail exec ARGS in the background, in a process group
# of its own; sets kj, leaf, sw once the leaf and the sweeper are there.
start_kj() {
	kj='' leaf='' sw=''
	setsid "$KJAIL" exec "$@" >/dev/null 2>&1 &
	kj=$!
	wait_for 10 sh -c "ls -d $KJ/run-$kj-* >/dev/null 2>&1" || { kill -9 $kj; wait $kj; return 1; }
	leaf=$(ls -d "$KJ"/run-$kj-*)
	wait_for 10 sweeper_of $kj >/dev/null || { kill -9 $kj; wait $kj; return 1; }
	sw=$(sweeper_of $kj)
}
# killed_and_swept NAME TARGET: kill -9 TARGET (kjail, or -PGID its group);
# the leaf must go.
killed_and_swept() {
	kill -9 -- "$2"
	wait $kj 2>/dev/null
	check "$1" wait_for 10 sh -c "! test -d $leaf"
}
if start_kj -- sleep 30; then
	# Outside the leaf, where kjail is; holding only what it was given.
	is "$(cat /proc/$sw/cgroup)" "$(cat /proc/$kj/cgroup)" "sweeper_in_kjails_cgroup_not_the_leaf"
	is "$(ls /proc/$sw/fd | sort | tr '\n' ' ')" "0 1 2 " "sweeper_holds_three_fds"
	is "$(readlink /proc/$sw/fd/1)" "$leaf" "sweeper_fd_1_is_the_leaf"
	# All but SIGKILL and SIGSTOP, and glibc's own 32 and 33 (no one else sends them).
	is "$(awk '$1 == "SigBlk:" {print $2}' /proc/$sw/status)" fffffffe7ffbfeff "sweeper_blocks_every_signal"
	check_fail "sweeper_not_in_kjails_session" test "$(cut -d' ' -f6 /proc/$sw/stat)" = "$(cut -d' ' -f6 /proc/$kj/stat)"
	killed_and_swept kill_9_leaf_removed_by_sweeper $kj
	check "sweeper_gone_after_sweeping" wait_for 10 sh -c "! test -d /proc/$sw"
else
	not_ok "kill_9_leaf_removed_by_sweeper"; diag "kj '$kj' leaf '$leaf' sweeper '$sw'"
fi
# kill -9 of kjail's whole process group (a harness's killpg): the
# sweeper is in a session of its own and does its job.
if start_kj -- sleep 30; then
	killed_and_swept killpg_9_leaf_removed_by_sweeper -$kj
else
	not_ok "killpg_9_leaf_removed_by_sweeper"; diag "kj '$kj' leaf '$leaf' sweeper '$sw'"
fi
# With --net proxy the proxy is in the leaf and has no parent-death
# signal: the sweeper's cgroup.kill ends it.
if start_kj --net proxy --allow-host a.test -- sleep 30; then
	proxy=
	for c in $(cat /proc/$kj/task/$kj/children); do
		[ "$(cat /proc/$c/comm)" = kjail-proxy ] && proxy=$c
	done
	is "${proxy:+found}" found "kill_9_with_proxy_proxy_found"
	killed_and_swept kill_9_with_proxy_leaf_removed $kj
	check "kill_9_proxy_gone" wait_for 10 sh -c "! test -d /proc/$proxy"
else
	not_ok "kill_9_with_proxy_leaf_removed"; diag "kj '$kj' leaf '$leaf' sweeper '$sw'"
fi
# A normal end: kjail removes the leaf and reaps the sweeper; none is left.
run -- true
is "$rc:$(sweepers | wc -l)" "0:0" "no_sweeper_after_normal_exit"
run --timeout 1 -- sleep 30
is "$rc:$(sweepers | wc -l)" "124:0" "no_sweeper_after_timeout"
# No limit, no leaf, no sweeper (made before the sandbox's init, so it
# would be there once init is).
"$KJAIL" exec --memory max --pids max --cpus max -- sleep 2 >/dev/null 2>&1 &
k=$!
if wait_for 10 sh -c "[ -n \"\$(cat /proc/$k/task/$k/children 2>/dev/null)\" ]"; then
	is "$(sweeper_of $k)" "" "no_sweeper_without_a_leaf"
else
	not_ok "no_sweeper_without_a_leaf"; diag "kjail $k never had a child"
fi
wait $k

# The stale leaf of a kjail killed with its sweeper (kill -9 of both, the
# OOM killer, a crash of the machine's...): kjail gc or the next run
# reclaims it.
kill9_leaf() {
	start_kj -- sleep 30 || return 1
	kill -9 $sw
	kill -9 $kj
	wait $kj 2>/dev/null
	wait_for 10 grep -q "populated 0" "$leaf/cgroup.events" || return 1
	echo "$leaf"
}
leaf=$(kill9_leaf)
if [ -n "$leaf" ] && [ -d "$leaf" ]; then
	ok "leaf_left_after_kill_9_of_kjail_and_sweeper"
	gc=$("$KJAIL" gc); grc=$?
	is "$grc:$gc" "0:$leaf" "gc_removes_and_lists_stale_leaf"
	check_fail "gc_stale_leaf_gone" test -d "$leaf"
	is "$("$KJAIL" gc)" "" "gc_again_removes_nothing"
else
	not_ok "leaf_left_after_kill_9_of_kjail_and_sweeper"; diag "leaf: '$leaf'"
fi
leaf=$(kill9_leaf)
if [ -n "$leaf" ] && [ -d "$leaf" ]; then
	run --memory 32M -- true
	check_fail "next_run_reclaims_stale_leaf" test -d "$leaf"
else
	not_ok "next_run_reclaims_stale_leaf"; diag "leaf: '$leaf'"
fi
# A live kjail's leaf is never reclaimed.
"$KJAIL" exec -- sleep 3 >/dev/null 2>&1 &
kj=$!
if wait_for 10 sh -c "ls -d $KJ/run-$kj-* >/dev/null 2>&1"; then
	"$KJAIL" gc >/dev/null
	check "gc_keeps_live_leaf" sh -c "ls -d $KJ/run-$kj-* >/dev/null 2>&1"
else
	not_ok "gc_keeps_live_leaf"
fi
wait $kj

# --- the smallest process limits ----------------------------------------------------------
# init and COMMAND fit in --pids 2 (the network thread of the setup has
# ended by then); with --net proxy, the relay, the proxy and one of its
# connection threads make 5; kjail refuses less up front.
run --pids 2 -- echo two
is "$rc:$out" "0:two" "pids_2_runs_init_and_command"
run --pids 5 --net proxy --allow-host a.test -- echo five
is "$rc:$out" "0:five" "pids_5_runs_init_relay_proxy_and_command"

# --- the proxy counts against the sandbox's limits -----------------------------------------
# It runs in the sandbox's leaf. Inside, it is the one process of the
# cgroup that the sandbox's pid namespace cannot name (cgroup.procs shows
# it as 0); kjail itself is not in the leaf.
run --net proxy --allow-host a.test -- sh -c 'grep -c "^0$" /sys/fs/cgroup/cgroup.procs'
is "$rc:$out" "0:1" "proxy_in_the_sandbox_cgroup_seen_inside"
# From the host: kjail's children but its sweeper, init and the proxy, in
# the leaf.
"$KJAIL" exec --net proxy --allow-host a.test -- sleep 3 >/dev/null 2>&1 &
kj=$!
in_leaf=
if wait_for 10 sh -c "ls -d $KJ/run-$kj-* >/dev/null 2>&1 && [ \$(wc -w </proc/$kj/task/$kj/children) = 3 ]"; then
	for c in $(cat /proc/$kj/task/$kj/children); do
		[ "$(cat /proc/$c/comm)" = kjail-sweep ] && continue
		in_leaf="$in_leaf$(sed -n "s|^0::/kjail/run-$kj-[0-9a-f]*$|leaf|p" /proc/$c/cgroup) "
	done
fi
is "$in_leaf" "leaf leaf " "proxy_and_init_both_in_the_leaf"
wait $kj
# A command that outgrows --memory is the OOM killer's pick, not the
# proxy beside it (it holds less): exit 137, the proxy ended normally.
if have memhog; then
	run --memory 32M --net proxy --allow-host a.test -- memhog 200
	is "$rc" 137 "proxy_beside_oom_exit_137"
	like "$err" "^kjail: killed: out of memory \(limit 32M\)$" "proxy_beside_oom_message"
	check_fail "proxy_beside_oom_survives" sh -c 'printf "%s" "$1" | grep -q "proxy ended abnormally"' - "$err"
fi
# Its threads count against --pids: at --pids 5, init, the relay, the
# probe and the proxy leave one thread for one connection; a second
# connection at the same time is refused, and the log and the summary say
# why. (Outside the leaf, the second would get a thread and wait.)
if have proxyconns; then
	rm -f /tmp/limits-netlog
	run --pids 5 --net proxy --allow-host a.test --net-log /tmp/limits-netlog -- proxyconns two
	is "$out" "second: closed" "proxy_threads_count_against_pids"
	like "$(cat /tmp/limits-netlog 2>/dev/null)" "no thread to serve it: Resource temporarily unavailable \(the proxy's threads count against --pids\)" \
		"proxy_at_pids_limit_logged"
	# The other refusal is the first connection's: its head never came.
	like "$err" "^kjail: net: 2 connections refused \(see /tmp/limits-netlog\)" "proxy_at_pids_limit_summary"
	like "$err" "kjail: process limit reached \(5\)" "proxy_at_pids_limit_process_limit_note"
	run --pids 6 --net proxy --allow-host a.test -- proxyconns two
	is "$out" "second: still waiting" "proxy_second_thread_under_pids_6"
	# A burst of 40 connections at once takes 40 threads; when they are
	# done the proxy keeps at most 16 waiting for more, not 40 for ten
	# seconds: init, the relay, the probe, the proxy and 16 make 20.
	run --net proxy --allow-host a.test -- proxyconns many 40
	like "$out" "^answered 40 of 40, pids.current ([4-9]|1[0-9]|20)$" "proxy_keeps_at_most_16_idle_threads"
else
	skip "proxy_threads_count_against_pids" "no proxyconns probe (sh tests/probes/build.sh build/tests)"
fi

# --- a session at its pids limit -------------------------------------------------------------
# init and one running exec fill --pids 2: the next exec cannot start. It
# gets exit 125 and the reason (kjail once sent only the message, and the
# client waited for an exit status that never came).
"$KJAIL" create --pids 2 l10pids >/dev/null 2>&1
"$KJAIL" exec -s l10pids -- sleep 100 >/dev/null 2>&1 &
holder=$!
wait_for 5 sh -c 'for f in "$1"/run-*/pids.current; do [ "$(cat "$f")" -ge 2 ] && exit 0; done; exit 1' - "$KJ"
out=$(timeout 20 "$KJAIL" exec -s l10pids -- true 2>&1); rc=$?
is "$rc" 125 "session_exec_at_pids_limit_exit_125"
like "$out" "^kjail: session: start the command: Resource temporarily unavailable \(the session is at its --pids limit: let a command end, or create the session with a higher --pids\)$" \
	"session_exec_at_pids_limit_message"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
"$KJAIL" rm l10pids >/dev/null 2>&1

# kill -9 of a session's supervisor: the sandbox dies with it, and the
# supervisor's sweeper removes the session's leaf.
"$KJAIL" create l10kill >/dev/null 2>&1
sleaf=$(ls -d "$KJ"/run-* 2>/dev/null)
sup=${sleaf##*/run-}
sup=${sup%%-*}
if [ "$(echo "$sleaf" | wc -w)" = 1 ] && wait_for 10 sweeper_of "$sup" >/dev/null; then
	kill -9 "$sup"
	check "session_supervisor_kill_9_leaf_removed_by_sweeper" wait_for 10 sh -c "! test -d $sleaf"
else
	not_ok "session_supervisor_kill_9_leaf_removed_by_sweeper"; diag "leaves: '$sleaf'"
	kill -9 "$sup" 2>/dev/null
fi
"$KJAIL" rm l10kill >/dev/null 2>&1
"$KJAIL" gc >/dev/null 2>&1

# --- no limits, no cgroup -----------------------------------------------------------------
"$KJAIL" exec --memory max --pids max --cpus max -- sh -c 'ls /sys/fs/cgroup | wc -l; sleep 1' \
	>/tmp/limits-nolimit 2>&1 &
kj=$!
seen=0
while kill -0 $kj 2>/dev/null; do
	[ "$(leaves "$KJ")" -gt 0 ] && seen=1
	sleep 0.05
done
wait $kj
is "$seen:$(cat /tmp/limits-nolimit)" "0:0" "no_limits_creates_no_cgroup"

# --- rootless ---------------------------------------------------------------------------------
# Without a delegated subtree: fail closed, or warn with best-effort.
out=$(as_user "$KJAIL" exec -- true 2>&1); rc=$?
is "$rc" 125 "rootless_without_delegation_exit_125"
like "$out" "^kjail: cgroup: cannot enforce --memory 512M: no cgroup is delegated to uid 1000 \(kjail runs in /kjail-vm-tests/10-limits\) \(run kjail in a delegated cgroup: systemd-run --user --scope -p Delegate=yes kjail exec \.\.\., or --limits best-effort\)$" \
	"rootless_without_delegation_message"
out=$(as_user "$KJAIL" exec --limits best-effort -- echo ran 2>&1); rc=$?
is "$rc" 0 "rootless_best_effort_runs"
is "$(count_lines "$out" '^kjail: cgroup: --(memory 512M|pids 256) not enforced: no cgroup is delegated')" 2 \
	"rootless_best_effort_warns_once_per_limit"
out=$(as_user "$KJAIL" exec --limits best-effort --quiet -- echo ran 2>&1)
is "$out" "ran" "rootless_best_effort_quiet_is_silent"
# A session says it too: its supervisor's stderr is /dev/null, and kjail
# create once said nothing of a session that ran without its limits.
l10xdg=/tmp/l10-xdg
mkdir -p "$l10xdg" && chown "$KJTEST_UID:$KJTEST_GID" "$l10xdg" && chmod 700 "$l10xdg"
as_kj() { as_user env XDG_RUNTIME_DIR="$l10xdg" "$KJAIL" "$@"; }
out=$(as_kj create --limits best-effort l10be 2>&1); rc=$?
is "$rc" 0 "rootless_best_effort_create_runs"
is "$(count_lines "$out" '^kjail: cgroup: --(memory 512M|pids 256) not enforced: no cgroup is delegated')" 2 \
	"rootless_best_effort_create_warns_once_per_limit"
as_kj stop l10be >/dev/null 2>&1
as_kj rm l10be >/dev/null 2>&1
out=$(as_kj exec --create --limits best-effort -s l10be2 -- echo ran 2>&1); rc=$?
is "$rc:$(count_lines "$out" '^kjail: cgroup: --(memory 512M|pids 256) not enforced: ')" 0:2 \
	"rootless_best_effort_exec_create_warns_once_per_limit"
like "$out" "ran" "rootless_best_effort_exec_create_runs"
as_kj stop l10be2 >/dev/null 2>&1
as_kj rm l10be2 >/dev/null 2>&1
out=$(as_kj create --limits best-effort --quiet l10be3 2>&1); rc=$?
is "$rc:$out" "0:" "rootless_best_effort_create_quiet_is_silent"
as_kj stop l10be3 >/dev/null 2>&1
as_kj rm l10be3 >/dev/null 2>&1

# With one (as systemd's Delegate=yes gives): limits enforced.
if make_delegated_cgroup l10; then
	out=$(run_delegated l10 "$KJAIL" exec --memory 32M -- sh -c \
		'cat /proc/self/cgroup /sys/fs/cgroup/memory.max; exec memhog 200' 2>&1); rc=$?
	is "$rc" 137 "rootless_delegated_oom_exit_137"
	like "$out" "0::/" "rootless_delegated_namespace_root"
	like "$out" "33554432" "rootless_delegated_memory_max"
	like "$out" "kjail: killed: out of memory \(limit 32M\)" "rootless_delegated_oom_message"
	is "$(stat -c %u "$CG/l10/kjail" 2>/dev/null)" 1000 "rootless_subtree_in_delegated_cgroup_owned_by_user"
	is "$(leaves "$CG/l10/kjail")" 0 "rootless_leaf_removed"
	out=$(run_delegated l10 "$KJAIL" exec --pids 8 -- forkbomb 2>&1)
	like "$out" "forked [67], then" "rootless_delegated_pids_enforced"
	out=$(run_delegated l10 "$KJAIL" exec --net proxy --allow-host a.test -- sh -c \
		'grep -c "^0$" /sys/fs/cgroup/cgroup.procs' 2>&1); rc=$?
	is "$rc:$out" "0:1" "rootless_delegated_proxy_in_the_sandbox_cgroup"
	out=$(run_delegated l10 "$KJAIL" gc 2>&1); rc=$?
	is "$rc:$out" "0:" "rootless_gc_runs"
	# Fail closed: no process left to the user for the sweeper (RLIMIT_NPROC;
	# root is exempt), so exit 125 with the reason, and no leaf is left.
	out=$(run_delegated l10 sh -c 'ulimit -u 1 && exec "$0" exec -- true' "$KJAIL" 2>&1); rc=$?
	is "$rc" 125 "sweeper_not_started_exit_125"
	like "$out" "^kjail: cgroup: start the process that removes $CG/l10/kjail/run-[0-9]+-[0-9a-f]+ if kjail is killed: Resource temporarily unavailable \(retry; kjail's own process or memory limit may be reached\)$" \
		"sweeper_not_started_message"
	is "$(leaves "$CG/l10/kjail")" 0 "sweeper_not_started_leaves_no_leaf"
	# kill -9 of a rootless kjail: its sweeper removes the leaf too.
	run_delegated l10 "$KJAIL" exec -- sleep 30 >/dev/null 2>&1 &
	rk=$!
	if wait_for 10 sh -c "ls -d $CG/l10/kjail/run-* >/dev/null 2>&1 && grep -lx kjail-sweep /proc/[0-9]*/comm >/dev/null 2>&1"; then
		rleaf=$(ls -d "$CG"/l10/kjail/run-*)
		rsw=$(sweepers)
		is "$(stat -c %u /proc/$rsw)" 1000 "rootless_sweeper_runs_as_the_user"
		rkj=${rleaf##*/run-}
		kill -9 "${rkj%%-*}"
		wait $rk 2>/dev/null
		check "rootless_kill_9_leaf_removed_by_sweeper" wait_for 10 sh -c "! test -d $rleaf"
	else
		not_ok "rootless_kill_9_leaf_removed_by_sweeper"
		rleaf=$(ls -d "$CG"/l10/kjail/run-* 2>/dev/null | head -n 1)
		rkj=${rleaf##*/run-}
		[ -n "$rkj" ] && kill -9 "${rkj%%-*}"
		wait $rk
	fi
else
	not_ok "make_delegated_cgroup l10"
fi

# Only pids delegated (the parent, not ours, enables nothing else): memory
# fails closed; best-effort warns for memory and still enforces pids.
mkdir -p "$CG/l10mid/deleg/shell" && echo l10mid >>/run/kjail-vm/delegated &&
	echo +pids >"$CG/l10mid/cgroup.subtree_control" &&
	echo +pids >"$CG/l10mid/deleg/cgroup.subtree_control" &&
	chown 1000:1000 "$CG/l10mid/deleg" "$CG/l10mid/deleg/cgroup.procs" \
		"$CG/l10mid/deleg/cgroup.subtree_control" "$CG/l10mid/deleg/shell" \
		"$CG/l10mid/deleg/shell/cgroup.procs"
in_mid() { (echo $BASHPID >"$CG/l10mid/deleg/shell/cgroup.procs" && as_user "$@"); }
out=$(in_mid "$KJAIL" exec -- true 2>&1); rc=$?
is "$rc" 125 "rootless_memory_not_delegated_exit_125"
like "$out" "^kjail: cgroup: cannot enforce --memory 512M: memory is not delegated to uid 1000 \(/sys/fs/cgroup/l10mid/deleg/cgroup.controllers lacks it\)" \
	"rootless_memory_not_delegated_message"
out=$(in_mid "$KJAIL" exec --limits best-effort --pids 8 -- forkbomb 2>&1); rc=$?
is "$rc" 0 "rootless_partial_best_effort_runs"
like "$out" "kjail: cgroup: --memory 512M not enforced: memory is not delegated" "rootless_partial_warns_for_memory"
like "$out" "forked [67], then" "rootless_partial_still_enforces_pids"
is "$(count_lines "$out" '^kjail: cgroup: ')" 1 "rootless_partial_warns_only_for_memory"

# A delegated cgroup that holds kjail itself cannot have limited children.
mkdir -p "$CG/l10own" && echo l10own >>/run/kjail-vm/delegated &&
	chown 1000:1000 "$CG/l10own" "$CG/l10own/cgroup.procs" "$CG/l10own/cgroup.subtree_control" "$CG/l10own/cgroup.threads"
out=$( (echo $BASHPID >"$CG/l10own/cgroup.procs" && as_user "$KJAIL" exec -- true) 2>&1); rc=$?
is "$rc" 125 "rootless_own_cgroup_only_exit_125"
like "$out" "cannot enforce --memory 512M: the only cgroup delegated to uid 1000 is /sys/fs/cgroup/l10own, where kjail itself runs" \
	"rootless_own_cgroup_only_message"

done_testing
