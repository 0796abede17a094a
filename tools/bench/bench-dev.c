// SPDX-License-Identifier: MIT
/*
 * bench-dev.c: the device helpers of pto-bench: the context (queue, CQE
 * buffer), kernels, push/doorbell/drain, CQE timings, the gate, tensors,
 * the tracepoint diagnostics (-t) and setup().
 */
#include "bench.h"

/* ------------------------------------------------------------ device */

int64_t now_ns(void)
{
	return pto_time_ns();
}

void berr(struct bench *B, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(B->err, sizeof(B->err), fmt, ap);
	va_end(ap);
}

int query_counters(struct bench *B, struct drm_pto_npu_counters *c)
{
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_COUNTERS,
		.size = sizeof(*c),
		.data = (uintptr_t)c,
	};

	memset(c, 0, sizeof(*c));
	if (ioctl(pto_device_fd(B->dev), DRM_IOCTL_PTO_NPU_QUERY, &q))
		return -errno;
	return 0;
}

struct pto_insn insn(uint8_t op, uint8_t dst, uint8_t a, uint8_t b,
		     uint8_t mode, uint16_t flags, int64_t imm)
{
	struct pto_insn i = { .op = op, .dst = dst, .a = a, .b = b,
			      .mode = mode, .flags = flags, .imm = imm };
	return i;
}

int kernel_raw(struct bench *B, enum pto_core_type ct,
	       const struct pto_insn *in, uint32_t n,
	       struct pto_kernel **out)
{
	char log[256] = "";
	struct pto_verify_info vi = { 0 };
	int ret = pto_kernel_create_raw(B->dev, ct, in, n, NULL, 0, log,
					sizeof(log), &vi, out);

	if (ret)
		berr(B, "kernel upload: %s (verifier code %u at %u: %s)",
		     pto_strerror(ret), vi.code, vi.index, log);
	return ret;
}

int kb_done(struct bench *B, struct pto_kb *kb, const char *what,
	    struct pto_kernel **out)
{
	int ret = pto_kb_finish(kb, out);

	if (ret)
		berr(B, "kernel %s: %s", what,
		     *pto_kb_error(kb) ? pto_kb_error(kb) : pto_strerror(ret));
	pto_kb_free(kb);
	return ret;
}

int push(struct bench *B, const struct pto_task_desc *d)
{
	int ret = pto_queue_push_task(B->q, d);

	if (ret)
		berr(B, "push task: %s", pto_strerror(ret));
	return ret;
}

int doorbell(struct bench *B, uint32_t expect, uint64_t *first_id)
{
	uint32_t consumed = 0;
	int ret = pto_queue_doorbell(B->q, 0, 0, &consumed, first_id);

	if (ret) {
		berr(B, "doorbell: %s", pto_strerror(ret));
		return ret;
	}
	if (consumed != expect) {
		berr(B, "doorbell took %u of %u entries", consumed, expect);
		return -EAGAIN;
	}
	return 0;
}

/*
 * Reap until @ntasks tasks have posted their last CQE. CQEs are kept in
 * B->cqe (B->ncqe of them). A task that ended other than OK (or SKIPPED,
 * when @skip_ok) is an error.
 */
int drain(struct bench *B, unsigned int ntasks, bool skip_ok)
{
	int64_t deadline = now_ns() + DRAIN_TIMEOUT_NS;
	struct pto_cqe tmp[64];
	unsigned int last = 0;
	int bad = 0;

	B->ncqe = 0;
	while (last < ntasks) {
		struct pto_cqe *dst = B->ncqe < CQE_CAP ? B->cqe + B->ncqe : tmp;
		unsigned int room = B->ncqe < CQE_CAP ? CQE_CAP - B->ncqe : 64;
		int n = pto_queue_reap(B->q, dst, room), i;

		if (n < 0) {
			berr(B, "reap: %s", pto_strerror(n));
			return n;
		}
		if (!n) {
			int ret = pto_queue_wait(B->q, deadline);

			if (ret == -ETIME) {
				berr(B, "drain: %u of %u tasks completed in %lld s",
				     last, ntasks,
				     (long long)(DRAIN_TIMEOUT_NS / 1000000000));
				return ret;
			}
			if (ret && ret != -EINTR) {
				berr(B, "wait: %s", pto_strerror(ret));
				return ret;
			}
			continue;
		}
		for (i = 0; i < n; i++) {
			const struct pto_block_info *b = &dst[i].info;

			if (!(b->flags & PTO_BLOCK_LAST))
				continue;
			last++;
			if (b->status != PTO_STATUS_OK &&
			    !(skip_ok && b->status == PTO_STATUS_SKIPPED) && !bad) {
				bad = 1;
				berr(B, "task %llu ended %s (reason %s, detail 0x%llx)",
				     (unsigned long long)dst[i].task_id,
				     pto_status_name(b->status),
				     pto_reason_name(b->reason),
				     (unsigned long long)b->detail);
			}
		}
		if (dst != tmp)
			B->ncqe += n;
	}
	return bad ? -EIO : 0;
}

/* Device makespan over the CQEs kept: first dispatch to last finish, ns. */
double makespan_ns(const struct bench *B)
{
	uint64_t first = UINT64_MAX, last = 0;
	size_t i;

	for (i = 0; i < B->ncqe; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (!(b->flags & PTO_BLOCK_RAN))
			continue;
		if (b->ts_dispatch < first)
			first = b->ts_dispatch;
		if (b->ts_finish > last)
			last = b->ts_finish;
	}
	return last > first ? (double)(last - first) : NAN;
}

/*
 * Medians over the kept CQEs of the per-block spans: dispatch->receive
 * (pickup), receive->start, start->end (kernel), end->finish (retire
 * bookkeeping), finish of one block to the next CQE's finish.
 */
void block_spans(struct bench *B, struct row *r, const char *pfx)
{
	size_t n = B->ncqe, i, k = 0;
	double *pick, *run, *fin;
	char key[64];

	if (!n)
		return;
	pick = calloc(n, sizeof(double));
	run = calloc(n, sizeof(double));
	fin = calloc(n, sizeof(double));
	if (!pick || !run || !fin)
		goto out;
	for (i = 0; i < n; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (!(b->flags & PTO_BLOCK_RAN))
			continue;
		pick[k] = (double)(b->ts_start - b->ts_dispatch) / 1e3;
		run[k] = (double)(b->ts_end - b->ts_start) / 1e3;
		fin[k] = (double)(b->ts_finish - b->ts_end) / 1e3;
		k++;
	}
	if (k) {
		snprintf(key, sizeof(key), "%s_dispatch_to_start_us", pfx);
		row_extra(r, key, median_of(pick, k));
		snprintf(key, sizeof(key), "%s_kernel_us", pfx);
		row_extra(r, key, median_of(run, k));
		snprintf(key, sizeof(key), "%s_end_to_finish_us", pfx);
		row_extra(r, key, median_of(fin, k));
	}
out:
	free(pick);
	free(run);
	free(fin);
}

/* Median start->end of the blocks that ran, us. */
double median_kernel_us(struct bench *B)
{
	double *v = calloc(B->ncqe ? B->ncqe : 1, sizeof(double)), m;
	size_t i, k = 0;

	if (!v)
		return NAN;
	for (i = 0; i < B->ncqe; i++)
		if (B->cqe[i].info.flags & PTO_BLOCK_RAN)
			v[k++] = (double)(B->cqe[i].info.ts_end -
					  B->cqe[i].info.ts_start) / 1e3;
	m = median_of(v, k);
	free(v);
	return m;
}

struct pto_task_desc empty_task(struct bench *B)
{
	struct pto_task_desc d = { .kernel_aiv = B->k_empty_aiv, .block_num = 1 };

	return d;
}

/*
 * Push the gate: an AIV task held at a SOFT barrier until gate_open(); of
 * its two blocks, block 1 ends at once and block 0 waits for the host.
 * The device's retired count is kept so that gate_open() can tell a gate
 * that ended (faulted, timed out) from one still on its way.
 */
int gate_push(struct bench *B, uint32_t flags)
{
	static const int64_t used = 2;
	struct pto_tensor *ws = B->gate_ws;
	struct pto_task_desc d = {
		.kernel_aiv = B->k_gate,
		.block_num = 2,
		.flags = flags,
		.tensors = &ws,
		.num_tensors = 1,
		.scalars = &used,
		.num_scalars = 1,
	};
	struct drm_pto_npu_counters c;
	int ret;

	memset(pto_tensor_data(ws), 0, 64);
	if ((ret = query_counters(B, &c))) {
		berr(B, "counters: %s", pto_strerror(ret));
		return ret;
	}
	B->gate_retired = c.retired;
	return push(B, &d);
}

/*
 * The host is the gate's second participant, in place of block 1. It may
 * add only after block 0 has arrived: an arrival that finds the counter
 * already at 1 is refused by the workspace contract (STATUS_WORKSPACE).
 * So wait, bounded by the device's progress, until the counter reads 1:
 * block 0 is then provably at the barrier. A task retiring meanwhile (the
 * chain depends on the gate, so only the gate can) ends the wait; the
 * wall-clock limit is a last resort against a device that stops.
 */
int gate_open(struct bench *B)
{
	int32_t *c = pto_tensor_data(B->gate_ws);
	int64_t deadline = now_ns() + DRAIN_TIMEOUT_NS;
	struct drm_pto_npu_counters k;
	int32_t v;
	int ret;

	for (;;) {
		v = __atomic_load_n(c, __ATOMIC_SEQ_CST);
		if (v == 1) {
			__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
			return 0;
		}
		if (v) {
			berr(B, "gate: workspace counter %d, expected 0 or 1", v);
			return -EPROTO;
		}
		if ((ret = query_counters(B, &k))) {
			berr(B, "counters: %s", pto_strerror(ret));
			return ret;
		}
		if (k.retired != B->gate_retired) {
			berr(B, "gate: a task ended before block 0 reached the barrier");
			return -EPROTO;
		}
		if (now_ns() > deadline) {
			berr(B, "gate: block 0 not at the barrier after %lld s",
			     (long long)(DRAIN_TIMEOUT_NS / 1000000000));
			return -ETIMEDOUT;
		}
		usleep(50);
	}
}

/*
 * On an error path after the doorbell: release block 0 whether or not it
 * has arrived, so that the drain that follows sees the gate end (OK, or
 * WORKSPACE if the add came first) rather than a barrier left waiting.
 */
void gate_force(struct bench *B)
{
	int32_t *c = pto_tensor_data(B->gate_ws);

	__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
}

/*
 * gate_open() failed: release the gate and reap the @ntasks tasks behind
 * it, so that the next repetition starts on an empty queue; the error
 * reported stays gate_open()'s.
 */
void gate_abort(struct bench *B, unsigned int ntasks)
{
	char err[sizeof(B->err)];

	memcpy(err, B->err, sizeof(err));
	gate_force(B);
	drain(B, ntasks, true);
	memcpy(B->err, err, sizeof(err));
}

struct pto_tensor *tensor2(struct bench *B, enum pto_dtype dt,
			   int64_t rows, int64_t cols)
{
	const int64_t shape[2] = { rows, cols };
	struct pto_tensor *t = NULL;
	int ret = pto_tensor_alloc(B->dev, dt, 2, shape, &t);

	if (ret)
		berr(B, "tensor %lldx%lld: %s", (long long)rows,
		     (long long)cols, pto_strerror(ret));
	return t;
}

void fill_f32(struct pto_tensor *t, unsigned int seed)
{
	float *p = pto_tensor_data(t);
	size_t i, n = pto_tensor_numel(t);

	for (i = 0; i < n; i++)
		p[i] = (float)(((i + seed) * 2654435761u) % 2000u) / 1000.0f - 1.0f;
}

/* ------------------------------------------------------------ contexts */

/*
 * A device context (an open file of its own, as another process has): its
 * queue, CQE buffer and empty AIV kernel. setup() opens the bench's own;
 * rows 11 and 12 run work from several contexts at once. Errors go to
 * C->err.
 */
int ctx_open(struct bench *C, uint32_t sq_slots, uint32_t cq_entries)
{
	struct pto_queue_params p = { .sq_slots = sq_slots,
				      .cq_entries = cq_entries,
				      .work_budget = BENCH_WORK_BUDGET };
	struct pto_kb *kb;
	int ret;

	ret = pto_device_open(0, &C->dev);
	if (ret) {
		berr(C, "open device 0: %s", pto_strerror(ret));
		return ret;
	}
	pto_device_query_info(C->dev, &C->info);
	ret = pto_queue_create_params(C->dev, &p, &C->q);
	if (ret) {
		berr(C, "queue of %u slots: %s", sq_slots, pto_strerror(ret));
		return ret;
	}
	/* drain() keeps up to CQE_CAP; pages are touched only as used. */
	C->cqe = calloc(CQE_CAP, sizeof(*C->cqe));
	if (!C->cqe) {
		berr(C, "out of memory");
		return -ENOMEM;
	}
	ret = pto_kb_new(C->dev, PTO_CORE_AIV, &kb);
	if (ret) {
		berr(C, "kernel builder: %s", pto_strerror(ret));
		return ret;
	}
	pto_kb_end(kb);
	return kb_done(C, kb, "empty_aiv", &C->k_empty_aiv);
}

/* Closing the file cancels what is still in flight and waits for it. */
void ctx_close(struct bench *C)
{
	pto_kernel_free(C->k_empty_aiv);
	C->k_empty_aiv = NULL;
	pto_queue_destroy(C->q);
	C->q = NULL;
	free(C->cqe);
	C->cqe = NULL;
	pto_device_close(C->dev);
	C->dev = NULL;
}

/* First dispatch and last finish over the CQEs kept (0 and 0: none ran). */
void cqe_window(const struct bench *B, uint64_t *first, uint64_t *last)
{
	size_t i;

	*first = UINT64_MAX;
	*last = 0;
	for (i = 0; i < B->ncqe && i < CQE_CAP; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (!(b->flags & PTO_BLOCK_RAN))
			continue;
		if (b->ts_dispatch < *first)
			*first = b->ts_dispatch;
		if (b->ts_finish > *last)
			*last = b->ts_finish;
	}
	if (!*last)
		*first = 0;
}

uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 64;

	while (p < n)
		p <<= 1;
	return p;
}

/*
 * One queue per flags[i] (as B->q, SQ_SLOTS and CQ_ENTRIES) in qs[i],
 * for a row that compares queues; stops at the first that fails (its
 * slot and the later ones stay NULL). The caller destroys them.
 */
int queues_create(struct bench *B, const uint32_t *flags, unsigned int n,
		  struct pto_queue **qs)
{
	unsigned int m;

	for (m = 0; m < n; m++) {
		struct pto_queue_params p = {
			.sq_slots = SQ_SLOTS, .cq_entries = CQ_ENTRIES,
			.work_budget = BENCH_WORK_BUDGET, .flags = flags[m],
		};

		if (pto_queue_create_params(B->dev, &p, &qs[m])) {
			berr(B, "queue with flags 0x%x", flags[m]);
			return -1;
		}
	}
	return 0;
}

/*
 * Push @n copies of @d, ring once, drain (@skip_ok as drain()); the
 * clock before the first push, after the last, after the doorbell and
 * after the drain in t[0..3].
 */
int batch_run(struct bench *B, const struct pto_task_desc *d, unsigned int n,
	      bool skip_ok, int64_t t[4])
{
	unsigned int i;
	int ret;

	t[0] = now_ns();
	for (i = 0; i < n; i++)
		if ((ret = push(B, d)))
			return ret;
	t[1] = now_ns();
	if ((ret = doorbell(B, n, NULL)))
		return ret;
	t[2] = now_ns();
	if ((ret = drain(B, n, skip_ok)))
		return ret;
	t[3] = now_ns();
	return 0;
}

/* A batch_run()'s push and doorbell intake per task, us: @pfx_... extras. */
void batch_extras(struct row *r, const char *pfx, const int64_t t[4],
		  unsigned int n)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_push_us_per_task", pfx);
	row_extra(r, key, (double)(t[1] - t[0]) / 1e3 / n);
	snprintf(key, sizeof(key), "%s_doorbell_intake_us_per_task", pfx);
	row_extra(r, key, (double)(t[2] - t[1]) / 1e3 / n);
}

/* ------------------------------------------------------------ trace */

/*
 * A tracepoint view of one small batch of empty tasks: the pto_npu events
 * of each task (intake, dispatch, start, end, retire), and the median
 * span between consecutive events, printed as a framed JSON object.
 */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

enum { TRACE_NT = 1000, TRACE_NE = 5 };
static const char *const trace_ev[TRACE_NE] = {
	"pto_intake", "pto_dispatch", "pto_start", "pto_end", "pto_retire",
};

/*
 * The trace's events of tasks @first.. (TRACE_NT of them): ts[task][event],
 * us; NAN where an event is missing. 0, or -1 when the trace cannot be read.
 */
static int trace_read(const char *path, uint64_t first,
		      double ts[TRACE_NT][TRACE_NE])
{
	char line[512];
	FILE *f;
	int e, i;

	for (i = 0; i < TRACE_NT; i++)
		for (e = 0; e < TRACE_NE; e++)
			ts[i][e] = NAN;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p, *q, name[64];
		unsigned long long task;
		double t;

		if (line[0] == '#')
			continue;
		/* "   kworker-12  [001] .....  123.456789: pto_start: dev=0 task=5 ..." */
		p = strstr(line, ": pto_");
		if (!p)
			continue;
		q = p;
		while (q > line && q[-1] != ' ')
			q--;
		t = strtod(q, NULL);
		if (sscanf(p + 2, "%63[a-z_]:", name) != 1)
			continue;
		p = strstr(p, "task=");
		if (!p || sscanf(p, "task=%llu", &task) != 1)
			continue;
		if (task < first || task >= first + TRACE_NT)
			continue;
		for (e = 0; e < TRACE_NE; e++)
			if (!strcmp(name, trace_ev[e]) && isnan(ts[task - first][e]))
				ts[task - first][e] = t * 1e6;
	}
	fclose(f);
	return 0;
}

/* Median and 25th percentile of event @e of task i to event @e2 of task i + @di. */
static void trace_span(struct jbuf *j, const char *key,
		       double ts[TRACE_NT][TRACE_NE], int e, int e2, int di)
{
	static double d[TRACE_NT];
	char k25[80];
	int i, k = 0;

	for (i = 0; i + di < TRACE_NT; i++)
		if (!isnan(ts[i][e]) && !isnan(ts[i + di][e2]))
			d[k++] = ts[i + di][e2] - ts[i][e];
	jb_num(j, key, median_of(d, k));
	snprintf(k25, sizeof(k25), "%s_p25", key);
	jb_num(j, k25, k ? d[k / 4] : NAN);	/* sorted by median_of */
}

/* Enable the pto_npu events over a batch of TRACE_NT empty tasks. */
static int trace_batch(struct bench *B, const char *tr, uint64_t *first)
{
	struct drm_pto_npu_counters c;
	char path[256];
	double us;

	snprintf(path, sizeof(path), "%s/buffer_size_kb", tr);
	write_file(path, "8192");
	snprintf(path, sizeof(path), "%s/trace", tr);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/events/pto_npu/enable", tr);
	if (write_file(path, "1")) {
		fprintf(stderr, "bench: trace: cannot enable %s\n", path);
		return -1;
	}
	query_counters(B, &c);
	*first = c.tasks + 1;
	if (empty_batch(B, NULL, TRACE_NT, NULL, &us))
		fprintf(stderr, "bench: trace: %s\n", B->err);
	write_file(path, "0");
	return 0;
}

void trace_summary(struct bench *B)
{
	const char *tr = "/sys/kernel/tracing";
	static double ts[TRACE_NT][TRACE_NE];
	struct jbuf j = { 0 };
	char path[256];
	uint64_t first = 0;
	int e;

	if (trace_batch(B, tr, &first))
		return;
	snprintf(path, sizeof(path), "%s/trace", tr);
	if (trace_read(path, first, ts))
		return;
	jb_open(&j, NULL);
	jb_str(&j, "what", "tracepoints of a batch of 1000 empty tasks: median (and 25th percentile) us between consecutive events of one task");
	for (e = 0; e + 1 < TRACE_NE; e++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_to_%s_us", trace_ev[e] + 4,
			 trace_ev[e + 1] + 4);
		trace_span(&j, key, ts, e, e + 1, 0);
	}
	/* Intake rate: intake events of consecutive tasks; likewise retire. */
	trace_span(&j, "intake_to_next_intake_us", ts, 0, 0, 1);
	trace_span(&j, "retire_to_next_retire_us", ts, 4, 4, 1);
	jb_close(&j);
	printf("=== PTO-BENCH-TRACE %.*s\n", (int)j.len, j.p);
	fflush(stdout);
	free(j.p);
}

/* ------------------------------------------------------------ main */

int setup(struct bench *B)
{
	struct pto_kb *kb;
	int over, ret;

	/* The device, its queue, the CQE buffer, the empty AIV kernel. */
	ret = ctx_open(B, SQ_SLOTS, CQ_ENTRIES);
	if (ret)
		goto fail;
	B->aiv = pto_available_aiv_count(B->dev);
	B->aic = pto_available_aic_count(B->dev);
	B->clusters = pto_available_cluster_count(B->dev);
	if ((ret = pto_kb_new(B->dev, PTO_CORE_AIC, &kb)))
		return ret;
	pto_kb_end(kb);
	if ((ret = kb_done(B, kb, "empty_aic", &B->k_empty_aic)))
		goto fail;
	/*
	 * The gate: s1 = used_cores (2); block 0 arrives at a SOFT syncall
	 * on tensor 0, block 1 ends at once and the host stands in for it
	 * (used_cores within the task's 2 participants: the contract).
	 */
	if ((ret = pto_kb_new(B->dev, PTO_CORE_AIV, &kb)))
		goto fail;
	over = pto_kb_label_new(kb);
	pto_kb_arg(kb, 1, 0);
	pto_kb_sreg(kb, 2, PTO_SREG_BLOCK_IDX);
	pto_kb_jnz(kb, 2, over);
	pto_kb_syncall_soft(kb, 0, 1);
	pto_kb_label_bind(kb, over);
	pto_kb_end(kb);
	if ((ret = kb_done(B, kb, "gate", &B->k_gate)))
		goto fail;
	B->gate_ws = tensor2(B, PTO_DTYPE_I32, 1, 16);
	if (!B->gate_ws) {
		ret = -ENOMEM;
		goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "pto-bench: setup: %s\n", B->err);
	return ret;
}

/* What setup() made, freed; the queue must be idle by now. */
void teardown(struct bench *B)
{
	pto_kernel_free(B->k_empty_aiv);
	pto_kernel_free(B->k_empty_aic);
	pto_kernel_free(B->k_gate);
	pto_tensor_free(B->gate_ws);
	if (pto_queue_destroy(B->q))
		fprintf(stderr, "pto-bench: queue still busy at exit\n");
	free(B->cqe);
	pto_device_close(B->dev);
}
