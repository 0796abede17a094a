# pto-npu top-level Makefile.
#
#   make            the module (against KDIR) and all of user space
#   make check      every test: host unit tests, then KUnit + kselftests in the VM
#   make demo       boots the VM, loads the module, runs the examples
#   make vm-shell   an interactive VM with the module and tools
#   make install    installs libpto, headers, ptoctl (PREFIX=/usr/local)

CC      ?= cc
BUILD   := build
TOOLS   := tools
VMDIR   := $(TOOLS)/vm
PREFIX  ?= /usr/local

CFLAGS_USER := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fPIC \
	-Ilibpto/include -Iuapi/drm $(shell pkg-config --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)
LDLIBS_USER := -ldrm -lpthread -lm

# The test kernel (Linux 6.12 with debug options), built once per config.
TEST_KCONFIG := $(VMDIR)/test.config
KSRC := $(or $(PTO_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pto-npu)/linux-source-6.12

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

RPATH := -Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: all module module-test lint user selftests deps kernel check demo vm-shell unit clean install
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

# Static analysis of the module: sparse (C=2) and checkpatch --strict.
lint: kernel
	@kd=$$($(VMDIR)/build-kernel.sh $(TEST_KCONFIG)) && \
		$(MAKE) -s -C "$(KSRC)" O="$$kd" M=$(CURDIR) C=2 modules 2>&1 | \
		grep -v '^  [A-Z]' | tee $(BUILD)/sparse.log; \
		[ ! -s $(BUILD)/sparse.log ]
	@perl $(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse -q -f \
		$(filter-out %.mod.c,$(wildcard kmod/*.c)) kmod/*.h kmod/tests/*.c uapi/drm/*.h

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

$(LIBPTO_SO): $(LIBPTO_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpto.so.1 -o $@.1 $^ $(LDLIBS_USER)
	ln -sf libpto.so.1 $@

$(LIBPTO_A): $(LIBPTO_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/lib/pkgconfig/libpto.pc: libpto/libpto.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' $< > $@

$(BUILD)/bin/%: tools/ptoctl/%.c $(LIBPTO_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $< -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

$(BUILD)/examples/%: examples/%.c $(LIBPTO_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $< -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

# Host unit tests of libpto: static, with ASan and UBSan.
$(BUILD)/unit/%: libpto/tests/%.c $(LIBPTO_SRC) $(LIBPTO_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -fsanitize=address,undefined -fno-omit-frame-pointer \
		-Ilibpto/src -o $@ $< $(LIBPTO_SRC) $(LDLIBS_USER)

$(BUILD)/selftests/%: selftests/pto_npu/%.c $(LIBPTO_SO) $(wildcard selftests/pto_npu/*.h)
	@mkdir -p $(dir $@)
	@[ -f "$(KSRC)/tools/testing/selftests/kselftest_harness.h" ] || $(VMDIR)/build-kernel.sh $(TEST_KCONFIG) >/dev/null
	$(CC) $(CFLAGS_USER) -Wno-error=unused-result -I$(KSRC)/tools/testing/selftests \
		-o $@ $< -L$(BUILD)/lib -lpto $(LDLIBS_USER) $(RPATH)

# ---------------------------------------------------------------- tests
unit: $(UNIT_BINS)
	@fail=0; for t in $(UNIT_BINS); do $$t || fail=1; done; exit $$fail

check: deps kernel
	@$(MAKE) -s module-test
	@$(MAKE) -s user selftests $(UNIT_BINS)
	@$(VMDIR)/check.sh $(BUILD) $(TEST_KCONFIG)

demo: deps kernel
	@$(MAKE) -s module-test
	@$(MAKE) -s user
	@$(VMDIR)/vm.sh --mode demo --build $(BUILD) --config $(TEST_KCONFIG)

vm-shell: deps kernel
	@$(MAKE) -s module-test
	@$(MAKE) -s user selftests
	@$(VMDIR)/vm.sh --mode shell --build $(BUILD) --config $(TEST_KCONFIG)

install: user
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/pto $(DESTDIR)$(PREFIX)/include/drm $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(LIBPTO_SO).1 $(DESTDIR)$(PREFIX)/lib/libpto.so.1
	ln -sf libpto.so.1 $(DESTDIR)$(PREFIX)/lib/libpto.so
	install -m 0644 $(LIBPTO_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 libpto/include/pto/*.h $(DESTDIR)$(PREFIX)/include/pto/
	install -m 0644 uapi/drm/*.h $(DESTDIR)$(PREFIX)/include/drm/
	install -m 0644 $(BUILD)/lib/pkgconfig/libpto.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 0755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf $(BUILD)
	rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd kmod/tests/*.o kmod/tests/.*.cmd \
		kmod/modules.order Module.symvers modules.order .*.cmd kmod/Module.symvers
