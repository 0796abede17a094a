/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the pto_npu kselftests: raw ioctls through libdrm's
 * drmIoctl(), so the tests depend only on the uapi header, never on libpto.
 *
 * Every helper returns 0 or -errno (errno is left as the ioctl set it), so a
 * test can either ASSERT_EQ(0, helper()) or check the exact error.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_TEST_H
#define PTO_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

/*
 * The harness is written for -Wall; the project builds with -Wextra too.
 * Its timeout handler has an unused parameter, and its TEST_F() wrapper
 * reads a local ("child") after longjmp() that it set after setjmp(), which
 * -Wclobbered reports in every test. The effect (checked with GCC 12 -O2):
 * after a failed ASSERT_*() the test process may skip FIXTURE_TEARDOWN()
 * before it aborts; the failure is still reported. So the teardowns here
 * only release what process exit releases anyway (fds, mappings).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "pto_npu_accel.h"

/*
 * Time limits scale with the run's time factor: PTO_TIME_FACTOR, measured
 * at boot by tools/vm/init.sh (how much slower than the reference machine
 * this VM runs, at least 1). A test's limit is what it needs on an
 * unloaded machine times the factor; no result may depend on the host's
 * speed in any other way. The harness's per-test timeouts are scaled by
 * TEST_HARNESS_MAIN below; PTO_TEST_SEC() limits by the factor too.
 */
#define PTO_TIME_FACTOR_MAX 100.0

static inline double pto_time_factor(void)
{
	static double factor;
	const char *env;

	if (factor == 0) {
		env = getenv("PTO_TIME_FACTOR");
		factor = env ? strtod(env, NULL) : 1;
		if (!(factor >= 1))
			factor = 1;
		if (factor > PTO_TIME_FACTOR_MAX)
			factor = PTO_TIME_FACTOR_MAX;
	}
	return factor;
}

static inline void pto_test_scale_timeouts(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout = (int)(t->timeout * pto_time_factor() + 0.5);
}

#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		pto_test_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}

/* Device node used when PTO_DEVICE is not set in the environment. */
#define PTO_TEST_DEFAULT_DEVICE "/dev/accel/accel0"

/* Byte used to detect which bytes an ioctl wrote. */
#define PTO_TEST_SENTINEL 0xAA

static inline const char *pto_test_device_path(void)
{
	const char *path = getenv("PTO_DEVICE");

	return path && *path ? path : PTO_TEST_DEFAULT_DEVICE;
}

/* Opens a new context: an fd of its own, or -1 with errno set. */
static inline int pto_test_open(void)
{
	return open(pto_test_device_path(), O_RDWR | O_CLOEXEC);
}

static inline size_t pto_test_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static inline int pto_test_ret(int ret)
{
	return ret ? -errno : 0;
}

/* Full-size query of @type into @data (@size bytes, zeroed first). */
static inline int pto_test_query(int fd, uint32_t type, void *data,
				 uint32_t size)
{
	struct drm_pto_npu_query q = {
		.type = type,
		.size = size,
		.data = (uintptr_t)data,
	};

	memset(data, 0, size);
	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q));
}

static inline int pto_test_device_info(int fd,
				       struct drm_pto_npu_device_info *info)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_DEVICE, info, sizeof(*info));
}

static inline int pto_test_limits(int fd, struct drm_pto_npu_limits *lim)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_LIMITS, lim, sizeof(*lim));
}

static inline int pto_test_memory(int fd, struct drm_pto_npu_memory_info *mem)
{
	return pto_test_query(fd, DRM_PTO_NPU_QUERY_MEMORY, mem, sizeof(*mem));
}

/*
 * Creates a GM buffer of @size bytes. On success *@handle is the new handle
 * and, if @out_size is not NULL, *@out_size the allocated (page aligned) size.
 */
static inline int pto_test_bo_create(int fd, uint64_t size, uint32_t *handle,
				     uint64_t *out_size)
{
	struct drm_pto_npu_bo_create c = { .size = size };
	int ret = pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_CREATE, &c));

	if (ret)
		return ret;
	*handle = c.handle;
	if (out_size)
		*out_size = c.size;
	return 0;
}

static inline int pto_test_bo_info(int fd, uint32_t handle, uint64_t *size,
				   uint64_t *mmap_offset)
{
	struct drm_pto_npu_bo_info i = { .handle = handle };
	int ret = pto_test_ret(drmIoctl(fd, DRM_IOCTL_PTO_NPU_BO_INFO, &i));

	if (ret)
		return ret;
	if (size)
		*size = i.size;
	if (mmap_offset)
		*mmap_offset = i.mmap_offset;
	return 0;
}

static inline int pto_test_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return pto_test_ret(drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c));
}

/*
 * Maps the whole buffer @handle MAP_SHARED read/write. Returns MAP_FAILED
 * with errno set on failure; *@size gets the buffer size if not NULL.
 */
static inline void *pto_test_bo_mmap(int fd, uint32_t handle, uint64_t *size)
{
	uint64_t sz, off;
	int ret = pto_test_bo_info(fd, handle, &sz, &off);

	if (ret) {
		errno = -ret;
		return MAP_FAILED;
	}
	if (size)
		*size = sz;
	return mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
}

/* True if all @len bytes at @p equal @byte. */
static inline int pto_test_all_bytes(const void *p, size_t len, uint8_t byte)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte)
			return 0;
	return 1;
}

/* A per-buffer, per-word pattern: distinct across buffers and offsets. */
static inline uint32_t pto_test_pattern(uint32_t seed, size_t word)
{
	uint32_t x = seed * 2654435761u ^ (uint32_t)word * 40503u;

	x ^= x >> 15;
	return x * 2246822519u + seed;
}

static inline void pto_test_fill(void *p, size_t len, uint32_t seed)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = pto_test_pattern(seed, i);
}

/* Index of the first word that does not match, or -1 if all match. */
static inline long pto_test_check(const void *p, size_t len, uint32_t seed)
{
	const uint32_t *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		if (w[i] != pto_test_pattern(seed, i))
			return (long)i;
	return -1;
}

#endif /* PTO_TEST_H */

/*
 * ------------------------------------------------------------------------
 * Helpers for the tests that run work on the device (kernel_*, queue_*,
 * tasks_*). They use libpto as well as raw ioctls: define PTO_TEST_LIBPTO
 * before including this header. The tests above this line keep depending
 * on the uapi header alone.
 * ------------------------------------------------------------------------
 */
#ifdef PTO_TEST_LIBPTO
#ifndef PTO_TEST_LIBPTO_H
#define PTO_TEST_LIBPTO_H

#include <stdio.h>
#include <time.h>

#include <pto/pto.h>

/* Limits: @s seconds or @ms on an unloaded machine, times the time factor. */
#define PTO_TEST_SEC(s) ((int64_t)((s) * 1000000000.0 * pto_time_factor()))
#define PTO_TEST_LIMIT_MSEC(ms) ((int64_t)((ms) * 1000000.0 * pto_time_factor()))
/* Plain conversions (durations, lower bounds, the device's own timeouts). */
#define PTO_TEST_MSEC(ms) ((int64_t)(ms) * 1000000LL)
#define PTO_TEST_SEC_WALL(s) ((int64_t)(s) * 1000000000LL)

/* Largest SQ entry: header, 16 tensors, 16 scalars, 32 deps, a predicate. */
#define PTO_TEST_SQE_MAX_SLOTS 20

static inline int64_t pto_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* libpto device handle on the test device node (a context of its own). */
static inline int pto_test_dev_open(struct pto_device **out)
{
	return pto_device_open_path(pto_test_device_path(), out);
}

/*
 * Finishes and frees a kernel builder. Returns the kernel, or NULL with the
 * builder's (or the verifier's) reason in @err.
 */
static inline struct pto_kernel *pto_test_kb_finish(struct pto_kb *kb,
						    char *err, size_t len)
{
	struct pto_kernel *k = NULL;
	int ret = pto_kb_finish(kb, &k);

	if (ret) {
		snprintf(err, len, "%s (%s)", pto_kb_error(kb),
			 pto_strerror(ret));
		k = NULL;
	} else if (len) {
		err[0] = '\0';
	}
	pto_kb_free(kb);
	return k;
}

/*
 * The marking kernel of the graph, lifetime, fault, fairness and soak
 * tests: out[0, arg0] = arg1 (an I64 tensor argument) after arg2 x @inner
 * iterations of an add, from every block. NULL if it cannot be built, the
 * reason in @err (@len bytes; NULL, 0 for none).
 */
static inline struct pto_kernel *pto_test_mark_kernel(struct pto_device *dev,
						      int64_t inner, char *err,
						      size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_arg(kb, 0, 0);
	pto_kb_arg(kb, 1, 1);
	pto_kb_arg(kb, 3, 2);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_ldi(kb, 6, inner);
	pto_kb_loop(kb, 4, 3);
	pto_kb_loop(kb, 7, 6);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 5, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 0, 2, 0, 1);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* A row-major 2-D tensor [rows, cols] with a zero-filled buffer of its own. */
static inline int pto_test_tensor2d(struct pto_device *dev,
				    enum pto_dtype dtype, int64_t rows,
				    int64_t cols, struct pto_tensor **out)
{
	const int64_t shape[2] = { rows, cols };

	return pto_tensor_alloc(dev, dtype, 2, shape, out);
}

/* GEM handle of the buffer a tensor lives in. */
static inline uint32_t pto_test_tensor_handle(const struct pto_tensor *t)
{
	return pto_buffer_handle(pto_tensor_buffer(t));
}

/* A uapi tensor argument: a row-major [rows, cols] view at @offset. */
static inline struct drm_pto_npu_tensor_arg
pto_test_targ(uint32_t handle, uint8_t dtype, uint64_t offset, uint32_t rows,
	      uint32_t cols)
{
	struct drm_pto_npu_tensor_arg a;

	memset(&a, 0, sizeof(a));
	a.handle = handle;
	a.dtype = dtype;
	a.ndim = 2;
	a.offset = offset;
	a.shape[0] = rows;
	a.shape[1] = cols;
	return a;
}

/* The uapi tensor argument of a whole 2-D libpto tensor. */
static inline struct drm_pto_npu_tensor_arg
pto_test_targ_of(const struct pto_tensor *t)
{
	const int64_t *shape = pto_tensor_shape(t);

	return pto_test_targ(pto_test_tensor_handle(t),
			     (uint8_t)pto_tensor_dtype(t),
			     pto_tensor_offset(t), (uint32_t)shape[0],
			     (uint32_t)shape[1]);
}

/* Slots of an entry (uapi formula; no predicate). */
static inline uint32_t pto_test_sqe_slots(uint32_t nt, uint32_t ns,
					  uint32_t nd)
{
	uint32_t body = nt * sizeof(struct drm_pto_npu_tensor_arg) +
			(ns + nd) * sizeof(int64_t);

	return 1 + (body + DRM_PTO_NPU_SQ_SLOT_SIZE - 1) /
			   DRM_PTO_NPU_SQ_SLOT_SIZE;
}

/* A raw SQ entry: the header and room for the largest body. */
struct pto_test_sqe {
	struct drm_pto_npu_sqe hdr;
	uint8_t body[(PTO_TEST_SQE_MAX_SLOTS - 1) * DRM_PTO_NPU_SQ_SLOT_SIZE];
};

/*
 * Encodes an entry as the uapi lays it out, num_slots by the formula.
 * Returns the bytes to push (num_slots whole slots).
 */
static inline size_t
pto_test_sqe_init(struct pto_test_sqe *e, uint32_t kernel_aiv,
		  uint32_t kernel_aic, uint32_t block_num,
		  const struct drm_pto_npu_tensor_arg *targs, uint32_t nt,
		  const int64_t *scalars, uint32_t ns, const int64_t *deps,
		  uint32_t nd)
{
	uint8_t *p = e->body;

	memset(e, 0, sizeof(*e));
	e->hdr.kernel_aiv = kernel_aiv;
	e->hdr.kernel_aic = kernel_aic;
	e->hdr.block_num = block_num;
	e->hdr.num_tensors = (uint8_t)nt;
	e->hdr.num_scalars = (uint8_t)ns;
	e->hdr.num_deps = (uint8_t)nd;
	e->hdr.num_slots = (uint16_t)pto_test_sqe_slots(nt, ns, nd);
	if (nt)
		memcpy(p, targs, nt * sizeof(*targs));
	p += nt * sizeof(*targs);
	if (ns)
		memcpy(p, scalars, ns * sizeof(int64_t));
	p += ns * sizeof(int64_t);
	if (nd)
		memcpy(p, deps, nd * sizeof(int64_t));
	return (size_t)e->hdr.num_slots * DRM_PTO_NPU_SQ_SLOT_SIZE;
}

/*
 * Reads CQEs into @out (room for @max) until @lasts of them carry
 * PTO_BLOCK_LAST, waiting (QUEUE_WAIT, which also moves held completions)
 * up to @timeout_ns in all. Returns the number of CQEs read, -ETIME when
 * the time ran out first, -ENOSPC when @out filled up first, or another
 * error of the queue calls.
 */
static inline int pto_test_reap_lasts(struct pto_queue *q, struct pto_cqe *out,
				      unsigned int max, unsigned int lasts,
				      int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;
	unsigned int got = 0, seen = 0;

	for (;;) {
		int n = pto_queue_reap(q, out + got, max - got), i, ret;

		if (n < 0)
			return n;
		for (i = 0; i < n; i++)
			seen += !!(out[got + i].info.flags & PTO_BLOCK_LAST);
		got += n;
		if (seen >= lasts)
			return (int)got;
		if (got == max)
			return -ENOSPC;
		ret = pto_queue_wait(q, deadline);
		if (ret == -ETIME && pto_test_now_ns() >= deadline) {
			/* One last look: the wait may have moved held ones. */
			n = pto_queue_reap(q, out + got, max - got);
			if (n > 0) {
				for (i = 0; i < n; i++)
					seen += !!(out[got + i].info.flags &
						   PTO_BLOCK_LAST);
				got += n;
				if (seen >= lasts)
					return (int)got;
			}
			return -ETIME;
		}
		if (ret && ret != -ETIME && ret != -EINTR)
			return ret;
	}
}

/* The LAST CQE of task @task_id among @n CQEs, or NULL. */
static inline const struct pto_cqe *
pto_test_find_last(const struct pto_cqe *cqes, int n, uint64_t task_id)
{
	int i;

	for (i = 0; i < n; i++)
		if (cqes[i].task_id == task_id &&
		    (cqes[i].info.flags & PTO_BLOCK_LAST))
			return &cqes[i];
	return NULL;
}

/* Reads an unsigned decimal module parameter; -errno on failure. */
static inline long pto_test_param_read(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/pto_npu/parameters/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Writes a module parameter; 0 or -errno (as the write(2) failed). */
static inline int pto_test_param_write(const char *name, long value)
{
	char path[128], buf[32];
	ssize_t n;
	int fd, len, err = 0;

	snprintf(path, sizeof(path), "/sys/module/pto_npu/parameters/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%ld\n", value);
	n = write(fd, buf, (size_t)len);
	if (n != len)
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

#endif /* PTO_TEST_LIBPTO_H */
#endif /* PTO_TEST_LIBPTO */

/*
 * ------------------------------------------------------------------------
 * Helpers for the SPMD and mixed-task tests (spmd_*, mixed_*): submit one
 * task (through libpto's encoder or as raw bytes) and collect its CQEs.
 * Need PTO_TEST_LIBPTO like the section above.
 * ------------------------------------------------------------------------
 */
#ifdef PTO_TEST_LIBPTO
#ifndef PTO_TEST_MIX_H
#define PTO_TEST_MIX_H

/*
 * Rings the doorbell for what was pushed (one task) and reads its CQEs
 * into @out (room for @max) until the LAST one, waiting up to @timeout_ns.
 * *@task_id gets the id the device gave the task. Returns the number of
 * CQEs, or a negative errno (-ETIME, -ENOSPC, a queue call's error, -EIO
 * when the doorbell took nothing).
 */
static inline int pto_test_ring_one(struct pto_queue *q, struct pto_cqe *out,
				    unsigned int max, int64_t timeout_ns,
				    uint64_t *task_id)
{
	uint32_t consumed = 0;
	uint64_t first = 0;
	int ret = pto_queue_doorbell(q, 0, 0, &consumed, &first);

	if (ret)
		return ret;
	if (consumed != 1)
		return -EIO;
	if (task_id)
		*task_id = first;
	return pto_test_reap_lasts(q, out, max, 1, timeout_ns);
}

/* pto_test_ring_one() of a task encoded by libpto (no graph checks). */
static inline int pto_test_submit_one(struct pto_queue *q,
				      const struct pto_task_desc *d,
				      struct pto_cqe *out, unsigned int max,
				      int64_t timeout_ns, uint64_t *task_id)
{
	int ret = pto_queue_push_task(q, d);

	return ret ? ret : pto_test_ring_one(q, out, max, timeout_ns, task_id);
}

/* pto_test_ring_one() of raw entry bytes (no library checks at all). */
static inline int pto_test_submit_raw_one(struct pto_queue *q,
					  const void *entry, size_t size,
					  struct pto_cqe *out, unsigned int max,
					  int64_t timeout_ns,
					  uint64_t *task_id)
{
	int ret = pto_queue_push_raw(q, entry, size);

	return ret ? ret : pto_test_ring_one(q, out, max, timeout_ns, task_id);
}

#endif /* PTO_TEST_MIX_H */
#endif /* PTO_TEST_LIBPTO */

/*
 * ------------------------------------------------------------------------
 * Helpers for the predicate_*, early_* and syncall_* tests (libpto too:
 * define PTO_TEST_LIBPTO first).
 *
 * SYNCALL: the kernel builder has no emitter for it, so a test emits a
 * placeholder (LDI s31, PTO_TEST_SYNC_MAGIC | ...) where the barrier goes
 * and pto_test_kb_upload() swaps each placeholder for the real SYNCALL
 * after the builder resolved the jumps (one instruction for one, so no
 * jump target moves), then uploads with pto_kernel_create_raw(). Kernels
 * using the placeholder must not use s31 themselves.
 * ------------------------------------------------------------------------
 */
#ifdef PTO_TEST_LIBPTO
#ifndef PTO_TEST_SYNC_H
#define PTO_TEST_SYNC_H

#define PTO_TEST_SYNC_MAGIC 0x5bcf000000000000LL
#define PTO_TEST_SYNC_MASK 0x7fff000000000000LL
#define PTO_TEST_SYNC_REG 31

/*
 * Placeholder of SYNCALL mode @mode. HARD: @imm = enum pto_sync_type.
 * SOFT: @imm = tensor argument of the workspace, s[@areg] = used_cores.
 */
static inline int pto_test_kb_syncall(struct pto_kb *kb, unsigned int mode,
				      unsigned int areg, unsigned int imm)
{
	return pto_kb_ldi(kb, PTO_TEST_SYNC_REG,
			  PTO_TEST_SYNC_MAGIC | (int64_t)(mode & 0xff) << 16 |
				  (int64_t)(areg & 0xff) << 8 | (imm & 0xff));
}

/* Turn every placeholder of @insns into its SYNCALL. */
static inline void pto_test_patch_syncalls(struct pto_insn *insns, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct pto_insn *in = &insns[i];
		int64_t v = in->imm;
		uint8_t mode = (uint8_t)(v >> 16);

		if (in->op != PTO_OP_LDI || in->dst != PTO_TEST_SYNC_REG ||
		    (v & PTO_TEST_SYNC_MASK) != PTO_TEST_SYNC_MAGIC)
			continue;
		*in = (struct pto_insn){
			.op = PTO_OP_SYNCALL,
			.mode = mode,
			/* SOFT: s[a] = used_cores; HARD: no register. */
			.a = mode == PTO_SYNC_SOFT ? (uint8_t)(v >> 8) : 0,
			.imm = v & 0xff,
		};
	}
}

/*
 * Patch and upload a builder's program, then free the builder. Returns 0
 * or the error, with the builder's or the verifier's message in @err and
 * the verifier's code in @info (may be NULL).
 */
static inline int pto_test_kb_upload(struct pto_device *dev,
				     enum pto_core_type core_type,
				     struct pto_kb *kb, struct pto_kernel **out,
				     struct pto_verify_info *info, char *err,
				     size_t len)
{
	const struct pto_insn *insns;
	const struct pto_tile_decl *tiles;
	struct pto_insn *copy;
	uint32_t n, nt;
	int ret;

	*out = NULL;
	if (len)
		err[0] = '\0';
	ret = pto_kb_program(kb, &insns, &n, &tiles, &nt);
	if (ret) {
		snprintf(err, len, "builder: %s (%s)", pto_kb_error(kb),
			 pto_strerror(ret));
		pto_kb_free(kb);
		return ret;
	}
	copy = malloc(n * sizeof(*copy));
	if (!copy) {
		pto_kb_free(kb);
		return -ENOMEM;
	}
	memcpy(copy, insns, n * sizeof(*copy));
	pto_test_patch_syncalls(copy, n);
	ret = pto_kernel_create_raw(dev, core_type, copy, n, tiles, nt, err,
				    len, info, out);
	free(copy);
	pto_kb_free(kb);
	return ret;
}

/* Slots of an entry with an optional predicate (uapi formula). */
static inline uint32_t pto_test_sqe_slots_pred(uint32_t nt, uint32_t ns,
					       uint32_t nd, int pred)
{
	uint32_t body = nt * sizeof(struct drm_pto_npu_tensor_arg) +
			(ns + nd) * sizeof(int64_t) +
			(pred ? sizeof(struct drm_pto_npu_predicate) : 0);

	return 1 + (body + DRM_PTO_NPU_SQ_SLOT_SIZE - 1) /
			   DRM_PTO_NPU_SQ_SLOT_SIZE;
}

/*
 * pto_test_sqe_init() plus a predicate (@pred non-NULL: the flag is set
 * and the predicate follows the dependencies). Returns the bytes to push.
 */
static inline size_t
pto_test_sqe_init_pred(struct pto_test_sqe *e, uint32_t kernel_aiv,
		       uint32_t kernel_aic, uint32_t block_num,
		       const struct drm_pto_npu_tensor_arg *targs, uint32_t nt,
		       const int64_t *scalars, uint32_t ns,
		       const int64_t *deps, uint32_t nd,
		       const struct drm_pto_npu_predicate *pred)
{
	size_t off = nt * sizeof(*targs) + (ns + nd) * sizeof(int64_t);

	pto_test_sqe_init(e, kernel_aiv, kernel_aic, block_num, targs, nt,
			  scalars, ns, deps, nd);
	if (!pred)
		return (size_t)e->hdr.num_slots * DRM_PTO_NPU_SQ_SLOT_SIZE;
	e->hdr.flags |= DRM_PTO_NPU_TASK_F_PREDICATE;
	memcpy(e->body + off, pred, sizeof(*pred));
	e->hdr.num_slots = (uint16_t)pto_test_sqe_slots_pred(nt, ns, nd, 1);
	return (size_t)e->hdr.num_slots * DRM_PTO_NPU_SQ_SLOT_SIZE;
}

/* Blocks of graph task @idx with all of @flags set. */
static inline int pto_test_blocks_with(const struct pto_graph *g,
				       unsigned int idx, uint32_t flags)
{
	const struct pto_block_info *b;
	unsigned int n = 0, i;
	int cnt = 0;

	if (pto_graph_task_blocks(g, idx, &b, &n))
		return 0;
	for (i = 0; i < n; i++)
		cnt += (b[i].flags & flags) == flags;
	return cnt;
}

/* Block records of graph task @idx (0 on error). */
static inline int pto_test_block_count(const struct pto_graph *g,
				       unsigned int idx)
{
	const struct pto_block_info *b;
	unsigned int n = 0;

	if (pto_graph_task_blocks(g, idx, &b, &n))
		return 0;
	return (int)n;
}

/*
 * The multi-round barrier kernel of the syncall tests. Tensors: t0 vals
 * (int32 [nrows, blocks]), t1 mism (int32 [nrows, blocks]), t2 the SOFT
 * workspace; ARG0 = used_cores (SOFT). Each round every unit writes
 * round * 1000 + block + row * 100000 into vals[row, block], meets the
 * others, reads every entry of the @nrows rows written that round and
 * counts the ones that are not what that round wrote, then meets them
 * again before the next round overwrites. At the end mism[row, block] =
 * the count (0 when the barrier works).
 *
 * @row: the row this kernel's units write, or -1 for 1 + sub_block_id
 * (the AIVs of a mixed task). @sync_imm: the HARD barrier type, or for
 * SOFT the workspace's tensor index (2).
 */
#define PTO_TEST_ROUND_TAG 1000
#define PTO_TEST_ROW_TAG 100000

static inline int pto_test_build_rounds(struct pto_device *dev,
					enum pto_core_type core_type,
					unsigned int mode,
					unsigned int sync_imm, int row,
					unsigned int nrows,
					unsigned int rounds,
					struct pto_kernel **out, char *err,
					size_t len)
{
	struct pto_kb *kb;
	unsigned int r;
	int ret;

	ret = pto_kb_new(dev, core_type, &kb);
	if (ret)
		return ret;
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_NUM);
	pto_kb_ldi(kb, 2, 0);
	if (row < 0) {
		pto_kb_sreg(kb, 3, PTO_SREG_SUB_BLOCK_ID);
		pto_kb_alui(kb, PTO_ALU_ADD, 3, 3, 1);
	} else {
		pto_kb_ldi(kb, 3, row);
	}
	if (mode == PTO_SYNC_SOFT)
		pto_kb_arg(kb, 12, 0);
	pto_kb_loopi(kb, 4, rounds);
	pto_kb_alui(kb, PTO_ALU_MUL, 5, 4, PTO_TEST_ROUND_TAG);
	pto_kb_alu(kb, PTO_ALU_ADD, 5, 5, 0);
	pto_kb_alui(kb, PTO_ALU_MUL, 6, 3, PTO_TEST_ROW_TAG);
	pto_kb_alu(kb, PTO_ALU_ADD, 5, 5, 6);
	pto_kb_gst(kb, 0, 3, 0, 5);
	/* The documented pattern: cacheinvalid + fence, syncall, cacheinvalid. */
	pto_kb_cacheinvalid(kb);
	pto_kb_fence(kb);
	pto_test_kb_syncall(kb, mode, 12, sync_imm);
	pto_kb_cacheinvalid(kb);
	for (r = 0; r < nrows; r++) {
		pto_kb_ldi(kb, 7, r);
		pto_kb_loop(kb, 8, 1);
		pto_kb_gld(kb, 9, 0, 7, 8);
		pto_kb_alui(kb, PTO_ALU_MUL, 10, 4, PTO_TEST_ROUND_TAG);
		pto_kb_alu(kb, PTO_ALU_ADD, 10, 10, 8);
		pto_kb_alui(kb, PTO_ALU_ADD, 10, 10,
			    (int64_t)r * PTO_TEST_ROW_TAG);
		pto_kb_cmp(kb, PTO_CMP_NE, 11, 9, 10);
		pto_kb_alu(kb, PTO_ALU_ADD, 2, 2, 11);
		pto_kb_endloop(kb);
	}
	pto_kb_fence(kb);
	pto_test_kb_syncall(kb, mode, 12, sync_imm);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 1, 3, 0, 2);
	pto_kb_end(kb);
	return pto_test_kb_upload(dev, core_type, kb, out, NULL, err, len);
}

/* Expected vals[row, block] after @rounds rounds. */
static inline int32_t pto_test_round_val(unsigned int rounds, unsigned int row,
					 unsigned int block)
{
	return (int32_t)((rounds - 1) * PTO_TEST_ROUND_TAG + block +
			 row * PTO_TEST_ROW_TAG);
}

#endif /* PTO_TEST_SYNC_H */
#endif /* PTO_TEST_LIBPTO */
