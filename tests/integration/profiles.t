#!/bin/bash
# Profiles: built-in ones compiled in, files in /etc/kjail/profiles and
# ~/.config/kjail/profiles, include, `kjail profile list|show`, and what
# each built-in profile does in a real run.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../config-lib.sh"

# ---------------------------------------------------------- list and show

kje profile list
for p in agent ci default host strict; do
	like "$out" "^$p +built-in: " "profile_list_shows_builtin_$p"
done
sys_profile site 'limits best-effort'
user_profile mine '# mine: my own' 'quiet'
user_profile loose 'quiet'
chmod 0666 "$USER_DIR/profiles/loose.profile"
kje profile list
like "$out" "^site +/etc/kjail/profiles/site.profile" profile_list_shows_system_profile
like "$out" "^mine +~/.config/kjail/profiles/mine.profile: my own" profile_list_shows_user_profile_and_description
like "$out" "^loose +~/.config/kjail/profiles/loose.profile \(refused: .*writable by group or others" profile_list_marks_insecure_profile_refused
reset_config
# Only files --profile can name are listed: names are looked up in lower
# case, and are letters, digits, '-', '_' and '.' (not first).
user_profile MyProf 'quiet'
user_profile 'bad name' 'quiet'
user_profile .hidden 'quiet'
user_profile ok.name-1 'quiet'
kje profile list
unlike "$out" "MyProf|bad name|hidden" profile_list_skips_names_no_profile_can_have
like "$out" "^ok.name-1 +~/.config/kjail/profiles/ok.name-1.profile" profile_list_shows_valid_dotted_name
reset_config

kje profile show agent
is "$rc" 0 profile_show_agent_succeeds
like "$out" "^# profile agent: built-in agent.profile" profile_show_names_the_file
like "$out" "^output-limit 200000 +# built-in agent.profile:[0-9]+" profile_show_agent_output_limit_with_line
like "$out" "^timeout 120s +# built-in agent.profile:[0-9]+" profile_show_agent_timeout_with_line
like "$out" "^net none +# built-in default.profile:[0-9]+" profile_show_expands_include_with_its_file
kje profile show ci
like "$out" "^memory 4G " ci_profile_memory_4g
like "$out" "^pids 4096 " ci_profile_pids_4096
unlike "$out" "^(output-limit|net) " ci_profile_has_no_output_cap_and_leaves_network_to_caller
kje profile show strict
like "$out" "^workspace-ro " strict_profile_read_only_workspace
like "$out" "^net none " strict_profile_no_network
like "$out" "^seccomp strict " strict_profile_seccomp_allow_list
kje profile show host
like "$out" "^isolation none " host_profile_has_no_isolation
kje profile show default
unlike "$out" "output-limit|timeout" default_profile_is_exec_posture_without_caps

user_profile tokens 'setenv API_TOKEN=tok-123-secret' 'setenv PLAIN=visible' 'env-file /nonexistent/vault'
kje profile show tokens
unlike "$out" "tok-123-secret" profile_show_hides_secret_looking_values
like "$out" "setenv API_TOKEN=\(hidden\)" profile_show_names_hidden_variable
like "$out" "setenv PLAIN=visible" profile_show_shows_plain_values
user_profile badline 'net none' 'memory lots'
kje profile show badline
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/profiles/badline.profile:2: --memory: invalid size 'lots'" profile_show_validates_every_line
# The memory floor (1M) holds for profile lines as for flags; 0 swap
# ("no swap", the default) stays valid.
user_profile tiny 'memory 512'
kje profile show tiny
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/profiles/tiny.profile:1: --memory 512: a sandbox needs at least 1M" \
	profile_memory_below_floor_refused
kje exec --limits best-effort --profile tiny -- true
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/profiles/tiny.profile:1: --memory 512: a sandbox needs at least 1M" \
	profile_memory_below_floor_refused_before_a_run
user_profile floor 'memory 1M' 'memory-swap 0'
kje profile show floor
is "$rc:$err" "0:" profile_memory_at_floor_and_no_swap_accepted
rm -f "$USER_DIR"/profiles/{tiny,floor}.profile
kje profile show nosuch
like "$rc:$err" "^125:kjail: option: --profile: no profile 'nosuch'" profile_show_unknown_profile_refused
kje profile
is "$rc" 125 profile_without_subcommand_refused
reset_config

# ------------------------------------------------------------ search order

sys_profile both 'setenv FROM=system'
user_profile both 'setenv FROM=user'
user_profile only-user 'setenv FROM=user'
user_profile agent 'setenv FROM=user-agent'
# shellcheck disable=SC2086
kje exec $NOLIM --profile both -- sh -c 'echo $FROM'
is "$out" system system_profile_found_before_user_profile
# shellcheck disable=SC2086
kje exec $NOLIM --profile only-user -- sh -c 'echo $FROM'
is "$out" user user_profile_found
# shellcheck disable=SC2086
kje exec $NOLIM --profile agent -- sh -c 'echo $FROM'
is "$out" user-agent file_profile_shadows_builtin
# shellcheck disable=SC2086
kje exec $NOLIM --profile ONLY-USER -- sh -c 'echo $FROM'
is "$out" user profile_names_matched_case_insensitively
reset_config

# A profile by path, outside the workspace.
mkdir -p "$T/prof"
put "$T/prof/p.profile" "$KJ_OWNER" 0644 'setenv FROM=path'
# shellcheck disable=SC2086
kje exec $NOLIM --profile "$T/prof/p.profile" -- sh -c 'echo $FROM'
is "$rc:$out" "0:path" profile_by_path
kje exec --profile "$T/prof/nope.profile" -- true
like "$rc:$err" "^125:kjail: option: --profile: $T/prof/nope.profile: No such file or directory" profile_path_missing_refused

# ------------------------------------------------------------------ include

user_profile base 'setenv A=base' 'setenv B=base'
user_profile top 'include base' 'setenv B=top'
# shellcheck disable=SC2086
kje exec $NOLIM --profile top -- sh -c 'echo $A $B'
is "$out" "base top" include_expands_in_place_later_lines_win
user_profile loop-a 'include loop-b'
user_profile loop-b 'include loop-a'
kje exec --profile loop-a -- true
like "$rc:$err" "^125:kjail: profile: ~/.config/kjail/profiles/loop-b.profile:1: include loop: ~/.config/kjail/profiles/loop-a.profile is already being read" include_loop_refused
user_profile self 'include self'
kje exec --profile self -- true
like "$rc:$err" "^125:kjail: profile: .*self.profile:1: include loop" self_include_refused
for i in $(seq 0 9); do user_profile "deep$i" "include deep$((i + 1))"; done
user_profile deep10 'quiet'
kje exec --profile deep0 -- true
like "$rc:$err" "^125:kjail: profile: .*deep7.profile:1: includes nested more than 8 deep" include_depth_limited
user_profile missing-inc 'quiet' 'include nowhere'
kje exec --profile missing-inc -- true
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/profiles/missing-inc.profile:2: include: no profile 'nowhere'" unknown_include_refused_with_line
user_profile chooser 'profile agent'
kje exec --profile chooser -- true
like "$rc:$err" "^125:kjail: profile: ~/.config/kjail/profiles/chooser.profile:1: a profile cannot choose a profile \(write include NAME\)" profile_line_in_profile_refused
# A relative include path is read from the including file's directory,
# never from wherever kjail runs (where an earlier sandbox could have
# planted the file in its workspace).
user_profile rel 'include ./common.profile'
user_profile common 'setenv FROM=beside'
mkdir -p "$T/elsewhere"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/elsewhere"
put "$WS/common.profile" "$KJ_OWNER" 0644 'setenv FROM=cwd'
# shellcheck disable=SC2086
kje exec $NOLIM --profile rel -- sh -c 'echo $FROM'
is "$rc:$out" "0:beside" include_relative_path_read_beside_the_including_file
# shellcheck disable=SC2086
kje exec $NOLIM --workspace "$T/elsewhere" --profile rel -- sh -c 'echo $FROM'
is "$rc:$out" "0:beside" include_relative_path_never_read_from_current_directory
rm -f "$WS/common.profile" "$USER_DIR/profiles/common.profile"
kje exec --profile rel -- true
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/profiles/rel.profile:1: include: $USER_DIR/profiles/./common.profile: No such file or directory" \
	include_relative_path_missing_names_where_it_looked
user_profile bare-include 'include'
kje exec --profile bare-include -- true
like "$rc:$err" "^125:kjail: profile: .*bare-include.profile:1: include needs a profile name" include_without_name_refused
reset_config

# Every configuration file a run reads is checked to be out of the
# sandbox's reach, and at most 32 can be recorded for that check (the two
# settings files, looked for even when absent, count). The 33rd is refused,
# never dropped unchecked: with 29 fillers before it, a profile in the
# workspace would otherwise be read, and the sandbox could loosen its next run.
fill=()
for i in $(seq 1 29); do
	user_profile "fill$i" 'quiet'
	fill+=("include fill$i")
done
user_profile chain32 "${fill[@]}"
# shellcheck disable=SC2086
kje exec $NOLIM --profile chain32 -- true
is "$rc:$err" "0:" include_chain_of_32_files_runs
put "$WS/evil.profile" "$KJ_OWNER" 0644 'net host'
user_profile chain33 "${fill[@]}" "include $WS/evil.profile"
# shellcheck disable=SC2086
kje exec $NOLIM --profile chain33 -- touch "$WS/ran"
like "$rc:$err" "^125:kjail: settings: cannot use $WS/evil.profile: at most 32 configuration files can be read in one run \(include fewer profiles\)$" include_past_32_files_refused
ok include_past_32_files_never_runs_command test ! -e "$WS/ran"
rm -f "$WS/ran"
user_profile chain33-plain "${fill[@]}" 'include ci'
kje exec --profile chain33-plain -- true
like "$rc:$err" "^125:kjail: settings: cannot use built-in ci.profile: at most 32 configuration files" include_33rd_file_refused_even_if_harmless
rm -f "$WS/evil.profile"
reset_config

# `deny profile` sees the name of every profile a run reads: a profile
# that includes more than the list holds is refused, never cut short
# (profile show reads without the run's 32-file limit).
inc=()
for i in $(seq 1 64); do
	user_profile "n$i" 'quiet'
	inc+=("include n$i")
done
user_profile names64 "${inc[@]:1}"
kje profile show names64
is "$rc:$err" "0:" profile_with_64_names_shown
user_profile names65 "${inc[@]}"
kje profile show names65
like "$rc:$err" "^125:kjail: profile: ~/.config/kjail/profiles/n64.profile: more than 64 profiles are included \(include fewer profiles\)$" \
	profile_with_more_names_than_recorded_refused
reset_config

# A profile that is a symlink to nothing is an error, not "no such
# profile": a dangling link must not let the search fall through to a
# lower directory or a built-in of the same name.
ln -s "$T/nowhere/agent.profile" "$USER_DIR/profiles/agent.profile"
# shellcheck disable=SC2086
kje exec $NOLIM --profile agent -- touch "$WS/ran"
like "$rc:$err" "^125:kjail: profile: ~/.config/kjail/profiles/agent.profile is a dangling symlink to $T/nowhere/agent.profile: No such file or directory \(restore its target, or remove the link\)$" dangling_user_profile_refused
ok dangling_user_profile_never_runs_command test ! -e "$WS/ran"
rm -f "$WS/ran"
ln -s "$T/nowhere/both.profile" "$ETC_UP/kjail/profiles/both.profile"
user_profile both 'quiet'
# shellcheck disable=SC2086
kje exec $NOLIM --profile both -- touch "$WS/ran"
like "$rc:$err" "^125:kjail: profile: /etc/kjail/profiles/both.profile is a dangling symlink to $T/nowhere/both.profile" dangling_system_profile_not_shadowed_by_user_profile
ok dangling_system_profile_never_runs_command test ! -e "$WS/ran"
rm -f "$WS/ran"
kje profile list
like "$out" "^agent +~/.config/kjail/profiles/agent.profile \(refused: .*is a dangling symlink to $T/nowhere/agent.profile" profile_list_marks_dangling_profile_refused
ln -s "$T/nowhere/p.profile" "$T/dangling.profile"
kje exec --profile "$T/dangling.profile" -- true
like "$rc:$err" "^125:kjail: profile: $T/dangling.profile is a dangling symlink to $T/nowhere/p.profile" dangling_profile_path_refused
rm -f "$T/dangling.profile"
reset_config

# ------------------------------------------------- the built-ins in real runs

# default: limits required; here they may not be enforceable, and then the
# run fails closed instead of running unlimited.
kje exec --profile default -- true
if [ -n "$NOLIM" ]; then
	like "$rc:$err" "^125:kjail: cgroup: cannot enforce --memory 512M" default_profile_fails_closed_without_limits
else
	is "$rc" 0 default_profile_runs_with_limits
fi
kj exec --profile agent --timeout 1s -- sleep 5
is "$rc" 124 flag_timeout_overrides_agent_timeout
kj exec --timeout 1s --profile agent -- sleep 5
is "$rc" 124 flag_timeout_before_profile_overrides_too
kj exec --profile strict --limits best-effort --quiet -- sh -c 'touch x 2>&1; echo rc=$?'
like "$out" "Read-only file system" strict_profile_workspace_read_only
ok strict_profile_left_no_file test ! -e "$WS/x"
kj exec --profile strict --limits best-effort --quiet -- sh -c 'ls /sys/class/net'
is "$out" lo strict_profile_has_only_loopback
kj exec --workspace-ro --limits best-effort --quiet -- sh -c '(echo x > y) 2>&1; echo rc=$?'
like "$out" "Read-only file system" workspace_ro_flag
kj exec --profile strict --workspace-rw --limits best-effort --quiet -- sh -c 'echo x > y && cat y'
is "$out" x workspace_rw_flag_overrides_strict
rm -f "$WS/y"
kj exec --profile ci --net host --limits best-effort --quiet -- sh -c 'df -k /tmp | tail -1 | awk "{print \$2}"'
is "$out" 1048576 ci_profile_tmp_1g

# host: no namespaces; a warning on every run; still a scrubbed
# environment, a new session, the timeout and the output cap.
export HOST_SECRET_TOKEN=leak-me
kj exec --profile host -- sh -c 'echo "token=${HOST_SECRET_TOKEN:-}"; readlink /proc/self/ns/mnt'
is "$(printf '%s\n' "$out" | head -1)" "token=" host_profile_scrubs_environment
is "$(printf '%s\n' "$out" | tail -1)" "$(readlink /proc/self/ns/mnt)" host_profile_has_no_mount_namespace
is "$err" "kjail: profile host: no isolation, the environment is the boundary" host_profile_warns_on_every_run
kj exec --profile host --quiet -- true
is "$rc:$err" "0:" host_profile_warning_silenced_by_quiet
unset HOST_SECRET_TOKEN
kj exec --profile host --quiet -- sh -c 'echo $$; cut -d" " -f6 /proc/self/stat'
sid_line=$(printf '%s\n' "$out" | tail -1)
is "$sid_line" "$(printf '%s\n' "$out" | head -1)" host_profile_runs_command_in_new_session
start=$(date +%s)
# Durations unique to this test file's run ($$): other suites on the
# machine may have their own sleep 60.
kj exec --profile host --quiet --timeout 1s --kill-grace 1s -- sh -c "sleep 60.$$ & sleep 61.$$; wait"
end=$(date +%s)
is "$rc" 124 host_profile_enforces_timeout
ok "host_profile_timeout_is_prompt ($((end - start))s)" test $((end - start)) -le 5
ok host_profile_timeout_kills_whole_tree settles 5 sh -c "! pgrep -f '^sleep 6[01]\.$$\$' >/dev/null"
kj exec --profile host --quiet -- sh -c "setsid sleep 62.$$ </dev/null >/dev/null 2>&1 & echo bg"
ok host_profile_kills_what_command_leaves_behind settles 5 sh -c "! pgrep -f '^sleep 62\.$$\$' >/dev/null"
# kill -9 of kjail (a caller's own timeout, Python's Popen.kill): the
# keeper is not killed with it, sees kjail gone and kills what COMMAND
# started (it was killed too, and they ran on under the host's init).
if [ "$KJ_AS" = user ]; then
	setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups -- env HOME=/nonexistent \
		"$KJAIL" exec --profile host --quiet -- sh -c "setsid sleep 63.$$ & sleep 64.$$" \
		</dev/null >/dev/null 2>&1 &
else
	"$KJAIL" exec --profile host --quiet -- sh -c "setsid sleep 63.$$ & sleep 64.$$" \
		</dev/null >/dev/null 2>&1 &
fi
kjpid=$!
settles 5 sh -c "pgrep -f '^sleep 63\.$$\$' && pgrep -f '^sleep 64\.$$\$'" >/dev/null
kill -9 "$kjpid"
{ wait "$kjpid"; } 2>/dev/null
ok host_profile_kill_9_leaves_nothing settles 5 sh -c "! pgrep -f '^sleep 6[34]\.$$\$' >/dev/null"
for p in $(pgrep -f "^sleep 6[34]\.$$\$"); do kill "$p"; done

# kill -9 of kjail's whole process group (kill -9 %1 in a shell, kill -9
# -PGID, a harness's os.killpg): the keeper was in it, died with kjail,
# and COMMAND's tree (a session of its own) ran on under the host's init.
# The keeper leaves the group before COMMAND exists. kjail leads its own
# group here (setsid: a background job of this script shares the
# script's).
if [ "$KJ_AS" = user ]; then
	setsid setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups -- env HOME=/nonexistent \
		"$KJAIL" exec --profile host --quiet -- sh -c "setsid sleep 65.$$ & sleep 66.$$" \
		</dev/null >/dev/null 2>&1 &
else
	setsid "$KJAIL" exec --profile host --quiet -- sh -c "setsid sleep 65.$$ & sleep 66.$$" \
		</dev/null >/dev/null 2>&1 &
fi
kjpid=$!
settles 5 sh -c "pgrep -f '^sleep 65\.$$\$' && pgrep -f '^sleep 66\.$$\$'" >/dev/null
is "$(ps -o pgid= -p "$kjpid" | tr -d ' '):$(readlink "/proc/$kjpid/exe")" "$kjpid:$KJAIL" \
	host_profile_kjail_leads_its_process_group
kill -9 -- "-$kjpid"
{ wait "$kjpid"; } 2>/dev/null
ok host_profile_kill_9_of_process_group_leaves_nothing \
	settles 5 sh -c "! pgrep -f '^sleep 6[56]\.$$\$' >/dev/null"
for p in $(pgrep -f "^sleep 6[56]\.$$\$"); do kill "$p"; done
kj exec --profile host --quiet --output-limit 1000 -- sh -c 'yes | head -c 5000'
is "${#out}" 999 host_profile_caps_output
# --output-limit max lifts a profile's cap, and a settings file's; a
# profile line may say max too.
user_profile capped 'output-limit 100'
kje exec $NOLIM --profile capped -- sh -c 'yes | head -c 5000'
is "$rc:${#out}" "0:99" profile_output_limit_caps
kje exec $NOLIM --profile capped --output-limit max -- sh -c 'yes | head -c 5000'
is "$rc:${#out}:$err" "0:4999:" profile_output_limit_lifted_by_flag_max
user_settings 'output-limit 100'
user_profile uncapped 'output-limit max'
kje exec $NOLIM -- sh -c 'yes | head -c 5000'
is "$rc:${#out}" "0:99" settings_output_limit_caps
kje exec $NOLIM --output-limit max -- sh -c 'yes | head -c 5000'
is "$rc:${#out}:$err" "0:4999:" settings_output_limit_lifted_by_flag_max
kje exec $NOLIM --profile uncapped -- sh -c 'yes | head -c 5000'
is "$rc:${#out}:$err" "0:4999:" settings_output_limit_lifted_by_profile_max
rm -f "$USER_DIR/settings" "$USER_DIR"/profiles/{capped,uncapped}.profile
kj exec --profile host --quiet -- sh -c 'exit 7'
is "$rc" 7 host_profile_passes_exit_status
kj exec --profile host --quiet -- /nonexistent-command
is "$rc" 127 host_profile_command_not_found_127
# A pipe on stdin reaches COMMAND: the run has no mounts to watch (its
# stdin was read as the mount table, and the run killed, 137).
out=$(printf 'piped\n' | as_caller "$KJAIL" exec --profile host --quiet -- sh -c 'sleep 0.2; cat' 2>"$T/pipe.err")
rc=$?
err=$(grep -v 'not enforced' "$T/pipe.err")
is "$rc:$out:$err" "0:piped:" host_profile_reads_piped_stdin
kj exec --profile host --net none -- true
like "$rc:$err" "^125:kjail: option: --isolation none shares the host's network, so --net none cannot hold" host_profile_with_net_none_refused
kj exec --profile host --ro "$T/prof" -- true
like "$rc:$err" "^125:kjail: option: --ro needs the sandbox's namespaces" host_profile_with_bind_refused
kj exec --profile host --tty -- true
like "$rc:$err" "^125:kjail: option: --tty needs the sandbox's namespaces" host_profile_with_tty_refused

# ------------------------------------------------ $XDG_CONFIG_HOME/kjail
#
# With XDG_CONFIG_HOME set, NAME is looked up in its kjail/profiles (not
# in ~/.config/kjail/profiles), and a relative include is read from there.
XC=$T/xdgc
mkdir -p "$XC/kjail/profiles"
chown -R "$KJ_OWNER" "$XC"
chmod -R 0755 "$XC"
put "$XC/kjail/profiles/xp.profile" "$KJ_OWNER" 0644 '# xp: from XDG' 'include ./xcommon.profile' 'setenv P=xp'
put "$XC/kjail/profiles/xcommon.profile" "$KJ_OWNER" 0644 'setenv C=common'
user_profile xp 'setenv P=home'
# shellcheck disable=SC2086
XDG_CONFIG_HOME=$XC kje exec $NOLIM --profile xp -- sh -c 'echo "$P/${C:-}"'
is "$rc:$out" "0:xp/common" xdg_profile_found_with_relative_include_from_its_directory
XDG_CONFIG_HOME=$XC kje profile list
like "$out" "^xp +$XC/kjail/profiles/xp.profile: from XDG" profile_list_shows_xdg_profile
unlike "$out" "~/.config/kjail/profiles/xp.profile" profile_list_leaves_out_unread_home_profile
XDG_CONFIG_HOME=rel kje profile list
like "$rc:$out:$err" "^125::kjail: settings: XDG_CONFIG_HOME=rel is not an absolute path" \
	profile_list_refuses_relative_xdg_config_home
reset_config

done_testing
