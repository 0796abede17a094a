// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_graph_replay() (libpto over graph replay, issue #30): a graph built
 * with pto_graph_add_task(), recorded once with pto_graph_record(), then
 * launched with new buffers and scalars bound each time, its results read
 * back into the graph as pto_graph_run() leaves them.
 *
 * The graph: "first" y = x + 1 (SPMD), "gated" y += s if gate[0, 0] > 0
 * (predicated, s a scalar parameter), "last" z = y + 10 reading its rows
 * shifted by a scalar parameter (shifted past the tensor: a GM fault).
 * Parameters: x, z and gate (tensors), s and the shift (scalars).
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PTO_TEST_LIBPTO
#include "pto_test.h"

#define BLOCKS 4
#define R 8
#define C 16
#define ROWS (BLOCKS * R)
#define N (ROWS * C)
#define RUN_TIMEOUT PTO_TEST_SEC(60)

/* out[block rows + shift] = in[block rows + shift] + s (scalars s, shift). */
static struct pto_kernel *build_add(struct pto_device *dev)
{
	char err[256];
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, R, C);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, R);
	pto_kb_arg(kb, 2, 1);
	pto_kb_alu(kb, PTO_ALU_ADD, 0, 0, 2);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_arg(kb, 3, 0);
	pto_kb_tload(kb, t, 0, 0, 1);
	pto_kb_tbins(kb, PTO_TBIN_ADD, t, t, 3);
	pto_kb_tstore(kb, t, 1, 0, 1);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, sizeof(err));
}

/* One launch's buffers. */
struct set {
	struct pto_tensor *x, *z, *gate;
};

FIXTURE(rp)
{
	struct pto_device *dev;
	struct pto_queue *plain, *prof;
	struct pto_kernel *k;
	struct pto_tensor *y;
	struct set s[2];
	struct pto_graph *g;
	struct pto_graph_exec *x;
};

static int new_set(struct pto_device *dev, struct set *s, int seed)
{
	int32_t *p;
	int i;

	if (pto_test_tensor2d(dev, PTO_DTYPE_I32, ROWS, C, &s->x) ||
	    pto_test_tensor2d(dev, PTO_DTYPE_I32, ROWS, C, &s->z) ||
	    pto_test_tensor2d(dev, PTO_DTYPE_I32, 1, 1, &s->gate))
		return -ENOMEM;
	p = pto_tensor_data(s->x);
	for (i = 0; i < N; i++)
		p[i] = seed * 1000 + 7 * i;
	return 0;
}

/* The graph over set 0, with s = 3 and no shift as recorded. */
static int build_graph(FIXTURE_DATA(rp) *self)
{
	static const int64_t first_sc[2] = { 1, 0 }, gated_sc[2] = { 3, 0 },
			     last_sc[2] = { 10, 0 };
	static const struct pto_predicate pos = {
		.tensor = 2, .op = PTO_CMP_GT, .row = 0, .col = 0, .literal = 0,
	};
	struct pto_tensor *a0[2] = { self->s[0].x, self->y };
	struct pto_tensor *a1[3] = { self->y, self->y, self->s[0].gate };
	struct pto_tensor *a2[2] = { self->y, self->s[0].z };
	const int64_t d0 = 0, d1 = 1;
	struct pto_task_desc d = { .kernel_aiv = self->k, .block_num = BLOCKS,
				   .num_scalars = 2 };

	if (pto_graph_new(self->dev, &self->g) ||
	    pto_graph_set_name(self->g, "graph_replay_run"))
		return -ENOMEM;
	d.name = "first";
	d.tensors = a0;
	d.num_tensors = 2;
	d.scalars = first_sc;
	if (pto_graph_add_task(self->g, &d) != 0)
		return -EINVAL;
	d.name = "gated";
	d.tensors = a1;
	d.num_tensors = 3;
	d.scalars = gated_sc;
	d.deps = &d0;
	d.num_deps = 1;
	d.predicate = &pos;
	if (pto_graph_add_task(self->g, &d) != 1)
		return -EINVAL;
	d.name = "last";
	d.tensors = a2;
	d.num_tensors = 2;
	d.scalars = last_sc;
	d.deps = &d1;
	d.predicate = NULL;
	return pto_graph_add_task(self->g, &d) == 2 ? 0 : -EINVAL;
}

FIXTURE_SETUP(rp)
{
	const struct pto_graph_scalar_param sp[2] = { { 1, 0 }, { 2, 1 } };
	struct pto_queue_params p = { .flags = PTO_QUEUE_PROFILE };
	const struct pto_tensor *params[3];

	ASSERT_EQ(0, pto_test_dev_open(&self->dev));
	ASSERT_EQ(0, pto_queue_create(self->dev, 0, 0, &self->plain));
	ASSERT_EQ(0, pto_queue_create_params(self->dev, &p, &self->prof));
	self->k = build_add(self->dev);
	ASSERT_NE(NULL, self->k);
	ASSERT_EQ(0, pto_test_tensor2d(self->dev, PTO_DTYPE_I32, ROWS, C,
				       &self->y));
	ASSERT_EQ(0, new_set(self->dev, &self->s[0], 1));
	ASSERT_EQ(0, new_set(self->dev, &self->s[1], 2));
	ASSERT_EQ(0, build_graph(self)) TH_LOG("%s", pto_graph_error(self->g));
	params[0] = self->s[0].x;
	params[1] = self->s[0].z;
	params[2] = self->s[0].gate;
	ASSERT_EQ(0, pto_graph_record(self->g, params, 3, sp, 2, &self->x))
		TH_LOG("%s", pto_graph_error(self->g));
	ASSERT_EQ(3U, pto_graph_exec_nodes(self->x));
}

FIXTURE_TEARDOWN(rp)
{
	int i;

	pto_graph_exec_free(self->x);
	pto_graph_free(self->g);
	for (i = 0; i < 2; i++) {
		pto_tensor_free(self->s[i].x);
		pto_tensor_free(self->s[i].z);
		pto_tensor_free(self->s[i].gate);
	}
	pto_tensor_free(self->y);
	pto_kernel_free(self->k);
	pto_queue_destroy(self->prof);
	pto_queue_destroy(self->plain);
	pto_device_close(self->dev);
}

static int replay(FIXTURE_DATA(rp) *self, struct pto_queue *q,
		  const struct set *s, int64_t add, int64_t shift)
{
	const struct pto_tensor *t[3] = { s->x, s->z, s->gate };
	const int64_t sc[2] = { add, shift };

	memset(pto_tensor_data(s->z), 0, N * sizeof(int32_t));
	return pto_graph_replay(self->g, self->x, q, t, sc, RUN_TIMEOUT);
}

/* z == x + 1 + (gate ? add : 0) + 10, element by element: mismatches. */
static int mismatches(const struct set *s, int64_t add)
{
	const int32_t *x = pto_tensor_data(s->x), *z = pto_tensor_data(s->z);
	int32_t want = 11 + (*(int32_t *)pto_tensor_data(s->gate) > 0 ?
				     (int32_t)add : 0);
	int i, bad = 0;

	for (i = 0; i < N; i++)
		bad += z[i] != x[i] + want;
	return bad;
}

static int status_of(const struct pto_graph *g, unsigned int i)
{
	return pto_graph_task_status(g, i, NULL, NULL);
}

/*
 * On a profiling queue every node reports: each launch gives the tasks
 * the statuses and block records pto_graph_run() gives, with the launch's
 * buffers, scalars and gate (the predicate reads the bound tensor).
 */
TEST_F(rp, replay_reports_every_node_on_a_profiling_queue)
{
	const struct pto_block_info *b;
	unsigned int n, i;
	int it;

	for (it = 0; it < 6; it++) {
		const struct set *s = &self->s[it & 1];
		int gate = (it >> 1) & 1;

		*(int32_t *)pto_tensor_data(s->gate) = gate;
		ASSERT_EQ(0, replay(self, self->prof, s, it + 2, 0))
			TH_LOG("launch %d: %s", it, pto_graph_error(self->g));
		EXPECT_EQ(0, mismatches(s, it + 2)) TH_LOG("launch %d", it);
		EXPECT_EQ(PTO_STATUS_OK, status_of(self->g, 0));
		EXPECT_EQ(gate ? PTO_STATUS_OK : PTO_STATUS_SKIPPED,
			  status_of(self->g, 1));
		EXPECT_EQ(PTO_STATUS_OK, status_of(self->g, 2));
		for (i = 0; i < 3; i++) {
			EXPECT_EQ(pto_graph_task_id(self->g, 0),
				  pto_graph_task_id(self->g, i));
			ASSERT_EQ(0, pto_graph_task_blocks(self->g, i, &b, &n));
			if (i == 1 && !gate)
				continue;
			ASSERT_EQ((unsigned int)BLOCKS, n) TH_LOG("task %u", i);
			EXPECT_TRUE(!!(b[0].flags & PTO_BLOCK_RAN));
		}
	}
	/* The graph itself still runs as entries, with its recorded values. */
	*(int32_t *)pto_tensor_data(self->s[0].gate) = 1;
	ASSERT_EQ(0, pto_graph_run(self->g, self->prof, RUN_TIMEOUT));
	EXPECT_EQ(0, mismatches(&self->s[0], 3));
	EXPECT_NE(pto_graph_task_id(self->g, 0), pto_graph_task_id(self->g, 1));
}

/* Elsewhere only the launch reports: every task OK, no block records. */
TEST_F(rp, replay_on_a_plain_queue_reports_the_launch)
{
	const struct pto_block_info *b;
	unsigned int n = 1, i;
	int gate;

	for (gate = 0; gate < 2; gate++) {
		*(int32_t *)pto_tensor_data(self->s[1].gate) = gate;
		ASSERT_EQ(0, replay(self, self->plain, &self->s[1], 5, 0))
			TH_LOG("%s", pto_graph_error(self->g));
		EXPECT_EQ(0, mismatches(&self->s[1], 5));
		for (i = 0; i < 3; i++) {
			EXPECT_EQ(PTO_STATUS_OK, status_of(self->g, i));
			ASSERT_EQ(0, pto_graph_task_blocks(self->g, i, &b, &n));
			EXPECT_EQ(0U, n);
		}
	}
}

/* A bound shift past the tensor: "last" faults, the launch fails. */
TEST_F(rp, replay_names_the_failing_node)
{
	char msg[256];

	*(int32_t *)pto_tensor_data(self->s[0].gate) = 1;
	EXPECT_EQ(-EIO, replay(self, self->plain, &self->s[0], 1, ROWS));
	EXPECT_EQ(PTO_STATUS_GM_FAULT, status_of(self->g, 2));
	EXPECT_EQ(PTO_STATUS_PENDING, status_of(self->g, 0));
	EXPECT_EQ(2, pto_graph_first_error(self->g, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(pto_graph_error(self->g), "last"))
		TH_LOG("%s", pto_graph_error(self->g));

	EXPECT_EQ(-EIO, replay(self, self->prof, &self->s[0], 1, ROWS));
	EXPECT_EQ(PTO_STATUS_GM_FAULT, status_of(self->g, 2));
	EXPECT_EQ(PTO_STATUS_OK, status_of(self->g, 0));
	EXPECT_EQ(PTO_STATUS_OK, status_of(self->g, 1));
	/* The next launch is unharmed. */
	ASSERT_EQ(0, replay(self, self->plain, &self->s[0], 1, 0));
	EXPECT_EQ(0, mismatches(&self->s[0], 1));
}

/* Refused before anything is published, or with the reason named. */
TEST_F(rp, replay_refusals)
{
	const struct pto_tensor *t[3] = { self->s[0].x, self->s[0].z,
					  self->s[0].gate };
	const struct pto_tensor *bad[3] = { self->s[0].gate, self->s[0].z,
					    self->s[0].gate };
	const int64_t sc[2] = { 0, 0 };
	struct pto_graph *other;
	uint64_t id = 0;

	EXPECT_EQ(-EINVAL, pto_graph_replay(NULL, self->x, self->plain, t, sc,
					    RUN_TIMEOUT));
	EXPECT_EQ(-EINVAL, pto_graph_replay(self->g, NULL, self->plain, t, sc,
					    RUN_TIMEOUT));
	ASSERT_EQ(0, pto_graph_new(self->dev, &other));
	EXPECT_EQ(-EINVAL, pto_graph_replay(other, self->x, self->plain, t, sc,
					    RUN_TIMEOUT));
	EXPECT_NE(NULL, strstr(pto_graph_error(other), "not recorded from it"));
	pto_graph_free(other);
	/* A tensor of another shape: nothing left in the SQ. */
	EXPECT_EQ(-EINVAL, pto_graph_replay(self->g, self->x, self->plain, bad,
					    sc, RUN_TIMEOUT));
	EXPECT_NE(NULL, strstr(pto_graph_error(self->g), "bound tensor"));
	/* A queue holding an entry not yet taken. */
	ASSERT_EQ(0, pto_graph_launch_push(self->x, self->plain, t, sc, 7));
	EXPECT_EQ(-EBUSY, pto_graph_replay(self->g, self->x, self->plain, t,
					   sc, RUN_TIMEOUT));
	ASSERT_EQ(0, pto_queue_doorbell(self->plain, 0, 0, NULL, &id));
	EXPECT_EQ(0, pto_graph_exec_wait(self->plain, id, RUN_TIMEOUT, NULL));
	ASSERT_EQ(0, replay(self, self->plain, &self->s[0], 2, 0));
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* PTO_TRACE_DIR: the swimlane and deps.json name the launch. */
TEST_F(rp, replay_traces_name_the_launch)
{
	char dir[] = "/tmp/pto-replay-XXXXXX", path[128], want[96];
	char *sw, *deps;
	uint64_t id;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, setenv("PTO_TRACE_DIR", dir, 1));
	*(int32_t *)pto_tensor_data(self->s[1].gate) = 1;
	ASSERT_EQ(0, replay(self, self->prof, &self->s[1], 4, 0));
	unsetenv("PTO_TRACE_DIR");
	id = pto_graph_task_id(self->g, 0);
	snprintf(path, sizeof(path), "%s/graph_replay_run.trace.json", dir);
	sw = slurp(path);
	ASSERT_NE(NULL, sw) TH_LOG("no %s", path);
	snprintf(want, sizeof(want), "\"launch\":%llu,\"nodes\":3}",
		 (unsigned long long)id);
	EXPECT_NE(NULL, strstr(sw, "\"replay\":{\"graph\":"));
	EXPECT_NE(NULL, strstr(sw, want)) TH_LOG("no %s", want);
	EXPECT_NE(NULL, strstr(sw, "\"name\":\"graph launch\""));
	snprintf(path, sizeof(path), "%s/graph_replay_run.deps.json", dir);
	deps = slurp(path);
	ASSERT_NE(NULL, deps) TH_LOG("no %s", path);
	snprintf(want, sizeof(want), "\"launch\": %llu, \"nodes\": 3}",
		 (unsigned long long)id);
	EXPECT_NE(NULL, strstr(deps, want)) TH_LOG("no %s", want);
	free(sw);
	free(deps);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	EXPECT_EQ(0, system(path));
}

TEST_HARNESS_MAIN
