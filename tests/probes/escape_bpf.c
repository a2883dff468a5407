/* escape_bpf: load an eBPF program and create a map: the verifier has
 * been a root exploit many times (CVE-2021-3490, CVE-2017-16995). */
#include <linux/bpf.h>
#include <sys/syscall.h>

#include "escape.h"

int main(void)
{
	struct bpf_insn prog[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr attr;
	long fd;
	int e1;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)prog;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd >= 0) {
		close((int)fd);
		ESCAPED("bpf(BPF_PROG_LOAD) loaded a program");
	}
	e1 = errno;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd >= 0) {
		close((int)fd);
		ESCAPED("bpf(BPF_MAP_CREATE) made a map");
	}
	CONTAINED("bpf(PROG_LOAD): %s; bpf(MAP_CREATE): %s", errname(e1), errname(errno));
}
