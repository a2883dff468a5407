#!/bin/sh
# shellcheck disable=SC2086,SC2046 # $CFLAGS and pkg-config output are meant to split
# The seccomp unit test. Needs libseccomp (pkg-config) too.
. "$(dirname "$0")/build.inc"
gen=${BUILD:-build}/tests/gen
probe=${BUILD:-build}/tests/syscalls

pkg-config --exists libseccomp || fail "libseccomp not found by pkg-config (apt-get install libseccomp-dev)"
mkdir -p "$gen" || fail "mkdir $gen"
# The default and strict policies, through the same embedding as the kjail binary.
sh profiles/embed.sh profiles/seccomp-default.policy profiles/seccomp-strict.policy >"$gen/seccomp_builtin.c" ||
	fail "profiles/embed.sh"
unit_build seccomp_test $(pkg-config --cflags libseccomp) runtime/seccomp.c runtime/error.c \
	"$gen/seccomp_builtin.c" $(pkg-config --libs libseccomp)
# Static like tests/probes/build.sh makes it; dynamic if libc.a is missing.
$CC $CFLAGS -static -o "$probe" tests/probes/syscalls.c >/dev/null 2>&1 ||
	$CC $CFLAGS -o "$probe" tests/probes/syscalls.c >&2 ||
	fail "tests/probes/syscalls.c"
exec "$out/seccomp_test" "$probe"
