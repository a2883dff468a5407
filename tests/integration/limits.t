#!/bin/bash
# Limits on a host where they cannot be enforced (hybrid cgroups: memory,
# pids and cpu bound to cgroup v1): kjail fails closed by default, naming
# the cause and the fix; --limits best-effort runs and warns once per
# limit; no limits runs silently; nothing is ever written to the host's
# cgroup tree. The limits themselves are proven in the VM
# (tests/vm/guest/10-limits.t).
#
# tests/run.sh sets KJ_EXEC_ARGS="--memory max --pids max" on such a host,
# so this file calls kjail directly wherever the defaults matter.
. "$(dirname "$0")/../lib.sh"

# kjd ARGS...: kjail exec ARGS as the caller, no KJ_EXEC_ARGS; sets out, err, rc.
kjd() {
	local o=$T/.out.$$ e=$T/.err.$$
	as_caller "$KJAIL" exec "$@" >"$o" 2>"$e" </dev/null
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}
lines() { [ -z "$1" ] && echo 0 || printf '%s\n' "$1" | wc -l; }

# A hybrid host: memory has a v1 hierarchy id in /proc/cgroups.
hybrid=0
awk '$1 == "memory" && $2 != 0 && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups 2>/dev/null && hybrid=1
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
snapshot_v2() { [ -n "$v2" ] && find "$v2" -maxdepth 2 -type d 2>/dev/null | sort; }
before=$(snapshot_v2)

FIX_V1='\(boot with systemd\.unified_cgroup_hierarchy=1, or --limits best-effort\)$'

if [ $hybrid = 1 ]; then
	kjd -- touch "$WS/ran"
	expect_rc default_limits_refused_125 125
	like "$err" "^kjail: cgroup: cannot enforce --memory 512M: memory is bound to cgroup v1 \(hybrid hierarchy\) $FIX_V1" \
		default_limits_message_names_v1_and_fix
	is "$(lines "$err")" 1 default_limits_one_line
	ok command_never_ran test ! -e "$WS/ran"

	kjd --memory max -- true
	expect_rc pids_alone_refused_125 125
	like "$err" "^kjail: cgroup: cannot enforce --pids 256: pids is bound to cgroup v1 \(hybrid hierarchy\) $FIX_V1" \
		first_failing_limit_is_named_pids
	kjd --memory max --pids max --cpus 0.5 -- true
	expect_rc cpus_alone_refused_125 125
	like "$err" "^kjail: cgroup: cannot enforce --cpus 0\.5: cpu is bound to cgroup v1 \(hybrid hierarchy\) $FIX_V1" \
		first_failing_limit_is_named_cpus
	kjd --memory 64M --pids 10 --limits required -- true
	like "$err" "cannot enforce --memory 64M: " memory_named_before_pids_with_users_value

	kjd --limits best-effort -- echo ran
	expect_rc best_effort_runs 0
	is "$out" ran best_effort_command_output
	is "$err" "kjail: cgroup: --memory 512M not enforced: memory is bound to cgroup v1 (hybrid hierarchy)
kjail: cgroup: --pids 256 not enforced: pids is bound to cgroup v1 (hybrid hierarchy)" best_effort_warns_once_per_limit
	kjd --limits best-effort --cpus 1.5 -- true
	is "$(lines "$err")" 3 best_effort_warns_for_cpus_too
	kjd --limits best-effort --quiet -- true
	is "$rc:$err" "0:" best_effort_quiet_is_silent
	# A session says it too: its supervisor's stderr is /dev/null, and
	# kjail create once said nothing of a session without its limits.
	session_test_setup
	sname=limits-be-$$
	out=$(as_caller "$KJAIL" create --limits best-effort "$sname" 2>&1 </dev/null); rc=$?
	is "$rc:$out" "0:kjail: cgroup: --memory 512M not enforced: memory is bound to cgroup v1 (hybrid hierarchy)
kjail: cgroup: --pids 256 not enforced: pids is bound to cgroup v1 (hybrid hierarchy)" best_effort_create_warns_once_per_limit
	as_caller "$KJAIL" stop "$sname" >/dev/null 2>&1 </dev/null
	as_caller "$KJAIL" rm "$sname" >/dev/null 2>&1 </dev/null
	kjd --limits best-effort --stats -- true
	like "$err" "^kjail: stats: n/a \(no cgroup: no limit is enforced\)$" stats_without_cgroup_says_na

	# systemd's hybrid mount, /sys/fs/cgroup/unified, is found with a
	# statfs: a root run does not make the kernel print the whole of
	# /proc/self/mountinfo (0.1 ms here) to find it. Only a caller whose
	# top cgroup is not theirs reads it, for the cgroup the mount shows
	# at its top. (cgroup.controllers shows that strace saw the search.)
	# kjail itself, not its setup child: that one reads its copy of the
	# mount table for the host's procfs mounts (mounts/pseudofs.c).
	if [ "$KJ_AS" = root ]; then
		rm -f "$T/strace.out"
		strace -qq -e trace=openat,openat2 -o "$T/strace.out" \
			"$KJAIL" exec --limits best-effort --quiet -- true </dev/null >/dev/null 2>&1
		seen=$(grep -c 'cgroup\.controllers' "$T/strace.out" 2>/dev/null)
		read_mi=$(grep -c 'mountinfo' "$T/strace.out" 2>/dev/null)
		is "${seen:-0}:${read_mi:-0}" "1:0" hybrid_root_run_finds_cgroup2_without_mountinfo
	else
		skip hybrid_root_run_finds_cgroup2_without_mountinfo \
			"a user's run reads mountinfo for its own cgroup"
	fi
else
	for t in default_limits_refused_125 best_effort_warns_once_per_limit; do
		skip $t "host is not hybrid (the VM tests cover cgroup v2)"
	done
fi

kjd --memory max --pids max -- echo ran
is "$rc:$out:$err" "0:ran:" no_limits_runs_silently
kjd --memory max --pids max --cpus max --memory-swap 1G -- true
is "$rc:$err" "0:" memory_swap_alone_asks_for_nothing

# Bad values are refused before anything else happens.
for bad in "--memory 12Q" "--memory -1" "--memory-swap lots" "--pids 0" "--pids -3" "--pids 1.5" \
	"--cpus 0" "--cpus abc" "--cpus 0.001" "--cpus -1" "--limits maybe"; do
	# shellcheck disable=SC2086
	kjd $bad -- touch "$WS/ran"
	name=invalid_$(printf '%s' "${bad#--}" | tr -c 'a-z0-9' _)
	expect_rc "${name}_refused_125" 125
	like "$err" "^kjail: option: ${bad%% *}: .+ \(.+\)$" "${name}_message"
done
ok invalid_values_never_ran test ! -e "$WS/ran"

out=$(as_caller "$KJAIL" gc 2>&1); rc=$?
is "$rc:$out" "0:" gc_with_nothing_to_remove_is_silent

is "$(snapshot_v2)" "$before" host_cgroup_tree_untouched

done_testing
