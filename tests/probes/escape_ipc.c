/* escape_ipc KEY: attach the host's System V shared memory segment KEY
 * (created by the runner with ipcmk): the sandbox has its own IPC
 * namespace, so the key names nothing there. */
#include <sys/shm.h>

#include "escape.h"

int main(int argc, char **argv)
{
	int id;

	if (argc != 2)
		BROKEN("usage: escape_ipc KEY");
	id = shmget((key_t)strtoul(argv[1], NULL, 0), 0, 0);
	if (id < 0)
		CONTAINED("shmget(%s): %s", argv[1], errname(errno));
	ESCAPED("the host's shared memory segment %s is visible (id %d)", argv[1], id);
}
