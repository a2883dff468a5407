#!/bin/sh
# git_index_gitlinks reads an index both ways, SHA-1 and SHA-256 names
# (mounts/git_index.c).
. "$(dirname "$0")/build.inc"
unit_build git_index_test mounts/git_index.c
exec "$out/git_index_test"
