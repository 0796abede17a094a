/* SPDX-License-Identifier: MIT */
/*
 * What the examples share: reporting a failure the same way everywhere
 * ("FAIL <example>: <what>: <why>" on stdout, exit status 1) and running a
 * graph with its first error spelled out.
 */
#ifndef PTO_EXAMPLE_H
#define PTO_EXAMPLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pto/pto.h>

/** EX_TIMEOUT_NS - how long an example's graph may run. */
#define EX_TIMEOUT_NS (INT64_C(30) * 1000 * 1000 * 1000)

static const char *ex_name = "example";

static __attribute__((format(printf, 1, 2), noreturn)) void
ex_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", ex_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(EXIT_FAILURE);
}

/* A libpto call that must succeed. */
static void ex_check(int ret, const char *what)
{
	if (ret < 0)
		ex_fail("%s: %s", what, pto_strerror(ret));
}

/* Finish a kernel, or fail with the builder's (or the verifier's) reason. */
static struct pto_kernel *ex_finish(struct pto_kb *kb, const char *what)
{
	struct pto_kernel *k;
	int ret = pto_kb_finish(kb, &k);

	if (ret)
		ex_fail("kernel %s: %s", what,
			*pto_kb_error(kb) ? pto_kb_error(kb) :
					    pto_strerror(ret));
	pto_kb_free(kb);
	return k;
}

/* Add a task, or fail with the graph's reason. */
static int ex_add(struct pto_graph *g, const struct pto_task_desc *d)
{
	int idx = pto_graph_add_task(g, d);

	if (idx < 0)
		ex_fail("add task '%s': %s", d->name ? d->name : "",
			*pto_graph_error(g) ? pto_graph_error(g) :
					      pto_strerror(idx));
	return idx;
}

/*
 * Name the graph "<example>.<what>" (spaces and odd characters become '_'),
 * so with PTO_TRACE_DIR set (make demo, ptoctl trace) its swimlane and
 * deps.json are <example>.<what>.trace.json and .deps.json.
 */
static void ex_name_graph(struct pto_graph *g, const char *what)
{
	char name[96];
	size_t i;

	snprintf(name, sizeof(name), "%s.%s", ex_name, what);
	for (i = strlen(ex_name) + 1; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '-')
			name[i] = '_';
	pto_graph_set_name(g, name);
}

/* Run a graph that must succeed. */
static void ex_run(struct pto_graph *g, struct pto_queue *q, const char *what)
{
	int ret;

	ex_name_graph(g, what);
	ret = pto_graph_run(g, q, EX_TIMEOUT_NS);

	if (ret)
		ex_fail("run %s: %s: %s", what, pto_strerror(ret),
			pto_graph_error(g));
	/* Under the sanitizer (make check): GM used as the chip allows. */
	if (pto_graph_hazard_count(g)) {
		char text[400];

		pto_graph_hazard_str(g, 0, text, sizeof(text));
		ex_fail("run %s: %u GM hazards, the first: %s", what,
			pto_graph_hazard_count(g), text);
	}
}

/* One line per block: where and when it ran. */
static void ex_print_blocks(const struct pto_graph *g, unsigned int idx)
{
	const struct pto_block_info *b;
	unsigned int n, i;

	if (pto_graph_task_blocks(g, idx, &b, &n))
		return;
	for (i = 0; i < n; i++)
		printf("  task %u '%s' block %u: %s on %s%u, start +%llu ns, ran %llu ns\n",
		       idx, pto_graph_task_name(g, idx), b[i].block,
		       pto_status_name(b[i].status),
		       b[i].core_type == PTO_CORE_AIC ? "AIC" : "AIV",
		       b[i].core,
		       (unsigned long long)(b[i].ts_start - b[i].ts_dispatch),
		       (unsigned long long)(b[i].ts_end - b[i].ts_start));
}

/*
 * What a run cost: the tasks that reached a core (a block of theirs ran)
 * and the makespan, the last finish minus the first dispatch over the
 * blocks that ran, of the graph's last run.
 */
static inline void ex_run_figures(const struct pto_graph *g,
				  unsigned int *ran_tasks,
				  uint64_t *makespan_ns)
{
	uint64_t first = UINT64_MAX, last = 0;
	unsigned int i, j, n;

	*ran_tasks = 0;
	for (i = 0; i < pto_graph_task_count(g); i++) {
		const struct pto_block_info *b;
		bool ran = false;

		if (pto_graph_task_blocks(g, i, &b, &n))
			continue;
		for (j = 0; j < n; j++) {
			if (!(b[j].flags & PTO_BLOCK_RAN))
				continue;
			ran = true;
			if (b[j].ts_dispatch < first)
				first = b[j].ts_dispatch;
			if (b[j].ts_finish > last)
				last = b[j].ts_finish;
		}
		*ran_tasks += ran;
	}
	*makespan_ns = last > first ? last - first : 0;
}

/* The dispatches (tasks submitted) and the makespan of the last run. */
static inline void ex_graph_stats(const struct pto_graph *g,
				  unsigned int *dispatches,
				  uint64_t *makespan_ns)
{
	unsigned int ran;

	*dispatches = pto_graph_task_count(g);
	ex_run_figures(g, &ran, makespan_ns);
}

/* "per_block_tasks: 4 dispatches, makespan 123.4 us" */
static inline void ex_print_stats(const struct pto_graph *g, const char *what)
{
	unsigned int dispatches;
	uint64_t makespan;

	ex_graph_stats(g, &dispatches, &makespan);
	printf("%s: %u dispatch%s, makespan %.1f us\n", what, dispatches,
	       dispatches == 1 ? "" : "es", (double)makespan / 1000.0);
}

/*
 * Timed runs (make demo's rows read them): PTO_TRACE_DIR held out of the
 * environment, so that the runs being timed write no traces (libpto
 * writes a graph's traces at the end of its run), and put back for the
 * run whose traces are kept. The queue must be made before the hold: a
 * queue made with PTO_TRACE_DIR set profiles.
 */
static inline char *ex_trace_dir(void)
{
	static char dir[512];

	return dir;
}

static inline void ex_trace_hold(void)
{
	const char *d = getenv("PTO_TRACE_DIR");

	if (d && strlen(d) < 512)
		strcpy(ex_trace_dir(), d);
	unsetenv("PTO_TRACE_DIR");
}

/* The runs that follow write their traces (@on), or none. */
static inline void ex_trace_on(bool on)
{
	if (on && ex_trace_dir()[0])
		setenv("PTO_TRACE_DIR", ex_trace_dir(), 1);
	else
		unsetenv("PTO_TRACE_DIR");
}

static inline double ex_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/** EX_TIMED_MAX - most timed runs of one form. */
#define EX_TIMED_MAX 128

/*
 * One form's timed runs: each run's wall time (from the host's first call
 * for it, building or submitting, to its last completion read) and its
 * makespan (first dispatch to last finish; 0 when the queue reported no
 * block records).
 */
struct ex_timed {
	char graph[96];		/* "<example>.<form>", as its traces' name */
	unsigned int n;
	double wall_us[EX_TIMED_MAX];
	double makespan_us[EX_TIMED_MAX];
};

/*
 * How many timed runs of each form: @runs (make demo), or
 * PTO_EXAMPLE_RUNS (1..EX_TIMED_MAX / 2; make check's examples suite sets
 * 2: the debug kernel runs every example on one slow vCPU); short runs
 * asked for by PTO_EXAMPLE_TOKENS alone get 2 too.
 */
static inline int ex_timed_runs(int runs)
{
	const char *e = getenv("PTO_EXAMPLE_RUNS");

	if (e) {
		runs = atoi(e);
		if (runs < 1 || runs > EX_TIMED_MAX / 2)
			ex_fail("PTO_EXAMPLE_RUNS=%s: want 1..%d", e,
				EX_TIMED_MAX / 2);
	} else if (getenv("PTO_EXAMPLE_TOKENS")) {
		runs = 2;
	}
	return runs;
}

static inline void ex_timed_init(struct ex_timed *t, const char *what)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	snprintf(t->graph, sizeof(t->graph), "%s.%s", ex_name, what);
	for (i = strlen(ex_name) + 1; t->graph[i]; i++)
		if (!isalnum((unsigned char)t->graph[i]) && t->graph[i] != '-')
			t->graph[i] = '_';
}

/* A run of @g that took @wall_us. */
static inline void ex_timed_add(struct ex_timed *t, const struct pto_graph *g,
				double wall_us)
{
	unsigned int ran;
	uint64_t makespan;

	if (t->n >= EX_TIMED_MAX)
		ex_fail("%s: more than %d timed runs", t->graph, EX_TIMED_MAX);
	ex_run_figures(g, &ran, &makespan);
	t->wall_us[t->n] = wall_us;
	t->makespan_us[t->n] = (double)makespan / 1e3;
	t->n++;
}

static inline int ex_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (0 for none). */
static inline double ex_median(const double *v, unsigned int n)
{
	double s[EX_TIMED_MAX];

	if (!n || n > EX_TIMED_MAX)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), ex_cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static inline void ex_json_list(FILE *f, const double *v, unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.3f", i ? ", " : "", v[i]);
	fputc(']', f);
}

/*
 * With PTO_TRACE_DIR held (ex_trace_hold()): the forms' timed runs into
 * <dir>/<example>.timing.json, {"example": ..., "forms": {graph: {"wall_us":
 * [...], "makespan_us": [...]}}}, beside the traces (make demo exports it).
 */
static inline void ex_timed_write(const struct ex_timed *forms, unsigned int n)
{
	char path[640];
	unsigned int i;
	FILE *f;

	if (!ex_trace_dir()[0])
		return;
	snprintf(path, sizeof(path), "%s/%s.timing.json", ex_trace_dir(),
		 ex_name);
	f = fopen(path, "w");
	if (!f)
		ex_fail("write %s", path);
	fprintf(f, "{\"example\": \"%s\", \"forms\": {", ex_name);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n \"%s\": {\"wall_us\": ", i ? "," : "",
			forms[i].graph);
		ex_json_list(f, forms[i].wall_us, forms[i].n);
		fprintf(f, ", \"makespan_us\": ");
		ex_json_list(f, forms[i].makespan_us, forms[i].n);
		fputc('}', f);
	}
	fprintf(f, "}}\n");
	if (fclose(f))
		ex_fail("write %s", path);
}

#endif /* PTO_EXAMPLE_H */
