#!/bin/bash
# Landlock on an older ABI: the guest's Debian 6.1 kernel has ABI 2 (no
# TRUNCATE, no TCP, no ioctl or scope rights). The same file rules hold,
# as root and as an ordinary user, and what the ABI lacks is simply not
# asked for (the layers below still stand).
. /tests/lib.sh

WS=/tmp/landlock-ws
mkdir -p "$WS" && chmod 0777 "$WS"
cd "$WS" || exit 1

# run ARGS...: kjail exec ARGS as root; as_run: as kjtest. Set out, err, rc.
run() {
	out=$("$KJAIL" exec "$@" 2>/tmp/landlock-err); rc=$?
	err=$(cat /tmp/landlock-err)
}
# (kjtest has no delegated cgroup here: no limits, see 10-limits.t.)
as_run() {
	out=$(as_user "$KJAIL" exec --memory max --pids max "$@" 2>/tmp/landlock-err); rc=$?
	err=$(cat /tmp/landlock-err)
}
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok "$3"; else
		not_ok "$3"; diag "got: $1" "want to match: $2"
	fi
}

abi_line='^kjail: stats: landlock ABI [0-9]+: files'
run --stats -- sh -c 'touch /run/x 2>&1; echo rc=$?'
like "$out" "Permission denied" "run_write_denied_by_landlock_root"
like "$err" "$abi_line" "stats_names_the_abi"
diag "$(printf '%s\n' "$err" | grep landlock)"
run --landlock off -- sh -c 'touch /run/x && echo written'
is "$out" written "run_writable_with_landlock_off"
# REFER (ABI 2): a rename across directories of the workspace; O_TRUNC of
# /dev/null and /tmp (TRUNCATE is not handled before ABI 3).
run -- sh -c 'mkdir a b && touch a/f && mv a/f b/ && echo x > /dev/null && echo x > /tmp/t && cat /tmp/t && rm -r a b'
is "$rc:$out" "0:x" "workspace_rename_and_truncating_opens_work_root"
as_run -- sh -c 'touch /run/x 2>&1; mkdir c && touch c/f && mv c/f . && rm -r c f && echo ok'
like "$out" "Permission denied" "run_write_denied_by_landlock_user"
like "$out" "ok$" "workspace_writable_user"
[ "$rc" = 0 ] || diag "exit $rc: $err"
run --landlock required -- true
is "$rc" 0 "landlock_required_works_on_abi_2"

done_testing
