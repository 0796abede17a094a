/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fuzz kselftest's helpers: what its tests (../fuzz.c) share. The
 * tests and their fixture are in fuzz.c, the one file that includes the
 * kselftest harness (which keeps its test list in static variables of the
 * file that includes it); the helpers, which need no harness, are compiled
 * from the files of this directory into the same fuzz binary:
 *
 *   core.c          PTO_FUZZ_SEED/PTO_FUZZ_ITERS, the random streams, the
 *                   per-call figures and expected errnos, raw ioctls,
 *                   broken user pointers, handle pools
 *   queue.c         a queue driven through its mapped ring; the CQE checks;
 *                   the good task every test runs amid the fuzz
 *   buffers.c       QUERY, BO_CREATE/INFO, GEM close, mmap, PRIME, unknown
 *                   ioctls (query_buffers_mmap_prime)
 *   programs.c      random, generated and mutated kernel programs
 *                   (kernel_create_destroy, verifier_programs_run)
 *   queue_ioctls.c  syncobj ioctls, ring sizes (queue_ioctls_and_syncobjs)
 *   entries.c       valid and corrupted SQ entries (sq_entries)
 *   runs.c          guarded tensor buffers, LAST CQEs of run tasks
 *                   (verifier_programs_run, hostile_kernels)
 *   race.c          the threads of race_close_submit_wait
 *
 * Copyright (C) 2026 pto-npu authors
 */
#ifndef PTO_FUZZ_H
#define PTO_FUZZ_H

#include <stdbool.h>
#include <stdint.h>

#define PTO_TEST_LIBPTO
#include "../lib/pto_test_lib.h"

#define FZ_DEFAULT_SEED 0x5eed2026ull
#define FZ_DEFAULT_ITERS 600

#define FZ_N(a) (sizeof(a) / sizeof((a)[0]))

/* Device timeout while the fuzzer runs kernels that may never end. */
#define FZ_TIMEOUT_MS 200
/* Work budget of the fuzzer's queues: random kernels that never end. */
#define FZ_WORK_BUDGET (1u << 20)
/* How long any batch of fuzz tasks may take to drain. */
#define FZ_DRAIN_NS PTO_TEST_SEC(120)
/* Live objects the fuzzer keeps per pool. */
#define FZ_POOL 64
/* Bytes of the good-memory area the broken pointers are carved around. */
#define FZ_RW_PAGES 32
/* The user_data of untouched entries: must complete with STATUS_OK. */
#define FZ_PRISTINE 0xc0ffee4200000000ull
#define FZ_PRISTINE_MASK 0xffffffff00000000ull
/* An untouched entry the kernel took, left in the ring (fz_q_unmark()). */
#define FZ_STALE 0x5ea1ed4200000000ull
/* Largest buffer the fuzzer maps (see fz_one_mmap()). */
#define FZ_MMAP_MAX (16u << 20)
/* Iterations from which the slow cases (the largest launch) run too. */
#define FZ_LONG_ITERS 5000
/* Tensor arguments of one task (the uapi's cap). */
#define FZ_TENSORS 16
/* First unexpected results printed per test. */
#define FZ_PRINT_MAX 20

/* ------------------------------------------------------------ config */

uint64_t fz_seed(void);
unsigned long fz_iters(void);

/* ------------------------------------------------------------ random */

struct fz_rng {
	uint64_t s;
};

uint64_t fz_next(struct fz_rng *r);
uint32_t fz_below(struct fz_rng *r, uint32_t n);
bool fz_pct(struct fz_rng *r, unsigned int pct);
/* Each test draws from a stream of its own: seed and test name. */
void fz_rng_init(struct fz_rng *r, const char *name);
/* An integer from the edges fuzzers like, powers of two, small or random. */
uint64_t fz_int(struct fz_rng *r);
void fz_bytes(struct fz_rng *r, void *p, size_t n);
/* Flip 1..8 random bits of @n bytes. */
void fz_flip(struct fz_rng *r, void *p, size_t n);

/* ------------------------------------------------------------ stats */

enum fz_op {
	FZ_QUERY,
	FZ_BO_CREATE,
	FZ_BO_INFO,
	FZ_GEM_CLOSE,
	FZ_MMAP,
	FZ_PRIME,
	FZ_KERNEL_CREATE,
	FZ_KERNEL_DESTROY,
	FZ_QUEUE_CREATE,
	FZ_QUEUE_DESTROY,
	FZ_QUEUE_SUBMIT,
	FZ_QUEUE_WAIT,
	FZ_SYNCOBJ,
	FZ_RAW_IOCTL,
	FZ_SQE,
	FZ_CQE,
	FZ_TASK_RUN,
	FZ_GM_GUARD,
	FZ_NOPS,
};

/* When the test started. */
extern int64_t fz_t0;

void fz_count(enum fz_op op);
__attribute__((format(printf, 2, 3))) void
fz_unexpected(enum fz_op op, const char *fmt, ...);

/* Errnos each call may fail with besides success (zero-terminated). */
extern const int E_QUERY[], E_BO_CREATE[], E_BO_INFO[], E_GEM_CLOSE[],
	E_MMAP[], E_PRIME[], E_KCREATE[], E_KDESTROY[], E_QCREATE[],
	E_QDESTROY[], E_SUBMIT[], E_WAIT[], E_SYNCOBJ[], E_RAW[];

/* Count a call returning @ret (0 or -errno); false if the errno is not in @ok. */
bool fz_note(enum fz_op op, int ret, const int *ok, const char *what);
/* A call that must have failed with @want (or any listed error if 0). */
void fz_must_fail(enum fz_op op, int ret, int want, const char *what);
void fz_must_pass(enum fz_op op, int ret, const char *what);
/* Prints the figures; returns the number of unexpected results. */
unsigned long fz_report(void);

/* ------------------------------------------------------------ raw ioctls */

int fz_ioctl(int fd, unsigned long req, void *arg);
int fz_kernel_create(int fd, uint32_t core, const struct pto_insn *p,
		     uint32_t n, const struct pto_tile_decl *t, uint32_t nt,
		     uint32_t *handle);
int fz_kernel_destroy(int fd, uint32_t handle);

/* ------------------------------------------------------------ user memory */

/* The last fz_uptr() ran into the PROT_NONE page part way (a write may fit). */
extern bool fz_partial;

/*
 * Memory the broken pointers are made of: FZ_RW_PAGES good pages, then a
 * PROT_NONE page, then a read-only page; plus a range that was unmapped.
 */
struct fz_mem {
	size_t page;
	uint8_t *rw;
	uint8_t *none;
	uint8_t *ro;
	uint8_t *gone;
};

int fz_mem_init(struct fz_mem *m);

/*
 * A user pointer to @len bytes of @good: mostly @good itself, else a copy
 * at an odd address (still good), or a broken pointer: NULL, unmapped,
 * PROT_NONE, read-only (broken for @write), kernel, non-canonical, random,
 * or a copy that runs into the PROT_NONE page. *@bad is set only when the
 * kernel surely cannot access all @len bytes.
 */
uint64_t fz_uptr(struct fz_rng *r, struct fz_mem *m, const void *good,
		 size_t len, bool write, bool *bad);

/* ------------------------------------------------------------ pools */

struct fz_pool {
	uint32_t live[FZ_POOL];
	unsigned int nlive;
	uint32_t dead[16];
	unsigned int ndead;
};

void fz_pool_add(struct fz_pool *p, uint32_t h);
/* Removes and returns live entry @i. */
uint32_t fz_pool_take(struct fz_pool *p, unsigned int i);
/* A handle: a live one, a dead one, 0, ~0 or random. *@live tells which. */
uint32_t fz_pool_pick(struct fz_rng *r, const struct fz_pool *p, bool *live);

/* ------------------------------------------------------------ queues */

struct fz_q {
	struct drm_pto_npu_queue_create c;
	uint8_t *map;
	struct drm_pto_npu_ring_header *hdr;
	uint8_t *sq;
	struct drm_pto_npu_cqe *cq;
	uint32_t tail;
	uint32_t head;
	bool scribbled;
};

int fz_q_open_budget(int fd, uint32_t sq, uint32_t cq, uint64_t budget,
		     struct fz_q *q);
/* Random kernels that never end stop after FZ_WORK_BUDGET instructions. */
int fz_q_open(int fd, uint32_t sq, uint32_t cq, struct fz_q *q);
/* Unmaps, destroys, closes the ring handle. Returns QUEUE_DESTROY's result. */
int fz_q_close(int fd, struct fz_q *q);
uint32_t fz_q_sq_head(const struct fz_q *q);
bool fz_q_room(const struct fz_q *q, uint32_t n);
/* Writes @n slots of @e at our tail and publishes them. */
void fz_q_push(struct fz_q *q, const void *e, uint32_t n);
/* With nothing pending: every untouched entry left in the SQ is stale. */
void fz_q_unmark(struct fz_q *q);
/* After a doorbell with a scribbled header: our indices back in the ring. */
void fz_q_resync(struct fz_q *q);
int fz_q_doorbell(int fd, struct fz_q *q, uint32_t syncobj, uint64_t point,
		  uint32_t *consumed, uint64_t *first);

/* Checks of every CQE read. */
struct fz_cqe_seen {
	unsigned long cqes;
	unsigned long lasts;
	unsigned long pristine;
	unsigned long status[DRM_PTO_NPU_STATUS_WORKSPACE + 1];
	/* Callback per LAST CQE, may be NULL. */
	void (*last)(void *arg, const struct drm_pto_npu_cqe *c);
	void *arg;
};

void fz_q_reap(struct fz_q *q, struct fz_cqe_seen *s);
/*
 * Ring and wait until every published entry is taken and every task of the
 * queue has posted all its CQEs, checking each. 0, or -ETIME.
 */
int fz_q_drain(int fd, struct fz_q *q, struct fz_cqe_seen *s,
	       int64_t timeout_ns);

/* ------------------------------------------------------------ the good task */

#define INSN(o, d, aa, bb, cc, m, f, i)                                       \
	((struct pto_insn){ .op = (o), .dst = (d), .a = (aa), .b = (bb),      \
			    .c = (cc), .mode = (m), .flags = (f), .imm = (i) })

#define FZ_GOOD_ARG 7
#define FZ_GOOD_COLS 16

/* out[0, j] = in[0, j] * 3 + arg0 for j < 16 (int32): the good kernel. */
int fz_good_kernel(int fd, uint32_t *handle);
/* A kernel of a single END on @core. */
int fz_end_kernel(int fd, uint32_t core, uint32_t *handle);
/* The good task's entry: in, out int32 [1, 16] in buffers @in and @out. */
uint32_t fz_good_entry(struct pto_test_sqe *e, uint32_t kernel, uint32_t in,
		       uint32_t out, uint64_t user_data);

/* ------------------------------------------------------------ buffers.c */

void fz_one_query(struct fz_rng *r, struct fz_mem *m, int fd);
void fz_one_bo_create(struct fz_rng *r, int fd, struct fz_pool *p,
		      const struct drm_pto_npu_limits *lim);
void fz_one_bo_info(struct fz_rng *r, int fd, const struct fz_pool *p,
		    bool foreign);
void fz_one_gem_close(struct fz_rng *r, int fd, struct fz_pool *p);
void fz_one_mmap(struct fz_rng *r, int fd, int other, const struct fz_pool *p);
/* Export a buffer with PRIME, import it into the other file, use and drop it. */
void fz_one_prime(struct fz_rng *r, int fd, int other, const struct fz_pool *p);
/* Unknown ioctl numbers, and known harmless ones with a wrong size. */
void fz_one_raw(struct fz_rng *r, struct fz_mem *m, int fd);

/* ------------------------------------------------------------ programs.c */

#define FZ_PROG_MAX 96

struct fz_prog {
	uint32_t core;
	uint32_t n;
	uint32_t ntiles;
	struct pto_insn insns[FZ_PROG_MAX];
	struct pto_tile_decl tiles[PTO_NUM_TREGS];
};

/* A random element dtype. */
uint8_t fz_dtype(struct fz_rng *r);
/* A program that mostly verifies: balanced loops, forward jumps, an END. */
void fz_gen_prog(struct fz_rng *r, struct fz_prog *p);
/* One to three corruptions of a program or its tile table. */
void fz_mutate_prog(struct fz_rng *r, struct fz_prog *p);
/* Random bytes, sometimes with a plausible opcode in each instruction. */
void fz_random_prog(struct fz_rng *r, struct fz_prog *p);
/* The dtype each tensor argument must have, as the verifier infers it. */
void fz_arg_dtypes(const struct fz_prog *p, uint8_t *need);
bool fz_has_hard_sync(const struct fz_prog *p);

/* ------------------------------------------------------------ queue_ioctls.c */

/* Syncobj ioctls on the doorbell's syncobjs (drm core, but ours to feed). */
void fz_one_syncobj(struct fz_rng *r, int fd, struct fz_pool *s);
/* A ring size: 0, random, any power of two, or a likely valid one. */
uint32_t fz_pow2_or_not(struct fz_rng *r, uint32_t max);

/* ------------------------------------------------------------ entries.c */

/* What the SQ entries of the fuzzer name. */
struct fz_res {
	uint32_t kgood;		/* fz_good_prog */
	uint32_t kend_aiv;	/* END */
	uint32_t kend_aic;	/* END on AIC */
	uint32_t kforeign;	/* a kernel handle of the other file */
	uint32_t kdead;		/* a destroyed kernel handle */
	uint32_t in, out;	/* the good task's buffers, never closed */
	uint32_t ring;		/* a ring buffer's handle */
	uint32_t foreign_bo;	/* a buffer handle of the other file */
	struct fz_pool bos;	/* more buffers, closed and made on the way */
	uint32_t cores[2];	/* AIV, AIC cores */
	bool long_run;		/* PTO_FUZZ_ITERS >= FZ_LONG_ITERS */
};

int fz_res_init(struct fz_res *res, int fd, int fd2,
		const struct drm_pto_npu_device_info *info);
/* A valid entry other than the good task (not pristine: no result check). */
uint32_t fz_valid_variant(struct fz_rng *r, struct pto_test_sqe *e,
			  const struct fz_res *res);
/* Corrupt one field of a valid entry of @slots slots. */
void fz_mutate_entry(struct fz_rng *r, struct pto_test_sqe *e, uint32_t slots,
		     const struct fz_res *res);

/* ------------------------------------------------------------ runs.c */

/*
 * Tensor slots of the run tests: each a buffer of guard page, view page,
 * guard page; the view a [FZ_VIEW_ROWS, FZ_VIEW_COLS] tensor at offset one
 * page. Nothing may ever change a guard byte.
 */
#define FZ_VIEW_ROWS 16
#define FZ_VIEW_COLS 16
#define FZ_GUARD_BYTE 0xe7

struct fz_slot {
	uint32_t handle;
	uint8_t *map;
	size_t size;
};

int fz_slot_init(int fd, struct fz_slot *s);
bool fz_slot_guards_ok(const struct fz_slot *s, size_t view_bytes);

/* The LAST CQE of a run task (fz_run_last_cb() fills it). */
struct fz_run_last {
	uint32_t status;
	uint32_t reason;
	uint32_t seen;
	uint64_t detail;
};

void fz_run_last_cb(void *arg, const struct drm_pto_npu_cqe *c);
/* Statuses a task of an accepted random kernel may end with. */
bool fz_run_status_ok(uint32_t s);

/* ------------------------------------------------------------ race.c */

struct fz_race {
	int fd;
	struct fz_q *q;
	uint32_t kernel, in, out;
	bool waiter;
	int stop;
	uint64_t seed;
};

/* Pushes, rings and reaps (or only waits) until the file is gone. */
void *fz_race_thread(void *arg);

#endif /* PTO_FUZZ_H */
