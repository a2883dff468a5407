/* escape_unshare user|mnt|net|pid|ipc|uts|cgroup|time: create a new
 * namespace. A new user namespace gives back every capability (inside
 * it) and with it kernel code written for root (CVE-2022-0185). */
#include <sched.h>
#include <sys/syscall.h>

#include "escape.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int flag;
	} ns[] = {{"user", CLONE_NEWUSER},     {"mnt", CLONE_NEWNS},   {"net", CLONE_NEWNET},
		  {"pid", CLONE_NEWPID},       {"ipc", CLONE_NEWIPC},  {"uts", CLONE_NEWUTS},
		  {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME}};

	for (size_t i = 0; argc == 2 && i < sizeof(ns) / sizeof(ns[0]); i++) {
		if (strcmp(argv[1], ns[i].name))
			continue;
		if (syscall(SYS_unshare, ns[i].flag) < 0)
			CONTAINED("unshare(CLONE_NEW%s): %s", argv[1], errname(errno));
		ESCAPED("unshare(CLONE_NEW%s) made a new namespace", argv[1]);
	}
	BROKEN("usage: escape_unshare user|mnt|net|pid|ipc|uts|cgroup|time");
}
