// SPDX-License-Identifier: GPL-2.0-only
/*
 * SPMD launches: one task of N blocks, each block reading its index.
 *
 *  - grids of 1, cores, cores + 1 and 10 x cores blocks, on the vector
 *    cores (AIV) and on the cube cores (AIC): every block index runs
 *    exactly once (each block writes its index, counts itself with an
 *    atomic add, and reports the block count and its core), one CQE per
 *    block, every core id in range, waves when there are more blocks than
 *    cores (some core runs several blocks), one block per core when there
 *    are exactly as many;
 *  - sync_start: with as many blocks as cores every block is resident at
 *    once, so all [start, end] intervals overlap (AIV, AIC, mixed); one
 *    block more is refused at submit (STATUS_INVALID, REASON_SYNC_START,
 *    detail = what the device holds), and libpto refuses it at build time;
 *  - a 4-block task of which block 0 faults: each block's CQE carries its
 *    own status, the task's (LAST) CQE is the faulting block's.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

/* Iterations of the busy loop of the sync_start kernels. */
#define SPIN_LOOPS 20000
#define RUN_TIMEOUT PTO_TEST_SEC(60)

/* Columns of the output row each block writes. */
enum { COL_IDX1, COL_COUNT, COL_NUM, COL_CORE, NCOLS };

/*
 * out[idx] = { idx + 1, +1 (atomic), block_num, core id }, after
 * @spin iterations of a busy loop.
 */
static struct pto_kernel *build_idx_kernel(struct pto_device *dev,
					   enum pto_core_type core,
					   unsigned int spin, char *err,
					   size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, core, &kb)) {
		snprintf(err, len, "pto_kb_new");
		return NULL;
	}
	if (spin) {
		pto_kb_ldi(kb, 7, 0);
		pto_kb_loopi(kb, 8, spin);
		pto_kb_alui(kb, PTO_ALU_ADD, 7, 7, 1);
		pto_kb_endloop(kb);
	}
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 3, PTO_SREG_BLOCK_NUM);
	pto_kb_sreg(kb, 4, PTO_SREG_CORE_ID);
	pto_kb_ldi(kb, 1, COL_IDX1);
	pto_kb_alui(kb, PTO_ALU_ADD, 5, 0, 1);
	pto_kb_gst(kb, 0, 0, 1, 5);
	pto_kb_ldi(kb, 1, COL_COUNT);
	pto_kb_ldi(kb, 2, 1);
	pto_kb_atomic_add(kb, 6, 0, 0, 1, 2);
	pto_kb_ldi(kb, 1, COL_NUM);
	pto_kb_gst(kb, 0, 0, 1, 3);
	pto_kb_ldi(kb, 1, COL_CORE);
	pto_kb_gst(kb, 0, 0, 1, 4);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/* A vector kernel that does nothing: the AIV half of a cube-only mixed task. */
static struct pto_kernel *build_empty_aiv(struct pto_device *dev, char *err,
					  size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb)) {
		snprintf(err, len, "pto_kb_new");
		return NULL;
	}
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

static unsigned int cores_of(struct pto_device *dev, enum pto_core_type core)
{
	return core == PTO_CORE_AIC ? pto_available_aic_count(dev) :
				      pto_available_aiv_count(dev);
}

/* ------------------------------------------------------------ grids */

FIXTURE(grid) {
	struct pto_device *dev;
	struct pto_queue *q;
};

FIXTURE_VARIANT(grid) {
	enum pto_core_type core;
	/* blocks = mult x cores + add */
	unsigned int mult;
	unsigned int add;
};

FIXTURE_VARIANT_ADD(grid, aiv_1) { .core = PTO_CORE_AIV, .mult = 0, .add = 1 };
FIXTURE_VARIANT_ADD(grid, aiv_cores) { .core = PTO_CORE_AIV, .mult = 1, .add = 0 };
FIXTURE_VARIANT_ADD(grid, aiv_cores_plus_1) { .core = PTO_CORE_AIV, .mult = 1, .add = 1 };
FIXTURE_VARIANT_ADD(grid, aiv_10x_cores) { .core = PTO_CORE_AIV, .mult = 10, .add = 0 };
FIXTURE_VARIANT_ADD(grid, aic_1) { .core = PTO_CORE_AIC, .mult = 0, .add = 1 };
FIXTURE_VARIANT_ADD(grid, aic_cores) { .core = PTO_CORE_AIC, .mult = 1, .add = 0 };
FIXTURE_VARIANT_ADD(grid, aic_cores_plus_1) { .core = PTO_CORE_AIC, .mult = 1, .add = 1 };
FIXTURE_VARIANT_ADD(grid, aic_10x_cores) { .core = PTO_CORE_AIC, .mult = 10, .add = 0 };

FIXTURE_SETUP(grid)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
}

FIXTURE_TEARDOWN(grid)
{
	/* Process exit releases everything if an assertion skipped this. */
	pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

TEST_F(grid, every_block_once)
{
	unsigned int cores = cores_of(self->dev, variant->core);
	unsigned int blocks = variant->mult * cores + variant->add;
	struct pto_tensor *out;
	struct pto_kernel *k;
	struct pto_cqe *cqe;
	unsigned int *seen, *per_core, i, lasts = 0, busiest = 0, used = 0;
	uint64_t id = 0;
	int32_t *o;
	char err[512];
	int n;

	ASSERT_LT(0U, cores);
	k = build_idx_kernel(self->dev, variant->core, 0, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, blocks, NCOLS,
				       &out));
	cqe = calloc(blocks + 8, sizeof(*cqe));
	seen = calloc(blocks, sizeof(*seen));
	per_core = calloc(cores, sizeof(*per_core));
	ASSERT_TRUE(cqe && seen && per_core);

	n = pto_test_submit_one(self->q,
				&(struct pto_task_desc){
					.kernel_aiv = variant->core == PTO_CORE_AIV ? k : NULL,
					.kernel_aic = variant->core == PTO_CORE_AIC ? k : NULL,
					.block_num = blocks,
					.tensors = &out,
					.num_tensors = 1,
					.user_data = 0x5eed,
				},
				cqe, blocks + 8, RUN_TIMEOUT, &id);
	ASSERT_EQ((int)blocks, n) TH_LOG("CQEs of a %u-block task", blocks);

	for (i = 0; i < blocks; i++) {
		const struct pto_block_info *b = &cqe[i].info;

		EXPECT_EQ(id, cqe[i].task_id);
		EXPECT_EQ(0x5eedULL, cqe[i].user_data);
		EXPECT_EQ(PTO_STATUS_OK, b->status);
		EXPECT_EQ(variant->core, b->core_type);
		EXPECT_TRUE(!!(b->flags & PTO_BLOCK_RAN));
		lasts += !!(b->flags & PTO_BLOCK_LAST);
		ASSERT_LT(b->block, blocks);
		seen[b->block]++;
		ASSERT_LT(b->core, cores) TH_LOG("block %u on core %u", b->block,
						 b->core);
		if (!per_core[b->core]++)
			used++;
		if (per_core[b->core] > busiest)
			busiest = per_core[b->core];
		EXPECT_LE(b->ts_dispatch, b->ts_start);
		EXPECT_LE(b->ts_start, b->ts_end);
		EXPECT_LE(b->ts_end, b->ts_finish);
	}
	EXPECT_EQ(1U, lasts);
	EXPECT_TRUE(!!(cqe[blocks - 1].info.flags & PTO_BLOCK_LAST));

	o = pto_tensor_data(out);
	for (i = 0; i < blocks; i++) {
		int32_t *row = &o[i * NCOLS];

		EXPECT_EQ(1U, seen[i]) TH_LOG("block %u has %u CQEs", i, seen[i]);
		EXPECT_EQ((int32_t)i + 1, row[COL_IDX1]);
		EXPECT_EQ(1, row[COL_COUNT]) TH_LOG("block %u ran %d times", i,
						   row[COL_COUNT]);
		EXPECT_EQ((int32_t)blocks, row[COL_NUM]);
	}
	/* The core a block reports is the one its CQE names. */
	for (i = 0; i < blocks; i++)
		EXPECT_EQ(cqe[i].info.core,
			  o[cqe[i].info.block * NCOLS + COL_CORE]);

	if (blocks > cores) {
		EXPECT_LE(2U, busiest) TH_LOG("%u blocks on %u cores: no waves",
					     blocks, cores);
	}
	if (blocks == cores) {
		EXPECT_EQ(cores, used) TH_LOG("%u blocks on %u of %u idle cores",
					      blocks, used, cores);
	}
	TH_LOG("%u blocks: %u cores used, at most %u blocks on one", blocks,
	       used, busiest);

	free(cqe);
	free(seen);
	free(per_core);
	pto_tensor_free(out);
	pto_kernel_free(k);
}

/* ------------------------------------------------------------ sync_start */

FIXTURE(spmd) {
	struct pto_device *dev;
	struct pto_queue *q;
	struct pto_device_info info;
	char err[512];
};

FIXTURE_SETUP(spmd)
{
	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_test_queue_long(self->dev, 0, 0, &self->q));
	ASSERT_EQ(0, pto_device_query_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(spmd)
{
	pto_queue_destroy(self->q);
	pto_device_close(self->dev);
}

/* Latest start, earliest end, spreads of one run's @core_type units. */
struct spans {
	unsigned int units;
	uint64_t min_dispatch, max_dispatch;
	uint64_t min_start, max_start;
	uint64_t min_end;
	/* per unit, for the diagnosis of a failure */
	uint64_t start[256], end[256];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Kernel workers of the pool(s) that run the virtual cores: the unbound
 * pools ("kworker/uP:N") of which some worker last ran a pto_npu work
 * item ("-pto_npu0" or "+pto_npu0" in its comm). For the diagnosis of late
 * starts.
 */
static int count_core_workers(void)
{
	int pools[16], npools = 0, n = 0, pass, i;

	for (pass = 0; pass < 2; pass++) {
		struct dirent *de;
		DIR *d = opendir("/proc");

		if (!d)
			return -1;
		while ((de = readdir(d))) {
			char path[300], comm[80] = "";
			int pool;
			FILE *f;

			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(comm, sizeof(comm), f) &&
			    sscanf(comm, "kworker/u%d:", &pool) == 1) {
				if (!pass && strstr(comm, "pto_npu")) {
					for (i = 0; i < npools && pools[i] != pool; i++)
						;
					if (i == npools && npools < 16)
						pools[npools++] = pool;
				} else if (pass) {
					for (i = 0; i < npools && pools[i] != pool; i++)
						;
					n += i < npools;
				}
			}
			fclose(f);
		}
		closedir(d);
	}
	return n;
}

/* "starts (ms after the first dispatch): 0 0 1 ... | ends: ..." */
static void log_spans(struct __test_metadata *_metadata, struct spans *sp)
{
	char line[2048];
	unsigned int i, n = sp->units < 256 ? sp->units : 256;
	size_t len = 0;

	qsort(sp->start, n, sizeof(sp->start[0]), cmp_u64);
	qsort(sp->end, n, sizeof(sp->end[0]), cmp_u64);
	len += snprintf(line + len, sizeof(line) - len,
			"starts (ms after the first dispatch):");
	for (i = 0; i < n && len < sizeof(line) - 8; i++)
		len += snprintf(line + len, sizeof(line) - len, " %llu",
				(unsigned long long)((sp->start[i] - sp->min_dispatch) / 1000000));
	TH_LOG("%s", line);
	len = 0;
	len += snprintf(line + len, sizeof(line) - len, "ends:");
	for (i = 0; i < n && len < sizeof(line) - 8; i++)
		len += snprintf(line + len, sizeof(line) - len, " %llu",
				(unsigned long long)((sp->end[i] - sp->min_dispatch) / 1000000));
	TH_LOG("%s", line);
	TH_LOG("kworkers of the pools running the cores now: %d",
	       count_core_workers());
}

/* Runs a sync_start task of @blocks blocks; fills @sp from its CQEs. */
static void sync_start_run(struct __test_metadata *_metadata,
			   FIXTURE_DATA(spmd) *self, struct pto_kernel *aiv,
			   struct pto_kernel *aic, unsigned int blocks,
			   unsigned int parts, uint8_t core_type,
			   struct spans *sp)
{
	unsigned int max = blocks * parts + 8, i;
	struct pto_tensor *out;
	struct pto_cqe *cqe;
	int n;

	memset(sp, 0, sizeof(*sp));
	sp->min_dispatch = sp->min_start = sp->min_end = UINT64_MAX;
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, blocks, NCOLS,
				       &out));
	cqe = calloc(max, sizeof(*cqe));
	ASSERT_NE(NULL, cqe);
	n = pto_test_submit_one(self->q,
				&(struct pto_task_desc){
					.kernel_aiv = aiv,
					.kernel_aic = aic,
					.block_num = blocks,
					.flags = PTO_TASK_SYNC_START,
					.tensors = &out,
					.num_tensors = 1,
				},
				cqe, max, RUN_TIMEOUT, NULL);
	ASSERT_EQ((int)(blocks * parts), n);
	for (i = 0; i < (unsigned int)n; i++) {
		const struct pto_block_info *b = &cqe[i].info;

		EXPECT_EQ(PTO_STATUS_OK, b->status);
		if (b->core_type != core_type)
			continue;
		if (sp->units < 256) {
			sp->start[sp->units] = b->ts_start;
			sp->end[sp->units] = b->ts_end;
		}
		sp->units++;
#define LO(f, v) do { if ((v) < sp->f) sp->f = (v); } while (0)
#define HI(f, v) do { if ((v) > sp->f) sp->f = (v); } while (0)
		LO(min_dispatch, b->ts_dispatch);
		HI(max_dispatch, b->ts_dispatch);
		LO(min_start, b->ts_start);
		HI(max_start, b->ts_start);
		LO(min_end, b->ts_end);
#undef LO
#undef HI
	}
	EXPECT_EQ(blocks, sp->units);
	for (i = 0; i < blocks; i++)
		EXPECT_EQ(1, ((int32_t *)pto_tensor_data(out))[i * NCOLS + COL_COUNT]);
	free(cqe);
	pto_tensor_free(out);
}

static double ms(uint64_t a, uint64_t b)
{
	return a > b ? (double)(a - b) / 1e6 : -(double)(b - a) / 1e6;
}

/*
 * sync_start with as many blocks as the device holds: every block is
 * placed on its core before any block ends (the scheduler's guarantee).
 * Starts that come after the first end are logged with the spans.
 */
static void sync_start_overlap(struct __test_metadata *_metadata,
			       FIXTURE_DATA(spmd) *self,
			       struct pto_kernel *aiv, struct pto_kernel *aic,
			       unsigned int blocks, unsigned int parts,
			       uint8_t core_type)
{
	struct spans sp;

	sync_start_run(_metadata, self, aiv, aic, blocks, parts, core_type, &sp);
	TH_LOG("%u blocks: dispatched within %.3f ms, started within %.3f ms; all running together for %.3f ms",
	       blocks, ms(sp.max_dispatch, sp.min_dispatch),
	       ms(sp.max_start, sp.min_start), ms(sp.min_end, sp.max_start));
	/*
	 * Resident at once: every block placed on its core before any ended.
	 * When they start is up to the VM's CPUs (each core is a thread; 48
	 * of them share a few vCPUs), so late starts are only logged.
	 */
	EXPECT_LT(sp.max_dispatch, sp.min_end);
	if (sp.max_start >= sp.min_end) {
		TH_LOG("the last block started %.3f ms after the first ended",
		       ms(sp.max_start, sp.min_end));
		log_spans(_metadata, &sp);
	}
}

TEST_F_TIMEOUT(spmd, sync_start_aiv_all_resident, 120)
{
	struct pto_kernel *k = build_idx_kernel(self->dev, PTO_CORE_AIV,
						SPIN_LOOPS, self->err,
						sizeof(self->err));

	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	sync_start_overlap(_metadata, self, k, NULL,
			   pto_available_aiv_count(self->dev), 1, PTO_CORE_AIV);
	pto_kernel_free(k);
}

TEST_F_TIMEOUT(spmd, sync_start_aic_all_resident, 120)
{
	struct pto_kernel *k = build_idx_kernel(self->dev, PTO_CORE_AIC,
						SPIN_LOOPS, self->err,
						sizeof(self->err));

	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	sync_start_overlap(_metadata, self, NULL, k,
			   pto_available_aic_count(self->dev), 1, PTO_CORE_AIC);
	pto_kernel_free(k);
}

/* Mixed: one block per cluster, the AICs spinning, all at once. */
TEST_F_TIMEOUT(spmd, sync_start_mixed_all_resident, 120)
{
	struct pto_kernel *aic = build_idx_kernel(self->dev, PTO_CORE_AIC,
						  SPIN_LOOPS, self->err,
						  sizeof(self->err));
	struct pto_kernel *aiv;

	ASSERT_NE(NULL, aic) TH_LOG("%s", self->err);
	aiv = build_empty_aiv(self->dev, self->err, sizeof(self->err));
	ASSERT_NE(NULL, aiv) TH_LOG("%s", self->err);
	sync_start_overlap(_metadata, self, aiv, aic,
			   pto_available_cluster_count(self->dev), 2,
			   PTO_CORE_AIC);
	pto_kernel_free(aic);
	pto_kernel_free(aiv);
}

/*
 * One block more than the device holds at once, pushed without libpto's
 * graph checks: refused at submit with what the device holds as detail.
 */
static void sync_start_refused(struct __test_metadata *_metadata,
			       FIXTURE_DATA(spmd) *self, bool aiv, bool aic,
			       unsigned int holds)
{
	struct pto_kernel *kv = NULL, *kc = NULL;
	struct pto_tensor *out;
	struct pto_cqe cqe[4];
	uint64_t id = 0;
	int n;

	if (aic) {
		kc = build_idx_kernel(self->dev, PTO_CORE_AIC, 0, self->err,
				      sizeof(self->err));
		ASSERT_NE(NULL, kc) TH_LOG("%s", self->err);
	}
	if (aiv) {
		kv = aic ? build_empty_aiv(self->dev, self->err, sizeof(self->err)) :
			   build_idx_kernel(self->dev, PTO_CORE_AIV, 0,
					    self->err, sizeof(self->err));
		ASSERT_NE(NULL, kv) TH_LOG("%s", self->err);
	}
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, holds + 1,
				       NCOLS, &out));
	n = pto_test_submit_one(self->q,
				&(struct pto_task_desc){
					.kernel_aiv = kv,
					.kernel_aic = kc,
					.block_num = holds + 1,
					.flags = PTO_TASK_SYNC_START,
					.tensors = &out,
					.num_tensors = 1,
				},
				cqe, 4, RUN_TIMEOUT, &id);
	ASSERT_EQ(1, n);
	EXPECT_EQ(id, cqe[0].task_id);
	EXPECT_EQ(PTO_STATUS_INVALID, cqe[0].info.status);
	EXPECT_EQ(PTO_REASON_SYNC_START, cqe[0].info.reason);
	EXPECT_EQ(holds, cqe[0].info.detail);
	EXPECT_EQ(0, cqe[0].info.core_type);
	EXPECT_FALSE(!!(cqe[0].info.flags & PTO_BLOCK_RAN));
	/* Nothing ran. */
	EXPECT_EQ(0, ((int32_t *)pto_tensor_data(out))[COL_COUNT]);
	pto_tensor_free(out);
	pto_kernel_free(kv);
	pto_kernel_free(kc);
}

TEST_F(spmd, sync_start_aiv_over_cores_refused)
{
	sync_start_refused(_metadata, self, true, false, self->info.aiv_cores);
}

TEST_F(spmd, sync_start_aic_over_cores_refused)
{
	sync_start_refused(_metadata, self, false, true, self->info.aic_cores);
}

TEST_F(spmd, sync_start_mixed_over_clusters_refused)
{
	sync_start_refused(_metadata, self, true, true, self->info.clusters);
}

/* libpto refuses the same at build time, saying what the device holds. */
TEST_F(spmd, graph_refuses_sync_start_over_cores)
{
	struct pto_kernel *k = build_idx_kernel(self->dev, PTO_CORE_AIV, 0,
						self->err, sizeof(self->err));
	unsigned int cores = pto_available_aiv_count(self->dev);
	struct pto_task_desc d = {
		.name = "too_wide",
		.block_num = cores + 1,
		.flags = PTO_TASK_SYNC_START,
		.num_tensors = 1,
	};
	struct pto_tensor *out;
	struct pto_graph *g;
	char want[128];

	ASSERT_NE(NULL, k) TH_LOG("%s", self->err);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, cores + 1,
				       NCOLS, &out));
	ASSERT_EQ(0, pto_graph_new(self->dev, &g));
	d.kernel_aiv = k;
	d.tensors = &out;
	EXPECT_EQ(-EINVAL, pto_graph_add_task(g, &d));
	snprintf(want, sizeof(want), "sync_start with %u blocks: the device holds %u at once",
		 cores + 1, cores);
	EXPECT_NE(NULL, strstr(pto_graph_error(g), want))
	TH_LOG("message: %s", pto_graph_error(g));
	d.block_num = cores;
	EXPECT_EQ(0, pto_graph_add_task(g, &d));
	pto_graph_free(g);
	pto_tensor_free(out);
	pto_kernel_free(k);
}

/* ------------------------------------------------------------ a failing block */

/*
 * Block 0 spins a little, then writes outside its tensor (row 1 of a
 * 1 x NCOLS tensor: GM_FAULT, element NCOLS); blocks 1 and 2 spin far
 * longer than that (stopped by the fault: CANCELLED); block 3 ends at once
 * (OK, or CANCELLED if it starts after the fault).
 */
static struct pto_kernel *build_fault0_kernel(struct pto_device *dev,
					      char *err, size_t len)
{
	struct pto_kb *kb;
	int other, quick;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb)) {
		snprintf(err, len, "pto_kb_new");
		return NULL;
	}
	other = pto_kb_label_new(kb);
	quick = pto_kb_label_new(kb);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_jnz(kb, 0, other);
	pto_kb_loopi(kb, 8, SPIN_LOOPS);
	pto_kb_alui(kb, PTO_ALU_ADD, 7, 7, 1);
	pto_kb_endloop(kb);
	pto_kb_ldi(kb, 1, 1);
	pto_kb_ldi(kb, 2, 0);
	pto_kb_gst(kb, 0, 1, 2, 1);
	pto_kb_end(kb);
	pto_kb_label_bind(kb, other);
	pto_kb_cmpi(kb, PTO_CMP_EQ, 3, 0, 3);
	pto_kb_jnz(kb, 3, quick);
	pto_kb_loopi(kb, 8, 1000);
	pto_kb_loopi(kb, 9, 100000);
	pto_kb_alui(kb, PTO_ALU_ADD, 7, 7, 1);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	pto_kb_label_bind(kb, quick);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

/*
 * A 4-block task of which only block 0 faults: every block's CQE carries
 * that block's own status, and the task's (LAST) CQE is the failing
 * block's, its status the task's (Documentation/uapi.rst,
 * "Completions").
 */
TEST_F_TIMEOUT(spmd, failed_block_records_are_their_own, 120)
{
	struct pto_tensor *out;
	struct pto_kernel *k;
	struct pto_cqe cqe[12];
	unsigned int i, lasts = 0, seen[4] = { 0 };
	const struct pto_block_info *by_block[4] = { NULL };
	char err[512];
	int n;

	if (cores_of(self->dev, PTO_CORE_AIV) < 4)
		SKIP(return, "fewer than 4 AIV cores");
	k = build_fault0_kernel(self->dev, err, sizeof(err));
	ASSERT_NE(NULL, k) TH_LOG("kernel: %s", err);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, 1, NCOLS, &out));
	n = pto_test_submit_one(self->q,
				&(struct pto_task_desc){
					.kernel_aiv = k,
					.block_num = 4,
					.tensors = &out,
					.num_tensors = 1,
				},
				cqe, 12, RUN_TIMEOUT, NULL);
	ASSERT_EQ(4, n);
	for (i = 0; i < 4; i++) {
		const struct pto_block_info *b = &cqe[i].info;

		ASSERT_LT(b->block, 4u);
		seen[b->block]++;
		by_block[b->block] = b;
		lasts += !!(b->flags & PTO_BLOCK_LAST);
		TH_LOG("CQE %u: block %u %s%s%s", i, b->block,
		       pto_status_name(b->status),
		       b->flags & PTO_BLOCK_RAN ? "" : " (never ran)",
		       b->flags & PTO_BLOCK_LAST ? ", LAST" : "");
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(1u, seen[i]) TH_LOG("block %u", i);
	EXPECT_EQ(1u, lasts);
	/* The task's CQE: the failing block's record, the task's status. */
	EXPECT_EQ(0u, cqe[3].info.block);
	EXPECT_TRUE(!!(cqe[3].info.flags & PTO_BLOCK_LAST));
	EXPECT_EQ(PTO_STATUS_GM_FAULT, by_block[0]->status);
	EXPECT_EQ(0u, PTO_GM_FAULT_TENSOR(by_block[0]->detail));
	EXPECT_EQ((uint64_t)NCOLS, PTO_GM_FAULT_ELEMENT(by_block[0]->detail));
	EXPECT_TRUE(!!(by_block[0]->flags & PTO_BLOCK_RAN));
	/* Stopped by the fault, running or not yet started. */
	for (i = 1; i < 3; i++) {
		EXPECT_EQ(PTO_STATUS_CANCELLED, by_block[i]->status)
			TH_LOG("block %u", i);
		EXPECT_EQ(0u, by_block[i]->detail);
	}
	/* Its own end: OK, or CANCELLED if it started after the fault. */
	if (by_block[3]->flags & PTO_BLOCK_RAN) {
		EXPECT_TRUE(by_block[3]->status == PTO_STATUS_OK ||
			    by_block[3]->status == PTO_STATUS_CANCELLED)
			TH_LOG("block 3: %s", pto_status_name(by_block[3]->status));
	} else {
		EXPECT_EQ(PTO_STATUS_CANCELLED, by_block[3]->status);
	}
	pto_tensor_free(out);
	pto_kernel_free(k);
}

TEST_HARNESS_MAIN
