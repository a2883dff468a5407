#!/bin/bash
# The host takes a mount away while a sandbox runs (runtime/mount_watch.c):
# a credential file saved by rename, .git/config rewritten by host git.
# The kernel detaches the sandbox's mask or read-only bind with the old
# file, so the sandbox is killed at once, exit 125, before it can read
# the new secret or plant a .git/config that host git would run.
# What this test mounts as "the host" it mounts in a mount namespace of
# its own: nothing is mounted on the real host, and all goes when it ends.
if [ -z "${KJ_MW_OWN_NS:-}" ]; then
	KJ_MW_OWN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"

H=$(mktemp -d /var/tmp/kjail-home.XXXXXX)
trap 'rm -rf "$H"; _cleanup' EXIT
chmod 755 "$H"
[ "$KJ_AS" = user ] && chown "$KJ_USER" "$H"
export KJ_HOME=$H
MSG='^kjail: mounts: the host removed, replaced or renamed a path the sandbox had masked or bound .*: its mount was gone or moved, so the sandbox was killed at once \(run it again; .*\)$'

# bg_run SCRIPT: kjail exec as the caller, in the background, running
# SCRIPT, which touches $WS/.ready once it runs and waits for $WS/.go;
# $bgpid is kjail's pid, its output in $T/bg.out and $T/bg.err.
# The markers go to $BG (default $WS; a --user command needs its own).
bg_run() {
	local d=${BG:-$WS}
	rm -f "$d/.ready" "$d/.go"
	# shellcheck disable=SC2086
	HOME=$H as_caller "$KJAIL" exec $KJ_EXEC_ARGS --timeout 60s -- sh -c \
		"touch $d/.ready; while [ ! -e $d/.go ]; do sleep 0.05; done; sleep 1; $1" \
		>"$T/bg.out" 2>"$T/bg.err" </dev/null &
	bgpid=$!
	for _ in $(seq 600); do [ -e "$d/.ready" ] && break; sleep 0.05; done
}
# bg_end: let the command go on, wait for kjail; $out, $err, $rc.
bg_end() {
	touch "${BG:-$WS}/.go"
	wait "$bgpid"
	rc=$?
	out=$(cat "$T/bg.out")
	err=$(grep -v '^kjail: cgroup: .* not enforced' "$T/bg.err")
}
# replace FILE TEXT: as a credential store or host git saves FILE: a new
# file renamed over it.
replace() {
	printf '%s\n' "$2" >"$1.new"
	[ "$KJ_AS" = user ] && chown "$KJ_USER" "$1.new"
	mv -f "$1.new" "$1"
}

# ------------------------------------------ a credential saved by rename
echo "OLD-SECRET" >"$H/.git-credentials"
bg_run 'cat ~/.git-credentials; echo read'
replace "$H/.git-credentials" "NEW-SECRET"
bg_end
is "$rc" 125 credential_replaced_on_host_run_killed_125
like "$err" "$MSG" credential_replaced_on_host_says_why
unlike "$out" "SECRET|read" credential_replaced_on_host_new_secret_never_read

# The same for a masked directory removed and made again. (One renamed
# away: below, "renamed on the host".)
mkdir -p "$H/.aws" && echo "OLD-AWS" >"$H/.aws/credentials"
bg_run 'cat ~/.aws/credentials; echo read'
rm -rf "$H/.aws" && mkdir "$H/.aws" && echo "NEW-AWS" >"$H/.aws/credentials"
bg_end
is "$rc:$out" "125:" masked_directory_remade_on_host_run_killed
rm -rf "$H/.aws"

# ------------------------------------------ .git/config rewritten by host git
# Host git saves .git/config by renaming config.lock over it, which takes
# the sandbox's read-only bind of it away: the command could then write
# core.fsmonitor, a command host git runs.
# (Host git as the caller: git refuses a repository another user owns.)
as_caller git init -q "$WS"
bg_run "git config core.fsmonitor 'touch $WS/PWNED' && echo planted"
as_caller git -C "$WS" config kjail.test yes
bg_end
is "$rc:$out" "125:" host_git_config_rewrite_run_killed
is "$(as_caller git -C "$WS" config --get core.fsmonitor)" "" host_git_config_rewrite_nothing_planted
rm -rf "$WS/.git"

# ------------------------------------------ renamed on the host
# A rename moves no mount: the mount goes along to the new name, and the
# old name, free, shows what the host makes there next. kjail watches each
# host entry it mounts on, and every directory above a mask on the same
# mount, for a rename (inotify). Each of these ran to the end, exit 0,
# with a sandbox that only watched the mount table.
# .git/hooks renamed away and made again: the command would plant a hook
# the host's next git runs.
as_caller git init -q "$WS"
bg_run "echo 'touch $WS/PWNED' >$WS/.git/hooks/pre-commit && echo planted"
mv "$WS/.git/hooks" "$WS/.git/hooks.old" && as_caller mkdir "$WS/.git/hooks"
bg_end
is "$rc:$out" "125:" hooks_renamed_on_host_run_killed
like "$err" "$MSG" hooks_renamed_on_host_says_why
ok hooks_renamed_on_host_nothing_planted test ! -e "$WS/.git/hooks/pre-commit"
# .git itself (held in place by a bind onto itself, which the host's
# rename takes along) renamed and made again.
bg_run "echo 'touch $WS/PWNED' >$WS/.git/hooks/pre-commit && echo planted"
mv "$WS/.git" "$WS/.git.old" && as_caller git init -q "$WS"
bg_end
is "$rc:$out" "125:" git_dir_renamed_on_host_run_killed
ok git_dir_renamed_on_host_nothing_planted test ! -e "$WS/.git/hooks/pre-commit"
# A rename elsewhere in .git or the workspace is no loss.
bg_run 'echo ran'
mv "$WS/.git/info" "$WS/.git/info.x" && mv "$WS/.git/info.x" "$WS/.git/info"
as_caller mkdir "$WS/sub" && mv "$WS/sub" "$WS/sub2"
bg_end
is "$rc:$out:$err" "0:ran:" other_renames_in_workspace_run_goes_on
rm -rf "$WS/.git" "$WS/.git.old" "$WS/sub2"
# as_caller_mkdir DIR...: made as the caller, as the caller's own are.
as_caller_mkdir() { mkdir -p "$@" && { [ "$KJ_AS" != user ] || chown -R "$KJ_USER" "$@"; }; }
# A masked directory renamed away and made again.
as_caller_mkdir "$H/.aws" && echo "OLD-AWS" >"$H/.aws/credentials"
bg_run 'cat ~/.aws/credentials; echo read'
mv "$H/.aws" "$H/.aws.old" && as_caller_mkdir "$H/.aws" && echo "NEW-AWS" >"$H/.aws/credentials"
bg_end
is "$rc:$out" "125:" masked_directory_renamed_on_host_run_killed
like "$err" "$MSG" masked_directory_renamed_on_host_says_why
rm -rf "$H/.aws" "$H/.aws.old"
# A directory above a mask: ~/.config renamed, then ~/.config/gh anew.
as_caller_mkdir "$H/.config/gh" && echo "OLD-GH" >"$H/.config/gh/hosts.yml"
bg_run 'cat ~/.config/gh/hosts.yml; echo read'
mv "$H/.config" "$H/.config.old" && as_caller_mkdir "$H/.config/gh" &&
	echo "NEW-GH" >"$H/.config/gh/hosts.yml"
bg_end
is "$rc:$out" "125:" directory_above_mask_renamed_on_host_run_killed
rm -rf "$H/.config" "$H/.config.old"
# A masked file kept as a backup by rename, as Emacs does, and written anew.
echo "OLD-NETRC" >"$H/.netrc"
bg_run 'cat ~/.netrc; echo read'
mv "$H/.netrc" "$H/.netrc~" && echo "NEW-NETRC" >"$H/.netrc"
bg_end
is "$rc:$out" "125:" masked_file_renamed_on_host_run_killed
rm -f "$H/.netrc" "$H/.netrc~"

# ------------------------------------------ made on the host during the run
# A credential store that was not there at the start has no mask: made on
# the host while the sandbox runs (`aws configure`, `gh auth login`, git's
# credential store saving by rename), it would show through the read-only
# root. kjail watches the deepest directory that is there for the name on
# the way, and ends the sandbox when it appears. (Each of these was read
# by the command before: 0, "read".)
AMSG="^kjail: mounts: $H/%s appeared on the host while the sandbox ran: kjail masks it, but it was missing at the start, so nothing hid it; the sandbox was killed at once \\(run it again.*\\)$"
bg_run 'cat ~/.aws/credentials; echo read'
as_caller_mkdir "$H/.aws" && echo "NEW-AWS" >"$H/.aws/credentials"
bg_end
is "$rc:$out" "125:" store_made_on_host_run_killed
# shellcheck disable=SC2059
like "$err" "$(printf "$AMSG" .aws)" store_made_on_host_says_what
rm -rf "$H/.aws"
# A file saved by rename into place.
bg_run 'cat ~/.netrc; echo read'
replace "$H/.netrc" "machine forge login x password NEW"
bg_end
is "$rc:$out" "125:" store_renamed_into_place_on_host_run_killed
# shellcheck disable=SC2059
like "$err" "$(printf "$AMSG" .netrc)" store_renamed_into_place_says_what
rm -f "$H/.netrc"
# Below a directory that is missing too: ~/.docker/config.json.
bg_run 'cat ~/.docker/config.json; echo read'
as_caller_mkdir "$H/.docker" && echo '{"auths":"NEW"}' >"$H/.docker/config.json"
bg_end
is "$rc:$out" "125:" store_dir_made_on_host_run_killed
rm -rf "$H/.docker"
# Below a directory that is there: ~/.config/gh.
as_caller_mkdir "$H/.config"
bg_run 'cat ~/.config/gh/hosts.yml; echo read'
as_caller_mkdir "$H/.config/gh" && echo "NEW-GH" >"$H/.config/gh/hosts.yml"
bg_end
is "$rc:$out" "125:" store_made_in_existing_dir_run_killed
# shellcheck disable=SC2059
like "$err" "$(printf "$AMSG" .config/gh)" store_made_in_existing_dir_says_what
rm -rf "$H/.config"
# Through a link that led nowhere at the start (a dotfiles manager's
# ~/.aws -> vault/aws): what it points to made on the host.
ln -s "$H/vault/aws" "$H/.aws"
[ "$KJ_AS" = user ] && chown -h "$KJ_USER" "$H/.aws"
bg_run 'cat ~/.aws/credentials; echo read'
as_caller_mkdir "$H/vault/aws" && echo "NEW-VAULT" >"$H/vault/aws/credentials"
bg_end
is "$rc:$out" "125:" store_made_behind_dangling_link_run_killed
rm -rf "$H/.aws" "$H/vault"
# Control: other names made in the same directories, and a directory
# renamed there that holds no store: the run goes on.
as_caller_mkdir "$H/.config"
bg_run 'echo ran'
echo notes >"$H/notes.txt" && as_caller_mkdir "$H/.cache" "$H/.config/other"
mv "$H/notes.txt" "$H/notes.old"
bg_end
is "$rc:$out:$err" "0:ran:" other_names_made_on_host_run_goes_on
rm -rf "$H/.config" "$H/.cache" "$H/notes.old"
# No inotify instance left for the caller (fs.inotify.max_user_instances,
# per user): kjail cannot watch for a rename, and does not run. Only as
# the unprivileged test user: taking all of root's would fail the host's
# own daemons.
if [ "$KJ_AS" = user ]; then
	mkfifo "$T/hog.in"
	as_caller "$PROBES/inotify_hog" <"$T/hog.in" >"$T/hog.out" &
	hog=$!
	exec 7>"$T/hog.in"
	settles 10 test -s "$T/hog.out"
	like "$(cat "$T/hog.out")" '^[0-9]+$' inotify_instances_all_taken
	# shellcheck disable=SC2086
	out=$(cd "$WS" && HOME=$H as_caller "$KJAIL" doctor $KJ_EXEC_ARGS </dev/null)
	like "$(printf '%s\n' "$out" | grep -E '^[a-z]+ +inotify ')" "^fail +inotify +([0-9]+) of \1 instances in use by uid $(as_caller id -u) .*\(fix: end sessions not in use" \
		no_inotify_instance_left_doctor_says_so
	# shellcheck disable=SC2086
	out=$(cd "$WS" && HOME=$H as_caller "$KJAIL" exec $KJ_EXEC_ARGS -- echo ran 2>"$T/hog.err" </dev/null)
	rc=$?
	err=$(grep -v 'not enforced' "$T/hog.err")
	exec 7>&-
	wait "$hog"
	is "$rc:$out" "125:" no_inotify_instance_left_run_refused
	like "$err" "^kjail: mounts: watch the paths kjail masked or bound for a rename on the host, and those missing for their making: Too many open files \(each running sandbox and session holds an inotify instance: .*fs.inotify.max_user_instances.*\)$" \
		no_inotify_instance_left_says_why
fi

# ------------------------------------------ what the command cannot read
# A mask over a file the command could not read anyway (root's, 0600:
# /etc/shadow for an unprivileged caller) is not watched: the host saving
# it by rename (useradd, passwd, visudo) killed every unprivileged
# sandbox. A root caller's sandbox can read it: killed.
printf 'OLD\n' >"$H/root-only" && chmod 600 "$H/root-only"
saved=$KJ_EXEC_ARGS
KJ_EXEC_ARGS="$KJ_EXEC_ARGS --mask $H/root-only"
bg_run 'echo ran'
KJ_EXEC_ARGS=$saved
printf 'NEW\n' >"$H/root-only.new" && chmod 600 "$H/root-only.new" && mv -f "$H/root-only.new" "$H/root-only"
bg_end
if [ "$KJ_AS" = user ]; then
	is "$rc:$out:$err" "0:ran:" unreadable_masked_file_replaced_run_goes_on
else
	is "$rc:$out" "125:" readable_masked_file_replaced_root_run_killed
fi
rm -f "$H/root-only"

# The same with --user (root only): checked as that user, not with root's
# rights. A CI runner's job run as its own uid was killed whenever the
# host saved /etc/shadow (useradd for the next job's user). One the user
# can read (0644) is watched: killed.
if [ "$KJ_AS" != user ]; then
	BG=$H/uws && mkdir "$BG" && chown "$KJ_USER" "$BG"
	for mode in 600 644; do
		printf 'OLD\n' >"$H/root-only" && chmod $mode "$H/root-only"
		KJ_EXEC_ARGS="$saved --user $KJ_USER --workspace $BG --mask $H/root-only"
		bg_run 'echo ran'
		KJ_EXEC_ARGS=$saved
		printf 'NEW\n' >"$H/root-only.new" && chmod $mode "$H/root-only.new" &&
			mv -f "$H/root-only.new" "$H/root-only"
		bg_end
		if [ $mode = 600 ]; then
			is "$rc:$out:$err" "0:ran:" user_option_unreadable_masked_file_replaced_run_goes_on
		else
			is "$rc:$out" "125:" user_option_readable_masked_file_replaced_run_killed
		fi
	done
	# A directory the user may not search (0700 root), renamed: not
	# watched either; one it may search (0755), renamed: killed.
	for mode in 700 755; do
		mkdir -p "$H/rootdir" && chmod $mode "$H/rootdir"
		KJ_EXEC_ARGS="$saved --user $KJ_USER --workspace $BG --mask $H/rootdir"
		bg_run 'echo ran'
		KJ_EXEC_ARGS=$saved
		mv "$H/rootdir" "$H/rootdir.old" && mkdir "$H/rootdir"
		bg_end
		rm -rf "$H/rootdir" "$H/rootdir.old"
		if [ $mode = 700 ]; then
			is "$rc:$out:$err" "0:ran:" user_option_unsearchable_masked_dir_renamed_run_goes_on
		else
			is "$rc:$out" "125:" user_option_searchable_masked_dir_renamed_run_killed
		fi
	done
	unset BG
	rm -f "$H/root-only"
fi

# ------------------------------------------ a host socket's mask
# A host unix socket is masked when the sandbox starts; one bound after
# that is in its sight (README, "Host unix sockets"). So a masked socket
# that its service removes (and may bind again) is no loss: the run goes
# on. It was killed, and with it every session that had the socket
# masked, whenever a host service stopped or restarted.
# stop_listener: the listener (the child of the background subshell of
# as_caller, the function) and the subshell.
stop_listener() {
	pkill -P "$lpid"
	kill "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
}
as_caller_mkdir "$H/sockdir"
as_caller python3 -c '
import socket, sys, os, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
time.sleep(120)' "$H/sockdir/app.sock" &
lpid=$!
settles 10 test -S "$H/sockdir/app.sock"
HOME=$H kj exec -- sh -c "test -c $H/sockdir/app.sock && echo masked"
is "$rc:$out" "0:masked" host_socket_masked_in_sandbox
bg_run 'echo ran'
stop_listener
rm -f "$H/sockdir/app.sock"
bg_end
is "$rc:$out:$err" "0:ran:" host_socket_removed_run_goes_on
# Its directory renamed on the host takes the mask along: no loss either.
as_caller python3 -c '
import socket, sys, os, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
time.sleep(120)' "$H/sockdir/app.sock" &
lpid=$!
settles 10 test -S "$H/sockdir/app.sock"
bg_run 'echo ran'
mv "$H/sockdir" "$H/sockdir.old"
bg_end
is "$rc:$out:$err" "0:ran:" host_socket_dir_renamed_run_goes_on
stop_listener
rm -rf "$H/sockdir" "$H/sockdir.old"

# ------------------------------------------ nothing changed: nothing killed
echo "OLD-SECRET" >"$H/.git-credentials"
bg_run 'cat ~/.git-credentials; echo read'
echo "other" >"$H/unrelated" && mv "$H/unrelated" "$H/unrelated2"
bg_end
is "$rc:$out:$err" "0:read:" unrelated_host_change_run_goes_on

# ------------------------------------------ a host mount's copy is not kjail's
# The read-only root is a recursive copy: the sandbox holds a copy of
# every host mount, hidden (below its fresh /tmp, as /run/user/1000 is
# below its /run) or not. The host unmounting one and removing its
# directory (an ejected USB stick, a removed container's overlay, another
# test's fixture) detaches the copy too, but hides nothing kjail hid: the
# run goes on. (Every running sandbox was killed for it.)
# host_mount DIR: a tmpfs at DIR, made by the test (root) on the host.
host_mount() { mkdir "$1" && mount -t tmpfs -o size=4k kjail-fixture "$1"; }
host_unmount() { umount "$1" && rmdir "$1"; }
host_mount "$T/hidden" && host_mount "$H/visible"
bg_run 'echo ran'
host_unmount "$T/hidden" && host_unmount "$H/visible"
bg_end
is "$rc:$out:$err" "0:ran:" host_mount_copies_removed_run_goes_on
# kjail's masks on such a copy go with it: the host's second mount of the
# home (a chroot's bind of it, a schroot session's) is masked there too;
# unmounted and removed on the host, nothing of it is in sight.
V=$(mktemp -d /var/tmp/kjail-mwalias.XXXXXX)
chmod 755 "$V"
trap 'as_caller "$KJAIL" rm "${S:-none}" >/dev/null 2>&1; rm -rf "$H" "$V"; _cleanup' EXIT
echo "OLD-SECRET" >"$H/.git-credentials"
mkdir "$V/alias" && mount --bind "$H" "$V/alias"
# shellcheck disable=SC2086
out=$(HOME=$H as_caller "$KJAIL" exec $KJ_EXEC_ARGS --quiet -- cat "$V/alias/.git-credentials" 2>&1)
is "$out" "" home_alias_masked
bg_run 'echo ran'
host_unmount "$V/alias"
bg_end
is "$rc:$out:$err" "0:ran:" home_alias_removed_with_its_mask_run_goes_on
# At any moment of the start: the mounts kjail made are read at the
# first change (or 25 ms after the start), and only those count.
early=''
for d in 0 0.002 0.005 0.01 0.015 0.02 0.03 0.04 0.06 0.1; do
	host_mount "$H/early"
	# shellcheck disable=SC2086
	HOME=$H as_caller "$KJAIL" exec $KJ_EXEC_ARGS -- sleep 0.3 >/dev/null 2>"$T/early.err" </dev/null &
	pid=$!
	sleep "$d"
	host_unmount "$H/early"
	wait "$pid"
	r=$?
	[ "$r" = 0 ] || early="$early $d:$r:$(grep -v 'not enforced' "$T/early.err")"
done
is "$early" "" host_mount_copy_removed_at_start_run_goes_on

# ------------------------------------------ a mount that comes is no loss
# The kernel mounts an NFSv4 or CIFS submount in the namespace of
# whoever walks into one. Here the test (root) mounts a tmpfs into the
# sandbox's namespace from outside, once the watch has read the mounts
# the sandbox started with (25 ms after the start): the run goes on. A
# mount it started with unmounted the same way kills it.
# (-p: umount reads /proc/self/mountinfo, which the sandbox's own /proc
# shows only to its own processes.)
# sandbox_init: the first process below the background run (kjail is
# below as_caller's subshell) in another mount namespace: the sandbox's.
sandbox_init() {
	local todo=$bgpid c
	while [ -n "$todo" ]; do
		set -- $todo
		c=$1
		shift
		todo="$* $(kj_children "$c")"
		todo=${todo# }
		[ "$(readlink "/proc/$c/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] && echo "$c" && return
	done
}
bg_run 'grep -c kjail-added /proc/self/mountinfo'
sleep 1
nsenter -t "$(sandbox_init)" -m -p mount -t tmpfs -o size=4k kjail-added /dev/shm
bg_end
is "$rc:$out:$err" "0:1:" mount_added_into_sandbox_run_goes_on
bg_run 'echo ran'
sleep 1
nsenter -t "$(sandbox_init)" -m -p umount -l /tmp 2>/dev/null
bg_end
like "$rc:$out:$err" "^125::kjail: mounts: " mount_removed_from_sandbox_run_killed

# ------------------------------------------ the watch's last closes
# Two last closes at the end of every run are slow, and the caller waited
# for them as kjail's exit: the rename watch's (an inotify instance with
# watches waits for an SRCU grace period, 1-10 ms) and the sandbox's
# mountinfo's (it holds the mount namespace once init is gone: the tree
# is unmounted then, 0.3 ms). A child makes them instead (kjail-close,
# runtime/close_detached.c), in this order, seen in strace -f -y: the
# child closes every fd of the caller's before kjail ends (a reader of
# kjail's stdout sees end of file then), and kjail closes its copy of
# each before the child closes the last one. Every read(2) is delayed by
# 30 ms (strace's inject): kjail's wait for the child's word is one, so a
# child that closed its copies without waiting for kjail's (the order
# this checks) would close first every time; without the delay kjail won
# that race under strace anyway, and such a child passed. Root lane: the
# unprivileged caller cannot trace the sandbox's init, which is not
# dumpable (its strace -f fails), and the code is one for both.
if [ "$KJ_AS" = user ]; then
	skip watch_last_closes_made_by_child_after_kjail_and_its_caller_fds \
		"strace -f of kjail needs root: the sandbox's init is not dumpable"
elif command -v strace >/dev/null; then
	as_caller_mkdir "$H/.aws" && echo "KEY" >"$H/.aws/credentials"
	# shellcheck disable=SC2086
	HOME=$H as_caller strace -f -y -e inject=read:delay_enter=30000 -o "$T/close.trace" \
		"$KJAIL" exec $KJ_EXEC_ARGS -- true \
		>/dev/null 2>&1
	rc=$?
	main=$(head -n 1 "$T/close.trace" | awk '{print $1}')
	closer=$(grep -E '^[0-9]+ +prctl\(PR_SET_NAME, "kjail-close"' "$T/close.trace" | awk '{print $1}')
	# Each kind: where kjail closed it last and where the child did.
	order=$(awk -v m="$main" -v c="$closer" '
		function kind(s) { return s ~ /<anon_inode:inotify>/ ? "watch" : s ~ /mountinfo>/ ? "mountinfo" : "" }
		$1 == c && /close_range\(/ && !cr { cr = NR }
		$1 == m && $2 ~ /^close\(/ && kind($2) != "" { mc[kind($2)] = NR }
		$1 == c && $2 ~ /^close\(/ && kind($2) != "" { cc[kind($2)] = NR }
		$1 == m && /exit_group/ { ex = NR }
		END {
			printf "%s", (cr && ex && cr < ex ? "caller-fds-closed-before-kjail-ends" : "late")
			split("watch mountinfo", k, " ")
			for (i = 1; i <= 2; i++)
				printf " %s:%s", k[i], (mc[k[i]] && cc[k[i]] && mc[k[i]] < cc[k[i]] ? "child-closes-last" : "kjail-closes-last")
			print "" }' "$T/close.trace")
	is "$rc:${closer:+closer}:$order" \
		"0:closer:caller-fds-closed-before-kjail-ends watch:child-closes-last mountinfo:child-closes-last" \
		watch_last_closes_made_by_child_after_kjail_and_its_caller_fds
	rm -rf "$H/.aws"
else
	skip watch_last_closes_made_by_child_after_kjail_and_its_caller_fds "no strace"
fi

# ------------------------------------------ a session ends for it
session_test_setup
S=kjt-mw-$$
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; rm -rf "$H" "$V"; _cleanup' EXIT
HOME=$H kj create $CREATE_ARGS "$S"
expect_rc session_created 0
HOME=$H kj exec -s "$S" -- sh -c 'cat ~/.git-credentials; echo read'
is "$rc:$out" "0:read" session_credential_masked
# An exec running in it when it is killed says why too (it said only
# "session ended").
rm -f "$WS/.running"
HOME=$H as_caller "$KJAIL" exec -s "$S" -- sh -c "touch $WS/.running; sleep 60" \
	>/dev/null 2>"$T/running.err" </dev/null &
running=$!
settles 10 test -e "$WS/.running"
replace "$H/.git-credentials" "NEW-SESSION-SECRET"
wait "$running"
rrc=$?
like "$rrc:$(cat "$T/running.err")" "^125:kjail: session: session '$S' was killed: the host removed, replaced or renamed a path .*" \
	session_killed_running_exec_says_why
# session_stopped: the supervisor has killed it (or the exec below could
# come first, while it is being killed, and fail for another reason).
session_stopped() {
	HOME=$H kj ls --json
	case $out in *"\"name\":\"$S\",\"state\":\"running\""*) return 1 ;; esac
}
ok session_stopped_after_host_replaced_credential settles 10 session_stopped
HOME=$H kj exec -s "$S" -- sh -c 'cat ~/.git-credentials; echo read'
unlike "$out" "SECRET|read" session_credential_replaced_never_read
like "$rc:$err" "^125:kjail: session: session '$S' was killed: the host removed, replaced or renamed a path it had masked or bound .* \(kjail rm it and create it again; .*\)$" \
	session_killed_exec_says_why
HOME=$H kj ls
like "$out" "$S +killed" session_killed_listed_as_killed
as_caller "$KJAIL" rm "$S" >/dev/null 2>&1

# A masked directory renamed on the host ends the session too.
as_caller_mkdir "$H/.aws" && echo "OLD-AWS" >"$H/.aws/credentials"
HOME=$H kj create $CREATE_ARGS "$S"
expect_rc session_created_for_rename 0
mv "$H/.aws" "$H/.aws.old" && as_caller_mkdir "$H/.aws" && echo "NEW-AWS" >"$H/.aws/credentials"
ok session_stopped_after_host_renamed_mask settles 10 session_stopped
HOME=$H kj exec -s "$S" -- sh -c 'cat ~/.aws/credentials; echo read'
unlike "$out" "AWS|read" session_renamed_mask_never_read
like "$rc:$err" "^125:kjail: session: session '$S' was killed: the host removed, replaced or renamed a path it had masked or bound" \
	session_renamed_mask_exec_says_why
as_caller "$KJAIL" rm "$S" >/dev/null 2>&1
rm -rf "$H/.aws" "$H/.aws.old"

# A credential store made on the host ends the session too.
HOME=$H kj create $CREATE_ARGS "$S"
expect_rc session_created_for_appear 0
as_caller_mkdir "$H/.kube" && echo "NEW-KUBE" >"$H/.kube/config"
ok session_stopped_after_host_made_store settles 10 session_stopped
HOME=$H kj exec -s "$S" -- sh -c 'cat ~/.kube/config; echo read'
unlike "$out" "KUBE|read" session_store_made_never_read
like "$rc:$err" "^125:kjail: session: session '$S' was killed: .*, or made a credential store it masks where there was none" \
	session_store_made_exec_says_why
as_caller "$KJAIL" rm "$S" >/dev/null 2>&1
rm -rf "$H/.kube"

# A host mount's copy removed: the session goes on.
host_mount "$H/session-fixture"
HOME=$H kj create $CREATE_ARGS "$S"
expect_rc session_created_again 0
HOME=$H kj exec -s "$S" -- true
host_unmount "$H/session-fixture"
sleep 0.2
HOME=$H kj exec -s "$S" -- sh -c 'cat ~/.git-credentials; echo read'
is "$rc:$out:$err" "0:read:" session_goes_on_after_host_mount_copy_removed

done_testing
