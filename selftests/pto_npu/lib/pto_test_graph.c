// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers of the graph replay kselftests: declared and described in
 * pto_test_graph.h.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#include "pto_test_graph.h"

#define IN DRM_PTO_NPU_TENSOR_F_IN
#define OUT DRM_PTO_NPU_TENSOR_F_OUT
#define ROWS PTO_TG_ROWS
#define COLS PTO_TG_COLS
#define TBYTES PTO_TG_TBYTES

/* ------------------------------------------------------------ recording */

uint32_t pto_gb_node(struct pto_gb *g, const struct pto_test_sqe *e)
{
	size_t bytes = pto_tg_sqe_bytes(e);

	memcpy(g->ent + g->size, e, bytes);
	g->size += bytes;
	return g->nodes++;
}

void pto_gb_edge(struct pto_gb *g, uint32_t p, uint32_t c, uint32_t flags)
{
	g->edges[g->nedges++] = (struct drm_pto_npu_graph_edge){
		.producer = p, .consumer = c, .flags = flags };
}

void pto_gb_bind_raw(struct pto_gb *g, uint32_t node, uint8_t kind,
		     uint8_t arg, uint16_t param)
{
	g->binds[g->nbinds++] = (struct drm_pto_npu_graph_binding){
		.node = node, .kind = kind, .arg = arg, .param = param };
}

void pto_gb_bind(struct pto_gb *g, uint32_t node, uint8_t kind, uint8_t arg,
		 uint16_t param)
{
	uint32_t *n = kind == DRM_PTO_NPU_BIND_SCALAR ? &g->nsp : &g->ntp;

	pto_gb_bind_raw(g, node, kind, arg, param);
	if (*n < param + 1u)
		*n = param + 1u;
}

struct drm_pto_npu_sqe *pto_gb_hdr(struct pto_gb *g, uint32_t k)
{
	uint8_t *p = g->ent;

	while (k--)
		p += ((struct drm_pto_npu_sqe *)p)->num_slots *
		     DRM_PTO_NPU_SQ_SLOT_SIZE;
	return (struct drm_pto_npu_sqe *)p;
}

struct drm_pto_npu_tensor_arg *pto_gb_targ(struct pto_gb *g, uint32_t k,
					   uint32_t i)
{
	return (struct drm_pto_npu_tensor_arg *)(pto_gb_hdr(g, k) + 1) + i;
}

void pto_gb_args(const struct pto_gb *g, struct drm_pto_npu_graph_create *c)
{
	*c = (struct drm_pto_npu_graph_create){
		.entries = (uintptr_t)g->ent, .edges = (uintptr_t)g->edges,
		.bindings = (uintptr_t)g->binds, .entries_size = g->size,
		.num_nodes = g->nodes, .num_edges = g->nedges,
		.num_bindings = g->nbinds, .num_tensor_params = g->ntp,
		.num_scalar_params = g->nsp,
	};
}

int pto_gb_create(int fd, const struct pto_gb *g,
		  struct drm_pto_npu_graph_create *c)
{
	pto_gb_args(g, c);
	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, c);
}

void pto_gb_repeat(struct pto_gb *g, uint32_t k, uint32_t n,
		   struct drm_pto_npu_graph_create *c, uint8_t **buf)
{
	size_t bytes = (size_t)pto_gb_hdr(g, k)->num_slots *
		       DRM_PTO_NPU_SQ_SLOT_SIZE;
	uint32_t i;

	*buf = malloc(bytes * n);
	for (i = 0; *buf && i < n; i++)
		memcpy(*buf + i * bytes, pto_gb_hdr(g, k), bytes);
	*c = (struct drm_pto_npu_graph_create){
		.entries = (uintptr_t)*buf, .entries_size = (uint32_t)(bytes * n),
		.num_nodes = n,
	};
}

int pto_gb_create_repeat(int fd, struct pto_gb *g, uint32_t k, uint32_t n,
			 struct drm_pto_npu_graph_create *c, uint32_t *h)
{
	uint8_t *buf;
	int ret;

	pto_gb_repeat(g, k, n, c, &buf);
	if (!buf)
		return -ENOMEM;
	ret = pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_GRAPH_CREATE, c);
	*h = c->handle;
	free(buf);
	return ret;
}

int pto_tg_destroy(int fd, uint32_t handle)
{
	struct drm_pto_npu_graph_destroy d = { .handle = handle };

	return pto_test_ioctl(fd, DRM_IOCTL_PTO_NPU_GRAPH_DESTROY, &d);
}

/* ------------------------------------------------------------ entries */

struct drm_pto_npu_tensor_arg pto_tg_targ(uint32_t h, uint64_t off,
					  uint16_t dir)
{
	struct drm_pto_npu_tensor_arg a = pto_test_targ(h, PTO_ISA_I32, off,
							ROWS, COLS);

	a.flags = dir;
	return a;
}

void pto_tg_add_entry(struct pto_test_sqe *e, uint32_t k, uint32_t blocks,
		      const struct drm_pto_npu_tensor_arg *t, uint32_t nt,
		      int64_t add, int64_t spin, const int64_t *deps,
		      uint32_t nd, const struct drm_pto_npu_predicate *pred)
{
	int64_t s[2] = { add, spin };

	pto_test_sqe_init_pred(e, k, 0, blocks, t, nt, s, 2, deps, nd, pred);
}

void pto_tg_launch_init(struct pto_test_sqe *e, uint32_t graph,
			const struct drm_pto_npu_tensor_arg *t, uint32_t nt,
			const int64_t *s, uint32_t ns, const int64_t *deps,
			uint32_t nd, const struct drm_pto_npu_predicate *pred)
{
	pto_test_sqe_init_pred(e, 0, 0, 1, t, nt, s, ns, deps, nd, pred);
	e->hdr.flags |= DRM_PTO_NPU_TASK_F_GRAPH;
	e->hdr.reserved[0] = graph;
}

size_t pto_tg_sqe_bytes(const struct pto_test_sqe *e)
{
	return (size_t)e->hdr.num_slots * DRM_PTO_NPU_SQ_SLOT_SIZE;
}

/* ------------------------------------------------------------ running */

int pto_tg_is_final(const struct pto_cqe *c)
{
	return (c->info.flags & PTO_BLOCK_LAST) &&
	       !(c->info.flags & DRM_PTO_NPU_CQE_F_NODE);
}

const struct pto_cqe *pto_tg_find_final(const struct pto_cqe *c, int n,
					uint64_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (c[i].task_id == id && pto_tg_is_final(&c[i]))
			return &c[i];
	return NULL;
}

int pto_tg_submit(struct pto_queue *q, const struct pto_test_sqe *es,
		  unsigned int n, uint64_t *first, uint64_t *ids)
{
	uint32_t consumed = 0;
	uint64_t id0 = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = pto_queue_push_raw(q, &es[i], pto_tg_sqe_bytes(&es[i]));
		if (ret)
			return ret;
	}
	ret = pto_queue_doorbell(q, 0, 0, &consumed, &id0);
	if (first)
		*first = id0;
	if (ret || consumed != n)
		return ret ? ret : -EIO;
	for (i = 0; ids && i < n; i++)
		ids[i] = id0 + i;
	return 0;
}

int pto_tg_reap(struct pto_queue *q, struct pto_cqe *cqes, unsigned int cap,
		unsigned int n, int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;
	unsigned int finals = 0, got = 0, i;
	int ret, r;

	while (finals < n) {
		if (got == cap)
			return -ENOSPC;
		r = pto_queue_reap(q, cqes + got, cap - got);
		if (r < 0)
			return r;
		for (i = got; i < got + (unsigned int)r; i++)
			finals += pto_tg_is_final(&cqes[i]);
		got += r;
		if (r || finals >= n)
			continue;
		ret = pto_queue_wait(q, deadline);
		if (ret == -ETIME && pto_test_now_ns() >= deadline)
			return -ETIME;
		if (ret && ret != -ETIME && ret != -EINTR)
			return ret;
	}
	return (int)got;
}

int pto_tg_run(struct pto_queue *q, const struct pto_test_sqe *es,
	       unsigned int n, struct pto_cqe *cqes, unsigned int cap,
	       uint64_t *ids, int64_t timeout_ns)
{
	int ret = pto_tg_submit(q, es, n, NULL, ids);

	return ret ? ret : pto_tg_reap(q, cqes, cap, n, timeout_ns);
}

/* ------------------------------------------------------------ buffers */

int32_t *pto_tg_bo_new(int fd, size_t size, uint32_t *h)
{
	void *p;

	if (pto_test_bo_create(fd, size, h, NULL))
		return NULL;
	p = pto_test_bo_mmap(fd, *h, NULL);
	return p == MAP_FAILED ? NULL : p;
}

void pto_tg_fill(int32_t *p, size_t n, int32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = v;
}

int pto_tg_count_eq(const int32_t *p, size_t n, int32_t v)
{
	size_t i;
	int k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == v;
	return k;
}

int pto_tg_mismatches(const int32_t *in, const int32_t *out, int32_t add)
{
	int k, bad = 0;

	for (k = 0; k < PTO_TG_TELEMS; k++)
		bad += out[k] != (add == PTO_TG_UNTOUCHED ? PTO_TG_SENTINEL :
				  in[k] + add);
	return bad;
}

/* ------------------------------------------------------------ kernels */

struct pto_kernel *pto_tg_build_add(struct pto_device *dev, char *err,
				    size_t len)
{
	struct pto_kb *kb;
	int t;

	if (pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return NULL;
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, 1, COLS);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_NUM);
	pto_kb_arg(kb, 2, 0);
	pto_kb_arg(kb, 7, 1);
	pto_kb_ldi(kb, 3, ROWS);
	pto_kb_alu(kb, PTO_ALU_DIV, 3, 3, 1);
	pto_kb_ldi(kb, 6, 0);
	pto_kb_ldi(kb, 9, 0);
	pto_kb_loop(kb, 8, 7);
	pto_kb_alui(kb, PTO_ALU_ADD, 9, 9, 1);
	pto_kb_endloop(kb);
	pto_kb_loop(kb, 4, 3);
	pto_kb_alu(kb, PTO_ALU_MUL, 5, 4, 1);
	pto_kb_alu(kb, PTO_ALU_ADD, 5, 5, 0);
	pto_kb_tload(kb, t, 0, 5, 6);
	pto_kb_tbins(kb, PTO_TBIN_ADD, t, t, 2);
	pto_kb_tstore(kb, t, 1, 5, 6);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return pto_test_kb_finish(kb, err, len);
}

int pto_tg_build_mix(struct pto_device *dev, struct pto_kernel **aic,
		     struct pto_kernel **aiv, char *err, size_t len)
{
	return pto_tg_build_mix_split(dev, 0, 1, aic, aiv, err, len);
}

int pto_tg_build_mix_split(struct pto_device *dev, int split, int add,
			   struct pto_kernel **aic, struct pto_kernel **aiv,
			   char *err, size_t len)
{
	struct pto_kb *kb;
	int t;

	*aiv = NULL;
	if (pto_kb_new(dev, PTO_CORE_AIC, &kb))
		return -ENOMEM;
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_L1, ROWS, COLS);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_tload(kb, t, 0, 0, 0);
	pto_kb_push(kb, t);
	pto_kb_end(kb);
	*aic = pto_test_kb_finish(kb, err, len);
	if (!*aic || pto_kb_new(dev, PTO_CORE_AIV, &kb))
		return -EINVAL;
	t = pto_kb_tile(kb, PTO_DTYPE_I32, PTO_BUF_UB, split ? ROWS / 2 : ROWS,
			COLS);
	pto_kb_ldi(kb, 0, 0);
	pto_kb_pop(kb, t);
	if (add)
		pto_kb_tbinsi(kb, PTO_TBIN_ADD, t, t, add);
	pto_kb_tstore(kb, t, 1, 0, 0);
	pto_kb_end(kb);
	*aiv = pto_test_kb_finish(kb, err, len);
	return *aiv ? 0 : -EINVAL;
}

/* ------------------------------------------------------------ graphs */

int pto_tg_pipe_graph(int fd, uint32_t kadd, unsigned int n, int64_t spin,
		      unsigned int spmd, struct drm_pto_npu_graph_create *c)
{
	struct pto_gb *g = calloc(1, sizeof(*g));
	struct drm_pto_npu_tensor_arg t[2];
	struct pto_test_sqe e;
	uint32_t hp, hs, i;
	int ret;

	if (!g || pto_test_bo_create(fd, 2 * TBYTES, &hp, NULL) ||
	    pto_test_bo_create(fd, (uint64_t)n * TBYTES, &hs, NULL))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t[0] = i ? pto_tg_targ(hs, (i - 1) * TBYTES, IN) :
			   pto_tg_targ(hp, 0, IN);
		t[1] = i == n - 1 ? pto_tg_targ(hp, TBYTES, OUT) :
				    pto_tg_targ(hs, i * TBYTES, OUT);
		pto_tg_add_entry(&e, kadd, i == spmd ? 2 : 1, t, 2, 1, spin,
				 NULL, 0, NULL);
		e.hdr.user_data = 0x100 + i;
		pto_gb_node(g, &e);
		if (i)
			pto_gb_edge(g, i - 1, i, 0);
	}
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_TENSOR, 0, 0);
	pto_gb_bind(g, n - 1, DRM_PTO_NPU_BIND_TENSOR, 1, 1);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_SCALAR, 0, 0);
	ret = pto_gb_create(fd, g, c);
	pto_test_gem_close(fd, hp);
	pto_test_gem_close(fd, hs);
	free(g);
	return ret;
}

void pto_tg_pipe_launch(struct pto_test_sqe *e, uint32_t graph, uint32_t hin,
			uint64_t in_off, uint32_t hout, uint64_t out_off,
			int64_t s, const int64_t *deps, uint32_t nd,
			const struct drm_pto_npu_predicate *pred)
{
	struct drm_pto_npu_tensor_arg t[2] = { pto_tg_targ(hin, in_off, IN),
					       pto_tg_targ(hout, out_off, OUT) };

	pto_tg_launch_init(e, graph, t, 2, &s, 1, deps, nd, pred);
}

void pto_tg_pair_record(struct pto_gb *g, uint32_t kadd, uint32_t hp,
			int64_t spin)
{
	struct drm_pto_npu_tensor_arg t[2] = { pto_tg_targ(hp, 0, IN),
					       pto_tg_targ(hp, TBYTES, OUT) };
	struct pto_test_sqe e;

	memset(g, 0, sizeof(*g));
	pto_tg_add_entry(&e, kadd, 1, t, 2, 0, spin, NULL, 0, NULL);
	pto_gb_node(g, &e);
	t[0] = pto_tg_targ(hp, TBYTES, IN);
	pto_tg_add_entry(&e, kadd, 1, t, 2, 1, spin, NULL, 0, NULL);
	pto_gb_node(g, &e);
	pto_gb_edge(g, 0, 1, 0);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_TENSOR, 0, 0);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_TENSOR, 1, 1);
	pto_gb_bind(g, 1, DRM_PTO_NPU_BIND_TENSOR, 0, 1);
	pto_gb_bind(g, 1, DRM_PTO_NPU_BIND_TENSOR, 1, 1);
	pto_gb_bind(g, 0, DRM_PTO_NPU_BIND_SCALAR, 0, 0);
}

int pto_tg_pair_graph(int fd, uint32_t kadd, int64_t spin, uint32_t *handle)
{
	struct drm_pto_npu_graph_create c;
	struct pto_gb *g = malloc(sizeof(*g));
	uint32_t hp;
	int ret;

	if (!g || pto_test_bo_create(fd, 2 * TBYTES, &hp, NULL))
		return -ENOMEM;
	pto_tg_pair_record(g, kadd, hp, spin);
	ret = pto_gb_create(fd, g, &c);
	*handle = c.handle;
	pto_test_gem_close(fd, hp);
	free(g);
	return ret;
}

void pto_tg_pair_launch(struct pto_test_sqe *e, uint32_t graph, uint32_t hin,
			uint64_t in_off, uint32_t hout, uint64_t out_off,
			int64_t s, const struct drm_pto_npu_predicate *pred)
{
	struct drm_pto_npu_tensor_arg t[2] = {
		pto_tg_targ(hin, in_off, IN), pto_tg_targ(hout, out_off, IN | OUT) };

	pto_tg_launch_init(e, graph, t, 2, &s, 1, NULL, 0, pred);
}

/* ------------------------------------------------------------ random fields */

uint64_t pto_tg_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

uint32_t pto_tg_rnd_val(uint64_t *s)
{
	return (uint32_t)(pto_tg_rnd(s) >> (pto_tg_rnd(s) % 64));
}

void pto_tg_fuzz_record(struct pto_gb *g, struct drm_pto_npu_graph_create *c,
			uint64_t r, uint64_t *seed)
{
	if (r % 4 == 1)
		g->ent[(r >> 8) % g->size] = (uint8_t)pto_tg_rnd(seed);
	if (r % 4 == 2)
		((uint8_t *)g->edges)[(r >> 8) % sizeof(g->edges[0])] =
			(uint8_t)pto_tg_rnd(seed);
	if (r % 4 == 3)
		((uint8_t *)g->binds)[(r >> 8) % (g->nbinds * sizeof(g->binds[0]))] =
			(uint8_t)pto_tg_rnd(seed);
	pto_gb_args(g, c);
	/* entries_size, num_nodes, _edges, _bindings, the params, flags */
	if (r % 4 == 0)
		((uint32_t *)((uint8_t *)c +
			      offsetof(struct drm_pto_npu_graph_create,
				       entries_size)))[(r >> 8) % 7] =
			pto_tg_rnd_val(seed);
}

/* A launch field: its offset in the entry and size (bytes). */
struct field {
	uint16_t off, size;
};

#define HDR_F(m) { offsetof(struct pto_test_sqe, hdr.m), sizeof(((struct drm_pto_npu_sqe *)0)->m) }
#define ARG_F(i, m) { sizeof(struct drm_pto_npu_sqe) + (i) * sizeof(struct drm_pto_npu_tensor_arg) + \
		      offsetof(struct drm_pto_npu_tensor_arg, m), \
		      sizeof(((struct drm_pto_npu_tensor_arg *)0)->m) }

static const struct field launch_fields[] = {
	HDR_F(kernel_aiv), HDR_F(kernel_aic), HDR_F(flags), HDR_F(block_num),
	HDR_F(num_tensors), HDR_F(num_scalars), HDR_F(num_deps),
	HDR_F(split_mode), HDR_F(slot_num), HDR_F(reserved[0]),
	HDR_F(reserved[1]), HDR_F(reserved[3]), ARG_F(0, dtype), ARG_F(0, ndim),
	ARG_F(0, flags), ARG_F(1, offset), ARG_F(1, shape[0]),
	ARG_F(1, shape[2]), ARG_F(1, strides[1]), ARG_F(1, flags),
	{ sizeof(struct drm_pto_npu_sqe) + 2 * 48, 8 },
	{ sizeof(struct drm_pto_npu_sqe) + 2 * 48 + 8, 8 },
};

void pto_tg_fuzz_fields(struct pto_test_sqe *e, unsigned int n,
			uint64_t *seed)
{
	unsigned int i;
	uint64_t v;

	for (i = 0; i < n; i++) {
		const struct field *f = &launch_fields[pto_tg_rnd(seed) %
			(sizeof(launch_fields) / sizeof(launch_fields[0]))];

		v = pto_tg_rnd_val(seed);
		memcpy((uint8_t *)e + f->off, &v, f->size);
	}
}
