#!/bin/sh
# path_open's retry of scoped lookups that met a mount (mounts/mountapi.c).
. "$(dirname "$0")/build.inc"
unit_build pathopen_test mounts/mountapi.c runtime/mount_watch.c runtime/clock.c runtime/close_detached.c runtime/channel.c runtime/error.c
exec "$out/pathopen_test"
