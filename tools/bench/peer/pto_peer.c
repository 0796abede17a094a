// SPDX-License-Identifier: MIT
/*
 * pto-peer: make bench-peer's workloads on pto-npu, the same as sim-peer
 * runs on simpler's CPU simulator (sim_orch.cpp), each at two sizes:
 *
 *	fan        N empty one-block AIV tasks, independent
 *	chain      N empty one-block AIV tasks, each depending on the previous
 *	skip       N tasks that never reach a core: predicated on gate[0,0] > 0
 *		   with the gate 0 (retired SKIPPED at intake, as row 5)
 *	singles48  N forms of 48 one-block tasks
 *	spmd48     N forms of one 48-block task
 *
 * One measurement: push every task, one doorbell, reap every CQE (the
 * device is opened, the queue and kernel made once, before). The replay
 * form (runtime "pto-npu-replay"): the same tasks recorded once per size
 * as a graph (pto_graph_record(), before measuring), then one measurement
 * is one launch (pto_graph_launch(), one entry) to its one CQE. Per
 * repetition the sizes run small, large, large, small; the per-task cost
 * is the slope between the sizes, as for the simulator, whose every run
 * starts and joins its threads. Output, per workload:
 *
 *	=== PTO-PEER {"runtime":"pto-npu",...,"per_task_us":...}
 *
 * usage: pto-peer [REPS [WORKLOAD]]
 */
#include <pto/graph.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pto/pto.h>

#define CQE_CAP 8192

static struct pto_device *dev;
static struct pto_queue *q;
static struct pto_kernel *k_empty;
static struct pto_tensor *gate;
static struct pto_cqe cqe[CQE_CAP];
/* The last measurement's sections, us: push, doorbell (intake), reap. */
static double sec_push, sec_doorbell, sec_reap;

static int die(const char *what, int ret)
{
	fprintf(stderr, "pto-peer: %s: %s\n", what, pto_strerror(ret));
	exit(1);
}

/* Reap until @tasks tasks have posted their last CQE. */
static void drain(unsigned int tasks)
{
	int64_t deadline = pto_time_ns() + INT64_C(120) * 1000 * 1000 * 1000;
	unsigned int last = 0;

	while (last < tasks) {
		int n = pto_queue_reap(q, cqe, CQE_CAP), i, ret;

		if (n < 0)
			die("reap", n);
		if (!n && (ret = pto_queue_wait(q, deadline)) && ret != -EINTR)
			die("wait", ret);
		for (i = 0; i < n; i++) {
			const struct pto_block_info *b = &cqe[i].info;

			if (!(b->flags & PTO_BLOCK_LAST))
				continue;
			if (b->status != PTO_STATUS_OK && b->status != PTO_STATUS_SKIPPED) {
				fprintf(stderr, "pto-peer: task ended %s\n", pto_status_name(b->status));
				exit(1);
			}
			last++;
		}
	}
}

/* One measurement of @kind at size @n: push to last CQE, us. */
static double run_us(int kind, unsigned int n)
{
	static const int64_t prev = -1;
	static const struct pto_predicate pred = { .tensor = 0, .op = PTO_CMP_GT };
	struct pto_task_desc d = { .kernel_aiv = k_empty, .block_num = 1 };
	unsigned int tasks = kind == 3 ? n * 48 : n, i, consumed = 0;
	int64_t t0 = pto_time_ns(), t1, t2;
	int ret;

	if (kind == 2) {
		d.tensors = &gate;
		d.num_tensors = 1;
		d.predicate = &pred;
	}
	if (kind == 4)
		d.block_num = 48;
	for (i = 0; i < tasks; i++) {
		d.deps = kind == 1 && i ? &prev : NULL;
		d.num_deps = kind == 1 && i ? 1 : 0;
		if ((ret = pto_queue_push_task(q, &d)))
			die("push", ret);
	}
	t1 = pto_time_ns();
	if ((ret = pto_queue_doorbell(q, 0, 0, &consumed, NULL)))
		die("doorbell", ret);
	if (consumed != tasks) {
		fprintf(stderr, "pto-peer: doorbell took %u of %u\n", consumed, tasks);
		exit(1);
	}
	t2 = pto_time_ns();
	drain(tasks);
	sec_push = (double)(t1 - t0) / 1e3;
	sec_doorbell = (double)(t2 - t1) / 1e3;
	sec_reap = (double)(pto_time_ns() - t2) / 1e3;
	return (double)(pto_time_ns() - t0) / 1e3;
}

/* The tasks of @kind at size @n as a recorded graph. */
static struct pto_graph_exec *record(int kind, unsigned int n)
{
	static const struct pto_predicate pred = { .tensor = 0, .op = PTO_CMP_GT };
	struct pto_task_desc d = { .kernel_aiv = k_empty, .block_num = 1 };
	unsigned int tasks = kind == 3 ? n * 48 : n, i;
	struct pto_graph_exec *x = NULL;
	struct pto_graph *g;
	int64_t dep;
	int ret;

	if (kind == 2) {
		d.tensors = &gate;
		d.num_tensors = 1;
		d.predicate = &pred;
	}
	if (kind == 4)
		d.block_num = 48;
	if ((ret = pto_graph_new(dev, &g)))
		die("graph", ret);
	for (i = 0; i < tasks; i++) {
		dep = (int64_t)i - 1;
		d.deps = kind == 1 && i ? &dep : NULL;
		d.num_deps = kind == 1 && i ? 1 : 0;
		if ((ret = pto_graph_add_task(g, &d)) < 0)
			die("graph add", ret);
	}
	if ((ret = pto_graph_record(g, NULL, 0, NULL, 0, &x))) {
		fprintf(stderr, "pto-peer: record: %s\n", pto_graph_error(g));
		die("record", ret);
	}
	pto_graph_free(g);
	return x;
}

/* One launch of @x to its CQE, us. */
static double launch_us(struct pto_graph_exec *x)
{
	int64_t t0 = pto_time_ns(), t1;
	struct pto_cqe res;
	uint64_t id = 0;
	int ret;

	if ((ret = pto_graph_launch(x, q, NULL, NULL, &id)))
		die("launch", ret);
	t1 = pto_time_ns();
	ret = pto_graph_exec_wait(q, id, INT64_C(120) * 1000 * 1000 * 1000, &res);
	if (ret) {
		fprintf(stderr, "pto-peer: launch ended %s (node %u)\n",
			pto_status_name(res.info.status), res.info.block);
		exit(1);
	}
	sec_push = 0;
	sec_doorbell = (double)(t1 - t0) / 1e3;
	sec_reap = (double)(pto_time_ns() - t1) / 1e3;
	return (double)(pto_time_ns() - t0) / 1e3;
}

static double form_us(struct pto_graph_exec *x, int kind, unsigned int n)
{
	return x ? launch_us(x) : run_us(kind, n);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int kind; unsigned int small, large; } wl[] = {
		{ "fan", 0, 200, 2000 }, { "chain", 1, 200, 2000 }, { "skip", 2, 200, 2000 },
		{ "singles48", 3, 5, 40 }, { "spmd48", 4, 5, 40 },
	};
	int reps = argc > 1 ? atoi(argv[1]) : 7, r, w, f, ret;
	const char *only = argc > 2 ? argv[2] : NULL;
	const int64_t shape[2] = { 1, 16 };
	double ts[64], tl[64], sl[64], sp[3][64];
	struct pto_kb *kb;

	if (reps < 1 || reps > 64) {
		fprintf(stderr, "usage: pto-peer [REPS (1..64) [WORKLOAD]]\n");
		return 2;
	}
	if ((ret = pto_device_open(0, &dev)))
		die("open device 0", ret);
	if ((ret = pto_queue_create(dev, 32768, 65536, &q)))
		die("queue", ret);
	if ((ret = pto_kb_new(dev, PTO_CORE_AIV, &kb)))
		die("kernel builder", ret);
	pto_kb_end(kb);
	if ((ret = pto_kb_finish(kb, &k_empty)))
		die("empty kernel", ret);
	pto_kb_free(kb);
	if ((ret = pto_tensor_alloc(dev, PTO_DTYPE_I32, 2, shape, &gate)))
		die("gate tensor", ret);
	memset(pto_tensor_data(gate), 0, 64);
	run_us(0, 200); /* warm up: page in the rings, spawn the workers */
	for (f = 0; f < 2 * (int)(sizeof(wl) / sizeof(wl[0])); f++) {
		double mn = 1e300, mx = -1e300, ms = 1e300, ml = 1e300;
		struct pto_graph_exec *xs = NULL, *xl = NULL;
		bool replay = f & 1;

		w = f / 2;
		if (only && strcmp(only, wl[w].name))
			continue;
		if (replay) {
			xs = record(wl[w].kind, wl[w].small);
			xl = record(wl[w].kind, wl[w].large);
			launch_us(xs);
		}
		for (r = 0; r < reps; r++) {
			double s1 = form_us(xs, wl[w].kind, wl[w].small);
			double l1 = form_us(xl, wl[w].kind, wl[w].large);
			double l2 = form_us(xl, wl[w].kind, wl[w].large), s2;

			/* The sections of the second large run, per task (per form). */
			sp[0][r] = sec_push / wl[w].large;
			sp[1][r] = sec_doorbell / wl[w].large;
			sp[2][r] = sec_reap / wl[w].large;
			s2 = form_us(xs, wl[w].kind, wl[w].small);

			ts[r] = (s1 + s2) / 2;
			tl[r] = (l1 + l2) / 2;
			sl[r] = (tl[r] - ts[r]) / (wl[w].large - wl[w].small);
			mn = sl[r] < mn ? sl[r] : mn;
			mx = sl[r] > mx ? sl[r] : mx;
			ms = ts[r] < ms ? ts[r] : ms;
			ml = tl[r] < ml ? tl[r] : ml;
		}
		pto_graph_exec_free(xs);
		pto_graph_exec_free(xl);
		printf("=== PTO-PEER {\"runtime\":\"%s\",\"width\":\"%u clusters\",\"clusters\":%u,"
		       "\"workload\":\"%s\",\"n_small\":%u,\"n_large\":%u,\"slopes_us\":[",
		       replay ? "pto-npu-replay" : "pto-npu",
		       pto_available_cluster_count(dev), pto_available_cluster_count(dev), wl[w].name,
		       wl[w].small, wl[w].large);
		for (r = 0; r < reps; r++)
			printf("%s%.3f", r ? "," : "", sl[r]);
		printf("],\"t_small_us\":%.1f,\"t_large_us\":%.1f,\"per_task_us\":%.3f,"
		       "\"per_task_min_us\":%.3f,\"per_task_max_us\":%.3f,\"per_task_of_minima_us\":%.3f,"
		       "\"push_us\":%.3f,\"doorbell_us\":%.3f,\"reap_us\":%.3f,\"reps\":%d}\n",
		       median(ts, reps), median(tl, reps), median(sl, reps), mn, mx,
		       (ml - ms) / (wl[w].large - wl[w].small), median(sp[0], reps), median(sp[1], reps),
		       median(sp[2], reps), reps);
		fflush(stdout);
	}
	pto_tensor_free(gate);
	pto_kernel_free(k_empty);
	pto_queue_destroy(q);
	pto_device_close(dev);
	return 0;
}
