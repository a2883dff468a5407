# kjail — kernel-native isolation for untrusted commands.
# `make demo` and `make test` are the two entry points (see README.md).

CC        ?= cc
PKGS      := libcap libseccomp libnl-3.0 libnl-route-3.0
BUILD     ?= build
SANITIZE  ?=

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c17 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
            -D_GNU_SOURCE -fstack-protector-strong -D_FORTIFY_SOURCE=2 \
            -I. -I$(BUILD)/gen $(PKG_CFLAGS)
# The four libraries are linked statically (libc stays shared): no loader
# work for them on every start (see make bench), and the VM harness only
# has to copy libc.
LDLIBS   += -Wl,-Bstatic $(PKG_LIBS) -Wl,-Bdynamic -lpthread -lm
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -U_FORTIFY_SOURCE
LDFLAGS  += -fsanitize=address,undefined
endif

SRCS      := $(wildcard runtime/*.c mounts/*.c net/*.c)
OBJS      := $(SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/builtin.o $(BUILD)/gen/seccomp_default.o
POLICIES  := $(wildcard profiles/*.policy profiles/*.profile)

# Packages each entry point needs (Debian/Ubuntu names).
BUILD_DEPS := build-essential pkg-config libcap-dev libseccomp-dev \
              libnl-3-dev libnl-route-3-dev
TEST_DEPS  := $(BUILD_DEPS) git util-linux procps iproute2 python3 perl busybox-static
BENCH_DEPS := $(BUILD_DEPS) bubblewrap hyperfine util-linux time python3
VM_DEPS    := $(BUILD_DEPS) qemu-system-x86 busybox-static cpio

.PHONY: all demo test test-unit test-integration test-vm bench deps \
        deps-test deps-bench deps-vm clean lint format

all: $(BUILD)/kjail

$(BUILD)/kjail: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: %.c $(wildcard runtime/*.h mounts/*.h net/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The built-in policies and profiles are compiled into the binary, so
# running the default sandbox needs no file lookup.
$(BUILD)/gen/builtin.c: profiles/embed.sh $(POLICIES)
	@mkdir -p $(dir $@)
	sh profiles/embed.sh $(POLICIES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/builtin.o: $(BUILD)/gen/builtin.c
	$(CC) $(CFLAGS) -c -o $@ $<

# The default seccomp policy, compiled to BPF once, here.
$(BUILD)/precompile: profiles/precompile.c $(BUILD)/runtime/seccomp.o $(BUILD)/runtime/error.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/gen/seccomp_default.c: $(BUILD)/precompile profiles/seccomp-default.policy
	@mkdir -p $(dir $@)
	$(BUILD)/precompile profiles/seccomp-default.policy kj_seccomp_default_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/seccomp_default.o: $(BUILD)/gen/seccomp_default.c
	$(CC) $(CFLAGS) -c -o $@ $<

# deps: install what is missing with apt when root, else print the line.
deps deps-test deps-bench deps-vm: PKGLIST = $(BUILD_DEPS)
deps-test: PKGLIST = $(TEST_DEPS)
deps-bench: PKGLIST = $(BENCH_DEPS)
deps-vm: PKGLIST = $(VM_DEPS)
deps deps-test deps-bench deps-vm:
	@sh contrib/install-deps.sh $(PKGLIST)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh tests/demo.sh $(BUILD)/kjail

test: deps-test
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh $(BUILD)/kjail

test-vm: deps-vm
	@$(MAKE) --no-print-directory all
	@sh tests/probes/build.sh $(BUILD)/tests
	@sh tests/vm/run.sh $(BUILD)/kjail

bench: deps-bench
	@$(MAKE) --no-print-directory all
	@sh tests/bench/run.sh $(BUILD)/kjail

lint: all
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
	  --inline-suppr -D_GNU_SOURCE -I. -I$(BUILD)/gen runtime mounts net

format:
	clang-format -i runtime/*.[ch] mounts/*.[ch] net/*.[ch] tests/probes/*.c

clean:
	rm -rf $(BUILD)
