#!/bin/bash
# A grant from inside a procfs the host mounted elsewhere (a chroot's
# /srv/chroot/x/proc for sbuild or schroot): refused like one inside the
# host's /proc. pseudofs.c hides such a mount only where a bind's source
# holds all of it, so `--ro .../proc/1:/tmp/p1` showed the host's pid 1
# and `--ro .../proc/sys:/tmp/s` the host's sysctls (mounts/binds.c:
# bind_clone).
. "$(dirname "$0")/../lib.sh"

V=$(mktemp -d /var/tmp/kjail-procgrant.XXXXXX)
trap 'rm -rf "$V"; _cleanup' EXIT
mkdir -p "$V/proc"
chmod 755 "$V" "$V/proc"

caller=()
[ "$KJ_AS" = user ] && caller=(setpriv --reuid="$KJ_USER" --regid="$(id -g "$KJ_USER")"
	--clear-groups -- env HOME=/nonexistent USER="$KJ_USER")

# In a mount namespace of the test's own (nothing is mounted on the
# host): a procfs of the host's pid namespace at $V/proc.
# shellcheck disable=SC2016
run='mount -t proc proc "$V/proc" || exit 99
echo host: $("${caller[@]}" cat "$V/proc/1/cmdline" | tr -d "\0" | head -c 4 | wc -c)
"${caller[@]}" "$KJAIL" exec $KJ_EXEC_ARGS --quiet --ro "$V/proc/1:/tmp/p1" -- cat /tmp/p1/cmdline
echo rc1=$?
"${caller[@]}" "$KJAIL" exec $KJ_EXEC_ARGS --quiet --ro "$V/proc/sys:/tmp/s" -- ls /tmp/s
echo rc2=$?'
out=$(cd "$WS" && V=$V KJAIL=$KJAIL KJ_EXEC_ARGS=$KJ_EXEC_ARGS unshare -m --propagation private \
	bash -c "caller=(${caller[*]@Q}); $run" 2>&1)
like "$out" "host: 4" pseudofs_grant_host_pid1_readable_on_host
like "$out" "rc1=125" pseudofs_grant_inside_proc_elsewhere_refused
like "$out" "kjail: ro: $V/proc/1 is on a kernel pseudo file system" pseudofs_grant_message
like "$out" "rc2=125" pseudofs_grant_proc_sys_elsewhere_refused
is "$(printf "%s\n" "$out" | grep -cx kernel)" 0 pseudofs_grant_shows_nothing

done_testing
