#!/bin/sh
# The cgroup leaf's sweeper (runtime/cgroup_sweep.c), as built into kjail:
# a CLONE_VM child on a stack of its own.
. "$(dirname "$0")/build.inc"
unit_build cgroup_sweep_test runtime/cgroup_sweep.c
exec "$out/cgroup_sweep_test"
