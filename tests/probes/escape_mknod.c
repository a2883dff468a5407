/* escape_mknod DIR: create device nodes in DIR (the private /tmp, or the
 * workspace, which is host disk): a block node for the host's disk
 * (8:0) or /dev/mem (1:1) opens the raw device. Created nodes are
 * removed at once; the runner checks the host side. */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "escape.h"

int main(int argc, char **argv)
{
	char blk[512], chr[512];
	int e1;

	if (argc != 2)
		BROKEN("usage: escape_mknod DIR");
	snprintf(blk, sizeof(blk), "%s/escape-sda", argv[1]);
	snprintf(chr, sizeof(chr), "%s/escape-mem", argv[1]);
	if (mknod(blk, S_IFBLK | 0600, makedev(8, 0)) == 0) {
		unlink(blk);
		ESCAPED("mknod %s b 8 0 succeeded", blk);
	}
	e1 = errno;
	if (mknod(chr, S_IFCHR | 0600, makedev(1, 1)) == 0) {
		unlink(chr);
		ESCAPED("mknod %s c 1 1 succeeded", chr);
	}
	CONTAINED("mknod block 8:0: %s; char 1:1: %s", errname(e1), errname(errno));
}
