#!/bin/bash
# Masks the plain list misses: git's XDG credential store, the stores
# below $XDG_CONFIG_HOME, and host sockets bound through a link or "..".
. "$(dirname "$0")/../lib.sh"

# A fake home and a separate XDG_CONFIG_HOME, under /var/tmp: the
# sandbox's /tmp is its own.
H=$(mktemp -d /var/tmp/kjail-home.XXXXXX)
X=$(mktemp -d /var/tmp/kjail-xdg.XXXXXX)
V=/var/tmp/kjail-test-$$
trap '[ -n "${NSPID:-}" ] && kill "$NSPID" 2>/dev/null; rm -rf "$H" "$X" "$V"; _cleanup' EXIT
chmod 755 "$H" "$X"
mkdir -p "$H/.config/git" "$X/gh" "$X/git" "$X/gcloud" "$X/kjail" "$X/other"
echo "SECRET-home-git" > "$H/.config/git/credentials"
echo "SECRET-home-plain" > "$H/.git-credentials"
echo "SECRET-xdg-gh" > "$X/gh/hosts.yml"
echo "SECRET-xdg-git" > "$X/git/credentials"
echo "SECRET-xdg-gcloud" > "$X/gcloud/credentials.db"
# Read as kjail's settings too (it is $XDG_CONFIG_HOME/kjail): a comment.
echo "# SECRET-xdg-kjail" > "$X/kjail/settings"
echo visible > "$X/other/conf"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$H" "$X"
export KJ_HOME=$H

HOME=$H kj exec -- sh -c 'cat ~/.config/git/credentials 2>/dev/null; echo end'
is "$out" "end" git_xdg_credential_store_in_home_masked
HOME=$H kj exec -- sh -c 'cat ~/.git-credentials 2>/dev/null; echo end'
is "$out" "end" git_plain_credential_store_still_masked

XDG_CONFIG_HOME=$X HOME=$H kj exec -- sh -c "cat $X/gh/hosts.yml 2>/dev/null; echo end"
is "$out" "end" xdg_config_home_gh_masked
XDG_CONFIG_HOME=$X HOME=$H kj exec -- sh -c "cat $X/git/credentials 2>/dev/null; echo end"
is "$out" "end" xdg_config_home_git_credentials_masked
XDG_CONFIG_HOME=$X HOME=$H kj exec -- sh -c "cat $X/gcloud/credentials.db $X/kjail/settings 2>/dev/null; echo end"
is "$out" "end" xdg_config_home_gcloud_and_kjail_masked
XDG_CONFIG_HOME=$X HOME=$H kj exec -- cat "$X/other/conf"
is "$out" "visible" xdg_config_home_otherwise_readable
# A relative value is invalid (the XDG Base Directory spec): ignored, it
# silently dropped the caller's settings in $XDG_CONFIG_HOME/kjail.
# Refused, and nothing runs.
XDG_CONFIG_HOME=rel HOME=$H kj exec -- echo ran
like "$rc:$out:$err" "^125::kjail: settings: XDG_CONFIG_HOME=rel is not an absolute path \(make it an absolute path, or unset it\)$" \
	xdg_config_home_relative_refused
unset KJ_HOME

# Host sockets bound through a link below /tmp, or through "..": the
# file really lies in /var/tmp, in sight through the read-only root.
mkdir -p "$V" && chmod 755 "$V"
ln -s "$V" "$T/lnk"
# listen_on PATH...: unix sockets listening (for 60 s), connectable by anyone.
listen_on() {
	exec python3 -c '
import socket, sys, os, time
ss = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX); s.bind(p); os.chmod(p, 0o777); s.listen(8); ss.append(s)
time.sleep(60)' "$@"
}
listen_on "$T/lnk/link.sock" "$T/../..$V/dot.sock" &
LPID=$!
for _ in $(seq 50); do [ -S "$V/link.sock" ] && [ -S "$V/dot.sock" ] && break; sleep 0.1; done
connect='import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused", e.errno)'
# The listener is reachable from the host (the test is not vacuous).
out=$(as_caller python3 -c "$connect" "$V/link.sock")
is "$out" "connected" host_socket_via_link_reachable_on_host
kj exec -- python3 -c "$connect" "$V/link.sock"
like "$out" "refused" host_socket_bound_through_tmp_link_masked
kj exec -- python3 -c "$connect" "$V/dot.sock"
like "$out" "refused" host_socket_bound_through_dotdot_masked
kj exec --ro "$V" -- python3 -c "$connect" "$V/link.sock"
is "$out" "connected" ro_grant_still_exposes_resolved_socket
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null

# The two fixtures below bind thousands of sockets: in a network
# namespace of the test's own, where kjail lists them, so that other
# kjail runs on this host never see them (4097 would make them refuse).
unshare -n sleep 300 &
NSPID=$!
# (exec: run in the background, the command itself is $!, so that the
# kill below ends it, not only the subshell around it.)
in_ns() { exec nsenter -t "$NSPID" -n "$@"; }
own_ns() { [ "$(readlink "/proc/$NSPID/ns/net")" != "$(readlink /proc/self/ns/net)" ]; }
ok test_network_namespace_made settles 10 own_ns

# One socket with many names in the host's list: every connection it
# accepted is listed with its path, and so is each socket bound there and
# unlinked since. Each counted as a socket to mask, so 4097 connections
# to any local user's socket (here in /var/tmp) made every run refuse
# with "more than 4096 host unix sockets".
in_ns python3 -c '
import os, resource, socket, sys, time
hard = max(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 16384)  # (root may raise it)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
p = sys.argv[1]
keep = []
for _ in range(2100):  # bound, then unlinked: same name, no file
    s = socket.socket(socket.AF_UNIX); s.bind(p); os.unlink(p); keep.append(s)
s = socket.socket(socket.AF_UNIX); s.bind(p); os.chmod(p, 0o777); s.listen(4096)
for _ in range(2100):
    c = socket.socket(socket.AF_UNIX); c.connect(p); keep += [c, s.accept()[0]]
open(p + ".ready", "w").close()
time.sleep(60)' "$V/busy.sock" &
BPID=$!
settles 30 test -e "$V/busy.sock.ready"
ok busy_socket_listed_over_4096_times test "$(in_ns grep -c " $V/busy.sock\$" /proc/net/unix)" -gt 4096
KJ_NETNS=$NSPID kj exec -- python3 -c "$connect" "$V/busy.sock"
like "$rc:$out" "^0:refused" busy_host_socket_masked_once_not_refused
kill "$BPID" 2>/dev/null
wait "$BPID" 2>/dev/null

# More distinct sockets than kjail masks is a refusal, not a partial mask
# (README "Host unix sockets": fail closed).
mkdir -p "$V/many"
in_ns python3 -c '
import os, resource, socket, sys, time
hard = max(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 16384)  # (root may raise it)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
keep = []
for i in range(4097):
    s = socket.socket(socket.AF_UNIX); s.bind("%s/%d.sock" % (sys.argv[1], i)); s.listen(1); keep.append(s)
open(sys.argv[1] + "/ready", "w").close()
time.sleep(60)' "$V/many" &
BPID=$!
settles 30 test -e "$V/many/ready"
KJ_NETNS=$NSPID kj exec -- touch "$WS/ran-many"
like "$rc:$err" "^125:kjail: mask: more than 4096 host unix sockets to mask" over_4096_distinct_sockets_refused
ok over_4096_distinct_sockets_command_not_run test ! -e "$WS/ran-many"
kill "$BPID" 2>/dev/null
wait "$BPID" 2>/dev/null
rm -rf "$V/many"
kill "$NSPID" 2>/dev/null
wait "$NSPID" 2>/dev/null

# A socket whose name holds a newline: /proc/net/unix prints the name raw
# (split over two lines, it was never masked); sock_diag gives it whole.
# And one inside a --root directory, at its place below the root.
NL="$V/new
line.sock"
R=$V/root
mkdir -p "$R/usr" "$R/proc" "$R/dev" "$R/tmp" "$R/run" "$R/sys" "$R/srv"
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$R/$l"; done
mount --bind /usr "$R/usr"
listen_on "$NL" "$R/srv/app.sock" &
LPID=$!
for _ in $(seq 50); do [ -S "$NL" ] && [ -S "$R/srv/app.sock" ] && break; sleep 0.1; done
out=$(as_caller python3 -c "$connect" "$NL")
is "$out" "connected" host_socket_with_newline_reachable_on_host
# Only sock_diag names it whole: a kernel without unix_diag (kjail then
# reads /proc/net/unix, README "Host unix sockets") cannot pass this.
diag_ok=$(python3 -c '
import socket, struct
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 4)
req = struct.pack("=BBHIIIII", 1, 0, 0, 0xffffffff, 0, 1, 0xffffffff, 0xffffffff)
s.send(struct.pack("=IHHII", 16 + len(req), 20, 0x301, 1, 0) + req)
d = s.recv(65536)
print("no" if struct.unpack_from("=H", d, 4)[0] == 2 else "yes")' 2>/dev/null)
if [ "$diag_ok" = yes ]; then
	kj exec -- python3 -c "$connect" "$NL"
	like "$out" "refused" host_socket_with_newline_in_name_masked
else
	skip host_socket_with_newline_in_name_masked "this kernel has no unix_diag (sock_diag for AF_UNIX)"
fi
kj exec --root "$R" --workspace "$WS:/tmp/ws" -- python3 -c "$connect" /srv/app.sock
like "$out" "refused" host_socket_inside_root_dir_masked
kj exec --root "$R" --workspace "$WS:/tmp/ws" --ro "$R/srv:/srv" -- python3 -c "$connect" /srv/app.sock
is "$out" "connected" host_socket_inside_root_dir_granted_stays
kill "$LPID" 2>/dev/null
wait "$LPID" 2>/dev/null
umount "$R/usr"

# The /dev nodes and the /dev/null of file masks are the host's own
# inodes, bound read-only: writes reach the device, metadata changes do
# not reach the host (a root caller's command could chmod the host's
# /dev/null). chmod to the mode it has and touch -r to its own times
# change nothing even where they would succeed.
kj exec -- sh -c 'echo x >/dev/null && echo wrote; chmod 0666 /dev/full 2>&1; touch -c -r /dev/null /dev/null 2>&1; chmod 0666 /etc/shadow 2>&1; true'
like "$out" "^wrote" dev_nodes_still_writable
if [ "$KJ_AS" = root ]; then
	is "$(printf '%s\n' "$out" | grep -c 'Read-only file system')" 3 dev_node_metadata_read_only_for_root
else
	is "$(printf '%s\n' "$out" | grep -Ec 'Read-only file system|Operation not permitted')" 3 dev_node_metadata_refused_for_user
fi

# A procfs (or sysfs) the host mounted outside /proc and /sys, as for a
# chroot (sbuild, mock): the host's processes were all listed through it.
mkdir -p "$V/chroot/proc" "$V/chroot/sys"
chmod -R a+rX "$V/chroot"
mount -t proc proc "$V/chroot/proc" && mount -t sysfs sysfs "$V/chroot/sys"
pids_on_host=$(ls "$V/chroot/proc" | grep -c '^[0-9]')
ok host_side_chroot_proc_lists_host_pids test "$pids_on_host" -gt 5
kj exec -- sh -c "ls $V/chroot/proc 2>/dev/null | grep -c '^[0-9]'; ls $V/chroot/sys 2>/dev/null | wc -l"
is "$out" "0
0" host_proc_and_sysfs_mounted_elsewhere_hidden
kj exec --ro "$V/chroot:/tmp/c" -- sh -c "ls /tmp/c/proc 2>/dev/null | grep -c '^[0-9]'; ls /tmp/c/proc/1 2>/dev/null | wc -l"
is "$out" "0
0" host_proc_mounted_elsewhere_hidden_below_a_grant
umount "$V/chroot/proc" "$V/chroot/sys"

# A --mask hides the file wherever a bind shows it: named by its host
# path while the workspace (or a grant) is bound elsewhere, or by the
# sandbox path below that DEST. Before, only the path given was masked.
mkdir -p "$WS/maskme" "$V/g"
echo SECRET-ws > "$WS/maskme/s.txt"
echo SECRET-grant > "$V/g/f"
echo SECRET-root > "$V/r"
chmod -R a+rX "$V"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/maskme"
kj exec --workspace "$WS:/tmp/w" --mask "$WS/maskme/s.txt" -- sh -c 'cat /tmp/w/maskme/s.txt; echo end'
is "$rc:$out" "0:end" mask_by_host_path_covers_remapped_workspace
kj exec --workspace "$WS:/tmp/w" --mask /tmp/w/maskme/s.txt -- sh -c 'cat /tmp/w/maskme/s.txt; echo end'
is "$rc:$out" "0:end" mask_by_sandbox_path_below_workspace_dest
kj exec --ro "$V/g:/tmp/pp" --mask "$V/g/f" -- sh -c "cat /tmp/pp/f $V/g/f; echo end"
is "$rc:$out" "0:end" mask_by_host_path_covers_grant_dest
kj exec --ro "$V:/tmp/pp" --mask /tmp/pp/r -- sh -c "cat /tmp/pp/r $V/r; echo end"
is "$rc:$out" "0:end" mask_by_dest_path_also_masks_host_path_through_root
kj exec --ro "$V:/tmp/pp" --mask /tmp/pp/absent -- true
is "$rc" 125 mask_below_dest_of_nothing_refused
kj exec --ro "$V:/tmp/pp" -- cat /tmp/pp/r
is "$out" "SECRET-root" unmasked_grant_still_readable
# A --mask below a bind's DEST masks the bind's file even when the host
# has a file at the same path (any local user can make /tmp/x/.env): that
# host file was masked instead, and the real one showed at its own path.
mkdir -p "$WS/mdest" && echo TOPSECRET >"$WS/mdest/.env"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/mdest"
DECOY=$T/decoy-dest
mkdir -p "$DECOY" && echo decoy >"$DECOY/.env" && chmod -R a+rX "$DECOY"
kj exec --ro "$WS/mdest:$DECOY" --mask "$DECOY/.env" -- sh -c "cat $DECOY/.env $WS/mdest/.env 2>/dev/null; echo end"
is "$rc:$out" "0:end" mask_below_dest_masks_source_not_host_decoy
# The host's secrets are masked below a grant's DEST too (a root caller
# showing /etc/ssl at /tmp/ssl saw /tmp/ssl/private and a bound shadow
# file whole). Root's lane: the unprivileged user cannot read them at all.
if [ "$KJ_AS" = root ]; then
	kj exec --ro /etc/ssl:/tmp/ssl --ro /etc/shadow:/tmp/sh -- sh -c \
		'ls -A /tmp/ssl/private 2>/dev/null | wc -l; wc -c </tmp/sh; ls /tmp/ssl | grep -c "^certs$"'
	is "$rc:$(echo $out)" "0:0 0 1" host_secrets_masked_below_grant_dest
else
	skip host_secrets_masked_below_grant_dest "the host's secrets are root's: only a root caller could see them"
fi
# A host with thousands of mounts (container hosts) still runs: the
# mount table has no cap (one of 4096 refused every run). The mounts are
# made in a mount namespace of the test's own.
if [ -n "${KJ_EMULATED:-}" ]; then
	skip many_host_mounts_still_run "4200 mounts take minutes under emulation (the VM); the host suite runs it"
else
	who=()
	[ "$KJ_AS" = user ] && who=(setpriv --reuid="$KJ_USER" --regid="$(id -g "$KJ_USER")" --clear-groups -- env HOME=/nonexistent)
	mkdir -p "$T/many"
	# shellcheck disable=SC2016
	out=$(unshare -m --propagation private -- sh -c '
		for i in $(seq 4200); do mkdir -p "$1/$i" && mount -t tmpfs -o size=4k none "$1/$i" || exit 99; done
		shift; exec "$@"' sh "$T/many" "${who[@]}" "$KJAIL" exec $KJ_EXEC_ARGS --quiet -- echo ran 2>&1 </dev/null)
	is "$?:$out" "0:ran" many_host_mounts_still_run
fi
# A --mask through a link in the workspace is refused as a --ro or --rw
# path through one is: an earlier run could have swapped it for a link to
# a decoy (it aborted the run with a bare "Not a directory" before).
mkdir -p "$WS/mreal" && echo SECRET >"$WS/mreal/secret" && ln -sfn mreal "$WS/mlink"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/mreal"
kj exec --mask "$WS/mlink/secret" -- true
like "$rc:$err" "^125:kjail: mask: --mask $WS/mlink/secret: $WS/mlink is a symlink inside $WS, which the sandbox can write \(give a path without symlinks" \
	mask_through_link_in_workspace_refused
rm -rf "$WS/mreal" "$WS/mlink"
# A mask cannot be moved aside with its directory: renamed, the mask went
# along, a decoy under the old name was what the next run masked, and
# the real file showed under the new name.
mkdir -p "$WS/conf" && echo TOPSECRET >"$WS/conf/secret.env"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$WS/conf"
kj exec --mask "$WS/conf/secret.env" -- sh -c 'mv conf conf.x 2>&1; mkdir -p conf; touch conf/secret.env'
like "$out" "Device or resource busy" masked_file_directory_cannot_be_moved
kj exec --mask "$WS/conf/secret.env" -- sh -c 'cat conf.x/secret.env conf/secret.env 2>/dev/null; echo end'
is "$out" "end" masked_file_stays_hidden_next_run
ok masked_file_directory_not_moved_on_host test ! -e "$WS/conf.x"
rm -rf "$WS/conf" "$WS/conf.x"
# Nested DESTs: the path is shown by the deepest bind that covers it (here
# the workspace, on top of the grant), and that bind's file is masked, not
# a decoy at the same place in the grant below.
# (The workspace lies under /var/tmp, so the read-only root shows it at
# its host path too.)
mkdir -p "$V/o/ws" "$V/w2"
echo DECOY > "$V/o/ws/s.txt"
echo SECRET-nested > "$V/w2/s.txt"
chmod -R a+rX "$V/o" "$V/w2"
[ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$V/w2"
kj exec --workspace "$V/w2:/tmp/a/ws" --ro "$V/o:/tmp/a" --mask /tmp/a/ws/s.txt -- sh -c "cat /tmp/a/ws/s.txt $V/w2/s.txt; echo end"
is "$rc:$out" "0:end" mask_below_nested_dests_hides_the_deepest_binds_file
rm -rf "$V/o" "$V/w2"

done_testing
