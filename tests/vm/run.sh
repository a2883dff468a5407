#!/bin/sh
# tests/vm/run.sh KJAIL_BINARY [TEST...]
#
# Boot a Debian cgroup-v2 kernel under QEMU (TCG, no network), run the guest
# test scripts tests/vm/guest/*.t as one TAP stream on the serial console,
# and exit 0 only if the stream is complete, nothing failed and the guest
# powered off in time.  Nothing here touches the host's cgroups or sysctls:
# all of that happens inside the VM.
#
# TEST... optionally limits the run (default: guest integration escape):
#   guest                  every tests/vm/guest/*.t
#   NAME, NAME.t, PATH     one guest script
#   integration, escape    the host suite's tests/integration/*.t or
#                          tests/escape/*.t, each file as root and as nobody,
#                          but for those tests/vm/host-suite-skip names
#                          (kernel-independent; VM_FULL=1 runs them too)
#   integration/NAME[.t]   one file of it (escape/NAME likewise)
# The host-suite files run with the host's /usr exported read-only into the
# guest (virtfs), see tests/vm/hostsuite.
#
# Environment:
#   VM_TIMEOUT       seconds until qemu is killed and the run fails (900,
#                    3600 with host-suite files)
#   VM_TEST_TIMEOUT  per-script timeout inside the guest, seconds (300,
#                    900 with host-suite files)
#   VM_AS            who runs kjail in the host-suite files: "root user"
#   VM_MEM, VM_SMP   guest memory in MiB (2048) and CPUs (2)
#   VM_CPU           qemu -cpu model (qemu64; "max" adds RDRAND, AVX...)
#   VM_KERNEL        use this bzImage instead of the Debian package
#   VM_MODULES_DIR   with VM_KERNEL: its lib/modules/<ver> directory
#   VM_KERNEL_PKG    Debian package to fetch (default: what
#                    linux-image-amd64 depends on)
#   VM_KERNEL_REFRESH=1  re-resolve and re-fetch the kernel package
#   VM_APPEND        extra kernel command line
#   VM_VERBOSE=1     copy the whole serial console to stderr while running
#   VM_BUILD_DIR     work directory (build/vm)
#   VM_FULL=1        run the files tests/vm/host-suite-skip names as well
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
vmdir=${VM_BUILD_DIR:-$repo/build/vm}
guestsrc=$here/guest
mem=${VM_MEM:-2048}
smp=${VM_SMP:-2}
log=$vmdir/console.log

say() { echo "vm: $*" >&2; }
die() { echo "vm: error: $*" >&2; exit 2; }

[ $# -ge 1 ] || { echo "usage: $0 KJAIL_BINARY [TEST...]" >&2; exit 2; }
kjail=$1; shift
[ -f "$kjail" ] || die "kjail binary '$kjail' not found (build it first: make)"
abspath() { case $1 in /*) echo "$1";; *) echo "$(pwd)/$1";; esac; }
kjail=$(abspath "$kjail")
# Absolute: the image is built from inside $vmdir/rootfs.
vmdir=$(abspath "$vmdir") log=$vmdir/console.log
# Guest scripts go to $tests; host-suite files (integration/fs.t, ...) to
# $hosttests.
[ $# -gt 0 ] || set -- guest integration escape
tests="" hosttests="" vmskipped=""
case ${VM_FULL:-0} in 0|1) ;; *) die "VM_FULL must be 0 or 1";; esac
# The names in tests/vm/host-suite-skip, read once, space-separated.
vmskip=" $(awk '!/^#/ && NF { print $1 }' "$here/host-suite-skip" | tr '\n' ' ')"
# A stale entry (a file renamed or removed) is an error, not a silent no-op.
for n in $vmskip; do
	[ -f "$repo/tests/integration/$n" ] || [ -f "$repo/tests/escape/$n" ] ||
		die "tests/vm/host-suite-skip names '$n', which is not a host-suite file"
done
for t in "$@"; do
	case $t in
	guest) tests="$tests all";;
	integration|escape|tests/integration|tests/escape)
		for f in "$repo/tests/${t#tests/}"/*.t; do
			[ -f "$f" ] || continue
			case ${VM_FULL:-0}$vmskip in 0*" ${f##*/} "*)
				vmskipped="$vmskipped ${f##*/}"
				continue;;
			esac
			hosttests="$hosttests ${t#tests/}/${f##*/}"
		done;;
	integration/*|escape/*|tests/integration/*|tests/escape/*)
		t=${t#tests/}; t=${t%.t}.t
		[ -f "$repo/tests/$t" ] || die "host-suite file '$t' not found (tests/$t)"
		hosttests="$hosttests $t";;
	*/*) tests="$tests $(abspath "$t")";;
	*) tests="$tests $t";;
	esac
done
[ -z "$vmskipped" ] ||
	say "left to make test (kernel-independent, tests/vm/host-suite-skip; VM_FULL=1 runs them):$vmskipped"
as_list=${VM_AS:-root user}
for a in $as_list; do
	case $a in root|user) ;; *) die "VM_AS: '$a' is neither root nor user";; esac
done
# TCG runs the host suite 5-10x slower than native: longer default limits.
# They stop a hang, not a slow machine: the seventeenth session's CI run
# needed about 2450 s for the whole host suite on this (slower) VM, where
# 2400 had been enough, and session_hygiene.t alone took 465 s of 600.
if [ -n "$hosttests" ]; then
	timeout_s=${VM_TIMEOUT:-3600}
	test_timeout=${VM_TEST_TIMEOUT:-900}
else
	timeout_s=${VM_TIMEOUT:-900}
	test_timeout=${VM_TEST_TIMEOUT:-300}
fi
case $timeout_s in ''|*[!0-9]*) die "VM_TIMEOUT must be whole seconds";; esac
case $test_timeout in ''|*[!0-9]*) die "VM_TEST_TIMEOUT must be whole seconds";; esac

for tool in qemu-system-x86_64 cpio gzip ldd dpkg-deb; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool missing; run: make deps-vm (apt-get install qemu-system-x86 busybox-static cpio)"
done
busybox=""
for b in /usr/bin/busybox /bin/busybox; do [ -x "$b" ] && { busybox=$b; break; }; done
[ -n "$busybox" ] || die "busybox missing; apt-get install busybox-static"
# (busybox-static is wanted; a dynamic busybox also works: install_bin copies
# its libraries.)

mkdir -p "$vmdir" || die "cannot create $vmdir"

# ---------------------------------------------------------------- kernel ---
# The Debian kernel package is downloaded (never installed on the host) and
# unpacked under $vmdir/kernel/<package>/.  modules.dep is generated there
# with busybox depmod so guest modules can be chosen with their dependencies.
kernel_pkg_resolve() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

kernel_fetch() {
	pkg=${VM_KERNEL_PKG:-$(kernel_pkg_resolve)}
	if [ -z "$pkg" ] && [ "$(id -u)" -eq 0 ]; then
		say "resolving linux-image-amd64: running apt-get update"
		apt-get update -qq >"$vmdir/apt.log" 2>&1 || true
		pkg=$(kernel_pkg_resolve)
	fi
	[ -n "$pkg" ] || die "cannot resolve the kernel package behind linux-image-amd64 (apt-get update?)"
	dest=$vmdir/kernel/$pkg
	[ -f "$dest/.complete" ] && return 0
	say "fetching $pkg (apt-get download; not installed on the host)"
	dl=$vmdir/dl
	rm -rf "$dl" "$dest.tmp" && mkdir -p "$dl" "$vmdir/kernel" || die "cannot create $dl"
	if ! (cd "$dl" && apt-get download "$pkg") >"$vmdir/apt.log" 2>&1; then
		if [ "$(id -u)" -eq 0 ]; then
			apt-get update -qq >>"$vmdir/apt.log" 2>&1
			(cd "$dl" && apt-get download "$pkg") >>"$vmdir/apt.log" 2>&1 ||
				die "apt-get download $pkg failed, see $vmdir/apt.log"
		else
			die "apt-get download $pkg failed, see $vmdir/apt.log"
		fi
	fi
	deb=$(ls "$dl"/*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || die "no .deb downloaded for $pkg"
	dpkg-deb -x "$deb" "$dest.tmp" || die "dpkg-deb -x $deb failed"
	kv=$(ls "$dest.tmp/lib/modules" | head -n 1)
	"$busybox" depmod -b "$dest.tmp" "$kv" || die "depmod for $kv failed"
	touch "$dest.tmp/.complete"
	rm -rf "$dest" && mv "$dest.tmp" "$dest" && rm -rf "$dl"
}

if [ -n "${VM_KERNEL:-}" ]; then
	kernel=$VM_KERNEL
	[ -f "$kernel" ] || die "VM_KERNEL=$kernel not found"
	moddir=${VM_MODULES_DIR:-}
else
	[ "${VM_KERNEL_REFRESH:-0}" = 1 ] && rm -rf "$vmdir/kernel"
	cached=$(ls -d "$vmdir"/kernel/*/.complete 2>/dev/null | sort | tail -n 1)
	if [ -n "${VM_KERNEL_PKG:-}" ] || [ -z "$cached" ]; then
		kernel_fetch
		cached=$vmdir/kernel/$pkg/.complete
	fi
	kdir=${cached%/.complete}
	kernel=$(ls "$kdir"/boot/vmlinuz-* | head -n 1)
	moddir=$(ls -d "$kdir"/lib/modules/* | head -n 1)
fi
[ -r "$kernel" ] || die "kernel image $kernel not readable"

# --------------------------------------------------------------- rootfs ---
root=$vmdir/rootfs
rm -rf "$root" || die "cannot clear $root"
mkdir -p "$root" && cd "$root" || die "cannot create $root"
# Merged-/usr layout like the host, so host library paths work unchanged.
mkdir -p usr/bin usr/sbin usr/lib usr/lib64 usr/local/bin usr/local/sbin \
	usr/local/lib etc/kjail-vm etc/default proc sys dev run tmp var/tmp root \
	home/kjtest mnt tests boot
ln -s usr/bin bin; ln -s usr/sbin sbin; ln -s usr/lib lib; ln -s usr/lib64 lib64
# As on a Debian host (the host suite relies on these).
ln -s /run var/run
chmod 1777 tmp var/tmp; chmod 0700 root
# The kernel opens /dev/console for /init before anything is mounted.
[ "$(id -u)" -eq 0 ] && mknod -m 0600 dev/console c 5 1

# install_bin HOSTPATH GUESTPATH: copy a program plus the shared libraries
# ldd resolves for it (same paths in the guest as on the host).
install_bin() {
	src=$1 dst=$2
	[ -f "$src" ] || die "$src: no such file"
	mkdir -p "$root${dst%/*}" && cp -L "$src" "$root$dst" || die "copy $src failed"
	chmod a+rx "$root$dst"
	# ldd fails on static binaries and scripts: nothing to copy then.
	libs=$(ldd "$src" 2>/dev/null) || return 0
	missing=$(printf '%s\n' "$libs" | awk '/=> not found/ { print $1 }')
	[ -z "$missing" ] || die "$src: libraries not found on the host: $missing"
	for lib in $(printf '%s\n' "$libs" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3; next } $1 ~ /^\// { print $1 }'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root${lib%/*}" && cp -L "$lib" "$root$lib" ||
			die "copy $lib (for $src) failed"
	done
}

install_bin "$busybox" /usr/bin/busybox
install_bin "$(command -v bash)" /usr/bin/bash
install_bin "$kjail" /usr/local/bin/kjail

# Extra helpers: tests/vm/guest/bins, one per line: HOSTPATH [GUESTPATH].
# A bare name is looked up in the host PATH and keeps its path; a relative
# path is taken from the repository root and goes to /usr/local/bin/<name>.
# A leading '?' marks an optional entry (skipped if missing on the host).
if [ -f "$guestsrc/bins" ]; then
	while read -r src dst _; do
		case $src in ''|'#'*) continue;; esac
		opt=0
		case $src in '?'*) opt=1; src=${src#?};; esac
		case $src in
		/*) host=$src; def=$src;;
		*/*) host=$repo/$src; def=/usr/local/bin/${src##*/};;
		*) host=$(command -v "$src" 2>/dev/null || true)
		   case $host in /*) def=$host;; *) host=""; def="";; esac;;
		esac
		if [ -z "$host" ] || [ ! -f "$host" ]; then
			[ $opt = 1 ] && continue
			die "tests/vm/guest/bins: '$src' not found on the host"
		fi
		install_bin "$host" "${dst:-$def}"
	done <"$guestsrc/bins"
fi

# busybox applets as symlinks wherever nothing real was installed.
for app in $("$busybox" --list-full); do
	case $app in */*) ;; *) continue;; esac
	[ -e "$app" ] || [ -L "$app" ] || ln -s /usr/bin/busybox "$app"
done

# Kernel modules listed in tests/vm/guest/modules, with their dependencies.
if [ -n "${moddir:-}" ] && [ -f "$moddir/modules.dep" ] && [ -f "$guestsrc/modules" ]; then
	kv=${moddir##*/}
	gmod=lib/modules/$kv
	mkdir -p "$gmod"
	want=$(sed 's/#.*//' "$guestsrc/modules" | tr -s ' \t' '\n\n' | sed '/^$/d')
	for m in $want; do
		name=$(echo "$m" | tr - _)
		line=$(awk -v n="$name" -F: '{ f = $1; sub(/.*\//, "", f); sub(/\.ko.*$/, "", f);
			gsub(/-/, "_", f); if (f == n) { print; exit } }' "$moddir/modules.dep")
		if [ -z "$line" ]; then
			grep -q "/$m.ko" "$moddir/modules.builtin" 2>/dev/null ||
				say "warning: module $m not in $kv (skipped)"
			continue
		fi
		for f in $(echo "$line" | tr -d :); do
			[ -e "$gmod/$f" ] && continue
			mkdir -p "$gmod/${f%/*}" && cp "$moddir/$f" "$gmod/$f" || die "copy module $f failed"
		done
		echo "$m" >>etc/kjail-vm/modules
	done
	for f in modules.builtin modules.order modules.builtin.modinfo; do
		[ -f "$moddir/$f" ] && cp "$moddir/$f" "$gmod/"
	done
	"$busybox" depmod -b "$root" "$kv" || die "depmod for the guest modules failed"
fi

# Users: root and the unprivileged test user kjtest (1000:1000).
cat >etc/passwd <<'EOF'
root:x:0:0:root:/root:/bin/sh
kjtest:x:1000:1000:kjail test user:/home/kjtest:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >etc/group <<'EOF'
root:x:0:
tty:x:5:
kjtest:x:1000:
nogroup:x:65534:
EOF
cat >etc/shadow <<'EOF'
root:*:19000:0:99999:7:::
kjtest:!:19000:0:99999:7:::
nobody:*:19000:0:99999:7:::
EOF
chmod 0600 etc/shadow
echo "kjtest:100000:65536" >etc/subuid
echo "kjtest:100000:65536" >etc/subgid
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >etc/nsswitch.conf
printf '127.0.0.1\tlocalhost kjail-vm\n::1\tlocalhost\n' >etc/hosts
echo kjail-vm >etc/hostname
printf '/usr/local/lib\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' >etc/ld.so.conf
# A loader cache is optional (glibc searches the multiarch dirs anyway);
# ldconfig -r needs chroot, so only as root.
[ "$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null 2>&1 && ldconfig -r "$root" 2>/dev/null

# Tests.
for t in $tests; do
	case $t in
	all) for f in "$guestsrc"/*.t; do [ -f "$f" ] && cp "$f" tests/; done; continue;;
	*/*) f=$t;;
	*.t) f=$guestsrc/$t;;
	*) f=$guestsrc/$t.t;;
	esac
	[ -f "$f" ] || die "test '$t' not found ($f)"
	cp "$f" tests/
done
[ -f "$guestsrc/lib.sh" ] && cp "$guestsrc/lib.sh" tests/

# The host suite: its files and helpers under /kjail/tests, kjail and the
# probes staged in /var/tmp/kjail-tests as tests/run.sh does, and one
# guest script per file and caller that runs it through kjail-vm-hostsuite
# (root files sort after the guest scripts, then the user ones).  The
# host's /usr comes in through virtfs (see the boot section); from the
# host's /etc only what the suite's programs read (no secrets).
if [ -n "$hosttests" ]; then
	mkdir -p kjail/tests var/tmp/kjail-tests/probes etc/ssl
	cp -R "$repo/tests/lib.sh" "$repo/tests/config-lib.sh" "$repo/tests/demo.sh" "$repo/tests/integration" \
		"$repo/tests/escape" kjail/tests/ || die "copy of the host suite failed"
	cp "$kjail" var/tmp/kjail-tests/kjail || die "copy of kjail failed"
	probes=$repo/build/tests
	[ -x "$probes/fdcheck" ] || die "the probes are missing: sh tests/probes/build.sh build/tests"
	find "$probes" -maxdepth 1 -type f -perm -u+x -exec cp {} var/tmp/kjail-tests/probes/ \;
	chmod -R a+rX kjail var/tmp/kjail-tests
	for e in alternatives ssl/certs ssl/openssl.cnf python3 python3.11 perl \
		protocols services ethertypes iproute2 mime.types localtime inputrc; do
		[ -e "/etc/$e" ] || [ -L "/etc/$e" ] || continue
		cp -a "/etc/$e" "etc/$e" || die "copy of /etc/$e failed"
	done
	touch etc/kjail-vm/host-usr
	# One lane per caller: init2 runs the lanes side by side (one per
	# vCPU), each file after the other within its lane.  Files that look
	# at the whole machine run alone, after the guest scripts, before the
	# lanes: limits.t checks that the cgroup tree is the same after as
	# before, which the other lane's cgroups would break.
	for a in $as_list; do
		mkdir -p "tests/lanes/$a"
		for t in $hosttests; do
			suite=${t%%/*} name=${t#*/}; name=${name%.t}
			case $t in
			integration/limits.t) f=tests/50-$a-$suite-$name.t;;
			*) f=tests/lanes/$a/$a-$suite-$name.t;;
			esac
			printf 'exec /usr/sbin/kjail-vm-hostsuite %s %s\n' "$a" "$t" >"$f"
		done
	done
fi
chmod -R a+rX tests
[ -n "$(ls tests/*.t tests/lanes/*/*.t 2>/dev/null)" ] || die "no tests selected"

cp "$here/init" init && cp "$here/init2" usr/sbin/kjail-vm-init &&
	cp "$here/hostsuite" usr/sbin/kjail-vm-hostsuite ||
	die "copy of the guest init scripts failed"
chmod 0755 init usr/sbin/kjail-vm-init usr/sbin/kjail-vm-hostsuite

initrd=$vmdir/initramfs.cpio.gz
# Everything root-owned in the archive; the guest chowns /home/kjtest.
find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1 >"$initrd.tmp" &&
	mv "$initrd.tmp" "$initrd" || die "building $initrd failed"
cd "$repo" || exit 2
say "kernel $kernel"
say "initramfs $initrd ($(du -k "$initrd" | cut -f1) KiB), log $log"

# ------------------------------------------------------------------ boot ---
# Under TCG: no Meltdown page-table isolation (each syscall would flush
# QEMU's software TLB; nothing here tests the mitigations), and the TSC as
# clock source (the kernel rejects it under TCG and falls back to the
# HPET, whose every read is an emulated MMIO access: in the scheduler, in
# timers and in every clock_gettime, which cannot use the vDSO then).
append="console=ttyS0 panic=-1 quiet mitigations=off clocksource=tsc tsc=reliable"
append="$append kjail.test_timeout=$test_timeout ${VM_APPEND:-}"
: >"$log"
start=$(date +%s.%N)
# The host's /usr for the host-suite files: read-only, as a 9p export
# (virtio-9p-pci; the guest loads virtio_pci, 9pnet_virtio and 9p from
# guest/modules).  security_model=none: the guest sees the host's owners
# and modes, set-user-ID bits included, as programs on a host do.
set --
[ -n "$hosttests" ] && set -- -virtfs \
	local,path=/usr,mount_tag=kjail-host-usr,security_model=none,readonly=on
qemu-system-x86_64 -accel tcg -cpu "${VM_CPU:-qemu64}" -m "$mem" -smp "$smp" -nographic \
	-no-reboot -nic none -kernel "$kernel" -initrd "$initrd" "$@" \
	-append "$append" </dev/null >"$log" 2>&1 &
qpid=$!
streampid=""
cleanup() {
	kill "$qpid" 2>/dev/null
	[ -n "$streampid" ] && kill "$streampid" 2>/dev/null
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM HUP

# Live view: the guest's TAP lines (everything between the markers that is
# TAP) on stdout; with VM_VERBOSE=1 the raw console on stderr as well.
# Console lines end in \r and the firmware leaves terminal escapes (and maybe
# an unterminated line) in front of the first guest line: strip escapes and
# match the markers as line suffixes.
clean='{ gsub(/\r/, ""); gsub(/\033(\[[0-9;?]*[A-Za-z]|[A-Za-z])/, "") }'
tap_filter="$clean"'
	verbose { print > "/dev/stderr"; fflush("/dev/stderr") }
	/KJAIL-VM-TAP-BEGIN$/ { intap = 1; next }
	/KJAIL-VM-TAP-END$/ { intap = 0; next }
	intap && /^(ok|not ok)([ \t]|$)|^1\.\.[0-9]+|^#|^Bail out!/ { print; fflush() }
'
tail -n +1 -f --pid="$qpid" "$log" 2>/dev/null |
	awk -v verbose="${VM_VERBOSE:-0}" "$tap_filter" &
streampid=$!

timed_out=0
deadline=$(( $(date +%s) + timeout_s ))
while kill -0 "$qpid" 2>/dev/null; do
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		say "timeout after ${timeout_s}s: killing qemu (pid $qpid)"
		kill "$qpid" 2>/dev/null
		i=0
		while kill -0 "$qpid" 2>/dev/null && [ $i -lt 10 ]; do sleep 1; i=$((i + 1)); done
		kill -9 "$qpid" 2>/dev/null
		break
	fi
	sleep 0.2
done
wait "$qpid" 2>/dev/null
qrc=$?
end=$(date +%s.%N)
wait "$streampid" 2>/dev/null
streampid=""
trap - EXIT INT TERM HUP

# ---------------------------------------------------------------- verdict ---
# Authoritative parse of the whole log (the live view is only cosmetic).
summary=$(awk "$clean"'
	/KJAIL-VM-TAP-BEGIN$/ { intap = 1; begun = 1; next }
	/KJAIL-VM-TAP-END$/ { intap = 0; ended = 1; next }
	/KJAIL-VM-UPTIME [0-9.]+$/ { uptime = $NF }
	/KJAIL-VM-POWEROFF$/ { poweroff = 1 }
	/Kernel panic/ { panic = 1 }
	!intap { next }
	/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; haveplan = 1; next }
	/^Bail out!/ { bail = 1; next }
	/^(ok|not ok)([ \t]|$)/ {
		n++
		notok = ($0 ~ /^not ok/)
		d = $0; dir = ""
		if (match(d, /#[ \t]*[Ss][Kk][Ii][Pp]/)) dir = "skip"
		else if (match(d, /#[ \t]*[Tt][Oo][Dd][Oo]/)) dir = "todo"
		if (dir == "todo") todo++
		else if (notok) failed++
		else if (dir == "skip") skipped++
		else passed++
	}
	END {
		printf "n=%d passed=%d failed=%d skipped=%d todo=%d plan=%d haveplan=%d ",
			n, passed, failed, skipped, todo, plan, haveplan
		printf "begun=%d ended=%d poweroff=%d panic=%d bail=%d uptime=%s\n",
			begun, ended, poweroff, panic, bail, (uptime == "" ? "?" : uptime)
	}' "$log")
n=0 passed=0 failed=0 skipped=0 todo=0 plan=0 haveplan=0
begun=0 ended=0 poweroff=0 panic=0 bail=0 uptime="?"
eval "$summary"

elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "vm: boot-to-poweroff ${elapsed}s wall (guest uptime ${uptime}s), qemu exit $qrc"

problems=""
[ "$timed_out" = 1 ] && problems="$problems; timed out after ${timeout_s}s"
[ "$panic" = 1 ] && problems="$problems; guest kernel panic"
[ "$begun" = 1 ] || problems="$problems; guest never started the tests"
[ "$begun" = 1 ] && [ "$ended" != 1 ] && problems="$problems; TAP stream incomplete"
[ "$haveplan" = 1 ] || problems="$problems; no TAP plan"
[ "$haveplan" = 1 ] && [ "$plan" -ne "$n" ] && problems="$problems; plan 1..$plan but $n results"
[ "$n" -gt 0 ] || problems="$problems; no test results"
[ "$bail" = 1 ] && problems="$problems; Bail out!"
[ "$failed" -gt 0 ] && problems="$problems; $failed failed"
[ "$poweroff" = 1 ] && [ "$timed_out" = 0 ] || problems="$problems; guest did not power off"
[ "$qrc" -eq 0 ] || [ "$timed_out" = 1 ] || problems="$problems; qemu exited with $qrc"

[ "$skipped" -gt 0 ] || [ "$todo" -gt 0 ] && echo "vm: $skipped skipped, $todo todo"
status=0
if [ -n "$problems" ]; then
	echo "vm: FAIL:${problems#;} (console: $log)"
	status=1
fi
echo "vm: $passed passed, $failed failed"
exit $status
