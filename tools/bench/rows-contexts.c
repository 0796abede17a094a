// SPDX-License-Identifier: MIT
/*
 * rows-contexts.c: pto-bench rows 11 and 12 (processes, start delay).
 */
#include "bench.h"

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

/* The ready, go and result pipes of one form of row 11. 0, or pipe's error. */
static int r11_pipes(struct bench *B, int ready[2], int go[2], int out[2])
{
	int ret;

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
	return 0;

err_pipe:
	ret = -errno;
	berr(B, "pipe: %s", strerror(-ret));
	return ret;
}

/* The workers' results of one form, taken together (t0: the release). */
struct r11_agg {
	int64_t end, end_min, go_max;
	uint64_t disp, fin;
};

static int r11_reduce(struct bench *B, const struct r11_result *res,
		      unsigned int got, unsigned int procs, int64_t t0,
		      struct r11_agg *g)
{
	unsigned int i;

	*g = (struct r11_agg){ .end = 0, .end_min = INT64_MAX, .go_max = 0,
			       .disp = UINT64_MAX, .fin = 0 };
	if (got < procs) {
		berr(B, "%u of %u worker processes sent no result", procs - got, procs);
		return -EIO;
	}
	for (i = 0; i < got; i++) {
		if (res[i].ret) {
			berr(B, "worker process: %s", res[i].err);
			return res[i].ret;
		}
		if (res[i].t_end > g->end)
			g->end = res[i].t_end;
		if (res[i].t_end < g->end_min)
			g->end_min = res[i].t_end;
		if (res[i].t_go - t0 > g->go_max)
			g->go_max = res[i].t_go - t0;
		if (res[i].first_dispatch < g->disp)
			g->disp = res[i].first_dispatch;
		if (res[i].last_finish > g->fin)
			g->fin = res[i].last_finish;
	}
	return 0;
}

static void r11_extras(struct row *r, unsigned int procs, unsigned int n,
		       double us, const struct r11_agg *g)
{
	const char *pfx = procs > 1 ? "n_procs" : "one_proc";
	char key[64];

	snprintf(key, sizeof(key), "%s_us_per_task", pfx);
	row_extra(r, key, us / (procs * n));
	snprintf(key, sizeof(key), "%s_device_makespan_us_per_task", pfx);
	row_extra(r, key, g->fin > g->disp ?
		  (double)(g->fin - g->disp) / 1e3 / (procs * n) : NAN);
	snprintf(key, sizeof(key), "%s_last_worker_off_barrier_us", pfx);
	row_extra(r, key, (double)g->go_max / 1e3);
	if (procs > 1)
		row_extra(r, "n_procs_first_to_last_worker_end_us",
			  (double)(g->end - g->end_min) / 1e3);
}

/*
 * Fork @procs workers of @n tasks each on the pipes (see r11_worker()):
 * their pids in @pid, how many forked in *started. 0, or fork's error.
 */
static int r11_spawn(struct bench *B, unsigned int procs, unsigned int n,
		     const int ready[2], const int go[2], const int out[2],
		     pid_t *pid, unsigned int *started)
{
	unsigned int i;
	int ret = 0;

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
		(*started)++;
	}
	return ret;
}

/*
 * The parent's side of the barrier: every worker ready, then released at
 * once (*t0). The results of the workers in @res; returns how many.
 */
static unsigned int r11_release(const int ready[2], const int go[2],
				const int out[2], unsigned int started,
				struct r11_result *res, int64_t *t0)
{
	unsigned int i, got = 0;
	char c;

	close(ready[1]);
	close(go[0]);
	close(out[1]);
	for (i = 0; i < started; i++)
		if (read_full(ready[0], &c, 1) != 1)
			break;
	/* Go: every worker's read of the start pipe returns at once. */
	*t0 = now_ns();
	close(go[1]);
	while (got < started &&
	       read_full(out[0], &res[got], sizeof(res[0])) == sizeof(res[0]))
		got++;
	close(ready[0]);
	close(out[0]);
	return got;
}

/*
 * Reap the @started workers: @ret, or when that is 0 -EIO for the first
 * that did not exit with 0 (B->err says which).
 */
static int r11_reap(struct bench *B, const pid_t *pid, unsigned int started,
		    int ret)
{
	unsigned int i;
	int status = 0;

	for (i = 0; i < started; i++) {
		bool ok = waitpid(pid[i], &status, 0) == pid[i] &&
			  WIFEXITED(status) && !WEXITSTATUS(status);

		if (!ok && !ret) {
			berr(B, "worker process %u ended with status 0x%x", i, status);
			ret = -EIO;
		}
	}
	return ret;
}

/*
 * One form of row 11: @procs worker processes of @n tasks each, released
 * together. *us: the barrier's release to the last worker's last CQE.
 */
static int r11_form(struct bench *B, struct row *r, unsigned int procs,
		    unsigned int n, double *us)
{
	struct r11_result res[R11_PROCS];
	int ready[2], go[2], out[2], ret;
	unsigned int started = 0, got;
	pid_t pid[R11_PROCS];
	struct r11_agg g;
	int64_t t0;

	if ((ret = r11_pipes(B, ready, go, out)))
		return ret;
	ret = r11_spawn(B, procs, n, ready, go, out, pid, &started);
	got = r11_release(ready, go, out, started, res, &t0);
	if ((ret = r11_reap(B, pid, started, ret)))
		return ret;
	if ((ret = r11_reduce(B, res, got, procs, t0, &g)))
		return ret;
	*us = (double)(g.end - t0) / 1e3;
	if (r)
		r11_extras(r, procs, n, *us, &g);
	return 0;
}

static const struct row_head r11_head = {
	.id = "11",
	.title = "4 processes x N empty tasks vs 1 x 4N",
	.a_label = "4 processes", .a_unit = "tasks/s",
	.b_label = "1 process", .b_unit = "tasks/s",
	.ratio_def = "4 processes / 1 process",
	.op = T_GE, .target = 0.8,
	.target_text = "4 processes >= 0.8 x 1 process",
};

void row11_processes(struct bench *B)
{
	unsigned int n = B->quick ? 500 : R11_N;
	struct row r;
	double t4, t1;
	int rep;

	row_start(&r, &r11_head,
		  "aggregate throughput: %u processes, each its own device context and queue, %u independent empty one-block AIV tasks each (one doorbell), released together vs one process of %u; release to the last process's last CQE",
		  R11_PROCS, n, R11_PROCS * n);

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
 * quarter of the bench queues' work budget (BENCH_WORK_BUDGET): a fast host
 * gets a shorter load rather than tasks ended by the budget.
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

static const struct row_head r12_head = {
	.id = "12",
	.title = "start delay on an idle core, CPUs busy",
	.a_label = "start delay under load", .a_unit = "us",
	.b_label = "quantum", .b_unit = "us",
	.ratio_def = "start delay / quantum",
	.op = T_LE, .target = 2.0,
	.target_text = "start delay <= 2 x quantum",
};

/* Row 12's load: @nload spin tasks of @outer x R12_INNER in context L. */
struct r12_load {
	struct bench *L;
	struct pto_kernel *k;
	int64_t outer;
	unsigned int nload, nstart;
};

/*
 * The probe under load: the load pushed, its first @nstart tasks on cores
 * (each on a core first, then into its run), R12_PROBE_AFTER_MS, the
 * probe; the load drained either way, so that the next repetition starts
 * on an idle device. 0: *busy measured; 1: the load did not start
 * (ld->L->err); -1: the repetition failed, *err says why.
 */
static int r12_loaded(struct bench *B, const struct r12_load *ld,
		      struct pto_block_info *busy, int64_t *t_busy,
		      const char **err)
{
	struct drm_pto_npu_counters units;
	struct bench *L = ld->L;
	int64_t t_load;
	int ret;

	if (query_counters(L, &units) ||
	    r12_push_load(L, ld->k, ld->outer, ld->nload))
		return 1;
	ret = r12_wait_units(L, units.units, ld->nstart);
	t_load = now_ns();
	sleep_until(t_load + R12_PROBE_AFTER_MS * INT64_C(1000000));
	if (!ret)
		ret = r12_probe(B, busy, t_busy);
	else
		memcpy(B->err, L->err, sizeof(B->err));
	if (drain(L, ld->nload, false)) {
		*err = L->err;
		return -1;
	}
	if (ret) {
		*err = B->err;
		return -1;
	}
	return 0;
}

/*
 * One repetition of row 12: the probe on an idle device, then under
 * load. false: the row stops.
 */
static bool r12_rep(struct bench *B, struct row *r, const struct r12_load *ld,
		    int rep)
{
	struct pto_block_info idle, busy;
	int64_t t_sub, t_busy;
	const char *err;
	int ret;

	if (r12_probe(B, &idle, &t_sub))
		return !rep_failed(r, B->err, rep);
	row_extra(r, "idle_start_delay_us",
		  (double)(idle.ts_start - idle.ts_dispatch) / 1e3);
	row_extra(r, "idle_submit_to_start_us",
		  ((double)idle.ts_start - (double)t_sub) / 1e3);

	ret = r12_loaded(B, ld, &busy, &t_busy, &err);
	if (ret > 0) {
		row_fail(r, "error", "load: %s", ld->L->err);
		return false;
	}
	if (ret)
		return !rep_failed(r, err, rep);
	row_pair(r, (double)(busy.ts_start - busy.ts_dispatch) / 1e3,
		 R12_QUANTUM_US);
	row_extra(r, "loaded_submit_to_start_us",
		  ((double)busy.ts_start - (double)t_busy) / 1e3);
	r12_load_extras(ld->L, r, &busy);
	return true;
}

/*
 * Row 12's load context L, its spin kernel *k and its calibration
 * (*outer, *alone_ms); the probe's path warmed up. false: row failed.
 */
static bool r12_prepare(struct bench *B, struct row *r, struct bench *L,
			struct pto_kernel **k, int64_t *outer, double *alone_ms)
{
	struct pto_block_info idle;
	int64_t t_sub;

	if (ctx_open(L, 256, 0) || r12_spin_kernel(L, k) ||
	    r12_calibrate(L, *k, outer, alone_ms)) {
		row_fail(r, "error", "%s", L->err);
		return false;
	}
	row_note(r, "load kernel: %lld x %d iterations, %.0f ms alone.",
		 (long long)*outer, R12_INNER, *alone_ms);
	/* Warm up the probe's path (its kernel, the AIC cores). */
	if (r12_probe(B, &idle, &t_sub)) {
		row_fail(r, "error", "%s", B->err);
		return false;
	}
	return true;
}

void row12_start_delay(struct bench *B)
{
	unsigned int nload = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN) + 3;
	unsigned int nstart = nload < B->aiv ? nload : B->aiv;
	int rep, reps = B->reps < 7 ? B->reps : 7;
	struct pto_kernel *k_spin = NULL;
	struct bench L = { 0 };
	double alone_ms = NAN;
	int64_t outer = 0;
	struct row r;

	row_start(&r, &r12_head,
		  "one empty one-block AIC task submitted %d ms after %u one-block AIV tasks of ~%d ms of scalar ALU work each (online CPUs + 3, another context) were all on cores: its ts_dispatch -> ts_start vs the device's scheduling quantum",
		  R12_PROBE_AFTER_MS, nload, R12_LOAD_MS);

	if (r12_prepare(B, &r, &L, &k_spin, &outer, &alone_ms)) {
		struct r12_load ld = { &L, k_spin, outer, nload, nstart };

		for (rep = 0; rep < reps; rep++)
			if (!r12_rep(B, &r, &ld, rep))
				break;
		row_extra(&r, "load_tasks", nload);
		row_extra(&r, "load_kernel_ms_alone", alone_ms);
	}
	row_emit(&r);
	pto_kernel_free(k_spin);
	ctx_close(&L);
}
