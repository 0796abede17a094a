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
 * The files: bench-core.c (this one: statistics, the JSON line, the row
 * helpers, the row table, main), bench-dev.c (the device helpers: queue,
 * push/doorbell/drain, CQE timings, the gate, setup), rows-*.c (the rows,
 * by family), bench.h between them. Adding a row: one function in the
 * rows-*.c file of its family, its header a struct row_head and its loop
 * row_abba() where it fits (rows 1, 5 and 6 show the form), declared in
 * bench.h, and one line in rows_table[] below.
 *
 * usage: pto-bench [-r REPS] [-q] [-s] [-R ROWS] [-P 1|2] [-t]
 *	-r REPS  repetitions per row (default 15, 3..31)
 *	-q       quick: fewer tasks per measurement
 *	-s       smoke test (make check): -q, one repetition, every row
 *		 reported as a TAP result (not ok: the row broke), no target
 *		 judged and no figures printed
 *	-R ROWS  row numbers to run, separated by ',' or '+' (default all: 1..15)
 *	-P 1|2   only the rows of pass 1 (measured on one vCPU) or of pass 2
 *		 (row 4, which needs cores running in parallel: the rows
 *		 marked parallel in rows_table[]); default every row
 *	-t       diagnostics: after the rows, enable the pto_npu tracepoints
 *		 over a batch of 1000 empty tasks and print the median spans
 *		 between their events (=== PTO-BENCH-TRACE). Off by default:
 *		 enabling a tracepoint patches kernel text, which qemu TCG
 *		 does not always survive on SMP (the function profiler, which
 *		 patches every function, reliably oopses with int3).
 */
#include "bench.h"

/* ------------------------------------------------------------ statistics */

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

double median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------ JSON */

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

void jb_open(struct jbuf *j, const char *key)
{
	if (j->depth || j->len)
		jb_key(j, key);
	jb_raw(j, "{");
	j->first[++j->depth] = true;
}

void jb_close(struct jbuf *j)
{
	jb_raw(j, "}");
	j->depth--;
}

void jb_num(struct jbuf *j, const char *key, double v)
{
	jb_key(j, key);
	if (isfinite(v))
		jb_raw(j, "%.6g", v);
	else
		jb_raw(j, "null");
}

void jb_str(struct jbuf *j, const char *key, const char *s)
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

static int g_errors;
/* -s: every row once, as TAP (make check); no target judged, no figures. */
static bool g_smoke;
static int g_tap_n;

static void row_init(struct row *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->status, sizeof(r->status), "ok");
}

void row_note(struct row *r, const char *fmt, ...)
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

void row_fail(struct row *r, const char *status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->status, sizeof(r->status), "%s", status);
	row_note(r, "%s", msg);
	fprintf(stderr, "bench: row %s: %s: %s\n", r->h.id, status, msg);
}

/*
 * A repetition failed (a task timed out under host load, say): note it and
 * go on with the next one. Three failures end the row as an error; so do
 * fewer than three good repetitions (row_emit()).
 */
#define MAX_REP_FAILS 3

bool rep_failed(struct row *r, const char *err, int rep)
{
	r->fails++;
	if (r->fails <= 2)
		row_note(r, "repetition %d failed: %s.", rep, err);
	fprintf(stderr, "bench: row %s: repetition %d failed: %s\n", r->h.id, rep, err);
	if (r->fails < MAX_REP_FAILS)
		return false;
	row_fail(r, "error", "%d repetitions failed", r->fails);
	return true;
}

void row_extra(struct row *r, const char *key, double v)
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

void row_pair(struct row *r, double a, double b)
{
	series_add(&r->a, a);
	series_add(&r->b, b);
	series_add(&r->ratio, b != 0 ? a / b : NAN);
}

/* row_init() with the row's header, r->what formatted from @what. */
void row_start(struct row *r, const struct row_head *h, const char *what, ...)
{
	va_list ap;

	row_init(r);
	r->h = *h;
	va_start(ap, what);
	vsnprintf(r->what_buf, sizeof(r->what_buf), what, ap);
	va_end(ap);
	r->what = r->what_buf;
}

/* The row broke before its first repetition: emit it as an error. */
void row_error(struct row *r, const char *err)
{
	row_fail(r, "error", "%s", err);
	row_emit(r);
}

static double mean2(double x, double y, bool rates)
{
	return rates ? 2 / (1 / x + 1 / y) : (x + y) / 2;
}

/*
 * The repetition loop of most rows: each repetition measures A, B, B, A
 * (B, A, A, B with ABBA_B_FIRST) and pairs the mean of each form (with
 * ABBA_RATES, of the times behind the rates). A failed measurement fails
 * the repetition (rep_failed()); three end the row. The caller emits it.
 */
void row_abba(struct bench *B, struct row *r, row_form_fn form,
	      const void *arg, int flags)
{
	bool bf = flags & ABBA_B_FIRST, rates = flags & ABBA_RATES;
	double v[4], x, y;
	int rep;

	for (rep = 0; rep < B->reps; rep++) {
		if (form(B, r, bf, arg, &v[0]) || form(B, r, !bf, arg, &v[1]) ||
		    form(B, r, !bf, arg, &v[2]) || form(B, r, bf, arg, &v[3])) {
			if (rep_failed(r, B->err, rep))
				break;
			continue;
		}
		x = mean2(v[0], v[3], rates);
		y = mean2(v[1], v[2], rates);
		row_pair(r, bf ? y : x, bf ? x : y);
	}
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

void row_emit(struct row *r)
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
			printf("# row %s: %s\n", r->h.id, r->note);
		printf("%s %d row %s: %s%s\n", ok ? "ok" : "not ok", ++g_tap_n,
		       r->h.id, r->h.title, ok ? "" : " (error)");
		fflush(stdout);
		return;
	}
	metric = r->h.target_on_a ? ra.median : rr.median;
	if (r->h.op != T_NONE && !strcmp(r->status, "ok") && isfinite(metric))
		met = r->h.op == T_GE ? metric >= r->h.target : metric <= r->h.target;

	jb_open(&j, NULL);
	jb_str(&j, "row", r->h.id);
	jb_str(&j, "title", r->h.title);
	jb_str(&j, "compared", r->what);
	jb_str(&j, "status", r->status);
	jb_summary(&j, "a", r->h.a_label, r->h.a_unit, &r->a);
	jb_summary(&j, "b", r->h.b_label, r->h.b_unit, &r->b);
	jb_summary(&j, "ratio", r->h.ratio_def, NULL, &r->ratio);
	jb_open(&j, "target");
	jb_str(&j, "text", r->h.target_text);
	jb_str(&j, "applies_to", r->h.op == T_NONE ? NULL :
				 r->h.target_on_a ? "a" : "ratio");
	jb_str(&j, "op", r->h.op == T_GE ? ">=" : r->h.op == T_LE ? "<=" : NULL);
	jb_num(&j, "value", r->h.op == T_NONE ? NAN : r->h.target);
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
		r->h.id, r->h.title, ra.median, r->h.a_unit ? r->h.a_unit : "",
		summarize(&r->b).median, r->h.b_unit ? r->h.b_unit : "",
		rr.median,
		met < 0 ? r->status : met ? "MET" : "MISSED");
	free(j.p);
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
 * The rows, in the order they run; -R picks them by number. Adding a row:
 * write its function (void rowN_name(struct bench *B), declared in bench.h,
 * in the rows-*.c file of its family; row1_overhead() is the model) and
 * add one line here.
 *
 * parallel: the row's technique is cores running side by side (row 4: the
 * cube and vector halves of a mixed kernel overlap), measured only with
 * more than one vCPU; the others measure per-task costs, steadiest on one
 * vCPU. `make bench` runs pass 1 (-P 1) on one vCPU, pass 2 (-P 2) on two.
 */
static const struct bench_row rows_table[] = {
	{ .n = 1, .run = row1_overhead },
	{ .n = 2, .run = row2_throughput },
	{ .n = 3, .run = row3_spmd_all },
	{ .n = 4, .run = row4_mixed_all, .parallel = true },
	{ .n = 5, .run = row5_predicate },
	{ .n = 6, .run = row6_early },
	{ .n = 7, .run = row7_barrier },
	{ .n = 8, .run = row8_bandwidth },
	{ .n = 9, .run = row9_matmul },
	{ .n = 10, .run = row10_memory },
	{ .n = 11, .run = row11_processes },
	{ .n = 12, .run = row12_start_delay },
	{ .n = 13, .run = row13_infer },
	{ .n = 14, .run = row14_memory_model },
	{ .n = 15, .run = row15_profile },
	{ .n = 16, .run = row16_replay },
	{ .n = 17, .run = row17_replay_node },
	{ .n = 18, .run = row18_replay_launch },
	{ .n = 19, .run = row19_replay_memory },
};

static bool want_row(const char *rows, int pass, const struct bench_row *row)
{
	const char *p = rows;

	if (pass && (pass == 2) != row->parallel)
		return false;
	if (!rows)
		return true;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			return false;
		if (v == row->n)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/* The options; -R ROWS and -P 1|2 as want_row() reads them. */
struct opts {
	const char *rows;
	bool trace;
	int pass;
};

/* 0, or 2 (said on stderr) for bad usage. */
static int parse_opts(int argc, char **argv, struct bench *B, struct opts *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "r:qsR:tP:")) != -1) {
		switch (opt) {
		case 'r':
			B->reps = atoi(optarg);
			break;
		case 'q':
			B->quick = true;
			break;
		case 's':
			g_smoke = true;
			break;
		case 'R':
			o->rows = optarg;
			break;
		case 't':
			o->trace = true;
			break;
		case 'P':
			o->pass = atoi(optarg);
			if (o->pass < 1 || o->pass > 2) {
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
		B->reps = 1;
		B->quick = true;
	} else if (B->reps < 3 || B->reps > MAX_REPS) {
		fprintf(stderr, "pto-bench: -r wants 3..%d\n", MAX_REPS);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench B = { .reps = 15 };
	struct opts o = { 0 };
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_opts(argc, argv, &B, &o))
		return 2;
	if (setup(&B))
		return 2;
	print_info(&B);

	for (i = 0; i < sizeof(rows_table) / sizeof(rows_table[0]); i++)
		if (want_row(o.rows, o.pass, &rows_table[i]))
			rows_table[i].run(&B);
	if (o.trace)
		trace_summary(&B);

	teardown(&B);
	if (g_smoke)
		printf("1..%d\n", g_tap_n);
	else
		printf("=== PTO-BENCH-END errors=%d\n", g_errors);
	return g_errors ? 1 : 0;
}
