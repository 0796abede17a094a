/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the pto_npu kselftests: raw ioctls through libdrm's
 * drmIoctl(), so the tests depend only on the uapi header, never on libpto.
 * Compiled once (lib/pto_test.c, lib/pto_test_libpto.c) into an archive
 * every kselftest links; this header does not include the kselftest
 * harness, so helper files of a test (fuzz/) include it too. A test
 * includes ../pto_test.h, which adds the harness.
 *
 * Every helper returns 0 or -errno (errno is left as the ioctl set it), so a
 * test can either ASSERT_EQ(0, helper()) or check the exact error.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_TEST_LIB_H
#define PTO_TEST_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "pto_npu_accel.h"

/*
 * Time limits scale with the run's time factor: PTO_TIME_FACTOR, measured
 * at boot by tools/vm/init.sh (how much slower than the reference machine
 * this VM runs, at least 1). A test's limit is what it needs on an
 * unloaded machine times the factor; no result may depend on the host's
 * speed in any other way. The harness's per-test timeouts are scaled by
 * TEST_HARNESS_MAIN (pto_test.h); PTO_TEST_SEC() limits by the factor too.
 */
#define PTO_TIME_FACTOR_MAX 100.0

double pto_time_factor(void);

/* Device node used when PTO_DEVICE is not set in the environment. */
#define PTO_TEST_DEFAULT_DEVICE "/dev/accel/accel0"

/* Byte used to detect which bytes an ioctl wrote. */
#define PTO_TEST_SENTINEL 0xAA

const char *pto_test_device_path(void);

/* Opens a new context: an fd of its own, or -1 with errno set. */
int pto_test_open(void);

size_t pto_test_page_size(void);

/* 0 for a zero @ret (an ioctl's), else -errno. */
int pto_test_ret(int ret);

/* Full-size query of @type into @data (@size bytes, zeroed first). */
int pto_test_query(int fd, uint32_t type, void *data, uint32_t size);
int pto_test_device_info(int fd, struct drm_pto_npu_device_info *info);
int pto_test_limits(int fd, struct drm_pto_npu_limits *lim);
int pto_test_memory(int fd, struct drm_pto_npu_memory_info *mem);
int pto_test_counters(int fd, struct drm_pto_npu_counters *c);

/* ioctl(2) once (drmIoctl() restarts on EINTR): 0 or -errno. */
int pto_test_ioctl(int fd, unsigned long req, void *arg);

/*
 * Creates a GM buffer of @size bytes. On success *@handle is the new handle
 * and, if @out_size is not NULL, *@out_size the allocated (page aligned) size.
 */
int pto_test_bo_create(int fd, uint64_t size, uint32_t *handle,
		       uint64_t *out_size);
int pto_test_bo_info(int fd, uint32_t handle, uint64_t *size,
		     uint64_t *mmap_offset);
int pto_test_gem_close(int fd, uint32_t handle);

/*
 * Maps the whole buffer @handle MAP_SHARED read/write. Returns MAP_FAILED
 * with errno set on failure; *@size gets the buffer size if not NULL.
 */
void *pto_test_bo_mmap(int fd, uint32_t handle, uint64_t *size);

/* True if all @len bytes at @p equal @byte. */
int pto_test_all_bytes(const void *p, size_t len, uint8_t byte);

/* A per-buffer, per-word pattern: distinct across buffers and offsets. */
uint32_t pto_test_pattern(uint32_t seed, size_t word);
void pto_test_fill(void *p, size_t len, uint32_t seed);
/* Index of the first word that does not match, or -1 if all match. */
long pto_test_check(const void *p, size_t len, uint32_t seed);

/* Reads an unsigned decimal module parameter; -errno on failure. */
long pto_test_param_read(const char *name);
/* Writes a module parameter; 0 or -errno (as the write(2) failed). */
int pto_test_param_write(const char *name, long value);

#endif /* PTO_TEST_LIB_H */

/*
 * ------------------------------------------------------------------------
 * Helpers for the tests that run work on the device (kernel_*, queue_*,
 * tasks_*, spmd_*, mixed_*, predicate_*, early_*, syncall_*, ...). They
 * use libpto as well as raw ioctls: define PTO_TEST_LIBPTO before
 * including this header. The tests without it keep depending on the uapi
 * header alone.
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

int64_t pto_test_now_ns(void);

/* libpto device handle on the test device node (a context of its own). */
int pto_test_dev_open(struct pto_device **out);

/*
 * The work budget of the test queues that run long kernels on purpose
 * (seconds of interpretation): the device's default (2^18 instructions)
 * ends runaway kernels within seconds, and these are not runaways.
 */
#define PTO_TEST_LONG_BUDGET (1ull << 30)

/* pto_queue_create() with PTO_TEST_LONG_BUDGET. */
int pto_test_queue_long(struct pto_device *dev, uint32_t sq_slots,
			uint32_t cq_entries, struct pto_queue **out);

/*
 * Finishes and frees a kernel builder. Returns the kernel, or NULL with the
 * builder's (or the verifier's) reason in @err.
 */
struct pto_kernel *pto_test_kb_finish(struct pto_kb *kb, char *err,
				      size_t len);

/*
 * The marking kernel of the graph, lifetime, fault, fairness and soak
 * tests: out[0, arg0] = arg1 (an I64 tensor argument) after arg2 x @inner
 * iterations of an add, from every block. NULL if it cannot be built, the
 * reason in @err (@len bytes; NULL, 0 for none).
 */
struct pto_kernel *pto_test_mark_kernel(struct pto_device *dev, int64_t inner,
					char *err, size_t len);

/* A row-major 2-D tensor [rows, cols] with a zero-filled buffer of its own. */
int pto_test_tensor2d(struct pto_device *dev, enum pto_dtype dtype,
		      int64_t rows, int64_t cols, struct pto_tensor **out);

/* GEM handle of the buffer a tensor lives in. */
uint32_t pto_test_tensor_handle(const struct pto_tensor *t);

/* A uapi tensor argument: a row-major [rows, cols] view at @offset. */
struct drm_pto_npu_tensor_arg pto_test_targ(uint32_t handle, uint8_t dtype,
					    uint64_t offset, uint32_t rows,
					    uint32_t cols);

/* The uapi tensor argument of a whole 2-D libpto tensor. */
struct drm_pto_npu_tensor_arg pto_test_targ_of(const struct pto_tensor *t);

/* Slots of an entry (uapi formula; no predicate). */
uint32_t pto_test_sqe_slots(uint32_t nt, uint32_t ns, uint32_t nd);

/* A raw SQ entry: the header and room for the largest body. */
struct pto_test_sqe {
	struct drm_pto_npu_sqe hdr;
	uint8_t body[(PTO_TEST_SQE_MAX_SLOTS - 1) * DRM_PTO_NPU_SQ_SLOT_SIZE];
};

/*
 * Encodes an entry as the uapi lays it out, num_slots by the formula.
 * Returns the bytes to push (num_slots whole slots).
 */
size_t pto_test_sqe_init(struct pto_test_sqe *e, uint32_t kernel_aiv,
			 uint32_t kernel_aic, uint32_t block_num,
			 const struct drm_pto_npu_tensor_arg *targs,
			 uint32_t nt, const int64_t *scalars, uint32_t ns,
			 const int64_t *deps, uint32_t nd);

/*
 * Reads CQEs into @out (room for @max) until @lasts of them carry
 * PTO_BLOCK_LAST, waiting (QUEUE_WAIT, which also moves held completions)
 * up to @timeout_ns in all. Returns the number of CQEs read, -ETIME when
 * the time ran out first, -ENOSPC when @out filled up first, or another
 * error of the queue calls. pto_test_reap_lasts_sched() also reads each
 * CQE's scheduler record into @sched (room for @max; NULL: none).
 */
int pto_test_reap_lasts(struct pto_queue *q, struct pto_cqe *out,
			unsigned int max, unsigned int lasts,
			int64_t timeout_ns);
int pto_test_reap_lasts_sched(struct pto_queue *q, struct pto_cqe *out,
			      struct pto_sched_rec *sched, unsigned int max,
			      unsigned int lasts, int64_t timeout_ns);

/* The LAST CQE of task @task_id among @n CQEs, or NULL. */
const struct pto_cqe *pto_test_find_last(const struct pto_cqe *cqes, int n,
					 uint64_t task_id);

/*
 * Submitting one task (through libpto's encoder or as raw bytes) and
 * collecting its CQEs, for the SPMD and mixed-task tests.
 *
 * pto_test_ring_one() rings the doorbell for what was pushed (one task) and
 * reads its CQEs into @out (room for @max) until the LAST one, waiting up
 * to @timeout_ns. *@task_id gets the id the device gave the task. Returns
 * the number of CQEs, or a negative errno (-ETIME, -ENOSPC, a queue call's
 * error, -EIO when the doorbell took nothing).
 */
int pto_test_ring_one(struct pto_queue *q, struct pto_cqe *out,
		      unsigned int max, int64_t timeout_ns, uint64_t *task_id);

/* pto_test_ring_one() of a task encoded by libpto (no graph checks). */
int pto_test_submit_one(struct pto_queue *q, const struct pto_task_desc *d,
			struct pto_cqe *out, unsigned int max,
			int64_t timeout_ns, uint64_t *task_id);

/* pto_test_ring_one() of raw entry bytes (no library checks at all). */
int pto_test_submit_raw_one(struct pto_queue *q, const void *entry,
			    size_t size, struct pto_cqe *out, unsigned int max,
			    int64_t timeout_ns, uint64_t *task_id);

/* For the predicate_*, early_* and syncall_* tests. */

/* Slots of an entry with an optional predicate (uapi formula). */
uint32_t pto_test_sqe_slots_pred(uint32_t nt, uint32_t ns, uint32_t nd,
				 int pred);

/*
 * pto_test_sqe_init() plus a predicate (@pred non-NULL: the flag is set
 * and the predicate follows the dependencies). Returns the bytes to push.
 */
size_t pto_test_sqe_init_pred(struct pto_test_sqe *e, uint32_t kernel_aiv,
			      uint32_t kernel_aic, uint32_t block_num,
			      const struct drm_pto_npu_tensor_arg *targs,
			      uint32_t nt, const int64_t *scalars, uint32_t ns,
			      const int64_t *deps, uint32_t nd,
			      const struct drm_pto_npu_predicate *pred);

/* Blocks of graph task @idx with all of @flags set. */
int pto_test_blocks_with(const struct pto_graph *g, unsigned int idx,
			 uint32_t flags);

/* Block records of graph task @idx (0 on error). */
int pto_test_block_count(const struct pto_graph *g, unsigned int idx);

/* A queue that profiles (PTO_QUEUE_PROFILE), default sizes. */
int pto_test_queue_prof(struct pto_device *dev, struct pto_queue **q);

/*
 * The profile of graph task @idx (its queue profiled) holds together:
 * one profile per record; each record's dispatch <= receive <= start <=
 * end; its waits known kinds, in order, apart, listed ones within the
 * total; ring and barrier waits inside the bar, only in a kernel that
 * has @allowed (bit per &enum pto_wait_kind); a STAGED wait exactly when
 * the record is PTO_BLOCK_STAGED, from its dispatch to its receive (the
 * doorbell); and its scheduler records sane (pto_test_sched_sane()).
 * Returns 0, or -1 with the first violation in @err.
 */
int pto_test_waits_sane(const struct pto_graph *g, unsigned int idx,
			uint32_t allowed, char *err, size_t len);

/*
 * The scheduler records of graph task @idx, the last run of a profiling
 * queue (pto_graph_task_sched()): one per record; the task's intake,
 * then each block's placement (at its ts_dispatch, STAGED exactly when
 * the block was), then its end (from its ts_finish, later only when
 * EARLY), in later iterations, each interval in order; the task's fields
 * the same in every record, and its resolve walk inside the end of its
 * last block. Returns 0, or -1 with the first violation in @err.
 */
int pto_test_sched_sane(const struct pto_graph *g, unsigned int idx,
			char *err, size_t len);

/*
 * Barrier waits of graph task @idx: every block that ran lists @per_block
 * waits of @kind (at most PTO_PROF_WAITS listed) and, round by round, no
 * block is released before the last one arrived. Returns 0 or -1 + @err.
 */
int pto_test_barrier_waits(const struct pto_graph *g, unsigned int idx,
			   uint32_t kind, uint32_t per_block, char *err,
			   size_t len);

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
 * (the AIVs of a mixed task). @sync_imm: the HARD barrier type
 * (pto_kb_syncall_hard()), or for SOFT the workspace's tensor index (2;
 * pto_kb_syncall_soft() with used_cores in s12).
 */
#define PTO_TEST_ROUND_TAG 1000
#define PTO_TEST_ROW_TAG 100000

int pto_test_build_rounds(struct pto_device *dev, enum pto_core_type core_type,
			  unsigned int mode, unsigned int sync_imm, int row,
			  unsigned int nrows, unsigned int rounds,
			  struct pto_kernel **out, char *err, size_t len);

/* Expected vals[row, block] after @rounds rounds. */
int32_t pto_test_round_val(unsigned int rounds, unsigned int row,
			   unsigned int block);

#endif /* PTO_TEST_LIBPTO_H */
#endif /* PTO_TEST_LIBPTO */
