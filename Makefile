# pto-npu top-level Makefile.
#
#   make            the module (against KDIR) and all of user space
#   make check      every test: host unit tests, then KUnit + kselftests in the VM
#   make demo       boots the VM, loads the module, runs the examples
#   make bench      the runtime-overhead report: boots the VM with a kernel
#                   without debug options, runs tools/bench/pto-bench, writes
#                   build/bench/report.json and build/bench/ratios.png
#   make bench-peer SIMPLER_DIR=...   the same workloads on pto-npu and on
#                   simpler's CPU simulator: build/bench/peer.json
#   make vm-test T="NAME..."  only those kselftests in the test VM
#   make fuzz       the fuzz and graph_shape_fuzz kselftests, long (FUZZ_ITERS,
#                   GS_FUZZ_ITERS, FUZZ_SEED), in the test VM
#   make soak       the soak kselftest for 10 minutes in the test VM
#                   (SOAK_SECONDS=, SOAK_SEED=, SOAK_PROCS=)
#   make vm-shell   an interactive VM with the module and tools
#   make install    installs libpto, headers, ptoctl, man pages, the udev rule,
#                   the python package (PYTHONDIR)
#                   (PREFIX=/usr/local, LIBDIR, MANDIR, UDEVRULESDIR, DESTDIR)
#   make modules_install   the module into /lib/modules/<release>/updates + depmod
#   make dkms       registers, builds and installs the module with DKMS

CC      ?= cc
BUILD   := build
TOOLS   := tools
VMDIR   := $(TOOLS)/vm
PREFIX  ?= /usr/local
VERSION := 0.1.0
# Where make install puts things; LIBDIR takes a multiarch directory
# (LIBDIR=/usr/lib/x86_64-linux-gnu).
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/pto-npu
# udev reads /etc/udev/rules.d and /usr/lib/udev/rules.d, not /usr/local.
UDEVRULESDIR ?= /etc/udev/rules.d
# The python package (python/pto_npu) where Debian's python3 finds it: not
# the first python3 on PATH, which may be another interpreter without
# Debian's numpy and torch.
PYTHON  ?= /usr/bin/python3
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python3.$(shell $(PYTHON) -c 'import sys; print(sys.version_info[1])' 2>/dev/null)/dist-packages)

CFLAGS_USER := -std=c11 -D_GNU_SOURCE -DPTO_VERSION='"$(VERSION)"' -O2 -g -Wall -Wextra -Werror -fPIC \
	-Ilibpto/include -Iuapi/drm $(shell pkg-config --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)
LDLIBS_USER := -ldrm -lpthread -lm

# The test kernel (Linux 6.12 with debug options), built once per config.
TEST_KCONFIG := $(VMDIR)/test.config
KSRC := $(or $(PTO_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pto-npu)/linux-source-6.12

# The benchmark kernel (bench.config): test.config without KASAN, lockdep,
# kmemleak, UBSAN.
# vCPUs of the bench VM. qemu TCG runs each vCPU as a host thread; on a
# shared 2-CPU host a vCPU is often descheduled while it holds a spinlock
# the other vCPU spins on, which swamps what the rows measure (IQRs of
# 10-1000x). One vCPU gives repeatable figures (IQRs of a few percent);
# BENCH_SMP=2 shows the SMP behaviour, noise included. Row 4 (a mixed
# kernel's cube and vector halves overlapping) needs cores running in
# parallel: it runs in a second boot with BENCH_SMP_PAR vCPUs
# (tools/bench/run.sh).
BENCH_SMP ?= 1
BENCH_SMP_PAR ?= 2
# Debian's python3 (python3-matplotlib draws the chart), else the one in PATH.
BENCH_PY := $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
# Arguments of pto-bench in the VM, comma separated (e.g. BENCH_ARGS=-r,5,-R,1,2).
BENCH_ARGS ?=

# KDIR: the running kernel's build tree if there is one, otherwise the test kernel.
HOST_KDIR := /lib/modules/$(shell uname -r)/build
ifeq ($(KDIR),)
KDIR_AUTO := 1
endif

LIBPTO_SRC := $(wildcard libpto/src/*.c)
LIBPTO_OBJ := $(patsubst libpto/src/%.c,$(BUILD)/libpto/%.o,$(LIBPTO_SRC))
LIBPTO_HDR := $(wildcard libpto/include/pto/*.h) uapi/drm/pto_npu_accel.h $(wildcard uapi/drm/*.h)
LIBPTO_SO  := $(BUILD)/lib/libpto.so
LIBPTO_A   := $(BUILD)/lib/libpto.a

TOOL_BINS     := $(patsubst tools/ptoctl/%.c,$(BUILD)/bin/%,$(wildcard tools/ptoctl/ptoctl.c))
EXAMPLE_BINS  := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
UNIT_BINS     := $(patsubst libpto/tests/%.c,$(BUILD)/unit/%,$(wildcard libpto/tests/*.c))
SELFTEST_BINS := $(patsubst selftests/pto_npu/%.c,$(BUILD)/selftests/%,$(wildcard selftests/pto_npu/*.c))
# The kselftests' helpers (selftests/pto_npu/lib/*.c), one archive every
# kselftest links, and the helper files of a kselftest of several files
# (selftests/pto_npu/<name>/*.c, linked into <name>). Objects go under
# build/obj: everything executable in build/selftests is run as a kselftest.
SELFTEST_OBJDIR := $(BUILD)/obj/selftests
SELFTEST_LIB := $(SELFTEST_OBJDIR)/libpto_test.a
SELFTEST_LIB_OBJ := $(patsubst selftests/pto_npu/%.c,$(SELFTEST_OBJDIR)/%.o,$(wildcard selftests/pto_npu/lib/*.c))
SELFTEST_HDR := $(wildcard selftests/pto_npu/*.h selftests/pto_npu/*/*.h)

RPATH := -Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: all module module-test lint user selftests deps kernel check demo bench bench-perf bench-peer vm-test fuzz vm-shell unit clean install soak modules_install dkms dkms-source FORCE clean-module print-version
all: module user

deps:
	@$(TOOLS)/install-deps.sh

kernel: deps
	@$(VMDIR)/build-kernel.sh $(TEST_KCONFIG) >/dev/null

# ---------------------------------------------------------------- module
module:
ifeq ($(KDIR_AUTO),1)
	@if [ -d "$(HOST_KDIR)" ]; then \
		$(MAKE) -C "$(HOST_KDIR)" M=$(CURDIR) modules; \
	else \
		echo "module: no $(HOST_KDIR); building against the test kernel (set KDIR= to choose)"; \
		$(TOOLS)/install-deps.sh && \
		kd=$$($(VMDIR)/build-kernel.sh $(TEST_KCONFIG)) && \
		$(MAKE) -C "$(KSRC)" O="$$kd" M=$(CURDIR) modules; \
	fi
else
	$(MAKE) -C "$(KDIR)" M=$(CURDIR) modules
endif

# Static analysis of the module: sparse (C=2), checkpatch --strict,
# kernel-doc -Wall (every documented comment complete) and the kernel's
# Coccinelle scripts (make coccicheck MODE=report; answered findings in
# tools/lint/coccicheck.allow).
# sparse on every file (C=2) against each kernel of LINT_KERNELS, from the
# copy build-module.sh builds (W=1 clean there); then checkpatch --strict.
# The newest kernel wants a newer sparse than Debian 12 has.
LINT_KERNELS ?= debug debian-6.12
lint: kernel
	@mkdir -p $(BUILD); : >$(BUILD)/sparse.log; \
	for k in $(LINT_KERNELS); do \
		$(VMDIR)/build-module.sh $$k $(BUILD) >/dev/null || exit 1; \
		. $(BUILD)/kernels/$$k/kernel.env; \
		$(MAKE) -s $$K_MAKE M=$(CURDIR)/$(BUILD)/kernels/$$k/kbuild C=2 modules 2>&1 | \
			grep -v '^  [A-Z]' | sed "s|^|$$k: |" | tee -a $(BUILD)/sparse.log; \
	done; [ ! -s $(BUILD)/sparse.log ]
	@perl $(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse -q -f \
		$(filter-out %.mod.c,$(wildcard kmod/*.c)) kmod/*.h kmod/tests/*.c uapi/drm/*.h
	@out=$$(perl $(KSRC)/scripts/kernel-doc -none -Wall \
		$(filter-out %.mod.c,$(wildcard kmod/*.c)) kmod/*.h uapi/drm/*.h 2>&1); \
		[ -z "$$out" ] || { echo "$$out"; echo "lint: kernel-doc warnings" >&2; exit 1; }
	@. $(BUILD)/kernels/debug/kernel.env; \
	$(MAKE) -s $$K_MAKE M=$(CURDIR)/$(BUILD)/kernels/debug/kbuild coccicheck MODE=report 2>/dev/null | \
		sed -n 's|^.*/kbuild/\(kmod/[^:]*\):[0-9:-]*: |\1: |p' | \
		grep -v -x -F -f tools/lint/coccicheck.allow >$(BUILD)/coccicheck.log; \
	[ ! -s $(BUILD)/coccicheck.log ] || \
		{ cat $(BUILD)/coccicheck.log; echo "lint: coccicheck findings (tools/lint/coccicheck.allow)" >&2; exit 1; }

module-test: kernel
	@kd=$$($(VMDIR)/build-kernel.sh $(TEST_KCONFIG)) && \
		$(MAKE) -s -C "$(KSRC)" O="$$kd" M=$(CURDIR) modules

# ---------------------------------------------------------------- user space
user: $(LIBPTO_SO) $(LIBPTO_A) $(BUILD)/lib/pkgconfig/libpto.pc $(TOOL_BINS) $(EXAMPLE_BINS)

# kselftests use the kernel tree's kselftest_harness.h (extracted with the test kernel).
selftests: $(SELFTEST_BINS)

$(BUILD)/libpto/%.o: libpto/src/%.c $(LIBPTO_HDR) $(wildcard libpto/src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -fvisibility=hidden -c -o $@ $<

# libpto.map: the exported symbols (version PTO_1.0), exactly the PTO_API
# functions of the headers; check-exports.sh compares the three.
LIBPTO_MAP := libpto/libpto.map

$(LIBPTO_SO): $(LIBPTO_OBJ) $(LIBPTO_MAP) libpto/check-exports.sh
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpto.so.1 -Wl,--version-script=$(LIBPTO_MAP) \
		-o $@.1 $(LIBPTO_OBJ) $(LDLIBS_USER)
	@libpto/check-exports.sh $@.1 $(LIBPTO_MAP) $(wildcard libpto/include/pto/*.h) || { rm -f $@.1; exit 1; }
	ln -sf libpto.so.1 $@

$(LIBPTO_A): $(LIBPTO_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/lib/pkgconfig/libpto.pc: libpto/libpto.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

FORCE:

$(BUILD)/bin/%: tools/ptoctl/%.c $(LIBPTO_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $< -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

$(BUILD)/examples/%: examples/%.c $(LIBPTO_SO) $(wildcard examples/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $< -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

# Host unit tests of libpto: static, with ASan and UBSan.
$(BUILD)/unit/%: libpto/tests/%.c $(LIBPTO_SRC) $(LIBPTO_HDR) $(wildcard libpto/src/*.h libpto/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -fsanitize=address,undefined -fno-omit-frame-pointer \
		-Ilibpto/src -o $@ $< $(LIBPTO_SRC) $(LDLIBS_USER)

CFLAGS_SELFTEST := $(CFLAGS_USER) -Wno-error=unused-result -I$(KSRC)/tools/testing/selftests

$(SELFTEST_OBJDIR)/%.o: selftests/pto_npu/%.c $(LIBPTO_HDR) $(SELFTEST_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SELFTEST) -c -o $@ $<

$(SELFTEST_LIB): $(SELFTEST_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# A kselftest of several files: its helper objects are prerequisites of
# the binary, linked before the archive.
$(foreach t,$(notdir $(patsubst %/,%,$(wildcard selftests/pto_npu/*/))),$(if $(filter-out lib,$(t)),\
	$(eval $(BUILD)/selftests/$(t): $(patsubst selftests/pto_npu/%.c,$(SELFTEST_OBJDIR)/%.o,$(wildcard selftests/pto_npu/$(t)/*.c)))))

$(BUILD)/selftests/%: selftests/pto_npu/%.c $(SELFTEST_LIB) $(LIBPTO_SO) $(LIBPTO_HDR) $(SELFTEST_HDR)
	@mkdir -p $(dir $@)
	@[ -f "$(KSRC)/tools/testing/selftests/kselftest_harness.h" ] || $(VMDIR)/build-kernel.sh $(TEST_KCONFIG) >/dev/null
	$(CC) $(CFLAGS_SELFTEST) -o $@ $< $(filter %.o,$^) $(SELFTEST_LIB) \
		-L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

# ---------------------------------------------------------------- tests
unit: $(UNIT_BINS)
	@fail=0; for t in $(UNIT_BINS); do $$t || fail=1; done; exit $$fail

# The kernels make check boots, each with the module built against its own
# headers (tools/vm/kernel.sh): the debug test kernel, Debian 12's 6.12 and
# the newest kernel Debian has. CHECK_KERNELS=debug checks one.
CHECK_KERNELS ?= debug debian-6.12 debian-sid
# The kernel of vm-test, vm-shell, fuzz and soak.
KERNEL ?= debug

NPROC := $(shell nproc 2>/dev/null || echo 2)

check: deps kernel
	@$(MAKE) -s -j$(NPROC) user selftests $(UNIT_BINS) $(BUILD)/bench/pto-bench
	@$(VMDIR)/check.sh $(BUILD) "$(CHECK_KERNELS)"

# The examples on the bench kernel, repeated (DEMO_REPS, default 9), with
# the bench's rows for the same techniques in the same boots
# (tools/demo/run.sh).
demo: deps
	@$(MAKE) -s user $(BUILD)/bench/pto-bench
	@tools/demo/run.sh $(BUILD)

# ---------------------------------------------------------------- bench
# The module is built against the bench kernel by tools/vm/vm.sh --kernel
# bench (tools/vm/build-module.sh, under build/kernels/bench).
bench: deps
	@$(MAKE) -s $(LIBPTO_SO) $(BUILD)/bench/pto-bench
	@BENCH_SMP=$(BENCH_SMP) BENCH_SMP_PAR=$(BENCH_SMP_PAR) BENCH_PY=$(BENCH_PY) \
		tools/bench/run.sh $(BUILD) bench "$(BENCH_ARGS)"

# make bench-perf BENCH_ARGS=-R,1: the bench under perf in the VM; the
# profile (kernel and user symbols) is printed into build/vm/bench-perf.log.
bench-perf: deps
	@$(MAKE) -s $(LIBPTO_SO) $(BUILD)/bench/pto-bench
	@PTO_VM_PERF=1 $(VMDIR)/vm.sh --mode bench$(if $(BENCH_ARGS),:$(BENCH_ARGS)) --build $(BUILD) --kernel bench \
		--smp $(BENCH_SMP) --timeout 1200 --env PTO_PERF=1 --log $(BUILD)/vm/bench-perf.log
	@sed -n '/=== PTO-PERF-BEGIN/,/=== PTO-PERF-END/p' $(BUILD)/vm/bench-perf.log

# pto-bench: tools/bench/bench-core.c (report, row table, main),
# bench-dev.c (device helpers), rows-*.c (the rows); bench.h between them.
BENCH_SRCS := $(wildcard tools/bench/*.c)
$(BUILD)/bench/pto-bench: $(BENCH_SRCS) tools/bench/bench.h examples/mm_pipe.h $(LIBPTO_SO) $(LIBPTO_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $(BENCH_SRCS) -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

# make bench-peer SIMPLER_DIR=<checkout of hw-native-sys/simpler>: pto-npu
# side by side with simpler's CPU simulator (a2a3sim) on the same workloads,
# both in one boot of the bench VM on PEER_SMP (1) vCPU, and the simulator
# natively too: build/bench/peer.json and a table (tools/bench/peer/run.sh,
# Documentation/performance.rst). Not part of make check. PEER_PERF=skip
# (a workload): instead, that workload on pto-npu under perf in the VM.
SIMPLER_DIR ?=
PEER_SMP ?= 1
PEER_PERF ?=
bench-peer:
	@[ -n "$(SIMPLER_DIR)" ] || { tools/bench/peer/run.sh $(BUILD) ""; exit 2; }
	@$(TOOLS)/install-deps.sh
	@$(MAKE) -s $(LIBPTO_SO) $(BUILD)/bench/peer/pto-peer
	@PEER_SMP=$(PEER_SMP) PEER_PERF=$(PEER_PERF) BENCH_PY=$(BENCH_PY) tools/bench/peer/run.sh $(BUILD) "$(SIMPLER_DIR)"

$(BUILD)/bench/peer/pto-peer: tools/bench/peer/pto_peer.c $(LIBPTO_SO) $(LIBPTO_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $< -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

# Some kselftests alone in the test VM ("kunit": the KUnit suites), then
# the kmemleak scan:
#   make vm-test T="queue_uapi fuzz kunit" [VMENV="NAME=VALUE ..."]
vm-test: deps kernel
	@[ -n "$(T)" ] || { echo 'vm-test: name the kselftests, e.g. make vm-test T="queue_uapi"' >&2; exit 2; }
	@$(MAKE) -s user selftests $(BUILD)/bench/pto-bench
	@$(VMDIR)/vm.sh --mode check --only "$(T)" $(if $(VMENV),--env "$(VMENV)") --build $(BUILD) --kernel $(KERNEL) --log $(BUILD)/vm/vm-test.log
	@python3 $(VMDIR)/parse-results.py --expect-kselftests "$(T)" $(BUILD)/vm/vm-test.log

# The fuzzers, long: about 10-20 min in the test VM at the default (fuzz,
# then graph_shape_fuzz: GS_FUZZ_ITERS random graphs, a quarter of that of
# libpto recordings, the graphs at the unit cap run). A failure prints the
# seed; make fuzz FUZZ_SEED=<it> replays the same run.
FUZZ_ITERS ?= 5000
GS_FUZZ_ITERS ?= 400
FUZZ_SEED ?= $(shell date +%s)
fuzz:
	@echo "fuzz: PTO_FUZZ_SEED=$(FUZZ_SEED) PTO_FUZZ_ITERS=$(FUZZ_ITERS) PTO_GS_FUZZ_ITERS=$(GS_FUZZ_ITERS)"
	@$(MAKE) -s vm-test T="fuzz graph_shape_fuzz" VMENV="PTO_FUZZ_ITERS=$(FUZZ_ITERS) PTO_FUZZ_SEED=$(FUZZ_SEED) PTO_GS_FUZZ_ITERS=$(GS_FUZZ_ITERS) PTO_GS_FUZZ_SEED=$(FUZZ_SEED)"

# Several processes of random graphs of every technique, results checked.
SOAK_SECONDS ?= 600
SOAK_SEED ?= 1
SOAK_PROCS ?= 3
soak:
	@$(MAKE) -s vm-test T="soak" VMENV="PTO_SOAK_SECONDS=$(SOAK_SECONDS) PTO_SOAK_SEED=$(SOAK_SEED) PTO_SOAK_PROCS=$(SOAK_PROCS)"

vm-shell: deps kernel
	@$(MAKE) -s user selftests
	@$(VMDIR)/vm.sh --mode shell --build $(BUILD) --kernel $(KERNEL)

install: user
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/pto $(DESTDIR)$(INCLUDEDIR)/drm \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(PYTHONDIR)/pto_npu/language
	install -m 0755 $(LIBPTO_SO).1 $(DESTDIR)$(LIBDIR)/libpto.so.1
	ln -sf libpto.so.1 $(DESTDIR)$(LIBDIR)/libpto.so
	install -m 0644 $(LIBPTO_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 libpto/include/pto/*.h $(DESTDIR)$(INCLUDEDIR)/pto/
	install -m 0644 uapi/drm/*.h $(DESTDIR)$(INCLUDEDIR)/drm/
	install -m 0644 $(BUILD)/lib/pkgconfig/libpto.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0755 $(TOOL_BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 Documentation/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 Documentation/man/*.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 tools/udev/70-pto-npu.rules $(DESTDIR)$(UDEVRULESDIR)/
	install -m 0644 COPYING LICENSES/GPL-2.0 LICENSES/MIT $(DESTDIR)$(DOCDIR)/
	install -m 0644 python/pto_npu/*.py $(DESTDIR)$(PYTHONDIR)/pto_npu/
	install -m 0644 python/pto_npu/language/*.py $(DESTDIR)$(PYTHONDIR)/pto_npu/language/
	@[ -n "$(DESTDIR)" ] || [ "$$(id -u)" != 0 ] || ldconfig

# ---------------------------------------------------------------- the module, as a driver
# The module into /lib/modules/<release>/updates of the kernel KDIR is for
# (the running one by default), then depmod: "modprobe pto_npu" loads it
# with drm and drm_shmem_helper. INSTALL_MOD_PATH installs under a root.
MOD_KDIR = $(if $(KDIR),$(KDIR),$(HOST_KDIR))
modules_install: module
	$(MAKE) -C "$(MOD_KDIR)" M=$(CURDIR) DEPMOD=true modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b "$(INSTALL_MOD_PATH)") \
		$$(cat "$(MOD_KDIR)/include/config/kernel.release")

# DKMS: the module's sources to /usr/src/pto-npu-$(VERSION), then dkms
# add/build/install for the running kernel (DKMS rebuilds it for every
# kernel installed later). DKMS_ARGS passes more (-k <release>, ...).
DKMS_SRC := $(DESTDIR)/usr/src/pto-npu-$(VERSION)
dkms-source:
	rm -rf "$(DKMS_SRC)"
	install -d "$(DKMS_SRC)/kmod/tests" "$(DKMS_SRC)/uapi/drm"
	install -m 0644 Kbuild COPYING "$(DKMS_SRC)/"
	install -m 0644 $(filter-out %.mod.c,$(wildcard kmod/*.c)) kmod/*.h kmod/Kbuild "$(DKMS_SRC)/kmod/"
	install -m 0644 kmod/tests/*.c "$(DKMS_SRC)/kmod/tests/"
	install -m 0644 uapi/drm/*.h "$(DKMS_SRC)/uapi/drm/"
	sed 's|@VERSION@|$(VERSION)|' dkms.conf > "$(DKMS_SRC)/dkms.conf"

dkms: dkms-source
	dkms add pto-npu/$(VERSION) $(DKMS_ARGS)
	dkms build pto-npu/$(VERSION) $(DKMS_ARGS)
	dkms install pto-npu/$(VERSION) $(DKMS_ARGS)

clean: clean-module
	rm -rf $(BUILD)

clean-module:
	rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd kmod/tests/*.o kmod/tests/.*.cmd \
		kmod/modules.order Module.symvers modules.order .*.cmd kmod/Module.symvers

print-version:
	@echo $(VERSION)
