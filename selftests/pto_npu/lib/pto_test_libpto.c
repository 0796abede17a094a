// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers of the pto_npu kselftests that use libpto (kernels, queues,
 * graphs, SQ entries, the syncall tests' kernel): declared and described in
 * pto_test_lib.h under PTO_TEST_LIBPTO.
 *
 * Copyright (C) 2026 pto-npu authors
 */
#define PTO_TEST_LIBPTO
#include "pto_test_lib.h"

int64_t pto_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int pto_test_dev_open(struct pto_device **out)
{
	return pto_device_open_path(pto_test_device_path(), out);
}

struct pto_kernel *pto_test_kb_finish(struct pto_kb *kb, char *err, size_t len)
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

struct pto_kernel *pto_test_mark_kernel(struct pto_device *dev,
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

int pto_test_tensor2d(struct pto_device *dev,
		      enum pto_dtype dtype, int64_t rows,
		      int64_t cols, struct pto_tensor **out)
{
	const int64_t shape[2] = { rows, cols };

	return pto_tensor_alloc(dev, dtype, 2, shape, out);
}

uint32_t pto_test_tensor_handle(const struct pto_tensor *t)
{
	return pto_buffer_handle(pto_tensor_buffer(t));
}

struct drm_pto_npu_tensor_arg
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

struct drm_pto_npu_tensor_arg
pto_test_targ_of(const struct pto_tensor *t)
{
	const int64_t *shape = pto_tensor_shape(t);

	return pto_test_targ(pto_test_tensor_handle(t),
			     (uint8_t)pto_tensor_dtype(t),
			     pto_tensor_offset(t), (uint32_t)shape[0],
			     (uint32_t)shape[1]);
}

uint32_t pto_test_sqe_slots(uint32_t nt, uint32_t ns, uint32_t nd)
{
	return pto_test_sqe_slots_pred(nt, ns, nd, 0);
}

size_t
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

int pto_test_reap_lasts(struct pto_queue *q, struct pto_cqe *out,
			unsigned int max, unsigned int lasts,
			int64_t timeout_ns)
{
	return pto_test_reap_lasts_sched(q, out, NULL, max, lasts, timeout_ns);
}

/* pto_queue_reap(), and the scheduler records when @sched is given. */
static int reap_some(struct pto_queue *q, struct pto_cqe *out,
		     struct pto_sched_rec *sched, unsigned int got,
		     unsigned int max)
{
	return pto_queue_reap_sched(q, out + got, NULL,
				    sched ? sched + got : NULL, NULL,
				    max - got);
}

int pto_test_reap_lasts_sched(struct pto_queue *q, struct pto_cqe *out,
			      struct pto_sched_rec *sched, unsigned int max,
			      unsigned int lasts, int64_t timeout_ns)
{
	int64_t deadline = pto_test_now_ns() + timeout_ns;
	unsigned int got = 0, seen = 0;

	for (;;) {
		int n = reap_some(q, out, sched, got, max), i, ret;

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
			n = reap_some(q, out, sched, got, max);
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

const struct pto_cqe *
pto_test_find_last(const struct pto_cqe *cqes, int n, uint64_t task_id)
{
	int i;

	for (i = 0; i < n; i++)
		if (cqes[i].task_id == task_id &&
		    (cqes[i].info.flags & PTO_BLOCK_LAST))
			return &cqes[i];
	return NULL;
}

int pto_test_ring_one(struct pto_queue *q, struct pto_cqe *out,
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

int pto_test_submit_one(struct pto_queue *q,
			const struct pto_task_desc *d,
			struct pto_cqe *out, unsigned int max,
			int64_t timeout_ns, uint64_t *task_id)
{
	int ret = pto_queue_push_task(q, d);

	return ret ? ret : pto_test_ring_one(q, out, max, timeout_ns, task_id);
}

int pto_test_submit_raw_one(struct pto_queue *q,
			    const void *entry, size_t size,
			    struct pto_cqe *out, unsigned int max,
			    int64_t timeout_ns,
			    uint64_t *task_id)
{
	int ret = pto_queue_push_raw(q, entry, size);

	return ret ? ret : pto_test_ring_one(q, out, max, timeout_ns, task_id);
}

uint32_t pto_test_sqe_slots_pred(uint32_t nt, uint32_t ns, uint32_t nd,
				 int pred)
{
	uint32_t body = nt * sizeof(struct drm_pto_npu_tensor_arg) +
			(ns + nd) * sizeof(int64_t) +
			(pred ? sizeof(struct drm_pto_npu_predicate) : 0);

	return 1 + (body + DRM_PTO_NPU_SQ_SLOT_SIZE - 1) /
			   DRM_PTO_NPU_SQ_SLOT_SIZE;
}

size_t
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

int pto_test_blocks_with(const struct pto_graph *g,
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

int pto_test_block_count(const struct pto_graph *g, unsigned int idx)
{
	const struct pto_block_info *b;
	unsigned int n = 0;

	if (pto_graph_task_blocks(g, idx, &b, &n))
		return 0;
	return (int)n;
}

int pto_test_queue_prof(struct pto_device *dev, struct pto_queue **q)
{
	/* Profiled tests time slow producers: past the default budget. */
	struct pto_queue_params p = { .flags = PTO_QUEUE_PROFILE,
				      .work_budget = PTO_TEST_LONG_BUDGET };

	return pto_queue_create_params(dev, &p, q);
}

/* One record's waits (see pto_test_waits_sane()). */
static int waits_sane_one(const struct pto_block_info *b,
			  const struct pto_block_prof *p, uint32_t allowed,
			  char *err, size_t len)
{
	unsigned int w, n = p->nwaits < PTO_PROF_WAITS ? p->nwaits :
							 PTO_PROF_WAITS;
	bool staged = b->flags & PTO_BLOCK_STAGED, seen_staged = false;
	uint64_t sum = 0, prev_end = 0;

	if (!(b->flags & PTO_BLOCK_RAN)) {
		if (p->nwaits > 1 || (p->nwaits && !staged)) {
			snprintf(err, len, "block %u never ran, %u waits",
				 b->block, p->nwaits);
			return -1;
		}
		return 0;
	}
	if (!(b->ts_dispatch <= b->ts_receive && b->ts_receive <= b->ts_start &&
	      b->ts_start <= b->ts_end)) {
		snprintf(err, len,
			 "block %u: dispatch %llu receive %llu start %llu end %llu out of order",
			 b->block, (unsigned long long)b->ts_dispatch,
			 (unsigned long long)b->ts_receive,
			 (unsigned long long)b->ts_start,
			 (unsigned long long)b->ts_end);
		return -1;
	}
	for (w = 0; w < n; w++) {
		const struct pto_wait *x = &p->waits[w];

		if (x->begin > x->end || x->begin < prev_end) {
			snprintf(err, len, "block %u wait %u: %llu..%llu after %llu",
				 b->block, w, (unsigned long long)x->begin,
				 (unsigned long long)x->end,
				 (unsigned long long)prev_end);
			return -1;
		}
		prev_end = x->end;
		sum += x->end - x->begin;
		if (x->kind == PTO_WAIT_STAGED) {
			if (w || !staged || x->begin != b->ts_dispatch ||
			    x->end != b->ts_receive) {
				snprintf(err, len,
					 "block %u: STAGED wait %u %llu..%llu, staged %d, dispatch %llu receive %llu",
					 b->block, w, (unsigned long long)x->begin,
					 (unsigned long long)x->end, staged,
					 (unsigned long long)b->ts_dispatch,
					 (unsigned long long)b->ts_receive);
				return -1;
			}
			seen_staged = true;
			continue;
		}
		if (x->kind < PTO_WAIT_RING_POP || x->kind > PTO_WAIT_BARRIER_SOFT ||
		    !(allowed & (1U << x->kind))) {
			snprintf(err, len, "block %u wait %u: kind %s not expected",
				 b->block, w, pto_wait_kind_name(x->kind));
			return -1;
		}
		if (x->begin < b->ts_start || x->end > b->ts_end) {
			snprintf(err, len,
				 "block %u wait %u (%s): %llu..%llu outside its bar %llu..%llu",
				 b->block, w, pto_wait_kind_name(x->kind),
				 (unsigned long long)x->begin,
				 (unsigned long long)x->end,
				 (unsigned long long)b->ts_start,
				 (unsigned long long)b->ts_end);
			return -1;
		}
	}
	if (staged != seen_staged) {
		snprintf(err, len, "block %u: staged %d but STAGED wait %d",
			 b->block, staged, seen_staged);
		return -1;
	}
	if (sum > p->wait_ns || (p->nwaits <= PTO_PROF_WAITS && sum != p->wait_ns)) {
		snprintf(err, len, "block %u: waits sum %llu, total %llu (%u waits)",
			 b->block, (unsigned long long)sum,
			 (unsigned long long)p->wait_ns, p->nwaits);
		return -1;
	}
	return 0;
}

/*
 * One record's scheduler work, against its block record and the task's
 * (record 0): in order, within each other, the task's part the same in
 * every record.
 */
static int sched_sane_one(const struct pto_block_info *b,
			  const struct pto_sched_rec *s,
			  const struct pto_sched_rec *t, char *err, size_t len)
{
	bool ran = b->flags & PTO_BLOCK_RAN;

	if (s->intake_begin != t->intake_begin ||
	    s->intake_end != t->intake_end || s->intake_iter != t->intake_iter ||
	    s->resolve_begin != t->resolve_begin ||
	    s->resolve_end != t->resolve_end ||
	    s->resolve_iter != t->resolve_iter || s->resolved != t->resolved) {
		snprintf(err, len, "block %u: the task's scheduler fields differ from record 0's",
			 b->block);
		return -1;
	}
	if (!ran)
		return 0;
	if (s->dispatch_iter < t->intake_iter ||
	    s->dispatch_begin != b->ts_dispatch ||
	    s->dispatch_begin > s->dispatch_end ||
	    s->dispatch_begin < t->intake_end) {
		snprintf(err, len, "block %u: dispatch [%llu, %llu] iter %u, intake end %llu iter %u, ts_dispatch %llu",
			 b->block, (unsigned long long)s->dispatch_begin,
			 (unsigned long long)s->dispatch_end, s->dispatch_iter,
			 (unsigned long long)t->intake_end, t->intake_iter,
			 (unsigned long long)b->ts_dispatch);
		return -1;
	}
	if (s->complete_iter <= s->dispatch_iter ||
	    s->complete_begin < b->ts_finish ||
	    (!(s->flags & PTO_SCHED_EARLY) && s->complete_begin != b->ts_finish) ||
	    s->complete_begin > s->complete_end) {
		snprintf(err, len, "block %u: complete [%llu, %llu] iter %u (dispatch iter %u), ts_finish %llu, flags 0x%x",
			 b->block, (unsigned long long)s->complete_begin,
			 (unsigned long long)s->complete_end, s->complete_iter,
			 s->dispatch_iter, (unsigned long long)b->ts_finish,
			 s->flags);
		return -1;
	}
	if (!(s->flags & PTO_SCHED_STAGED) != !(b->flags & PTO_BLOCK_STAGED)) {
		snprintf(err, len, "block %u: sched flags 0x%x, block flags 0x%x",
			 b->block, s->flags, b->flags);
		return -1;
	}
	return 0;
}

int pto_test_sched_sane(const struct pto_graph *g, unsigned int idx,
			char *err, size_t len)
{
	const struct pto_block_info *b;
	const struct pto_sched_rec *s;
	unsigned int n = 0, ns = 0, i, last = 0;

	if (pto_graph_task_blocks(g, idx, &b, &n) ||
	    pto_graph_task_sched(g, idx, &s, &ns) || !n || ns != n) {
		snprintf(err, len, "task %u: %u records, %u scheduler records",
			 idx, n, ns);
		return -1;
	}
	if (!s[0].intake_iter || s[0].intake_begin > s[0].intake_end ||
	    s[0].resolve_iter < s[0].intake_iter ||
	    s[0].resolve_begin < s[0].intake_end ||
	    s[0].resolve_begin > s[0].resolve_end) {
		snprintf(err, len, "task %u: intake [%llu, %llu] iter %u, resolve [%llu, %llu] iter %u",
			 idx, (unsigned long long)s[0].intake_begin,
			 (unsigned long long)s[0].intake_end, s[0].intake_iter,
			 (unsigned long long)s[0].resolve_begin,
			 (unsigned long long)s[0].resolve_end, s[0].resolve_iter);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (sched_sane_one(&b[i], &s[i], &s[0], err, len))
			return -1;
		if ((b[i].flags & PTO_BLOCK_RAN) &&
		    s[i].complete_iter > s[last].complete_iter)
			last = i;
	}
	/* The last block's end completed the task: its walk inside that end. */
	if ((b[last].flags & PTO_BLOCK_RAN) &&
	    (s[0].resolve_iter != s[last].complete_iter ||
	     s[0].resolve_begin < s[last].complete_begin ||
	     s[0].resolve_end > s[last].complete_end)) {
		snprintf(err, len, "task %u: resolve [%llu, %llu] iter %u outside the last end [%llu, %llu] iter %u",
			 idx, (unsigned long long)s[0].resolve_begin,
			 (unsigned long long)s[0].resolve_end, s[0].resolve_iter,
			 (unsigned long long)s[last].complete_begin,
			 (unsigned long long)s[last].complete_end,
			 s[last].complete_iter);
		return -1;
	}
	return 0;
}

int pto_test_waits_sane(const struct pto_graph *g, unsigned int idx,
			uint32_t allowed, char *err, size_t len)
{
	const struct pto_block_info *b;
	const struct pto_block_prof *p;
	unsigned int n = 0, np = 0, i;

	if (pto_graph_task_blocks(g, idx, &b, &n) ||
	    pto_graph_task_waits(g, idx, &p, &np)) {
		snprintf(err, len, "task %u: no records", idx);
		return -1;
	}
	if (!n || np != n) {
		snprintf(err, len, "task %u: %u records, %u profiles", idx, n, np);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (waits_sane_one(&b[i], &p[i], allowed, err, len))
			return -1;
	return pto_test_sched_sane(g, idx, err, len);
}

int pto_test_barrier_waits(const struct pto_graph *g, unsigned int idx,
			   uint32_t kind, uint32_t per_block, char *err,
			   size_t len)
{
	const struct pto_block_info *b;
	const struct pto_block_prof *p;
	unsigned int n = 0, np = 0, i, w;
	unsigned int listed = per_block < PTO_PROF_WAITS ? per_block :
							     PTO_PROF_WAITS;

	if (pto_graph_task_blocks(g, idx, &b, &n) ||
	    pto_graph_task_waits(g, idx, &p, &np) || !n || np != n) {
		snprintf(err, len, "task %u: %u records, %u profiles", idx, n, np);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (p[i].nwaits != per_block) {
			snprintf(err, len, "record %u (block %u): %u waits, want %u",
				 i, b[i].block, p[i].nwaits, per_block);
			return -1;
		}
		for (w = 0; w < listed; w++)
			if (p[i].waits[w].kind != kind) {
				snprintf(err, len, "record %u wait %u: %s, want %s",
					 i, w, pto_wait_kind_name(p[i].waits[w].kind),
					 pto_wait_kind_name(kind));
				return -1;
			}
	}
	for (w = 0; w < listed; w++) {
		uint64_t last_arrival = 0, first_release = UINT64_MAX;
		unsigned int la = 0, fr = 0;

		for (i = 0; i < n; i++) {
			if (p[i].waits[w].begin > last_arrival) {
				last_arrival = p[i].waits[w].begin;
				la = i;
			}
			if (p[i].waits[w].end < first_release) {
				first_release = p[i].waits[w].end;
				fr = i;
			}
		}
		if (first_release < last_arrival) {
			snprintf(err, len,
				 "barrier %u: record %u released at %llu before record %u arrived at %llu",
				 w, fr, (unsigned long long)first_release, la,
				 (unsigned long long)last_arrival);
			return -1;
		}
	}
	return 0;
}

/* The rounds kernel's barrier: HARD of type @imm, or SOFT on tensor @imm. */
static int rounds_syncall(struct pto_kb *kb, unsigned int mode,
			  unsigned int imm)
{
	if (mode == PTO_SYNC_SOFT)
		return pto_kb_syncall_soft(kb, imm, 12);
	return pto_kb_syncall_hard(kb, (enum pto_sync_type)imm);
}

int pto_test_build_rounds(struct pto_device *dev,
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
	rounds_syncall(kb, mode, sync_imm);
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
	rounds_syncall(kb, mode, sync_imm);
	pto_kb_endloop(kb);
	pto_kb_gst(kb, 1, 3, 0, 2);
	pto_kb_end(kb);
	ret = pto_kb_finish(kb, out);
	if (ret)
		snprintf(err, len, "%s (%s)", pto_kb_error(kb),
			 pto_strerror(ret));
	else if (len)
		err[0] = '\0';
	pto_kb_free(kb);
	return ret;
}

int32_t pto_test_round_val(unsigned int rounds, unsigned int row,
			   unsigned int block)
{
	return (int32_t)((rounds - 1) * PTO_TEST_ROUND_TAG + block +
			 row * PTO_TEST_ROW_TAG);
}

int pto_test_queue_long(struct pto_device *dev, uint32_t sq_slots,
			uint32_t cq_entries, struct pto_queue **out)
{
	struct pto_queue_params p = { .sq_slots = sq_slots,
				      .cq_entries = cq_entries,
				      .work_budget = PTO_TEST_LONG_BUDGET };

	return pto_queue_create_params(dev, &p, out);
}
