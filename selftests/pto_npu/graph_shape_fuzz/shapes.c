// SPDX-License-Identifier: GPL-2.0-only
/*
 * Graphs for GRAPH_CREATE made by shape, and random ones with the refusal
 * each must get: declared and described in gsf.h.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "gsf.h"

#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT
#define ROWS PTO_TG_ROWS
#define COLS PTO_TG_COLS

void gsf_reset(struct gsf_graph *g)
{
	g->esize = 0;
	g->n = 0;
	g->ne = 0;
	g->ntp = 0;
	g->bind_flags = 0;
}

static uint32_t gsf_node(struct gsf_graph *g, const struct pto_test_sqe *e)
{
	memcpy(g->ent + g->esize, e, pto_tg_sqe_bytes(e));
	g->esize += pto_tg_sqe_bytes(e);
	return g->n++;
}

static void gsf_param(struct gsf_graph *g, uint16_t flags)
{
	g->bind = (struct drm_pto_npu_graph_binding){
		.node = g->n, .kind = DRM_PTO_NPU_BIND_TENSOR };
	g->ntp = 1;
	g->bind_flags = flags;
}

uint32_t gsf_empty(struct gsf_graph *g, uint32_t blocks, bool param)
{
	struct drm_pto_npu_tensor_arg t = pto_tg_targ(g->hp, 0, 0);
	struct pto_test_sqe e;

	pto_test_sqe_init(&e, g->kempty, 0, blocks, &t, param, NULL, 0, NULL, 0);
	if (param && !g->ntp)
		gsf_param(g, 0);
	return gsf_node(g, &e);
}

uint32_t gsf_mix(struct gsf_graph *g, uint32_t blocks, uint8_t split,
		 bool param)
{
	struct drm_pto_npu_tensor_arg t[2] = { pto_tg_targ(g->hp, 0, IN),
					       pto_tg_targ(g->hp, ROWS * COLS * 4, OUT) };
	struct pto_test_sqe e;

	pto_test_sqe_init(&e, g->kaiv[split], g->kaic[split], blocks, t, 2,
			  NULL, 0, NULL, 0);
	e.hdr.split_mode = split;
	if (param && !g->ntp)
		gsf_param(g, IN);
	return gsf_node(g, &e);
}

void gsf_edge(struct gsf_graph *g, uint32_t p, uint32_t c)
{
	g->edges[g->ne++] = (struct drm_pto_npu_graph_edge){
		.producer = p, .consumer = c };
}

void gsf_shuffle(struct gsf_graph *g, uint32_t from, uint32_t n)
{
	struct drm_pto_npu_graph_edge t;
	uint32_t i, j;

	for (i = n; i > 1; i--) {
		j = (uint32_t)(pto_tg_rnd(&g->seed) % i);
		t = g->edges[from + i - 1];
		g->edges[from + i - 1] = g->edges[from + j];
		g->edges[from + j] = t;
	}
}

struct pto_kernel *gsf_build_empty(struct pto_device *dev, char *err,
				   size_t len)
{
	struct pto_kb *kb;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

int gsf_guard_map(size_t bytes, uint8_t **end)
{
	size_t page = pto_test_page_size(), size = (bytes + page - 1) / page * page;
	uint8_t *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	*end = p + size;
	return mprotect(*end, page, PROT_NONE) ? -errno : 0;
}

/* ------------------------------------------------------------ random graphs */

static uint32_t rnd(struct gsf_graph *g, uint32_t n)
{
	return n ? (uint32_t)(pto_tg_rnd(&g->seed) % n) : 0;
}

/* Nodes: mostly a few dozen, sometimes hundreds, sometimes thousands. */
static uint32_t gsf_rnd_nodes(struct gsf_graph *g, const struct gsf_caps *k)
{
	uint32_t r = rnd(g, 10);

	if (r < 7)
		return 1 + rnd(g, 64);
	if (r < 9)
		return 65 + rnd(g, 448);
	return 513 + rnd(g, k->maxn - 512);
}

/*
 * Node @c's incoming edges: @d distinct producers, a window of the nodes
 * before it from a random start. Inferred-flagged now and then.
 */
static void gsf_feed(struct gsf_graph *g, uint32_t c, uint32_t d)
{
	uint32_t start = rnd(g, c), j;

	for (j = 0; j < d; j++) {
		gsf_edge(g, (start + j) % c, c);
		if (!rnd(g, 4))
			g->edges[g->ne - 1].flags = DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED;
	}
}

/* A fan-in for node @c: mostly 0..2, sometimes up to the cap, or the cap. */
static uint32_t gsf_rnd_fan(struct gsf_graph *g, const struct gsf_caps *k,
			    uint32_t c)
{
	uint32_t most = c < k->cap ? c : k->cap, r = rnd(g, 8), d;

	if (r < 4)
		d = rnd(g, 3);
	else if (r < 7)
		d = rnd(g, most + 1);
	else
		d = most;
	return d < most ? d : most;
}

/*
 * Node @over's @over_fan edges, then every other node's while room lasts
 * (one edge kept for a fault), shuffled.
 */
static void gsf_rnd_edges(struct gsf_graph *g, const struct gsf_caps *k,
			  uint32_t over, uint32_t over_fan)
{
	uint32_t c, d;

	if (over < g->n)
		gsf_feed(g, over, over_fan);
	for (c = 1; c < g->n; c++) {
		d = gsf_rnd_fan(g, k, c);
		if (c == over || g->ne + d + 1 > k->maxe)
			continue;
		gsf_feed(g, c, d);
	}
	gsf_shuffle(g, 0, g->ne);
}

/* Inserts @e at a random index after @after (or anywhere): its index. */
static uint32_t gsf_insert(struct gsf_graph *g, struct drm_pto_npu_graph_edge e,
			   int64_t after)
{
	uint32_t lo = (uint32_t)(after + 1), at = lo + rnd(g, g->ne - lo + 1);

	memmove(&g->edges[at + 1], &g->edges[at],
		(size_t)(g->ne - at) * sizeof(e));
	g->edges[at] = e;
	g->ne++;
	return at;
}

/* In-degree of node @c among the edges. */
static uint32_t gsf_indeg(const struct gsf_graph *g, uint32_t c)
{
	uint32_t i, d = 0;

	for (i = 0; i < g->ne; i++)
		d += g->edges[i].consumer == c;
	return d;
}

/* A copy of an edge whose consumer is under the cap, after it. */
static void gsf_dup(struct gsf_graph *g, const struct gsf_caps *k,
		    struct gsf_expect *x)
{
	uint32_t tries, i;

	for (tries = 0; tries < 64 && g->ne; tries++) {
		i = rnd(g, g->ne);
		if (gsf_indeg(g, g->edges[i].consumer) < k->cap)
			break;
	}
	if (!g->ne || tries == 64) {
		x->detail = GSF_TAKEN;
		return;
	}
	x->node = gsf_insert(g, g->edges[i], i);
	g->edges[x->node].flags ^= rnd(g, 2) * DRM_PTO_NPU_GRAPH_EDGE_F_INFERRED;
	x->detail = GSF_DUPLICATE;
}

/* The (cap + 1)-th edge into @c in array order. */
static uint32_t gsf_passing_edge(const struct gsf_graph *g,
				 const struct gsf_caps *k, uint32_t c)
{
	uint32_t i, d = 0;

	for (i = 0; i < g->ne; i++)
		if (g->edges[i].consumer == c && ++d > k->cap)
			return i;
	return ~0u;
}

/*
 * Nodes of half to all of max_block_num blocks, some mixed (2 or 3 parts
 * a block), at least @n, until their units and a launch's own pass the
 * cap: @x the node where they do.
 */
static void gsf_rnd_units(struct gsf_graph *g, const struct gsf_caps *k,
			  uint32_t n, struct gsf_expect *x)
{
	uint32_t bn = k->max_block_num, blocks, parts;
	uint64_t sum = 0;

	while (g->n < n || sum < k->ucap) {
		blocks = bn - rnd(g, bn / 2);
		parts = rnd(g, 4) ? 1 : 2 + rnd(g, 2);
		if (parts == 1)
			gsf_empty(g, blocks, false);
		else
			gsf_mix(g, blocks, parts == 3, false);
		sum += (uint64_t)blocks * parts;
		if (sum + 1 > k->ucap && x->detail == GSF_TAKEN) {
			x->detail = GSF_UNITS;
			x->node = g->n - 1;
		}
	}
}

/* A backward edge (to itself, or from a node after it or past the end). */
static void gsf_backward(struct gsf_graph *g, struct gsf_expect *x)
{
	uint32_t c = rnd(g, g->n);
	struct drm_pto_npu_graph_edge e = { .producer = c + rnd(g, 3),
					    .consumer = c };

	if (!rnd(g, 8))
		e.producer = ~0u - rnd(g, 2);
	x->node = gsf_insert(g, e, -1);
	x->detail = GSF_BACKWARD;
}

/* An edge into a node past the end, from one inside. */
static void gsf_outside(struct gsf_graph *g, struct gsf_expect *x)
{
	struct drm_pto_npu_graph_edge e = { .producer = rnd(g, g->n),
					    .consumer = g->n + rnd(g, 1000) };

	if (!rnd(g, 8))
		e.consumer = ~0u;
	x->node = gsf_insert(g, e, -1);
	x->detail = GSF_OUTSIDE;
}

void gsf_random(struct gsf_graph *g, const struct gsf_caps *k,
		struct gsf_expect *x)
{
	uint32_t kind = rnd(g, 6), n = gsf_rnd_nodes(g, k), over = ~0u;
	uint32_t fan = 0, i, most;

	gsf_reset(g);
	*x = (struct gsf_expect){ .detail = GSF_TAKEN, .node = ~0u };
	if (kind == 4) {
		if (n < k->cap + 2)
			n = k->cap + 2 + rnd(g, 64);
		over = k->cap + 1 + rnd(g, n - k->cap - 1);
		most = over < 300 ? over : 300;
		fan = k->cap + 1 + rnd(g, most - k->cap);
	}
	if (kind == 5) {
		gsf_rnd_units(g, k, n, x);
	} else {
		for (i = 0; i < n; i++)
			gsf_empty(g, 1 + rnd(g, 4), i == 0 && rnd(g, 2));
	}
	gsf_rnd_edges(g, k, over, fan);
	if (kind == 1)
		gsf_dup(g, k, x);
	else if (kind == 2)
		gsf_backward(g, x);
	else if (kind == 3)
		gsf_outside(g, x);
	else if (kind == 4)
		*x = (struct gsf_expect){ .detail = GSF_OVER_CAP,
					  .node = gsf_passing_edge(g, k, over) };
}
