#!/bin/bash
# The host's own secrets (/etc/shadow, /etc/gshadow, /etc/ssl/private...)
# shown at a second place by another mount of /, of /etc or of /etc/ssl
# (a chroot's, a container tool's): masked at their own path only, a
# root caller's sandbox (uid 0, their owner) read them there, through the
# read-only root and through a --ro grant of that mount
# (mounts/masks.c: secret_aliases_find).
. "$(dirname "$0")/../lib.sh"

V=$(mktemp -d /var/tmp/kjail-secretalias.XXXXXX)
trap 'rm -rf "$V"; _cleanup' EXIT
mkdir -p "$V/root" "$V/etc" "$V/ssl"
chmod -R 755 "$V"

caller=()
[ "$KJ_AS" = user ] && caller=(setpriv --reuid="$KJ_USER" --regid="$(id -g "$KJ_USER")"
	--clear-groups -- env HOME=/nonexistent USER="$KJ_USER")

# In a mount namespace of the test's own (nothing is mounted on the
# host): / at $V/root, /etc at $V/etc, /etc/ssl at $V/ssl. Inside, each
# place of a secret says what it is: the mask of a file is /dev/null (a
# character device), that of a directory an empty mode-0000 one.
# shellcheck disable=SC2016
run='mount --bind / "$V/root" && mount --bind /etc "$V/etc" || exit 99
if [ -d /etc/ssl ]; then mount --bind /etc/ssl "$V/ssl" || exit 99; fi
show="for f in \"\$@\"; do printf \"%s=%s \" \"\$f\" \"\$(stat -c %F:%a \"\$f\")\"; done"
echo own: $("${caller[@]}" "$KJAIL" exec $KJ_EXEC_ARGS --quiet -- sh -c "$show" sh \
	"$V/root/etc/shadow" "$V/etc/shadow" "$V/etc/gshadow" "$V/ssl/private" "$V/etc/passwd")
echo rc=$?
echo granted: $("${caller[@]}" "$KJAIL" exec $KJ_EXEC_ARGS --quiet --ro "$V/root:/tmp/r" \
	--ro "$V/etc:/tmp/e" -- sh -c "$show" sh /tmp/r/etc/shadow /tmp/e/shadow /tmp/e/ssl/private)
echo rc=$?'
out=$(cd "$WS" && V=$V KJAIL=$KJAIL KJ_EXEC_ARGS=$KJ_EXEC_ARGS unshare -m --propagation private \
	bash -c "caller=(${caller[*]@Q}); $run" 2>&1)
dev="character special file:666"
dir="directory:0"
like "$out" "$V/root/etc/shadow=$dev " host_secret_masked_at_second_mount_of_root
# A host without /etc/gshadow or /etc/ssl/private (the test VM's minimal
# root) has nothing there to mask: those checks skip.
if [ -e /etc/gshadow ]; then
	like "$out" "$V/etc/shadow=$dev $V/etc/gshadow=$dev " host_secrets_masked_at_second_mount_of_etc
else
	like "$out" "$V/etc/shadow=$dev " host_secrets_masked_at_second_mount_of_etc
fi
if [ -d /etc/ssl/private ]; then
	like "$out" "$V/ssl/private=$dir " host_secret_dir_masked_at_second_mount_of_etc_ssl
	like "$out" "granted: /tmp/r/etc/shadow=$dev /tmp/e/shadow=$dev /tmp/e/ssl/private=$dir( |$)" \
		host_secrets_masked_below_grant_of_second_mount
else
	skip host_secret_dir_masked_at_second_mount_of_etc_ssl "no /etc/ssl/private on this host"
	like "$out" "granted: /tmp/r/etc/shadow=$dev /tmp/e/shadow=$dev " \
		host_secrets_masked_below_grant_of_second_mount
fi
like "$out" "$V/etc/passwd=regular file:644( |$)" other_etc_files_still_readable_there
is "$(printf '%s\n' "$out" | grep -c '^rc=0$')" 2 secret_alias_runs_ok

done_testing
