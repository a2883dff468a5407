#!/bin/bash
# kjail doctor tells the truth: every claim is compared with what a real
# run does on this machine, for the same configuration.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../config-lib.sh"

line() { printf '%s\n' "$out" | grep -E "^[a-z]* +$1 " | head -1; }

# ------------------------------------------------ the verdict matches a run

# The default configuration: doctor's exit status and verdict against a
# real `kjail exec -- true` with no flags at all.
kje doctor
doc_rc=$rc doc_out=$out
kje exec -- true
if [ "$doc_rc" = 0 ]; then
	is "$rc" 0 doctor_can_run_means_exec_runs
else
	is "$doc_rc:$rc" "1:125" doctor_cannot_run_means_exec_fails
	verdict=$(printf '%s\n' "$doc_out" | sed -n 's/^fail  *verdict  *cannot run here: //p')
	is "kjail: $verdict" "$err" doctor_verdict_is_the_error_exec_prints
fi

# Limits: doctor says they cannot be enforced <=> exec fails with a cgroup
# message (and with best-effort both say it can run).
kje doctor
if printf '%s\n' "$out" | grep -q "limits: not enforceable here"; then
	kje exec -- true
	like "$rc:$err" "^125:kjail: cgroup: cannot enforce" doctor_limits_unenforceable_means_exec_refuses
	kje doctor --limits best-effort
	is "$rc" 0 doctor_best_effort_can_run
	like "$(line posture)" "limits: best-effort, not enforced here" doctor_posture_says_best_effort
	kje exec --limits best-effort --quiet -- true
	is "$rc" 0 exec_best_effort_runs_as_doctor_said
else
	kje exec -- true
	is "$rc" 0 doctor_limits_enforceable_means_exec_runs
fi
kje doctor --memory max --pids max
like "$(line posture)" "limits: none asked" doctor_no_limits_asked
is "$rc" 0 doctor_no_limits_can_run

# User namespaces: doctor's live probe against a real run as this caller.
kje doctor --memory max --pids max
userns=$(line "user namespaces")
kje exec --memory max --pids max -- true
if printf '%s' "$userns" | grep -q '^ok '; then
	is "$rc" 0 doctor_userns_ok_means_run_works
else
	like "$rc:$err" "^125:kjail: namespaces:" doctor_userns_fail_means_run_fails
fi
net=$(kje doctor --memory max --pids max; line network)
kje exec --memory max --pids max -- sh -c 'cat /sys/class/net/lo/operstate'
if printf '%s' "$net" | grep -q '^ok '; then
	like "$out" "unknown|up" doctor_network_ok_means_loopback_up
else
	is "$rc" 125 doctor_network_fail_means_run_fails
fi
kje doctor --memory max --pids max
doc=$out
seccomp=$(line seccomp)
cores=$(line "core dumps")
like "$(line kernel)" "^ok +kernel +Linux $(uname -r | sed 's/[.+]/\\&/g') " doctor_kernel_version
like "$(line landlock)" "^(ok|info) +landlock +(ABI [0-9]+|not available|off)" doctor_landlock_abi
like "$(line "mount API")" "^ok +mount API +live probe" doctor_mount_api_probe
like "$seccomp" "^ok +seccomp +live probe: profiles/seccomp-default.policy \([0-9]+ instructions\) loads and denies unshare; libseccomp [0-9.]+" doctor_seccomp_live_probe
kje exec --memory max --pids max -- sh -c 'unshare -U true 2>&1; echo rc=$?'
like "$out" "rc=[1-9]" doctor_seccomp_claim_holds_in_a_run
# Core dumps: the claim, then a run that shows it.
pattern=$(sed 's/[][\.*^$|+?(){}]/\\&/g' /proc/sys/kernel/core_pattern)
like "$cores" "^ok +core dumps +none: RLIMIT_CORE pinned at 1 byte, .* \(core_pattern $pattern\)$" doctor_core_dumps_pinned
kje exec --memory max --pids max -- sh -c 'ulimit -c unlimited; awk "/^Max core/ {print \$5, \$6}" /proc/self/limits'
is "$out" "1 1" doctor_core_dumps_claim_holds_in_a_run

# cgroup facts against /proc/self/cgroup and the mounts.
kje doctor
cg=$(line "cgroup v2")
if grep -q ' /sys/fs/cgroup cgroup2 ' /proc/self/mounts; then
	like "$cg" "unified: cgroup2 at /sys/fs/cgroup" doctor_cgroup_layout_unified
elif grep -q ' cgroup2 ' /proc/self/mounts; then
	like "$cg" "hybrid: cgroup2 at $(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)" doctor_cgroup_layout_hybrid
else
	like "$cg" "no cgroup2 file system" doctor_cgroup_layout_v1
fi
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
	grep -qw memory /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
	skip doctor_memory_on_v1 "memory is on cgroup v2 here"
else
	like "$cg" "memory: memory is bound to cgroup v1|memory: .*(not available|disabled|no memory)" doctor_memory_controller_unavailable
fi

# ------------------------------------------------- what doctor reports

kje doctor --memory max --pids max
like "$(line profile)" "^ok +profile +default \(chosen by built-in default; built-in default.profile\)" doctor_names_default_profile
like "$(line settings)" "/etc/kjail/settings: absent; ~/.config/kjail/settings: absent" doctor_lists_settings_files
like "$(line posture)" "^ +posture +default · full isolation \(user, mount ro-root, pid, net none, seccomp(, landlock)?, caps dropped\) · limits: none asked" doctor_posture_line
sys_settings 'profile agent'
user_settings 'quiet'
kje doctor --memory max --pids max
like "$(line profile)" "agent \(chosen by /etc/kjail/settings:1; built-in agent.profile\)" doctor_names_profile_source_system_settings
like "$(line settings)" "/etc/kjail/settings: read; ~/.config/kjail/settings: read" doctor_lists_files_read
KJAIL_PROFILE=strict kje doctor --memory max --pids max --cpus max
like "$(line profile)" "strict \(chosen by KJAIL_PROFILE; built-in strict.profile\)" doctor_names_profile_source_env
like "$(line posture)" "strict · full isolation \(user, mount ro-root, read-only workspace, pid, net none, seccomp strict" doctor_posture_strict
kje doctor --profile ci --net host --memory max --pids max
like "$(line profile)" "ci \(chosen by --profile; built-in ci.profile\)" doctor_names_profile_source_flag
like "$(line posture)" "ci · reduced isolation \(.*net host \(not isolated\)" doctor_posture_net_host
kje doctor --landlock off --memory max --pids max
like "$(line posture)" " · reduced isolation \(.*, landlock off, caps dropped\)" doctor_posture_landlock_off
# A seccomp policy file is the caller's own (`@default allow` is one):
# not the full isolation kjail's own filters give.
mkdir -p "$T/pol"
put "$T/pol/open.policy" "$KJ_OWNER" 0644 '@default allow'
kje doctor --seccomp "$T/pol/open.policy" --memory max --pids max
like "$(line posture)" "^ +posture +[a-z]+ · reduced isolation \(.*seccomp \(the caller's policy file, not checked\)" doctor_posture_seccomp_file
like "$(line "core dumps")" "^(info|warn) +core dumps +RLIMIT_CORE starts at 1 byte; the caller's policy file decides .*copy the two RLIMIT_CORE lines" doctor_core_dumps_policy_file_says_copy_the_lines
reset_config

# The host profile: doctor says so, and it can run where limits cannot.
KJAIL_PROFILE=host kje doctor
is "$rc" 0 doctor_host_profile_can_run
like "$(line profile)" "^warn +profile +host .*profile host: no isolation, the environment is the boundary" doctor_host_profile_warning
like "$(line posture)" "host · no isolation \(the environment is the boundary\)" doctor_host_posture
# The host profile loads no filter and enforces no Landlock: doctor said
# "ok seccomp ... loads and denies unshare" and "ok landlock ABI 7: files,
# abstract unix sockets, signals" for a run that gets neither.
like "$(line seccomp)" "^info +seccomp +not used: --isolation none runs COMMAND without a filter" doctor_host_profile_seccomp_not_used
like "$(line landlock)" "^info +landlock +not used: --isolation none runs COMMAND without Landlock" doctor_host_profile_landlock_not_used
like "$(line "core dumps")" "^(info|warn) +core dumps +not pinned: --isolation none" doctor_host_profile_core_dumps_not_pinned
KJAIL_PROFILE=host kje exec -- true
is "$rc" 0 host_profile_runs_as_doctor_said

# A broken configuration: doctor reports it (exit 1), exec refuses it.
user_settings 'net bogus'
kje doctor --memory max --pids max
is "$rc" 1 doctor_bad_settings_cannot_run
like "$out" "verdict +cannot run here: option: ~/.config/kjail/settings:1: --net: invalid value 'bogus'" doctor_bad_settings_named
kje exec --memory max --pids max -- true
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/settings:1: --net: invalid value 'bogus' \(valid values: none, host" exec_refuses_the_same_settings
reset_config
sys_policy 'deny net host'
kje doctor --net host --memory max --pids max
is "$rc" 1 doctor_policy_refusal_cannot_run
like "$out" "verdict +cannot run here: policy: --net host \(from --net\) is denied" doctor_reports_policy_refusal
reset_config

# Doctor's own usage errors.
kje doctor --bogus
like "$rc:$err" "^125:kjail: option: unknown option --bogus" doctor_bad_flag_is_125
kje doctor --net bogus
like "$rc:$err" "^125:kjail: option: --net: invalid value 'bogus'" doctor_bad_flag_value_is_125
kje doctor --memory max -- true
like "$rc:$err" "^125:kjail: option: unexpected argument 'true'" doctor_takes_no_command
# The flags exec refuses, doctor refuses with exec's words: a misspelt
# --profile, and --idle-timeout (a session's, nothing for a one-shot run).
for args in "--profile agnet" "--idle-timeout 5m" "--profile $T/nope.profile"; do
	# shellcheck disable=SC2086
	kje doctor --memory max --pids max $args
	drc=$rc derr=$err dout=$out
	# shellcheck disable=SC2086
	kje exec --memory max --pids max $args -- true
	echo "$drc|$rc|$([ "$derr" = "$err" ] && echo same)|${dout:+stdout}"
done >"$T/flags"
is "$(sort -u "$T/flags")" "125|125|same|" doctor_refuses_what_exec_refuses_as_exec_words_it
user_settings 'profile agnet'
kje doctor --memory max --pids max
like "$rc:$(line profile)" "^1:fail +profile .*no profile 'agnet'" doctor_reports_bad_profile_in_settings_as_finding
reset_config

# ------------------------------------------------------------------ --json

kje doctor --json
json_rc=$rc
printf '%s' "$out" >"$T/doctor.json"
python3 - "$T/doctor.json" "$json_rc" <<'PY' >"$T/json-check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
assert d["can_run"] == (rc == 0), "can_run vs exit status"
names = [c["name"] for c in d["checks"]]
for n in ["kernel", "user namespaces", "mount API", "network", "seccomp", "landlock", "cgroup v2", "profile", "settings", "policy"]:
    assert n in names, n
assert all(c["status"] in ("ok", "warn", "fail", "info") for c in d["checks"])
assert d["profile"]["name"] == "default" and d["profile"]["from"] == "built-in default"
assert d["posture"].startswith("default · full isolation")
assert d["policy"]["state"] == "absent"
print("ok")
PY
is "$(cat "$T/json-check")" ok doctor_json_is_valid_and_complete
kje doctor
text_rc=$rc
is "$json_rc" "$text_rc" doctor_json_same_exit_status
# --json anywhere among the options, as the usage line says; as another
# option's value it is that value.
kje doctor --memory max --pids max --json
printf '%s' "$out" | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["limits"] == "limits: none asked"' 2>/dev/null &&
	ok=yes || ok=no
is "$rc:$ok" "0:yes" doctor_json_after_other_options
kje doctor --setenv --json --memory max --pids max
like "$rc:$err" "^125:kjail: option: --setenv: '--json' has no '='" doctor_json_as_an_options_value_is_that_value

# What no check models, the live run meets as exec does: a --cwd or a
# grant's mount point missing in the new root.
for bad in "--cwd /nonexistent-kjd" "--ro /etc/hostname:/nonexist-kjd/deep/x"; do
	# shellcheck disable=SC2086
	kje doctor $NOLIM $bad
	drc=$rc
	verdict=$(printf '%s\n' "$out" | sed -n 's/^fail  verdict          cannot run here: //p')
	# shellcheck disable=SC2086
	kje exec $NOLIM $bad -- true
	echo "$drc|$rc|$([ -n "$verdict" ] && [ "kjail: $verdict" = "$err" ] && echo same)"
done >"$T/live"
is "$(sort -u "$T/live")" "1|125|same" doctor_live_run_agrees_with_exec

# Any byte a path or name may hold still makes JSON a strict parser takes:
# invalid UTF-8 as U+FFFD, valid UTF-8 (also cut mid-character by a long
# message) and control characters escaped.
long=$(python3 -c 'print("x/" + "\u00e9" * 300)')
# (A bad --profile flag is a usage error, no report: the odd profile
# names come from KJAIL_PROFILE, a finding.)
for arg in "KJAIL_PROFILE=bad$(printf '\377')name" "--workspace=/nonexist/$long" "KJAIL_PROFILE=a$(printf '\t')b"; do
	case $arg in
	KJAIL_PROFILE=*) KJAIL_PROFILE=${arg#*=} kje doctor --json ;;
	*) kje doctor --json "$arg" ;;
	esac
	printf '%s' "$out" | python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' 2>/dev/null &&
		ok=yes || ok=no
	echo "$ok"
done >"$T/odd-json"
is "$(sort -u "$T/odd-json")" yes doctor_json_valid_for_odd_bytes

# kjail installed so that its caller cannot read it (mode 0711): exec of
# an unreadable binary makes the process undumpable and its /proc files
# root's, so an unprivileged caller cannot write its own child's user
# namespace maps. The run fails closed (125) and says the fix; doctor
# says it too. Root can read any file: its runs go ahead.
mkdir -m 755 "$T/bin711"
cp "$KJAIL" "$T/bin711/kjail" && chmod 711 "$T/bin711/kjail"
KJAIL_SAVED=$KJAIL KJAIL=$T/bin711/kjail
kj exec -- true
run_err=$err
if [ "$KJ_AS" = user ]; then
	like "$rc:$err" "^125:kjail: userns: write [a-z_]+: Permission denied \\(kjail's binary is not readable by you.*chmod a\\+r" \
		unreadable_binary_refused_with_the_fix
	kj doctor
	like "$out" "fail +user namespaces .*fix: kjail's binary is not readable by you" unreadable_binary_doctor_says_the_fix
	# The verdict is the run's own line: doctor probed uid_map first
	# and said "write uid_map" where the run says "write setgroups".
	# shellcheck disable=SC2086
	kj doctor $KJ_EXEC_ARGS
	is "kjail: $(printf '%s\n' "$out" | sed -n 's/^fail  *verdict  *cannot run here: //p')" "$run_err" \
		unreadable_binary_doctor_verdict_is_the_runs_error
else
	is "$rc" 0 unreadable_binary_runs_as_root
fi
KJAIL=$KJAIL_SAVED

# ------------------------------------------------ inotify instances
# Each running sandbox and session holds one, its watch for renames on
# the host (runtime/mount_watch.c), and the kernel counts them per user:
# doctor counts the caller's, and a session makes one more. (None left:
# mount_watch.t.)
in_use() { line inotify | sed -nE 's/.* ([0-9]+) of [0-9]+ instances in use by uid .*/\1/p'; }
kj doctor --memory max --pids max
like "$(line inotify)" "^(ok|warn) +inotify +[0-9]+ of [0-9]+ instances in use by uid $(as_caller id -u) \(fs\.inotify\.max_user_instances\)" \
	doctor_inotify_counts_the_callers
before=$(in_use)
session_test_setup
S=kjt-doctor-$$
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; _cleanup' EXIT
# shellcheck disable=SC2086
kj create $CREATE_ARGS "$S"
expect_rc doctor_inotify_session_created 0
kj doctor --memory max --pids max
during=$(in_use)
kj rm "$S"
kj doctor --memory max --pids max
is "$before:$during:$(in_use)" "$before:$((before + 1)):$before" doctor_inotify_a_session_holds_one

done_testing
