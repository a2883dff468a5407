#!/bin/bash
# Settings and precedence: flag > KJAIL_PROFILE > user settings > system
# settings > built-in default; every value from every source through the
# same validator; files others could write are refused; nothing in the
# workspace is ever read as configuration.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../config-lib.sh"

# ------------------------------------------------------- precedence matrix
#
# Four sources, each present or not: system settings (profile psys),
# user settings (profile puser), KJAIL_PROFILE=penv, flags (--profile
# pflag). Each settings file and the flags also set WHO; each profile sets
# PROF and WHO. The effective profile is the highest one named; a profile's
# lines sit just below the lines of the source that chose it.
sys_profile psys 'setenv PROF=psys' 'setenv WHO=profile-psys'
sys_profile penv 'setenv PROF=penv' 'setenv WHO=profile-penv'
user_profile puser 'setenv PROF=puser' 'setenv WHO=profile-puser'
user_profile pflag 'setenv PROF=pflag' 'setenv WHO=profile-pflag'

expected() { # S U E F -> PROF/WHO
	local S=$1 U=$2 E=$3 F=$4 chosen=none who='' prof=''
	[ "$S" = 1 ] && chosen=S
	[ "$U" = 1 ] && chosen=U
	[ "$E" = 1 ] && chosen=E
	[ "$F" = 1 ] && chosen=F
	[ $chosen = S ] && who=profile-psys prof=psys
	[ "$S" = 1 ] && who=system
	[ $chosen = U ] && who=profile-puser prof=puser
	[ "$U" = 1 ] && who=user
	[ $chosen = E ] && who=profile-penv prof=penv
	[ $chosen = F ] && who=profile-pflag prof=pflag
	[ "$F" = 1 ] && who=flag
	echo "$prof/$who"
}

bad_rows=''
for m in $(seq 0 15); do
	S=$((m & 1)) U=$(((m >> 1) & 1)) E=$(((m >> 2) & 1)) F=$(((m >> 3) & 1))
	rm -f "$ETC_UP/kjail/settings" "$USER_DIR/settings"
	[ $S = 1 ] && sys_settings 'profile psys' 'setenv WHO=system'
	[ $U = 1 ] && user_settings 'profile puser' 'setenv WHO=user'
	flags=()
	[ $F = 1 ] && flags=(--setenv WHO=flag --profile pflag)
	if [ $E = 1 ]; then
		# shellcheck disable=SC2086
		KJAIL_PROFILE=penv kje exec $NOLIM "${flags[@]}" -- sh -c 'echo "$PROF/$WHO"'
	else
		# shellcheck disable=SC2086
		kje exec $NOLIM "${flags[@]}" -- sh -c 'echo "$PROF/$WHO"'
	fi
	want=$(expected $S $U $E $F)
	[ "$rc:$out" = "0:$want" ] || bad_rows="$bad_rows
S=$S U=$U E=$E F=$F: got $rc:$out, expected 0:$want ${err:+($err)}"
done
is "$bad_rows" "" precedence_matrix_all_16_combinations

# A scalar, not only repeatable --setenv: the higher source's value holds.
sys_settings 'tmp-size 2M'
user_settings 'tmp-size 3M'
# shellcheck disable=SC2086
kje exec $NOLIM -- sh -c 'df -k /tmp | tail -1 | awk "{print \$2}"'
is "$out" 3072 user_settings_override_system_settings_scalar
# shellcheck disable=SC2086
kje exec $NOLIM --tmp-size 4M -- sh -c 'df -k /tmp | tail -1 | awk "{print \$2}"'
is "$out" 4096 flag_overrides_settings_scalar
rm -f "$USER_DIR/settings"
# shellcheck disable=SC2086
kje exec $NOLIM -- sh -c 'df -k /tmp | tail -1 | awk "{print \$2}"'
is "$out" 2048 system_settings_apply_without_user_settings

# Flags win over the profile whatever their order on the command line.
sys_profile slow 'timeout 30s' 'setenv WHO=profile'
# shellcheck disable=SC2086
kje exec $NOLIM --setenv WHO=flag --profile slow -- sh -c 'echo $WHO'
is "$out" flag flag_before_profile_still_wins
# shellcheck disable=SC2086
kje exec $NOLIM --profile slow --setenv WHO=flag -- sh -c 'echo $WHO'
is "$out" flag flag_after_profile_wins
reset_config

# The README's example: the system settings choose agent and best-effort
# limits, the user's settings a shorter timeout than agent's 120s.
sys_settings 'profile agent' 'limits best-effort' 'quiet'
user_settings 'timeout 1s'
kje exec -- sleep 5
is "$rc" 124 readme_example_user_timeout_beats_profile_chosen_by_system
if [ -n "$NOLIM" ]; then
	# strict, chosen by KJAIL_PROFILE above both files, says limits required.
	KJAIL_PROFILE=strict kje exec -- true
	like "$rc:$err" "^125:kjail: cgroup: cannot enforce --memory 256M" readme_example_env_profile_beats_system_limits
else
	skip readme_example_env_profile_beats_system_limits "limits are enforceable here"
fi
reset_config

# -------------------------------- an invalid value is refused from every source

# The same wording everywhere; only the named source differs.
kje exec --net bogus -- true
like "$rc:$err" "^125:kjail: option: --net: invalid value 'bogus' \(valid values: none, host" invalid_value_from_flag
want_tail=${err#kjail: option: }
sys_settings '# system' 'net bogus'
kje exec -- true
is "$rc:$err" "125:kjail: option: /etc/kjail/settings:2: $want_tail" invalid_value_from_system_settings
reset_config
user_settings 'quiet' '' 'net bogus'
kje exec -- true
is "$rc:$err" "125:kjail: option: ~/.config/kjail/settings:3: $want_tail" invalid_value_from_user_settings
reset_config
sys_profile badnet 'net bogus'
KJAIL_PROFILE=badnet kje exec -- true
is "$rc:$err" "125:kjail: option: /etc/kjail/profiles/badnet.profile:1: $want_tail" invalid_value_from_profile_chosen_by_env
user_profile inc 'quiet' 'net bogus'
user_profile outer 'include inc'
kje exec --profile outer -- true
is "$rc:$err" "125:kjail: option: ~/.config/kjail/profiles/inc.profile:2: $want_tail" invalid_value_from_included_profile
reset_config

want_tail="--profile: invalid profile name 'no/such'"
kje exec --profile 'no such' -- true
is "$rc" 125 invalid_profile_name_from_flag_refused
like "$err" "^kjail: option: --profile: invalid profile name 'no such' \(" invalid_profile_name_from_flag_message
KJAIL_PROFILE='no such' kje exec -- true
like "$rc:$err" "^125:kjail: option: KJAIL_PROFILE: --profile: invalid profile name 'no such' \(" invalid_profile_name_from_env_same_wording
KJAIL_PROFILE=nosuch kje exec -- true
like "$rc:$err" "^125:kjail: option: KJAIL_PROFILE: --profile: no profile 'nosuch' \(built-in profiles: agent, ci, default, host, strict" unknown_profile_from_env_lists_valid_ones
user_settings 'profile nosuch'
KJAIL_PROFILE=agent kje exec -- true
like "$rc:$err" "^125:kjail: option: ~/.config/kjail/settings:1: --profile: no profile 'nosuch'" unknown_profile_refused_even_where_overridden
reset_config
KJAIL_PROFILE= kje exec -- true
like "$rc:$err" "^125:kjail: option: KJAIL_PROFILE: --profile: empty value" empty_kjail_profile_refused_not_ignored

sys_settings 'memory lots'
kje exec -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: --memory: invalid size 'lots'" invalid_size_in_settings_refused
sys_settings 'memory 1'
kje exec --limits best-effort -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: --memory 1: a sandbox needs at least 1M" memory_below_floor_in_settings_refused
sys_settings 'timeout soon'
kje exec -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: --timeout: invalid duration 'soon'" invalid_duration_in_settings_refused
# The same duration parser as the flag: its resolution message, its units
# in any case.
sys_settings 'timeout 0.0001'
kje exec -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: --timeout: '0.0001' is finer than kjail's resolution of 1 ms" \
	duration_below_one_ms_in_settings_names_the_resolution
sys_settings 'timeout 30S' 'kill-grace 2M'
kje exec $NOLIM -- true
is "$rc:$err" "0:" duration_units_upper_case_in_settings_accepted
sys_settings 'no-such-option 1'
kje exec -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: unknown option --no-such-option" unknown_option_in_settings_refused
sys_settings 'tty yes'
kje exec -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: --tty takes no value" flag_with_value_in_settings_refused
sys_settings 'timeout'
kje exec -- true
like "$rc:$err" "^125:kjail: option: /etc/kjail/settings:1: --timeout needs a value" option_without_value_in_settings_refused
sys_settings '--net none'
kje exec -- true
like "$rc:$err" "^125:kjail: settings: /etc/kjail/settings:1: '--net' is not an option line \(write an option without its dashes" dashes_in_settings_refused
sys_settings 'net=none'
kje exec -- true
like "$rc:$err" "^125:kjail: settings: /etc/kjail/settings:1: 'net=none' is not an option line" name_equals_value_in_settings_refused
sys_settings 'include agent'
kje exec -- true
like "$rc:$err" "^125:kjail: settings: /etc/kjail/settings:1: include is for profiles" include_in_settings_refused
reset_config

# ----------------------------------------------------------- case-insensitive

sys_settings 'limits Best-Effort' 'net NONE' 'quiet'
kje exec --memory 64M -- sh -c 'cat /sys/class/net/*/operstate 2>/dev/null | wc -l'
is "$rc:$out" "0:1" enum_values_case_insensitive_in_settings
reset_config
# shellcheck disable=SC2086
# (the captured output loses its final newline: 199999)
KJAIL_PROFILE=AGENT kje exec $NOLIM -- sh -c 'yes | head -c 300000'
is "$rc:${#out}:$err" "0:199999:kjail: stdout truncated after 200000 bytes (100000 bytes dropped)" profile_name_case_insensitive_from_env
# shellcheck disable=SC2086
kje exec $NOLIM --profile Host --quiet -- sh -c 'echo ran'
is "$rc:$out" "0:ran" profile_name_case_insensitive_from_flag

# ------------------------------------------------------------ insecure files

marker=$WS/ran
refused_file() { # name regex
	rm -f "$marker"
	kje exec --limits best-effort --quiet -- touch "$marker"
	if [ "$rc" = 125 ] && [ ! -e "$marker" ] && printf '%s' "$err" | grep -Eq -- "$2"; then
		_report 0 "$1"
	else
		_report 1 "$1" "rc=$rc err=$err ran=$([ -e "$marker" ] && echo yes || echo no)"
	fi
}

user_settings 'quiet'
chmod 0664 "$USER_DIR/settings"
refused_file group_writable_user_settings_refused \
	"^kjail: settings: ~/.config/kjail/settings is writable by group or others \(mode 0664\) \(chmod go-w ~/.config/kjail/settings\)$"
chmod 0646 "$USER_DIR/settings"
refused_file world_writable_user_settings_refused "writable by group or others \(mode 0646\)"
chmod 0644 "$USER_DIR/settings"
chown 12345 "$USER_DIR/settings"
refused_file user_settings_of_another_user_refused \
	"^kjail: settings: ~/.config/kjail/settings is owned by uid 12345, neither root nor you"
chown root "$USER_DIR/settings"
kje exec --limits best-effort --quiet -- true
is "$rc:$err" "0:" user_settings_owned_by_root_accepted
chown "$KJ_OWNER" "$USER_DIR/settings"
chmod 0777 "$USER_DIR"
refused_file user_settings_in_world_writable_directory_refused \
	"^kjail: settings: the directory ~/.config/kjail is writable by group or others"
chmod 0755 "$USER_DIR"
# A symlink is as good as the file to whoever can replace it: one sitting
# in a directory others can write chooses what is read.
mkdir -p "$T/safe"
put "$T/safe/settings" "$KJ_OWNER" 0644 'quiet'
rm -f "$USER_DIR/settings"
ln -s "$T/safe/settings" "$USER_DIR/settings"
chmod 0777 "$USER_DIR"
refused_file settings_symlink_in_world_writable_directory_refused \
	"^kjail: settings: the directory ~/.config/kjail is writable by group or others \(chmod go-w ~/.config/kjail\)$"
chmod 0755 "$USER_DIR"
mv "$USER_DIR/settings" "$T/safe/link"
mkdir -p "$T/open"
chmod 0777 "$T/open"
ln -s "$T/safe/link" "$T/open/link"
ln -s "$T/open/link" "$USER_DIR/settings"
refused_file settings_through_link_in_world_writable_directory_refused \
	"^kjail: settings: the directory $T/open is writable by group or others"
rm -f "$USER_DIR/settings" "$T/open/link" "$T/safe/link"
ln -s "$T/safe/settings" "$USER_DIR/settings"
kje exec --limits best-effort -- true
is "$rc:$err" "0:" settings_symlink_in_private_directory_accepted
user_profile lp 'quiet'
mv "$USER_DIR/profiles/lp.profile" "$T/safe/lp.profile"
ln -s "$T/safe/lp.profile" "$USER_DIR/profiles/lp.profile"
chmod 0777 "$USER_DIR/profiles"
kje exec --limits best-effort --profile lp -- true
like "$rc:$err" "^125:kjail: profile: the directory ~/.config/kjail/profiles is writable by group or others" profile_symlink_in_world_writable_directory_refused
chmod 0755 "$USER_DIR/profiles"
rm -f "$USER_DIR/settings"
mkfifo "$USER_DIR/settings"
chown "$KJ_OWNER" "$USER_DIR/settings"
refused_file fifo_as_settings_refused_without_hanging "is not a regular file"
rm -f "$USER_DIR/settings"
reset_config

# A directory above ~/.config/kjail that another user can change lets them
# swap the caller's settings for a tree of their choosing, or hide them
# (and a run goes without what they restricted): refused, whether the
# file is there or not, naming the directory and the fix. A sticky one
# owned by root (as /tmp is) is fine, as $T's own /tmp shows throughout.
# home_below DIR MODE OWNER: KJ_HOME becomes DIR/home (the caller's,
# with ~/.config/kjail/profiles), DIR made with MODE and OWNER.
saved_home=$KJ_HOME
home_below() {
	mkdir -p "$1/home/.config/kjail/profiles"
	chown -R "$KJ_OWNER" "$1/home"
	chmod -R 0755 "$1/home"
	chown "$3" "$1"
	chmod "$2" "$1"
	KJ_HOME=$1/home USER_DIR=$1/home/.config/kjail
}
home_below "$T/shared" 0777 root
user_settings 'quiet'
refused_file settings_below_world_writable_ancestor_refused \
	"^kjail: settings: $T/shared \(on the way to ~/.config/kjail/settings\) is writable by group or others \(mode 0777\): another user could replace or hide what is below it \(chmod go-w $T/shared\)$"
rm -f "$USER_DIR/settings"
refused_file absent_settings_below_world_writable_ancestor_refused \
	"^kjail: settings: $T/shared \(on the way to ~/.config/kjail/settings\) is writable by group or others"
home_below "$T/shared" 0755 root
chmod 0777 "$USER_DIR"
refused_file absent_settings_in_world_writable_directory_refused \
	"^kjail: settings: ~/.config/kjail \(on the way to ~/.config/kjail/settings\) is writable by group or others"
chmod 0755 "$USER_DIR"
chmod 0777 "$USER_DIR/profiles"
kje exec --limits best-effort --profile default -- true
like "$rc:$err" "^125:kjail: profile: ~/.config/kjail/profiles \(on the way to ~/.config/kjail/profiles/default.profile\) is writable by group or others" \
	absent_user_profile_in_world_writable_directory_refused
chmod 0755 "$USER_DIR/profiles"
home_below "$T/stickyother" 1777 12345
user_settings 'quiet'
refused_file settings_below_sticky_ancestor_of_another_user_refused \
	"^kjail: settings: $T/stickyother \(on the way to ~/.config/kjail/settings\) is owned by uid 12345: that user could replace or hide what is below it"
home_below "$T/stickyroot" 1777 root
user_settings 'quiet'
kje exec --limits best-effort --quiet -- true
is "$rc:$err" "0:" settings_below_sticky_root_ancestor_accepted
KJ_HOME=$saved_home USER_DIR=$saved_home/.config/kjail
reset_config

sys_settings 'quiet'
chown 12345 "$ETC_UP/kjail/settings"
refused_file system_settings_not_owned_by_root_refused \
	"^kjail: settings: /etc/kjail/settings is owned by uid 12345, not root"
chown root "$ETC_UP/kjail/settings"
chmod 0664 "$ETC_UP/kjail/settings"
refused_file group_writable_system_settings_refused "^kjail: settings: /etc/kjail/settings is writable by group or others"
reset_config

sys_profile loose 'quiet'
chmod 0666 "$ETC_UP/kjail/profiles/loose.profile"
kje exec --profile loose -- true
like "$rc:$err" "^125:kjail: profile: /etc/kjail/profiles/loose.profile is writable by group or others" insecure_profile_refused
reset_config

# ------------------------------------------- a value a flag replaces

# A settings line a flag overrides is still validated, as the value in
# force would be: a workspace that is /, the home directory or a file, or
# a root that is no directory, is an error there too (it was taken
# silently when a flag replaced it).
marker=$WS/ran
replaced_refused() { # name regex flag...
	local name=$1 re=$2
	shift 2
	rm -f "$marker"
	kje exec --limits best-effort --quiet "$@" -- touch "$marker"
	if [ "$rc" = 125 ] && [ ! -e "$marker" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		printf '%s' "$err" | grep -Eq -- "$re"; then
		_report 0 "$name"
	else
		_report 1 "$name" "rc=$rc err=$err ran=$([ -e "$marker" ] && echo yes || echo no)"
	fi
}
user_settings 'workspace /'
replaced_refused replaced_settings_workspace_root_refused \
	"^kjail: workspace: --workspace / \(replaced by a later --workspace\): cannot bind the whole host root / \(bind a project directory instead\)$" \
	--workspace "$WS"
user_settings "workspace $KJ_HOME"
replaced_refused replaced_settings_workspace_home_refused \
	"^kjail: workspace: --workspace $KJ_HOME \(replaced by a later --workspace\): $KJ_HOME is the home directory" \
	--workspace "$WS"
sys_settings 'workspace /etc/passwd'
rm -f "$USER_DIR/settings"
replaced_refused replaced_settings_workspace_file_refused \
	"^kjail: option: --workspace /etc/passwd \(replaced by a later --workspace\): Not a directory" \
	--workspace "$WS"
sys_settings 'root /etc/passwd'
replaced_refused replaced_settings_root_file_refused \
	"^kjail: option: --root /etc/passwd \(replaced by a later --root\): Not a directory" \
	--root /
user_settings 'env-file /etc'
rm -f "$ETC_UP/kjail/settings"
replaced_refused replaced_settings_env_file_directory_refused \
	"^kjail: option: --env-file /etc \(replaced by a later --env-file\) is not a regular file" \
	--env-file /nonexistent-final
# A valid value a flag replaces is no error.
mkdir -p "$T/other-ws"
chown "$KJ_OWNER" "$T/other-ws"
user_settings "workspace $T/other-ws"
rm -f "$marker"
kje exec --limits best-effort --quiet --workspace "$WS" -- touch "$marker"
is "$rc:$err:$([ -e "$marker" ] && echo ran)" "0::ran" replaced_settings_workspace_valid_accepted
rm -f "$marker"
reset_config

# ------------------------------------- nothing in the workspace is configuration

# A settings file or a profile placed in the workspace (where a sandbox
# can write) is never looked for there...
mkdir -p "$WS/.config/kjail/profiles" "$WS/.kjail" "$WS/profiles"
for f in "$WS/settings" "$WS/.kjail/settings" "$WS/.config/kjail/settings" "$WS/kjail.settings"; do
	echo 'setenv WHO=workspace' >"$f"
done
for f in "$WS/wsprof.profile" "$WS/profiles/wsprof.profile" "$WS/.config/kjail/profiles/wsprof.profile"; do
	echo 'setenv WHO=workspace' >"$f"
done
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS"
# shellcheck disable=SC2086
kje exec $NOLIM -- sh -c 'echo "who=$WHO"'
is "$rc:$out" "0:who=" settings_in_workspace_ignored
kje exec --profile wsprof -- true
like "$rc:$err" "^125:kjail: option: --profile: no profile 'wsprof'" profile_name_never_searched_in_workspace
# ... and refused when named explicitly, or reached through a link.
kje exec --profile "$WS/wsprof.profile" -- true
like "$rc:$err" "^125:kjail: settings: $WS/wsprof.profile is inside the workspace $WS, which the sandbox can write" profile_path_in_workspace_refused
# A profile planted in the current directory (the default workspace) that
# moves the workspace elsewhere escaped the check, which looked only at
# the workspace it chose: refused, by path and through KJAIL_PROFILE.
mkdir -p "$T/elsewhere"
printf 'setenv WHO=planted\nworkspace %s\n' "$T/elsewhere" >"$WS/moves.profile"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/moves.profile" "$T/elsewhere"
kje exec --profile ./moves.profile -- sh -c 'echo "who=$WHO"'
like "$rc:$err" "^125:kjail: settings: $WS/moves.profile is inside the current directory $WS, the default workspace" \
	profile_moving_workspace_away_refused
KJAIL_PROFILE=./moves.profile kje exec --limits best-effort -- sh -c 'echo "who=$WHO"'
like "$rc:$out:$err" "^125::kjail: settings: $WS/moves.profile is inside the current directory" \
	profile_moving_workspace_away_refused_from_env
# The caller naming the workspace is the caller's choice.
kje exec --limits best-effort --workspace "$T/elsewhere" --profile "$WS/moves.profile" -- sh -c 'echo "who=$WHO"'
is "$rc:$out" "0:who=planted" profile_outside_chosen_workspace_read
# A link planted in the workspace to a profile outside it: refused.
printf 'setenv WHO=linked\n' >"$T/loose.profile"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/loose.profile"
ln -s "$T/loose.profile" "$WS/link.profile"
kje exec --profile ./link.profile -- sh -c 'echo "who=$WHO"'
like "$rc:$err" "^125:kjail: settings: --profile ./link.profile: $WS/link.profile is a symlink inside $WS, which the sandbox can write" \
	profile_link_planted_in_workspace_refused
rm -f "$WS/moves.profile" "$WS/link.profile"
ln -s "$WS/settings" "$USER_DIR/settings"
kje exec --limits best-effort -- true
like "$rc:$err" "^125:kjail: settings: $WS/settings is inside the workspace" settings_symlink_into_workspace_refused
rm -f "$USER_DIR/settings"
# A settings file (or the policy, or the directory holding them) that is a
# symlink to nothing is an error, never "no file": taking it as absent
# would silently drop everything it sets.
ln -s "$T/nowhere/settings" "$USER_DIR/settings"
kje exec --limits best-effort -- touch "$WS/ran"
like "$rc:$err" "^125:kjail: settings: ~/.config/kjail/settings is a dangling symlink to $T/nowhere/settings: No such file or directory \(restore its target, or remove the link\)$" dangling_user_settings_refused
ok dangling_user_settings_never_runs_command test ! -e "$WS/ran"
rm -f "$WS/ran" "$USER_DIR/settings"
mv "$USER_DIR" "$T/kjail-dir"
ln -s "$T/nowhere/kjail" "$USER_DIR"
kje exec --limits best-effort -- true
like "$rc:$err" "^125:kjail: settings: ~/.config/kjail is a dangling symlink to $T/nowhere/kjail" dangling_user_config_dir_refused
rm -f "$USER_DIR"
mv "$T/kjail-dir" "$USER_DIR"
ln -s "/nonexistent-kjail-policy-$$" "$ETC_UP/kjail/policy"
kje exec --limits best-effort -- touch "$WS/ran"
like "$rc:$err" "^125:kjail: policy: /etc/kjail/policy is a dangling symlink to /nonexistent-kjail-policy-$$" dangling_policy_refused
ok dangling_policy_never_runs_command test ! -e "$WS/ran"
rm -f "$WS/ran" "$ETC_UP/kjail/policy"
# shellcheck disable=SC2086
kje exec $NOLIM -- true
is "$rc:$err" "0:" absent_settings_and_policy_are_fine
mkdir -p "$T/grant"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/grant"
put "$T/grant/p.profile" "$KJ_OWNER" 0644 'quiet'
kje exec --limits best-effort --rw "$T/grant" --profile "$T/grant/p.profile" -- true
like "$rc:$err" "^125:kjail: settings: $T/grant/p.profile is inside --rw $T/grant, which the sandbox can write" profile_in_write_grant_refused
# The same places under another name (a bind mount of the workspace, or
# of ~/.config/kjail): a configuration file there was read, and a
# workspace that was ~/.config/kjail let the sandbox write the next run's
# settings and shadow built-in profiles. Refused as by name, and nothing
# is written.
mkdir -p "$T/wsalias" "$T/cfgalias"
if mount --bind "$WS" "$T/wsalias" && mount --bind "$USER_DIR" "$T/cfgalias"; then
	put "$WS/a.profile" "$KJ_OWNER" 0644 'setenv WHO=planted'
	kje exec --limits best-effort --profile "$T/wsalias/a.profile" -- sh -c 'echo "who=$WHO"'
	like "$rc:$err" "^125:kjail: settings: $T/wsalias/a.profile is inside the workspace $WS, which the sandbox can write" \
		profile_in_workspace_through_bind_alias_refused
	printf 'setenv WHO=planted\nworkspace %s\n' "$T/elsewhere" >"$WS/moves.profile"
	[ "$KJ_AS" = user ] && chown "$KJ_USER" "$WS/moves.profile"
	kje exec --limits best-effort --profile "$T/wsalias/moves.profile" -- sh -c 'echo "who=$WHO"'
	like "$rc:$err" "^125:kjail: settings: $T/wsalias/moves.profile is inside the current directory $WS, the default workspace" \
		profile_moving_workspace_away_through_bind_alias_refused
	put "$WS/a.env" "$KJ_OWNER" 0600 'WHO=planted'
	kje exec --limits best-effort --env-file "$T/wsalias/a.env" -- sh -c 'echo "who=$WHO"'
	like "$rc:$err" "^125:kjail: settings: $T/wsalias/a.env is inside the workspace $WS" \
		env_file_in_workspace_through_bind_alias_refused
	put "$WS/a.policy" "$KJ_OWNER" 0644 '@default allow'
	kje exec --limits best-effort --seccomp "$T/wsalias/a.policy" -- true
	like "$rc:$err" "^125:kjail: seccomp: --seccomp $T/wsalias/a.policy is inside the workspace $WS" \
		seccomp_file_in_workspace_through_bind_alias_refused
	put "$WS/hosts" "$KJ_OWNER" 0644 '127.0.0.1 a.test'
	kje exec --limits best-effort --net proxy --allow-host a.test --net-hosts "$T/wsalias/hosts" -- true
	like "$rc:$err" "^125:kjail: settings: $T/wsalias/hosts is inside the workspace $WS" \
		net_hosts_in_workspace_through_bind_alias_refused
	rm -f "$WS/a.profile" "$WS/moves.profile" "$WS/a.env" "$WS/a.policy" "$WS/hosts"
	kje exec --limits best-effort --workspace "$T/cfgalias" -- sh -c 'echo net host >settings'
	like "$rc:$err" "^125:kjail: settings: the workspace $T/cfgalias shows ~/.config/kjail/profiles under another name, which the sandbox could then write" \
		config_dir_as_workspace_through_bind_alias_refused
	ok config_dir_through_bind_alias_not_written test ! -e "$USER_DIR/settings"
	kje exec --limits best-effort --rw "$T/cfgalias" -- true
	like "$rc:$err" "^125:kjail: settings: --rw $T/cfgalias shows ~/.config/kjail/profiles under another name" \
		config_dir_as_write_grant_through_bind_alias_refused
	# The session directory too (its records set an exec's timeout and
	# output cap): by name a grant's view of it is masked, under another
	# name the command made it, 0755, and could plant a record there.
	# The unprivileged lane's is $XDG_RUNTIME_DIR/kjail; root's is
	# /run/kjail, not the test's to bind.
	if [ "$KJ_AS" = user ]; then
		mkdir -p "$T/xdg" "$T/xdgalias" && chown "$KJ_USER" "$T/xdg" && chmod 700 "$T/xdg"
		mount --bind "$T/xdg" "$T/xdgalias"
		XDG_RUNTIME_DIR=$T/xdg kje exec --limits best-effort --workspace "$T/xdgalias" -- mkdir kjail
		like "$rc:$err" "^125:kjail: settings: the workspace $T/xdgalias shows $T/xdg/kjail under another name" \
			session_dir_through_bind_alias_refused
		ok session_dir_through_bind_alias_not_made test ! -e "$T/xdg/kjail"
		umount "$T/xdgalias"
	else
		skip session_dir_through_bind_alias_refused "root's session directory is /run/kjail, not the test's to bind"
		skip session_dir_through_bind_alias_not_made "root's session directory is /run/kjail, not the test's to bind"
	fi
else
	for t in profile_in_workspace_through_bind_alias_refused \
		profile_moving_workspace_away_through_bind_alias_refused \
		env_file_in_workspace_through_bind_alias_refused \
		seccomp_file_in_workspace_through_bind_alias_refused \
		net_hosts_in_workspace_through_bind_alias_refused \
		config_dir_as_workspace_through_bind_alias_refused \
		config_dir_through_bind_alias_not_written \
		config_dir_as_write_grant_through_bind_alias_refused \
		session_dir_through_bind_alias_refused session_dir_through_bind_alias_not_made; do
		skip "$t" "cannot bind-mount here"
	done
fi
umount "$T/cfgalias" 2>/dev/null
umount "$T/wsalias" 2>/dev/null
# kjail's own configuration is masked inside every sandbox.
user_settings 'quiet'
# shellcheck disable=SC2086
kje exec $NOLIM -- sh -c "cat $USER_DIR/settings 2>&1; ls -A $USER_DIR 2>&1; echo end"
unlike "$out" "quiet|settings$" user_config_dir_masked_inside
reset_config

# ---------------------------------------------------------- XDG_CONFIG_HOME
#
# XDG_CONFIG_HOME set and not empty moves the caller's configuration
# directory to $XDG_CONFIG_HOME/kjail (the XDG Base Directory spec), and
# every rule of ~/.config/kjail goes with it. xdg_dir DIR: XC=DIR, with
# DIR/kjail/profiles the caller's, 0755.
xdg_dir() {
	mkdir -p "$1/kjail/profiles"
	chown -R "$KJ_OWNER" "$1"
	chmod -R 0755 "$1"
	XC=$1
}
xdg_settings() { put "$XC/kjail/settings" "$KJ_OWNER" 0644 "$@"; }
xdg_dir "$T/xdgc"
xdg_settings 'setenv WHO=xdg'
user_settings 'setenv WHO=home'
# shellcheck disable=SC2086
XDG_CONFIG_HOME=$XC kje exec $NOLIM -- sh -c "echo who=\$WHO; cat $XC/kjail/settings 2>/dev/null; ls -A $XC/kjail 2>/dev/null; echo end"
is "$rc:$out" "0:who=xdg
end" xdg_settings_read_and_masked_inside
rm -f "$XC/kjail/settings"
# shellcheck disable=SC2086
XDG_CONFIG_HOME=$XC kje exec $NOLIM -- sh -c 'echo who=$WHO'
is "$rc:$out" "0:who=" home_settings_not_read_when_xdg_config_home_elsewhere
# ... and the run says so, once, on stderr (--quiet silences it); a
# kjail exec with XDG_CONFIG_HOME unset reads it and says nothing.
unread_note="kjail: settings: ~/.config/kjail/settings is not read (XDG_CONFIG_HOME is set): move its lines to $XC/kjail/settings"
is "$err" "$unread_note" exec_notes_unread_home_settings
# shellcheck disable=SC2086
XDG_CONFIG_HOME=$XC kje exec $NOLIM --quiet -- true
is "$rc:$err" "0:" exec_quiet_silences_unread_home_settings_note
# shellcheck disable=SC2086
kje exec $NOLIM -- sh -c 'echo who=$WHO'
is "$rc:$out:$err" "0:who=home:" home_settings_read_without_xdg_no_note
# kjail doctor names the file it reads, and warns of the one it does not.
xdg_settings 'quiet'
XDG_CONFIG_HOME=$XC kje doctor --limits best-effort
like "$out" "warn +settings +/etc/kjail/settings: absent; $XC/kjail/settings: read; ~/.config/kjail/settings: there, not read \(XDG_CONFIG_HOME is set\) \(fix: move its lines to $XC/kjail/settings\)" \
	doctor_names_xdg_settings_and_warns_of_unread_home_settings
# Relative, it is invalid (the spec): refused, never ignored (the run
# would go without the caller's settings), never read from the current
# directory (the workspace).
XDG_CONFIG_HOME=rel refused_file relative_xdg_config_home_refused \
	"^kjail: settings: XDG_CONFIG_HOME=rel is not an absolute path \(make it an absolute path, or unset it\)$"
# A grant that holds $XDG_CONFIG_HOME/kjail, there or not yet: the sandbox
# would write the next run's settings. Refused by name and under another
# name (a bind mount), as ~/.config/kjail is.
rm -rf "$XC/kjail"
XDG_CONFIG_HOME=$XC kje exec --limits best-effort --workspace "$XC" -- sh -c 'mkdir -p kjail && echo "net host" >kjail/settings'
like "$rc:$err" "^125:kjail: settings: the workspace $XC holds $XC/kjail/profiles, which the sandbox could then write" \
	workspace_holding_absent_xdg_config_dir_refused
ok xdg_config_dir_not_made_by_the_sandbox test ! -e "$XC/kjail"
XDG_CONFIG_HOME=$XC kje exec --limits best-effort --rw "$XC" -- true
like "$rc:$err" "^125:kjail: settings: --rw $XC holds $XC/kjail/profiles, which the sandbox could then write" \
	write_grant_holding_absent_xdg_config_dir_refused
xdg_dir "$T/xdgc"
mkdir -p "$T/xcalias"
if mount --bind "$XC/kjail" "$T/xcalias"; then
	XDG_CONFIG_HOME=$XC kje exec --limits best-effort --workspace "$T/xcalias" -- sh -c 'echo "net host" >settings'
	like "$rc:$err" "^125:kjail: settings: the workspace $T/xcalias shows $XC/kjail/profiles under another name, which the sandbox could then write" \
		xdg_config_dir_as_workspace_through_bind_alias_refused
	ok xdg_config_dir_through_bind_alias_not_written test ! -e "$XC/kjail/settings"
	umount "$T/xcalias"
else
	skip xdg_config_dir_as_workspace_through_bind_alias_refused "cannot bind-mount here"
	skip xdg_config_dir_through_bind_alias_not_written "cannot bind-mount here"
fi
# A directory above it that another user can change: refused, the file
# there or not (they could swap or hide it).
mkdir -p "$T/open"
chmod 0777 "$T/open"
xdg_dir "$T/open/xdg"
xdg_settings 'quiet'
XDG_CONFIG_HOME=$XC refused_file xdg_settings_below_world_writable_ancestor_refused \
	"^kjail: settings: $T/open \(on the way to $XC/kjail/settings\) is writable by group or others \(mode 0777\): another user could replace or hide what is below it \(chmod go-w $T/open\)$"
rm -f "$XC/kjail/settings"
XDG_CONFIG_HOME=$XC refused_file absent_xdg_settings_below_world_writable_ancestor_refused \
	"^kjail: settings: $T/open \(on the way to $XC/kjail/settings\) is writable by group or others"
reset_config

# ------------------------------------ configuration reached through a symlink
#
# ~/.config/kjail/profiles, or one profile in it, linked into a project (a
# usual dotfiles layout): a run in that project could rewrite the profile,
# and a later run anywhere load it. Refused where the sandbox could write
# the target, there or not yet; accepted elsewhere.
mkdir -p "$T/proj/prof" "$T/elsewhere"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$T/proj" "$T/elsewhere"
rm -rf "$USER_DIR/profiles"
ln -s "$T/proj/prof" "$USER_DIR/profiles"
kje exec --limits best-effort --quiet --workspace "$T/proj" -- sh -c 'echo "isolation none" >prof/evil.profile'
like "$rc:$err" "^125:kjail: settings: the workspace $T/proj holds $T/proj/prof, which ~/.config/kjail/profiles leads to through a symlink: the sandbox could write it, and a later run read it \(" \
	profiles_dir_linked_into_workspace_refused
ok profiles_dir_linked_into_workspace_not_written test ! -e "$T/proj/prof/evil.profile"
kje exec --limits best-effort --quiet --workspace "$T/elsewhere" --rw "$T/proj" -- true
like "$rc:$err" "^125:kjail: settings: --rw $T/proj holds $T/proj/prof, which ~/.config/kjail/profiles leads to" \
	profiles_dir_linked_into_rw_grant_refused
kje exec --limits best-effort --quiet --workspace "$T/elsewhere" -- true
is "$rc:$err" "0:" profiles_dir_linked_elsewhere_accepted
rm "$USER_DIR/profiles"
mkdir "$USER_DIR/profiles"
chown "$KJ_OWNER" "$USER_DIR/profiles"
ln -s "$T/proj/build.profile" "$USER_DIR/profiles/build.profile"
kje exec --limits best-effort --quiet --workspace "$T/proj" -- sh -c 'echo "isolation none" >build.profile'
like "$rc:$err" "^125:kjail: settings: the workspace $T/proj holds $T/proj/build.profile, which ~/.config/kjail/profiles/build.profile leads to through a symlink" \
	dangling_profile_link_into_workspace_refused
ok dangling_profile_link_target_not_written test ! -e "$T/proj/build.profile"
rm "$USER_DIR/profiles/build.profile"
# Relative, and through a second link that leads nowhere yet.
ln -s "$T/proj/later" "$T/elsewhere/hop"
ln -s "../../../../elsewhere/hop/x.profile" "$USER_DIR/profiles/rel.profile"
kje exec --limits best-effort --quiet --workspace "$T/proj" -- true
like "$rc:$err" "^125:kjail: settings: the workspace $T/proj holds $T/proj/later/x.profile, which ~/.config/kjail/profiles/rel.profile leads to" \
	relative_profile_link_through_dangling_hop_refused
kje exec --limits best-effort --quiet --workspace "$T/elsewhere" -- true
is "$rc:$err" "0:" relative_profile_link_run_elsewhere_accepted
rm "$USER_DIR/profiles/rel.profile"
reset_config

# A sticky directory's owner can rename or replace what the caller keeps
# in it: a configuration file directly in another user's 1777 directory
# is refused, as one below it already was.
mkdir -p "$T/stickyo"
chown 12345 "$T/stickyo"
chmod 1777 "$T/stickyo"
put "$T/stickyo/p.profile" "$KJ_OWNER" 0644 'quiet'
put "$T/stickyo/vars" "$KJ_OWNER" 0600 'A=1'
kje exec --limits best-effort --quiet --profile "$T/stickyo/p.profile" -- true
like "$rc:$err" "^125:kjail: [a-z]+: the directory $T/stickyo is owned by uid 12345, neither root nor you" \
	profile_in_sticky_directory_of_another_user_refused
kje exec --limits best-effort --quiet --env-file "$T/stickyo/vars" -- true
like "$rc:$err" "^125:kjail: [a-z-]+: the directory $T/stickyo is owned by uid 12345, neither root nor you" \
	env_file_in_sticky_directory_of_another_user_refused
chown root "$T/stickyo"
kje exec --limits best-effort --quiet --profile "$T/stickyo/p.profile" -- true
is "$rc:$err" "0:" profile_in_sticky_directory_of_root_accepted

# --seccomp FILE and --net-hosts FILE meet the symlink rule of every
# configuration file: a link in a directory others can write chooses the
# file for them.
mkdir -p "$T/safe2" "$T/open2"
chmod 0777 "$T/open2"
# (a policy of its own: the VM's copy of the tests has no profiles/)
printf '@default allow\nuname errno:EPERM\n' >"$T/safe2/p.policy"
printf '127.0.0.1 a.test\n' >"$T/safe2/hosts"
chmod 0644 "$T/safe2/p.policy" "$T/safe2/hosts"
chown "$KJ_OWNER" "$T/safe2" "$T/safe2/p.policy" "$T/safe2/hosts"
ln -s "$T/safe2/p.policy" "$T/open2/p.policy"
ln -s "$T/safe2/hosts" "$T/open2/hosts"
kje exec --limits best-effort --quiet --seccomp "$T/open2/p.policy" -- true
like "$rc:$err" "^125:kjail: seccomp: the directory $T/open2 is writable by group or others" \
	seccomp_file_through_link_in_open_directory_refused
kje exec --limits best-effort --quiet --seccomp "$T/safe2/p.policy" -- true
is "$rc:$err" "0:" seccomp_file_direct_accepted
kje exec --limits best-effort --quiet --net proxy --allow-host a.test --net-hosts "$T/open2/hosts" -- true
like "$rc:$err" "^125:kjail: net: the directory $T/open2 is writable by group or others" \
	net_hosts_through_link_in_open_directory_refused
kje exec --limits best-effort --quiet --net proxy --allow-host a.test --net-hosts "$T/safe2/hosts" -- true
is "$rc:$err" "0:" net_hosts_direct_accepted

# With no policy file, the directory it would be in must still be root's:
# another owner of /etc/kjail could delete the policy and run without it
# (--profile PATH skips the built-in profiles' lookup, which checked it).
put "$T/safe2/p.profile" "$KJ_OWNER" 0644 'quiet'
chown 12345 "$ETC_UP/kjail"
kje exec --limits best-effort --quiet --profile "$T/safe2/p.profile" -- true
like "$rc:$err" "^125:kjail: [a-z]+: /etc/kjail \(on the way to /etc/kjail/[a-z]+\) is owned by uid 12345: that user could replace or hide what is below it" \
	absent_policy_in_directory_of_another_user_refused
chown root "$ETC_UP/kjail"
kje exec --limits best-effort --quiet --profile "$T/safe2/p.profile" -- true
is "$rc:$err" "0:" absent_policy_in_root_directory_accepted
reset_config

done_testing
