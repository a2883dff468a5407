#!/bin/bash
# The escape battery: attacks on a default sandbox, one TAP line each,
# named for the attack and the CVE or technique it reproduces. Each attack
# is a probe (tests/probes/escape_*.c) that tries one thing from inside
# and prints "contained: ..." (exit 0) or "ESCAPED: ..." (exit 1); the
# runner adds what only the host can check (a file that must not appear,
# a binary that must not change, a process that must not survive).
#
# Nothing here can harm the host even if kjail were broken: writes target
# files this test created under /var/tmp/kjail-escape.XXXXXX, probes open
# for writing without writing, privileged calls use arguments the kernel
# rejects right after its permission check, the fork bomb is bounded.
#
# KJ_ESCAPE_KNOWN="name ..." reports the named attacks as TODO (a known,
# documented gap) instead of failing; it is empty by default.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"

P=$PROBES
FIX=$(mktemp -d /var/tmp/kjail-escape.XXXXXX)
RUNFIX=$(mktemp -d /run/kjail-escape.XXXXXX)
chmod 0755 "$FIX" "$RUNFIX"
BG_PIDS=()
escape_cleanup() {
	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${SHMID:-}" ] && ipcrm -m "$SHMID" 2>/dev/null
	if [ -n "${SESSION:-}" ]; then
		as_caller "$KJAIL" stop "$SESSION" >/dev/null 2>&1 </dev/null
		as_caller "$KJAIL" rm "$SESSION" >/dev/null 2>&1 </dev/null
	fi
	rm -rf "$FIX" "$RUNFIX"
}
trap 'escape_cleanup; _cleanup' EXIT

# Everything the caller owns in the fixture (so that a broken sandbox
# could really write it: the attack must be possible in principle).
caller_owns() { [ "$KJ_AS" = user ] && chown -R "$KJ_USER" "$@"; return 0; }

# bg_caller CMD...: run CMD in the background as the caller, stdio to
# /dev/null unless redirected by the caller of bg_caller; $! is CMD itself
# (setpriv and env exec).
bg_caller() {
	if [ "$KJ_AS" = user ]; then
		setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups \
			-- env HOME="${KJ_HOME:-/nonexistent}" USER="$KJ_USER" LOGNAME="$KJ_USER" "$@" &
	else
		"$@" &
	fi
}

# argv1_pids WORD: host pids of processes whose argv[1] is exactly WORD.
argv1_pids() {
	local f a0 a1 pids=
	for f in /proc/[0-9]*/cmdline; do
		a0= a1=
		{ { IFS= read -r -d "" a0 && IFS= read -r -d "" a1; } <"$f"; } 2>/dev/null
		[ "$a1" = "$1" ] && pids="$pids ${f//[!0-9]/}"
	done
	echo "${pids# }"
}

# kje ARGS...: kjail exec with a safety timeout (a hung attack is a failure,
# not a hung suite).
kje() { kj exec --timeout 30s "$@"; }

# kj_stdin FILE ARGS...: kj, with stdin from FILE instead of /dev/null.
kj_stdin() {
	local in=$1
	shift
	as_caller "$KJAIL" "$@" >"$T/.o" 2>"$T/.e" <"$in"
	rc=$?
	out=$(cat "$T/.o")
	err=$(cat "$T/.e")
}

# ---------------------------------------------------------------- verdicts

damage=
# host_absent PATH...: a file the attack tried to create must not be on the
# host; if it is, it is removed and the attack failed.
host_absent() {
	for f in "$@"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			damage="${damage:+$damage; }$f appeared on the host (removed)"
			rm -rf "$f"
		fi
	done
}
# host_unchanged FILE SHA256
host_unchanged() {
	[ "$(sha256sum <"$1" | cut -d' ' -f1)" = "$2" ] ||
		damage="${damage:+$damage; }$1 changed on the host"
}
sha() { sha256sum <"$1" | cut -d' ' -f1; }

# report NAME WHY: ok when WHY is empty; a name in KJ_ESCAPE_KNOWN fails as
# a TODO. The probe's lines follow as comments, pass or fail.
report() {
	local name=$1 why=$2 todo=
	case " ${KJ_ESCAPE_KNOWN:-} " in *" $name "*) todo=" # TODO known gap" ;; esac
	_n=$((_n + 1))
	if [ -z "$why" ]; then
		echo "ok $_n - $name$todo"
	else
		[ -z "$todo" ] && _failed=$((_failed + 1))
		echo "not ok $_n - $name$todo"
		echo "#   $why"
	fi
	{
		[ -n "$out" ] && printf '%s\n' "$out"
		[ -n "$err" ] && printf 'stderr: %s\n' "$err"
	} | head -20 | sed 's/^/#   /'
	return 0
}

# verdict NAME [RC_REGEX]: the last kj run was contained: its exit status
# matches RC_REGEX (default 0), a probe that exited 0 said "contained:",
# nothing said "ESCAPED:", and no host check recorded damage.
verdict() {
	local name=$1 want=${2:-0} why=
	if [ -n "$damage" ]; then
		why="host check: $damage"
	elif printf '%s\n' "$out" | grep -q '^ESCAPED:'; then
		why="the attack succeeded"
	elif ! [[ $rc =~ ^($want)$ ]]; then
		why="exit status $rc, expected $want"
	elif [ "$rc" = 0 ] && ! printf '%s\n' "$out" | grep -q '^contained:'; then
		why="the probe gave no verdict"
	fi
	report "$name" "$why"
	damage=
}

# kje_where PATH NAME ARGS...: kje ARGS and the verdict NAME, or a skip
# where the host's kernel has no PATH: the probe's ENOENT inside would
# pass without the attack being tried at all.
kje_where() {
	local path=$1 name=$2
	shift 2
	if [ ! -e "$path" ]; then
		skip "$name" "no $path on this host's kernel"
		return
	fi
	kje "$@"
	verdict "$name"
}

# ====================================================== file system: writes

victim=$FIX/victim
echo original >"$victim"
chmod 0666 "$victim"
mkdir -m 0777 "$FIX/open-dir"
caller_owns "$victim" "$FIX/open-dir"
victim_sum=$(sha "$victim")

planted=/etc/kjail-escape-$$-$RANDOM
kje -- "$P/escape_create" "$planted"
host_absent "$planted"
verdict host_root_create_file_in_etc_readonly_root

kje -- "$P/escape_write" "$victim"
host_unchanged "$victim" "$victim_sum"
verdict host_file_writable_by_caller_stays_readonly

kje -- "$P/escape_create" "$FIX/open-dir/planted"
host_absent "$FIX/open-dir/planted"
verdict host_world_writable_dir_stays_readonly

# A named FIFO in a read-only host directory: the read-only mount stops
# writes to files, directories and links only, so a FIFO (a host daemon's
# command channel) opens for writing through it; Landlock's read-only
# root is what refuses it (with --landlock off it opens: README, "What is
# not isolated"). A property pinned, not a fix: this passed before too.
mkfifo -m 0666 "$FIX/ctl.fifo"
caller_owns "$FIX/ctl.fifo"
exec 5<>"$FIX/ctl.fifo" # a reader, as the daemon would be
kje -- "$P/escape_write" "$FIX/ctl.fifo"
exec 5<&-
verdict host_fifo_in_readonly_dir_not_writable_landlock

# A file lease on a host file seen through the read-only root (the
# caller's own here; as root, every file root owns): leases are not
# namespaced, so while the sandbox holds one, every host open of the file
# (a read lease: every open for writing) blocks for up to
# /proc/sys/fs/lease-break-time (45 s), again each time it is retaken.
echo lease >"$FIX/lease-victim"
chmod 0644 "$FIX/lease-victim"
caller_owns "$FIX/lease-victim"
if [ "$(cat /proc/sys/fs/leases-enable 2>/dev/null)" != 1 ]; then
	skip file_lease_on_host_file_stalls_host_opens_refused "leases are disabled on this host"
	skip file_lease_on_host_file_stalls_host_opens_refused_strict "leases are disabled on this host"
else
	kje -- "$P/escape_lease" "$FIX/lease-victim"
	verdict file_lease_on_host_file_stalls_host_opens_refused
	kje --seccomp strict -- "$P/escape_lease" "$FIX/lease-victim"
	verdict file_lease_on_host_file_stalls_host_opens_refused_strict
fi

# A host tmpfs mounted below / (in the fixture): recursive read-only.
mkdir "$FIX/submount"
if mount -t tmpfs -o size=64k,mode=1777 kjail-escape "$FIX/submount"; then
	kje -- "$P/escape_create" "$FIX/submount/planted"
	host_absent "$FIX/submount/planted"
	verdict host_writable_submount_stays_readonly_recursive_bind
	umount -l "$FIX/submount"
else
	skip host_writable_submount_stays_readonly_recursive_bind "cannot mount a tmpfs"
fi

# A read-only bind protects a path, not an inode: a hard link from the
# writable workspace to the host file would be writable. Links cannot
# cross mounts (EXDEV).
kje -- "$P/escape_hardlink" "$victim" "$WS"
host_unchanged "$victim" "$victim_sum"
host_absent "$WS/escape-hardlink"
verdict hardlink_host_file_into_workspace_refused_exdev

kjail_sum=$(sha "$KJAIL")
kje -- "$P/escape_write" "$KJAIL"
host_unchanged "$KJAIL" "$kjail_sum"
verdict kjail_binary_via_readonly_root_not_writable

kje -- "$P/escape_write" /proc/1/exe
host_unchanged "$KJAIL" "$kjail_sum"
verdict runc_CVE-2019-5736_proc1_exe_not_writable

probe_sum=$(sha "$P/escape_write")
kje -- "$P/escape_write" /proc/self/exe
host_unchanged "$P/escape_write" "$probe_sum"
verdict proc_self_exe_overwrite_host_binary_refused

kje -- "$P/escape_proc_init"
verdict proc1_mem_fds_root_of_init_closed_nondumpable

kje -- "$P/escape_write" /proc/sys/kernel/core_pattern
verdict proc_sys_kernel_core_pattern_not_writable_host_root_exec

kje_where /proc/sys/kernel/modprobe proc_sys_kernel_modprobe_path_not_writable -- "$P/escape_write" /proc/sys/kernel/modprobe

kje_where /proc/sysrq-trigger proc_sysrq_trigger_not_writable -- "$P/escape_write" /proc/sysrq-trigger

kje_where /proc/sys/fs/binfmt_misc/register binfmt_misc_register_interpreter_refused -- "$P/escape_write" /proc/sys/fs/binfmt_misc/register

kje_where /sys/kernel/uevent_helper sys_kernel_uevent_helper_not_writable -- "$P/escape_write" /sys/kernel/uevent_helper

kje -- "$P/escape_create" -d /sys/fs/cgroup/kjail-escape
verdict sys_fs_cgroup_mkdir_refused

kje -- "$P/escape_release_agent"
verdict cgroup_v1_release_agent_CVE-2022-0492_refused

kje -- "$P/escape_devices"
verdict host_device_nodes_absent_dev_readonly

kje -- "$P/escape_mknod" /tmp
verdict mknod_device_in_tmp_refused

kje -- "$P/escape_mknod" "$WS"
host_absent "$WS/escape-sda" "$WS/escape-mem"
verdict mknod_block_device_on_host_disk_workspace_refused

kje -- "$P/escape_kcore"
verdict proc_kcore_dev_mem_kallsyms_no_kernel_memory

# The /proc masks by another path: sysfs shows a root caller's uid 0 the
# same kernel state in 0400-root (0600) files. SLUB's per-cache counters are
# /proc/slabinfo (the heap layout a heap exploit grooms by), page_idle's
# bitmap is kpageflags' physical page state, DMI's decoded serials and
# UUID are the host's identity (/sys/firmware hides only the raw table).
slab=$(ls -d /sys/kernel/slab/*/objects 2>/dev/null | head -1)
kje_where "${slab:-/sys/kernel/slab}" sysfs_kernel_slab_counters_slabinfo_by_another_path_masked \
	-- "$P/escape_read" "$slab"
kje_where /sys/kernel/mm/page_idle/bitmap sysfs_page_idle_bitmap_kpageflags_by_another_path_masked \
	-- "$P/escape_read" /sys/kernel/mm/page_idle/bitmap
# DAMON's monitors (0600 root): the host's memory access pattern, by
# physical address where a kdamond runs with paddr (this VM's does).
damon=$(ls -d /sys/kernel/mm/damon/admin/kdamonds/*/state 2>/dev/null | head -1)
kje_where "${damon:-/sys/kernel/mm/damon/admin/kdamonds/0/state}" \
	sysfs_damon_memory_access_monitor_masked -- "$P/escape_read" "$damon"
for f in product_serial product_uuid board_serial chassis_serial; do
	kje_where "/sys/devices/virtual/dmi/id/$f" "sysfs_dmi_${f}_host_identity_masked" \
		-- "$P/escape_read" "/sys/class/dmi/id/$f"
done

# ============================================ file system: mount tricks

kje -- "$P/escape_mount"
verdict mount_tmpfs_refused

kje -- "$P/escape_remount" /
verdict remount_root_readwrite_refused

kje -- "$P/escape_umount" /proc/sys
verdict umount_proc_sys_to_uncover_writable_refused

kje -- "$P/escape_mountapi"
verdict new_mount_api_mount_setattr_open_tree_fsopen_refused

kje -- "$P/escape_pivot_root"
verdict pivot_root_refused

kje -- "$P/escape_chroot"
verdict chroot_breakout_refused

# ================================================= credentials and secrets

H=$FIX/home
mkdir -p "$H/.ssh" "$H/.aws"
echo "KJAIL-SECRET-ssh-$$" >"$H/.ssh/id_ed25519"
echo "KJAIL-SECRET-aws-$$" >"$H/.aws/credentials"
chmod 0700 "$H/.ssh"
chmod 0755 "$H"
caller_owns "$H"
export KJ_HOME=$H
HOME=$H kje -- "$P/escape_read" "$H/.ssh/id_ed25519" "KJAIL-SECRET-ssh-$$"
verdict masked_ssh_key_unreadable

HOME=$H kje -- "$P/escape_umount" "$H/.ssh"
verdict umount_credential_mask_refused

HOME=$H kje -- "$P/escape_read" "/proc/self/root$H/.aws/credentials" "KJAIL-SECRET-aws-$$"
verdict masked_credentials_via_proc_self_root_unreadable
unset KJ_HOME

# A root caller keeps uid 0 inside: the owner of /etc/shadow and of
# every 0600 root file (ssh host keys, /root). No capability is needed to
# read them, only ownership.
kje -- "$P/escape_read" /etc/shadow
verdict host_etc_shadow_unreadable

# ===================================================== workspace symlinks

# .git pointing out of the workspace: kjail could not protect the hooks.
mkdir -p "$FIX/realrepo/hooks"
chmod -R 0777 "$FIX/realrepo"
caller_owns "$FIX/realrepo"
ln -s "$FIX/realrepo" "$WS/.git"
kje -- "$P/escape_create" "$WS/.git/hooks/post-checkout"
host_absent "$FIX/realrepo/hooks/post-checkout"
verdict git_dir_symlink_out_of_workspace_hook_plant_refused "0|125"
rm -f "$WS/.git"

# The workspace is a host directory. A setuid/setgid file owned by host
# root left there is a root shell for any local user who can reach it
# (the setuid bit needs no capability, only ownership, and a root
# caller's sandbox is uid 0). Owned by a non-root caller it gains nobody
# anything.
kje -- "$P/escape_plant_suid" "$WS"
for f in "$WS"/escape-suid-*; do
	[ -e "$f" ] || continue
	[ -n "$(find "$f" -perm /6000 -user root 2>/dev/null)$(find "$f" -perm /6000 -group root 2>/dev/null)" ] &&
		damage="${damage:+$damage; }setuid/setgid-root file $f left on the host"
	rm -f "$f"
done
verdict setuid_root_file_planted_in_host_workspace_refused

# A real repository: hooks are read-only inside.
as_caller git init -q "$WS"
kje -- "$P/escape_create" "$WS/.git/hooks/pre-commit"
host_absent "$WS/.git/hooks/pre-commit"
verdict git_hook_plant_runs_on_host_later_refused
rm -rf "$WS/.git"

# --ro SRC:DEST where DEST in the workspace is a symlink to /etc (planted
# by an earlier run): the bind must not reach the host's /etc.
mkdir -p "$FIX/rosrc"
echo ro-source >"$FIX/rosrc/file"
chmod -R a+rX "$FIX/rosrc"
ln -s /etc "$WS/etc-link"
etc_mounts=$(grep -c ' /etc ' /proc/self/mountinfo)
kje --ro "$FIX/rosrc:$WS/etc-link" -- "$P/escape_create" "$WS/etc-link/kjail-escape-$$"
host_absent "/etc/kjail-escape-$$"
[ "$(grep -c ' /etc ' /proc/self/mountinfo)" = "$etc_mounts" ] ||
	damage="a mount appeared on the host's /etc"
verdict ro_bind_dest_symlink_to_etc_stays_in_sandbox "0|125"
rm -f "$WS/etc-link"

# The mkdir-follows-symlink class (bubblewrap CVE-2026-87766): a missing
# mount point below a symlink that leaves the workspace must not be
# created on the host, where the caller can write.
ln -s "$FIX/open-dir" "$WS/sub"
kje --ro "$FIX/rosrc:$WS/sub/newdir" -- true
host_absent "$FIX/open-dir/newdir"
verdict mkdir_follows_symlink_bubblewrap_CVE-2026-87766_class "0|125"
rm -f "$WS/sub"

# The same, racing: a loop swaps $WS/race between a directory and a
# symlink to the host directory (renameat2 RENAME_EXCHANGE, atomically)
# while kjail starts 30 times; no mount point or file may ever land there.
mkdir "$WS/race" "$WS/race.dir"
ln -s "$FIX/open-dir" "$WS/race.link"
rmdir "$WS/race"
mv "$WS/race.dir" "$WS/race"
caller_owns "$WS/race"
python3 - "$WS/race" "$WS/race.link" <<'EOF' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b = (os.fsencode(p) for p in sys.argv[1:3])
end = time.monotonic() + 60
while time.monotonic() < end:
    libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
EOF
BG_PIDS+=($!)
racer=$!
nrun=0 nok=0 nrefused=0 bad=
for _ in $(seq 30); do
	kje --ro "$FIX/rosrc:$WS/race/mnt" -- "$P/escape_create" "$WS/race/mnt/planted"
	nrun=$((nrun + 1))
	case $rc in
	0) nok=$((nok + 1)) ;;
	125) nrefused=$((nrefused + 1)) ;;
	*) bad="$bad rc=$rc" ;;
	esac
	printf '%s\n' "$out" | grep -q '^ESCAPED:' && bad="$bad escaped:$(printf '%s\n' "$out" | grep '^ESCAPED:')"
done
kill "$racer" 2>/dev/null
wait "$racer" 2>/dev/null
host_absent "$FIX/open-dir/mnt" "$FIX/rosrc/planted"
out="$nrun runs: $nok ran, $nrefused refused (125)${bad:+, unexpected:$bad}"
err=
rc=0
[ -n "$bad" ] && damage="${damage:+$damage; }$bad"
out="contained: $out"
verdict race_dir_symlink_swap_during_start_CVE-2021-30465_class
rm -rf "$WS/race" "$WS/race.link"

# runc CVE-2025-31133: /dev/null of the root swapped for a symlink to
# /proc/sys/kernel/core_pattern, so that "masking with /dev/null" binds
# the sysctl writable. kjail's masks use the host's /dev/null, checked to
# be the char device 1:3; with --root the rootfs's /dev is replaced. A
# loop keeps swapping the rootfs's /dev/null while kjail starts.
R=$FIX/rootfs
mkdir -p "$R/bin" "$R/proc" "$R/dev" "$R/tmp" "$R/run" "$R/sys" "$R/etc" "$R/probes"
cp "$(command -v busybox)" "$R/bin/busybox"
ln -s busybox "$R/bin/sh"
ln -s /proc/sys/kernel/core_pattern "$R/dev/null"
chmod -R a+rX "$R"
python3 - "$R/dev/null" <<'EOF' &
import os, sys, time
p = sys.argv[1]
end = time.monotonic() + 60
while time.monotonic() < end:
    for make in (lambda: open(p, "w").close(), lambda: os.symlink("/proc/sys/kernel/core_pattern", p)):
        try:
            os.unlink(p)
        except OSError:
            pass
        try:
            make()
        except OSError:
            pass
EOF
BG_PIDS+=($!)
racer=$!
bad=
for _ in $(seq 10); do
	kje --root "$R" --workspace "$WS:/tmp/work" --ro "$P:/probes" -- \
		/probes/escape_write /proc/sys/kernel/core_pattern
	[ "$rc" = 0 ] || bad="$bad rc=$rc:$(printf '%s\n' "$out" | tail -1)"
	printf '%s\n' "$out" | grep -q '^ESCAPED:' && bad="$bad $(printf '%s\n' "$out" | grep '^ESCAPED:')"
done
kje --root "$R" --workspace "$WS:/tmp/work" --ro "$P:/probes" -- /probes/escape_kcore
[ "$rc" = 0 ] || bad="$bad kcore: rc=$rc $out"
kill "$racer" 2>/dev/null
wait "$racer" 2>/dev/null
out="contained: 10 runs under a swapping /dev/null: core_pattern never writable, /proc/kcore masked${bad:+; not so:$bad}"
[ -n "$bad" ] && out="ESCAPED:$bad"
rc=0 err=
verdict runc_CVE-2025-31133_dev_null_mask_race

# /etc/shadow is masked, but the passwd package's daily cron job (Ubuntu,
# older Debian) keeps a copy of it in /var/backups, 0600 root: the
# same password hashes for a root caller's uid 0. Proven in the rootfs
# above (masks apply below --root as on /).
mkdir -p "$R/var/backups"
echo "KJAIL-SECRET-shadow-$$" >"$R/var/backups/shadow.bak"
echo "KJAIL-SECRET-gshadow-$$" >"$R/var/backups/gshadow.bak"
chmod 0600 "$R/var/backups/shadow.bak" "$R/var/backups/gshadow.bak"
for f in shadow gshadow; do
	kje --root "$R" --workspace "$WS:/tmp/work" --ro "$P:/probes" -- \
		/probes/escape_read "/var/backups/$f.bak" "KJAIL-SECRET-$f-$$"
	verdict "var_backups_${f}_bak_copy_of_etc_${f}_masked"
done

# ======================================== leaked fds and cwd (CVE-2024-21626)

exec 7<"$FIX" 8>>"$victim" 9</
kje -- "$P/escape_fd_leak"
verdict runc_CVE-2024-21626_leaked_fd_contained

kje --workspace "$WS:/proc/self/fd/7" -- "$P/escape_cwd"
verdict runc_CVE-2024-21626_cwd_proc_self_fd_refused "0|125"

mkdir -m 0777 "$FIX/ws2"
caller_owns "$FIX/ws2"
exec 6<"$FIX/ws2"
kje --workspace /proc/self/fd/6 -- "$P/escape_cwd"
verdict runc_CVE-2024-21626_workspace_given_as_proc_fd_cwd_inside "0|125"
exec 6<&-

ln -s "$WS" "$T/ws-link"
cd "$T/ws-link" || exit 1
kje -- "$P/escape_cwd"
cd "$WS" || exit 1
verdict runc_CVE-2024-21626_cwd_through_symlink_inside_root

# A host directory as stdin: an fd on the host's own mount, outside the
# sandbox's mount namespace. ".." from it climbs the host's tree, where
# no mask hides a credential and /run is the host's (and, without
# Landlock, the host's mounts are writable). kjail passes the caller's
# stdio through, so the caller's mistake is the sandbox's way out.
H2=$FIX/home2
mkdir -p "$H2/.ssh"
echo "KJAIL-SECRET-stdio-$$" >"$H2/.ssh/id_ed25519"
chmod 0700 "$H2/.ssh"
chmod 0755 "$H2"
caller_owns "$H2"
HOME=$H2 KJ_HOME=$H2 kj_stdin "$FIX" exec ${KJ_EXEC_ARGS:-} --timeout 30s -- \
	"$P/escape_stdio_dir" "$H2/.ssh/id_ed25519" "KJAIL-SECRET-stdio-$$"
verdict stdio_host_directory_CVE-2024-21626_class_reaches_no_masked_file 125  # refused: kjail will not hand a directory in as stdio

# The fds the caller leaked must not wait in the sandbox's pid 1 either:
# init never execs, so close-on-exec does not remove them, and runc's
# CVE-2024-21626 was exactly a host fd held by the runtime's init. Looked
# at from the host, where the sandbox's pid 1 is kjail's child.
bg_caller "$KJAIL" exec ${KJ_EXEC_ARGS:-} --timeout 30s -- sleep 5 >/dev/null 2>&1 </dev/null
kjpid=$!
init=
# (Its child that is pid 1 inside: where limits are enforced, kjail's
# cgroup sweeper is a child of its too.)
for _ in $(seq 100); do
	for init in $(pgrep -P "$kjpid"); do
		grep -q 'NSpid:.*[[:space:]]1$' "/proc/$init/status" 2>/dev/null && break 2
	done
	init=
	sleep 0.05
done
held=
if [ -n "$init" ]; then
	for fd in /proc/"$init"/fd/*; do
		tgt=$(readlink "$fd" 2>/dev/null)
		case $tgt in "$FIX"* | / | "$victim") held="$held ${fd##*/}->$tgt" ;; esac
	done
	out="sandbox init is host pid $init; its fds: $(ls /proc/"$init"/fd | tr '\n' ' ')"
	why="${held:+init holds fds the caller leaked:$held}"
else
	out= why="could not find the sandbox's init"
fi
kill "$kjpid" 2>/dev/null
wait "$kjpid" 2>/dev/null
err=
report runc_CVE-2024-21626_init_holds_no_leaked_host_fd "$why"
exec 7<&- 8>&- 9<&-

# Sessions (kjail create; kjail exec -s): a command executed into a
# running sandbox is where runc's exec-time escapes lived: the runtime's
# binary reachable as /proc/<pid>/exe (CVE-2019-5736), its fds and cwd
# leaking into the new process (CVE-2016-9962, CVE-2024-21626).
SESSION=kjesc-$$
# The unprivileged user's session state goes in the test's own directory
# (without XDG_RUNTIME_DIR it would be /tmp/kjail-UID on the host).
if [ "$KJ_AS" = user ]; then
	export XDG_RUNTIME_DIR=$T/xdg
	mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR" && chown "$KJ_USER" "$XDG_RUNTIME_DIR"
fi
if as_caller "$KJAIL" create --help >/dev/null 2>&1 &&
	as_caller "$KJAIL" create ${KJ_EXEC_ARGS:-} "$SESSION" >"$T/.o" 2>&1 </dev/null; then
	kjs() { kj_stdin /dev/null exec -s "$SESSION" -- "$@"; }
	exec 7<"$FIX" 8>>"$victim"
	kjs "$P/escape_fd_leak"
	verdict session_exec_leaked_fd_CVE-2016-9962_CVE-2024-21626_contained
	exec 7<&- 8>&-
	kjs "$P/escape_write" /proc/1/exe
	host_unchanged "$KJAIL" "$kjail_sum"
	verdict session_exec_proc1_exe_CVE-2019-5736_not_writable
	kjs "$P/escape_proc_init"
	verdict session_exec_init_fds_mem_root_closed
	kjs "$P/escape_cwd"
	verdict session_exec_cwd_inside_root
	HOME=$H2 KJ_HOME=$H2 kj_stdin "$FIX" exec -s "$SESSION" -- \
		"$P/escape_stdio_dir" "$H2/.ssh/id_ed25519" "KJAIL-SECRET-stdio-$$"
	verdict session_exec_stdio_host_directory_reaches_no_masked_file 125  # refused, as for one-shot runs
	# prlimit(2) on init: the kernel checks the uid, not dumpability.
	# With its RLIMIT_NOFILE at 4 the session's init could not accept
	# (it spun at full CPU) and every later exec hung: the runner's next
	# exec must answer within 10 s (SIGKILL: a client still waiting for
	# init to accept does not end on SIGTERM).
	kjs "$P/escape_prlimit_init"
	as_caller timeout -s KILL 10 "$KJAIL" exec -s "$SESSION" -- true >/dev/null 2>&1 </dev/null ||
		damage="the next kjail exec -s into the session did not answer within 10 s (status $?)"
	verdict session_exec_prlimit_init_nofile_session_keeps_answering
	as_caller "$KJAIL" stop "$SESSION" >/dev/null 2>&1 </dev/null
	as_caller "$KJAIL" rm "$SESSION" >/dev/null 2>&1 </dev/null
else
	skip session_exec_attacks "kjail create is not available: $(head -1 "$T/.o")"
fi

# ============================================== processes and privileges

kje -- "$P/escape_ptrace_init"
verdict ptrace_attach_pid1_refused

kje -- "$P/escape_ptrace_sibling"
verdict ptrace_attach_sibling_seccomp_bypass_refused

kje -- "$P/escape_vm_writev"
verdict process_vm_writev_sibling_and_readv_pid1_refused

kje -- "$P/escape_pidfd_getfd"
verdict pidfd_getfd_steal_init_fd_refused

kje -- "$P/escape_kill_init"
verdict signal_pid1_to_death_ignored_command_status_kept 42

cp "$P/escape_setuid" "$FIX/suid"
chown root:root "$FIX/suid"
chmod 4755 "$FIX/suid"
kje -- "$P/escape_setuid" "$FIX/suid"
verdict setuid_root_binary_gains_nothing_no_new_privs_nosuid

if cp "$P/escape_setuid" "$FIX/fcap" && setcap cap_sys_admin,cap_dac_override+ep "$FIX/fcap" 2>/dev/null; then
	chmod 0755 "$FIX/fcap"
	kje -- "$P/escape_setuid" "$FIX/fcap"
	verdict file_capabilities_binary_gains_nothing
else
	skip file_capabilities_binary_gains_nothing "setcap failed"
fi

kje -- "$P/escape_idmap"
verdict uid_map_rewrite_setgroups_setuid0_refused

kje -- "$P/escape_caps"
verdict capset_ambient_nnp_seccomp_cannot_be_regained

kje -- "$P/escape_personality"
verdict personality_aslr_off_read_implies_exec_refused

kje -- "$P/escape_prlimit_init"
verdict prlimit_pid1_rlimit_lowered_refused
kje --seccomp strict -- "$P/escape_prlimit_init"
verdict prlimit_pid1_rlimit_lowered_refused_strict

kje -- "$P/escape_x32"
[ "$rc" = 159 ] && out="contained: killed by SIGSYS (the filter's bad-architecture action)"
verdict x32_abi_syscall_filter_bypass_killed "0|159"

# Only where the host's kernel has the i386 ABI (this development VM's
# kernel has none: int $0x80 faults with SIGSEGV outside any sandbox);
# the VM suite's Debian kernel has it.
bash -c '"$0" host-check; exit $?' "$P/escape_i386" >/dev/null 2>&1
host_i386=$?
if [ "$host_i386" != 0 ]; then
	skip i386_int80_syscall_filter_bypass_killed \
		"the host kernel has no i386 ABI (int \$0x80 outside the sandbox: exit $host_i386)"
else
	kje -- "$P/escape_i386"
	[ "$rc" = 159 ] && out="contained: killed by SIGSYS (the filter's bad-architecture action)"
	verdict i386_int80_syscall_filter_bypass_killed "0|159"
fi

# A fork bomb, bounded to 2000 processes: with or without a pids limit the
# sandbox ends at --timeout, and every process of it dies.
m=kjail-bomb-$$-$RANDOM
t0=$(date +%s%N)
kj exec --timeout 3s --kill-grace 1s -- "$P/escape_forkbomb" "$m" 2000
t=$((($(date +%s%N) - t0) / 1000000))
left=
for _ in $(seq 40); do
	left=$(argv1_pids "$m")
	[ -z "$left" ] && break
	sleep 0.1
done
[ -n "$left" ] && damage="bomb processes outlived the sandbox: $left"
[ "$t" -gt 15000 ] && damage="${damage:+$damage; }took ${t}ms"
printf '%s\n' "$out" | grep -q 'forkbomb: started' || damage="${damage:+$damage; }the bomb did not start"
out="$out
contained: ended after ${t}ms, no process left"
verdict fork_bomb_bounded_2000_ends_at_timeout_nothing_survives 124

# ===================================================== namespaces

for ns in user:NEWUSER mnt:NEWNS net:NEWNET pid:NEWPID cgroup:NEWCGROUP; do
	kje -- "$P/escape_unshare" "${ns%:*}"
	verdict "unshare_CLONE_${ns#*:}_new_namespace_refused"
done

kje -- "$P/escape_clone"
verdict clone_CLONE_NEWUSER_refused

kje -- "$P/escape_clone3"
verdict clone3_CLONE_NEWUSER_flags_in_memory_refused

host_netns=$(stat -L -c %i /proc/$$/ns/net)
kje -- "$P/escape_setns" "/proc/$$/ns/net" "$host_netns"
verdict setns_host_netns_via_proc_pid_path_refused

kje -- "$P/escape_setns" /proc/self/ns/user
verdict setns_own_userns_fd_refused

host_name=$(hostname)
kje -- "$P/escape_hostname"
[ "$(hostname)" = "$host_name" ] || damage="the host's name changed to $(hostname)"
verdict sethostname_setdomainname_refused_host_name_kept

kje -- "$P/escape_settime"
verdict clock_settime_settimeofday_adjtimex_refused

if SHMID=$(ipcmk -M 4096 2>/dev/null | grep -o '[0-9]*$'); then
	key=$(ipcs -m | awk -v id="$SHMID" '$2 == id {print $1}')
	kje -- "$P/escape_ipc" "$key"
	verdict sysv_shm_of_host_invisible_ipc_namespace
	ipcrm -m "$SHMID" 2>/dev/null
	SHMID=
else
	skip sysv_shm_of_host_invisible_ipc_namespace "ipcmk failed"
fi

# Two sandboxes at once: neither sees the other's /tmp, /dev/shm, /run,
# processes or abstract sockets.
m=kjail-peer-$$-$RANDOM
mkdir -m 0777 "$FIX/wsA"
caller_owns "$FIX/wsA"
bg_caller "$KJAIL" exec ${KJ_EXEC_ARGS:-} --timeout 30s --workspace "$FIX/wsA" -- \
	"$P/escape_peer" serve "$m" >"$T/peer.out" 2>&1 </dev/null
peer=$!
BG_PIDS+=($peer)
for _ in $(seq 100); do
	[ -e "$FIX/wsA/serve.ready" ] && break
	sleep 0.05
done
if [ -e "$FIX/wsA/serve.ready" ]; then
	kje -- "$P/escape_peer" probe "$m"
	verdict concurrent_sandbox_tmp_shm_pids_socket_invisible
else
	out=$(cat "$T/peer.out") err= rc=
	report concurrent_sandbox_tmp_shm_pids_socket_invisible "the first sandbox never got ready"
fi
kill "$peer" 2>/dev/null

# ===================================================== kernel attack surface

kje -- "$P/escape_keyctl"
verdict keyctl_add_key_host_keyring_refused

kje -- "$P/escape_bpf"
verdict bpf_prog_load_map_create_refused

kje -- "$P/escape_perf"
verdict perf_event_open_refused

kje -- "$P/escape_io_uring"
verdict io_uring_setup_seccomp_bypass_refused

kje -- "$P/escape_userfaultfd"
verdict userfaultfd_race_widening_refused

kje -- "$P/escape_shocker"
verdict shocker_open_by_handle_at_refused

kje -- "$P/escape_iopl"
verdict iopl_ioperm_port_io_refused

kje -- "$P/escape_kexec"
verdict kexec_load_refused

kje -- "$P/escape_module"
verdict init_module_finit_module_refused

kje -- "$P/escape_reboot"
verdict reboot_host_refused

# TIOCSTI and TIOCLINUX on the caller's terminal: the runner owns a
# pseudo-terminal (tests/escape/pty_run.py) on which kjail runs as a login
# shell would run it, and reads what waits in its input queue afterwards.
PTY=(python3 "$HERE/pty_run.py")
if [ "$KJ_AS" = user ]; then
	PTY+=(setpriv --reuid="$KJ_USER" --regid="$KJ_GID" --clear-groups --
		env HOME="${KJ_HOME:-/nonexistent}" USER="$KJ_USER" LOGNAME="$KJ_USER")
fi
for mode in tty no-tty; do
	out=$("${PTY[@]}" "$KJAIL" exec ${KJ_EXEC_ARGS:-} --timeout 30s --$mode -- \
		"$P/escape_tiocsti" "echo KJAIL-INJECTED-$$" 2>&1)
	rc=$? err=
	printf '%s\n' "$out" | grep -q "^pending-input: ''" ||
		damage="text arrived in the caller's terminal: $(printf '%s\n' "$out" | grep pending-input)"
	verdict "tiocsti_CVE-2017-5226_caller_terminal_injection_refused_${mode//-/_}"
done
out=$("${PTY[@]}" "$KJAIL" exec ${KJ_EXEC_ARGS:-} --timeout 30s -- "$P/escape_tioclinux" 2>&1)
rc=$? err=
verdict tioclinux_pastesel_CVE-2023-1523_refused

# =========================================================== network

# Host listeners: TCP on the loopback (v4, v6), an abstract unix socket in
# the host's network namespace, pathname unix sockets under /run and
# under a host directory the sandbox can see (read-only).
python3 - "$FIX/host.sock" "$RUNFIX/host.sock" "kjail-escape-$$" >"$FIX/ports" <<'EOF' &
import os, socket, sys, time
v4 = socket.socket(); v4.bind(("127.0.0.1", 0)); v4.listen(8)
v6 = socket.socket(socket.AF_INET6); v6.bind(("::1", 0)); v6.listen(8)
socks = [v4, v6]
for path in sys.argv[1:3]:
    u = socket.socket(socket.AF_UNIX); u.bind(path); os.chmod(path, 0o777); u.listen(8); socks.append(u)
a = socket.socket(socket.AF_UNIX); a.bind("\0" + sys.argv[3]); a.listen(8); socks.append(a)
print(v4.getsockname()[1], v6.getsockname()[1], flush=True)
time.sleep(120)
EOF
listener=$!
BG_PIDS+=($listener)
for _ in $(seq 100); do
	[ -s "$FIX/ports" ] && break
	sleep 0.05
done
read -r port4 port6 <"$FIX/ports"

kje -- "$P/escape_connect_tcp" 127.0.0.1 "$port4"
verdict host_loopback_tcp_v4_listener_unreachable

kje -- "$P/escape_connect_tcp" ::1 "$port6"
verdict host_loopback_tcp_v6_listener_unreachable

host_ip=$(ip -4 -o addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -1)
if [ -n "$host_ip" ]; then
	kje -- "$P/escape_connect_tcp" "$host_ip" "$port4"
	verdict host_external_address_unreachable_no_route
else
	skip host_external_address_unreachable_no_route "the host has no global IPv4 address"
fi

kje -- "$P/escape_connect_unix" "@kjail-escape-$$"
verdict host_abstract_unix_socket_unreachable_netns

# A socket the caller gives as stdio was made in the host's network
# namespace and stays there: a TCP connection could be disconnected
# (connect AF_UNSPEC) and connected again to the host's loopback, and
# SIOCGIFCONF on any socket, a unix socketpair too (Node's child stdio),
# lists the host's interfaces. kjail relays sockets through pipes.
exec 5<>"/dev/tcp/127.0.0.1/$port4"
as_caller "$KJAIL" exec ${KJ_EXEC_ARGS:-} --timeout 30s -- "$P/escape_stdio_socket" 0 "$port4" \
	<&5 >"$T/.o" 2>"$T/.e"
rc=$? out=$(cat "$T/.o") err=$(cat "$T/.e")
exec 5<&-
verdict stdio_tcp_socket_cannot_reach_host_loopback
if ip -4 -o addr show 2>/dev/null | grep -vq ' lo '; then
	out=$(as_caller python3 -c 'import socket, subprocess, sys
a, b = socket.socketpair()
r = subprocess.run(sys.argv[1:], stdin=b, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
sys.stdout.write(r.stdout.decode()); sys.exit(r.returncode)' "$KJAIL" exec ${KJ_EXEC_ARGS:-} --timeout 30s -- "$P/escape_stdio_socket" 0)
	rc=$? err=
	verdict stdio_unix_socketpair_lists_no_host_interface
else
	skip stdio_unix_socketpair_lists_no_host_interface "the host has no interface with an IPv4 address but lo"
fi

kje -- "$P/escape_connect_unix" "$RUNFIX/host.sock"
verdict host_unix_socket_under_run_unreachable

# connect(2) on a unix socket needs write permission on the socket file,
# not a writable mount: a read-only bind of / would leave every host socket
# outside /run reachable (LXD's /var/snap/lxd/common/lxd/unix.socket,
# /var/lib/incus/unix.socket, a user's ~/...). No Landlock ABI up to 7
# covers it, so kjail masks every socket /proc/net/unix lists.
kje -- "$P/escape_connect_unix" "$FIX/host.sock"
verdict host_unix_socket_under_readonly_host_dir_unreachable
kje --mask "$FIX/host.sock" -- "$P/escape_connect_unix" "$FIX/host.sock"
verdict host_unix_socket_masked_path_unreachable
# A host service listening in the workspace (which lies under /tmp here,
# a tree that is otherwise fresh inside) is masked too.
python3 -c 'import os, socket, sys, time
u = socket.socket(socket.AF_UNIX); u.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); u.listen(8)
print("up", flush=True); time.sleep(60)' "$WS/host.sock" >"$FIX/ws-sock" &
BG_PIDS+=($!)
for _ in $(seq 100); do [ -s "$FIX/ws-sock" ] && break; sleep 0.05; done
kje -- "$P/escape_connect_unix" "$WS/host.sock"
verdict host_unix_socket_in_workspace_unreachable
# A socket bound in another mount namespace (a container's view) is listed
# by path too; where that path is an ordinary file here, the file stays.
mkdir -p "$FIX/other-ns"
echo keep >"$FIX/other-ns/s.sock"
chmod 644 "$FIX/other-ns/s.sock"
unshare -m sh -c 'mount -t tmpfs kjail-escape "$1" && exec python3 -c "
import socket, sys, time
u = socket.socket(socket.AF_UNIX); u.bind(sys.argv[1]); u.listen(1); print(\"up\", flush=True); time.sleep(60)" "$1/s.sock"' sh "$FIX/other-ns" >"$FIX/other-ns.up" 2>&1 &
BG_PIDS+=($!)
for _ in $(seq 100); do [ -s "$FIX/other-ns.up" ] && break; sleep 0.05; done
is "$(grep -c " $FIX/other-ns/s.sock$" /proc/net/unix)" 1 other_namespace_socket_listed_by_the_kernel
kje -- cat "$FIX/other-ns/s.sock"
is "$rc:$out" "0:keep" same_path_ordinary_file_not_masked

# The way to expose one on purpose: grant it by its path.
kje --ro "$FIX/host.sock" -- "$P/escape_connect_unix" "$FIX/host.sock"
is "$rc" 1 granted_host_socket_reachable_by_its_path
like "$out" "ESCAPED: connected" granted_host_socket_connect_message

kje -- ss -Htlnx
unlisted=yes
printf '%s\n' "$out" | grep -Eq ":$port4\b|:$port6\b|kjail-escape-$$|host.sock" && unlisted=no
[ "$unlisted" = yes ] && out="$out
contained: sock_diag lists none of the host's listeners" || out="$out
ESCAPED: sock_diag lists the host's listeners"
verdict netlink_sock_diag_host_sockets_invisible "0"

# vsock is not network-namespaced. Tried only where the host already has
# it (creating the socket elsewhere could load the module on the host).
if [ -e /sys/module/vsock ] || [ -e /proc/sys/net/vsock ]; then
	kje -- "$P/escape_vsock"
	verdict af_vsock_bypasses_network_namespace_refused
else
	skip af_vsock_bypasses_network_namespace_refused "no vsock on this host"
fi

kje -- "$P/escape_af_packet"
verdict af_packet_and_raw_sockets_refused

kje -- "$P/escape_netlink"
verdict netlink_audit_and_uevent_host_channels_refused

kill "$listener" 2>/dev/null

# ================================================== resources

# The sandbox's file systems in memory are bounded: filling one stops at
# its size (or it is not writable at all), the host's memory and disk
# are not the sandbox's to fill.
kje --tmp-size 8M -- "$P/escape_fill" /tmp/fill $((8 * 1024 * 1024))
verdict fill_tmp_stops_at_tmp_size_enospc

kje -- "$P/escape_fill" /dev/shm/fill $((64 * 1024 * 1024))
verdict fill_dev_shm_stops_at_64m_enospc

# Landlock makes /run unwritable altogether (landlock.t); the size cap of
# kjail's /run tmpfs is the layer below it, proven with Landlock off.
kje --landlock off -- "$P/escape_fill" /run/fill $((16 * 1024 * 1024))
verdict fill_run_stops_at_16m_enospc_or_readonly

# Empty files cost a tmpfs no data page, so size= alone did not stop
# them: each is an inode and a dentry of kernel memory (about 1 KiB), and
# a tmpfs without nr_inodes takes half the host's RAM in pages of them
# (3 million on a 24 GiB host, per tmpfs), which no --memory bounds where
# limits are best-effort. One inode per KiB of size.
kje --tmp-size 8M -- "$P/escape_inodes" /tmp 8192
verdict tmp_empty_files_stop_at_inode_cap_kernel_memory_bounded
kje -- "$P/escape_inodes" /dev/shm 65536
verdict dev_shm_empty_files_stop_at_inode_cap_kernel_memory_bounded
kje --landlock off -- "$P/escape_inodes" /run 16384
verdict run_empty_files_stop_at_inode_cap_or_readonly

done_testing
