#!/bin/bash
# kill -9 of `kjail rm` midway leaves nothing the next `kjail rm` does
# not remove. Deterministic: strace kills rm at the unlink of the name's
# lock file, after it forgot the record (the state it left a few times
# in a hundred random kills).
. "$(dirname "$0")/../lib.sh"

session_test_setup
S=sk9-$$
if [ "$KJ_AS" = user ]; then sdir=$XDG_RUNTIME_DIR/kjail; else sdir=/run/kjail; fi
trap 'as_caller "$KJAIL" rm "$S" >/dev/null 2>&1; rm -f "$sdir/$S.lock"; _cleanup' EXIT
files() { ls -A "$sdir" 2>/dev/null | grep "^$S\." | tr '\n' ' '; }

# shellcheck disable=SC2086
kj create $CREATE_ARGS "$S"
expect_rc session_created 0
as_caller strace -qq -o /dev/null -P "$sdir/$S.lock" -e trace=unlink \
	-e inject=unlink:signal=SIGKILL "$KJAIL" rm "$S" </dev/null >/dev/null 2>&1
krc=$?
is "$krc:$(files)" "137:$S.lock " rm_killed_at_lock_unlink_leaves_only_its_lock
kj rm "$S"
like "$rc:$err" "^125:kjail: session: no session '$S'" rm_after_killed_rm_says_no_session
is "$(files)" "" rm_after_killed_rm_removes_the_stray_lock
# shellcheck disable=SC2086
kj create $CREATE_ARGS "$S"
expect_rc create_after_killed_rm_works 0
kj rm "$S"
is "$rc:$(files)" "0:" rm_after_recreate_leaves_nothing

done_testing
