#!/bin/bash
# Scoped grants: --rw/--ro rules (each rejection with its own message),
# --ssh-agent, --env-file, --protect, and .git protection through a
# worktree's real git directory.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# A home of the caller's under /var/tmp: the sandbox's /tmp is its own, so
# a home under $T would be invisible inside whatever kjail masked.
KJ_HOME=$(mktemp -d /var/tmp/kjail-home.XXXXXX)
chmod 0755 "$KJ_HOME"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$KJ_HOME"
export KJ_HOME HOME=$KJ_HOME
trap '_cleanup; rm -rf "$KJ_HOME"' EXIT
OWNER=$([ "$KJ_AS" = user ] && echo "$KJ_USER" || echo root)
RAN=$WS/ran

# refused NAME REGEX ARGS...: exit 125, one line matching REGEX, in the
# house format, and the command never ran.
refused() {
	local name=$1 re=$2
	shift 2
	rm -f "$RAN"
	kj exec "$@" -- touch "$RAN"
	if [ "$rc" = 125 ] && [ ! -e "$RAN" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		printf '%s' "$err" | grep -Eq '^kjail: [a-z][a-z-]*: .+ \([^()]+\)$' &&
		printf '%s' "$err" | grep -Eq -- "$re"; then
		_report 0 "$name"
	else
		_report 1 "$name" "rc=$rc ran=$([ -e "$RAN" ] && echo yes || echo no)
stderr: $err
expected: $re"
	fi
}

# ----------------------------------------------------------- --rw and --ro

mkdir -p "$T/data" "$T/data2"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/data" "$T/data2"
refused rw_nonexistent_refused "^kjail: rw: $T/nope: No such file or directory" --rw "$T/nope"
refused rw_whole_root_refused "^kjail: rw: cannot bind the whole host root /" --rw /
refused ro_whole_root_refused "^kjail: ro: cannot bind the whole host root /" --ro /
refused rw_home_itself_refused "^kjail: rw: $KJ_HOME is the home directory, with its dotfiles and credential stores" --rw "$KJ_HOME"
refused ro_home_itself_refused "^kjail: ro: $KJ_HOME is the home directory" --ro "$KJ_HOME"
refused ro_ancestor_of_home_refused "^kjail: ro: $(dirname "$KJ_HOME") contains the home directory $KJ_HOME" \
	--ro "$(dirname "$KJ_HOME"):/tmp/above-home"
# (At their own path, /proc and /dev are refused as destinations first:
# kjail builds them itself. Elsewhere, as sources, by these rules.)
refused rw_onto_proc_refused "^kjail: rw: cannot bind onto /proc" --rw /proc
refused ro_onto_dev_refused "^kjail: ro: cannot bind onto /dev" --ro /dev
for d in /proc /sys /dev /run /boot /etc; do
	[ -d "$d" ] || { skip "rw_${d#/}_refused" "no $d here"; continue; }
	refused "rw_${d#/}_refused" "^kjail: rw: $d may not be writable inside the sandbox \(it is or holds $d\)" --rw "$d:/tmp/x"
	refused "ro_${d#/}_refused" "^kjail: ro: $d is or holds the system directory $d" --ro "$d:/tmp/x"
done
refused rw_inside_etc_refused "^kjail: rw: /etc/default may not be writable inside the sandbox \(it is inside /etc\)" --rw /etc/default
refused ro_inside_host_proc_refused "^kjail: ro: /proc/[0-9]+ is inside the host's /proc, which would show the host's processes" \
	--ro "/proc/1:/tmp/hostproc"
refused ro_inside_host_sys_refused "^kjail: ro: /sys/kernel is inside the host's /sys" --ro /sys/kernel:/tmp/k
kj exec --ro /etc/default:/tmp/etc-default -- ls /tmp/etc-default
is "$rc" 0 ro_inside_etc_allowed
mkdir -p "$KJ_HOME/.ssh/keys" "$KJ_HOME/.config/gh" "$KJ_HOME/.config/kjail" "$KJ_HOME/.config/other"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$KJ_HOME"
refused ro_inside_credential_store_refused "^kjail: ro: $KJ_HOME/.ssh/keys is inside the credential store $KJ_HOME/.ssh" \
	--ro "$KJ_HOME/.ssh/keys"
refused ro_containing_credential_store_refused "^kjail: ro: $KJ_HOME/.config contains the credential store $KJ_HOME/.config/gcloud" \
	--ro "$KJ_HOME/.config"
refused rw_kjail_config_refused "^kjail: rw: $KJ_HOME/.config/kjail is inside the credential store $KJ_HOME/.config/kjail" \
	--rw "$KJ_HOME/.config/kjail"
kj exec --ro "$KJ_HOME/.config/other" -- true
is "$rc" 0 ro_other_home_subdirectory_allowed
# A credential store reached through a symlink is refused where it
# really is (only its name below the home was compared: ~/.aws as a link
# to a vault made `--ro VAULT` show the keys), and so are the stores below
# $XDG_CONFIG_HOME, where masks.c masks them.
mkdir -p "$T/vault/aws" "$T/xdg/gh"
echo key > "$T/vault/aws/credentials"
ln -sfn "$T/vault/aws" "$KJ_HOME/.aws"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$T/vault" "$T/xdg" && chown -h "$KJ_USER" "$KJ_HOME/.aws"
refused ro_parent_of_symlinked_credential_store_refused \
	"^kjail: ro: $T/vault contains the credential store $T/vault/aws" --ro "$T/vault:/tmp/v"
refused ro_target_of_symlinked_credential_store_refused \
	"^kjail: ro: $T/vault/aws is inside the credential store $T/vault/aws" --ro "$T/vault/aws:/tmp/v"
rm -f "$KJ_HOME/.aws"
kj exec --ro "$T/vault:/tmp/v" -- true
is "$rc" 0 ro_vault_allowed_once_no_store_links_there
export XDG_CONFIG_HOME=$T/xdg
refused ro_xdg_config_home_with_credential_store_refused \
	"^kjail: ro: $T/xdg contains the credential store $T/xdg/gh" --ro "$T/xdg:/tmp/x"
refused ro_xdg_credential_store_refused \
	"^kjail: ro: $T/xdg/gh is inside the credential store $T/xdg/gh" --ro "$T/xdg/gh:/tmp/x"
unset XDG_CONFIG_HOME
touch "$T/data/file"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/data/file"
refused rw_file_refused "^kjail: rw: $T/data/file: Not a directory \(write grants are directories" --rw "$T/data/file"
kj exec --ro "$T/data/file:/tmp/file" -- cat /tmp/file
is "$rc" 0 ro_file_allowed
# A file onto a directory, or a directory onto a file: said so (it was
# move_mount's "attach /etc: Invalid argument").
refused ro_file_onto_directory_refused \
	"^kjail: ro: $T/data/file is a file, and /etc/default there is a directory" --ro "$T/data/file:/etc/default"
refused ro_directory_onto_file_refused \
	"^kjail: ro: $T/data2 is a directory, and /etc/hostname there is a file" --ro "$T/data2:/etc/hostname"
# A DEST at or below a mask every sandbox gets (a host secret, a
# credential store of the home): the mask, put on after the binds, hid
# the grant and the run went on without it. Refused, naming the mask.
refused rw_dest_below_host_secret_refused \
	"^kjail: rw: DEST /etc/ssl/private/x: every sandbox masks /etc/ssl/private, which would hide the bind" \
	--rw "$T/data:/etc/ssl/private/x"
refused ro_dest_on_host_secret_refused "^kjail: ro: DEST /etc/shadow: every sandbox masks /etc/shadow" \
	--ro "$T/data/file:/etc/shadow"
refused ro_dest_on_credential_store_refused \
	"^kjail: ro: DEST $KJ_HOME/.ssh: every sandbox masks $KJ_HOME/.ssh" --ro "$T/data2:$KJ_HOME/.ssh"
kj exec --ro "$T/data2:$KJ_HOME/.config" -- true
is "$rc" 0 ro_dest_holding_credential_store_allowed
# A grant above the workspace or another grant does not cover them: the
# deeper bind stays what it was asked to be, whatever the flag order.
# (The caller owns $T/beside: its touch fails only for the read-only grant.)
mkdir -p "$T/beside"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/beside"
kj exec --ro "$T" -- sh -c "echo w >$WS/below-ro && echo ws-writable; touch $T/beside/x 2>/dev/null || echo parent-ro"
is "$rc:$out" "0:ws-writable
parent-ro" ro_grant_above_workspace_keeps_it_writable
kj exec --rw "$T/data2" --ro "$T" -- sh -c "echo w >$T/data2/f && echo rw-kept"
is "$rc:$out" "0:rw-kept" ro_grant_above_rw_grant_keeps_it_writable
if [ "$KJ_AS" = user ]; then
	mkdir -p "$T/rootonly"
	refused rw_not_writable_by_caller_refused "^kjail: rw: $T/rootonly is not writable by you: Permission denied" --rw "$T/rootonly"
else
	skip rw_not_writable_by_caller_refused "root can write everywhere"
fi

# At most 16 write grants.
args=()
for i in $(seq 16); do
	mkdir -p "$T/g/$i"
	args+=(--rw "$T/g/$i")
done
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$T/g"
kj exec "${args[@]}" -- sh -c "echo x > $T/g/16/f"
is "$rc:$(cat "$T/g/16/f" 2>/dev/null)" "0:x" sixteen_write_grants_allowed
mkdir -p "$T/g/17"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/g/17"
refused seventeen_write_grants_refused "^kjail: rw: at most 16 write grants" "${args[@]}" --rw "$T/g/17"

# --------------------------------------------------------------- --ssh-agent

refused ssh_agent_with_net_none_refused \
	"^kjail: ssh-agent: --ssh-agent needs network access: with --net none the command should reach no remote host, so it gets no agent either \(add --net host" \
	--ssh-agent
unset SSH_AUTH_SOCK
refused ssh_agent_without_agent_refused "^kjail: ssh-agent: --ssh-agent: SSH_AUTH_SOCK is not set" --net host --ssh-agent
SSH_AUTH_SOCK=$T/data/file refused ssh_agent_socket_not_a_socket_refused "is not a socket" --net host --ssh-agent

if command -v ssh-agent >/dev/null && command -v ssh-keygen >/dev/null; then
	AG=$T/agent
	mkdir -p "$AG" "$KJ_HOME/.ssh"
	chmod 0700 "$AG" "$KJ_HOME/.ssh"
	[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$AG" "$KJ_HOME/.ssh"
	as_caller ssh-keygen -q -t ed25519 -N '' -C kjail-test -f "$KJ_HOME/.ssh/id_ed25519"
	agent_pid=$(as_caller ssh-agent -a "$AG/sock" -s | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
	export SSH_AUTH_SOCK=$AG/sock
	as_caller ssh-add -q "$KJ_HOME/.ssh/id_ed25519" 2>/dev/null
	kj exec --net host --ssh-agent -- sh -c 'echo "$SSH_AUTH_SOCK"; ssh-add -l'
	is "$(printf '%s\n' "$out" | head -1)" /run/kjail/ssh-agent.sock ssh_agent_socket_path_set_inside
	like "$out" "ED25519|kjail-test" ssh_agent_lists_key_inside
	kj exec --net host --ssh-agent -- sh -c "cat $KJ_HOME/.ssh/id_ed25519 2>&1; ls -A $KJ_HOME/.ssh 2>&1; echo end"
	unlike "$out" "PRIVATE KEY|^id_ed25519" ssh_agent_private_key_stays_masked
	kj exec --net host -- sh -c 'echo "sock=${SSH_AUTH_SOCK:-}"; ssh-add -l 2>&1; echo rc=$?'
	like "$out" "sock=
.*rc=2" no_agent_without_ssh_agent_option
	kj exec --profile host --quiet --ssh-agent -- sh -c 'echo "$SSH_AUTH_SOCK"'
	is "$out" "$AG/sock" ssh_agent_in_host_profile_passes_socket_path
	kill "$agent_pid" 2>/dev/null
	unset SSH_AUTH_SOCK
else
	skip ssh_agent_lists_key_inside "openssh-client is not installed"
fi

# ---------------------------------------------------------------- --env-file

V=$T/vault
mkdir -p "$V"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$V"
vault() { # FILE MODE OWNER LINES...
	local f=$1 mode=$2 owner=$3
	shift 3
	printf '%s\n' "$@" >"$f"
	chown "$owner" "$f"
	chmod "$mode" "$f"
}
vault "$V/ok.env" 0600 "$OWNER" '# tokens for this project' '' 'API_TOKEN=s3cr3t-vault-value' 'PLAIN=with spaces = and more'
kj exec --env-file "$V/ok.env" -- sh -c 'echo "$API_TOKEN|$PLAIN"'
is "$rc:$out" "0:s3cr3t-vault-value|with spaces = and more" env_file_values_reach_the_sandbox
unlike "$err" "s3cr3t" env_file_values_not_in_kjails_messages
kj exec --env-file "$V/ok.env" --setenv PLAIN=flag -- sh -c 'echo "$PLAIN"'
is "$out" flag setenv_overrides_env_file
vault "$V/group.env" 0640 "$OWNER" 'API_TOKEN=s3cr3t-vault-value'
refused env_file_group_readable_refused \
	"^kjail: env-file: $V/group.env is accessible to group or others \(mode 0640\) \(chmod 600 $V/group.env\)$" \
	--env-file "$V/group.env"
vault "$V/other.env" 0604 "$OWNER" 'API_TOKEN=s3cr3t-vault-value'
refused env_file_world_readable_refused "is accessible to group or others \(mode 0604\)" --env-file "$V/other.env"
unlike "$err" "s3cr3t" env_file_refusal_does_not_show_values
vault "$V/theirs.env" 0600 12345 'API_TOKEN=s3cr3t-vault-value'
refused env_file_of_another_user_refused "^kjail: env-file: $V/theirs.env is owned by uid 12345, not by you" \
	--env-file "$V/theirs.env"
vault "$V/noeq.env" 0600 "$OWNER" 'GOOD=1' 's3cr3t-vault-value'
refused env_file_line_without_equals_refused "^kjail: env-file: $V/noeq.env:2: the line has no '='" --env-file "$V/noeq.env"
unlike "$err" "s3cr3t" env_file_bad_line_not_echoed
vault "$V/badname.env" 0600 "$OWNER" '1BAD=s3cr3t-vault-value'
refused env_file_bad_name_refused "^kjail: env-file: $V/badname.env:1: invalid variable name" --env-file "$V/badname.env"
unlike "$err" "s3cr3t" env_file_bad_name_value_not_echoed
refused env_file_missing_refused "^kjail: env-file: --env-file $V/none.env: No such file or directory" --env-file "$V/none.env"
mkdir -m 0777 "$T/opendir"
vault "$T/opendir/v.env" 0600 "$OWNER" 'API_TOKEN=s3cr3t-vault-value'
refused env_file_in_open_directory_refused "^kjail: env-file: the directory .*opendir is writable by group or others" \
	--env-file "$T/opendir/v.env"
vault "$WS/ws.env" 0600 "$OWNER" 'A=1'
refused env_file_in_workspace_refused "^kjail: settings: $WS/ws.env is inside the workspace" --env-file "$WS/ws.env"
rm -f "$WS/ws.env"
# Nor through a symlink the sandbox could have planted there: run 1 swaps
# ./vault (a link to this project's vault) for one to another vault of
# the caller's, and run 2 injected those tokens (--profile PATH,
# --seccomp and --net-hosts refused such a link already).
ln -s "$V/ok.env" "$WS/link.env"
refused env_file_through_planted_link_refused \
	"^kjail: env-file: --env-file ./link.env: $WS/link.env is a symlink inside $WS, which the sandbox can write" \
	--env-file ./link.env
rm -f "$WS/link.env"
kj exec --env-file "$V/ok.env" --stats -- true
unlike "$err" "s3cr3t" env_file_values_not_in_stats_or_notes
# A line at the kernel's bound for one variable (128K with its NUL):
# COMMAND's execve failed, 126 "kjail: exec: true: Argument list too
# long", blaming the command for the vault. One byte less still runs.
vault "$V/long.env" 0600 "$OWNER" "BIG=$(head -c 131067 /dev/zero | tr '\0' a)"
kj exec --env-file "$V/long.env" -- sh -c 'echo ${#BIG}'
is "$rc:$out" 0:131067 env_file_longest_line_the_kernel_takes_runs
vault "$V/long.env" 0600 "$OWNER" "BIG=$(head -c 131068 /dev/zero | tr '\0' a)"
refused env_file_line_too_long_for_the_kernel_refused \
	"^kjail: env-file: $V/long.env:1: the line is longer than the kernel allows a variable" \
	--env-file "$V/long.env"
# A vault saved with Windows line ends: each value would end in \r (a
# token that fails to sign in, silently); refused, naming the line.
vault "$V/crlf.env" 0600 "$OWNER" "$(printf 'A=1\r\nB=2\r')"
refused env_file_crlf_line_refused \
	"^kjail: env-file: $V/crlf.env:1: the line ends in a carriage return \(convert the file to Unix line ends" \
	--env-file "$V/crlf.env"

# ----------------------------------------------------------------- --protect

mkdir -p "$WS/.github/workflows" "$WS/src"
echo 'on: push' >"$WS/.github/workflows/ci.yml"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS"
kj exec --protect .github/workflows -- sh -c '(echo evil > .github/workflows/ci.yml) 2>&1; (touch .github/workflows/new.yml) 2>&1; echo ok > src/file; cat src/file'
like "$out" "Read-only file system" protect_makes_path_read_only
is "$(cat "$WS/.github/workflows/ci.yml")" "on: push" protect_path_unchanged_on_host
ok protect_no_new_file_on_host test ! -e "$WS/.github/workflows/new.yml"
like "$out" "^ok$" protect_rest_of_workspace_writable
kj exec --protect .github -- sh -c 'mv .github .gh 2>&1; echo rc=$?'
like "$out" "rc=[1-9]" protected_path_cannot_be_moved_away
# Nor a directory above it: a pin moves with its parent, and a fresh
# .github/workflows under the old name was writable (and what host tools
# read afterwards).
kj exec --protect .github/workflows -- sh -c 'mv .github .gh 2>&1; echo rc=$?; mkdir -p .github/workflows 2>/dev/null; echo evil > .github/workflows/ci.yml 2>/dev/null; ls -d .gh 2>&1'
like "$out" "rc=[1-9]" protected_path_parent_cannot_be_moved_away
is "$(cat "$WS/.github/workflows/ci.yml")" "on: push" protected_path_unchanged_after_parent_move
ok protected_path_parent_not_renamed_on_host test ! -e "$WS/.gh"
rm -rf "$WS/.gh"
kj exec --protect .github/workflows -- sh -c 'echo ok > .github/sibling && cat .github/sibling'
is "$rc:$out" "0:ok" protected_path_parent_stays_writable
rm -f "$WS/.github/sibling"
refused protect_missing_path_refused "^kjail: protect: --protect .github/missing: No such file or directory \(create it first" \
	--protect .github/missing
refused protect_absolute_refused "^kjail: option: --protect: '/etc' is not a relative path" --protect /etc
refused protect_dotdot_refused "^kjail: option: --protect: '../x' is not a plain path" --protect ../x
ln -s "$T/data" "$WS/link"
refused protect_through_symlink_refused "^kjail: protect: --protect link/x: Too many levels of symbolic links|^kjail: protect: --protect link/x" \
	--protect link/x
rm -f "$WS/link"

# ---------------------------------------------- .git protection via worktrees

if command -v git >/dev/null; then
	R=$T/repo W=$T/wts/wt
	mkdir -p "$R" "$T/wts"
	[ "$KJ_AS" = user ] && chown "$KJ_USER" "$R" "$T/wts"
	g() { as_caller git -c user.name=t -c user.email=t@t -c init.defaultBranch=main "$@"; }
	g init -q "$R"
	g -C "$R" commit -q --allow-empty -m init
	g -C "$R" worktree add -q "$W" 2>/dev/null
	ok worktree_has_git_file test -f "$W/.git"
	# The worktree as workspace, its repository granted writable so git works.
	kj exec --workspace "$W" --rw "$R/.git" -- sh -c "
		(echo evil > $R/.git/hooks/pre-commit) 2>&1
		(git config core.hooksPath /tmp) 2>&1
		(printf '[core]\\n\\thooksPath = /tmp\\n' >> $R/.git/config) 2>&1
		(echo $T/elsewhere > $R/.git/worktrees/wt/commondir) 2>&1
		(echo 'gitdir: /tmp' > .git) 2>&1
		echo hi > f && git add f && git -c user.name=t -c user.email=t@t commit -qm m && echo committed"
	like "$out" "pre-commit: Read-only file system" worktree_common_hooks_read_only
	like "$out" "could not (lock|write) config file|Read-only file system" worktree_common_config_read_only
	# git config fails on the pin alone (EBUSY renaming its lock file onto
	# the mount point): the append in place proves the mount read-only.
	like "$out" "config: Read-only file system" worktree_common_config_append_read_only
	unlike "$(cat "$R/.git/config")" hooksPath worktree_common_config_unchanged_on_host
	like "$out" "commondir: Read-only file system" worktree_commondir_file_read_only
	like "$out" "committed" worktree_commit_still_works
	ok worktree_no_hook_planted_on_host test ! -e "$R/.git/hooks/pre-commit"
	is "$(cat "$R/.git/worktrees/wt/commondir")" "../.." worktree_commondir_unchanged_on_host
	kj exec --workspace "$W" --rw "$R/.git" -- sh -c "mv $R/.git/worktrees/wt $R/.git/worktrees/moved 2>&1; echo rc=\$?"
	like "$out" "rc=[1-9]" worktree_gitdir_cannot_be_swapped
	# The main worktree's config.worktree (git reads it there with
	# extensions.worktreeConfig) is pinned read-only too when present.
	: > "$R/.git/config.worktree"
	[ "$KJ_AS" = user ] && chown "$KJ_USER" "$R/.git/config.worktree"
	kj exec --workspace "$W" --rw "$R/.git" -- sh -c "(printf '[core]\\n\\tfsmonitor = evil\\n' >> $R/.git/config.worktree) 2>&1; echo rc=\$?"
	like "$out" "config.worktree: Read-only file system" worktree_common_config_worktree_read_only
	is "$(cat "$R/.git/config.worktree")" "" worktree_common_config_worktree_unchanged_on_host
	rm -f "$R/.git/config.worktree"
	# A repository without hooks/: refused, as for .git itself.
	rmdir "$R/.git/hooks" 2>/dev/null || rm -rf "$R/.git/hooks"
	kj exec --workspace "$W" --rw "$R/.git" -- true
	like "$rc:$err" "^125:kjail: workspace: cannot protect $R/.git/hooks: No such file or directory" worktree_without_hooks_dir_refused
	kj exec --workspace "$W" -- true
	is "$rc" 0 worktree_without_hooks_fine_when_repository_read_only
else
	skip worktree_common_hooks_read_only "git is not installed"
fi

# ------------------------------------------- grants that alias the workspace
# The workspace's protections (.git/hooks and .git/config read-only,
# --protect, --workspace-ro) are mounts at its DEST. A write grant showing
# the same files elsewhere would show them bare: with `--rw $PWD:/tmp/a` a
# command planted .git/hooks/pre-commit, and the host's next git commit
# ran it.
P=$T/parent
mkdir -p "$P/repo/.git/hooks" "$P/repo/sub"
touch "$P/repo/.git/config"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$P"
refused rw_workspace_at_second_place_refused \
	"^kjail: rw: --rw $P/repo:/tmp/alias would show files of the workspace $P/repo writable at /tmp/alias too" \
	--workspace "$P/repo" --rw "$P/repo:/tmp/alias"
refused rw_parent_of_moved_workspace_refused \
	"^kjail: rw: --rw $P:$P would show files of the workspace $P/repo writable at $P/repo too" \
	--workspace "$P/repo:/tmp/moved" --rw "$P"
refused rw_workspace_part_elsewhere_refused \
	"^kjail: rw: --rw $P/repo/sub:/tmp/sub would show files of the workspace $P/repo writable at /tmp/sub too" \
	--workspace "$P/repo" --rw "$P/repo/sub:/tmp/sub"
ok rw_alias_refusals_planted_no_hook test ! -e "$P/repo/.git/hooks/pre-commit"
# Where the grant shows the workspace at its own place, the workspace's
# bind (and its protection) lies on top: allowed, and still protected.
kj exec --workspace "$P/repo" --rw "$P" -- sh -c "
	(echo evil > $P/repo/.git/hooks/pre-commit) 2>&1; echo x > $P/beside && echo parent-writable"
like "$out" "pre-commit: Read-only file system" rw_parent_at_workspace_place_keeps_hooks_read_only
like "$out" "parent-writable" rw_parent_at_workspace_place_is_writable
kj exec --workspace "$P/repo" --rw "$P/repo/sub" -- sh -c "echo y > $P/repo/sub/y && echo sub-writable"
is "$rc:$out" "0:sub-writable" rw_workspace_part_at_its_place_allowed

# ------------------------------------------------ symlinks a run could plant
# Run 1 replaces ./cache with a link to ~/bin; run 2's `--rw ./cache`
# must not then write ~/bin.
mkdir -p "$T/target"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/target"
ln -sfn "$T/target" "$WS/cache"
refused rw_through_symlink_in_workspace_refused \
	"^kjail: rw: --rw \./cache: $WS/cache is a symlink inside $WS, which the sandbox can write" \
	--rw ./cache
refused ro_through_symlink_in_workspace_refused \
	"^kjail: ro: --ro \./cache: $WS/cache is a symlink inside $WS, which the sandbox can write" \
	--ro ./cache:/tmp/cache
ln -sfn "$T/target" "$T/data/link"
refused ro_through_symlink_in_rw_grant_refused \
	"^kjail: ro: --ro $T/data/link: $T/data/link is a symlink inside $T/data, which the sandbox can write" \
	--ro "$T/data/link:/tmp/l" --rw "$T/data:/tmp/d"
# The workspace's own path too: a link in a write grant, made by an
# earlier run, became the writable workspace.
ln -sfn "$T/target" "$T/data/out"
refused workspace_through_symlink_in_rw_grant_refused \
	"^kjail: workspace: --workspace $T/data/out: $T/data/out is a symlink inside $T/data, which the sandbox can write" \
	--rw "$T/data" --workspace "$T/data/out"
rm -f "$WS/cache" "$T/data/link" "$T/data/out"
# A DEST that leads into /proc or /dev through a link (refused by name
# as given): the bind covered the fresh /proc, which became a writable
# host directory.
ln -sfn /proc "$WS/p" && ln -sfn /dev/shm "$WS/d"
refused bind_dest_through_link_into_proc_refused \
	"^kjail: rw: $WS/p leads into /proc or /dev through a symbolic link" --rw "$T/data:$WS/p"
refused bind_dest_through_link_into_dev_refused \
	"^kjail: ro: $WS/d leads into /proc or /dev through a symbolic link" --ro "$T/data:$WS/d"
rm -f "$WS/p" "$WS/d"
ok bind_dest_link_planted_nothing_on_host test ! -e "$T/data/planted"
ln -sfn "$T/target" "$T/outside-link"
kj exec --rw "$T/outside-link" -- sh -c "touch $T/target/made && echo made"
is "$rc:$out" "0:made" rw_through_symlink_outside_writable_places_allowed
rm -f "$T/outside-link"

# ------------------------------------------------- mount points on the host
# A missing DEST is made only on kjail's own /tmp and /run: in the
# workspace or a --rw grant it would be left on the host (also when the
# run then fails).
refused mount_point_in_workspace_refused \
	"^kjail: ro: create mount point $WS/newdir/deep: it would be made on the host, in the workspace or a --rw grant" \
	--ro "$T/data2:$WS/newdir/deep"
ok mount_point_in_workspace_left_nothing test ! -e "$WS/newdir"
refused mount_point_in_rw_grant_refused \
	"^kjail: ro: create mount point /tmp/g/sub: it would be made on the host" \
	--rw "$T/data:/tmp/g" --ro "$T/data2:/tmp/g/sub"
ok mount_point_in_rw_grant_left_nothing test ! -e "$T/data/sub"
# The second DEST fails at mount time (the read-only root), after the
# first, shallower one was attached.
kj exec --ro "$T/data2:$WS/madelater" --ro "$T/data2:/usr/share/kjail-nope/a/b/c/d/e/f" -- true
is "$rc:$(test -e "$WS/madelater" && echo left)" "125:" failed_run_made_no_mount_point_on_host
kj exec --ro "$T/data2:/tmp/made/deep" --ro "$T/data2:/run/made" -- sh -c 'test -d /tmp/made/deep && test -d /run/made && echo made'
is "$rc:$out" "0:made" mount_points_made_on_kjails_own_tmp_and_run

done_testing
