# Helpers for the tests of kjail's configuration files (bash; source it
# after lib.sh).
#
# /etc/kjail is real host configuration, and kjail deliberately takes no
# environment variable or flag to look elsewhere (whoever can set one could
# redirect the admin's policy). The host has no /etc/kjail, and a test must
# not create one. So kje runs kjail in a private mount namespace whose /etc
# is an overlay: the host's /etc below, $ETC_UP on top. $ETC_UP/kjail/...
# is /etc/kjail/... in there, writes land in $ETC_UP, and the host's /etc
# is never touched. The overlay is mounted by root (the test script), then
# kjail runs as the caller (setpriv for the unprivileged user), so kjail's
# own checks see exactly what they would on a real host.
#
# The caller's own settings live in $KJ_HOME/.config/kjail, owned by the
# caller; kje (and kj) run kjail with HOME=$KJ_HOME.

ETC_UP=$T/etc-up
ETC_WORK=$T/etc-work
KJ_HOME=$T/home
export KJ_HOME
USER_DIR=$KJ_HOME/.config/kjail
KJ_OWNER=$([ "$KJ_AS" = user ] && echo "$KJ_USER" || echo root)

reset_config() {
	rm -rf "$ETC_UP" "$ETC_WORK" "$KJ_HOME"
	mkdir -p "$ETC_UP/kjail/profiles" "$ETC_WORK" "$USER_DIR/profiles"
	chmod 0755 "$ETC_UP" "$ETC_UP/kjail" "$ETC_UP/kjail/profiles"
	chown -R "$KJ_OWNER" "$KJ_HOME"
	chmod -R 0755 "$KJ_HOME"
}
reset_config

# put FILE OWNER MODE LINE...: write the lines to FILE.
put() {
	local f=$1 owner=$2 mode=$3
	shift 3
	printf '%s\n' "$@" >"$f"
	chown "$owner" "$f"
	chmod "$mode" "$f"
}
sys_settings() { put "$ETC_UP/kjail/settings" root 0644 "$@"; }
user_settings() { put "$USER_DIR/settings" "$KJ_OWNER" 0644 "$@"; }
sys_profile() { local n=$1; shift; put "$ETC_UP/kjail/profiles/$n.profile" root 0644 "$@"; }
user_profile() { local n=$1; shift; put "$USER_DIR/profiles/$n.profile" "$KJ_OWNER" 0644 "$@"; }
sys_policy() { put "$ETC_UP/kjail/policy" root 0644 "$@"; }

# kje ARGS...: kjail as the caller, seeing the test's /etc/kjail; sets
# $out, $err and $rc like kj. The environment passes through (KJAIL_PROFILE).
kje() {
	local o=$T/.out.$$ e=$T/.err.$$ who=()
	if [ "$KJ_AS" = user ]; then
		who=(setpriv --reuid="$KJ_USER" --regid="$(id -g "$KJ_USER")" --clear-groups --)
	fi
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private -- sh -c '
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc || exit 99
		shift 2
		exec "$@"' sh "$ETC_UP" "$ETC_WORK" "${who[@]}" \
		env HOME="$KJ_HOME" USER="$KJ_OWNER" LOGNAME="$KJ_OWNER" "$KJAIL" "$@" \
		>"$o" 2>"$e" </dev/null
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}

# The limits cannot be enforced on every host (hybrid cgroups); runs that
# are about something else add these flags (tests/run.sh sets them).
NOLIM=${KJ_EXEC_ARGS:-}
