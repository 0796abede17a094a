/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The graph_shape_fuzz kselftest's helpers (../graph_shape_fuzz.c has the
 * tests and the harness), compiled from this directory into the same
 * binary:
 *
 *   shapes.c  a graph being made for GRAPH_CREATE (nodes of the empty and
 *             the mixed kernels, edges, one binding), random graphs of
 *             every shape with at most one fault, and the refusal each
 *             must get (the model of uapi.rst's GRAPH details)
 *   tasks.c   random task sets over the slices of one buffer for
 *             pto_graph_record(), many producers inferred, and what a
 *             run of them leaves in the buffer
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_GSF_H
#define PTO_GSF_H

#include <stdbool.h>
#include <stdint.h>

#define PTO_TEST_LIBPTO
#include "../lib/pto_test_graph.h"

/* GRAPH_CREATE's REASON_GRAPH details (uapi.rst). */
#define GSF_BACKWARD 0
#define GSF_OUTSIDE 1
#define GSF_OVER_CAP 2
#define GSF_DUPLICATE 3
#define GSF_UNITS 4
/* No refusal: the graph is taken. */
#define GSF_TAKEN 5

/**
 * struct gsf_graph - a graph being made
 * @kempty: the empty kernel (AIV, END)
 * @kaic: the mixed pair's AIC kernel, [0] split NONE, [1] UP_DOWN
 * @kaiv: the mixed pair's AIV kernel, likewise
 * @hp: the buffer of the nodes' tensors
 * @ent: the node entries, back to back
 * @esize: their bytes
 * @n: nodes
 * @ne: edges
 * @ntp: tensor parameters (0 or 1: @bind)
 * @edges: room for max_graph_edges + 1
 * @bind: tensor parameter 0's binding when @ntp
 * @bind_flags: its direction (what a launch passes)
 * @seed: the random stream
 */
struct gsf_graph {
	uint32_t kempty, kaic[2], kaiv[2], hp;
	uint8_t *ent;
	size_t esize;
	uint32_t n, ne, ntp;
	struct drm_pto_npu_graph_edge *edges;
	struct drm_pto_npu_graph_binding bind;
	uint16_t bind_flags;
	uint64_t seed;
};

/* The caps the graphs are made against. */
struct gsf_caps {
	uint32_t maxn, maxe, cap, ucap, max_block_num;
};

/* What GRAPH_CREATE must answer: GSF_TAKEN, or a detail at @node. */
struct gsf_expect {
	uint32_t detail;
	uint32_t node;
};

/* The largest node entry made here: a mixed node, two tensors. */
#define GSF_NODE_MAX (3 * DRM_PTO_NPU_SQ_SLOT_SIZE)

void gsf_reset(struct gsf_graph *g);
/* A node of the empty kernel; the first with @param carries parameter 0. */
uint32_t gsf_empty(struct gsf_graph *g, uint32_t blocks, bool param);
/* A mixed node, @split 0 or 1; the first with @param binds its t0 (IN). */
uint32_t gsf_mix(struct gsf_graph *g, uint32_t blocks, uint8_t split,
		 bool param);
void gsf_edge(struct gsf_graph *g, uint32_t p, uint32_t c);
/* Shuffles edges @from .. @from + @n - 1. */
void gsf_shuffle(struct gsf_graph *g, uint32_t from, uint32_t n);
/* The empty kernel (AIV, END), or NULL with the reason in @err. */
struct pto_kernel *gsf_build_empty(struct pto_device *dev, char *err,
				   size_t len);
/*
 * @bytes (rounded up to pages) of memory ending at a PROT_NONE page:
 * *@end is that page. 0 or -errno.
 */
int gsf_guard_map(size_t bytes, uint8_t **end);

/*
 * A random graph into @g: 1 to maxn nodes, edges of random fan-in up to
 * the cap, shuffled, and at most one fault (a repeated, backward or
 * outside edge, a node past the cap, units past the unit cap); @x gets
 * what GRAPH_CREATE must answer.
 */
void gsf_random(struct gsf_graph *g, const struct gsf_caps *k,
		struct gsf_expect *x);

/* ------------------------------------------------------------ tasks.c */

/* Slices of the task sets' buffer: [4, 16] int32 each, back to back. */
#define GSF_SLICES 64
#define GSF_SLICE_ELEMS (PTO_TG_ROWS * PTO_TG_COLS)
#define GSF_MAX_TASKS 160

/**
 * struct gsf_tasks - a random task set over the slices of one buffer
 * @g: the graph (pto_graph_add_task()), NULL until built
 * @slices: slice i's view
 * @spans: the view of slices i .. GSF_SLICES - 1, [4 x (GSF_SLICES - i), 16]
 * @ntasks: tasks
 * @in: per task: the slice it reads (the first of its view's)
 * @span: per task: whether its IN view is @spans[@in] (many producers)
 * @out: per task: the slice it writes
 * @add: per task: its scalar
 */
struct gsf_tasks {
	struct pto_graph *g;
	struct pto_tensor *slices[GSF_SLICES], *spans[GSF_SLICES];
	unsigned int ntasks;
	uint8_t in[GSF_MAX_TASKS], span[GSF_MAX_TASKS], out[GSF_MAX_TASKS];
	int64_t add[GSF_MAX_TASKS];
};

/* Views over @buf (GSF_SLICES slices); 0 or -errno. */
int gsf_tasks_views(struct gsf_tasks *t, struct pto_buffer *buf);
void gsf_tasks_free(struct gsf_tasks *t);
/*
 * A new graph of @n (at most GSF_MAX_TASKS) add-kernel tasks (@kadd:
 * t1 = t0 + s, rows 0..3): each reads a slice, or a span of slices from
 * it on (many producers inferred), and writes another slice. 0 or the
 * error of pto_graph_add_task().
 */
int gsf_tasks_build(struct gsf_tasks *t, struct pto_device *dev,
		    struct pto_kernel *kadd, unsigned int n, uint64_t *seed);
/* @data (GSF_SLICES slices) after the tasks ran on it in order. */
void gsf_tasks_expect(const struct gsf_tasks *t, int32_t *data);

#endif /* PTO_GSF_H */
