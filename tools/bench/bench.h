// SPDX-License-Identifier: MIT
/*
 * bench.h: what the files of pto-bench share (bench-core.c: the report,
 * the row table and main; bench-dev.c: the device helpers; rows-*.c: the
 * rows). Adding a row: see the row table in bench-core.c.
 */
#ifndef PTO_BENCH_H
#define PTO_BENCH_H

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
/*
 * The work budget of the bench's queues: the device's default (2^18) is
 * for runaway kernels; row 12's load runs for hundreds of milliseconds.
 */
#define BENCH_WORK_BUDGET (UINT64_C(1) << 30)

struct series {
	double v[SERIES_CAP];
	int n;
};

struct summary {
	double median, min, max, q1, q3;
	int n;
};

struct jbuf {
	char *p;
	size_t len, cap;
	bool first[16];
	int depth;
};

enum target_op { T_NONE, T_GE, T_LE };

struct extra {
	char key[48];
	struct series s;
};

struct bench;

/*
 * A row's header: what the report says of the row, the same in every run.
 * A row function writes it as a designated initializer and hands it to
 * row_start(), with the sentence of what is compared (a printf format:
 * it may name the row's sizes).
 */
struct row_head {
	const char *id;
	const char *title;
	const char *a_label, *a_unit;
	const char *b_label, *b_unit;
	const char *ratio_def;
	enum target_op op;
	double target;
	bool target_on_a;
	const char *target_text;
};

/*
 * One row of the report: figure a and figure b measured side by side;
 * ratio = a / b per repetition. The target applies to the ratio, or with
 * target_on_a to figure a itself; h: the header, from row_start().
 */
struct row {
	struct row_head h;
	const char *what;
	struct series a, b, ratio;
	struct extra extra[MAX_EXTRA];
	int nextra;
	char status[32];
	char note[1024];
	int fails;
	char what_buf[400];	/* r->what, as row_start() formats it */
};

/*
 * One measurement of form A (@b false) or form B of a row, its figure in
 * *v; @arg: the row's own parameters. 0, or an error with B->err set.
 */
typedef int (*row_form_fn)(struct bench *B, struct row *r, bool b,
			   const void *arg, double *v);

/* row_abba() flags: measure B A A B; the figures are rates (tasks/s). */
enum { ABBA_B_FIRST = 1, ABBA_RATES = 2 };

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

/*
 * One entry of the row table (bench-core.c): the row's number, as -R and
 * the report name it (its sub-rows, 3.4 or 4b, run together); parallel:
 * run in pass 2 (-P 2), on more than one vCPU; run: the function that
 * measures and emits it.
 */
struct bench_row {
	int n;
	bool parallel;
	void (*run)(struct bench *B);
};

/* bench-core.c */
void row_note(struct row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void row_fail(struct row *r, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
double median_of(double *v, size_t n);
void jb_open(struct jbuf *j, const char *key);
void jb_close(struct jbuf *j);
void jb_num(struct jbuf *j, const char *key, double v);
void jb_str(struct jbuf *j, const char *key, const char *s);
bool rep_failed(struct row *r, const char *err, int rep);
void row_extra(struct row *r, const char *key, double v);
void row_pair(struct row *r, double a, double b);
void row_emit(struct row *r);
void row_start(struct row *r, const struct row_head *h, const char *what, ...)
	__attribute__((format(printf, 3, 4)));
void row_error(struct row *r, const char *err);
void row_abba(struct bench *B, struct row *r, row_form_fn form,
	      const void *arg, int flags);

/* bench-dev.c */
void berr(struct bench *B, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int64_t now_ns(void);
int query_counters(struct bench *B, struct drm_pto_npu_counters *c);
struct pto_insn insn(uint8_t op, uint8_t dst, uint8_t a, uint8_t b,
		     uint8_t mode, uint16_t flags, int64_t imm);
int kernel_raw(struct bench *B, enum pto_core_type ct,
	       const struct pto_insn *in, uint32_t n,
	       struct pto_kernel **out);
int kb_done(struct bench *B, struct pto_kb *kb, const char *what,
	    struct pto_kernel **out);
int push(struct bench *B, const struct pto_task_desc *d);
int doorbell(struct bench *B, uint32_t expect, uint64_t *first_id);
int drain(struct bench *B, unsigned int ntasks, bool skip_ok);
double makespan_ns(const struct bench *B);
void block_spans(struct bench *B, struct row *r, const char *pfx);
double median_kernel_us(struct bench *B);
struct pto_task_desc empty_task(struct bench *B);
int gate_push(struct bench *B, uint32_t flags);
int gate_open(struct bench *B);
void gate_force(struct bench *B);
void gate_abort(struct bench *B, unsigned int ntasks);
struct pto_tensor *tensor2(struct bench *B, enum pto_dtype dt,
			   int64_t rows, int64_t cols);
void fill_f32(struct pto_tensor *t, unsigned int seed);
int ctx_open(struct bench *C, uint32_t sq_slots, uint32_t cq_entries);
void ctx_close(struct bench *C);
void cqe_window(const struct bench *B, uint64_t *first, uint64_t *last);
uint32_t pow2_at_least(uint32_t n);
int queues_create(struct bench *B, const uint32_t *flags, unsigned int n,
		  struct pto_queue **qs);
int batch_run(struct bench *B, const struct pto_task_desc *d, unsigned int n,
	      bool skip_ok, int64_t t[4]);
void batch_extras(struct row *r, const char *pfx, const int64_t t[4],
		  unsigned int n);
void trace_summary(struct bench *B);
int setup(struct bench *B);
void teardown(struct bench *B);

/* rows-overhead.c */
double null_ioctl_us(struct bench *B, int n);
int empty_batch(struct bench *B, struct row *r, unsigned int n,
		const char *pfx, double *per_task_us);
void row1_overhead(struct bench *B);
void row2_throughput(struct bench *B);
void row13_infer(struct bench *B);
void row15_profile(struct bench *B);

/* rows-techniques.c */
void row3_spmd_all(struct bench *B);
void row5_predicate(struct bench *B);
void row6_early(struct bench *B);
void row7_barrier(struct bench *B);

/* rows-mixed.c */
void row4_mixed_all(struct bench *B);

/* rows-compute.c */
/* Row 8's tiles (row 14 copies with row8_kernel() too). */
enum { R8_TR = 64, R8_COLS = 128 };
int row8_kernel(struct bench *B, bool add, struct pto_kernel **k);
void row8_bandwidth(struct bench *B);
void row9_matmul(struct bench *B);

/* rows-memory.c */
/* Slab + VmallocUsed (+ Shmem) of /proc/meminfo; debugfs spare task bytes. */
double kmem_bytes(bool shmem, double *slab_out, double *vmalloc_out);
double spare_bytes(struct bench *B, bool *ok);
void row10_memory(struct bench *B);
void row14_memory_model(struct bench *B);

/* rows-contexts.c */
void row11_processes(struct bench *B);
void row12_start_delay(struct bench *B);

/* rows-replay.c */
void row16_replay(struct bench *B);
void row17_replay_node(struct bench *B);
void row18_replay_launch(struct bench *B);
void row19_replay_memory(struct bench *B);

#endif /* PTO_BENCH_H */
