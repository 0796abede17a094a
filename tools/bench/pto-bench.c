// SPDX-License-Identifier: MIT
/*
 * pto-bench: the runtime-overhead report (`make bench`).
 *
 * Runs inside the bench VM. Every row compares two forms of the same work
 * side by side in one run: each repetition measures A, B, B, A (or A, B
 * for the long compute rows) and averages each form, so host noise and
 * drift hit both forms alike. Per row it prints one line
 *
 *	=== PTO-BENCH-ROW {json}
 *
 * with both figures (median, min, max, quartiles over the repetitions),
 * the ratio (median of the per-repetition ratios a/b), the target and
 * whether it is met, plus a breakdown (medians) that says where the time
 * goes. tools/bench/report.py extracts the rows from the console log.
 *
 * Exit status: 0 when every row ran (a missed target is not a failure),
 * 1 when a row broke (error status), 2 for bad usage or no device.
 *
 * usage: pto-bench [-r REPS] [-q] [-s] [-R ROWS] [-P 1|2] [-t]
 *	-r REPS  repetitions per row (default 15, 3..31)
 *	-q       quick: fewer tasks per measurement
 *	-s       smoke test (make check): -q, one repetition, every row
 *		 reported as a TAP result (not ok: the row broke), no target
 *		 judged and no figures printed
 *	-R ROWS  row numbers to run, separated by ',' or '+' (default all: 1..14)
 *	-P 1|2   only the rows of pass 1 (measured on one vCPU) or of pass 2
 *		 (row 4, which needs cores running in parallel; see
 *		 parallel_row()); default every row
 *	-t       diagnostics: after the rows, enable the pto_npu tracepoints
 *		 over a batch of 1000 empty tasks and print the median spans
 *		 between their events (=== PTO-BENCH-TRACE). Off by default:
 *		 enabling a tracepoint patches kernel text, which qemu TCG
 *		 does not always survive on SMP (the function profiler, which
 *		 patches every function, reliably oopses with int3).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pto/pto.h>

#include "pto_npu_accel.h"

#define MAX_REPS 31
/* Values a series holds: extras are recorded once per measurement. */
#define SERIES_CAP 128
#define MAX_EXTRA 40
#define DRAIN_TIMEOUT_NS (INT64_C(60) * 1000 * 1000 * 1000)
#define CQE_CAP 65536
#define SQ_SLOTS 32768
#define CQ_ENTRIES 65536

/* ------------------------------------------------------------ statistics */

struct series {
	double v[SERIES_CAP];
	int n;
};

struct summary {
	double median, min, max, q1, q3;
	int n;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int lo = (int)floor(pos);
	int hi = lo + 1 < n ? lo + 1 : lo;

	return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

static struct summary summarize(const struct series *s)
{
	struct summary r = { NAN, NAN, NAN, NAN, NAN, 0 };
	double v[SERIES_CAP];
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		if (isfinite(s->v[i]))
			v[n++] = s->v[i];
	r.n = n;
	if (!n)
		return r;
	qsort(v, n, sizeof(v[0]), cmp_double);
	r.median = quantile(v, n, 0.5);
	r.min = v[0];
	r.max = v[n - 1];
	r.q1 = quantile(v, n, 0.25);
	r.q3 = quantile(v, n, 0.75);
	return r;
}

static void series_add(struct series *s, double v)
{
	if (s->n < SERIES_CAP)
		s->v[s->n++] = v;
}

static double median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------ JSON */

struct jbuf {
	char *p;
	size_t len, cap;
	bool first[16];
	int depth;
};

static void jb_raw(struct jbuf *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void jb_raw(struct jbuf *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(j->p + j->len, j->cap - j->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < j->cap - j->len) {
			j->len += n;
			return;
		}
		j->cap = j->cap * 2 + n + 64;
		j->p = realloc(j->p, j->cap);
		if (!j->p) {
			perror("pto-bench: realloc");
			exit(2);
		}
	}
}

static void jb_str_raw(struct jbuf *j, const char *s)
{
	jb_raw(j, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			jb_raw(j, "\\%c", c);
		else if (c < 0x20)
			jb_raw(j, "\\u%04x", c);
		else
			jb_raw(j, "%c", c);
	}
	jb_raw(j, "\"");
}

static void jb_key(struct jbuf *j, const char *key)
{
	if (!j->first[j->depth])
		jb_raw(j, ",");
	j->first[j->depth] = false;
	if (key) {
		jb_str_raw(j, key);
		jb_raw(j, ":");
	}
}

static void jb_open(struct jbuf *j, const char *key)
{
	if (j->depth || j->len)
		jb_key(j, key);
	jb_raw(j, "{");
	j->first[++j->depth] = true;
}

static void jb_close(struct jbuf *j)
{
	jb_raw(j, "}");
	j->depth--;
}

static void jb_num(struct jbuf *j, const char *key, double v)
{
	jb_key(j, key);
	if (isfinite(v))
		jb_raw(j, "%.6g", v);
	else
		jb_raw(j, "null");
}

static void jb_str(struct jbuf *j, const char *key, const char *s)
{
	jb_key(j, key);
	if (s)
		jb_str_raw(j, s);
	else
		jb_raw(j, "null");
}

static void jb_bool(struct jbuf *j, const char *key, int v)
{
	jb_key(j, key);
	jb_raw(j, v < 0 ? "null" : v ? "true" : "false");
}

/* ------------------------------------------------------------ rows */

enum target_op { T_NONE, T_GE, T_LE };

struct extra {
	char key[48];
	struct series s;
};

/*
 * One row of the report: figure a and figure b measured side by side;
 * ratio = a / b per repetition. The target applies to the ratio, or with
 * target_on_a to figure a itself.
 */
struct row {
	const char *id;
	const char *title;
	const char *what;
	const char *a_label, *a_unit;
	const char *b_label, *b_unit;
	const char *ratio_def;
	enum target_op op;
	double target;
	bool target_on_a;
	const char *target_text;
	struct series a, b, ratio;
	struct extra extra[MAX_EXTRA];
	int nextra;
	char status[32];
	char note[1024];
	int fails;
};

static int g_errors;
/* -s: every row once, as TAP (make check); no target judged, no figures. */
static bool g_smoke;
static int g_tap_n;

static void row_init(struct row *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->status, sizeof(r->status), "ok");
}

static void row_note(struct row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void row_note(struct row *r, const char *fmt, ...)
{
	size_t len = strlen(r->note);
	va_list ap;

	if (len && len < sizeof(r->note) - 2) {
		r->note[len++] = ' ';
		r->note[len] = 0;
	}
	va_start(ap, fmt);
	vsnprintf(r->note + len, sizeof(r->note) - len, fmt, ap);
	va_end(ap);
}

static void row_fail(struct row *r, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void row_fail(struct row *r, const char *status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->status, sizeof(r->status), "%s", status);
	row_note(r, "%s", msg);
	fprintf(stderr, "bench: row %s: %s: %s\n", r->id, status, msg);
}

/*
 * A repetition failed (a task timed out under host load, say): note it and
 * go on with the next one. Three failures end the row as an error; so do
 * fewer than three good repetitions (row_emit()).
 */
#define MAX_REP_FAILS 3

static bool rep_failed(struct row *r, const char *err, int rep)
{
	r->fails++;
	if (r->fails <= 2)
		row_note(r, "repetition %d failed: %s.", rep, err);
	fprintf(stderr, "bench: row %s: repetition %d failed: %s\n", r->id, rep, err);
	if (r->fails < MAX_REP_FAILS)
		return false;
	row_fail(r, "error", "%d repetitions failed", r->fails);
	return true;
}

static void row_extra(struct row *r, const char *key, double v)
{
	int i;

	for (i = 0; i < r->nextra; i++)
		if (!strcmp(r->extra[i].key, key))
			break;
	if (i == r->nextra) {
		if (r->nextra == MAX_EXTRA)
			return;
		snprintf(r->extra[i].key, sizeof(r->extra[i].key), "%s", key);
		r->nextra++;
	}
	series_add(&r->extra[i].s, v);
}

static void row_pair(struct row *r, double a, double b)
{
	series_add(&r->a, a);
	series_add(&r->b, b);
	series_add(&r->ratio, b != 0 ? a / b : NAN);
}

static void jb_summary(struct jbuf *j, const char *key, const char *label,
		       const char *unit, const struct series *s)
{
	struct summary m = summarize(s);

	jb_open(j, key);
	if (label)
		jb_str(j, "label", label);
	if (unit)
		jb_str(j, "unit", unit);
	jb_num(j, "median", m.median);
	jb_num(j, "min", m.min);
	jb_num(j, "max", m.max);
	jb_num(j, "q1", m.q1);
	jb_num(j, "q3", m.q3);
	jb_num(j, "n", m.n);
	jb_close(j);
}

static void row_emit(struct row *r)
{
	struct summary ra = summarize(&r->a), rr = summarize(&r->ratio);
	struct jbuf j = { 0 };
	double metric;
	int met = -1, i;

	if (!strcmp(r->status, "ok") && r->fails && r->a.n < 3)
		row_fail(r, "error", "only %d good repetitions", r->a.n);
	if (!strcmp(r->status, "error"))
		g_errors++;
	if (g_smoke) {
		bool ok = strcmp(r->status, "error") != 0;

		if (*r->note)
			printf("# row %s: %s\n", r->id, r->note);
		printf("%s %d row %s: %s%s\n", ok ? "ok" : "not ok", ++g_tap_n,
		       r->id, r->title, ok ? "" : " (error)");
		fflush(stdout);
		return;
	}
	metric = r->target_on_a ? ra.median : rr.median;
	if (r->op != T_NONE && !strcmp(r->status, "ok") && isfinite(metric))
		met = r->op == T_GE ? metric >= r->target : metric <= r->target;

	jb_open(&j, NULL);
	jb_str(&j, "row", r->id);
	jb_str(&j, "title", r->title);
	jb_str(&j, "compared", r->what);
	jb_str(&j, "status", r->status);
	jb_summary(&j, "a", r->a_label, r->a_unit, &r->a);
	jb_summary(&j, "b", r->b_label, r->b_unit, &r->b);
	jb_summary(&j, "ratio", r->ratio_def, NULL, &r->ratio);
	jb_open(&j, "target");
	jb_str(&j, "text", r->target_text);
	jb_str(&j, "applies_to", r->op == T_NONE ? NULL :
				 r->target_on_a ? "a" : "ratio");
	jb_str(&j, "op", r->op == T_GE ? ">=" : r->op == T_LE ? "<=" : NULL);
	jb_num(&j, "value", r->op == T_NONE ? NAN : r->target);
	jb_close(&j);
	jb_bool(&j, "met", met);
	jb_str(&j, "note", r->note);
	jb_open(&j, "breakdown");
	for (i = 0; i < r->nextra; i++)
		jb_num(&j, r->extra[i].key, summarize(&r->extra[i].s).median);
	jb_close(&j);
	jb_close(&j);
	printf("=== PTO-BENCH-ROW %.*s\n", (int)j.len, j.p);
	fflush(stdout);
	fprintf(stderr, "bench: row %-3s %-40s a=%.4g %s b=%.4g %s ratio=%.3g %s\n",
		r->id, r->title, ra.median, r->a_unit ? r->a_unit : "",
		summarize(&r->b).median, r->b_unit ? r->b_unit : "",
		rr.median,
		met < 0 ? r->status : met ? "MET" : "MISSED");
	free(j.p);
}

/* ------------------------------------------------------------ device */

struct bench {
	struct pto_device *dev;
	struct pto_device_info info;
	struct pto_queue *q;
	struct pto_cqe *cqe;
	size_t ncqe;
	unsigned int aiv, aic, clusters;
	struct pto_kernel *k_empty_aiv;
	struct pto_kernel *k_empty_aic;
	struct pto_kernel *k_gate;
	struct pto_tensor *gate_ws;
	uint64_t gate_retired;
	int reps;
	bool quick;
	char err[512];
};

static int64_t now_ns(void)
{
	return pto_time_ns();
}

static void berr(struct bench *B, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void berr(struct bench *B, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(B->err, sizeof(B->err), fmt, ap);
	va_end(ap);
}

static int query_counters(struct bench *B, struct drm_pto_npu_counters *c)
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

static struct pto_insn insn(uint8_t op, uint8_t dst, uint8_t a, uint8_t b,
			    uint8_t mode, uint16_t flags, int64_t imm)
{
	struct pto_insn i = { .op = op, .dst = dst, .a = a, .b = b,
			      .mode = mode, .flags = flags, .imm = imm };
	return i;
}

static int kernel_raw(struct bench *B, enum pto_core_type ct,
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

static int kb_done(struct bench *B, struct pto_kb *kb, const char *what,
		   struct pto_kernel **out)
{
	int ret = pto_kb_finish(kb, out);

	if (ret)
		berr(B, "kernel %s: %s", what,
		     *pto_kb_error(kb) ? pto_kb_error(kb) : pto_strerror(ret));
	pto_kb_free(kb);
	return ret;
}

static int push(struct bench *B, const struct pto_task_desc *d)
{
	int ret = pto_queue_push_task(B->q, d);

	if (ret)
		berr(B, "push task: %s", pto_strerror(ret));
	return ret;
}

static int doorbell(struct bench *B, uint32_t expect, uint64_t *first_id)
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
static int drain(struct bench *B, unsigned int ntasks, bool skip_ok)
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
static double makespan_ns(const struct bench *B)
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
static void block_spans(struct bench *B, struct row *r, const char *pfx)
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
static double median_kernel_us(struct bench *B)
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

static struct pto_task_desc empty_task(struct bench *B)
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
static int gate_push(struct bench *B, uint32_t flags)
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
static int gate_open(struct bench *B)
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
static void gate_force(struct bench *B)
{
	int32_t *c = pto_tensor_data(B->gate_ws);

	__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
}

/*
 * gate_open() failed: release the gate and reap the @ntasks tasks behind
 * it, so that the next repetition starts on an empty queue; the error
 * reported stays gate_open()'s.
 */
static void gate_abort(struct bench *B, unsigned int ntasks)
{
	char err[sizeof(B->err)];

	memcpy(err, B->err, sizeof(err));
	gate_force(B);
	drain(B, ntasks, true);
	memcpy(B->err, err, sizeof(err));
}

/* ------------------------------------------------------------ row 1 */

static double null_ioctl_us(struct bench *B, int n)
{
	int fd = pto_device_fd(B->dev), i;
	int64_t t0 = now_ns();

	for (i = 0; i < n; i++) {
		struct drm_pto_npu_query q = { .type = DRM_PTO_NPU_QUERY_DEVICE };

		if (ioctl(fd, DRM_IOCTL_PTO_NPU_QUERY, &q))
			return NAN;
	}
	return (double)(now_ns() - t0) / 1e3 / n;
}

/* Push @n empty tasks, ring once, drain; times per task in us. */
static int empty_batch(struct bench *B, struct row *r, unsigned int n,
		       const char *pfx, double *per_task_us)
{
	struct pto_task_desc d = empty_task(B);
	int64_t t0, t1, t2, t3;
	unsigned int i;
	char key[64];
	int ret;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		if ((ret = push(B, &d)))
			return ret;
	t1 = now_ns();
	if ((ret = doorbell(B, n, NULL)))
		return ret;
	t2 = now_ns();
	if ((ret = drain(B, n, false)))
		return ret;
	t3 = now_ns();
	*per_task_us = (double)(t3 - t0) / 1e3 / n;
	if (r && pfx) {
		snprintf(key, sizeof(key), "%s_push_us_per_task", pfx);
		row_extra(r, key, (double)(t1 - t0) / 1e3 / n);
		snprintf(key, sizeof(key), "%s_doorbell_intake_us_per_task", pfx);
		row_extra(r, key, (double)(t2 - t1) / 1e3 / n);
		snprintf(key, sizeof(key), "%s_drain_after_doorbell_us_per_task", pfx);
		row_extra(r, key, (double)(t3 - t2) / 1e3 / n);
		snprintf(key, sizeof(key), "%s_device_makespan_us_per_task", pfx);
		row_extra(r, key, makespan_ns(B) / 1e3 / n);
		block_spans(B, r, pfx);
	}
	return 0;
}

static void row1_overhead(struct bench *B)
{
	unsigned int n = B->quick ? 500 : 2000;
	int nio = B->quick ? 2000 : 10000, rep;
	static char what[160];
	struct row r;
	double task_us, io_us;

	row_init(&r);
	r.id = "1";
	r.title = "per-task overhead vs null ioctl";
	snprintf(what, sizeof(what),
		 "empty AIV task (END), %u per doorbell, push to last CQE vs DRM_IOCTL_PTO_NPU_QUERY size 0",
		 n);
	r.what = what;
	r.a_label = "empty task";
	r.a_unit = "us/task";
	r.b_label = "null ioctl";
	r.b_unit = "us/call";
	r.ratio_def = "task / null ioctl";
	r.op = T_LE;
	r.target = 2.0;
	r.target_text = "task <= 2 x null ioctl";

	/* Warm up: page in the rings, spawn the workers. */
	if (empty_batch(B, NULL, n, NULL, &task_us)) {
		row_fail(&r, "error", "%s", B->err);
		row_emit(&r);
		return;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double t2, io2;

		io_us = null_ioctl_us(B, nio);
		if (empty_batch(B, &r, n, "task", &task_us) ||
		    empty_batch(B, &r, n, "task", &t2)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		io2 = null_ioctl_us(B, nio);
		row_pair(&r, (task_us + t2) / 2, (io_us + io2) / 2);
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 13 */

/*
 * @n empty tasks with one tensor (the gate's workspace, never touched by
 * the empty kernel): @chain orders each after the previous, by a named
 * dependency or (@dirs) by an INOUT direction; otherwise they are
 * independent, no dependency or (@dirs) all reading the tensor (IN: no
 * edge, but each read range enters the context's trees). Push to last CQE,
 * us per task.
 */
static int infer_batch(struct bench *B, unsigned int n, bool chain, bool dirs,
		       double *per_task_us)
{
	static const int64_t prev = -1;
	const uint8_t dir = chain ? PTO_ARG_INOUT : PTO_ARG_IN;
	struct pto_task_desc d = empty_task(B);
	struct pto_tensor *t = B->gate_ws;
	int64_t t0;
	unsigned int i;
	int ret;

	d.tensors = &t;
	d.num_tensors = 1;
	d.tensor_dirs = dirs ? &dir : NULL;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		d.deps = chain && !dirs && i ? &prev : NULL;
		d.num_deps = chain && !dirs && i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	if ((ret = doorbell(B, n, NULL)) || (ret = drain(B, n, false)))
		return ret;
	*per_task_us = (double)(now_ns() - t0) / 1e3 / n;
	return 0;
}

static void row13_infer(struct bench *B)
{
	unsigned int n = B->quick ? 500 : 2000;
	static char what[200];
	struct row r;
	double c_dir, c_exp, f_dir, f_exp;
	int rep;

	row_init(&r);
	r.id = "13";
	r.title = "dependency inference overhead per task";
	snprintf(what, sizeof(what),
		 "%u empty tasks with one tensor, a chain by INOUT directions vs by named deps (-1); independent: IN vs none, in extras",
		 n);
	r.what = what;
	r.a_label = "inferred chain";
	r.a_unit = "us/task";
	r.b_label = "explicit chain";
	r.b_unit = "us/task";
	r.ratio_def = "inferred / explicit";
	r.op = T_LE;
	r.target = 1.25;
	r.target_text = "inferred <= 1.25 x explicit";
	if (infer_batch(B, n, true, true, &c_dir)) {
		row_fail(&r, "error", "%s", B->err);
		row_emit(&r);
		return;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double c_dir2, c_exp2;

		if (infer_batch(B, n, true, false, &c_exp) ||
		    infer_batch(B, n, true, true, &c_dir) ||
		    infer_batch(B, n, true, true, &c_dir2) ||
		    infer_batch(B, n, true, false, &c_exp2) ||
		    infer_batch(B, n, false, false, &f_exp) ||
		    infer_batch(B, n, false, true, &f_dir)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_extra(&r, "independent_in_us_per_task", f_dir);
		row_extra(&r, "independent_none_us_per_task", f_exp);
		row_pair(&r, (c_dir + c_dir2) / 2, (c_exp + c_exp2) / 2);
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 2 */

static int fan_or_chain(struct bench *B, struct row *r, unsigned int n,
			bool chain, double *tps)
{
	static const int64_t prev = -1;
	struct pto_task_desc d = empty_task(B);
	int64_t t0, t1, t2;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		d.deps = chain && i ? &prev : NULL;
		d.num_deps = chain && i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	t0 = now_ns();
	if ((ret = doorbell(B, n, NULL)))
		return ret;
	t1 = now_ns();
	if ((ret = drain(B, n, false)))
		return ret;
	t2 = now_ns();
	*tps = n / ((double)(t2 - t0) / 1e9);
	row_extra(r, chain ? "chain_doorbell_intake_us_per_task" :
			     "fan_doorbell_intake_us_per_task",
		  (double)(t1 - t0) / 1e3 / n);
	row_extra(r, chain ? "chain_device_tasks_per_s" : "fan_device_tasks_per_s",
		  n / (makespan_ns(B) / 1e9));
	block_spans(B, r, chain ? "chain" : "fan");
	return 0;
}

static void row2_throughput(struct bench *B)
{
	unsigned int n = B->quick ? 500 : 2000;
	static char what[160];
	struct row r;
	double fan, chain;
	int rep;

	row_init(&r);
	r.id = "2";
	r.title = "scheduler throughput: chain vs fan";
	snprintf(what, sizeof(what),
		 "%u empty tasks, each depending on the previous (chain) vs %u independent (fan); doorbell to last CQE",
		 n, n);
	r.what = what;
	r.a_label = "chain";
	r.a_unit = "tasks/s";
	r.b_label = "fan";
	r.b_unit = "tasks/s";
	r.ratio_def = "chain / fan";
	r.op = T_GE;
	r.target = 0.5;
	r.target_text = "chain >= 50% of fan";
	for (rep = 0; rep < B->reps; rep++) {
		double fan2, chain2;

		if (fan_or_chain(B, &r, n, false, &fan) ||
		    fan_or_chain(B, &r, n, true, &chain) ||
		    fan_or_chain(B, &r, n, true, &chain2) ||
		    fan_or_chain(B, &r, n, false, &fan2)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		/* Rates: average the times, not the rates. */
		row_pair(&r, 2 / (1 / chain + 1 / chain2), 2 / (1 / fan + 1 / fan2));
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 3 */

/*
 * Where a form's time went, from its CQEs' timestamps (the kernel's
 * CLOCK_MONOTONIC, as now_ns()): push to the first block's dispatch, the
 * first block's start to the last one's finish, and that to the drain's end.
 */
struct form_spans {
	double to_dispatch_us, blocks_us, to_drained_us;
};

static void form_spans(const struct bench *B, int64_t t0, int64_t t2,
		       struct form_spans *fs)
{
	uint64_t disp = UINT64_MAX, start = UINT64_MAX, fin = 0;
	size_t i;

	for (i = 0; i < B->ncqe && i < CQE_CAP; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (b->ts_dispatch && b->ts_dispatch < disp)
			disp = b->ts_dispatch;
		if (b->ts_start && b->ts_start < start)
			start = b->ts_start;
		if (b->ts_finish > fin)
			fin = b->ts_finish;
	}
	if (disp == UINT64_MAX || start == UINT64_MAX || !fin) {
		fs->to_dispatch_us = fs->blocks_us = fs->to_drained_us = NAN;
		return;
	}
	fs->to_dispatch_us = ((double)disp - (double)t0) / 1e3;
	fs->blocks_us = ((double)fin - (double)start) / 1e3;
	fs->to_drained_us = ((double)t2 - (double)fin) / 1e3;
}

/* @n single-block tasks, or one task of @n blocks; us from push to last CQE. */
static int spmd_form(struct bench *B, unsigned int n, bool spmd, double *us,
		     uint64_t *dispatches, uint64_t *intake_ns,
		     struct form_spans *fs)
{
	struct pto_task_desc d = empty_task(B);
	struct drm_pto_npu_counters c0, c1;
	unsigned int i, tasks = spmd ? 1 : n;
	int64_t t0, t1, t2;
	int ret;

	if ((ret = query_counters(B, &c0))) {
		berr(B, "counters: %s", pto_strerror(ret));
		return ret;
	}
	d.block_num = spmd ? n : 1;
	t0 = now_ns();
	for (i = 0; i < tasks; i++)
		if ((ret = push(B, &d)))
			return ret;
	if ((ret = doorbell(B, tasks, NULL)))
		return ret;
	t1 = now_ns();
	if ((ret = drain(B, tasks, false)))
		return ret;
	t2 = now_ns();
	query_counters(B, &c1);
	*us = (double)(t2 - t0) / 1e3;
	*dispatches = c1.dispatches - c0.dispatches;
	*intake_ns = t1 - t0;
	form_spans(B, t0, t2, fs);
	return 0;
}

static void row3_spmd(struct bench *B, unsigned int n)
{
	static char ids[3][8], what[3][200];
	static int slot;
	unsigned int inner = 960 / n, k;
	struct row r;
	int rep;

	if (inner < 1)
		inner = 1;
	if (inner > 25)
		inner = 25;
	if (B->quick && inner > 5)
		inner = 5;
	row_init(&r);
	snprintf(ids[slot], sizeof(ids[slot]), "3.%u", n);
	snprintf(what[slot], sizeof(what[slot]),
		 "%u single-block empty AIV tasks vs one SPMD task of %u blocks, one doorbell each form, push to last CQE (mean of %u runs of each per repetition, order A B B A)",
		 n, n, inner);
	r.id = ids[slot];
	r.what = what[slot];
	slot = (slot + 1) % 3;
	r.title = n == 48 ? "N dispatches vs SPMD, N = 48" :
		  n == 4 ? "N dispatches vs SPMD, N = 4" :
			   "N dispatches vs SPMD, N = 480";
	r.a_label = "N tasks";
	r.a_unit = "us";
	r.b_label = "1 SPMD task";
	r.b_unit = "us";
	r.ratio_def = "N tasks / SPMD";
	if (n == 48) {
		r.op = T_GE;
		r.target = 4.0;
		r.target_text = "N tasks >= 4 x SPMD (N = 48)";
	} else {
		r.target_text = "none (target is for N = 48)";
	}
	for (rep = 0; rep < B->reps; rep++) {
		double sa = 0, sb = 0, us;
		uint64_t da = 0, db = 0, disp, intake;
		double ia = 0, ib = 0;
		struct form_spans fs, sum[2] = {};
		bool bad = false;
		int f;

		/* A B, then B A: the order alternates run by run. */
		for (k = 0; k < 2 * inner; k++) {
			bool spmd = (k & 1) ^ ((k >> 1) & 1);

			if (spmd_form(B, n, spmd, &us, &disp, &intake, &fs)) {
				bad = true;
				break;
			}
			sum[spmd].to_dispatch_us += fs.to_dispatch_us;
			sum[spmd].blocks_us += fs.blocks_us;
			sum[spmd].to_drained_us += fs.to_drained_us;
			if (spmd) {
				sb += us;
				db = disp;
				ib += intake / 1e3;
			} else {
				sa += us;
				da = disp;
				ia += intake / 1e3;
			}
		}
		if (bad) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_pair(&r, sa / inner, sb / inner);
		row_extra(&r, "n_tasks_dispatches", (double)da);
		row_extra(&r, "spmd_dispatches", (double)db);
		row_extra(&r, "n_tasks_push_and_doorbell_us", ia / inner);
		row_extra(&r, "spmd_push_and_doorbell_us", ib / inner);
		row_extra(&r, "n_tasks_us_per_block", sa / inner / n);
		row_extra(&r, "spmd_us_per_block", sb / inner / n);
		for (f = 0; f < 2; f++) {
			const char *pfx = f ? "spmd" : "n_tasks";
			char key[64];

			snprintf(key, sizeof(key), "%s_push_to_first_dispatch_us", pfx);
			row_extra(&r, key, sum[f].to_dispatch_us / inner);
			snprintf(key, sizeof(key), "%s_first_start_to_last_finish_per_block_us", pfx);
			row_extra(&r, key, sum[f].blocks_us / inner / n);
			snprintf(key, sizeof(key), "%s_last_finish_to_drained_us", pfx);
			row_extra(&r, key, sum[f].to_drained_us / inner);
		}
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 4 */

/*
 * Cube + vector work: out[r] = (A x Bm)[r] + bias[r % TR], or with @exp
 * out[r] = exp((A x Bm)[r] + bias[r % TR]) (an attention-score epilogue).
 */
#ifndef MM4_K
#define MM4_K 24
#endif

struct mm_shape {
	unsigned int tr, kd, nd, t, blocks, slots;
	bool exp;
};

/*
 * AIC: for each of its t row tiles: TLOAD a, MATMUL, then TSTORE to C
 * (two-task form) or PUSH into the ring (mixed form).
 */
static int build_cube(struct bench *B, const struct mm_shape *s, bool mixed,
		      struct pto_kernel **out)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	if (pto_kb_new(B->dev, PTO_CORE_AIC, &kb)) {
		berr(B, "kernel builder");
		return -ENOMEM;
	}
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, s->tr, s->kd);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, s->kd, s->nd);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, s->tr, s->nd);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, (int64_t)s->t * s->tr);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, tb, 1, 1, 1);
	pto_kb_loopi(kb, 2, s->t);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 2, s->tr);
	pto_kb_alu(kb, PTO_ALU_ADD, 3, 3, 0);
	pto_kb_tload(kb, ta, 0, 3, 1);
	pto_kb_matmul(kb, tc, ta, tb, false);
	if (mixed)
		pto_kb_push(kb, tc);
	else
		pto_kb_tstore(kb, tc, 2, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return kb_done(B, kb, mixed ? "cube_push" : "cube_store", out);
}

/*
 * AIV: half of every row tile (sub-block 0 the upper, 1 the lower half):
 * POP it from the ring (mixed) or TLOAD it from C (two-task), add the
 * bias rows, TSTORE to out. Two-task blocks are (cluster, sub) pairs:
 * block j = 2 * cluster + sub, so both forms do the same work per core.
 * Tensor args: two-task C=0 bias=1 out=2; mixed (shared with the cube
 * kernel's A=0 B=1) bias=2 out=3.
 */
static int build_vec(struct bench *B, const struct mm_shape *s, bool mixed,
		     struct pto_kernel **out)
{
	unsigned int half = s->tr / 2, a_bias = mixed ? 2 : 1, a_out = mixed ? 3 : 2;
	struct pto_kb *kb;
	int tp, tbias, tout;

	if (pto_kb_new(B->dev, PTO_CORE_AIV, &kb)) {
		berr(B, "kernel builder");
		return -ENOMEM;
	}
	tp = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, half, s->nd);
	tbias = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, half, s->nd);
	tout = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, half, s->nd);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	if (mixed) {
		pto_kb_sreg(kb, 6, PTO_SREG_SUB_BLOCK_ID);
	} else {
		pto_kb_alui(kb, PTO_ALU_AND, 6, 0, 1);
		pto_kb_alui(kb, PTO_ALU_SHR, 0, 0, 1);
	}
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, (int64_t)s->t * s->tr);
	pto_kb_alui(kb, PTO_ALU_MUL, 7, 6, half);
	pto_kb_alu(kb, PTO_ALU_ADD, 0, 0, 7);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, tbias, a_bias, 7, 1);
	pto_kb_loopi(kb, 2, s->t);
	pto_kb_alui(kb, PTO_ALU_MUL, 3, 2, s->tr);
	pto_kb_alu(kb, PTO_ALU_ADD, 3, 3, 0);
	if (mixed)
		pto_kb_pop(kb, tp);
	else
		pto_kb_tload(kb, tp, 0, 3, 1);
	pto_kb_tbin(kb, PTO_TBIN_ADD, tout, tp, tbias);
	if (s->exp)
		pto_kb_tunary(kb, PTO_TUNARY_EXP, tout, tout);
	pto_kb_tstore(kb, tout, a_out, 3, 1);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return kb_done(B, kb, mixed ? "vec_pop_add" : "vec_load_add", out);
}

static struct pto_tensor *tensor2(struct bench *B, enum pto_dtype dt,
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

static void fill_f32(struct pto_tensor *t, unsigned int seed)
{
	float *p = pto_tensor_data(t);
	size_t i, n = pto_tensor_numel(t);

	for (i = 0; i < n; i++)
		p[i] = (float)(((i + seed) * 2654435761u) % 2000u) / 1000.0f - 1.0f;
}

/* Spot-check out = A x Bm + bias (or its exp) at a few places. */
static bool check_mm_add(const struct mm_shape *s, struct pto_tensor *a,
			 struct pto_tensor *bm, struct pto_tensor *bias,
			 struct pto_tensor *out)
{
	const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(bm);
	const float *pbias = pto_tensor_data(bias), *po = pto_tensor_data(out);
	size_t rows = (size_t)s->blocks * s->t * s->tr;
	unsigned int k, probe;

	for (probe = 0; probe < 16; probe++) {
		size_t r = (probe * 7919u) % rows, c = (probe * 104729u) % s->nd;
		double ref = pbias[(r % s->tr) * s->nd + c], mag = fabs(ref);

		for (k = 0; k < s->kd; k++) {
			double p = (double)pa[r * s->kd + k] * pb[k * s->nd + c];

			ref += p;
			mag += fabs(p);
		}
		if (s->exp) {
			/* d exp(x) = exp(x) dx; exp itself is within 1 ulp. */
			double e = exp(ref);

			if (fabs(po[r * s->nd + c] - e) > e * (1e-4 * mag + 1e-6))
				return false;
			continue;
		}
		if (fabs(po[r * s->nd + c] - ref) > 1e-4 * mag + 1e-6)
			return false;
	}
	return true;
}

/*
 * Timeline of a cube + vector run, us after the first dispatch: last AIC
 * start, last AIC end, first AIV start, last AIV end.
 */
static void mm_timeline(struct bench *B, struct row *r, const char *pfx)
{
	uint64_t t0 = UINT64_MAX, aic_start = 0, aic_end = 0;
	uint64_t aiv_start = UINT64_MAX, aiv_end = 0;
	char key[80];
	size_t i;

	for (i = 0; i < B->ncqe; i++) {
		const struct pto_block_info *b = &B->cqe[i].info;

		if (!(b->flags & PTO_BLOCK_RAN))
			continue;
		if (b->ts_dispatch < t0)
			t0 = b->ts_dispatch;
		if (b->core_type == PTO_CORE_AIC) {
			if (b->ts_start > aic_start)
				aic_start = b->ts_start;
			if (b->ts_end > aic_end)
				aic_end = b->ts_end;
		} else {
			if (b->ts_start < aiv_start)
				aiv_start = b->ts_start;
			if (b->ts_end > aiv_end)
				aiv_end = b->ts_end;
		}
	}
	if (t0 == UINT64_MAX || aiv_start == UINT64_MAX)
		return;
	snprintf(key, sizeof(key), "%s_last_aic_start_us", pfx);
	row_extra(r, key, (double)(aic_start - t0) / 1e3);
	snprintf(key, sizeof(key), "%s_last_aic_end_us", pfx);
	row_extra(r, key, (double)(aic_end - t0) / 1e3);
	snprintf(key, sizeof(key), "%s_first_aiv_start_us", pfx);
	row_extra(r, key, (double)(aiv_start - t0) / 1e3);
	snprintf(key, sizeof(key), "%s_last_aiv_end_us", pfx);
	row_extra(r, key, (double)(aiv_end - t0) / 1e3);
}

static void row4_mixed(struct bench *B, const char *id, const char *title,
		       struct mm_shape s, bool with_target)
{
	struct pto_kernel *k_cube = NULL, *k_vec = NULL, *k_mcube = NULL, *k_mvec = NULL;
	struct pto_tensor *a = NULL, *bm = NULL, *c = NULL, *bias = NULL, *out = NULL;
	static char what[3][400];
	static int slot;
	size_t rows = (size_t)s.blocks * s.t * s.tr;
	char msg[256] = "";
	struct row r;
	unsigned int slots = s.slots;
	int rep, ret;

	row_init(&r);
	r.id = id;
	r.title = title;
	snprintf(what[slot], sizeof(what[slot]),
		 "out = %sA x B + bias%s over %zu x %u f32 (%u blocks x %u tiles of %ux%ux%u): AIC matmul task writing GM + dependent AIV %s task (%u blocks) vs one mixed task (AIC PUSH -> 2 AIV POP + %s, UP_DOWN, slot_num %u); device makespan",
		 s.exp ? "exp(" : "", s.exp ? ")" : "", rows, s.nd, s.blocks,
		 s.t, s.tr, s.kd, s.nd, s.exp ? "add+exp" : "add",
		 2 * s.blocks, s.exp ? "add+exp" : "add", slots);
	r.what = what[slot];
	slot = (slot + 1) % 3;
	r.a_label = "two tasks";
	r.a_unit = "us";
	r.b_label = "mixed task";
	r.b_unit = "us";
	r.ratio_def = "two tasks / mixed";
	if (with_target) {
		r.op = T_GE;
		r.target = 1.3;
		r.target_text = "two tasks >= 1.3 x mixed";
		if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
			row_note(&r, "one vCPU: the cube and vector halves cannot run at the same time, so there is no overlap to measure (make bench runs this row on BENCH_SMP_PAR vCPUs).");
	} else {
		r.target_text = "none (diagnostic)";
	}

	if (!(a = tensor2(B, PTO_DTYPE_F32, rows, s.kd)) ||
	    !(bm = tensor2(B, PTO_DTYPE_F32, s.kd, s.nd)) ||
	    !(c = tensor2(B, PTO_DTYPE_F32, rows, s.nd)) ||
	    !(bias = tensor2(B, PTO_DTYPE_F32, s.tr, s.nd)) ||
	    !(out = tensor2(B, PTO_DTYPE_F32, rows, s.nd))) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	fill_f32(a, 1);
	fill_f32(bm, 2);
	fill_f32(bias, 3);
	if (build_cube(B, &s, false, &k_cube) || build_vec(B, &s, false, &k_vec)) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	if (build_cube(B, &s, true, &k_mcube) || build_vec(B, &s, true, &k_mvec)) {
		row_fail(&r, "not measured",
			 "mixed kernels (PUSH/POP) not available: %s", B->err);
		goto done;
	}
	ret = pto_mixed_check(k_mcube, k_mvec, PTO_SPLIT_UP_DOWN, slots, msg,
			      sizeof(msg));
	if (ret) {
		row_fail(&r, "not measured", "mixed task refused by libpto: %s",
			 msg);
		goto done;
	}

	for (rep = 0; rep <= B->reps; rep++) {
		struct pto_tensor *t_mm[3] = { a, bm, c };
		struct pto_tensor *t_add[3] = { c, bias, out };
		struct pto_tensor *t_mix[4] = { a, bm, bias, out };
		static const int64_t prev = -1;
		struct pto_task_desc dm = { .kernel_aic = k_cube,
					    .block_num = s.blocks,
					    .tensors = t_mm, .num_tensors = 3 };
		struct pto_task_desc da = { .kernel_aiv = k_vec,
					    .block_num = 2 * s.blocks,
					    .tensors = t_add, .num_tensors = 3,
					    .deps = &prev, .num_deps = 1 };
		struct pto_task_desc dx = { .kernel_aic = k_mcube,
					    .kernel_aiv = k_mvec,
					    .block_num = s.blocks,
					    .tensors = t_mix, .num_tensors = 4,
					    .split_mode = PTO_SPLIT_UP_DOWN,
					    .slot_num = slots };
		uint64_t aic_end = 0, aiv_first = UINT64_MAX;
		double two, mix, aic_us = 0, aiv_us = 0;
		size_t i;

		memset(pto_tensor_data(out), 0, pto_tensor_nbytes(out));
		if (push(B, &dm) || push(B, &da) || doorbell(B, 2, NULL) ||
		    drain(B, 2, false)) {
			if (rep_failed(&r, B->err, rep))
				goto done;
			continue;
		}
		two = makespan_ns(B) / 1e3;
		if (!check_mm_add(&s, a, bm, bias, out))
			row_note(&r, "two-task result mismatch (rep %d).", rep);
		for (i = 0; i < B->ncqe; i++) {
			const struct pto_block_info *b = &B->cqe[i].info;

			if (b->core_type == PTO_CORE_AIC) {
				aic_us += (double)(b->ts_end - b->ts_start) / 1e3;
				if (b->ts_finish > aic_end)
					aic_end = b->ts_finish;
			} else {
				aiv_us += (double)(b->ts_end - b->ts_start) / 1e3;
				if (b->ts_start < aiv_first)
					aiv_first = b->ts_start;
			}
		}
		if (rep) {
			mm_timeline(B, &r, "two_task");
			row_extra(&r, "two_task_aic_kernel_us_per_block", aic_us / s.blocks);
			row_extra(&r, "two_task_aiv_kernel_us_per_block", aiv_us / (2 * s.blocks));
			row_extra(&r, "two_task_last_aic_finish_to_first_aiv_start_us",
				  ((double)aiv_first - (double)aic_end) / 1e3);
		}

		memset(pto_tensor_data(out), 0, pto_tensor_nbytes(out));
		if (push(B, &dx)) {
			row_fail(&r, "not measured", "mixed task: %s", B->err);
			goto done;
		}
		if (doorbell(B, 1, NULL) || drain(B, 1, false)) {
			if (rep_failed(&r, B->err, rep))
				goto done;
			continue;
		}
		mix = makespan_ns(B) / 1e3;
		if (!check_mm_add(&s, a, bm, bias, out))
			row_note(&r, "mixed result mismatch (rep %d).", rep);
		aic_us = aiv_us = 0;
		for (i = 0; i < B->ncqe; i++) {
			const struct pto_block_info *b = &B->cqe[i].info;

			if (b->core_type == PTO_CORE_AIC)
				aic_us += (double)(b->ts_end - b->ts_start) / 1e3;
			else
				aiv_us += (double)(b->ts_end - b->ts_start) / 1e3;
		}
		/* Repetition 0 warms up (first use of the cores' memory). */
		if (!rep)
			continue;
		mm_timeline(B, &r, "mixed");
		row_extra(&r, "mixed_aic_span_us_per_block", aic_us / s.blocks);
		row_extra(&r, "mixed_aiv_span_us_per_block", aiv_us / (2 * s.blocks));
		row_pair(&r, two, mix);
	}
done:
	row_emit(&r);
	pto_kernel_free(k_cube);
	pto_kernel_free(k_vec);
	pto_kernel_free(k_mcube);
	pto_kernel_free(k_mvec);
	pto_tensor_free(a);
	pto_tensor_free(bm);
	pto_tensor_free(c);
	pto_tensor_free(bias);
	pto_tensor_free(out);
}

/* ------------------------------------------------------------ row 5 */

static int predicated_batch(struct bench *B, struct row *r, unsigned int n,
			    struct pto_tensor *gate, int32_t value, double *us)
{
	struct pto_predicate pred = { .tensor = 0, .op = PTO_CMP_GT,
				      .row = 0, .col = 0, .literal = 0 };
	struct pto_task_desc d = empty_task(B);
	const char *pfx = value ? "dispatched" : "skipped";
	int64_t t0, t1, t2;
	unsigned int i;
	char key[64];
	int ret;

	*(int32_t *)pto_tensor_data(gate) = value;
	d.tensors = &gate;
	d.num_tensors = 1;
	d.predicate = &pred;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if ((ret = push(B, &d)))
			return ret;
	t1 = now_ns();
	if ((ret = doorbell(B, n, NULL)))
		return ret;
	t2 = now_ns();
	if ((ret = drain(B, n, true)))
		return ret;
	*us = (double)(now_ns() - t0) / 1e3 / n;
	for (i = 0; i < B->ncqe && i < n; i++) {
		int want = value ? PTO_STATUS_OK : PTO_STATUS_SKIPPED;

		if (B->cqe[i].info.status != want) {
			berr(B, "predicate %d: task ended %s", value,
			     pto_status_name(B->cqe[i].info.status));
			return -EIO;
		}
	}
	snprintf(key, sizeof(key), "%s_push_us_per_task", pfx);
	row_extra(r, key, (double)(t1 - t0) / 1e3 / n);
	snprintf(key, sizeof(key), "%s_doorbell_intake_us_per_task", pfx);
	row_extra(r, key, (double)(t2 - t1) / 1e3 / n);
	snprintf(key, sizeof(key), "%s_drain_after_doorbell_us_per_task", pfx);
	row_extra(r, key, *us - (double)(t2 - t0) / 1e3 / n);
	if (value)
		block_spans(B, r, pfx);
	return 0;
}

static void row5_predicate(struct bench *B)
{
	unsigned int n = B->quick ? 500 : 2000;
	struct pto_tensor *gate = tensor2(B, PTO_DTYPE_I32, 1, 16);
	static char what[200];
	double skip, run;
	struct row r;
	int rep;

	row_init(&r);
	r.id = "5";
	r.title = "skipped predicated task vs dispatched";
	snprintf(what, sizeof(what),
		 "%u empty AIV tasks with predicate gate[0,0] > 0, gate 0 (skipped) vs 1 (dispatched); push to last CQE per task",
		 n);
	r.what = what;
	r.a_label = "skipped";
	r.a_unit = "us/task";
	r.b_label = "dispatched";
	r.b_unit = "us/task";
	r.ratio_def = "skipped / dispatched";
	r.op = T_LE;
	r.target = 0.25;
	r.target_text = "skip <= 0.25 x dispatch";
	if (!gate) {
		row_fail(&r, "error", "%s", B->err);
		row_emit(&r);
		return;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double skip2, run2;

		if (predicated_batch(B, &r, n, gate, 0, &skip) ||
		    predicated_batch(B, &r, n, gate, 1, &run) ||
		    predicated_batch(B, &r, n, gate, 1, &run2) ||
		    predicated_batch(B, &r, n, gate, 0, &skip2)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_pair(&r, (skip + skip2) / 2, (run + run2) / 2);
	}
	row_emit(&r);
	pto_tensor_free(gate);
}

/* ------------------------------------------------------------ row 6 */

/*
 * The gate (held at its barrier until the whole chain has been taken),
 * then a chain of @len empty tasks. Gaps: ts_start of task i+1 minus
 * ts_end of task i, over the chain.
 */
static int chain_gaps(struct bench *B, struct row *r, unsigned int len,
		      bool early, double *gap_us)
{
	static const int64_t prev = -1;
	uint32_t fl = early ? PTO_TASK_EARLY_RESOLVE : 0;
	struct pto_task_desc d = empty_task(B);
	uint64_t first_id = 0, *st, *en;
	double *gaps, *pick;
	const char *pfx = early ? "on" : "off";
	unsigned int i, k = 0, staged = 0;
	char key[64];
	int ret;

	if ((ret = gate_push(B, fl)))
		return ret;
	d.flags = fl;
	d.deps = &prev;
	d.num_deps = 1;
	for (i = 0; i < len; i++)
		if ((ret = push(B, &d)))
			return ret;
	if ((ret = doorbell(B, len + 1, &first_id)))
		return ret;
	if ((ret = gate_open(B))) {
		gate_abort(B, len + 1);
		return ret;
	}
	if ((ret = drain(B, len + 1, false)))
		return ret;

	st = calloc(len, sizeof(*st));
	en = calloc(len, sizeof(*en));
	gaps = calloc(len, sizeof(*gaps));
	pick = calloc(len, sizeof(*pick));
	if (!st || !en || !gaps || !pick) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < B->ncqe; i++) {
		const struct pto_cqe *c = &B->cqe[i];
		uint64_t idx = c->task_id - first_id;

		if (idx < 1 || idx > len)
			continue;
		st[idx - 1] = c->info.ts_start;
		en[idx - 1] = c->info.ts_end;
		pick[k++] = (double)(c->info.ts_start - c->info.ts_dispatch) / 1e3;
		staged += !!(c->info.flags & PTO_BLOCK_STAGED);
	}
	snprintf(key, sizeof(key), "%s_dispatch_to_start_us", pfx);
	row_extra(r, key, median_of(pick, k));
	snprintf(key, sizeof(key), "%s_staged_tasks", pfx);
	row_extra(r, key, staged);
	for (i = 0, k = 0; i + 1 < len; i++)
		gaps[k++] = ((double)st[i + 1] - (double)en[i]) / 1e3;
	*gap_us = median_of(gaps, k);
	snprintf(key, sizeof(key), "%s_chain_makespan_us_per_task", pfx);
	row_extra(r, key, ((double)en[len - 1] - (double)st[0]) / 1e3 / len);
out:
	free(st);
	free(en);
	free(gaps);
	free(pick);
	return ret;
}

static void row6_early(struct bench *B)
{
	/* Pre-staging needs idle cores: the gate holds one AIV. */
	unsigned int len = B->aiv > 8 ? B->aiv - 8 : 2;
	static char what[240];
	double off, on;
	struct row r;
	int rep;

	row_init(&r);
	r.id = "6";
	r.title = "early resolve: producer end -> consumer start";
	snprintf(what, sizeof(what),
		 "chain of %u empty AIV tasks taken behind a gate, median [end of task i -> start of task i+1] from CQE timestamps, allow_early_resolve off vs on",
		 len);
	r.what = what;
	r.a_label = "flag off";
	r.a_unit = "us";
	r.b_label = "flag on";
	r.b_unit = "us";
	r.ratio_def = "off / on";
	r.op = T_GE;
	r.target = 3.0;
	r.target_text = "gap >= 3 x smaller with the flag";
	for (rep = 0; rep < B->reps; rep++) {
		double off2, on2;

		if (chain_gaps(B, &r, len, false, &off) ||
		    chain_gaps(B, &r, len, true, &on) ||
		    chain_gaps(B, &r, len, true, &on2) ||
		    chain_gaps(B, &r, len, false, &off2)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_pair(&r, (off + off2) / 2, (on + on2) / 2);
	}
	row_emit(&r);
}

/* ------------------------------------------------------------ row 7 */

static int build_syncall(struct bench *B, bool soft, unsigned int k,
			 struct pto_kernel **out)
{
	struct pto_insn in[6];
	uint32_t n = 0;

	if (soft) {
		in[n++] = insn(PTO_OP_ARG, 1, 0, 0, 0, 0, 0);
		in[n++] = insn(PTO_OP_LOOP, 2, 0, 0, 0, PTO_INSN_F_IMM, k);
		in[n++] = insn(PTO_OP_SYNCALL, 0, 1, 0, PTO_SYNC_SOFT, 0, 0);
	} else {
		in[n++] = insn(PTO_OP_LOOP, 2, 0, 0, 0, PTO_INSN_F_IMM, k);
		in[n++] = insn(PTO_OP_SYNCALL, 0, 0, 0, PTO_SYNC_HARD, 0,
			       PTO_SYNC_AIV);
	}
	in[n++] = insn(PTO_OP_ENDLOOP, 0, 0, 0, 0, 0, 0);
	in[n++] = insn(PTO_OP_END, 0, 0, 0, 0, 0, 0);
	return kernel_raw(B, PTO_CORE_AIV, in, n, out);
}

static int barrier_tasks(struct bench *B, unsigned int k, double *per_us)
{
	static const int64_t prev = -1;
	struct pto_task_desc d = empty_task(B);
	unsigned int i;
	int ret;

	d.block_num = B->aiv;
	for (i = 0; i <= k; i++) {
		d.deps = i ? &prev : NULL;
		d.num_deps = i ? 1 : 0;
		if ((ret = push(B, &d)))
			return ret;
	}
	if ((ret = doorbell(B, k + 1, NULL)) || (ret = drain(B, k + 1, false)))
		return ret;
	*per_us = makespan_ns(B) / 1e3 / k;
	return 0;
}

static int barrier_kernel(struct bench *B, struct pto_kernel *kern,
			  struct pto_tensor *ws, unsigned int k, double *per_us)
{
	const int64_t used = B->aiv;
	struct pto_task_desc d = {
		.kernel_aiv = kern,
		.block_num = B->aiv,
		.flags = PTO_TASK_SYNC_START,
		.tensors = &ws,
		.num_tensors = ws ? 1 : 0,
		.scalars = &used,
		.num_scalars = 1,
	};
	int ret;

	if (ws)
		memset(pto_tensor_data(ws), 0, 64);
	if ((ret = push(B, &d)) || (ret = doorbell(B, 1, NULL)) ||
	    (ret = drain(B, 1, false)))
		return ret;
	*per_us = makespan_ns(B) / 1e3 / k;
	return 0;
}

static void row7_barrier(struct bench *B)
{
	unsigned int k = B->quick ? 8 : 32;
	struct pto_kernel *k_hard = NULL, *k_soft = NULL;
	struct pto_tensor *ws = tensor2(B, PTO_DTYPE_I32, 1, 16);
	static char what1[240], what2[240];
	struct row r1, r2;
	int rep;

	row_init(&r1);
	r1.id = "7a";
	r1.title = "two-task barrier vs in-kernel HARD syncall";
	snprintf(what1, sizeof(what1),
		 "per barrier: chain of %u+1 empty SPMD tasks over all %u AIVs (makespan / %u) vs one sync_start task of %u blocks running %u HARD syncalls (makespan / %u)",
		 k, B->aiv, k, B->aiv, k, k);
	r1.what = what1;
	r1.a_label = "two tasks";
	r1.a_unit = "us/barrier";
	r1.b_label = "HARD syncall";
	r1.b_unit = "us/barrier";
	r1.ratio_def = "two tasks / HARD";
	r1.op = T_GE;
	r1.target = 2.0;
	r1.target_text = "two-task barrier >= 2 x HARD";

	row_init(&r2);
	r2.id = "7b";
	r2.title = "SOFT vs HARD syncall";
	snprintf(what2, sizeof(what2),
		 "per barrier: %u SOFT syncalls (16 x int32 GM workspace, used_cores %u) vs %u HARD syncalls, one sync_start task of %u AIV blocks each",
		 k, B->aiv, k, B->aiv);
	r2.what = what2;
	r2.a_label = "SOFT";
	r2.a_unit = "us/barrier";
	r2.b_label = "HARD";
	r2.b_unit = "us/barrier";
	r2.ratio_def = "SOFT / HARD";
	r2.op = T_LE;
	r2.target = 3.0;
	r2.target_text = "SOFT <= 3 x HARD";

	if (!ws || build_syncall(B, false, k, &k_hard) ||
	    build_syncall(B, true, k, &k_soft)) {
		row_fail(&r1, "error", "%s", B->err);
		row_fail(&r2, "error", "%s", B->err);
		goto done;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double two, hard, soft, two2, hard2, soft2;

		if (barrier_tasks(B, k, &two) ||
		    barrier_kernel(B, k_hard, NULL, k, &hard) ||
		    barrier_kernel(B, k_soft, ws, k, &soft) ||
		    barrier_kernel(B, k_soft, ws, k, &soft2) ||
		    barrier_kernel(B, k_hard, NULL, k, &hard2) ||
		    barrier_tasks(B, k, &two2)) {
			bool stop = rep_failed(&r1, B->err, rep);

			if (rep_failed(&r2, B->err, rep) || stop)
				break;
			continue;
		}
		two = (two + two2) / 2;
		hard = (hard + hard2) / 2;
		soft = (soft + soft2) / 2;
		row_pair(&r1, two, hard);
		row_pair(&r2, soft, hard);
	}
done:
	row_emit(&r1);
	row_emit(&r2);
	pto_kernel_free(k_hard);
	pto_kernel_free(k_soft);
	pto_tensor_free(ws);
}

/* ------------------------------------------------------------ row 8 */

enum { R8_TR = 64, R8_COLS = 128 };

/* Block b: c[64b..] = a[64b..] + b[64b..]; without @add, c = a. */
static int row8_kernel(struct bench *B, bool add, struct pto_kernel **k)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	if (pto_kb_new(B->dev, PTO_CORE_AIV, &kb)) {
		berr(B, "kernel builder");
		return -ENOMEM;
	}
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, R8_TR, R8_COLS);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, R8_TR, R8_COLS);
	tc = add ? pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_UB, R8_TR, R8_COLS) :
		   ta;
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, R8_TR);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, ta, 0, 0, 1);
	pto_kb_tload(kb, tb, 1, 0, 1);
	if (add)
		pto_kb_tbin(kb, PTO_TBIN_ADD, tc, ta, tb);
	pto_kb_tstore(kb, tc, 2, 0, 1);
	pto_kb_end(kb);
	return kb_done(B, kb, add ? "add" : "copy", k);
}

static void row8_bandwidth(struct bench *B)
{
	enum { TR = R8_TR, COLS = R8_COLS };
	unsigned int blocks = B->quick ? B->aiv : 4 * B->aiv;
	size_t rows = (size_t)blocks * TR, bytes = rows * COLS * sizeof(float);
	struct pto_tensor *a = NULL, *b = NULL, *c = NULL;
	struct pto_kernel *k = NULL, *kcopy = NULL;
	char *src = NULL, *dst = NULL;
	static char what[240];
	struct row r;
	int rep;

	row_init(&r);
	r.id = "8";
	r.title = "elementwise add: device vs memcpy bandwidth";
	snprintf(what, sizeof(what),
		 "c = a + b, %zu x %u f32 (%u SPMD blocks of 64x128 tiles), bytes read+written / device makespan vs user-space memcpy of %zu MiB repeated for as long (2 x bytes / time)",
		 rows, COLS, blocks, bytes >> 20);
	r.what = what;
	r.a_label = "device add";
	r.a_unit = "GB/s";
	r.b_label = "memcpy";
	r.b_unit = "GB/s";
	r.ratio_def = "device / memcpy";
	r.op = T_GE;
	r.target = 0.3;
	r.target_text = "device >= 0.3 x memcpy";

	if (!(a = tensor2(B, PTO_DTYPE_F32, rows, COLS)) ||
	    !(b = tensor2(B, PTO_DTYPE_F32, rows, COLS)) ||
	    !(c = tensor2(B, PTO_DTYPE_F32, rows, COLS))) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	fill_f32(a, 5);
	fill_f32(b, 6);
	/* The add, and the same moves without it: what of a block is the add. */
	if (row8_kernel(B, true, &k) || row8_kernel(B, false, &kcopy)) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	src = malloc(bytes);
	dst = malloc(bytes);
	if (!src || !dst) {
		row_fail(&r, "error", "out of memory");
		goto done;
	}
	memset(src, 1, bytes);
	memset(dst, 2, bytes);

	for (rep = 0; rep <= B->reps; rep++) {
		struct pto_tensor *args[3] = { a, b, c };
		struct pto_task_desc d = { .kernel_aiv = k, .block_num = blocks,
					   .tensors = args, .num_tensors = 3 };
		struct pto_task_desc dc = d;
		double dev_gbs, cpu_gbs, best = INFINITY;
		int i;

		dc.kernel_aiv = kcopy;
		if (rep && !push(B, &dc) && !doorbell(B, 1, NULL) &&
		    !drain(B, 1, false))
			row_extra(&r, "device_copy_only_kernel_us",
				  median_kernel_us(B));
		if (push(B, &d) || doorbell(B, 1, NULL) || drain(B, 1, false)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		dev_gbs = 3.0 * bytes / makespan_ns(B);
		if (rep)
			block_spans(B, &r, "add");
		/*
		 * As long as the device ran, averaged like the device's time:
		 * a best-of-few would pick a quiet moment of a noisy host.
		 */
		{
			int64_t t0 = now_ns(), el;
			double dev_ns = 3.0 * bytes / dev_gbs;

			i = 0;
			do {
				memcpy(dst, src, bytes);
				__asm__ __volatile__("" : : "r"(dst) : "memory");
				src[i++ & 63] ^= 1;
				el = now_ns() - t0;
			} while (el < dev_ns);
			best = (double)el / i;
		}
		cpu_gbs = 2.0 * bytes / best;
		if (rep) {
			/* The f32 ceiling of this VM: the same add as a C loop. */
			const float *fa = pto_tensor_data(a), *fb = pto_tensor_data(b);
			float *fd = (float *)dst;
			size_t e, ne = bytes / sizeof(float);
			int64_t t0 = now_ns();

			for (e = 0; e < ne; e++)
				fd[e] = fa[e] + fb[e];
			__asm__ __volatile__("" : : "r"(fd) : "memory");
			row_extra(&r, "cpu_f32_add_loop_GBps",
				  3.0 * bytes / (double)(now_ns() - t0));
			row_extra(&r, "device_add_kernel_GBps_per_core",
				  3.0 * TR * COLS * sizeof(float) /
				  (median_kernel_us(B) * 1e3));
		}
		/* Repetition 0 warms up: GM pages, core memory, caches. */
		if (rep)
			row_pair(&r, dev_gbs, cpu_gbs);
	}
	{
		const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(b);
		const float *pc = pto_tensor_data(c);
		size_t i;

		for (i = 0; i < rows * COLS; i += 4099)
			if (pc[i] != pa[i] + pb[i]) {
				row_note(&r, "result mismatch at element %zu.", i);
				break;
			}
	}
done:
	row_emit(&r);
	free(src);
	free(dst);
	pto_kernel_free(k);
	pto_kernel_free(kcopy);
	pto_tensor_free(a);
	pto_tensor_free(b);
	pto_tensor_free(c);
}

/* ------------------------------------------------------------ row 9 */

#define MM 128

static void cpu_matmul(const float *a, const float *b, float *c)
{
	int i, j, k;

	for (i = 0; i < MM; i++)
		for (j = 0; j < MM; j++) {
			float s = 0;

			for (k = 0; k < MM; k++)
				s += a[i * MM + k] * b[k * MM + j];
			c[i * MM + j] = s;
		}
}

static void row9_matmul(struct bench *B)
{
	/* A third of the AICs: the device's time stays short, waves or not. */
	unsigned int blocks = B->aic >= 24 ? B->aic / 3 : B->aic;
	struct pto_tensor *a = NULL, *bm = NULL, *c = NULL;
	struct pto_kernel *k = NULL;
	static float ca[MM * MM], cb[MM * MM], cc[MM * MM];
	static char what[240];
	const double flop = 2.0 * MM * MM * MM;
	struct pto_kb *kb;
	struct row r;
	int rep, ta, tb, tc, i;

	row_init(&r);
	r.id = "9";
	r.title = "matmul 128x128x128: device vs CPU loop";
	snprintf(what, sizeof(what),
		 "f32 128x128x128 matmul: one SPMD AIC task of %u blocks (one matmul each), flops / device makespan vs a plain C triple loop (-O2) in user space, repeated for as long",
		 blocks);
	r.what = what;
	r.a_label = "device (AIC)";
	r.a_unit = "GFLOP/s";
	r.b_label = "CPU loop";
	r.b_unit = "GFLOP/s";
	r.ratio_def = "device / CPU";
	r.op = T_GE;
	r.target = 0.5;
	r.target_text = "device >= 0.5 x CPU loop";

	if (!(a = tensor2(B, PTO_DTYPE_F32, MM, MM)) ||
	    !(bm = tensor2(B, PTO_DTYPE_F32, MM, MM)) ||
	    !(c = tensor2(B, PTO_DTYPE_F32, (int64_t)blocks * MM, MM))) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	fill_f32(a, 7);
	fill_f32(bm, 8);
	memcpy(ca, pto_tensor_data(a), sizeof(ca));
	memcpy(cb, pto_tensor_data(bm), sizeof(cb));
	if (pto_kb_new(B->dev, PTO_CORE_AIC, &kb)) {
		row_fail(&r, "error", "kernel builder");
		goto done;
	}
	ta = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0A, MM, MM);
	tb = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0B, MM, MM);
	tc = pto_kb_tile(kb, PTO_DTYPE_F32, PTO_BUF_L0C, MM, MM);
	pto_kb_sreg(kb, 0, PTO_SREG_BLOCK_IDX);
	pto_kb_alui(kb, PTO_ALU_MUL, 0, 0, MM);
	pto_kb_ldi(kb, 1, 0);
	pto_kb_tload(kb, ta, 0, 1, 1);
	pto_kb_tload(kb, tb, 1, 1, 1);
	pto_kb_matmul(kb, tc, ta, tb, false);
	pto_kb_tstore(kb, tc, 2, 0, 1);
	pto_kb_end(kb);
	if (kb_done(B, kb, "matmul", &k)) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	for (rep = 0; rep <= B->reps; rep++) {
		struct pto_tensor *args[3] = { a, bm, c };
		struct pto_task_desc d = { .kernel_aic = k, .block_num = blocks,
					   .tensors = args, .num_tensors = 3 };
		double dev, best = INFINITY;

		if (push(B, &d) || doorbell(B, 1, NULL) || drain(B, 1, false)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		dev = flop * blocks / makespan_ns(B);
		if (rep)
			block_spans(B, &r, "matmul");
		/* As long as the device ran, averaged (see row 8). */
		{
			int64_t t0 = now_ns(), el;
			double dev_ns = flop * blocks / dev;

			i = 0;
			do {
				cpu_matmul(ca, cb, cc);
				__asm__ __volatile__("" : : "r"(cc) : "memory");
				ca[i++ & 63] += 1.0f / 1024;
				el = now_ns() - t0;
			} while (el < dev_ns);
			best = (double)el / i;
		}
		if (rep)
			row_pair(&r, dev, flop / best);
	}
	for (i = 0; i < MM * MM; i += 1031) {
		const float *pc = pto_tensor_data(c);
		const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(bm);
		double ref = 0, mag = 0;
		int kk;

		for (kk = 0; kk < MM; kk++) {
			ref += (double)pa[(i / MM) * MM + kk] * pb[kk * MM + i % MM];
			mag += fabs((double)pa[(i / MM) * MM + kk] * pb[kk * MM + i % MM]);
		}
		if (fabs(pc[i] - ref) > 1e-4 * mag + 1e-6) {
			row_note(&r, "result mismatch at element %d.", i);
			break;
		}
	}
done:
	row_emit(&r);
	pto_kernel_free(k);
	pto_tensor_free(a);
	pto_tensor_free(bm);
	pto_tensor_free(c);
}

/* ------------------------------------------------------------ row 10 */

/* Slab + VmallocUsed (+ Shmem with @shmem) from /proc/meminfo, bytes. */
static double kmem_bytes(bool shmem, double *slab_out, double *vmalloc_out)
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
static double spare_bytes(struct bench *B, bool *ok)
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

static void row10_memory(struct bench *B)
{
	unsigned int n = B->quick ? 2000 : 10000;
	unsigned int qslots = 65536;
	static char what[300];
	struct row r;
	int rep, reps = B->reps < 5 ? B->reps : 5;

	row_init(&r);
	r.id = "10";
	r.title = "kernel memory per in-flight task";
	snprintf(what, sizeof(what),
		 "/proc/meminfo Slab+VmallocUsed delta with %u empty tasks (1 dep each) held in flight behind a gated producer, per task; vs Slab+VmallocUsed+Shmem delta of a %u-slot queue (CQ 4x), per SQ slot",
		 n, qslots);
	r.what = what;
	r.a_label = "per in-flight task";
	r.a_unit = "bytes";
	r.b_label = "per queue entry (SQ slot + 4 CQEs)";
	r.b_unit = "bytes";
	r.ratio_def = "task / queue entry";
	r.op = T_LE;
	r.target = 1024;
	r.target_on_a = true;
	r.target_text = "<= 1 KiB per in-flight task";

	for (rep = 0; rep < reps; rep++) {
		struct pto_task_desc d = empty_task(B);
		double m0, m1, s0, s1, v0, v1, q0, q1, p0, p1;
		bool spares_ok = true;
		struct pto_queue *big = NULL;
		unsigned int i;
		int64_t dep, t0;
		int ret;

		sync();
		p0 = spare_bytes(B, &spares_ok);
		m0 = kmem_bytes(false, &s0, &v0);
		if ((ret = gate_push(B, 0)))
			goto fail;
		d.deps = &dep;
		d.num_deps = 1;
		for (i = 0; i < n; i++) {
			dep = -(int64_t)(i + 1);
			if ((ret = push(B, &d)))
				goto fail;
		}
		t0 = now_ns();
		if ((ret = doorbell(B, n + 1, NULL))) {
			gate_force(B);
			goto fail;
		}
		t0 = now_ns() - t0;
		m1 = kmem_bytes(false, &s1, &v1);
		p1 = spare_bytes(B, &spares_ok);
		if ((ret = gate_open(B)))
			gate_abort(B, n + 1);
		if (ret || (ret = drain(B, n + 1, false))) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}

		q0 = kmem_bytes(true, NULL, NULL);
		ret = pto_queue_create(B->dev, qslots, 0, &big);
		if (ret) {
			berr(B, "queue of %u slots: %s", qslots, pto_strerror(ret));
			goto fail;
		}
		q1 = kmem_bytes(true, NULL, NULL);
		pto_queue_destroy(big);

		/* Spares the tasks took were in Slab before: count them. */
		row_pair(&r, (m1 - m0 + p0 - p1) / n, (q1 - q0) / qslots);
		row_extra(&r, "slab_delta_bytes_per_task", (s1 - s0) / n);
		row_extra(&r, "spares_taken_bytes_per_task", (p0 - p1) / n);
		if (!spares_ok && !rep)
			row_note(&r, "debugfs spares unreadable: spare task memory the in-flight tasks reused is not counted.");
		row_extra(&r, "vmalloc_delta_bytes_per_task", (v1 - v0) / n);
		/* Intake alone: nothing can run, no dispatch, no worker. */
		row_extra(&r, "gated_doorbell_intake_us_per_task", (double)t0 / 1e3 / n);
	}
	row_note(&r, "meminfo counts kB pages of the whole kernel: other activity adds noise of a few bytes per task.");
	row_emit(&r);
	return;
fail:
	row_fail(&r, "error", "%s", B->err);
	row_emit(&r);
}

/* ------------------------------------------------------------ contexts */

/*
 * A device context (an open file of its own, as another process has): its
 * queue, CQE buffer and empty AIV kernel. setup() opens the bench's own;
 * rows 11 and 12 run work from several contexts at once. Errors go to
 * C->err.
 */
static int ctx_open(struct bench *C, uint32_t sq_slots, uint32_t cq_entries)
{
	struct pto_kb *kb;
	int ret;

	ret = pto_device_open(0, &C->dev);
	if (ret) {
		berr(C, "open device 0: %s", pto_strerror(ret));
		return ret;
	}
	pto_device_query_info(C->dev, &C->info);
	ret = pto_queue_create(C->dev, sq_slots, cq_entries, &C->q);
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
static void ctx_close(struct bench *C)
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
static void cqe_window(const struct bench *B, uint64_t *first, uint64_t *last)
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

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 64;

	while (p < n)
		p <<= 1;
	return p;
}

/* ------------------------------------------------------------ row 11 */

#define R11_PROCS 4
/*
 * Tasks per process, rung at once as rows 1 and 2 ring 2000: the
 * one-process form's 8000 take about 40 ms on the bench VM.
 */
#define R11_N 2000

/*
 * What a row 11 worker sends back through its pipe: when it passed the
 * start barrier and when it had reaped its last CQE (CLOCK_MONOTONIC, the
 * parent's clock), its tasks' device span, or why it failed.
 */
struct r11_result {
	int32_t ret;
	uint32_t pad;
	int64_t t_go, t_end;
	uint64_t first_dispatch, last_finish;
	char err[sizeof(((struct bench *)0)->err)];
};

static size_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/*
 * Run @n empty one-block AIV tasks from a context of its own, started by
 * the parent: everything but the tasks (the open, the queue, the kernel
 * upload, faulting in the CQE buffer) is done before the barrier, which
 * is @go_fd reaching EOF. Never returns.
 */
static void r11_worker(unsigned int n, int ready_fd, int go_fd, int res_fd)
{
	struct bench C = { 0 };
	struct r11_result res = { 0 };
	struct pto_task_desc d;
	unsigned int i;
	char c = 0;
	int ret;

	ret = ctx_open(&C, pow2_at_least(n * pto_task_slots(0, 0, 0, false)),
		       pow2_at_least(n));
	if (!ret)
		memset(C.cqe, 0, (n < CQE_CAP ? n : CQE_CAP) * sizeof(*C.cqe));
	/* Ready even when broken: the parent waits for every worker. */
	if (write(ready_fd, &c, 1) != 1)
		_exit(3);
	/* A worker that dies before it is ready then ends the parent's wait. */
	close(ready_fd);
	read_full(go_fd, &c, 1);
	res.t_go = now_ns();
	if (!ret) {
		d = (struct pto_task_desc){ .kernel_aiv = C.k_empty_aiv,
					    .block_num = 1 };
		for (i = 0; i < n && !ret; i++)
			ret = push(&C, &d);
		if (!ret)
			ret = doorbell(&C, n, NULL);
		if (!ret)
			ret = drain(&C, n, false);
	}
	res.t_end = now_ns();
	res.ret = ret;
	if (ret)
		memcpy(res.err, C.err, sizeof(res.err));
	else
		cqe_window(&C, &res.first_dispatch, &res.last_finish);
	if (write(res_fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
		_exit(3);
	ctx_close(&C);
	_exit(0);
}

/*
 * One form of row 11: @procs worker processes of @n tasks each, released
 * together. *us: the barrier's release to the last worker's last CQE.
 */
static int r11_form(struct bench *B, struct row *r, unsigned int procs,
		    unsigned int n, double *us)
{
	const char *pfx = procs > 1 ? "n_procs" : "one_proc";
	struct r11_result res[R11_PROCS];
	int ready[2], go[2], out[2], status = 0, ret = 0;
	uint64_t disp = UINT64_MAX, fin = 0;
	int64_t t0, end = 0, end_min = INT64_MAX, go_max = 0;
	unsigned int i, started = 0, got = 0;
	pid_t pid[R11_PROCS];
	char key[64], c;

	if (pipe(ready))
		goto err_pipe;
	if (pipe(go)) {
		close(ready[0]);
		close(ready[1]);
		goto err_pipe;
	}
	if (pipe(out)) {
		close(ready[0]);
		close(ready[1]);
		close(go[0]);
		close(go[1]);
		goto err_pipe;
	}
	/* Nothing buffered may be printed twice. */
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			ret = -errno;
			berr(B, "fork: %s", strerror(-ret));
			break;
		}
		if (!pid[i]) {
			close(ready[0]);
			close(go[1]);
			close(out[0]);
			r11_worker(n, ready[1], go[0], out[1]);
		}
		started++;
	}
	close(ready[1]);
	close(go[0]);
	close(out[1]);
	for (i = 0; i < started; i++)
		if (read_full(ready[0], &c, 1) != 1)
			break;
	/* Go: every worker's read of the start pipe returns at once. */
	t0 = now_ns();
	close(go[1]);
	while (got < started &&
	       read_full(out[0], &res[got], sizeof(res[0])) == sizeof(res[0]))
		got++;
	close(ready[0]);
	close(out[0]);
	for (i = 0; i < started; i++) {
		bool ok = waitpid(pid[i], &status, 0) == pid[i] &&
			  WIFEXITED(status) && !WEXITSTATUS(status);

		if (!ok && !ret) {
			berr(B, "worker process %u ended with status 0x%x", i, status);
			ret = -EIO;
		}
	}
	if (ret)
		return ret;
	if (got < procs) {
		berr(B, "%u of %u worker processes sent no result", procs - got, procs);
		return -EIO;
	}
	for (i = 0; i < got; i++) {
		if (res[i].ret) {
			berr(B, "worker process: %s", res[i].err);
			return res[i].ret;
		}
		if (res[i].t_end > end)
			end = res[i].t_end;
		if (res[i].t_end < end_min)
			end_min = res[i].t_end;
		if (res[i].t_go - t0 > go_max)
			go_max = res[i].t_go - t0;
		if (res[i].first_dispatch < disp)
			disp = res[i].first_dispatch;
		if (res[i].last_finish > fin)
			fin = res[i].last_finish;
	}
	*us = (double)(end - t0) / 1e3;
	if (!r)
		return 0;
	snprintf(key, sizeof(key), "%s_us_per_task", pfx);
	row_extra(r, key, *us / (procs * n));
	snprintf(key, sizeof(key), "%s_device_makespan_us_per_task", pfx);
	row_extra(r, key, fin > disp ? (double)(fin - disp) / 1e3 / (procs * n) : NAN);
	snprintf(key, sizeof(key), "%s_last_worker_off_barrier_us", pfx);
	row_extra(r, key, (double)go_max / 1e3);
	if (procs > 1)
		row_extra(r, "n_procs_first_to_last_worker_end_us",
			  (double)(end - end_min) / 1e3);
	return 0;

err_pipe:
	ret = -errno;
	berr(B, "pipe: %s", strerror(-ret));
	return ret;
}

static void row11_processes(struct bench *B)
{
	unsigned int n = B->quick ? 500 : R11_N;
	static char what[300];
	struct row r;
	double t4, t1;
	int rep;

	row_init(&r);
	r.id = "11";
	r.title = "4 processes x N empty tasks vs 1 x 4N";
	snprintf(what, sizeof(what),
		 "aggregate throughput: %u processes, each its own device context and queue, %u independent empty one-block AIV tasks each (one doorbell), released together vs one process of %u; release to the last process's last CQE",
		 R11_PROCS, n, R11_PROCS * n);
	r.what = what;
	r.a_label = "4 processes";
	r.a_unit = "tasks/s";
	r.b_label = "1 process";
	r.b_unit = "tasks/s";
	r.ratio_def = "4 processes / 1 process";
	r.op = T_GE;
	r.target = 0.8;
	r.target_text = "4 processes >= 0.8 x 1 process";

	/* Warm up: the first forks fault in the binary and the libraries. */
	if (r11_form(B, NULL, R11_PROCS, n / 8, &t4) ||
	    r11_form(B, NULL, 1, n / 2, &t1)) {
		row_fail(&r, "error", "%s", B->err);
		row_emit(&r);
		return;
	}
	for (rep = 0; rep < B->reps; rep++) {
		double t4b, t1b;

		if (r11_form(B, &r, R11_PROCS, n, &t4) ||
		    r11_form(B, &r, 1, R11_PROCS * n, &t1) ||
		    r11_form(B, &r, 1, R11_PROCS * n, &t1b) ||
		    r11_form(B, &r, R11_PROCS, n, &t4b)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		/* Rates: average the times (as row 2). */
		row_pair(&r, 2e6 * R11_PROCS * n / (t4 + t4b),
			 2e6 * R11_PROCS * n / (t1 + t1b));
	}
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

static void row14_memory_model(struct bench *B)
{
	unsigned int k = B->quick ? 8 : 32, n = B->quick ? 16 : 64, m, rep;
	static const uint32_t qflags[3] = {
		PTO_QUEUE_COHERENT, PTO_QUEUE_NONCOHERENT, PTO_QUEUE_SANITIZE,
	};
	struct pto_queue *qs[3] = { NULL }, *saved = B->q;
	struct pto_kernel *kx = NULL, *copy = NULL;
	struct pto_tensor *vals = tensor2(B, PTO_DTYPE_I32, 1, B->aiv);
	struct pto_tensor *ws = tensor2(B, PTO_DTYPE_I32, 1, 16);
	struct pto_tensor *t[3] = {
		tensor2(B, PTO_DTYPE_F32, R8_TR, R8_COLS),
		tensor2(B, PTO_DTYPE_F32, R8_TR, R8_COLS),
		tensor2(B, PTO_DTYPE_F32, R8_TR, R8_COLS),
	};
	static char what1[240], what2[240], what3[240];
	struct row r[3];

	for (m = 0; m < 3; m++)
		row_init(&r[m]);
	r[0].id = "14a";
	r[0].title = "non-coherent GM vs coherent (exchange)";
	snprintf(what1, sizeof(what1),
		 "per round: one sync_start task of %u AIV blocks, %u rounds of GST, CACHEINVALID, FENCE, SOFT syncall, CACHEINVALID, GLD, FENCE, SOFT syncall; coherent queue vs non-coherent",
		 B->aiv, k);
	r[0].what = what1;
	r[0].a_label = "non-coherent";
	r[0].a_unit = "us/round";
	r[0].b_label = "coherent";
	r[0].b_unit = "us/round";
	r[0].ratio_def = "non-coherent / coherent";
	r[0].op = T_LE;
	r[0].target = 1.5;
	r[0].target_text = "non-coherent <= 1.5 x coherent";
	r[1].id = "14b";
	r[1].title = "sanitizer vs non-coherent (exchange)";
	snprintf(what2, sizeof(what2),
		 "the same exchange on a sanitizing queue vs a non-coherent one");
	r[1].what = what2;
	r[1].a_label = "sanitizer";
	r[1].a_unit = "us/round";
	r[1].b_label = "non-coherent";
	r[1].b_unit = "us/round";
	r[1].ratio_def = "sanitizer / non-coherent";
	r[1].op = T_LE;
	r[1].target = 1.5;
	r[1].target_text = "sanitizer <= 1.5 x non-coherent";
	r[2].id = "14c";
	r[2].title = "sanitizer vs coherent (copy chain)";
	snprintf(what3, sizeof(what3),
		 "per task: a chain of %u one-block copy tasks (TLOAD, TSTORE of a %ux%u f32 tile) on a sanitizing queue vs a coherent one",
		 n, R8_TR, R8_COLS);
	r[2].what = what3;
	r[2].a_label = "sanitizer";
	r[2].a_unit = "us/task";
	r[2].b_label = "coherent";
	r[2].b_unit = "us/task";
	r[2].ratio_def = "sanitizer / coherent";
	r[2].op = T_LE;
	r[2].target = 1.1;
	r[2].target_text = "sanitizer <= 1.1 x coherent";

	for (m = 0; m < 3; m++) {
		struct pto_queue_params p = {
			.sq_slots = SQ_SLOTS, .cq_entries = CQ_ENTRIES,
			.flags = qflags[m],
		};

		if (pto_queue_create_params(B->dev, &p, &qs[m])) {
			berr(B, "queue with flags 0x%x", qflags[m]);
			goto fail;
		}
	}
	if (!vals || !ws || !t[0] || !t[1] || !t[2] ||
	    row14_exchange_kernel(B, k, &kx) || row8_kernel(B, false, &copy))
		goto fail;
	for (rep = 0; rep < (unsigned int)B->reps; rep++) {
		double x[3], c[3];
		int ret = 0;

		for (m = 0; m < 3 && !ret; m++) {
			B->q = qs[m];
			ret = row14_exchange(B, kx, vals, ws, k, &x[m]);
			if (!ret)
				ret = row14_copies(B, copy, t, n, &c[m]);
		}
		B->q = saved;
		if (ret) {
			bool stop = rep_failed(&r[0], B->err, rep);

			stop |= rep_failed(&r[1], B->err, rep);
			if (rep_failed(&r[2], B->err, rep) || stop)
				break;
			continue;
		}
		row_pair(&r[0], x[1], x[0]);
		row_pair(&r[1], x[2], x[1]);
		row_pair(&r[2], c[2], c[0]);
	}
	goto done;
fail:
	for (m = 0; m < 3; m++)
		row_fail(&r[m], "error", "%s", B->err);
done:
	B->q = saved;
	for (m = 0; m < 3; m++) {
		row_emit(&r[m]);
		if (qs[m])
			pto_queue_destroy(qs[m]);
	}
	pto_kernel_free(kx);
	pto_kernel_free(copy);
	for (m = 0; m < 3; m++)
		pto_tensor_free(t[m]);
	pto_tensor_free(ws);
	pto_tensor_free(vals);
}

/* ------------------------------------------------------------ row 15 */

/*
 * What profiling costs: the waits and, since uapi 6, the scheduler's
 * records (clock reads around each intake, placement, unit end and
 * completion walk; Documentation/uapi.rst). Row 1's batch of empty
 * tasks, all scheduler work, on a profiling queue vs a plain one,
 * alternated.
 */
static void row15_profile(struct bench *B)
{
	unsigned int n = B->quick ? 500 : 2000, m;
	static const uint32_t qflags[2] = { 0, PTO_QUEUE_PROFILE };
	struct pto_queue *qs[2] = { NULL }, *saved = B->q;
	static char what[200];
	struct row r;
	int rep;

	row_init(&r);
	r.id = "15";
	r.title = "profiling queue vs plain queue, per task";
	snprintf(what, sizeof(what),
		 "empty AIV task (END), %u per doorbell, push to last CQE, on a queue with PTO_QUEUE_PROFILE (waits, scheduler records) vs without",
		 n);
	r.what = what;
	r.a_label = "profiling";
	r.a_unit = "us/task";
	r.b_label = "plain";
	r.b_unit = "us/task";
	r.ratio_def = "profiling / plain";
	r.op = T_LE;
	r.target = 1.25;
	r.target_text = "profiling <= 1.25 x plain";
	for (m = 0; m < 2; m++) {
		struct pto_queue_params p = {
			.sq_slots = SQ_SLOTS, .cq_entries = CQ_ENTRIES,
			.flags = qflags[m],
		};

		if (pto_queue_create_params(B->dev, &p, &qs[m])) {
			berr(B, "queue with flags 0x%x", qflags[m]);
			row_fail(&r, "error", "%s", B->err);
			goto done;
		}
	}
	for (rep = -1; rep < B->reps; rep++) {
		double t[2];
		int ret = 0;

		/* Alternate which goes first; rep -1 warms both up. */
		for (m = 0; m < 2 && !ret; m++) {
			unsigned int q = (m + (rep > 0 ? rep : 0)) % 2;

			B->q = qs[q];
			ret = empty_batch(B, NULL, n, NULL, &t[q]);
		}
		B->q = saved;
		if (ret) {
			if (rep_failed(&r, B->err, rep < 0 ? 0 : rep))
				break;
			continue;
		}
		if (rep >= 0)
			row_pair(&r, t[1], t[0]);
	}
done:
	B->q = saved;
	row_emit(&r);
	for (m = 0; m < 2; m++)
		if (qs[m])
			pto_queue_destroy(qs[m]);
}

/* ------------------------------------------------------------ row 12 */

/* What one load task computes for, alone on the device. */
#define R12_LOAD_MS 300
/* The probe goes in once the load has been running this long. */
#define R12_PROBE_AFTER_MS 50
/*
 * The device's scheduling quantum (PTO_QUANTUM_NS, 2 ms): a running unit
 * lets queued units have threads at least once per quantum.
 */
#define R12_QUANTUM_US 2000.0
/* Inner iterations of the load kernel per outer one. */
#define R12_INNER 1024
/*
 * At most this many instructions per load task (3 per inner iteration), a
 * quarter of the device's default work budget: a fast host gets a shorter
 * load rather than tasks ended by the budget.
 */
#define R12_MAX_OUTER ((INT64_C(1) << 28) / (3 * R12_INNER))

/* AIV: scalar ALU work, scalar argument 0 outer x R12_INNER iterations. */
static int r12_spin_kernel(struct bench *L, struct pto_kernel **out)
{
	struct pto_kb *kb;
	int ret;

	ret = pto_kb_new(L->dev, PTO_CORE_AIV, &kb);
	if (ret) {
		berr(L, "kernel builder: %s", pto_strerror(ret));
		return ret;
	}
	pto_kb_arg(kb, 1, 0);
	pto_kb_ldi(kb, 4, 1);
	pto_kb_loop(kb, 2, 1);
	pto_kb_loopi(kb, 3, R12_INNER);
	pto_kb_alu(kb, PTO_ALU_ADD, 4, 4, 3);
	pto_kb_alui(kb, PTO_ALU_XOR, 4, 4, 0x5bd1e995);
	pto_kb_endloop(kb);
	pto_kb_endloop(kb);
	pto_kb_end(kb);
	return kb_done(L, kb, "spin", out);
}

static int r12_push_load(struct bench *L, struct pto_kernel *k, int64_t outer,
			 unsigned int n)
{
	struct pto_task_desc d = { .kernel_aiv = k, .block_num = 1,
				   .scalars = &outer, .num_scalars = 1 };
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		if ((ret = push(L, &d)))
			return ret;
	return doorbell(L, n, NULL);
}

/*
 * Outer iterations for a load task of about R12_LOAD_MS, from one task
 * timed alone (grown until it runs 20 ms, for a steady figure).
 */
static int r12_calibrate(struct bench *L, struct pto_kernel *k, int64_t *outer,
			 double *alone_ms)
{
	int64_t c = 16;
	double us;
	int ret;

	for (;;) {
		if ((ret = r12_push_load(L, k, c, 1)) || (ret = drain(L, 1, false)))
			return ret;
		us = median_kernel_us(L);
		if (!isfinite(us) || us <= 0) {
			berr(L, "calibration: no kernel time");
			return -EIO;
		}
		if (us >= 20000 || c * 4 > R12_MAX_OUTER)
			break;
		c *= 4;
	}
	*outer = (int64_t)(c * (R12_LOAD_MS * 1e3 / us));
	if (*outer < 1)
		*outer = 1;
	if (*outer > R12_MAX_OUTER)
		*outer = R12_MAX_OUTER;
	*alone_ms = us / 1e3 * *outer / c;
	return 0;
}

/*
 * The probe: one empty one-block AIC task from B's context. *bi: its
 * block; *t_sub: the host's clock as it rang the doorbell.
 */
static int r12_probe(struct bench *B, struct pto_block_info *bi, int64_t *t_sub)
{
	struct pto_task_desc d = { .kernel_aic = B->k_empty_aic, .block_num = 1 };
	size_t i;
	int ret;

	if ((ret = push(B, &d)))
		return ret;
	*t_sub = now_ns();
	if ((ret = doorbell(B, 1, NULL)) || (ret = drain(B, 1, false)))
		return ret;
	for (i = 0; i < B->ncqe; i++)
		if (B->cqe[i].info.flags & PTO_BLOCK_RAN) {
			*bi = B->cqe[i].info;
			return 0;
		}
	berr(B, "probe: no block ran");
	return -EIO;
}

static void sleep_until(int64_t t_ns)
{
	struct timespec ts = { .tv_sec = t_ns / 1000000000,
			       .tv_nsec = t_ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Wait until @want units more than @base have been handed to cores: the
 * load is then running, whatever the host's speed. Paced by polling the
 * device's counters; a wall-clock limit only against a device that stops.
 */
static int r12_wait_units(struct bench *L, uint64_t base, unsigned int want)
{
	int64_t deadline = now_ns() + DRAIN_TIMEOUT_NS;
	struct drm_pto_npu_counters c;
	int ret;

	for (;;) {
		if ((ret = query_counters(L, &c))) {
			berr(L, "counters: %s", pto_strerror(ret));
			return ret;
		}
		if (c.units >= base + want)
			return 0;
		if (now_ns() > deadline) {
			berr(L, "load: %llu of %u tasks on cores after %lld s",
			     (unsigned long long)(c.units - base), want,
			     (long long)(DRAIN_TIMEOUT_NS / 1000000000));
			return -ETIMEDOUT;
		}
		usleep(200);
	}
}

/* What the load did around the probe, from the load's CQEs. */
static void r12_load_extras(struct bench *L, struct row *r,
			    const struct pto_block_info *p)
{
	uint64_t first_start = UINT64_MAX, first_end = UINT64_MAX;
	unsigned int running = 0;
	size_t i;

	for (i = 0; i < L->ncqe; i++) {
		const struct pto_block_info *b = &L->cqe[i].info;

		if (!(b->flags & PTO_BLOCK_RAN))
			continue;
		if (b->ts_start < first_start)
			first_start = b->ts_start;
		if (b->ts_end < first_end)
			first_end = b->ts_end;
		running += b->ts_start <= p->ts_dispatch && b->ts_end >= p->ts_start;
	}
	if (first_start == UINT64_MAX)
		return;
	row_extra(r, "load_tasks_running_through_probe_wait", running);
	row_extra(r, "load_first_start_to_probe_dispatch_ms",
		  ((double)p->ts_dispatch - (double)first_start) / 1e6);
	/* Negative: the probe started only after a load task had ended. */
	row_extra(r, "probe_start_to_first_load_end_ms",
		  ((double)first_end - (double)p->ts_start) / 1e6);
	row_extra(r, "load_kernel_ms_under_load", median_kernel_us(L) / 1e3);
}

static void row12_start_delay(struct bench *B)
{
	unsigned int nload = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN) + 3;
	unsigned int nstart = nload < B->aiv ? nload : B->aiv;
	int rep, reps = B->reps < 7 ? B->reps : 7;
	struct drm_pto_npu_counters units;
	struct pto_kernel *k_spin = NULL;
	struct pto_block_info idle, busy;
	struct bench L = { 0 };
	static char what[400];
	int64_t outer = 0, t_sub, t_load;
	double alone_ms = NAN;
	struct row r;

	row_init(&r);
	r.id = "12";
	r.title = "start delay on an idle core, CPUs busy";
	snprintf(what, sizeof(what),
		 "one empty one-block AIC task submitted %d ms after %u one-block AIV tasks of ~%d ms of scalar ALU work each (online CPUs + 3, another context) were all on cores: its ts_dispatch -> ts_start vs the device's scheduling quantum",
		 R12_PROBE_AFTER_MS, nload, R12_LOAD_MS);
	r.what = what;
	r.a_label = "start delay under load";
	r.a_unit = "us";
	r.b_label = "quantum";
	r.b_unit = "us";
	r.ratio_def = "start delay / quantum";
	r.op = T_LE;
	r.target = 2.0;
	r.target_text = "start delay <= 2 x quantum";

	if (ctx_open(&L, 256, 0) || r12_spin_kernel(&L, &k_spin) ||
	    r12_calibrate(&L, k_spin, &outer, &alone_ms)) {
		row_fail(&r, "error", "%s", L.err);
		goto done;
	}
	row_note(&r, "load kernel: %lld x %d iterations, %.0f ms alone.",
		 (long long)outer, R12_INNER, alone_ms);
	/* Warm up the probe's path (its kernel, the AIC cores). */
	if (r12_probe(B, &idle, &t_sub)) {
		row_fail(&r, "error", "%s", B->err);
		goto done;
	}
	for (rep = 0; rep < reps; rep++) {
		int64_t t_busy;
		int ret;

		if (r12_probe(B, &idle, &t_sub)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_extra(&r, "idle_start_delay_us",
			  (double)(idle.ts_start - idle.ts_dispatch) / 1e3);
		row_extra(&r, "idle_submit_to_start_us",
			  ((double)idle.ts_start - (double)t_sub) / 1e3);

		if (query_counters(&L, &units) ||
		    r12_push_load(&L, k_spin, outer, nload)) {
			row_fail(&r, "error", "load: %s", L.err);
			break;
		}
		/* Every load task on a core first, then into its run. */
		ret = r12_wait_units(&L, units.units, nstart);
		t_load = now_ns();
		sleep_until(t_load + R12_PROBE_AFTER_MS * INT64_C(1000000));
		if (!ret)
			ret = r12_probe(B, &busy, &t_busy);
		else
			memcpy(B->err, L.err, sizeof(B->err));
		/* The next repetition starts on an idle device either way. */
		if (drain(&L, nload, false)) {
			if (rep_failed(&r, L.err, rep))
				break;
			continue;
		}
		if (ret) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		row_pair(&r, (double)(busy.ts_start - busy.ts_dispatch) / 1e3,
			 R12_QUANTUM_US);
		row_extra(&r, "loaded_submit_to_start_us",
			  ((double)busy.ts_start - (double)t_busy) / 1e3);
		r12_load_extras(&L, &r, &busy);
	}
	row_extra(&r, "load_tasks", nload);
	row_extra(&r, "load_kernel_ms_alone", alone_ms);
done:
	row_emit(&r);
	pto_kernel_free(k_spin);
	ctx_close(&L);
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

static void trace_summary(struct bench *B)
{
	static const char *const ev[] = { "pto_intake", "pto_dispatch",
					  "pto_start", "pto_end", "pto_retire" };
	const char *tr = "/sys/kernel/tracing";
	enum { NT = 1000, NE = 5 };
	static double ts[NT][NE], spans[NE - 1][NT];
	struct jbuf j = { 0 };
	char path[256], line[512];
	uint64_t first = 0;
	double us;
	FILE *f;
	int e, i, cnt[NE - 1] = { 0 };

	snprintf(path, sizeof(path), "%s/buffer_size_kb", tr);
	write_file(path, "8192");
	snprintf(path, sizeof(path), "%s/trace", tr);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/events/pto_npu/enable", tr);
	if (write_file(path, "1")) {
		fprintf(stderr, "bench: trace: cannot enable %s\n", path);
		return;
	}
	{
		struct drm_pto_npu_counters c;

		query_counters(B, &c);
		first = c.tasks + 1;
	}
	if (empty_batch(B, NULL, NT, NULL, &us))
		fprintf(stderr, "bench: trace: %s\n", B->err);
	write_file(path, "0");

	for (i = 0; i < NT; i++)
		for (e = 0; e < NE; e++)
			ts[i][e] = NAN;
	snprintf(path, sizeof(path), "%s/trace", tr);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p, name[64];
		unsigned long long task;
		double t;

		if (line[0] == '#')
			continue;
		/* "   kworker-12  [001] .....  123.456789: pto_start: dev=0 task=5 ..." */
		p = strstr(line, ": pto_");
		if (!p)
			continue;
		{
			char *q = p;

			while (q > line && q[-1] != ' ')
				q--;
			t = strtod(q, NULL);
		}
		if (sscanf(p + 2, "%63[a-z_]:", name) != 1)
			continue;
		p = strstr(p, "task=");
		if (!p || sscanf(p, "task=%llu", &task) != 1)
			continue;
		if (task < first || task >= first + NT)
			continue;
		for (e = 0; e < NE; e++)
			if (!strcmp(name, ev[e]) && isnan(ts[task - first][e]))
				ts[task - first][e] = t * 1e6;
	}
	fclose(f);
	for (i = 0; i < NT; i++)
		for (e = 0; e + 1 < NE; e++)
			if (!isnan(ts[i][e]) && !isnan(ts[i][e + 1]))
				spans[e][cnt[e]++] = ts[i][e + 1] - ts[i][e];
	jb_open(&j, NULL);
	jb_str(&j, "what", "tracepoints of a batch of 1000 empty tasks: median (and 25th percentile) us between consecutive events of one task");
	for (e = 0; e + 1 < NE; e++) {
		char key[64];
		double q;

		snprintf(key, sizeof(key), "%s_to_%s_us", ev[e] + 4, ev[e + 1] + 4);
		jb_num(&j, key, median_of(spans[e], cnt[e]));
		q = cnt[e] ? spans[e][cnt[e] / 4] : NAN;	/* sorted by median_of */
		snprintf(key, sizeof(key), "%s_to_%s_us_p25", ev[e] + 4, ev[e + 1] + 4);
		jb_num(&j, key, q);
	}
	{
		/* Intake rate: intake events of consecutive tasks. */
		static double d[NT];
		int k = 0;

		for (i = 0; i + 1 < NT; i++)
			if (!isnan(ts[i][0]) && !isnan(ts[i + 1][0]))
				d[k++] = ts[i + 1][0] - ts[i][0];
		jb_num(&j, "intake_to_next_intake_us", median_of(d, k));
		jb_num(&j, "intake_to_next_intake_us_p25", k ? d[k / 4] : NAN);
		k = 0;
		for (i = 0; i + 1 < NT; i++)
			if (!isnan(ts[i][4]) && !isnan(ts[i + 1][4]))
				d[k++] = ts[i + 1][4] - ts[i][4];
		jb_num(&j, "retire_to_next_retire_us", median_of(d, k));
		jb_num(&j, "retire_to_next_retire_us_p25", k ? d[k / 4] : NAN);
	}
	jb_close(&j);
	printf("=== PTO-BENCH-TRACE %.*s\n", (int)j.len, j.p);
	fflush(stdout);
	free(j.p);
}

/* ------------------------------------------------------------ main */

static int setup(struct bench *B)
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

static void print_info(struct bench *B)
{
	struct utsname u;
	struct jbuf j = { 0 };

	uname(&u);
	jb_open(&j, NULL);
	jb_str(&j, "kernel", u.release);
	jb_num(&j, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	jb_num(&j, "clusters", B->clusters);
	jb_num(&j, "aic", B->aic);
	jb_num(&j, "aiv", B->aiv);
	jb_num(&j, "reps", B->reps);
	jb_bool(&j, "quick", B->quick);
	jb_close(&j);
	printf("=== PTO-BENCH-INFO %.*s\n", (int)j.len, j.p);
	fflush(stdout);
	free(j.p);
}

/*
 * Rows whose technique is cores running side by side (row 4: the cube and
 * vector halves of a mixed kernel overlap) measure it only with more than
 * one vCPU; the others measure per-task costs, steadiest on one vCPU.
 * `make bench` runs pass 1 (-P 1) on one vCPU, pass 2 (-P 2) on two.
 */
static bool parallel_row(int n)
{
	return n == 4;
}

static bool want_row(const char *rows, int pass, int n)
{
	const char *p = rows;

	if (pass && (pass == 2) != parallel_row(n))
		return false;
	if (!rows)
		return true;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			return false;
		if (v == n)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct bench B = { .reps = 15 };
	const char *rows = NULL;
	bool trace = false;
	int opt, pass = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "r:qsR:tP:")) != -1) {
		switch (opt) {
		case 'r':
			B.reps = atoi(optarg);
			break;
		case 'q':
			B.quick = true;
			break;
		case 's':
			g_smoke = true;
			break;
		case 'R':
			rows = optarg;
			break;
		case 't':
			trace = true;
			break;
		case 'P':
			pass = atoi(optarg);
			if (pass < 1 || pass > 2) {
				fprintf(stderr, "pto-bench: -P wants 1 or 2\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: pto-bench [-r REPS] [-q] [-s] [-R ROWS] [-P 1|2] [-t]\n");
			return 2;
		}
	}
	if (g_smoke) {
		B.reps = 1;
		B.quick = true;
	} else if (B.reps < 3 || B.reps > MAX_REPS) {
		fprintf(stderr, "pto-bench: -r wants 3..%d\n", MAX_REPS);
		return 2;
	}
	if (setup(&B))
		return 2;
	print_info(&B);

	if (want_row(rows, pass, 1))
		row1_overhead(&B);
	if (want_row(rows, pass, 2))
		row2_throughput(&B);
	if (want_row(rows, pass, 3)) {
		row3_spmd(&B, 4);
		row3_spmd(&B, 48);
		row3_spmd(&B, 480);
	}
	if (want_row(rows, pass, 4)) {
		/*
		 * A pipeline: one cluster streams 8 row tiles, the vector
		 * epilogue about as long as the cube work (K chosen so).
		 */
		row4_mixed(&B, "4", "two tasks vs one mixed kernel",
			   (struct mm_shape){ .tr = 64, .kd = MM4_K, .nd = 128,
			   .t = 16, .blocks = 1, .slots = 4, .exp = true }, true);
		/* Overhead-dominated: tiny tiles over the whole device. */
		row4_mixed(&B, "4b", "two tasks vs mixed, tiny tiles (diagnostic)",
			   (struct mm_shape){ .tr = 8, .kd = 8, .nd = 32, .t = 2,
			   .blocks = B.clusters, .slots = 2 }, false);
		/* The guide's shape: one tile per block, nothing to overlap. */
		row4_mixed(&B, "4c", "two tasks vs mixed, one tile per block (diagnostic)",
			   (struct mm_shape){ .tr = 64, .kd = 128, .nd = 128,
			   .t = 1, .blocks = 4, .slots = 2 }, false);
	}
	if (want_row(rows, pass, 5))
		row5_predicate(&B);
	if (want_row(rows, pass, 6))
		row6_early(&B);
	if (want_row(rows, pass, 7))
		row7_barrier(&B);
	if (want_row(rows, pass, 8))
		row8_bandwidth(&B);
	if (want_row(rows, pass, 9))
		row9_matmul(&B);
	if (want_row(rows, pass, 10))
		row10_memory(&B);
	if (want_row(rows, pass, 11))
		row11_processes(&B);
	if (want_row(rows, pass, 12))
		row12_start_delay(&B);
	if (want_row(rows, pass, 13))
		row13_infer(&B);
	if (want_row(rows, pass, 14))
		row14_memory_model(&B);
	if (want_row(rows, pass, 15))
		row15_profile(&B);
	if (trace)
		trace_summary(&B);

	pto_kernel_free(B.k_empty_aiv);
	pto_kernel_free(B.k_empty_aic);
	pto_kernel_free(B.k_gate);
	pto_tensor_free(B.gate_ws);
	if (pto_queue_destroy(B.q))
		fprintf(stderr, "pto-bench: queue still busy at exit\n");
	free(B.cqe);
	pto_device_close(B.dev);
	if (g_smoke)
		printf("1..%d\n", g_tap_n);
	else
		printf("=== PTO-BENCH-END errors=%d\n", g_errors);
	return g_errors ? 1 : 0;
}
