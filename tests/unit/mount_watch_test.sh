#!/bin/sh
# The mount watch's bookkeeping and its setup-channel message
# (runtime/mount_watch.c, runtime/channel.c).
. "$(dirname "$0")/build.inc"
unit_build mount_watch_test runtime/mount_watch.c runtime/clock.c runtime/close_detached.c runtime/channel.c runtime/error.c
exec "$out/mount_watch_test"
