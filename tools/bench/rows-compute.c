// SPDX-License-Identifier: MIT
/*
 * rows-compute.c: pto-bench rows 8 and 9 (bandwidth, matmul).
 */
#include "bench.h"

/* ------------------------------------------------------------ row 8 */

/* Block b: c[64b..] = a[64b..] + b[64b..]; without @add, c = a. */
int row8_kernel(struct bench *B, bool add, struct pto_kernel **k)
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

static const struct row_head r8_head = {
	.id = "8",
	.title = "elementwise add: device vs memcpy bandwidth",
	.a_label = "device add", .a_unit = "GB/s",
	.b_label = "memcpy", .b_unit = "GB/s",
	.ratio_def = "device / memcpy",
	.op = T_GE, .target = 0.3,
	.target_text = "device >= 0.3 x memcpy",
};

/*
 * memcpy() of @bytes for as long as the device ran (@dev_ns), averaged
 * like the device's time: a best-of-few would pick a quiet moment of a
 * noisy host. ns per copy.
 */
static double r8_memcpy_ns(char *src, char *dst, size_t bytes, double dev_ns)
{
	int64_t t0 = now_ns(), el;
	int i = 0;

	do {
		memcpy(dst, src, bytes);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		src[i++ & 63] ^= 1;
		el = now_ns() - t0;
	} while (el < dev_ns);
	return (double)el / i;
}

/* The f32 ceiling of this VM: the same add as a C loop, into @dst. */
static void r8_cpu_add(struct bench *B, struct row *r, struct pto_tensor *a,
		       struct pto_tensor *b, char *dst, size_t bytes)
{
	const float *fa = pto_tensor_data(a), *fb = pto_tensor_data(b);
	float *fd = (float *)dst;
	size_t e, ne = bytes / sizeof(float);
	int64_t t0 = now_ns();

	for (e = 0; e < ne; e++)
		fd[e] = fa[e] + fb[e];
	__asm__ __volatile__("" : : "r"(fd) : "memory");
	row_extra(r, "cpu_f32_add_loop_GBps",
		  3.0 * bytes / (double)(now_ns() - t0));
	row_extra(r, "device_add_kernel_GBps_per_core",
		  3.0 * R8_TR * R8_COLS * sizeof(float) /
		  (median_kernel_us(B) * 1e3));
}

/* Spot-check c = a + b over @n elements. */
static void r8_check(struct row *r, struct pto_tensor *a, struct pto_tensor *b,
		     struct pto_tensor *c, size_t n)
{
	const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(b);
	const float *pc = pto_tensor_data(c);
	size_t i;

	for (i = 0; i < n; i += 4099)
		if (pc[i] != pa[i] + pb[i]) {
			row_note(r, "result mismatch at element %zu.", i);
			break;
		}
}

/* What row 8 measures with: the tensors, the kernels, the host buffers. */
struct r8_data {
	unsigned int blocks;
	size_t rows, bytes;
	struct pto_tensor *a, *b, *c;
	struct pto_kernel *k, *kcopy;
	char *src, *dst;
};

/* Row 8's tensors, kernels and memcpy buffers; false: row failed (said). */
static bool r8_prepare(struct bench *B, struct row *r, struct r8_data *x)
{
	if (!(x->a = tensor2(B, PTO_DTYPE_F32, x->rows, R8_COLS)) ||
	    !(x->b = tensor2(B, PTO_DTYPE_F32, x->rows, R8_COLS)) ||
	    !(x->c = tensor2(B, PTO_DTYPE_F32, x->rows, R8_COLS))) {
		row_fail(r, "error", "%s", B->err);
		return false;
	}
	fill_f32(x->a, 5);
	fill_f32(x->b, 6);
	/* The add, and the same moves without it: what of a block is the add. */
	if (row8_kernel(B, true, &x->k) || row8_kernel(B, false, &x->kcopy)) {
		row_fail(r, "error", "%s", B->err);
		return false;
	}
	x->src = malloc(x->bytes);
	x->dst = malloc(x->bytes);
	if (!x->src || !x->dst) {
		row_fail(r, "error", "out of memory");
		return false;
	}
	memset(x->src, 1, x->bytes);
	memset(x->dst, 2, x->bytes);
	return true;
}

/*
 * One repetition of row 8 (0 warms up: GM pages, core memory, caches):
 * the copy-only task, the add, memcpy for as long. false: the row stops.
 */
static bool r8_rep(struct bench *B, struct row *r, const struct r8_data *x,
		   int rep)
{
	struct pto_tensor *args[3] = { x->a, x->b, x->c };
	struct pto_task_desc d = { .kernel_aiv = x->k, .block_num = x->blocks,
				   .tensors = args, .num_tensors = 3 };
	struct pto_task_desc dc = d;
	double dev_gbs, cpu_gbs;

	dc.kernel_aiv = x->kcopy;
	if (rep && !push(B, &dc) && !doorbell(B, 1, NULL) &&
	    !drain(B, 1, false))
		row_extra(r, "device_copy_only_kernel_us", median_kernel_us(B));
	if (push(B, &d) || doorbell(B, 1, NULL) || drain(B, 1, false))
		return !rep_failed(r, B->err, rep);
	dev_gbs = 3.0 * x->bytes / makespan_ns(B);
	if (rep)
		block_spans(B, r, "add");
	cpu_gbs = 2.0 * x->bytes /
		  r8_memcpy_ns(x->src, x->dst, x->bytes, 3.0 * x->bytes / dev_gbs);
	if (rep) {
		r8_cpu_add(B, r, x->a, x->b, x->dst, x->bytes);
		row_pair(r, dev_gbs, cpu_gbs);
	}
	return true;
}

/* Row 8's tensors, kernels and buffers freed. */
static void r8_free(struct r8_data *x)
{
	free(x->src);
	free(x->dst);
	pto_kernel_free(x->k);
	pto_kernel_free(x->kcopy);
	pto_tensor_free(x->a);
	pto_tensor_free(x->b);
	pto_tensor_free(x->c);
}

void row8_bandwidth(struct bench *B)
{
	struct r8_data x = { .blocks = B->quick ? B->aiv : 4 * B->aiv };
	struct row r;
	int rep;

	x.rows = (size_t)x.blocks * R8_TR;
	x.bytes = x.rows * R8_COLS * sizeof(float);
	row_start(&r, &r8_head,
		  "c = a + b, %zu x %u f32 (%u SPMD blocks of 64x128 tiles), bytes read+written / device makespan vs user-space memcpy of %zu MiB repeated for as long (2 x bytes / time)",
		  x.rows, R8_COLS, x.blocks, x.bytes >> 20);
	if (r8_prepare(B, &r, &x)) {
		for (rep = 0; rep <= B->reps; rep++)
			if (!r8_rep(B, &r, &x, rep))
				break;
		r8_check(&r, x.a, x.b, x.c, x.rows * R8_COLS);
	}
	row_emit(&r);
	r8_free(&x);
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

static const struct row_head r9_head = {
	.id = "9",
	.title = "matmul 128x128x128: device vs CPU loop",
	.a_label = "device (AIC)", .a_unit = "GFLOP/s",
	.b_label = "CPU loop", .b_unit = "GFLOP/s",
	.ratio_def = "device / CPU",
	.op = T_GE, .target = 0.5,
	.target_text = "device >= 0.5 x CPU loop",
};

/* One 128x128x128 matmul per block: c[128b..] = a x bm. 1: no builder. */
static int r9_kernel(struct bench *B, struct pto_kernel **k)
{
	struct pto_kb *kb;
	int ta, tb, tc;

	if (pto_kb_new(B->dev, PTO_CORE_AIC, &kb))
		return 1;
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
	return kb_done(B, kb, "matmul", k) ? -1 : 0;
}

/* The CPU loop for as long as the device ran (@dev_ns), averaged (see row 8); ns. */
static double r9_cpu_ns(float *ca, const float *cb, float *cc, double dev_ns)
{
	int64_t t0 = now_ns(), el;
	int i = 0;

	do {
		cpu_matmul(ca, cb, cc);
		__asm__ __volatile__("" : : "r"(cc) : "memory");
		ca[i++ & 63] += 1.0f / 1024;
		el = now_ns() - t0;
	} while (el < dev_ns);
	return (double)el / i;
}

/* Spot-check block 0 of c = a x bm. */
static void r9_check(struct row *r, struct pto_tensor *a, struct pto_tensor *bm,
		     struct pto_tensor *c)
{
	const float *pc = pto_tensor_data(c);
	const float *pa = pto_tensor_data(a), *pb = pto_tensor_data(bm);
	int i, kk;

	for (i = 0; i < MM * MM; i += 1031) {
		double ref = 0, mag = 0;

		for (kk = 0; kk < MM; kk++) {
			ref += (double)pa[(i / MM) * MM + kk] * pb[kk * MM + i % MM];
			mag += fabs((double)pa[(i / MM) * MM + kk] * pb[kk * MM + i % MM]);
		}
		if (fabs(pc[i] - ref) > 1e-4 * mag + 1e-6) {
			row_note(r, "result mismatch at element %d.", i);
			break;
		}
	}
}

void row9_matmul(struct bench *B)
{
	/* A third of the AICs: the device's time stays short, waves or not. */
	unsigned int blocks = B->aic >= 24 ? B->aic / 3 : B->aic;
	struct pto_tensor *a = NULL, *bm = NULL, *c = NULL;
	struct pto_kernel *k = NULL;
	static float ca[MM * MM], cb[MM * MM], cc[MM * MM];
	const double flop = 2.0 * MM * MM * MM;
	struct row r;
	int rep, ret;

	row_start(&r, &r9_head,
		  "f32 128x128x128 matmul: one SPMD AIC task of %u blocks (one matmul each), flops / device makespan vs a plain C triple loop (-O2) in user space, repeated for as long",
		  blocks);

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
	if ((ret = r9_kernel(B, &k))) {
		row_fail(&r, "error", "%s", ret > 0 ? "kernel builder" : B->err);
		goto done;
	}
	for (rep = 0; rep <= B->reps; rep++) {
		struct pto_tensor *args[3] = { a, bm, c };
		struct pto_task_desc d = { .kernel_aic = k, .block_num = blocks,
					   .tensors = args, .num_tensors = 3 };
		double dev, cpu_ns;

		if (push(B, &d) || doorbell(B, 1, NULL) || drain(B, 1, false)) {
			if (rep_failed(&r, B->err, rep))
				break;
			continue;
		}
		dev = flop * blocks / makespan_ns(B);
		if (rep)
			block_spans(B, &r, "matmul");
		cpu_ns = r9_cpu_ns(ca, cb, cc, flop * blocks / dev);
		if (rep)
			row_pair(&r, dev, flop / cpu_ns);
	}
	r9_check(&r, a, bm, c);
done:
	row_emit(&r);
	pto_kernel_free(k);
	pto_tensor_free(a);
	pto_tensor_free(bm);
	pto_tensor_free(c);
}
