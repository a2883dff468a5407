#!/bin/bash
# Masks the plain list misses: git's XDG credential store, the stores
# below $XDG_CONFIG_HOME, and host sockets bound through a link or "..".
. "$(dirname "$0")/../lib.sh"

# A fake home and a separate XDG_CONFIG_HOME, under /var/tmp: the
# sandbox's /tmp is its own.
H=$(mktemp -d /var/tmp/kjail-home.XXXXXX)
X=$(mktemp -d /var/tmp/kjail-xdg.XXXXXX)
V=/var/tmp/kjail-test-$$
trap 'rm -rf "$H" "$X" "$V"; _cleanup' EXIT
chmod 755 "$H" "$X"
mkdir -p "$H/.config/git" "$X/gh" "$X/git" "$X/gcloud" "$X/kjail" "$X/other"
echo "SECRET-home-git" > "$H/.config/git/credentials"
echo "SECRET-home-plain" > "$H/.git-credentials"
echo "SECRET-xdg-gh" > "$X/gh/hosts.yml"
echo "SECRET-xdg-git" > "$X/git/credentials"
echo "SECRET-xdg-gcloud" > "$X/gcloud/credentials.db"
echo "SECRET-xdg-kjail" > "$X/kjail/settings"
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
# A relative value names a directory below the workspace: ignored.
XDG_CONFIG_HOME=rel HOME=$H kj exec -- echo ran
is "$rc:$out" "0:ran" xdg_config_home_relative_ignored
unset KJ_HOME

# Host sockets bound through a link below /tmp, or through "..": the
# file really lies in /var/tmp, in sight through the read-only root.
mkdir -p "$V" && chmod 755 "$V"
ln -s "$V" "$T/lnk"
python3 -c '
import socket, sys, os, time
ss = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX); s.bind(p); os.chmod(p, 0o777); s.listen(8); ss.append(s)
time.sleep(60)' "$T/lnk/link.sock" "$T/../..$V/dot.sock" &
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

done_testing
