/* escape_vm_writev: process_vm_writev into a sibling's memory and
 * process_vm_readv out of pid 1's: ptrace-grade access without ptrace. */
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "escape.h"

static volatile int target = 1;

int main(void)
{
	int value = 2, e1, e2;
	struct iovec local = {.iov_base = &value, .iov_len = sizeof(value)};
	struct iovec remote = {.iov_base = (void *)&target, .iov_len = sizeof(target)};
	pid_t kid = fork();
	ssize_t r1, r2;

	if (kid < 0)
		BROKEN("fork: %s", errname(errno));
	if (kid == 0) {
		pause();
		_exit(0);
	}
	r1 = process_vm_writev(kid, &local, 1, &remote, 1, 0);
	e1 = errno;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	r2 = process_vm_readv(1, &local, 1, &remote, 1, 0);
	e2 = errno;
	if (r1 >= 0)
		ESCAPED("process_vm_writev wrote into a sibling");
	if (r2 >= 0)
		ESCAPED("process_vm_readv read pid 1's memory");
	CONTAINED("process_vm_writev(sibling): %s; process_vm_readv(1): %s", errname(e1),
		  errname(e2));
}
