// SPDX-License-Identifier: MIT
/*
 * rows-memory.c: pto-bench rows 10 and 14 (kernel memory, memory model).
 */
#include "bench.h"

/* ------------------------------------------------------------ row 10 */

/* Slab + VmallocUsed (+ Shmem with @shmem) from /proc/meminfo, bytes. */
double kmem_bytes(bool shmem, double *slab_out, double *vmalloc_out)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	double slab = 0, vm = 0, sh = 0;

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "Slab: %llu kB", &v) == 1)
			slab = v * 1024.0;
		else if (sscanf(line, "VmallocUsed: %llu kB", &v) == 1)
			vm = v * 1024.0;
		else if (sscanf(line, "Shmem: %llu kB", &v) == 1)
			sh = v * 1024.0;
	}
	fclose(f);
	if (slab_out)
		*slab_out = slab;
	if (vmalloc_out)
		*vmalloc_out = vm;
	return slab + vm + (shmem ? sh : 0);
}

/*
 * Bytes of spare task memory the device keeps for reuse (debugfs
 * "spares"), 0 when unreadable (no debugfs: then *ok is false). In-flight
 * tasks take spares before the slab, so a meminfo delta misses them.
 */
double spare_bytes(struct bench *B, bool *ok)
{
	char path[128];
	unsigned long long v;
	char line[128];
	double bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/pto_npu.%u/spares",
		 B->info.device_index);
	f = fopen(path, "r");
	if (!f) {
		*ok = false;
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "bytes: %llu", &v) == 1)
			bytes = (double)v;
	fclose(f);
	return bytes;
}

static const struct row_head r10_head = {
	.id = "10",
	.title = "kernel memory per in-flight task",
	.a_label = "per in-flight task", .a_unit = "bytes",
	.b_label = "per queue entry (SQ slot + 4 CQEs)", .b_unit = "bytes",
	.ratio_def = "task / queue entry",
	.op = T_LE, .target = 1024, .target_on_a = true,
	.target_text = "<= 1 KiB per in-flight task",
};

/* Slab+VmallocUsed+Shmem before (*q0) and with (*q1) a queue of @qslots. */
static int r10_queue_bytes(struct bench *B, unsigned int qslots, double *q0,
			   double *q1)
{
	struct pto_queue *big = NULL;
	int ret;

	*q0 = kmem_bytes(true, NULL, NULL);
	ret = pto_queue_create(B->dev, qslots, 0, &big);
	if (ret) {
		berr(B, "queue of %u slots: %s", qslots, pto_strerror(ret));
		return ret;
	}
	*q1 = kmem_bytes(true, NULL, NULL);
	pto_queue_destroy(big);
	return 0;
}

/* Row 10's readings around @n tasks held in flight (see r10_hold()). */
struct r10_sample {
	double m0, m1, s0, s1, v0, v1, p0, p1;
	int64_t intake_ns;
	bool spares_ok;
};

/*
 * The gate and @n empty tasks (1 dep each) pushed and rung behind it,
 * kernel memory read before and while they are held. 0, or an error
 * (B->err) the row stops on.
 */
static int r10_hold(struct bench *B, unsigned int n, struct r10_sample *s)
{
	struct pto_task_desc d = empty_task(B);
	unsigned int i;
	int64_t dep;
	int ret;

	s->spares_ok = true;
	sync();
	s->p0 = spare_bytes(B, &s->spares_ok);
	s->m0 = kmem_bytes(false, &s->s0, &s->v0);
	if ((ret = gate_push(B, 0)))
		return ret;
	d.deps = &dep;
	d.num_deps = 1;
	for (i = 0; i < n; i++) {
		dep = -(int64_t)(i + 1);
		if ((ret = push(B, &d)))
			return ret;
	}
	s->intake_ns = now_ns();
	if ((ret = doorbell(B, n + 1, NULL))) {
		gate_force(B);
		return ret;
	}
	s->intake_ns = now_ns() - s->intake_ns;
	s->m1 = kmem_bytes(false, &s->s1, &s->v1);
	s->p1 = spare_bytes(B, &s->spares_ok);
	return 0;
}

/* Row 10's figures of one repetition, from @s and the queue's q0, q1. */
static void r10_record(struct row *r, const struct r10_sample *s,
		       unsigned int n, unsigned int qslots, double q0,
		       double q1, int rep)
{
	/* Spares the tasks took were in Slab before: count them. */
	row_pair(r, (s->m1 - s->m0 + s->p0 - s->p1) / n, (q1 - q0) / qslots);
	row_extra(r, "slab_delta_bytes_per_task", (s->s1 - s->s0) / n);
	row_extra(r, "spares_taken_bytes_per_task", (s->p0 - s->p1) / n);
	if (!s->spares_ok && !rep)
		row_note(r, "debugfs spares unreadable: spare task memory the in-flight tasks reused is not counted.");
	row_extra(r, "vmalloc_delta_bytes_per_task", (s->v1 - s->v0) / n);
	/* Intake alone: nothing can run, no dispatch, no worker. */
	row_extra(r, "gated_doorbell_intake_us_per_task",
		  (double)s->intake_ns / 1e3 / n);
}

/*
 * One repetition of row 10. 0; 1: the held tasks did not drain; -1: an
 * error the row stops on. B->err says why.
 */
static int r10_rep(struct bench *B, struct row *r, unsigned int n,
		   unsigned int qslots, int rep)
{
	struct r10_sample s;
	double q0, q1;
	int ret;

	if (r10_hold(B, n, &s))
		return -1;
	if ((ret = gate_open(B)))
		gate_abort(B, n + 1);
	if (ret || drain(B, n + 1, false))
		return 1;
	if (r10_queue_bytes(B, qslots, &q0, &q1))
		return -1;
	r10_record(r, &s, n, qslots, q0, q1, rep);
	return 0;
}

void row10_memory(struct bench *B)
{
	unsigned int n = B->quick ? 2000 : 10000;
	unsigned int qslots = 65536;
	struct row r;
	int rep, reps = B->reps < 5 ? B->reps : 5;

	row_start(&r, &r10_head,
		  "/proc/meminfo Slab+VmallocUsed delta with %u empty tasks (1 dep each) held in flight behind a gated producer, per task; vs Slab+VmallocUsed+Shmem delta of a %u-slot queue (CQ 4x), per SQ slot",
		  n, qslots);

	for (rep = 0; rep < reps; rep++) {
		int ret = r10_rep(B, &r, n, qslots, rep);

		if (ret < 0) {
			row_fail(&r, "error", "%s", B->err);
			row_emit(&r);
			return;
		}
		if (ret && rep_failed(&r, B->err, rep))
			break;
	}
	row_note(&r, "meminfo counts kB pages of the whole kernel: other activity adds noise of a few bytes per task.");
	row_emit(&r);
}

/* ------------------------------------------------------------ row 14 */

/*
 * The memory model's cost. A SOFT-syncall exchange with the guide's
 * pattern, whose GM traffic is all buffered: per round each block stores
 * its value, FENCE, SYNCALL, CACHEINVALID, loads its neighbour's. And the
 * common case, a chain of copy tasks (TLOAD, TSTORE) that never read what
 * they write, so that non-coherent GM writes through.
 */
static int row14_exchange_kernel(struct bench *B, unsigned int k,
				 struct pto_kernel **out)
{
	struct pto_kb *kb;

	if (pto_kb_new(B->dev, PTO_CORE_AIV, &kb)) {
		berr(B, "kernel builder");
		return -ENOMEM;
	}
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_sreg(kb, 1, PTO_SREG_BLOCK_NUM);
	pto_kb_arg(kb, 2, 0);
	pto_kb_ldi(kb, 3, 0);
	/* s4 = (block + 1) % blocks: the neighbour */
	pto_kb_alui(kb, PTO_ALU_ADD, 4, 0, 1);
	pto_kb_alu(kb, PTO_ALU_MOD, 4, 4, 1);
	pto_kb_loopi(kb, 5, k);
	pto_kb_gst(kb, 0, 3, 0, 5);
	pto_kb_cacheinvalid(kb);
	pto_kb_fence(kb);
	pto_kb_syncall_soft(kb, 1, 2);
	pto_kb_cacheinvalid(kb);
	pto_kb_gld(kb, 6, 0, 3, 4);
	pto_kb_fence(kb);
	pto_kb_syncall_soft(kb, 1, 2);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return kb_done(B, kb, "exchange", out);
}

/* One exchange task on the current queue: us per round. */
static int row14_exchange(struct bench *B, struct pto_kernel *kern,
			  struct pto_tensor *vals, struct pto_tensor *ws,
			  unsigned int k, double *per_us)
{
	const int64_t used = B->aiv;
	struct pto_tensor *args[2] = { vals, ws };
	struct pto_task_desc d = {
		.kernel_aiv = kern, .block_num = B->aiv,
		.flags = PTO_TASK_SYNC_START, .tensors = args,
		.num_tensors = 2, .scalars = &used, .num_scalars = 1,
	};
	int ret;

	memset(pto_tensor_data(ws), 0, 64);
	if ((ret = push(B, &d)) || (ret = doorbell(B, 1, NULL)) ||
	    (ret = drain(B, 1, false)))
		return ret;
	*per_us = makespan_ns(B) / 1e3 / k;
	return 0;
}

/* A chain of @n copy tasks (row 8's kernel, one block) on the current queue. */
static int row14_copies(struct bench *B, struct pto_kernel *copy,
			struct pto_tensor *const *t, unsigned int n,
			double *per_us)
{
	static const int64_t prev = -1;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct pto_tensor *args[3] = { t[i % 2], t[2], t[(i + 1) % 2] };
		struct pto_task_desc d = {
			.kernel_aiv = copy, .block_num = 1, .tensors = args,
			.num_tensors = 3, .deps = i ? &prev : NULL,
			.num_deps = i ? 1 : 0,
		};

		if ((ret = push(B, &d)))
			return ret;
	}
	if ((ret = doorbell(B, n, NULL)) || (ret = drain(B, n, false)))
		return ret;
	*per_us = makespan_ns(B) / 1e3 / n;
	return 0;
}

static const struct row_head r14_heads[3] = {
	{
		.id = "14a",
		.title = "non-coherent GM vs coherent (exchange)",
		.a_label = "non-coherent", .a_unit = "us/round",
		.b_label = "coherent", .b_unit = "us/round",
		.ratio_def = "non-coherent / coherent",
		.op = T_LE, .target = 1.5,
		.target_text = "non-coherent <= 1.5 x coherent",
	}, {
		.id = "14b",
		.title = "sanitizer vs non-coherent (exchange)",
		.a_label = "sanitizer", .a_unit = "us/round",
		.b_label = "non-coherent", .b_unit = "us/round",
		.ratio_def = "sanitizer / non-coherent",
		.op = T_LE, .target = 1.5,
		.target_text = "sanitizer <= 1.5 x non-coherent",
	}, {
		.id = "14c",
		.title = "sanitizer vs coherent (copy chain)",
		.a_label = "sanitizer", .a_unit = "us/task",
		.b_label = "coherent", .b_unit = "us/task",
		.ratio_def = "sanitizer / coherent",
		.op = T_LE, .target = 1.1,
		.target_text = "sanitizer <= 1.1 x coherent",
	},
};

/* What row 14 measures with: one queue per mode, the kernels, tensors. */
struct r14_res {
	unsigned int k, n;
	struct pto_queue *qs[3];
	struct pto_kernel *kx, *copy;
	struct pto_tensor *vals, *ws, *t[3];
};

/* Row 14's three rows started, with the exchange's and the chain's sizes. */
static void r14_start(struct bench *B, struct row r[3], unsigned int k,
		      unsigned int n)
{
	row_start(&r[0], &r14_heads[0],
		  "per round: one sync_start task of %u AIV blocks, %u rounds of GST, CACHEINVALID, FENCE, SOFT syncall, CACHEINVALID, GLD, FENCE, SOFT syncall; coherent queue vs non-coherent",
		  B->aiv, k);
	row_start(&r[1], &r14_heads[1],
		  "the same exchange on a sanitizing queue vs a non-coherent one");
	row_start(&r[2], &r14_heads[2],
		  "per task: a chain of %u one-block copy tasks (TLOAD, TSTORE of a %ux%u f32 tile) on a sanitizing queue vs a coherent one",
		  n, R8_TR, R8_COLS);
}

/* Row 14's queues and kernels (its tensors checked). 0, or -1: B->err. */
static int r14_prepare(struct bench *B, struct r14_res *x)
{
	static const uint32_t qflags[3] = {
		PTO_QUEUE_COHERENT, PTO_QUEUE_NONCOHERENT, PTO_QUEUE_SANITIZE,
	};

	if (queues_create(B, qflags, 3, x->qs))
		return -1;
	if (!x->vals || !x->ws || !x->t[0] || !x->t[1] || !x->t[2] ||
	    row14_exchange_kernel(B, x->k, &x->kx) ||
	    row8_kernel(B, false, &x->copy))
		return -1;
	return 0;
}

/*
 * One repetition of row 14: the exchange and the copy chain on each
 * queue in turn. false: the rows stop.
 */
static bool r14_rep(struct bench *B, struct row r[3], const struct r14_res *x,
		    unsigned int rep)
{
	struct pto_queue *saved = B->q;
	double xs[3], c[3];
	unsigned int m;
	int ret = 0;

	for (m = 0; m < 3 && !ret; m++) {
		B->q = x->qs[m];
		ret = row14_exchange(B, x->kx, x->vals, x->ws, x->k, &xs[m]);
		if (!ret)
			ret = row14_copies(B, x->copy, x->t, x->n, &c[m]);
	}
	B->q = saved;
	if (ret) {
		bool stop = rep_failed(&r[0], B->err, rep);

		stop |= rep_failed(&r[1], B->err, rep);
		return !(rep_failed(&r[2], B->err, rep) || stop);
	}
	row_pair(&r[0], xs[1], xs[0]);
	row_pair(&r[1], xs[2], xs[1]);
	row_pair(&r[2], c[2], c[0]);
	return true;
}

/* Row 14's rows emitted, its queues, kernels and tensors freed. */
static void r14_finish(struct row r[3], struct r14_res *x)
{
	unsigned int m;

	for (m = 0; m < 3; m++) {
		row_emit(&r[m]);
		if (x->qs[m])
			pto_queue_destroy(x->qs[m]);
	}
	pto_kernel_free(x->kx);
	pto_kernel_free(x->copy);
	for (m = 0; m < 3; m++)
		pto_tensor_free(x->t[m]);
	pto_tensor_free(x->ws);
	pto_tensor_free(x->vals);
}

void row14_memory_model(struct bench *B)
{
	struct r14_res x = { .k = B->quick ? 8 : 32, .n = B->quick ? 16 : 64 };
	unsigned int m, rep;
	struct row r[3];

	x.vals = tensor2(B, PTO_DTYPE_I32, 1, B->aiv);
	x.ws = tensor2(B, PTO_DTYPE_I32, 1, 16);
	for (m = 0; m < 3; m++)
		x.t[m] = tensor2(B, PTO_DTYPE_F32, R8_TR, R8_COLS);
	r14_start(B, r, x.k, x.n);
	if (r14_prepare(B, &x)) {
		for (m = 0; m < 3; m++)
			row_fail(&r[m], "error", "%s", B->err);
	} else {
		for (rep = 0; rep < (unsigned int)B->reps; rep++)
			if (!r14_rep(B, r, &x, rep))
				break;
	}
	r14_finish(r, &x);
}
