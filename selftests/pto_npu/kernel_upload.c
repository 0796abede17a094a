// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_IOCTL_PTO_NPU_KERNEL_CREATE and KERNEL_DESTROY: every refusal of the
 * ioctls one by one, the verifier's report (code, index, log) of a refused
 * program, the per-context kernel cap, and the lifetime of a kernel handle
 * against the tasks that use it and against other files.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* An address no user mapping can have. */
#define KERNEL_ADDRESS 0xffffffffff000000ull

/* A handle no context of the test hands out. */
#define UNKNOWN_HANDLE 0x7fff0000u

/* Opcode that no version of the ISA defines. */
#define BAD_OPCODE 0x7f

/* Index of the refused instruction in refused_program(). */
#define REFUSED_INSN 2

/*
 * The slow task: SLOW_OUTER x SLOW_INNER iterations, about two seconds in
 * the test VM, so it is surely still running when the test acts on it.
 */
#define SLOW_OUTER 3000
#define SLOW_INNER 1000

/* How long a task of these tests may take at most. */
#define TASK_TIMEOUT_NS PTO_TEST_SEC(60)

FIXTURE(kern)
{
	int fd;
	struct drm_pto_npu_limits lim;
};

FIXTURE_SETUP(kern)
{
	self->fd = pto_test_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", pto_test_device_path(),
				      strerror(errno));
	ASSERT_EQ(0, pto_test_limits(self->fd, &self->lim));
	ASSERT_LT((uint32_t)0, self->lim.max_insns);
	ASSERT_LT((uint32_t)0, self->lim.max_kernels_per_context);
}

FIXTURE_TEARDOWN(kern)
{
	if (self->fd >= 0)
		close(self->fd);
}

static struct pto_insn insn(uint8_t op, uint8_t dst, int64_t imm)
{
	struct pto_insn in;

	memset(&in, 0, sizeof(in));
	in.op = op;
	in.dst = dst;
	in.imm = imm;
	return in;
}

/* A create request for @n instructions at @insns, no tiles, no log. */
static struct drm_pto_npu_kernel_create create_args(const struct pto_insn *insns,
						    uint32_t n)
{
	struct drm_pto_npu_kernel_create c;

	memset(&c, 0, sizeof(c));
	c.insns = (uintptr_t)insns;
	c.num_insns = n;
	c.core_type = PTO_CORE_AIV;
	return c;
}

static int kernel_create(int fd, struct drm_pto_npu_kernel_create *c)
{
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_CREATE, c));
}

static int kernel_destroy(int fd, uint32_t handle, uint32_t pad)
{
	struct drm_pto_npu_kernel_destroy d = { .handle = handle, .pad = pad };

	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_KERNEL_DESTROY, &d));
}

/* The smallest valid program: END. */
static const struct pto_insn end_only[1] = { { .op = PTO_OP_END } };

/* LDI, LDI, an unknown opcode at REFUSED_INSN, END. */
static void refused_program(struct pto_insn p[4])
{
	p[0] = insn(PTO_OP_LDI, 0, 1);
	p[1] = insn(PTO_OP_LDI, 1, 2);
	p[2] = insn(BAD_OPCODE, 0, 0);
	p[3] = insn(PTO_OP_END, 0, 0);
}

/* An address range that was mapped and is not any more. */
static void *unmapped_page(void)
{
	size_t page = pto_test_page_size();
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, page);
	return p;
}

TEST_F(kern, minimal_program_gets_a_handle)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	c.error_code = 0xdead;
	ASSERT_EQ(0, kernel_create(self->fd, &c));
	EXPECT_NE((uint32_t)0, c.handle);
	EXPECT_EQ(UINT32_MAX, c.error_insn);
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_OK, c.error_code);
	EXPECT_EQ((uint32_t)0, c.num_tensor_args);
	EXPECT_EQ((uint32_t)0, c.num_scalar_args);
	EXPECT_EQ(0, kernel_destroy(self->fd, c.handle, 0));
}

TEST_F(kern, argument_counts_reported)
{
	/* GLD s0 = g3[s1, s2]; ARG s5 = scalar 6; END. */
	struct pto_insn p[3] = {
		{ .op = PTO_OP_GLD, .dst = 0, .a = 1, .b = 2, .imm = 3 },
		{ .op = PTO_OP_ARG, .dst = 5, .imm = 6 },
		{ .op = PTO_OP_END },
	};
	struct drm_pto_npu_kernel_create c = create_args(p, 3);

	ASSERT_EQ(0, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)4, c.num_tensor_args);
	EXPECT_EQ((uint32_t)7, c.num_scalar_args);
}

TEST_F(kern, nonzero_flags_rejected)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	c.flags = 1;
	EXPECT_EQ(-EINVAL, kernel_create(self->fd, &c));
	c.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);
}

TEST_F(kern, nonzero_input_handle_rejected)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	c.handle = 1;
	EXPECT_EQ(-EINVAL, kernel_create(self->fd, &c));
	/* Nothing was created: the table is still empty. */
	EXPECT_EQ(-ENOENT, kernel_destroy(self->fd, 1, 0));
}

TEST_F(kern, log_pointer_without_size_rejected)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);
	char log[64];

	c.log = (uintptr_t)log;
	c.log_size = 0;
	EXPECT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);
}

TEST_F(kern, log_size_without_pointer_rejected)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	c.log = 0;
	c.log_size = 64;
	EXPECT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);
}

TEST_F(kern, too_many_insns_e2big)
{
	uint32_t n = self->lim.max_insns + 1, i;
	struct pto_insn *p = calloc(n, sizeof(*p));
	struct drm_pto_npu_kernel_create c;

	ASSERT_NE(NULL, p);
	for (i = 0; i + 1 < n; i++)
		p[i] = insn(PTO_OP_LDI, 0, i);
	p[n - 1] = insn(PTO_OP_END, 0, 0);
	c = create_args(p, n);
	EXPECT_EQ(-E2BIG, kernel_create(self->fd, &c));
	c.num_insns = UINT32_MAX;
	EXPECT_EQ(-E2BIG, kernel_create(self->fd, &c));
	free(p);
}

TEST_F(kern, max_insns_accepted)
{
	uint32_t n = self->lim.max_insns, i;
	struct pto_insn *p = calloc(n, sizeof(*p));
	struct drm_pto_npu_kernel_create c;

	ASSERT_NE(NULL, p);
	for (i = 0; i + 1 < n; i++)
		p[i] = insn(PTO_OP_LDI, i % 32, i);
	p[n - 1] = insn(PTO_OP_END, 0, 0);
	c = create_args(p, n);
	EXPECT_EQ(0, kernel_create(self->fd, &c));
	EXPECT_NE((uint32_t)0, c.handle);
	free(p);
}

TEST_F(kern, too_many_tiles_rejected)
{
	struct pto_tile_decl tiles[PTO_NUM_TREGS + 1];
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);
	uint32_t i;

	memset(tiles, 0, sizeof(tiles));
	for (i = 0; i <= PTO_NUM_TREGS; i++) {
		tiles[i].dtype = PTO_ISA_F32;
		tiles[i].buf = PTO_BUF_UB;
		tiles[i].rows = 1;
		tiles[i].cols = 16;
	}
	c.tiles = (uintptr_t)tiles;
	c.num_tiles = PTO_NUM_TREGS + 1;
	EXPECT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);

	/* The same table at the cap is fine. */
	c.num_tiles = PTO_NUM_TREGS;
	EXPECT_EQ(0, kernel_create(self->fd, &c));
	EXPECT_NE((uint32_t)0, c.handle);
}

TEST_F(kern, bad_insns_pointer_efault)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);
	void *gone = unmapped_page();

	ASSERT_NE(NULL, gone);
	c.insns = (uintptr_t)gone;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	c.insns = 0;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	c.insns = KERNEL_ADDRESS;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);
}

TEST_F(kern, insns_running_off_a_mapping_efault)
{
	size_t page = pto_test_page_size();
	struct pto_insn *p;
	struct drm_pto_npu_kernel_create c;
	uint8_t *map;

	/* Two pages, the second unmapped: the program's last insn is in it. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)map);
	ASSERT_EQ(0, munmap(map + page, page));
	p = (struct pto_insn *)(map + page) - 1;
	p[0] = insn(PTO_OP_END, 0, 0);
	c = create_args(p, 1);
	EXPECT_EQ(0, kernel_create(self->fd, &c));
	c = create_args(p, 2);
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	munmap(map, page);
}

TEST_F(kern, bad_tiles_pointer_efault)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);
	void *gone = unmapped_page();

	ASSERT_NE(NULL, gone);
	c.num_tiles = 1;
	c.tiles = (uintptr_t)gone;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	c.tiles = 0;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	c.tiles = KERNEL_ADDRESS;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);
}

TEST_F(kern, refused_program_names_the_insn)
{
	struct pto_insn p[4];
	struct drm_pto_npu_kernel_create c;
	char log[256], want[64];

	refused_program(p);
	memset(log, PTO_TEST_SENTINEL, sizeof(log));
	c = create_args(p, 4);
	c.log = (uintptr_t)log;
	c.log_size = sizeof(log);
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_BAD_OPCODE, c.error_code);
	EXPECT_EQ((uint32_t)REFUSED_INSN, c.error_insn);
	EXPECT_EQ((uint32_t)0, c.handle);
	/* NUL-terminated inside the buffer, naming the instruction. */
	ASSERT_NE(NULL, memchr(log, '\0', sizeof(log)));
	snprintf(want, sizeof(want), "insn %d:", REFUSED_INSN);
	EXPECT_EQ(0, strncmp(log, want, strlen(want))) TH_LOG("log: '%s'", log);
	EXPECT_NE(NULL, strstr(log, "0x7f")) TH_LOG("log: '%s'", log);
}

TEST_F(kern, refused_program_without_log_still_reports)
{
	struct pto_insn p[4];
	struct drm_pto_npu_kernel_create c;

	refused_program(p);
	c = create_args(p, 4);
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_BAD_OPCODE, c.error_code);
	EXPECT_EQ((uint32_t)REFUSED_INSN, c.error_insn);
}

TEST_F(kern, tiny_log_is_cut_and_nul_terminated)
{
	struct pto_insn p[4];
	struct drm_pto_npu_kernel_create c;
	char full[256], log[64];
	uint32_t size;

	refused_program(p);
	c = create_args(p, 4);
	c.log = (uintptr_t)full;
	c.log_size = sizeof(full);
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	ASSERT_LT((size_t)8, strlen(full));

	for (size = 1; size <= 8; size++) {
		memset(log, PTO_TEST_SENTINEL, sizeof(log));
		c = create_args(p, 4);
		c.log = (uintptr_t)log;
		c.log_size = size;
		ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
		EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_BAD_OPCODE, c.error_code);
		EXPECT_EQ((uint32_t)REFUSED_INSN, c.error_insn);
		/* A prefix of the full message, NUL inside log_size bytes. */
		EXPECT_NE(NULL, memchr(log, '\0', size)) TH_LOG("log_size %u", size);
		EXPECT_EQ(0, strncmp(log, full, size - 1));
		EXPECT_EQ(size - 1, strnlen(log, size));
		/* Nothing written past log_size. */
		EXPECT_TRUE(pto_test_all_bytes(log + size, sizeof(log) - size,
					       PTO_TEST_SENTINEL))
			TH_LOG("log_size %u: bytes past it written", size);
	}
}

TEST_F(kern, bad_log_pointer_efault)
{
	struct pto_insn p[4];
	struct drm_pto_npu_kernel_create c;
	void *gone = unmapped_page();

	ASSERT_NE(NULL, gone);
	refused_program(p);
	c = create_args(p, 4);
	c.log = (uintptr_t)gone;
	c.log_size = 64;
	EXPECT_EQ(-EFAULT, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);
}

TEST_F(kern, refused_tile_names_the_tile)
{
	struct pto_tile_decl tiles[3];
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);
	char log[256];

	memset(tiles, 0, sizeof(tiles));
	tiles[0] = (struct pto_tile_decl){ .dtype = PTO_ISA_F32,
					   .buf = PTO_BUF_UB, .rows = 8,
					   .cols = 8 };
	/* L0A is a cube buffer: not a local buffer of an AIV kernel. */
	tiles[1] = (struct pto_tile_decl){ .dtype = PTO_ISA_F32,
					   .buf = PTO_BUF_L0A, .rows = 8,
					   .cols = 8 };
	tiles[2] = tiles[0];
	c.tiles = (uintptr_t)tiles;
	c.num_tiles = 3;
	c.log = (uintptr_t)log;
	c.log_size = sizeof(log);
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_TILE_BUF, c.error_code);
	EXPECT_EQ((uint32_t)1, c.error_insn);
	EXPECT_EQ(0, strncmp(log, "tile 1:", 7)) TH_LOG("log: '%s'", log);
}

TEST_F(kern, missing_end_names_last_insn)
{
	struct pto_insn p[3] = { insn(PTO_OP_LDI, 0, 1), insn(PTO_OP_LDI, 1, 1),
				 insn(PTO_OP_LDI, 2, 1) };
	struct drm_pto_npu_kernel_create c = create_args(p, 3);

	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_NO_END, c.error_code);
	EXPECT_EQ((uint32_t)2, c.error_insn);
}

TEST_F(kern, empty_program_verify_empty)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 0);
	char log[128];

	c.log = (uintptr_t)log;
	c.log_size = sizeof(log);
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_EMPTY, c.error_code);
	EXPECT_EQ((uint32_t)0, c.handle);
	EXPECT_NE(NULL, memchr(log, '\0', sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "empty")) TH_LOG("log: '%s'", log);

	/* No program pointer at all: the same refusal. */
	c = create_args(NULL, 0);
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_EMPTY, c.error_code);
}

TEST_F(kern, bad_core_type_refused)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	c.core_type = 3;
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_CORE_TYPE, c.error_code);
	c.core_type = 0;
	ASSERT_EQ(-EINVAL, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)DRM_PTO_NPU_VERIFY_CORE_TYPE, c.error_code);
}

TEST_F(kern, destroy_unknown_handle_enoent)
{
	EXPECT_EQ(-ENOENT, kernel_destroy(self->fd, UNKNOWN_HANDLE, 0));
	EXPECT_EQ(-ENOENT, kernel_destroy(self->fd, 0, 0));
	EXPECT_EQ(-ENOENT, kernel_destroy(self->fd, UINT32_MAX, 0));
}

TEST_F(kern, destroy_nonzero_pad_rejected)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	ASSERT_EQ(0, kernel_create(self->fd, &c));
	EXPECT_EQ(-EINVAL, kernel_destroy(self->fd, c.handle, 1));
	EXPECT_EQ(-EINVAL, kernel_destroy(self->fd, c.handle, 0x80000000u));
	/* The refused calls left the kernel in place. */
	EXPECT_EQ(0, kernel_destroy(self->fd, c.handle, 0));
}

TEST_F(kern, destroy_twice_enoent)
{
	struct drm_pto_npu_kernel_create c = create_args(end_only, 1);

	ASSERT_EQ(0, kernel_create(self->fd, &c));
	EXPECT_EQ(0, kernel_destroy(self->fd, c.handle, 0));
	EXPECT_EQ(-ENOENT, kernel_destroy(self->fd, c.handle, 0));
}

TEST_F_TIMEOUT(kern, kernel_cap_enospc, 120)
{
	uint32_t cap = self->lim.max_kernels_per_context, i, j;
	uint32_t *handles = calloc(cap, sizeof(*handles));
	struct drm_pto_npu_kernel_create c;
	int fd2;

	ASSERT_NE(NULL, handles);
	for (i = 0; i < cap; i++) {
		c = create_args(end_only, 1);
		ASSERT_EQ(0, kernel_create(self->fd, &c)) TH_LOG("kernel %u", i);
		ASSERT_NE((uint32_t)0, c.handle);
		handles[i] = c.handle;
	}
	/* Distinct handles. */
	for (i = 0; i < cap; i++)
		for (j = i + 1; j < cap; j++) {
			ASSERT_NE(handles[i], handles[j]);
		}

	c = create_args(end_only, 1);
	EXPECT_EQ(-ENOSPC, kernel_create(self->fd, &c));
	EXPECT_EQ((uint32_t)0, c.handle);

	/* Another context has a cap of its own. */
	fd2 = pto_test_open();
	ASSERT_LE(0, fd2);
	c = create_args(end_only, 1);
	EXPECT_EQ(0, kernel_create(fd2, &c));
	close(fd2);

	/* One destroyed: room for exactly one more. */
	ASSERT_EQ(0, kernel_destroy(self->fd, handles[cap / 2], 0));
	c = create_args(end_only, 1);
	EXPECT_EQ(0, kernel_create(self->fd, &c));
	c = create_args(end_only, 1);
	EXPECT_EQ(-ENOSPC, kernel_create(self->fd, &c));
	free(handles);
}

/* ------------------------------------------------------------------ tasks */

FIXTURE(klife)
{
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_tensor *out;
};

FIXTURE_SETUP(klife)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I64, 1, 16,
				       &self->out));
}

FIXTURE_TEARDOWN(klife)
{
	/* Closing the device releases the rest. */
	pto_device_close(self->dev);
}

/*
 * out[0, arg1] = arg0 * arg2, counted one by one in two nested loops (arg0
 * outer, arg2 inner iterations).
 */
static struct pto_kernel *count_kernel(struct pto_device *dev, char *err,
				       size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 2, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 5, 2);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_ldi(kb, 4, 0);
	pto_kb_loop(kb, 3, 2);
	pto_kb_loop(kb, 6, 5);
	pto_kb_alui(kb, PTO_ALU_ADD, 0, 0, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 0, 4, 1, 0);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

TEST_F_TIMEOUT(klife, destroyed_kernel_in_flight_still_runs, 90)
{
	struct pto_kernel *slow, *after;
	struct pto_tensor *args[1] = { self->out };
	int64_t sc_slow[3] = { SLOW_OUTER, 0, SLOW_INNER }, sc_after[3] = { 1234, 1, 1 };
	int64_t dep = -1, t_destroy;
	uint32_t slow_handle, after_handle, consumed;
	uint64_t first;
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	struct pto_test_sqe e;
	struct drm_pto_npu_tensor_arg targ;
	int64_t *out = pto_tensor_data(self->out);
	char err[256];
	size_t size;
	int n;

	slow = count_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, slow) TH_LOG("%s", err);
	after = count_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, after) TH_LOG("%s", err);
	slow_handle = pto_kernel_handle(slow);
	after_handle = pto_kernel_handle(after);

	/* A slow task, and a task waiting for it. */
	ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
		.kernel_aiv = slow, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc_slow, .num_scalars = 3 }));
	ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
		.kernel_aiv = after, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc_after, .num_scalars = 3,
		.deps = &dep, .num_deps = 1 }));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ((uint32_t)2, consumed);

	/* Both handles go while the tasks are in flight. */
	pto_kernel_free(slow);
	pto_kernel_free(after);
	t_destroy = pto_test_now_ns();

	/* A later entry naming a destroyed handle is refused. */
	targ = pto_test_targ_of(self->out);
	size = pto_test_sqe_init(&e, slow_handle, 0, 1, &targ, 1, sc_after, 3,
				 NULL, 0);
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, size));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, NULL));
	ASSERT_EQ((uint32_t)1, consumed);

	n = pto_test_reap_lasts(self->q, cqes, 8, 3, TASK_TIMEOUT_NS);
	ASSERT_EQ(3, n);

	c = pto_test_find_last(cqes, n, first);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	/* It was still running when its handle was destroyed. */
	EXPECT_LT(t_destroy, (int64_t)c->info.ts_end);
	EXPECT_EQ((int64_t)SLOW_OUTER * SLOW_INNER, out[0]);

	c = pto_test_find_last(cqes, n, first + 1);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	EXPECT_EQ(1234, out[1]);

	c = pto_test_find_last(cqes, n, first + 2);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_INVALID, c->info.status);
	EXPECT_EQ(PTO_REASON_KERNEL, c->info.reason);
	EXPECT_EQ((uint64_t)0, c->info.detail);

	/* The handles are gone from the table. */
	EXPECT_EQ(-ENOENT, kernel_destroy(pto_device_fd(self->dev), slow_handle, 0));
	EXPECT_EQ(-ENOENT, kernel_destroy(pto_device_fd(self->dev), after_handle, 0));
}

TEST_F(klife, other_files_kernel_handle_refused)
{
	struct pto_device *other;
	struct pto_kernel *theirs[3], *mine;
	struct pto_tensor *args[1] = { self->out };
	int64_t sc1[3] = { 9, 1, 1 }, sc2[3] = { 5, 2, 1 }, sc_bad[3] = { 77, 3, 1 };
	int64_t sc_theirs[3] = { 42, 0, 1 };
	struct pto_tensor *o2, *a2[1];
	struct pto_queue *q2;
	struct pto_graph *g;
	struct drm_pto_npu_tensor_arg targ;
	struct pto_test_sqe e;
	struct pto_cqe cqes[8];
	const struct pto_cqe *c;
	int64_t *out = pto_tensor_data(self->out);
	uint32_t consumed, foreign;
	uint64_t first;
	char err[256];
	size_t size;
	int i, n;

	ASSERT_EQ(0, pto_test_dev_open(&other));
	for (i = 0; i < 3; i++) {
		theirs[i] = count_kernel(other, err, sizeof(err));
		ASSERT_NE(NULL, theirs[i]) TH_LOG("%s", err);
	}
	mine = count_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, mine) TH_LOG("%s", err);
	foreign = pto_kernel_handle(theirs[2]);
	ASSERT_NE(pto_kernel_handle(mine), foreign);

	/* Neither destroyable from here... */
	EXPECT_EQ(-ENOENT, kernel_destroy(pto_device_fd(self->dev), foreign, 0));

	/* ...nor usable: valid, foreign, valid. */
	ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
		.kernel_aiv = mine, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc1, .num_scalars = 3 }));
	targ = pto_test_targ_of(self->out);
	size = pto_test_sqe_init(&e, foreign, 0, 1, &targ, 1, sc_bad, 3, NULL, 0);
	ASSERT_EQ(0, pto_queue_push_raw(self->q, &e, size));
	ASSERT_EQ(0, pto_queue_push_task(self->q, &(struct pto_task_desc){
		.kernel_aiv = mine, .block_num = 1, .tensors = args,
		.num_tensors = 1, .scalars = sc2, .num_scalars = 3 }));
	ASSERT_EQ(0, pto_queue_doorbell(self->q, 0, 0, &consumed, &first));
	ASSERT_EQ((uint32_t)3, consumed);
	n = pto_test_reap_lasts(self->q, cqes, 8, 3, TASK_TIMEOUT_NS);
	ASSERT_EQ(3, n);

	c = pto_test_find_last(cqes, n, first + 1);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(PTO_STATUS_INVALID, c->info.status);
	EXPECT_EQ(PTO_REASON_KERNEL, c->info.reason);
	EXPECT_EQ((uint64_t)0, c->info.detail);
	EXPECT_EQ(0, c->info.core_type);
	EXPECT_EQ(0, out[3]);
	for (i = 0; i < 2; i++) {
		c = pto_test_find_last(cqes, n, first + 2 * i);
		ASSERT_NE(NULL, c);
		EXPECT_EQ(PTO_STATUS_OK, c->info.status);
	}
	EXPECT_EQ(9, out[1]);
	EXPECT_EQ((int64_t)5, out[2]);

	/* The owner's kernel is untouched and still runs in its own file. */
	ASSERT_EQ(0, pto_test_tensor2d(other, PTO_DTYPE_I64, 1, 16, &o2));
	ASSERT_EQ(0, pto_test_queue_long(other, 0, 0, &q2));
	ASSERT_EQ(0, pto_graph_new(other, &g));
	a2[0] = o2;
	ASSERT_LE(0, pto_graph_add_task(g, &(struct pto_task_desc){
		.kernel_aiv = theirs[2], .block_num = 1, .tensors = a2,
		.num_tensors = 1, .scalars = sc_theirs, .num_scalars = 3 }));
	EXPECT_EQ(0, pto_graph_run(g, q2, TASK_TIMEOUT_NS))
		TH_LOG("%s", pto_graph_error(g));
	EXPECT_EQ(42, ((int64_t *)pto_tensor_data(o2))[0]);
	pto_graph_free(g);
	pto_device_close(other);
}

TEST_HARNESS_MAIN
