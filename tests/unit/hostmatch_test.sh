#!/bin/sh
# The allow-list matcher's unit test (net/hostmatch.c).
. "$(dirname "$0")/build.inc"
unit_build hostmatch_test net/hostmatch.c
exec "$out/hostmatch_test"
