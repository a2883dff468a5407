#!/bin/sh
# cgroup_adopt: the --net proxy's move into the sandbox's leaf (runtime/cgroup.c).
. "$(dirname "$0")/build.inc"
unit_build cgroup_adopt_test runtime/cgroup.c runtime/cgroup_file.c runtime/cgroup_place.c \
	runtime/cgroup_remove.c runtime/cgroup_sweep.c runtime/error.c
exec "$out/cgroup_adopt_test"
