/* escape_setuid PATH: execute PATH, a setuid-root copy of this probe
 * (and, for the file-capability variant, one with cap_sys_admin+ep),
 * which reports what it got. no_new_privs and nosuid mounts must make
 * the bit and the file capabilities worthless. */
#include <sys/prctl.h>

#include "escape.h"

static unsigned long long cap_eff(void)
{
	char line[256];
	unsigned long long caps = ~0ULL;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	if (f)
		fclose(f);
	return caps;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--report")) {
		uid_t ruid = (uid_t)strtoul(argv[2], NULL, 10);
		unsigned long long caps = cap_eff();
		if (geteuid() != ruid || caps)
			ESCAPED("the setuid/file-capability binary ran with euid %u, CapEff %llx",
				(unsigned)geteuid(), caps);
		CONTAINED("the setuid/file-capability binary ran with euid %u, no capabilities"
			  " (no_new_privs %d)",
			  (unsigned)geteuid(), prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	}
	if (argc != 2)
		BROKEN("usage: escape_setuid PATH");
	{
		char uid[16];
		snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
		execl(argv[1], argv[1], "--report", uid, (char *)NULL);
		CONTAINED("exec %s: %s", argv[1], errname(errno));
	}
}
