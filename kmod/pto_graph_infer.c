// SPDX-License-Identifier: GPL-2.0-only
/*
 * pto_npu: the memory model of a recorded graph, decided at GRAPH_CREATE.
 *
 * A launch is one task of its context: what orders it against the other
 * tasks (pto_infer.c) are its access records. Its bound tensors are its
 * own arguments; the buffers its nodes were recorded on (not bound) are
 * entered as one record per buffer and kind, the nodes' views of it
 * merged: the hull from the lowest first byte to the highest last byte,
 * the union of the accesses. Directed arguments make the records every
 * launch enters; undirected ones, as their kernels access them, the
 * records a sanitizing launch enters too. A task overlapping the hull is
 * ordered against the whole launch: inside the hull, between two nodes'
 * views, that orders more than the nodes need (never less), as the launch
 * orders against its bound tensors as a whole.
 * Documentation/techniques/graph-replay.rst.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/slab.h>
#include <linux/sort.h>

#include "pto_graph.h"
#include "pto_infer.h"
#include "pto_kernel.h"
#include "pto_task.h"

/**
 * pto_gnode_acc - how a node's kernels access one of its arguments
 * @gn: the node
 * @arg: its tensor argument
 *
 * Return: PTO_ACC_* from the verifier's &pto_kernel.arg_load, .arg_store.
 */
u8 pto_gnode_acc(const struct pto_gnode *gn, u32 arg)
{
	u8 acc = 0;
	u32 k;

	for (k = 0; k < PTO_NUM_CIDX; k++) {
		if (!gn->kern[k])
			continue;
		if (gn->kern[k]->arg_load & BIT(arg))
			acc |= PTO_ACC_READ;
		if (gn->kern[k]->arg_store & BIT(arg))
			acc |= PTO_ACC_WRITE;
	}
	return acc;
}

/* Directed first, then by buffer, then by node: the runs to merge. */
static int pto_gacc_cmp(const void *a, const void *b)
{
	const struct pto_gacc *x = a, *y = b;

	if (x->directed != y->directed)
		return x->directed ? -1 : 1;
	if (x->bo != y->bo)
		return (unsigned long)x->bo < (unsigned long)y->bo ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->arg < y->arg ? -1 : x->arg > y->arg;
}

/* Every unbound argument's access, into @v; the count. */
static u32 pto_graph_acc_list(const struct pto_graph *g, struct pto_gacc *v)
{
	u32 n = 0, i, k;

	for (i = 0; i < g->nnodes; i++) {
		const struct pto_gnode *gn = &g->nodes[i];

		for (k = 0; k < gn->num_tensors; k++) {
			const struct pto_targ *ta = &g->targs[gn->targ0 + k];
			u8 acc = ta->dir ? ta->dir : pto_gnode_acc(gn, k);

			if ((gn->tbound & BIT(k)) || !acc)
				continue;
			v[n] = (struct pto_gacc){
				.bo = ta->bo, .node = i, .arg = k, .acc = acc,
				.directed = !!ta->dir,
			};
			pto_infer_span(ta, &v[n].start, &v[n].last);
			n++;
		}
	}
	return n;
}

/**
 * pto_graph_accesses - the merged accesses of a graph's recorded buffers
 * @g: the graph, its nodes and bindings built
 *
 * Fills &pto_graph.acc: at most one directed and one undirected record per
 * recorded buffer, whatever the number of nodes.
 *
 * Return: 0, or -ENOMEM.
 */
int pto_graph_accesses(struct pto_graph *g)
{
	struct pto_gacc *v;
	u32 n, i, out = 0;

	if (!g->ntargs)
		return 0;
	v = kvmalloc_array(g->ntargs, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	n = pto_graph_acc_list(g, v);
	sort(v, n, sizeof(*v), pto_gacc_cmp, NULL);
	for (i = 0; i < n; i++) {
		struct pto_gacc *m = out ? &v[out - 1] : NULL;

		if (m && m->bo == v[i].bo && m->directed == v[i].directed) {
			m->start = min(m->start, v[i].start);
			m->last = max(m->last, v[i].last);
			m->acc |= v[i].acc;
			continue;
		}
		v[out++] = v[i];
		g->nacc_dir += v[i].directed;
	}
	if (out)
		g->acc = kvmalloc_array(out, sizeof(*g->acc), GFP_KERNEL_ACCOUNT);
	if (g->acc) {
		memcpy(g->acc, v, out * sizeof(*v));
		g->nacc = out;
	} else {
		g->nacc_dir = 0;
	}
	kvfree(v);
	return out && !g->acc ? -ENOMEM : 0;
}
