#!/bin/bash
# /proc and /sys inside: a fresh procfs with the host-wide files masked
# and the knobs read-only; a read-only sysfs with firmware, power meters
# and kernel debugging hidden.
. "$(dirname "$0")/../lib.sh"

# Files masked with /dev/null: the character device 1:3, empty.
for f in kcore keys timer_list sched_debug kallsyms sysrq-trigger timer_stats latency_stats \
	kpageflags kpagecount kpagecgroup slabinfo pagetypeinfo vmallocinfo; do
	if [ ! -e "/proc/$f" ]; then
		skip "proc_${f}_masked" "no /proc/$f on this kernel"
		continue
	fi
	kj exec -- sh -c "stat -c '%F %t:%T' /proc/$f; wc -c < /proc/$f"
	is "$(echo $out)" "character special file 1:3 0" "proc_${f}_masked_with_dev_null"
done
if [ -e /proc/sysrq-trigger ]; then
	# The mask itself, without Landlock: where Landlock is enforced it
	# refuses the write before it reaches the mask (everything outside
	# the workspace, /tmp and /dev is read-only to it).
	kj exec --landlock off -- sh -c 'echo h > /proc/sysrq-trigger && echo swallowed'
	is "$out" swallowed proc_sysrq_trigger_write_goes_to_dev_null
	kj exec -- sh -c 'echo h > /proc/sysrq-trigger && echo swallowed'
	like "$out$err" "^swallowed$|Permission denied" proc_sysrq_trigger_write_swallowed_or_refused
fi

# Directories masked with an empty directory nobody can read.
for d in acpi scsi asound; do
	if [ ! -d "/proc/$d" ]; then
		skip "proc_${d}_masked" "no /proc/$d on this kernel"
		continue
	fi
	kj exec -- sh -c "stat -c %a /proc/$d; ls -A /proc/$d 2>&1 | head -1"
	like "$(echo $out)" "^0 .*Permission denied" "proc_${d}_masked_with_empty_dir"
done

# Read-only knobs: the mount says EROFS (as root; the user is refused by
# the file modes first).
for d in sys irq bus fs; do
	[ -d "/proc/$d" ] || continue
	kj exec -- sh -c "awk '\$2 == \"/proc/$d\" {print \$4}' /proc/self/mounts | cut -d, -f1"
	is "$out" ro "proc_${d}_read_only"
done
# Why not subset=pid: these must stay (free, top, Node's os.totalmem()).
kj exec -- sh -c 'grep -c ^MemTotal: /proc/meminfo; grep -q ^processor /proc/cpuinfo && echo cpuinfo'
is "$(echo $out)" "1 cpuinfo" proc_meminfo_and_cpuinfo_present

# /sys: read-only, no host network devices (net.t), masks.
kj exec -- sh -c 'touch /sys/kjail 2>&1; echo rc=$?'
like "$out" "Read-only file system" sys_read_only
for d in /sys/firmware /sys/devices/virtual/powercap /sys/kernel/debug /sys/kernel/tracing; do
	kj exec -- sh -c "[ -d $d ] || { echo absent; exit; }; stat -c %a $d; ls -A $d 2>&1 | head -1"
	if [ "$out" = absent ]; then
		skip "sys_${d##*/}_masked" "no $d in the sandbox's sysfs"
		continue
	fi
	like "$(echo $out)" "^0( .*Permission denied)?$" "sys_${d##*/}_masked"
done
kj exec --net host -- sh -c 'stat -c %a /sys/firmware; ls -A /sys/firmware 2>&1 | head -1'
like "$(echo $out)" "^0 .*Permission denied" sys_firmware_masked_with_net_host_too

done_testing
