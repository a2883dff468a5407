#!/bin/sh
# The cgroup leaf's sweeper as the ASan build (make test SANITIZE=1) has
# it: a forked child (AddressSanitizer cannot follow a CLONE_VM one). The
# host suite makes no leaf on a hybrid-cgroup host, so this is where that
# path runs here (the VM runs the plain build).
. "$(dirname "$0")/build.inc"
mkdir -p "$out" || fail "mkdir $out"
# shellcheck disable=SC2086 # CFLAGS is meant to split
$CC $CFLAGS -U_FORTIFY_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all -I. \
	-o "$out/cgroup_sweep_asan_test" tests/unit/cgroup_sweep_test.c runtime/cgroup_sweep.c >&2 ||
	fail "tests/unit/cgroup_sweep_test.c with -fsanitize=address"
ASAN_OPTIONS=detect_leaks=0 exec "$out/cgroup_sweep_asan_test"
