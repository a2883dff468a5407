#!/bin/sh
# The filter of what the command writes to the caller's terminal
# (runtime/term_filter.c).
. "$(dirname "$0")/build.inc"
unit_build term_filter_test runtime/term_filter.c
exec "$out/term_filter_test"
