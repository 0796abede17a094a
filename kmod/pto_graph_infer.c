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
 *
 * Inside the graph, every node is judged at GRAPH_CREATE as if the graph
 * had been submitted as entries at once, each node's predecessors all in
 * flight (pto_graph_infer()): by pto_infer.c's rules, with a parameter a
 * buffer of its own (its uses share one layout, so one view), a node
 * whose directed access conflicts with an earlier node's gets the edge
 * that inference would give an entry, flagged inferred (order only),
 * unless a recorded edge or a path already orders them; an undirected
 * access overlapping a directed one, one of them writing, with no path
 * between the nodes is a RACE; a predicate whose operand's last writer
 * is not an ancestor is a PREDICATE hazard. The first hazard and their
 * count are kept in the graph and reported by sanitizing launches.
 * Documentation/techniques/graph-replay.rst.
 *
 * Copyright (C) 2026 pto-npu authors
 */

#include <linux/hashtable.h>
#include <linux/interval_tree_generic.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "pto_graph.h"
#include "pto_infer.h"
#include "pto_kernel.h"
#include "pto_task.h"
#include "pto_tensor.h"

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

/* ------------------------------------------------------------ in-graph */

/**
 * struct pto_gia - one node's access of one argument, in its key's trees
 * @rb: in &pto_gkey.rd or .wr
 * @start: first byte (of its buffer, or of its parameter's view)
 * @last: last byte
 * @subtree_last: interval tree bookkeeping
 * @key: its buffer's or parameter's trees
 * @node: the node
 * @arg: its tensor argument
 * @acc: PTO_ACC_* (the direction, or the kernels' use when undirected)
 * @directed: the argument has a direction
 */
struct pto_gia {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
	struct pto_gkey *key;
	u32 node;
	u8 arg;
	u8 acc;
	bool directed;
};

/**
 * struct pto_gkey - the accesses of one buffer or parameter so far
 * @hn: in &pto_ginfer.keys
 * @key: the buffer, or the parameter's &pto_gparam
 * @rd: ranges read only
 * @wr: ranges written
 */
struct pto_gkey {
	struct hlist_node hn;
	unsigned long key;
	struct rb_root_cached rd;
	struct rb_root_cached wr;
};

#define PTO_GIA_START(a) ((a)->start)
#define PTO_GIA_LAST(a) ((a)->last)
INTERVAL_TREE_DEFINE(struct pto_gia, rb, u64, subtree_last,
		     PTO_GIA_START, PTO_GIA_LAST, static, pto_gitree)

#define PTO_GINFER_HASH_BITS 8

/**
 * struct pto_ginfer - one graph's inference in progress
 * @g: the graph
 * @acc: per tensor argument of the graph (&pto_graph.targs order)
 * @keys: the trees, by buffer or parameter
 * @in: the incoming edges, recorded then inferred, grouped by consumer
 * @nin: edges in @in
 * @cap: room in @in
 * @mark: per node, one more than the node it is a producer of, if linked
 * @anc: per node, the search (@stamp) that found it an ancestor
 * @stamp: ancestor searches so far
 * @visits: earlier accesses the current node's inference looked at
 */
struct pto_ginfer {
	struct pto_graph *g;
	struct pto_gia *acc;
	DECLARE_HASHTABLE(keys, PTO_GINFER_HASH_BITS);
	struct pto_gin *in;
	u32 nin;
	u32 cap;
	u32 *mark;
	u32 *anc;
	u32 stamp;
	u32 visits;
};

static struct pto_gkey *pto_ginfer_key(struct pto_ginfer *st, unsigned long key)
{
	struct pto_gkey *k;

	hash_for_each_possible(st->keys, k, hn, key)
		if (k->key == key)
			return k;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return NULL;
	k->key = key;
	k->rd = RB_ROOT_CACHED;
	k->wr = RB_ROOT_CACHED;
	hash_add(st->keys, &k->hn, key);
	return k;
}

/* The parameter node @j's argument @arg is bound to (it is bound). */
static u32 pto_ginfer_param(const struct pto_graph *g, u32 j, u32 arg)
{
	const struct pto_gnode *gn = &g->nodes[j];
	u32 i;

	for (i = gn->bind0; i < gn->bind0 + gn->nbind; i++)
		if (g->bind[i].kind == DRM_PTO_NPU_BIND_TENSOR &&
		    g->bind[i].arg == arg)
			return g->bind[i].param;
	return 0;
}

/* Node @j's access of argument @k: its range, key and kind. */
static int pto_ginfer_fill(struct pto_ginfer *st, u32 j, u32 k)
{
	const struct pto_graph *g = st->g;
	const struct pto_gnode *gn = &g->nodes[j];
	const struct pto_targ *ta = &g->targs[gn->targ0 + k];
	struct pto_gia *a = &st->acc[gn->targ0 + k];
	unsigned long key = (unsigned long)ta->bo;

	a->node = j;
	a->arg = k;
	a->directed = !!ta->dir;
	a->acc = ta->dir ? ta->dir : pto_gnode_acc(gn, k);
	/* Every argument has its key: a predicate operand may be unused. */
	pto_infer_span(ta, &a->start, &a->last);
	if (gn->tbound & BIT(k)) {
		/* A parameter: one view wherever it is bound. */
		key = (unsigned long)&g->tparam[pto_ginfer_param(g, j, k)];
		a->last -= a->start;
		a->start = 0;
	}
	a->key = pto_ginfer_key(st, key);
	return a->key ? 0 : -ENOMEM;
}

/* Append an incoming edge of the node being inferred. */
static int pto_ginfer_add_in(struct pto_ginfer *st, u32 producer, bool inferred)
{
	if (st->nin == st->cap) {
		u32 cap = max_t(u32, 64, st->cap * 2);
		struct pto_gin *in = kvmalloc_array(cap, sizeof(*in),
						    GFP_KERNEL_ACCOUNT);

		if (!in)
			return -ENOMEM;
		if (st->nin)
			memcpy(in, st->in, st->nin * sizeof(*in));
		kvfree(st->in);
		st->in = in;
		st->cap = cap;
	}
	st->in[st->nin++] = (struct pto_gin){ .producer = producer,
					      .inferred = inferred };
	return 0;
}

/*
 * Mark node @j's ancestors (anc), breadth first, its edges being
 * @st->in[@e0 ..]. False when the search stopped at PTO_INFER_PATH_MAX.
 */
static bool pto_ginfer_ancestors(struct pto_ginfer *st, u32 j, u32 e0)
{
	u32 q[PTO_INFER_PATH_MAX], head = 0, tail = 0, i;

	st->anc[j] = ++st->stamp;
	q[tail++] = j;
	while (head < tail) {
		u32 c = q[head++];
		u32 first = c == j ? e0 : st->g->nodes[c].edge0;
		u32 end = c == j ? st->nin : first + st->g->nodes[c].nedges;

		for (i = first; i < end; i++) {
			u32 p = st->in[i].producer;

			if (st->anc[p] == st->stamp)
				continue;
			if (tail == PTO_INFER_PATH_MAX)
				return false;
			st->anc[p] = st->stamp;
			q[tail++] = p;
		}
	}
	return true;
}

/* Node @j needs @o's node before it: an inferred edge unless ordered. */
static int pto_ginfer_edge(struct pto_ginfer *st, u32 j, u32 e0,
			   const struct pto_gia *o)
{
	if (++st->visits > PTO_INFER_MAX_VISITS)
		return -E2BIG;
	if (st->mark[o->node] == j + 1 || st->anc[o->node] == st->stamp)
		return 0;
	if (st->nin - e0 == PTO_MAX_DEPS)
		return -E2BIG;
	st->mark[o->node] = j + 1;
	return pto_ginfer_add_in(st, o->node, true);
}

/* Edges for node @j's directed access @a: as pto_infer_edges(). */
static int pto_ginfer_edges(struct pto_ginfer *st, u32 j, u32 e0,
			    const struct pto_gia *a)
{
	struct rb_root_cached *roots[2] = { &a->key->wr, &a->key->rd };
	struct pto_gia *o;
	u32 i;
	int ret;

	for (i = 0; i < ((a->acc & PTO_ACC_WRITE) ? 2 : 1); i++)
		for (o = pto_gitree_iter_first(roots[i], a->start, a->last); o;
		     o = pto_gitree_iter_next(o, a->start, a->last)) {
			ret = o->directed ? pto_ginfer_edge(st, j, e0, o) : 0;
			if (ret)
				return ret;
		}
	return 0;
}

static void pto_ginfer_report(struct pto_graph *g, u32 kind, u32 j, u32 arg,
			      u64 elem, const struct pto_gia *o)
{
	if (g->haz_count++)
		return;
	g->haz_node = j;
	g->haz = (struct drm_pto_npu_hazard){
		.kind = kind, .tensor = arg, .elem = elem, .node = j + 1,
		.other_tensor = o->arg, .other_node = o->node + 1,
	};
}

/*
 * RACE: as pto_infer_races(), between nodes. Past PTO_INFER_MAX_VISITS
 * accesses looked at for the node, the check stops: a missed report
 * possible, never a refusal (undirected writers of disjoint rows through
 * one whole view are the common, correct case).
 */
static void pto_ginfer_races(struct pto_ginfer *st, u32 j, const struct pto_gia *a)
{
	const struct pto_targ *ta = &st->g->targs[st->g->nodes[j].targ0 + a->arg];
	struct rb_root_cached *roots[2] = { &a->key->wr, &a->key->rd };
	struct pto_gia *o;
	u32 i;

	for (i = 0; i < ((a->acc & PTO_ACC_WRITE) ? 2 : 1); i++)
		for (o = pto_gitree_iter_first(roots[i], a->start, a->last); o;
		     o = pto_gitree_iter_next(o, a->start, a->last)) {
			if (++st->visits > PTO_INFER_MAX_VISITS)
				return;
			if ((!o->directed && !a->directed) ||
			    st->anc[o->node] == st->stamp)
				continue;
			pto_ginfer_report(st->g, DRM_PTO_NPU_HAZARD_RACE, j, a->arg,
					  pto_targ_elem_index(ta, max(o->start, a->start) -
							      a->start), o);
		}
}

/* PREDICATE: as pto_infer_predicate(), the operand's last writer a node. */
static void pto_ginfer_predicate(struct pto_ginfer *st, u32 j)
{
	const struct pto_gnode *gn = &st->g->nodes[j];
	const struct drm_pto_npu_predicate *p = &gn->pred;
	const struct pto_targ *ta = &st->g->targs[gn->targ0 + p->tensor];
	const struct pto_gia *a = &st->acc[gn->targ0 + p->tensor];
	struct pto_gia *o, *last = NULL;
	struct pto_gkey *k;
	u64 s;

	if (!(gn->flags & DRM_PTO_NPU_TASK_F_PREDICATE))
		return;
	/* The operand's key: its argument's, even when not accessed. */
	k = a->key;
	if (!k)
		return;
	s = a->start + pto_targ_offset(ta, p->row, p->col) * ta->esize;
	for (o = pto_gitree_iter_first(&k->wr, s, s + ta->esize - 1); o;
	     o = pto_gitree_iter_next(o, s, s + ta->esize - 1))
		if (!last || o->node > last->node)
			last = o;
	if (last && st->anc[last->node] != st->stamp)
		pto_ginfer_report(st->g, DRM_PTO_NPU_HAZARD_PREDICATE, j,
				  p->tensor, p->row * ta->cols + p->col, last);
}

static struct rb_root_cached *pto_ginfer_root(struct pto_gia *a)
{
	return a->acc & PTO_ACC_WRITE ? &a->key->wr : &a->key->rd;
}

/* Enter @a; a directed write takes the directed ranges it covers out. */
static void pto_ginfer_insert(struct pto_gia *a)
{
	struct rb_root_cached *roots[2] = { &a->key->wr, &a->key->rd };
	struct pto_gia *o, *next;
	u32 i;

	for (i = 0; a->directed && (a->acc & PTO_ACC_WRITE) && i < 2; i++)
		for (o = pto_gitree_iter_first(roots[i], a->start, a->last); o;
		     o = next) {
			next = pto_gitree_iter_next(o, a->start, a->last);
			if (o->directed && o->start >= a->start &&
			    o->last <= a->last)
				pto_gitree_remove(o, pto_ginfer_root(o));
		}
	pto_gitree_insert(a, pto_ginfer_root(a));
}

/* Node @j, as an entry taken with every earlier node in flight. */
static int pto_ginfer_node(struct pto_ginfer *st, u32 j)
{
	struct pto_gnode *gn = &st->g->nodes[j];
	const struct pto_gin *rec = &st->g->in[gn->edge0];
	u32 e0 = st->nin, nrec = gn->nedges, k;
	bool all_known;
	int ret;

	st->visits = 0;
	for (k = 0; k < nrec; k++) {
		st->mark[rec[k].producer] = j + 1;
		ret = pto_ginfer_add_in(st, rec[k].producer, rec[k].inferred);
		if (ret)
			return ret;
	}
	for (k = 0; k < gn->num_tensors; k++) {
		ret = pto_ginfer_fill(st, j, k);
		if (ret)
			return ret;
	}
	all_known = pto_ginfer_ancestors(st, j, e0);
	for (k = 0; k < gn->num_tensors; k++) {
		const struct pto_gia *a = &st->acc[gn->targ0 + k];

		ret = a->acc && a->directed ? pto_ginfer_edges(st, j, e0, a) : 0;
		if (ret)
			return ret;
	}
	if (st->nin - e0 > nrec)
		all_known = pto_ginfer_ancestors(st, j, e0);
	for (k = 0; all_known && k < gn->num_tensors; k++)
		if (st->acc[gn->targ0 + k].acc)
			pto_ginfer_races(st, j, &st->acc[gn->targ0 + k]);
	if (all_known)
		pto_ginfer_predicate(st, j);
	for (k = 0; k < gn->num_tensors; k++)
		if (st->acc[gn->targ0 + k].acc)
			pto_ginfer_insert(&st->acc[gn->targ0 + k]);
	gn->edge0 = e0;
	gn->nedges = st->nin - e0;
	return 0;
}

static void pto_ginfer_free(struct pto_ginfer *st)
{
	struct hlist_node *tmp;
	struct pto_gkey *k;
	u32 bkt;

	hash_for_each_safe(st->keys, bkt, tmp, k, hn) {
		hash_del(&k->hn);
		kfree(k);
	}
	kvfree(st->acc);
	kvfree(st->mark);
	kvfree(st->anc);
	kvfree(st->in);
}

/**
 * pto_graph_infer - the edges and hazards inference finds inside a graph
 * @g: the graph, its nodes, edges and bindings built
 * @bad: out: the node refused, on -E2BIG
 *
 * Adds to each node's incoming edges the ones inference would give it as
 * an entry (pto_graph_infer.c's header); keeps the first RACE or
 * PREDICATE hazard between nodes in &pto_graph.haz.
 *
 * Return: 0; -E2BIG past a node's fanin or inference bound (@bad);
 * -ENOMEM.
 */
int pto_graph_infer(struct pto_graph *g, u32 *bad)
{
	struct pto_ginfer *st;
	u32 j;
	int ret = 0;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->g = g;
	hash_init(st->keys);
	st->acc = kvcalloc(max(g->ntargs, 1U), sizeof(*st->acc), GFP_KERNEL);
	st->mark = kvcalloc(g->nnodes, sizeof(*st->mark), GFP_KERNEL);
	st->anc = kvcalloc(g->nnodes, sizeof(*st->anc), GFP_KERNEL);
	if (!st->acc || !st->mark || !st->anc)
		ret = -ENOMEM;
	for (j = 0; !ret && j < g->nnodes; j++) {
		ret = pto_ginfer_node(st, j);
		if (ret == -E2BIG)
			*bad = j;
		/* Thousands of nodes: let others run. */
		cond_resched();
	}
	if (!ret)
		swap(g->in, st->in);
	pto_ginfer_free(st);
	kfree(st);
	return ret;
}

/**
 * pto_graph_preds - list a graph's predicated nodes
 * @g: the graph, its bindings built
 *
 * A sanitizing launch checks their operands at intake against the
 * writers outside the graph (pto_infer.c), as an entry's predicate.
 *
 * Return: 0, or -ENOMEM.
 */
int pto_graph_preds(struct pto_graph *g)
{
	u32 i, n = 0;

	for (i = 0; i < g->nnodes; i++)
		n += !!(g->nodes[i].flags & DRM_PTO_NPU_TASK_F_PREDICATE);
	if (!n)
		return 0;
	g->preds = kvmalloc_array(n, sizeof(*g->preds), GFP_KERNEL_ACCOUNT);
	if (!g->preds)
		return -ENOMEM;
	for (i = 0; i < g->nnodes; i++) {
		const struct pto_gnode *gn = &g->nodes[i];

		if (!(gn->flags & DRM_PTO_NPU_TASK_F_PREDICATE))
			continue;
		g->preds[g->npreds++] = (struct pto_gpred){
			.node = i,
			.param = gn->tbound & BIT(gn->pred.tensor) ?
				 pto_ginfer_param(g, i, gn->pred.tensor) :
				 PTO_GPRED_RECORDED,
		};
	}
	return 0;
}
