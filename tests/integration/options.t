#!/bin/bash
# Bad input: every bad option or argument is refused before anything runs,
# with exit status 125 and exactly one line on stderr of the form
#   kjail: <part>: <what is wrong> (<what to do>)
# and nothing changes on the host.
. "$(dirname "$0")/../lib.sh"

# Every refused run is given this command: if kjail ran it anyway, the
# marker file would appear in the workspace.
RAN=$WS/command-ran

snapshot() { (cd "$T" && find . -path ./.out.\* -prune -o -path ./.err.\* -prune -o -print | sort); }

# refused NAME REGEX KJAIL-ARGS...: kjail refuses with 125, one line on
# stderr in the house format (with a hint in parentheses) that matches
# REGEX, nothing on stdout, the command never runs, and nothing under $T
# (workspace included) appears or disappears.
refused() {
	local name=$1 re=$2 before after why=
	shift 2
	before=$(snapshot)
	kj "$@"
	after=$(snapshot)
	[ "$rc" = 125 ] || why="${why}exit status $rc, expected 125
"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || why="${why}stderr is not one line
"
	printf '%s' "$err" | grep -Eq '^kjail: [a-z][a-z-]*: .+ \([^()]+\)$' ||
		why="${why}stderr is not 'kjail: <part>: <message> (<hint>)'
"
	printf '%s' "$err" | grep -Eq -- "$re" || why="${why}stderr does not match: $re
"
	[ -z "$out" ] || why="${why}stdout is not empty
"
	[ ! -e "$RAN" ] || why="${why}the command ran
"
	[ "$before" = "$after" ] || why="${why}files under \$T changed:
$(diff <(echo "$before") <(echo "$after"))
"
	rm -f "$RAN"
	if [ -z "$why" ]; then
		_report 0 "$name"
	else
		_report 1 "$name" "${why}stderr: $err
stdout: $out"
	fi
}

run_marker=(touch "$RAN")

# ------------------------------------------------------------- the parser

refused unknown_option_refused '^kjail: option: unknown option --bogus' \
	exec --bogus -- "${run_marker[@]}"
refused unknown_short_option_refused '^kjail: option: unknown option -x' \
	exec -x -- "${run_marker[@]}"
refused option_missing_its_value_refused '^kjail: option: --timeout needs a value' \
	exec --timeout
refused flag_given_a_value_refused '^kjail: option: --tty takes no value' \
	exec --tty=yes -- "${run_marker[@]}"

mkdir -p "$T/emptyroot"
refused mask_missing_in_root_refused '^kjail: mask: /nonexist/x: No such file or directory \(mask a path that exists\)$' \
	exec --root "$T/emptyroot" --mask /nonexist/x -- "${run_marker[@]}"
refused empty_root_refused '^kjail: option: --root: empty path \(give a root filesystem directory\)$' \
	exec --root '' -- "${run_marker[@]}"
# A path value a later one replaces is checked too.
refused replaced_missing_root_refused '^kjail: option: --root /nonexistent \(replaced by a later --root\): No such file or directory \(fix or drop the earlier value; a later one does not excuse it\)$' \
	exec --root /nonexistent --root / -- "${run_marker[@]}"
refused replaced_missing_workspace_refused '^kjail: option: --workspace /nonexistent \(replaced by a later --workspace\): No such file' \
	exec --workspace /nonexistent --workspace "$WS" -- "${run_marker[@]}"
refused replaced_missing_env_file_refused '^kjail: option: --env-file /nonexistent \(replaced by a later --env-file\): No such file' \
	exec --env-file /nonexistent --env-file /dev/null -- "${run_marker[@]}"
refused replaced_missing_seccomp_file_refused '^kjail: option: --seccomp /nonexistent/p.policy \(replaced by a later --seccomp\): No such file' \
	exec --seccomp /nonexistent/p.policy --seccomp default -- "${run_marker[@]}"
refused replaced_missing_net_hosts_refused '^kjail: option: --net-hosts /nonexistent \(replaced by a later --net-hosts\): No such file' \
	exec --net proxy --allow-host a.test --net-hosts /nonexistent --net-hosts /etc/hosts -- "${run_marker[@]}"
refused replaced_net_log_without_directory_refused '^kjail: option: --net-log /nonexistent/dir \(replaced by a later --net-log\): No such file' \
	exec --net proxy --allow-host a.test --net-log /nonexistent/dir/log --net-log "$T/net.log" -- "${run_marker[@]}"
# ...and must be of the kind the option takes, a workspace one the
# workspace's rules accept (a workspace that is /, or a file, or a root
# that is a file, was taken when a later value replaced it).
refused replaced_workspace_root_refused '^kjail: workspace: --workspace / \(replaced by a later --workspace\): cannot bind the whole host root /' \
	exec --workspace / --workspace "$WS" -- "${run_marker[@]}"
refused replaced_workspace_file_refused '^kjail: option: --workspace /etc/passwd \(replaced by a later --workspace\): Not a directory' \
	exec --workspace /etc/passwd --workspace "$WS" -- "${run_marker[@]}"
refused replaced_workspace_system_dir_refused '^kjail: workspace: --workspace /etc \(replaced by a later --workspace\): /etc may not be writable' \
	exec --workspace /etc --workspace "$WS" -- "${run_marker[@]}"
refused replaced_root_file_refused '^kjail: option: --root /etc/passwd \(replaced by a later --root\): Not a directory' \
	exec --root /etc/passwd --root / -- "${run_marker[@]}"
refused replaced_seccomp_directory_refused '^kjail: option: --seccomp /etc \(replaced by a later --seccomp\) is not a regular file' \
	exec --seccomp /etc --seccomp default -- "${run_marker[@]}"
refused replaced_net_hosts_directory_refused '^kjail: option: --net-hosts /etc \(replaced by a later --net-hosts\) is not a regular file' \
	exec --net proxy --allow-host a.test --net-hosts /etc --net-hosts /etc/hosts -- "${run_marker[@]}"
refused idle_timeout_on_one_shot_refused '^kjail: option: --idle-timeout does nothing for a one-shot kjail exec \(give it to kjail create\)$' \
	exec --idle-timeout 5m -- "${run_marker[@]}"
refused size_overflow_names_largest_size '^kjail: option: --memory 99999999T: Numerical result out of range \(the largest size is 16777215T\)$' \
	exec --memory 99999999T -- "${run_marker[@]}"
# 2^64-1 is how "max" is held: written as a number it would lift the cap
# it was meant to set (no --output-limit at all, and a policy's
# "require output-limit" told a lie).
for o in output-limit memory tmp-size; do
	refused "size_all_ones_${o//-/_}_refused" "^kjail: option: --$o 18446744073709551615: Numerical result out of range \\(the largest size is 16777215T\\)$" \
		exec --$o 18446744073709551615 -- "${run_marker[@]}"
done
refused empty_cwd_refused '^kjail: option: --cwd: empty path \(give a directory inside the sandbox\)$' \
	exec --cwd '' -- "${run_marker[@]}"
# --isolation none reads --cwd as the sandbox does: absolute, or relative
# to the workspace; one that does not exist fails, never runs elsewhere.
kj exec --isolation none --net host --cwd /tmp -- pwd
is "$rc:$out" "0:/tmp" isolation_none_honours_absolute_cwd
mkdir -p "$WS/sub"
kj exec --isolation none --net host --cwd sub -- pwd
is "$rc:$out" "0:$WS/sub" isolation_none_honours_cwd_relative_to_workspace
rmdir "$WS/sub"
refused isolation_none_missing_cwd_refused \
	'^kjail: cwd: chdir /nonexistent-kjt: No such file or directory \(give a directory that exists inside the sandbox\)$' \
	exec --isolation none --net host --quiet --cwd /nonexistent-kjt -- "${run_marker[@]}"
refused timeout_abc_refused "^kjail: option: --timeout: invalid duration 'abc'" \
	exec --timeout abc -- "${run_marker[@]}"
refused timeout_negative_refused "^kjail: option: --timeout: invalid duration '-1'" \
	exec --timeout -1 -- "${run_marker[@]}"
# Durations have a resolution of 1 ms; a finer value is refused, and the
# message says so (it said only "invalid duration"). Never rounded: 0.0001
# read as 0 would be no timeout at all.
refused timeout_below_millisecond_precision_refused \
	"^kjail: option: --timeout: '1.2345s' is finer than kjail's resolution of 1 ms \(.*at most 3 decimals" \
	exec --timeout 1.2345s -- "${run_marker[@]}"
refused timeout_below_one_ms_names_the_resolution \
	"^kjail: option: --timeout: '0.0001' is finer than kjail's resolution of 1 ms \(.*at most 3 decimals" \
	exec --timeout 0.0001 -- "${run_marker[@]}"
refused kill_grace_fraction_of_ms_names_the_resolution \
	"^kjail: option: --kill-grace: '1.5ms' is finer than kjail's resolution of 1 ms" \
	exec --kill-grace 1.5ms -- "${run_marker[@]}"
refused idle_timeout_below_one_ms_names_the_resolution \
	"^kjail: option: --idle-timeout: '0.0001' is finer than kjail's resolution of 1 ms" \
	create --idle-timeout 0.0001 kjt-idle-res
# Duration units take any case, as size suffixes do (M is minutes here).
kj exec --timeout 30S --kill-grace 500MS -- true
is "$rc:$err" "0:" duration_units_upper_case_accepted
kj exec --timeout 1H --kill-grace 2M -- true
is "$rc:$err" "0:" duration_units_upper_case_h_and_m_accepted
refused timeout_equals_form_checked_too "invalid duration 'abc'" \
	exec --timeout=abc -- "${run_marker[@]}"
refused timeout_unknown_unit_refused "invalid duration '5d'" \
	exec --timeout 5d -- "${run_marker[@]}"
refused timeout_overflow_refused '^kjail: option: --timeout' \
	exec --timeout 99999999999999999999 -- "${run_marker[@]}"
refused timeout_overflow_with_unit_refused '^kjail: option: --timeout' \
	exec --timeout 9999999999999999h -- "${run_marker[@]}"
refused kill_grace_abc_refused "^kjail: option: --kill-grace: invalid duration 'abc'" \
	exec --kill-grace abc -- "${run_marker[@]}"

# max: no cap, so a later flag lifts an earlier one (or a profile's).
kj exec --output-limit 100 --output-limit MAX -- sh -c 'yes | head -c 5000'
is "$rc:${#out}:$err" "0:4999:" output_limit_max_means_no_cap
refused output_limit_bad_suffix_refused "^kjail: option: --output-limit: invalid size '10X'" \
	exec --output-limit 10X -- "${run_marker[@]}"
refused output_limit_overflow_refused '^kjail: option: --output-limit' \
	exec --output-limit 20000000T -- "${run_marker[@]}"
refused tmp_size_zero_refused '^kjail: option: --tmp-size: 0 is too small' \
	exec --tmp-size 0 -- "${run_marker[@]}"

# A memory limit below 1M can never hold a sandbox: refused up front, with
# --limits best-effort too (the check is the parser's, before any cgroup).
for m in 0 1 512 1023K; do
	refused "memory_${m}_below_the_1M_floor_refused" \
		"^kjail: option: --memory $m: a sandbox needs at least 1M \(give --memory 1M or more, or --memory max; a bare number is bytes\)$" \
		exec --limits best-effort --memory "$m" -- "${run_marker[@]}"
done
refused memory_floor_checked_for_sessions_too "^kjail: option: --memory 1: a sandbox needs at least 1M" \
	create --limits best-effort --memory 1 kjt-mem-floor
as_caller "$KJAIL" rm kjt-mem-floor >/dev/null 2>&1 # (a kjail that took it)
refused pids_below_init_and_command_refused \
	"^kjail: option: --pids 1: a sandbox needs 2 processes \(its init and COMMAND\) \(give --pids 2 or more, or --pids max\)$" \
	exec --pids 1 -- "${run_marker[@]}"
refused pids_below_proxy_floor_refused "^kjail: option: --pids 4: a sandbox needs 5 processes \(its init and COMMAND, the proxy's relay, and the proxy with one connection's thread\)" \
	exec --pids 4 --net proxy --allow-host a.test -- "${run_marker[@]}"
kj create --pids 1 kjt-pids-floor
is "$rc:$err" "125:kjail: option: --pids 1: a sandbox needs 2 processes (its init and COMMAND) (give --pids 2 or more, or --pids max)" \
	pids_floor_checked_for_sessions_too

refused net_bogus_refused "^kjail: option: --net: invalid value 'bogus' .*none, host" \
	exec --net bogus -- "${run_marker[@]}"
# A value is shown escaped, so it cannot forge a second kjail line.
refused net_value_with_newline_stays_one_line \
	'^kjail: option: --net: invalid value .bogus\\nkjail: ok. ' \
	exec --net $'bogus\nkjail: ok' -- "${run_marker[@]}"
kj exec --net NONE -- sh -c 'echo accepted'
is "$rc:$out" "0:accepted" net_value_is_case_insensitive

refused setenv_without_equals_refused "^kjail: option: --setenv: 'NOEQUALS' has no '='" \
	exec --setenv NOEQUALS -- "${run_marker[@]}"
refused setenv_name_starting_with_digit_refused "invalid variable name '1BAD'" \
	exec --setenv 1BAD=x -- "${run_marker[@]}"
refused env_name_with_dash_refused "^kjail: option: --env: invalid variable name 'BAD-NAME'" \
	exec --env BAD-NAME -- "${run_marker[@]}"

# ----------------------------------------------------------------- --user

if [ "$KJ_AS" = user ]; then
	refused user_option_needs_root '^kjail: option: --user needs root' \
		exec --user 0 -- "${run_marker[@]}"
	skip user_option_runs_command_as_nobody "only root may use --user"
else
	kj exec --user nobody -- id -u
	is "$rc:$out" "0:65534" user_option_runs_command_as_nobody
	# Names come from /etc/passwd and /etc/group (kjail reads them
	# itself: runtime/accounts.c), the group's by name too.
	ng=$(getent group 65534 | cut -d: -f1)
	kj exec --user "nobody:$ng" -- sh -c 'echo $(id -u):$(id -g) $HOME'
	is "$rc:$out" "0:65534:65534 $(getent passwd nobody | cut -d: -f6)" user_and_group_names_resolved
	# The caller's supplementary groups (adm here) are not the user's:
	# kept, they gave the command their group access to host files.
	# shellcheck disable=SC2086 # KJ_EXEC_ARGS is meant to split
	out=$(setpriv --groups=4 "$KJAIL" exec $KJ_EXEC_ARGS --quiet --user nobody -- \
		awk '/^Groups:/ {print NF - 1}' /proc/self/status 2>&1)
	is "$out" 0 user_option_drops_supplementary_groups
fi
refused user_unknown_name_refused "^kjail: option: --user: no such user 'kjail-nosuchuser'" \
	exec --user kjail-nosuchuser -- "${run_marker[@]}"
refused user_unknown_group_refused "^kjail: option: --user: no such group 'kjail-nosuchgroup'" \
	exec --user 65534:kjail-nosuchgroup -- "${run_marker[@]}"
refused user_minus_one_refused '^kjail: option: --user: uid 4294967295 is out of range \(give a uid from 0 to 4294967294\)$' \
	exec --user 4294967295 -- "${run_marker[@]}"
refused group_minus_one_refused '^kjail: option: --user: gid 4294967295 is out of range' \
	exec --user 0:4294967295 -- "${run_marker[@]}"

# ------------------------------------------------------------ file system

refused workspace_nonexistent_refused '^kjail: workspace: /nonexistent-kjail' \
	exec --workspace /nonexistent-kjail -- "${run_marker[@]}"
ok workspace_nonexistent_not_created test ! -e /nonexistent-kjail
# DIR:rel is a DIR of that name (a DEST starts with '/'): the error says
# so, rather than only that the directory is missing.
refused workspace_relative_dest_says_dest_is_absolute \
	"^kjail: workspace: $WS:rel: No such file or directory \(give an existing path; a DEST after ':' starts with '/', as in DIR:/DEST\)$" \
	exec --workspace "$WS:rel" -- "${run_marker[@]}"

# Refused for what it is (the host's whole root), not for its spelling.
refused workspace_root_refused '^kjail: workspace: .*(whole host root|cannot bind onto / )' \
	exec --workspace / -- "${run_marker[@]}"

touch "$WS/plainfile"
chown "$KJ_UID" "$WS/plainfile"
refused workspace_regular_file_refused '^kjail: workspace: .*plainfile: Not a directory \(give a project directory\)' \
	exec --workspace "$WS/plainfile" -- "${run_marker[@]}"

# The caller's home (from the user database) holds its credential stores.
home=$(getent passwd "$KJ_UID" | cut -d: -f6)
if [ -n "$home" ] && [ -d "$home" ] && [ "$home" != / ]; then
	refused workspace_caller_home_refused '^kjail: workspace: .*home directory' \
		exec --workspace "$home" -- "${run_marker[@]}"
	refused ro_bind_of_caller_home_refused '^kjail: ro: .*home directory' \
		exec --ro "$home" -- "${run_marker[@]}"
else
	skip workspace_caller_home_refused "the caller's home '$home' does not exist"
	skip ro_bind_of_caller_home_refused "the caller's home '$home' does not exist"
fi

refused ro_nonexistent_refused '^kjail: ro: /nonexistent-kjail' \
	exec --ro /nonexistent-kjail -- "${run_marker[@]}"
ok ro_nonexistent_not_created test ! -e /nonexistent-kjail
# (DEST is absolute: a ':' not followed by '/' is part of the path)
refused ro_colon_without_absolute_dest_is_part_of_the_path "^kjail: ro: $WS:relative: No such file or directory" \
	exec --ro "$WS:relative" -- "${run_marker[@]}"
refused ro_destination_with_dotdot_refused "^kjail: ro: destination '/opt/../etc' is not a plain path" \
	exec --ro "$WS:/opt/../etc" -- "${run_marker[@]}"
refused rw_etc_refused '^kjail: rw: /etc may not be writable' \
	exec --rw /etc -- "${run_marker[@]}"
refused rw_inside_etc_refused '^kjail: rw: /etc/default may not be writable' \
	exec --rw /etc/default -- "${run_marker[@]}"
refused rw_root_refused '^kjail: rw: .*(whole host root|cannot bind onto / )' \
	exec --rw / -- "${run_marker[@]}"
refused rw_onto_proc_refused '^kjail: rw: cannot bind onto /proc' \
	exec --rw "$WS:/proc/x" -- "${run_marker[@]}"
refused mask_relative_refused "^kjail: mask: 'relative' is not absolute" \
	exec --mask relative -- "${run_marker[@]}"

# Past a count limit: the same one line, with what to do instead (these
# three said only "at most N").
many() { local i; for ((i = 1; i <= $2; i++)); do printf -- '%s\n' "--$1" "${3//@/$i}"; done; }
mapfile -t args < <(many mask 65 /tmp/m@)
refused mask_count_limit_in_house_format '^kjail: option: --mask: at most 64 masks \(' \
	exec "${args[@]}" -- "${run_marker[@]}"
mapfile -t args < <(many setenv 65 V@=1)
refused setenv_count_limit_in_house_format '^kjail: option: --setenv: at most 64 \(put the variables in an --env-file\)$' \
	exec "${args[@]}" -- "${run_marker[@]}"
mapfile -t args < <(many protect 17 p@)
refused protect_count_limit_in_house_format '^kjail: option: --protect: at most 16 paths \(' \
	exec "${args[@]}" -- "${run_marker[@]}"

# --cpus outside 0.01-4096: the fix says the range, not only the low end.
refused cpus_over_4096_says_the_range '^kjail: option: --cpus: invalid value .5000. \(give a number of CPUs from 0\.01 to 4096' \
	exec --cpus 5000 -- "${run_marker[@]}"
refused cpus_fraction_over_4096_refused '^kjail: option: --cpus: invalid value .4096\.5. \(give a number of CPUs from 0\.01 to 4096' \
	exec --cpus 4096.5 -- "${run_marker[@]}"

# ------------------------------------------- setup failures say what to do
# A part that fails for a reason of the host's (an errno kjail's code has
# no better advice for) still ends its line with a fix: the errno's own
# (errno_fix, runtime/error.c). Before, such lines stopped at the errno
# text ("create the setup channel: Too many open files").

# --root whose /tmp is a symbolic link (to itself, resolved in that root).
mkdir -p "$T/looproot/proc" "$T/looproot/dev"
ln -s /tmp "$T/looproot/tmp"
refused root_tmp_symlink_refused_with_fix '^kjail: mount: open /tmp: Too many levels of symbolic links \(give a --root where it is a directory, not a symbolic link\)$' \
	exec --root "$T/looproot" -- "${run_marker[@]}"

# Too few file descriptors, at every limit where kjail starts but cannot
# finish its setup: each refusal is one line in the house format, and
# the command never runs. (At least one limit must refuse, or the check
# proved nothing.)
lowfd_bad= lowfd_refused=0
for n in 5 6 7 8 9 10 11 12 13 14 15; do
	e=$(as_caller bash -c 'ulimit -n "$1"; shift; exec "$@"' _ "$n" "$KJAIL" exec \
		$KJ_EXEC_ARGS -- "${run_marker[@]}" 2>&1 >/dev/null </dev/null)
	r=$?
	if [ "$r" = 125 ]; then
		lowfd_refused=$((lowfd_refused + 1))
		[ "$(printf '%s\n' "$e" | wc -l)" = 1 ] &&
			printf '%s' "$e" | grep -Eq '^kjail: [a-z][a-z-]*: .+ \([^()]+\)$' &&
			[ ! -e "$RAN" ] || lowfd_bad="$lowfd_bad
ulimit -n $n: $e"
	elif [ "$r" != 0 ]; then
		lowfd_bad="$lowfd_bad
ulimit -n $n: exit $r: $e"
	fi
	rm -f "$RAN"
done
if [ -z "$lowfd_bad" ] && [ "$lowfd_refused" -gt 0 ]; then
	_report 0 low_open_file_limit_refusals_say_what_to_do
else
	_report 1 low_open_file_limit_refusals_say_what_to_do "refused $lowfd_refused times;$lowfd_bad"
fi

# -------------------------------------------------- commands, subcommands

refused missing_command_refused '^kjail: option: no COMMAND given' exec
refused missing_command_after_options_refused '^kjail: option: no COMMAND given' \
	exec --timeout 1s --
refused unknown_subcommand_refused "^kjail: option: unknown command 'bogus'" bogus
refused unknown_subcommand_shown_escaped '^kjail: option: unknown command .foo\\nbar. \(see kjail --help\)$' $'foo\nbar'
refused gc_with_an_argument_refused_as_such "^kjail: option: kjail gc takes no arguments: 'now' \(usage: kjail gc\)$" gc now
refused create_without_name_asks_for_a_name "^kjail: option: no NAME given \(usage: kjail create \[OPTIONS\] NAME\)$" create
refused create_options_without_name_asks_for_a_name "^kjail: option: no NAME given \(usage: kjail create" create --timeout 1s
refused profile_without_subcommand_in_house_format "^kjail: option: kjail profile needs list or show \(usage: kjail profile list" profile
refused profile_unknown_subcommand_named "^kjail: option: unknown profile command 'lst' \(usage: kjail profile list" profile lst
refused ls_with_an_argument_in_house_format "^kjail: option: kjail ls takes only --json: 'foo' \\(usage: kjail ls \\[--json\\]\\)$" ls foo
refused stop_without_name_in_house_format '^kjail: option: no NAME given \(usage: kjail stop NAME\)$' stop
refused rm_with_two_names_in_house_format "^kjail: option: unexpected argument 'b' \\(usage: kjail rm NAME\\)$" rm a b
# Every subcommand answers -h and --help with its usage on stdout, exit 0
# (stop and rm took --help for a session name, ls called it a usage error).
for sub in ls stop rm gc profile doctor create; do
	for h in -h --help; do
		kj "$sub" "$h"
		printf '%s %s: %s\t%s\t%s\n' "$sub" "$h" "$rc" "${out%%$'\n'*}" "$err"
	done
done >"$T/subhelp"
is "$(sed -E 's/^([a-z]+) [-a-z]+: 0\tusage: kjail \1 [^\t]*\t$/ok/' "$T/subhelp" | sort -u)" ok subcommand_help_prints_usage_on_stdout_exit_0
# create's usage names the exec flags it refuses (README, Sessions).
kj create --help
like "$out" 'but --cwd, --tty, --no-tty and --stats' create_help_names_the_flags_it_refuses
# kjail exec -s NAME --help: the session exec's own usage, before any
# lookup of NAME (it said "unknown option --help", 125), with every
# per-exec flag the README's Sessions section lists.
kj exec -s kj-no-such-session --help
is "$rc|$err" "0|" session_exec_help_exits_0_before_the_lookup
for o in timeout kill-grace output-limit setenv cwd quiet create; do
	printf '%s\n' "$out" | grep -q -- "--$o" || echo "--$o"
done >"$T/session-help-missing"
is "$(cat "$T/session-help-missing")" "" session_exec_help_lists_every_per_exec_flag
# -s with no NAME before --help: the same usage, exit 0 (it took --help
# for the session name: "invalid session name '--help'", 125).
kj exec -s kj-no-such-session --help
want=$out
for a in "-s --help" "-s -h" "--session --help"; do
	# shellcheck disable=SC2086
	kj exec $a
	[ "$rc|$err|$out" = "0||$want" ] || echo "$a: $rc|$err"
done >"$T/session-help-noname"
is "$(cat "$T/session-help-noname")" "" session_exec_help_without_name_prints_usage_exit_0
kj exec --help
like "$out" '-s, --session NAME' exec_help_lists_the_session_flags
# Every description starts in column 33 (--landlock's values ran into it).
is "$(printf '%s\n' "$out" | grep -E '^  -' | grep -Ev '^  .{30} [^ ]|^  [^ ]+( [^ ]+)?$')" "" exec_help_descriptions_aligned
for h in -h --help help; do
	kj "$h"
	echo "$rc|${out%%$'\n'*}|$err"
done >"$T/help"
is "$(sort -u "$T/help")" "0|usage: kjail exec [OPTIONS] [--] COMMAND [ARG...]|" top_level_help_prints_usage_on_stdout_exit_0

kj
is "$rc:$out" "125:" no_subcommand_exits_125
like "$err" '^usage: kjail exec' no_subcommand_prints_usage_on_stderr

kj exec --help
is "$rc" 0 exec_help_exits_0
like "$out" '^usage: kjail exec \[OPTIONS\] \[--\] COMMAND' exec_help_prints_usage
like "$out" '--timeout DURATION' exec_help_lists_options
is "$err" "" exec_help_prints_nothing_on_stderr

# A missing COMMAND is not a bad option: the shell's 127, not kjail's 125.
PATH=/usr/sbin:/usr/bin:/sbin:/bin kj exec -- kjail-no-such-command-xyz
is "$rc" 127 missing_command_exits_127_not_125
kj exec -- sh -c 'exit 125'
is "$rc:$err" "125:" command_own_125_passed_through_silently

# stderr a pipe nobody reads: kjail's note or error line must not kill it
# with SIGPIPE (141), nor keep COMMAND from running, and COMMAND still
# gets SIGPIPE at its default.
closed_stderr() { as_caller python3 -c '
import os, subprocess, sys
r, w = os.pipe(); os.close(r)
print(subprocess.run(sys.argv[1:], stderr=w).returncode)' "$KJAIL" exec $KJ_EXEC_ARGS "$@"; }
is "$(closed_stderr --quiet -- nosuchcmd-kj)" 127 not_found_with_closed_stderr_is_127
is "$(closed_stderr --bogus-kj -- true)" 125 bad_option_with_closed_stderr_is_125
rm -f "$WS/ran-closed"
is "$(closed_stderr -- touch ran-closed)" 0 command_runs_with_closed_stderr
ok command_ran_with_closed_stderr test -e "$WS/ran-closed"
kj exec -- sh -c 'yes | head -c 2 >/dev/null; grep -c "^SigBlk:[[:space:]]*0*$" /proc/self/status'
is "$rc:$out" "0:1" command_signals_unblocked_and_sigpipe_default

# DIR[:DEST]: DEST starts at the last ':' followed by '/' (it is
# absolute); any other ':' belongs to DIR, which could not be given
# before (--workspace /x/run:2024 was DIR /x/run at DEST "2024").
mkdir -p "$T/run:2024" "$T/ro:dir" && echo seen >"$T/ro:dir/f"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/run:2024"
kj exec --workspace "$T/run:2024" -- sh -c 'pwd; touch here'
is "$rc:$out" "0:$T/run:2024" workspace_dir_with_colon_at_its_own_path
ok workspace_dir_with_colon_written_on_host test -e "$T/run:2024/here"
kj exec --workspace "$T/run:2024:/tmp/w" -- pwd
is "$rc:$out" "0:/tmp/w" workspace_dir_with_colon_and_dest
kj exec --ro "$T/ro:dir:/tmp/r" -- cat /tmp/r/f
is "$rc:$out" "0:seen" ro_dir_with_colon_and_dest
kj exec --workspace ":/tmp/w" -- true
like "$rc:$err" "^125:kjail: option: --workspace: invalid workspace ':/tmp/w' \(use DIR or DIR:DEST\)" workspace_empty_dir_before_dest_refused

done_testing
