# tests/vm/guest/lib.sh: helpers for the guest test scripts (bash).
# Use in a test:   . /tests/lib.sh
#
# A test prints TAP result lines itself; the runner numbers them, so write
# "ok - description" / "not ok - description" (a plan line is optional; if
# present it is checked).  Anything else printed (stdout or stderr) is shown
# as a "# " comment.  A nonzero exit status counts as one extra failure, so
# end with "done_testing" (exit 0 unless something failed) or "exit 0".
# Every test starts as root, cwd /, in /sys/fs/cgroup/kjail-vm-tests/<name>.

KJAIL=${KJAIL:-/usr/local/bin/kjail}
KJTEST_USER=kjtest
KJTEST_UID=1000
KJTEST_GID=1000
KJTEST_HOME=/home/kjtest
CGROUP_ROOT=/sys/fs/cgroup
_kjvm_failed=0

ok()      { echo "ok - $*"; }
not_ok()  { echo "not ok - $*"; _kjvm_failed=$((_kjvm_failed + 1)); }
skip()    { local name=$1; shift; echo "ok - $name # SKIP ${*:-skipped}"; }
todo()    { local name=$1; shift; echo "not ok - $name # TODO ${*:-todo}"; }
diag()    { local l; printf '%s\n' "$@" | while IFS= read -r l; do echo "# $l"; done; }

# check DESCRIPTION CMD...: ok if CMD exits 0, else not ok with its output.
check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1); rc=$?
	if [ $rc -eq 0 ]; then ok "$name"; else
		not_ok "$name"
		diag "command: $*" "exit status: $rc" "$out"
	fi
	return $rc
}

# check_fail DESCRIPTION CMD...: ok if CMD exits nonzero.
check_fail() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1); rc=$?
	if [ $rc -ne 0 ]; then ok "$name"; else
		not_ok "$name"
		diag "command unexpectedly succeeded: $*" "$out"
	fi
	[ $rc -ne 0 ]
}

# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then ok "$3"; else
		not_ok "$3"; diag "got:  '$1'" "want: '$2'"
	fi
}

done_testing() { [ "$_kjvm_failed" -eq 0 ]; exit $?; }

# as_user CMD...: run CMD as kjtest (uid/gid 1000, no supplementary groups,
# HOME/USER/LOGNAME set, rest of the environment kept, same cwd and cgroup).
# util-linux setpriv when the image has it (see guest/bins), else busybox su.
_kjvm_setpriv=""
if setpriv --help 2>&1 | grep -q -- --reuid; then _kjvm_setpriv=1; fi
as_user() {
	if [ -n "$_kjvm_setpriv" ]; then
		HOME=$KJTEST_HOME USER=$KJTEST_USER LOGNAME=$KJTEST_USER \
			setpriv --reuid=$KJTEST_UID --regid=$KJTEST_GID --clear-groups -- "$@"
	else
		local q
		q=$(printf '%q ' "$@")
		HOME=$KJTEST_HOME su -s /bin/sh "$KJTEST_USER" -c "exec $q"
	fi
}

# make_delegated_cgroup NAME: create /sys/fs/cgroup/NAME with memory, pids
# and cpu enabled for its children and delegate it to kjtest (the directory
# and its cgroup.procs, cgroup.subtree_control and cgroup.threads are
# chowned, as systemd does for Delegate=yes).  The runner kills and removes
# it after the test.
#
# kjtest can then manage the subtree, but only for processes that already
# are inside it: a process can only be moved by a writer of the common
# ancestor's cgroup.procs.  So put the shell into a leaf first, as root, then
# drop privileges:
#
#   make_delegated_cgroup deleg
#   run_delegated deleg kjail -- /bin/true     # helper doing the below
#
#   # by hand:
#   mkdir /sys/fs/cgroup/deleg/shell
#   ( echo $BASHPID > /sys/fs/cgroup/deleg/shell/cgroup.procs
#     as_user kjail -- /bin/true )
#
# (processes may not live in a cgroup that has controllers enabled in its
# subtree_control, so the shell goes in a leaf, never in NAME itself.)
make_delegated_cgroup() {
	local cg=$CGROUP_ROOT/$1 c
	mkdir -p "$cg" || return 1
	echo "$1" >>"${KJAIL_VM_DELEGATED:-/run/kjail-vm/delegated}"
	for c in memory pids cpu; do
		echo "+$c" >"$cg/cgroup.subtree_control" || return 1
	done
	chown $KJTEST_UID:$KJTEST_GID "$cg" "$cg/cgroup.procs" \
		"$cg/cgroup.subtree_control" "$cg/cgroup.threads" || return 1
}

# run_delegated NAME CMD...: run CMD as kjtest from the leaf NAME/shell of a
# cgroup made by make_delegated_cgroup (the leaf is created and delegated
# too).  Returns CMD's exit status.
run_delegated() {
	local cg=$CGROUP_ROOT/$1
	shift
	mkdir -p "$cg/shell" &&
		chown $KJTEST_UID:$KJTEST_GID "$cg/shell" "$cg/shell/cgroup.procs" \
			"$cg/shell/cgroup.threads" || return 1
	( echo $BASHPID >"$cg/shell/cgroup.procs" || exit 1
	  as_user "$@" )
}
