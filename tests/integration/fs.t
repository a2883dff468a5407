#!/bin/bash
# The sandbox's file system, proven from inside.
. "$(dirname "$0")/../lib.sh"

kj exec -- sh -c 'touch /etc/kjail-probe 2>&1; echo rc=$?'
like "$out" "Read-only file system" rootfs_write_fails_erofs

kj exec -- sh -c 'touch /usr/kjail-probe 2>&1; mkdir /kjail-probe 2>&1; echo rc=$?'
is "$(printf '%s\n' "$out" | grep -c 'Read-only file system')" 2 rootfs_mkdir_and_write_fail_erofs

# A writable tmpfs mounted below / on the host (in the test's own
# directory under /var/tmp) must be read-only inside too: the root bind
# is recursive and read-only for every submount.
SUB=$(mktemp -d /var/tmp/kjail-sub.XXXXXX)
mount -t tmpfs -o size=1m tmpfs "$SUB" && chmod 1777 "$SUB"
kj exec -- sh -c "touch $SUB/x 2>&1; echo rc=\$?"
like "$out" "Read-only file system" host_submount_write_fails_erofs
ok host_submount_unchanged test ! -e "$SUB/x"
umount "$SUB"
rmdir "$SUB"

# nosuid and nodev on every mount: the cloned host tree, /tmp, /run, the
# workspace and the grants. (no_new_privs makes a setuid bit inert
# anyway; a device node is not: the flags are the wall.) Only kjail's own
# /dev, its devpts and the device nodes bound into /dev or over masked
# files go without nodev.
kj exec -- awk '{print $5, $6}' /proc/self/mountinfo
is "$(printf '%s\n' "$out" | awk '$2 !~ /(^|,)nosuid(,|$)/ {print $1}')" "" every_mount_nosuid
kj exec -- sh -c 'awk "{print \$5, \$6}" /proc/self/mountinfo | while read -r mp opts; do
	case ",$opts," in *,nodev,*) continue ;; esac
	[ -c "$mp" ] || [ "$mp" = /dev ] || [ "$mp" = /dev/pts ] || echo "$mp"
done'
is "$out" "" every_mount_but_dev_and_device_nodes_nodev

# A device node on the host's disk outside /dev (a chroot's, a container
# image's) opens nothing inside, not even for the uid that owns it.
DEVDIR=$(mktemp -d /var/tmp/kjail-dev.XXXXXX)
chmod 755 "$DEVDIR"
mknod -m 666 "$DEVDIR/null" c 1 3
kj exec -- sh -c "head -c 1 < $DEVDIR/null >/dev/null 2>&1 && echo opened || echo refused"
is "$out" refused host_device_node_on_root_not_openable
rm -rf "$DEVDIR"

kj exec -- sh -c 'echo data > ws-file'
is "$(stat -c %u:%g "$WS/ws-file" 2>/dev/null)" "$KJ_UID:$KJ_GID" workspace_write_visible_on_host_with_caller_ownership
is "$(cat "$WS/ws-file" 2>/dev/null)" data workspace_write_content_on_host

kj exec -- pwd
is "$out" "$WS" command_starts_in_workspace

kj exec -- id -u
is "$out" "$KJ_UID" identity_is_caller_uid
kj exec -- id -g
is "$out" "$KJ_GID" identity_is_caller_gid

echo secret > "$T/host-tmp-marker"
kj exec -- sh -c "cat $T/host-tmp-marker 2>&1; ls -A /tmp"
unlike "$out" "secret" tmp_is_private_host_tmp_invisible
kj exec -- sh -c 'echo x > /tmp/inside; ls -ld /tmp | cut -c1-10'
is "$out" "drwxrwxrwt" tmp_mode_1777
ok tmp_inside_file_not_on_host test ! -e /tmp/inside

kj exec --tmp-size 1M -- sh -c 'head -c 2000000 /dev/zero > /tmp/big 2>/dev/null; echo rc=$?; du -k /tmp/big | cut -f1'
like "$out" "rc=1" tmp_size_caps_writes
kj exec -- sh -c 'df -k /tmp | tail -1 | awk "{print \$2}"'
is "$out" 65536 tmp_default_size_64m
kj exec -- sh -c 'echo $TMPDIR $TMP $TEMP'
is "$out" "/tmp /tmp /tmp" tmp_variables_point_at_tmp

# /run: a fresh empty tmpfs; a socket listening under the host's /run is
# out of reach, unless exposed deliberately with --ro.
RUNDIR=$(mktemp -d /run/kjail-test.XXXXXX)
chmod 755 "$RUNDIR"
python3 -c '
import socket, sys, os, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(8)
time.sleep(30)' "$RUNDIR/sock" &
LPID=$!
for _ in $(seq 50); do [ -S "$RUNDIR/sock" ] && break; sleep 0.1; done
connect='import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused", e.errno)'
kj exec -- python3 -c "$connect" "$RUNDIR/sock"
like "$out" "refused" host_run_socket_unreachable
kj exec -- sh -c 'ls -A /run /var/run | tr -d "\n"'
is "$out" "/run:/var/run:" run_and_var_run_empty
kj exec --ro "$RUNDIR" -- python3 -c "$connect" "$RUNDIR/sock"
is "$out" "connected" ro_bind_exposes_run_socket_deliberately
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
rm -rf "$RUNDIR"

kj exec -- sh -c 'tr "\0" " " < /proc/1/cmdline'
like "$out" "kjail exec" pid1_is_kjail_init
kj exec -- sh -c 'ls /proc | grep "^[0-9]*$" | sort -n | tail -1'
ok "no_host_process_visible (highest pid $out)" test "${out:-99}" -le 9
# COMMAND is init's child and one of the first pids of the namespace
# (pid 2 went to the setup thread that made the network namespace).
kj exec -- sh -c 'echo $PPID $$'
is "${out% *}" 1 command_parent_is_init
ok "command_has_low_pid (${out#* })" test "${out#* }" -le 3
kj exec -- sh -c '(echo core > /proc/sys/kernel/core_pattern) 2>&1; echo rc=$?'
like "$out" "Read-only file system" proc_sys_core_pattern_not_writable
kj exec -- sh -c 'cat /proc/sys/kernel/core_pattern >/dev/null && echo readable'
is "$out" readable proc_sys_still_readable

kj exec -- sh -c 'ls -A /dev | tr "\n" " "'
is "$out" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " dev_is_minimal
kj exec -- sh -c 'echo x > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c'
is "$(echo $out)" "4 4" dev_nodes_work
kj exec -- sh -c 'touch /dev/evil 2>&1; echo rc=$?'
like "$out" "Read-only file system" dev_not_writable
kj exec -- sh -c 'echo x > /dev/shm/f && cat /dev/shm/f'
is "$out" x dev_shm_writable
kj exec -- sh -c 'ls /dev/pts | tr "\n" " "'
is "$out" "ptmx " devpts_is_private
kj exec -- hostname
is "$out" kjail hostname_is_kjail

# A workspace DEST through a link in the root (/var/run -> /run): the
# command starts there (the check compared the resolved working directory
# with the DEST as written, and refused it as outside the sandbox).
kj exec --workspace "$WS:/var/run/kjail-wsx" -- pwd
is "$rc:$out" "0:$(readlink -f /var/run)/kjail-wsx" workspace_dest_through_root_link_is_entered

# Credential stores of the caller: masked (empty directory, /dev/null).
# The fake home lives under /var/tmp: the sandbox's /tmp is its own.
H=$(mktemp -d /var/tmp/kjail-home.XXXXXX)
chmod 755 "$H"
mkdir -p "$H/.ssh" "$H/.aws" "$H/.gnupg" "$H/.config/gh" "$H/.config/gcloud" "$H/.kube" \
	"$H/.docker" "$H/.cargo" "$H/.azure"
for f in .ssh/id_ed25519 .aws/credentials .gnupg/secring .config/gh/hosts.yml \
	.config/gcloud/creds .kube/config .docker/config.json .netrc .git-credentials .npmrc \
	.pypirc .cargo/credentials .cargo/credentials.toml .azure/token; do
	echo "SECRET-$f" > "$H/$f"
done
# Database clients', cloud tools', forge tools', coding agents' and
# password stores' secrets (mounts/masks.c), each with a readable
# neighbour where it sits in a directory of its own kind, so the check
# sees the masks are exact: .claude's settings stay readable.
more_creds='.pgpass .my.cnf .mylogin.cnf .vault-token .s3cfg .boto .config/rclone/rclone.conf
	.config/doctl/config.yaml .terraform.d/credentials.tfrc.json .config/hub/hub.yml
	.config/glab-cli/config.yml .claude/.credentials.json .codex/auth.json
	.gemini/oauth_creds.json .password-store/bank.gpg .local/share/keyrings/login.keyring'
for f in $more_creds; do
	mkdir -p "$H/$(dirname "$f")"
	echo "SECRET-$f" > "$H/$f"
done
for f in .claude/settings.json .codex/config.toml .gemini/settings.json .terraform.d/plugins.txt; do
	echo "neighbour-$f" > "$H/$f"
done
echo visible > "$H/notes.txt"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$H"
export KJ_HOME=$H
HOME=$H kj exec -- sh -c 'cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc ~/.docker/config.json \
	~/.git-credentials ~/.npmrc ~/.pypirc ~/.cargo/credentials ~/.cargo/credentials.toml \
	~/.config/gh/hosts.yml ~/.kube/config ~/.gnupg/secring ~/.config/gcloud/creds ~/.azure/token 2>/dev/null;
	ls -A ~/.ssh ~/.aws 2>/dev/null; cat ~/notes.txt'
unlike "$out" "SECRET" credential_stores_masked
like "$out" "visible" home_otherwise_readable
# shellcheck disable=SC2086
HOME=$H kj exec -- sh -c 'h=$1; shift; for f; do cat "$h/$f" 2>/dev/null; done
	for d in .password-store .local/share/keyrings .config/rclone; do ls -A "$h/$d" 2>/dev/null; done
	echo end' sh "$H" $more_creds
is "$rc:$out" "0:end" more_credential_stores_masked
HOME=$H kj exec -- cat "$H/.claude/settings.json" "$H/.codex/config.toml" "$H/.gemini/settings.json" "$H/.terraform.d/plugins.txt"
is "$rc:$(printf '%s' "$out" | tr '\n' ' ')" "0:neighbour-.claude/settings.json neighbour-.codex/config.toml neighbour-.gemini/settings.json neighbour-.terraform.d/plugins.txt" agents_settings_beside_masked_tokens_readable
HOME=$H kj exec -- sh -c '(echo x > ~/.ssh/new) 2>&1; echo rc=$?'
like "$out" "rc=[1-9]" masked_dir_not_writable
# The home shown somewhere else too, by another mount of it (schroot and
# sbuild bind /home into their chroots): its stores are masked there as
# well, also below a grant that shows that place, and a writable bind
# that shows it is refused like the home itself.
mkdir -p "$T/view/alias"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/view"
mount --bind "$H" "$T/view/alias"
HOME=$H kj exec --ro "$T/view:/tmp/view" -- sh -c \
	'cat "$1/.ssh/id_ed25519" "$1/.npmrc" "$1/.aws/credentials" 2>/dev/null; cat "$1/notes.txt"' sh /tmp/view/alias
is "$rc:$out" "0:visible" credential_stores_masked_at_another_mount_of_home
HOME=$H kj exec --workspace "$T/view" -- true
like "$rc:$err" "^125:kjail: workspace: $T/view shows the home directory $H at $T/view/alias \(another mount of it\)" \
	workspace_showing_another_mount_of_home_refused
HOME=$H kj exec --rw "$T/view/alias" -- true
like "$rc:$err" "^125:kjail: rw: $T/view/alias shows the home directory $H" \
	rw_grant_of_another_mount_of_home_refused
umount "$T/view/alias"
echo SECRET-extra > "$H/token"
kj exec --mask "$H/token" -- sh -c "cat $H/token; echo end"
is "$out" "end" mask_option_hides_file
# Below /sys, masks and binds land on the sandbox's fresh sysfs, not under
# it (they then wait for it: mounts/rootfs.c).
kj exec --mask /sys/kernel/mm -- sh -c 'ls -A /sys/kernel/mm | wc -l; ls /sys/kernel | grep -c "^mm$"'
is "$(echo $out)" "0 1" mask_below_sys_hides_a_fresh_sysfs_dir
mkdir -p "$H/sysgrant" && echo granted > "$H/sysgrant/file" && chmod -R a+rX "$H"
kj exec --ro "$H/sysgrant:/sys/kernel/mm" -- cat /sys/kernel/mm/file
is "$out" "granted" bind_below_sys_lands_on_the_fresh_sysfs
unset KJ_HOME
rm -rf "$H"

# .git/hooks and .git/config read-only; the rest of .git writable.
as_caller git init -q "$WS"
kj exec -- sh -c '(echo "#!/bin/sh" > .git/hooks/pre-commit) 2>&1; echo rc=$?'
like "$out" "Read-only file system" git_hooks_read_only
kj exec -- sh -c 'git config core.fsmonitor evil 2>&1; echo rc=$?'
like "$out" "rc=[1-9]" git_config_read_only
# git config itself fails on the pin alone (its rename onto a mount point
# is EBUSY): an append in place proves the mount is read-only.
kj exec -- sh -c '(printf "[core]\n\tfsmonitor = evil\n" >> .git/config) 2>&1; echo rc=$?'
like "$out" "Read-only file system" git_config_append_read_only
unlike "$(cat "$WS/.git/config")" fsmonitor git_config_unchanged_on_host
kj exec -- sh -c 'mv .git .git-moved 2>&1; echo rc=$?'
like "$out" "rc=1" git_dir_cannot_be_swapped
kj exec -- sh -c 'echo hi > f && git add f && git -c user.name=t -c user.email=t@t commit -qm m && git log --oneline | wc -l'
is "$out" 1 git_commit_works_inside
ok git_hooks_unchanged_on_host test ! -e "$WS/.git/hooks/pre-commit"
# A .git/commondir made during the run would send host git to hooks and
# config of the command's choosing: kjail sets it aside once the sandbox
# is gone, and says so.
kj exec -- sh -c 'echo /tmp/elsewhere > .git/commondir && echo planted'
is "$rc:$out" "0:planted" git_commondir_can_be_created_inside
ok git_commondir_set_aside_after_run test ! -e "$WS/.git/commondir" -a -e "$WS/.git/commondir.kjail-refused"
like "$err" "kjail: git: the command created \.git/commondir .*renamed to \.git/commondir\.kjail-refused" \
	git_commondir_set_aside_is_reported
as_caller git -C "$WS" rev-parse --git-common-dir >/dev/null 2>&1
is "$?" 0 git_still_works_on_host_after_commondir_set_aside
# One that was there before the run is pinned read-only ("." names .git
# itself, so git still works): it cannot be pointed elsewhere.
rm -f "$WS/.git/commondir.kjail-refused"
echo . > "$WS/.git/commondir"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$WS/.git/commondir"
kj exec -- sh -c '(echo /tmp/elsewhere > .git/commondir) 2>&1; echo rc=$?'
like "$out" "commondir: Read-only file system" git_existing_commondir_read_only
is "$(cat "$WS/.git/commondir")" . git_existing_commondir_unchanged_on_host
rm -rf "$WS/.git" "$WS/f"
# A .git that is a symlink, here to a directory inside the workspace
# itself: its hooks cannot be pinned where git finds them, so the run is
# refused (the battery's symlink points out of the workspace, where the
# read-only root holds the hooks anyway).
mkdir -p "$WS/realgit/hooks"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/realgit"
ln -s realgit "$WS/.git"
kj exec -- sh -c '(echo evil > .git/hooks/pre-commit) 2>&1; echo ran'
like "$rc:$err" "^125:kjail: workspace: cannot protect \.git" git_dir_symlink_refused
ok git_dir_symlink_no_hook_planted test ! -e "$WS/realgit/hooks/pre-commit"
rm -rf "$WS/.git" "$WS/realgit"
# A repository the command creates is the user's, with the command's
# config and hooks: said (not with --quiet), and left as it is.
kj exec -- git init -q .
like "$err" "kjail: git: the command created $WS/\.git: host git will use the config and hooks it wrote there" \
	new_git_repository_is_reported
ok new_git_repository_left_in_place test -d "$WS/.git"
rm -rf "$WS/.git"
kj exec --quiet -- git init -q .
unlike "$err" "kjail: git:" new_git_repository_note_quiet_with_quiet
rm -rf "$WS/.git"

# Extra binds.
mkdir -p "$T/rwdir" "$T/rodir"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$T/rwdir" "$T/rodir"
echo ro-data > "$T/rodir/file"
kj exec --rw "$T/rwdir" --ro "$T/rodir:/tmp/ro" -- sh -c "echo w > $T/rwdir/out && cat /tmp/ro/file && touch /tmp/ro/x 2>&1; true"
is "$(cat "$T/rwdir/out" 2>/dev/null)" w rw_bind_writes_reach_host
like "$out" "ro-data" ro_bind_readable_at_dest
like "$out" "Read-only file system" ro_bind_not_writable
kj exec --workspace "$T/rwdir:/tmp/work" -- pwd
is "$out" /tmp/work workspace_dest_under_tmp
kj exec --workspace "$T/rwdir:/nonexistent-dest" -- true
expect_rc workspace_dest_on_readonly_root_refused 125
like "$err" "kjail: workspace: .*create mount point /nonexistent-dest: Read-only file system \(choose a DEST" workspace_dest_error_names_fix

# A symlink planted at a bind destination cannot redirect the bind onto
# the host: it resolves inside the new root.
ln -s /etc "$WS/link"
kj exec --ro "$T/rodir:$WS/link/kjail-planted" -- true
expect_rc symlink_dest_to_readonly_root_refused 125
rm -f "$WS/link"
# A DEST that leads to / itself (a link an earlier run planted): the bind
# was stacked on the new root, under which the command ran, the grant
# silently missing. Refused, naming the DEST.
ln -s / "$WS/toroot"
kj exec --ro "$T/rodir:$WS/toroot" -- true
like "$rc:$err" "^125:kjail: ro: $WS/toroot leads to / through a symbolic link \(kjail builds / itself" \
	bind_dest_symlink_to_root_refused
rm -f "$WS/toroot"

# --root DIR: a root file system directory instead of the host's /, also
# read-only with every submount, and nothing of the host's files inside.
R=$(mktemp -d /var/tmp/kjail-root.XXXXXX)
mkdir -p "$R/bin" "$R/proc" "$R/dev" "$R/tmp" "$R/run" "$R/sys" "$R/etc" "$R/data"
cp "$(command -v busybox)" "$R/bin/busybox"
for a in sh ls cat touch echo id true; do ln -s busybox "$R/bin/$a"; done
echo rootfs > "$R/etc/marker"
chmod -R a+rX "$R"
mount -t tmpfs -o size=1m tmpfs "$R/data" && chmod 1777 "$R/data"
kj exec --root "$R" --workspace "$WS:/tmp/work" -- /bin/sh -c 'cat /etc/marker; ls /etc; touch /etc/x 2>&1; touch /data/x 2>&1; pwd'
like "$out" "^rootfs" root_option_uses_rootfs
unlike "$out" "passwd|hostname" root_option_hides_host_files
is "$(printf '%s\n' "$out" | grep -c 'Read-only file system')" 2 root_option_readonly_with_submounts
like "$out" "/tmp/work$" root_option_workspace_at_dest
# The host's own secrets (mounts/masks.c: host_secrets and the SSH host
# keys) are masked in a --root as on the host's /, where a test cannot
# plant them: each one planted world-readable here must read empty.
mkdir -p "$R/etc/ssl/private" "$R/etc/sudoers.d" "$R/etc/ssh"
secrets="shadow shadow- gshadow gshadow- ssl/private/key.pem sudoers sudoers.d/extra
	krb5.keytab ssh/ssh_host_ed25519_key ssh/ssh_host_rsa_key"
for f in $secrets; do echo "SECRET-$f" > "$R/etc/$f"; done
echo "PUBLIC" > "$R/etc/ssh/ssh_host_ed25519_key.pub"
chmod -R a+rX "$R/etc"
kj exec --root "$R" --workspace "$WS:/tmp/work" -- /bin/sh -c \
	"cd /etc && cat $(echo $secrets) ssh/ssh_host_ed25519_key.pub 2>/dev/null; echo end"
is "$rc:$(echo $out)" "0:PUBLIC end" root_option_host_secrets_masked
# One made on the host during the run (0600, renamed into place, as
# useradd or ktutil would) ends a sandbox that runs as host root, which
# could read it; it is not the unprivileged caller's to read: that one
# runs on (runtime/mount_watch.c, the appear watch).
rm -f "$R/etc/krb5.keytab" "$WS/.ready" "$WS/.go"
(cd "$WS" && kj exec --root "$R" --workspace "$WS:/tmp/work" -- /bin/sh -c \
	'touch /tmp/work/.ready; while [ ! -e /tmp/work/.go ]; do busybox sleep 0.05; done
	 busybox sleep 0.5; cat /etc/krb5.keytab 2>/dev/null; echo end'
	printf '%s\n%s\n' "$rc:$(echo $out)" "$err" >"$T/keytab.res") &
for _ in $(seq 600); do [ -e "$WS/.ready" ] && break; sleep 0.05; done
(umask 077 && echo "SECRET-new-keytab" >"$R/etc/krb5.keytab.tmp") &&
	mv "$R/etc/krb5.keytab.tmp" "$R/etc/krb5.keytab"
touch "$WS/.go"
wait
if [ "$KJ_AS" = user ]; then
	is "$(head -1 "$T/keytab.res")" "0:end" root_option_host_secret_made_unreadable_run_goes_on
else
	is "$(head -1 "$T/keytab.res")" "125:" root_option_host_secret_made_run_killed
	like "$(tail -n +2 "$T/keytab.res" | grep -v 'not enforced')" \
		"^kjail: mounts: /etc/krb5.keytab appeared on the host while the sandbox ran" \
		root_option_host_secret_made_says_what
fi
rm -f "$WS/.ready" "$WS/.go"
# The root DIR itself renamed on the host during the run: the sandbox
# reaches its root through its mount, not by its name, so it runs on.
# (The directory watched for a missing path, here DIR for the home, was
# also watched for its own rename: a --root swapped on the host killed
# runs, root_swap.t in the test VM.)
(cd "$WS" && kj exec --root "$R" --workspace "$WS:/tmp/work" -- /bin/sh -c \
	'touch /tmp/work/.ready; while [ ! -e /tmp/work/.go ]; do busybox sleep 0.05; done; echo end'
	printf '%s\n%s\n' "$rc:$(echo $out)" "$err" >"$T/rootmv.res") &
for _ in $(seq 600); do [ -e "$WS/.ready" ] && break; sleep 0.05; done
mv "$R" "$R.moved" && sleep 0.3 && mv "$R.moved" "$R"
touch "$WS/.go"
wait
is "$(head -1 "$T/rootmv.res")" "0:end" root_option_root_renamed_on_host_run_goes_on
rm -f "$WS/.ready" "$WS/.go"
# A --mask below a bind's DEST is found at the bind's source, with --root
# as without (it was looked for in DIR only, and refused).
echo SECRET > "$WS/rootsecret"
chmod a+r "$WS/rootsecret"
kj exec --root "$R" --workspace "$WS:/tmp/work" --mask /tmp/work/rootsecret -- /bin/sh -c 'cat /tmp/work/rootsecret; echo end'
is "$rc:$out" "0:end" root_option_mask_below_workspace_dest
rm -f "$WS/rootsecret"
WS2=$(mktemp -d /var/tmp/kjail-ws.XXXXXX)
chmod 777 "$WS2"
kj exec --root "$R" --workspace "$WS2" -- /bin/true
expect_rc root_option_missing_workspace_dest_refused 125
like "$err" "kjail: workspace: create mount point $WS2: Read-only file system" root_option_missing_dest_message
rmdir "$WS2"
# A workspace DEST that is a symlink to / in the root: the command ran in
# the root's /, read-only, without its workspace (exit 0). Refused.
ln -s / "$R/up"
kj exec --root "$R" --workspace "$WS:/up" -- /bin/sh -c 'pwd; touch ws-probe'
like "$rc:$err" "^125:kjail: workspace: /up leads to / through a symbolic link" \
	root_option_workspace_dest_symlink_to_root_refused
rm -f "$R/up"
umount "$R/data"
rm -rf "$R"
kj exec --root /nonexistent -- true
expect_rc root_option_missing_dir_refused 125

# The sandbox's devpts holds at most 64 ptys: every devpts instance but
# the host's draws on one pool (kernel.pty.max), which one sandbox could
# otherwise empty for every other sandbox and container.
kj exec -- python3 -c 'import os
n = 0
fds = []
try:
    for _ in range(100):
        fds.append(os.open("/dev/pts/ptmx", os.O_RDWR | os.O_NOCTTY)); n += 1
except OSError as e:
    print(n, e.errno)'
is "$out" "64 28" devpts_holds_at_most_64_ptys

done_testing
