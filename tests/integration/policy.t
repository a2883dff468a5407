#!/bin/bash
# The admin's policy, /etc/kjail/policy: each rule holds whichever source
# asks (a flag, KJAIL_PROFILE, the user's settings, a profile), fails with
# 125 naming the policy line and where the request came from; a malformed
# or insecure policy is an error for every run, never ignored.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../config-lib.sh"

RAN=$WS/ran
# denied NAME REGEX ARGS...: 125, one line matching REGEX, command not run.
denied() {
	local name=$1 re=$2
	shift 2
	rm -f "$RAN"
	kje "$@"
	if [ "$rc" = 125 ] && [ ! -e "$RAN" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		printf '%s' "$err" | grep -Eq -- "$re"; then
		_report 0 "$name"
	else
		_report 1 "$name" "rc=$rc ran=$([ -e "$RAN" ] && echo yes || echo no)
stderr: $err
expected: $re"
	fi
}
# allowed NAME ARGS...: the run happens.
allowed() {
	local name=$1
	shift
	rm -f "$RAN"
	kje "$@"
	if [ "$rc" = 0 ] && [ -e "$RAN" ]; then _report 0 "$name"; else _report 1 "$name" "rc=$rc err=$err"; fi
}
BE=(--limits best-effort --quiet) # runs that are allowed must run here
sys_profile nethost 'net host'
sys_profile big 'memory 3G' 'limits best-effort'

# ------------------------------------------------------------ deny net host
sys_policy '# the network stays closed' 'deny net host'
denied deny_net_host_against_flag \
	"^kjail: policy: --net host \(from --net\) is denied by /etc/kjail/policy:2: deny net host \(ask your administrator; kjail doctor lists the policy\)$" \
	exec "${BE[@]}" --net host -- touch "$RAN"
denied deny_net_host_against_profile_chosen_by_env \
	"--net host \(from /etc/kjail/profiles/nethost.profile:1\) is denied by /etc/kjail/policy:2" \
	exec "${BE[@]}" --profile nethost -- touch "$RAN"
rm -f "$RAN"
KJAIL_PROFILE=nethost kje exec "${BE[@]}" -- touch "$RAN"
like "$rc:$err" "^125:kjail: policy: --net host \(from /etc/kjail/profiles/nethost.profile:1\) is denied" deny_net_host_against_kjail_profile
user_settings 'net HOST'
denied deny_net_host_against_user_settings \
	"--net host \(from ~/.config/kjail/settings:1\) is denied by /etc/kjail/policy:2" exec "${BE[@]}" -- touch "$RAN"
rm -f "$USER_DIR/settings"
allowed net_none_still_allowed exec "${BE[@]}" --net none -- touch "$RAN"

# ------------------------------------------------------- deny profile host
sys_policy 'deny profile host'
denied deny_profile_host_against_flag \
	"^kjail: policy: profile host \(from --profile\) is denied by /etc/kjail/policy:1: deny profile host" \
	exec --profile host -- touch "$RAN"
rm -f "$RAN"
KJAIL_PROFILE=Host kje exec -- touch "$RAN"
like "$rc:$err" "^125:kjail: policy: profile Host \(from KJAIL_PROFILE\) is denied by /etc/kjail/policy:1" deny_profile_host_against_env
ok deny_profile_host_against_env_did_not_run test ! -e "$RAN"
user_settings 'profile host'
denied deny_profile_host_against_user_settings \
	"profile host \(from ~/.config/kjail/settings:1\) is denied" exec -- touch "$RAN"
rm -f "$USER_DIR/settings"
user_profile myhost 'include host' 'quiet'
denied deny_profile_host_against_profile_including_it \
	"profile myhost \(it includes host\) \(from --profile\) is denied" exec --profile myhost -- touch "$RAN"
denied deny_profile_host_against_isolation_none_flag \
	"--isolation none \(what the host profile is\) \(from --isolation\) is denied by /etc/kjail/policy:1: deny profile host" \
	exec "${BE[@]}" --isolation none --net host -- touch "$RAN"
user_profile copy 'isolation none' 'net host'
denied deny_profile_host_against_a_copy_of_it \
	"--isolation none \(what the host profile is\) \(from ~/.config/kjail/profiles/copy.profile:1\)" \
	exec "${BE[@]}" --profile copy -- touch "$RAN"
allowed other_profiles_still_allowed exec "${BE[@]}" --profile agent -- touch "$RAN"

# Every name is recorded, however many profiles come first: 16 names
# filled the list, and a 17th (the denied one) ran unrecorded.
sys_policy 'deny profile ci'
inc=()
for i in $(seq 1 16); do
	user_profile "p$i" 'quiet'
	inc+=("include p$i")
done
user_profile many "${inc[@]}" 'include ci'
denied deny_profile_against_include_after_16_others \
	"^kjail: policy: profile many \(it includes ci\) \(from --profile\) is denied by /etc/kjail/policy:1: deny profile ci" \
	exec "${BE[@]}" --profile many -- touch "$RAN"
# A profile given by path is known by its file name without .profile.
sys_profile ci 'quiet'
denied deny_profile_against_its_file_by_path \
	"^kjail: policy: profile /etc/kjail/profiles/ci.profile \(/etc/kjail/profiles/ci.profile\) \(from --profile\) is denied by /etc/kjail/policy:1: deny profile ci" \
	exec "${BE[@]}" --profile /etc/kjail/profiles/ci.profile -- touch "$RAN"
rm -f "$ETC_UP/kjail/profiles/ci.profile"
user_profile CI 'quiet'
denied deny_profile_against_user_file_by_path_any_case \
	"^kjail: policy: profile $USER_DIR/profiles/CI.profile \(~/.config/kjail/profiles/CI.profile\) \(from --profile\) is denied" \
	exec "${BE[@]}" --profile "$USER_DIR/profiles/CI.profile" -- touch "$RAN"
user_profile by-path "include $USER_DIR/profiles/CI.profile"
denied deny_profile_against_include_by_path \
	"^kjail: policy: profile by-path \(it includes ci\) \(from --profile\) is denied" \
	exec "${BE[@]}" --profile by-path -- touch "$RAN"
ln -s "$USER_DIR/profiles/CI.profile" "$USER_DIR/profiles/alias.profile"
denied deny_profile_against_a_symlink_to_its_file \
	"^kjail: policy: profile alias \(~/.config/kjail/profiles/CI.profile\) \(from --profile\) is denied" \
	exec "${BE[@]}" --profile alias -- touch "$RAN"
allowed deny_profile_allows_other_file_names_by_path exec "${BE[@]}" --profile "$USER_DIR/profiles/p1.profile" -- touch "$RAN"
rm -f "$USER_DIR"/profiles/p[0-9]*.profile "$USER_DIR"/profiles/{many,CI,by-path,alias}.profile

# ------------------------------------------------------------ max memory 2G
sys_policy 'max memory 2G'
denied max_memory_against_flag \
	"^kjail: policy: --memory 4G \(from --memory\) exceeds /etc/kjail/policy:1: max memory 2G \(ask for at most 2G with --memory" \
	exec "${BE[@]}" --memory 4G -- touch "$RAN"
denied max_memory_against_unlimited_flag "--memory max \(from --memory\) exceeds" \
	exec "${BE[@]}" --memory max -- touch "$RAN"
denied max_memory_against_builtin_profile "--memory 4G \(from built-in ci.profile:3\) exceeds" \
	exec "${BE[@]}" --profile ci -- touch "$RAN"
rm -f "$RAN"
KJAIL_PROFILE=big kje exec "${BE[@]}" -- touch "$RAN"
like "$rc:$err" "^125:kjail: policy: --memory 3G \(from /etc/kjail/profiles/big.profile:1\) exceeds /etc/kjail/policy:1" max_memory_against_env_profile
user_settings 'memory 2049M'
denied max_memory_against_user_settings "--memory 2049M \(from ~/.config/kjail/settings:1\) exceeds" \
	exec "${BE[@]}" -- touch "$RAN"
rm -f "$USER_DIR/settings"
allowed memory_at_the_bound_allowed exec "${BE[@]}" --memory 2G -- touch "$RAN"
allowed default_memory_below_the_bound_allowed exec "${BE[@]}" -- touch "$RAN"

# ------------------------------------------------------------ max pids 1024
sys_policy 'max pids 1024'
denied max_pids_against_flag "--pids 4096 \(from --pids\) exceeds /etc/kjail/policy:1: max pids 1024" \
	exec "${BE[@]}" --pids 4096 -- touch "$RAN"
denied max_pids_against_profile "--pids 4096 \(from built-in ci.profile:5\) exceeds" \
	exec "${BE[@]}" --profile ci --memory 1G -- touch "$RAN"
denied max_pids_unlimited_refused "--pids max \(from --pids\) exceeds" exec "${BE[@]}" --pids max -- touch "$RAN"
allowed pids_below_bound_allowed exec "${BE[@]}" --pids 1000 -- touch "$RAN"

# ---------------------------------------------------------- require seccomp
sys_policy 'require seccomp'
denied require_seccomp_against_host_profile_flag \
	"^kjail: policy: /etc/kjail/policy:1: require seccomp: --isolation none runs without namespaces or seccomp \(from built-in host.profile:[0-9]+\)" \
	exec --profile host -- touch "$RAN"
rm -f "$RAN"
KJAIL_PROFILE=host kje exec -- touch "$RAN"
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:1: require seccomp" require_seccomp_against_env
user_settings 'isolation none' 'net host'
denied require_seccomp_against_user_settings "require seccomp: .*\(from ~/.config/kjail/settings:1\)" \
	exec -- touch "$RAN"
rm -f "$USER_DIR/settings"
allowed require_seccomp_allows_the_sandbox exec "${BE[@]}" -- touch "$RAN"
allowed require_seccomp_allows_strict exec "${BE[@]}" --seccomp strict -- touch "$RAN"
# A policy file of the caller's may allow every call: it does not meet
# `require seccomp`; `require isolation` lets it through.
mkdir -p "$T/pol"
put "$T/pol/open.policy" "$KJ_OWNER" 0644 '@default allow'
denied require_seccomp_against_callers_policy_file \
	"^kjail: policy: /etc/kjail/policy:1: require seccomp: a policy file \(--seccomp FILE\) is the caller's own filter, which may allow every call \(from --seccomp\) \(use --seccomp default or strict" \
	exec "${BE[@]}" --seccomp "$T/pol/open.policy" -- touch "$RAN"
sys_policy 'require isolation'
allowed require_isolation_allows_a_policy_file exec "${BE[@]}" --seccomp "$T/pol/open.policy" -- touch "$RAN"

# ------------------------------------------------------------- deny rw PATH
mkdir -p "$T/private/sub" "$T/other" "$T/private/ws"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$T/private" "$T/other"
sys_policy "deny rw $T/private"
denied deny_rw_against_flag_below_path \
	"^kjail: policy: --rw $T/private/sub \(from --rw\) is denied by /etc/kjail/policy:1: deny rw $T/private" \
	exec "${BE[@]}" --rw "$T/private/sub" -- touch "$RAN"
user_profile grants "rw $T/private"
denied deny_rw_against_profile "--rw $T/private \(from ~/.config/kjail/profiles/grants.profile:1\) is denied" \
	exec "${BE[@]}" --profile grants -- touch "$RAN"
denied deny_rw_covers_a_writable_workspace \
	"the writable workspace $T/private/ws \(from --workspace\) is denied by /etc/kjail/policy:1" \
	exec "${BE[@]}" --workspace "$T/private/ws" -- touch "$RAN"
kje exec "${BE[@]}" --workspace "$T/private/ws" --workspace-ro -- true
is "$rc:$err" "0:" deny_rw_allows_the_workspace_read_only
kje exec "${BE[@]}" --ro "$T/private/sub" -- true
is "$rc:$err" "0:" deny_rw_allows_read_only_grant
allowed deny_rw_allows_other_paths exec "${BE[@]}" --rw "$T/other" -- touch "$RAN"
# A grant above PATH shows PATH writable too.
mkdir -p "$T/par/secret"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$T/par"
sys_policy "deny rw $T/par/secret"
denied deny_rw_against_grant_of_parent \
	"^kjail: policy: --rw $T/par \(from --rw\) is denied by /etc/kjail/policy:1: deny rw $T/par/secret" \
	exec "${BE[@]}" --rw "$T/par" -- touch "$T/par/secret/x"
ok deny_rw_parent_grant_never_wrote test ! -e "$T/par/secret/x"
# A PATH that does not exist yet, below a symlink: compared where it would
# be, not as written (`--rw` of the link, canonical the link's target, let
# the sandbox make the denied directory).
mkdir -p "$T/data"
ln -s "$T/data" "$T/datalink"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$T/data"
sys_policy "deny rw $T/datalink/secret"
denied deny_rw_missing_path_below_symlink_against_parent_grant \
	"^kjail: policy: --rw $T/data \(from --rw\) is denied by /etc/kjail/policy:1: deny rw $T/datalink/secret" \
	exec "${BE[@]}" --rw "$T/datalink" -- mkdir "$T/data/secret"
ok deny_rw_missing_path_below_symlink_never_made test ! -e "$T/data/secret"
sys_policy "deny rw $T/private"
# With --isolation none the whole host is writable: denied whatever the grants.
denied deny_rw_against_isolation_none \
	"^kjail: policy: --isolation none \(every path the caller can write is writable\) \(from built-in host.profile:[0-9]+\) is denied by /etc/kjail/policy:1: deny rw $T/private" \
	exec --profile host -- touch "$T/private/x"
ok deny_rw_isolation_none_never_wrote test ! -e "$T/private/x"
sys_policy 'deny landlock off' 'deny net host'
denied deny_landlock_off_against_isolation_none "--isolation none \(no Landlock\)" \
	exec --profile host -- touch "$RAN"

# ---------------------------------------------- deny OPTION, deny setenv NAME
sys_policy 'deny setenv LD_PRELOAD' 'deny env-file'
denied deny_setenv_name_against_flag \
	"^kjail: policy: --setenv LD_PRELOAD \(from --setenv\) is denied by /etc/kjail/policy:1" \
	exec "${BE[@]}" --setenv LD_PRELOAD=/x.so -- touch "$RAN"
user_profile preload 'setenv LD_PRELOAD=/x.so'
denied deny_setenv_name_against_profile "--setenv LD_PRELOAD \(from ~/.config/kjail/profiles/preload.profile:1\)" \
	exec "${BE[@]}" --profile preload -- touch "$RAN"
allowed deny_setenv_allows_other_names exec "${BE[@]}" --setenv LD_LIBRARY_PATH=/x -- touch "$RAN"
# (BASH_ENV, not LD_PRELOAD: kjail's own environment here, and an ASan
# build refuses to start with a foreign LD_PRELOAD.)
sys_policy 'deny setenv BASH_ENV'
BASH_ENV=/nonexistent denied deny_setenv_name_against_env_passthrough \
	"^kjail: policy: --env BASH_ENV \(from --env\) is denied by /etc/kjail/policy:1" \
	exec "${BE[@]}" --env BASH_ENV -- touch "$RAN"
sys_policy 'deny setenv LD_PRELOAD' 'deny env-file'
put "$T/preload.env" "$KJ_OWNER" 0600 'LD_PRELOAD=/x.so'
sys_policy 'deny setenv LD_PRELOAD'
denied deny_setenv_name_against_env_file_line \
	"^kjail: policy: --setenv LD_PRELOAD \(from --env-file\) is denied by /etc/kjail/policy:1" \
	exec "${BE[@]}" --env-file "$T/preload.env" -- touch "$RAN"
sys_policy 'deny setenv LD_PRELOAD' 'deny env-file'
put "$T/vault" "$KJ_OWNER" 0600 'A=b'
denied deny_option_against_any_use "--env-file \(from --env-file\) is denied by /etc/kjail/policy:2: deny env-file" \
	exec "${BE[@]}" --env-file "$T/vault" -- touch "$RAN"
# A value from the built-in default profile is nobody's use of the option:
# `deny limits` (net, pids, memory) refuses who asks, not every run.
sys_policy 'deny limits' 'deny net'
# shellcheck disable=SC2086
allowed deny_option_allows_built_in_default_values exec $NOLIM --quiet -- touch "$RAN"
# shellcheck disable=SC2086
allowed deny_option_allows_built_in_default_through_agent exec $NOLIM --quiet --profile agent -- touch "$RAN"
denied deny_limits_against_flag "^kjail: policy: --limits \(from --limits\) is denied by /etc/kjail/policy:1: deny limits" \
	exec --quiet --limits best-effort -- touch "$RAN"
denied deny_net_against_flag_of_default_value "^kjail: policy: --net \(from --net\) is denied by /etc/kjail/policy:2: deny net" \
	exec --quiet --net none -- touch "$RAN"
# (the default limits may not be enforceable here: what matters is that
# the policy does not refuse them)
sys_policy 'deny pids' 'deny memory'
kje exec --quiet -- true
unlike "$err" "policy" deny_pids_and_memory_allow_built_in_default_values
sys_profile default 'pids 256'
denied deny_pids_against_a_default_profile_file "^kjail: policy: --pids \(from /etc/kjail/profiles/default.profile:1\) is denied by /etc/kjail/policy:1" \
	exec --quiet -- touch "$RAN"
rm -f "$ETC_UP/kjail/profiles/default.profile"

# ------------------------------------------ deny seccomp default, landlock off
sys_policy 'deny seccomp default' 'deny landlock off'
denied deny_seccomp_default_against_kjails_default \
	"^kjail: policy: --seccomp default \(from kjail's default\) is denied by /etc/kjail/policy:1: deny seccomp default" \
	exec "${BE[@]}" -- touch "$RAN"
allowed deny_seccomp_default_allows_strict exec "${BE[@]}" --seccomp strict -- touch "$RAN"
denied deny_landlock_off_against_flag "--landlock off \(from --landlock\) is denied by /etc/kjail/policy:2" \
	exec "${BE[@]}" --seccomp strict --landlock off -- touch "$RAN"

# ------------------------------------------- max timeout, require timeout
sys_policy 'max timeout 10m'
denied max_timeout_without_timeout \
	"^kjail: policy: --timeout none \(from kjail's default\) exceeds /etc/kjail/policy:1: max timeout 10m" \
	exec "${BE[@]}" -- touch "$RAN"
denied max_timeout_against_flag "--timeout 1h \(from --timeout\) exceeds" exec "${BE[@]}" --timeout 1h -- touch "$RAN"
allowed max_timeout_allows_agent_profile exec "${BE[@]}" --profile agent -- touch "$RAN"
# Duration units in any case, and M is minutes: 2M exceeds 90s, 1M does not.
sys_policy 'max timeout 90S'
denied max_timeout_against_upper_case_minutes "--timeout 2m \(from --timeout\) exceeds /etc/kjail/policy:1: max timeout 90S" \
	exec "${BE[@]}" --timeout 2M -- touch "$RAN"
allowed upper_case_minute_within_max_timeout exec "${BE[@]}" --timeout 1M -- touch "$RAN"
sys_policy 'require output-limit'
denied require_output_limit "require output-limit: no --output-limit is set" exec "${BE[@]}" -- touch "$RAN"
allowed require_output_limit_met exec "${BE[@]}" --output-limit 1M -- touch "$RAN"
denied require_output_limit_not_met_by_max "require output-limit: no --output-limit is set \(from --output-limit\)" \
	exec "${BE[@]}" --output-limit max -- touch "$RAN"
# A user's max lifts a profile's cap, never the admin's: max exceeds it.
sys_policy 'max output-limit 1M'
user_profile capped 'output-limit 100'
denied max_output_limit_against_flag_max \
	"^kjail: policy: --output-limit max \(from --output-limit\) exceeds /etc/kjail/policy:1: max output-limit 1M" \
	exec "${BE[@]}" --profile capped --output-limit max -- touch "$RAN"
denied max_output_limit_against_no_cap "--output-limit max \(from kjail's default\) exceeds /etc/kjail/policy:1" \
	exec "${BE[@]}" -- touch "$RAN"
allowed max_output_limit_allows_a_profile_cap exec "${BE[@]}" --profile capped -- touch "$RAN"
rm -f "$USER_DIR/profiles/capped.profile"

# ------------------------------------------------- a broken policy fails closed
for rule in 'deny' 'maximum memory 2G' 'max memory lots' 'deny nosuchoption' 'max net none' \
	'require nothing' 'deny net bogus' 'deny rw relative/path' 'deny profile' \
	'deny profile Bad/Name!!' 'deny profile ./x.profile' 'deny profile -x' 'deny profile a!b' \
	'max timeout 0' 'max timeout 0s' 'max memory 512K'; do
	sys_policy 'max pids 1024' "$rule"
	kje exec "${BE[@]}" -- true
	like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:2: " "malformed_policy_refused: $rule"
done
sys_policy 'max memory lots'
kje exec "${BE[@]}" -- true
like "$err" "max memory lots: --memory: invalid size 'lots'" malformed_policy_value_read_by_the_options_own_parser
sys_policy 'max timeout 0.0001'
kje exec "${BE[@]}" -- true
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:1: max timeout 0.0001: --timeout: '0.0001' is finer than kjail's resolution of 1 ms" \
	policy_duration_below_one_ms_read_by_the_options_own_parser
sys_policy 'deny profile Bad!name'
kje exec "${BE[@]}" -- true
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:1: deny profile Bad!name: .*invalid profile name 'Bad!name'" \
	deny_profile_needs_a_profile_name
# A name nobody has defined yet may be denied ahead of time.
sys_policy 'deny profile not-yet-made'
allowed deny_profile_of_a_name_not_made_yet_loads exec "${BE[@]}" -- touch "$RAN"
sys_policy 'deny profile ./x.profile'
kje exec "${BE[@]}" -- true
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:1: deny profile ./x.profile: a path never matches \(deny a profile by its name" \
	deny_profile_by_path_refused
sys_policy 'deny profile Agent' 'deny profile nethost'
allowed deny_profile_of_existing_names_loads exec "${BE[@]}" -- touch "$RAN"
sys_policy 'max timeout 0'
kje exec "${BE[@]}" --timeout 1h -- true
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:1: max timeout 0: a maximum timeout of 0 limits nothing \(use require timeout, or a positive maximum\)" \
	max_timeout_zero_refused
# So does a maximum of max: every value is at most max (it loaded, and
# bounded nothing).
for rule in 'max memory max' 'max pids MAX' 'max cpus max' 'max memory-swap max' 'max output-limit max'; do
	sys_policy "$rule"
	kje exec "${BE[@]}" -- true
	like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy:1: $rule: a maximum of max limits nothing \(give a finite maximum, or remove the line\)$" \
		"max_of_max_refused_${rule// /_}"
done
sys_policy 'max kill-grace 0' 'max output-limit 0'
allowed max_kill_grace_and_output_limit_zero_still_bound exec "${BE[@]}" --kill-grace 0 --output-limit 0 -- touch "$RAN"
sys_policy 'deny net host'
chown 12345 "$ETC_UP/kjail/policy"
kje exec "${BE[@]}" -- true
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy is owned by uid 12345, not root" policy_not_owned_by_root_refused
chown root "$ETC_UP/kjail/policy"
chmod 0666 "$ETC_UP/kjail/policy"
kje exec "${BE[@]}" -- true
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy is writable by group or others" writable_policy_refused
chmod 0644 "$ETC_UP/kjail/policy"

# doctor lists the policy in force.
sys_policy 'deny net host' 'max memory 2G'
kje doctor --limits best-effort
like "$out" "^info +policy +/etc/kjail/policy: read: deny net host; max memory 2G" doctor_lists_policy
reset_config
kje doctor --limits best-effort
like "$out" "^info +policy +/etc/kjail/policy: absent" doctor_says_no_policy

# An exec into a session: `deny kill-grace` refuses an exec that asks,
# not every exec (the session's own value was judged when it was made).
session_test_setup
S=kjpol-$$
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; _cleanup' EXIT
sys_policy 'deny kill-grace' 'deny timeout'
# shellcheck disable=SC2086
kje create $CREATE_ARGS --quiet "$S"
is "$rc:$err" "0:" session_created_under_deny_option
kje exec -s "$S" -- true
is "$rc:$err" "0:" deny_option_allows_exec_with_session_defaults
kje exec -s "$S" --kill-grace 1s -- true
like "$rc:$err" "^125:kjail: policy: --kill-grace \(from the command line \(exec -s\)\) is denied by /etc/kjail/policy:1: deny kill-grace" deny_option_refuses_exec_flag
# Every option an exec into a session may carry meets its deny rule, as
# it does on a one-shot run (`deny cwd` and `deny quiet` held only there).
sys_policy 'deny cwd' 'deny quiet'
rm -f "$RAN"
kje exec -s "$S" --cwd "$WS" -- touch "$RAN"
like "$rc:$err" "^125:kjail: policy: --cwd \(from the command line \(exec -s\)\) is denied by /etc/kjail/policy:1: deny cwd" deny_cwd_refuses_exec_flag
ok deny_cwd_exec_did_not_run test ! -e "$RAN"
kje exec -s "$S" --quiet -- touch "$RAN"
like "$rc:$err" "^125:kjail: policy: --quiet \(from the command line \(exec -s\)\) is denied by /etc/kjail/policy:2: deny quiet" deny_quiet_refuses_exec_flag
ok deny_quiet_exec_did_not_run test ! -e "$RAN"
kje exec -s "$S" -- touch "$RAN"
is "$rc:$err" "0:" deny_cwd_quiet_allow_exec_without_them
kje rm "$S"
reset_config

done_testing
