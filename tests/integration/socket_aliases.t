#!/bin/bash
# A host unix socket shown at a second place by another mount of its
# directory (a bind of /home or /var/tmp for a chroot): masked at the
# path it was bound by only, it stayed connectable at the other one,
# through the read-only root. And one bound below /tmp through a host
# bind of a /var/tmp directory: its file, in sight in /var/tmp, was not
# masked at all (mounts/sockets.c: add_aliases).
. "$(dirname "$0")/../lib.sh"

V=$(mktemp -d /var/tmp/kjail-sockalias.XXXXXX)
trap 'rm -rf "$V"; _cleanup' EXIT
mkdir -p "$V/real" "$V/alias" "$V/y" "$T/x"
chmod -R 755 "$V" "$T/x"

caller=()
[ "$KJ_AS" = user ] && caller=(setpriv --reuid="$KJ_USER" --regid="$(id -g "$KJ_USER")"
	--clear-groups -- env HOME=/nonexistent USER="$KJ_USER")
connect='import socket,sys
for p in sys.argv[1:]:
    s=socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print(p, "connected")
    except OSError as e:
        print(p, "refused", e.errno)'
listen='import socket,sys,os,time
ss=[]
for p in sys.argv[1:]:
    s=socket.socket(socket.AF_UNIX); s.bind(p); os.chmod(p, 0o777); s.listen(8); ss.append(s)
time.sleep(30)'

# In a mount namespace of the test's own (nothing is mounted on the
# host): $V/real shown at $V/alias too, and $V/y at $T/x. One socket
# bound at $V/real/a.sock, one at $T/x/b.sock (really $V/y/b.sock).
# shellcheck disable=SC2016
run='mount --bind "$V/real" "$V/alias" && mount --bind "$V/y" "$T/x" || exit 99
python3 -c "$listen" "$V/real/a.sock" "$T/x/b.sock" &
for _ in $(seq 50); do [ -S "$V/y/b.sock" ] && [ -S "$V/real/a.sock" ] && break; sleep 0.1; done
echo host: $("${caller[@]}" python3 -c "$connect" "$V/alias/a.sock" "$V/y/b.sock")
"${caller[@]}" "$KJAIL" exec $KJ_EXEC_ARGS --quiet -- python3 -c "$connect" \
	"$V/real/a.sock" "$V/alias/a.sock" "$V/y/b.sock"
echo rc=$?
kill %1'
out=$(cd "$WS" && V=$V T=$T KJAIL=$KJAIL KJ_EXEC_ARGS=$KJ_EXEC_ARGS listen=$listen \
	connect=$connect unshare -m --propagation private \
	bash -c "caller=(${caller[*]@Q}); $run" 2>&1)
like "$out" "host: $V/alias/a.sock connected $V/y/b.sock connected" \
	socket_aliases_reachable_on_host
like "$out" "$V/real/a.sock refused" socket_masked_at_its_path
like "$out" "$V/alias/a.sock refused" socket_masked_at_second_mount_of_its_directory
like "$out" "$V/y/b.sock refused" socket_bound_through_host_bind_masked_at_its_file
like "$out" "rc=0" socket_aliases_run_ok

done_testing
