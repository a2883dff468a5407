#!/bin/bash
# The VM harness itself: cgroup v2, the kjail binary, the test user, user
# namespaces and cgroup delegation all work as the other tests assume.
. /tests/lib.sh

# --- cgroup v2 ---------------------------------------------------------------
fstype=$(awk '$2 == "/sys/fs/cgroup" { print $3 }' /proc/mounts)
is "$fstype" cgroup2 "cgroup2 mounted at /sys/fs/cgroup"
grep -q ' cgroup ' /proc/mounts && diag "$(grep ' cgroup ' /proc/mounts)"
check_fail "no cgroup v1 hierarchy mounted" grep -q ' cgroup ' /proc/mounts

controllers=" $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null) "
subtree=" $(cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null) "
for c in memory pids cpu; do
	case $controllers in *" $c "*) ok "controller $c available";;
	*) not_ok "controller $c available"; diag "cgroup.controllers:$controllers";; esac
	case $subtree in *" $c "*) ok "controller $c enabled in the root subtree";;
	*) not_ok "controller $c enabled in the root subtree"; diag "subtree_control:$subtree";; esac
done

self=$(cat /proc/self/cgroup)
case $self in
0::/*) [ "$(wc -l </proc/self/cgroup)" -eq 1 ] &&
	ok "/proc/self/cgroup is unified only ($self)" ||
	{ not_ok "/proc/self/cgroup is unified only"; diag "$self"; };;
*) not_ok "/proc/self/cgroup is unified only"; diag "$self";;
esac

# --- kjail binary --------------------------------------------------------------
if [ -x "$KJAIL" ]; then ok "kjail installed at $KJAIL"; else not_ok "kjail installed at $KJAIL"; fi

# Libraries: ask the dynamic loader (no ldd in busybox).  Static: nothing to do.
loader=$(ls /lib64/ld-linux-x86-64.so.2 2>/dev/null)
if head -c 4096 "$KJAIL" 2>/dev/null | grep -q 'ld-linux' && [ -n "$loader" ]; then
	libs=$("$loader" --list "$KJAIL" 2>&1); rc=$?
	if [ $rc -eq 0 ] && ! printf '%s\n' "$libs" | grep -q 'not found'; then
		ok "kjail shared libraries resolve"
	else
		not_ok "kjail shared libraries resolve"; diag "$libs"
	fi
else
	skip "kjail shared libraries resolve" "not dynamically linked"
fi

# --version: any exit status counts as "loaded and ran" (the program may not
# implement it yet) except exec/loader failures and crashes.
out=$("$KJAIL" --version 2>&1 </dev/null); rc=$?
diag "kjail --version: exit $rc: $(printf '%s' "$out" | head -n 3)"
if [ $rc -eq 126 ] || [ $rc -eq 127 ] || [ $rc -gt 128 ] ||
	printf '%s' "$out" | grep -qiE 'error while loading shared|cannot open shared object|exec format error|no such file or directory|symbol lookup error|version .GLIBC'; then
	not_ok "kjail --version runs (loads and does not crash)"
else
	ok "kjail --version runs (loads and does not crash)"
fi

# --- test user -----------------------------------------------------------------
is "$(id -u kjtest 2>/dev/null):$(id -g kjtest 2>/dev/null)" "1000:1000" "user kjtest is 1000:1000"
is "$(stat -c %u:%g "$KJTEST_HOME" 2>/dev/null)" "1000:1000" "$KJTEST_HOME exists, owned by kjtest"
is "$(stat -c %a /tmp)" 1777 "/tmp is 1777"
is "$(as_user id -u 2>&1):$(as_user id -g 2>&1)" "1000:1000" "as_user runs as kjtest"
check "kjtest can write its home" as_user sh -c 'echo x >"$HOME/probe" && rm "$HOME/probe"'

# --- user namespaces -------------------------------------------------------------
if command -v unshare >/dev/null 2>&1; then
	out=$(as_user unshare -U -r id -u 2>&1)
	if [ "$out" = 0 ]; then ok "unprivileged user namespace for kjtest (uid 0 inside)"
	else
		not_ok "unprivileged user namespace for kjtest (uid 0 inside)"
		diag "$out" "unprivileged_userns_clone=$(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null)" \
			"max_user_namespaces=$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)"
	fi
else
	skip "unprivileged user namespace for kjtest" "no unshare in the image"
fi

# --- cgroup delegation -------------------------------------------------------------
if make_delegated_cgroup h00; then
	ok "make_delegated_cgroup h00"
	owner=$(stat -c %u /sys/fs/cgroup/h00/cgroup.procs)
	is "$owner" 1000 "delegated cgroup.procs owned by kjtest"
	# As kjtest, from the leaf: make a child, move into it, limit it.
	out=$(run_delegated h00 sh -c '
		set -e
		d=/sys/fs/cgroup/h00/child
		mkdir $d
		echo $$ >$d/cgroup.procs
		echo 64 >$d/pids.max
		echo 64M >$d/memory.max
		echo "50000 100000" >$d/cpu.max
		id -u; cat /proc/self/cgroup; cat $d/pids.max' 2>&1); rc=$?
	want=$(printf '1000\n0::/h00/child\n64')
	if [ $rc -eq 0 ] && [ "$out" = "$want" ]; then
		ok "kjtest manages its delegated subtree (mkdir, move, pids/memory/cpu limits)"
	else
		not_ok "kjtest manages its delegated subtree"; diag "exit $rc" "$out"
	fi
	check_fail "kjtest cannot write cgroup.procs outside its delegation" \
		run_delegated h00 sh -c 'echo $$ >/sys/fs/cgroup/kjail-vm-init/cgroup.procs'
else
	not_ok "make_delegated_cgroup h00"
fi

# --- misc environment --------------------------------------------------------------
for m in $(cat /etc/kjail-vm/modules 2>/dev/null); do
	check "module $m loaded" test -d /sys/module/$m
done
check "devpts mounted" grep -q ' /dev/pts devpts ' /proc/mounts
check "bash process substitution (/dev/fd)" bash -c 'cat <(echo hi) >/dev/null'
check "root is a tmpfs (pivot_root possible)" sh -c "awk '\$2 == \"/\" { print \$3 }' /proc/mounts | grep -qx tmpfs"
check "pivot_root works in a mount namespace" \
	unshare -m sh -c 'mkdir -p /tmp/pr && mount -t tmpfs t /tmp/pr && mkdir /tmp/pr/old && cd /tmp/pr && pivot_root . old'

done_testing
