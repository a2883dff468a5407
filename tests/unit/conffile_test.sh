#!/bin/sh
# The configuration line parser's unit test.
. "$(dirname "$0")/build.inc"
unit_build conffile_test runtime/conffile.c runtime/clock.c runtime/accounts.c runtime/getent.c \
	runtime/validate.c runtime/error.c
exec "$out/conffile_test"
