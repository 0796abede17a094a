// SPDX-License-Identifier: MIT
/*
 * ptoctl: inspect a pto_npu device.
 *
 *   ptoctl [-d index | --device path] <command> [args]
 *
 * Commands live in one table; each gets the opened device and its own
 * argv (argv[0] is the command name), so a command may parse options of
 * its own (set optind = 0 before its first getopt call). A command returns
 * the process exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>
#include <stdbool.h>
#include <pto/pto.h>
#include "pto_npu_accel.h"

#define PTOCTL_EXIT_ERROR 1
#define PTOCTL_EXIT_USAGE 2

struct ptoctl_cmd {
	const char *name;
	const char *summary;
	int (*run)(struct pto_device *dev, int argc, char **argv);
	bool no_device;
};

static int ptoctl_info(struct pto_device *dev, int argc, char **argv);
static int ptoctl_stat(struct pto_device *dev, int argc, char **argv);
static int ptoctl_trace(struct pto_device *dev, int argc, char **argv);
static int ptoctl_deps(struct pto_device *dev, int argc, char **argv);

static const struct ptoctl_cmd ptoctl_cmds[] = {
	{ "info", "topology, buffer budgets, limits and GM accounting",
	  ptoctl_info, false },
	{ "stat", "the device's event counters (dispatches, skips, stages, ...)",
	  ptoctl_stat, false },
	{ "trace", "[-o DIR] [--format pto|simpler] [--ftrace] -- CMD...: record each graph CMD runs as swimlane + deps.json (--ftrace: and the tracepoints, DIR/ftrace.txt)",
	  ptoctl_trace, true },
	{ "deps", "[-o DIR] [--format pto|simpler] -- CMD...: record each graph CMD runs as deps.json",
	  ptoctl_deps, true },
};

static const char *const ptoctl_counter_names[] = {
	"tasks", "invalid", "dispatches", "units", "skips", "stages",
	"releases", "barriers", "faults", "timeouts", "retired",
};

static int ptoctl_stat(struct pto_device *dev, int argc, char **argv)
{
	struct drm_pto_npu_counters cnt = { 0 };
	struct drm_pto_npu_query q = {
		.type = DRM_PTO_NPU_QUERY_COUNTERS,
		.size = sizeof(cnt),
		.data = (uintptr_t)&cnt,
	};
	const uint64_t *v = (const uint64_t *)&cnt;
	size_t i;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: ptoctl stat\n");
		return PTOCTL_EXIT_USAGE;
	}
	if (drmIoctl(pto_device_fd(dev), DRM_IOCTL_PTO_NPU_QUERY, &q)) {
		fprintf(stderr, "ptoctl: counters: %s\n", pto_strerror(-errno));
		return PTOCTL_EXIT_ERROR;
	}
	for (i = 0; i < sizeof(ptoctl_counter_names) / sizeof(ptoctl_counter_names[0]); i++)
		printf("%-11s %" PRIu64 "\n", ptoctl_counter_names[i], v[i]);
	return 0;
}

/*
 * Run a command with PTO_TRACE_DIR set: libpto writes every graph it runs
 * as DIR/<graph name>.trace.json (swimlane) and .deps.json; with
 * --format simpler (PTO_TRACE_FORMAT) also DIR/<graph name>/ as
 * PyPTO/simpler profiling files.
 */
#define PTOCTL_TRACEFS "/sys/kernel/tracing"

/* Write @val to tracefs file @file; 0 or -errno. */
static int tracefs_write(const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;
	size_t len = strlen(val);

	snprintf(path, sizeof(path), "%s/%s", PTOCTL_TRACEFS, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * --ftrace: the pto_npu tracepoints in the kernel's trace buffer, on the
 * CLOCK_MONOTONIC clock of the swimlanes ("mono"), from an empty buffer.
 */
static int ftrace_start(void)
{
	int ret;

	ret = tracefs_write("tracing_on", "0");
	if (!ret)
		ret = tracefs_write("trace_clock", "mono");
	if (!ret)
		ret = tracefs_write("trace", "");
	if (!ret)
		ret = tracefs_write("buffer_size_kb", "8192");
	if (!ret)
		ret = tracefs_write("events/pto_npu/enable", "1");
	if (!ret)
		ret = tracefs_write("tracing_on", "1");
	if (ret)
		fprintf(stderr, "ptoctl: %s: %s (tracefs mounted? root?)\n",
			PTOCTL_TRACEFS, strerror(-ret));
	return ret;
}

/* Stop the tracepoints and copy the buffer to DIR/ftrace.txt. */
static int ftrace_stop(const char *dir)
{
	char path[512], buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	tracefs_write("tracing_on", "0");
	tracefs_write("events/pto_npu/enable", "0");
	snprintf(path, sizeof(path), "%s/ftrace.txt", dir);
	in = open(PTOCTL_TRACEFS "/trace", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			ret = -errno;
			break;
		}
	if (n < 0)
		ret = -errno;
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

static int ptoctl_record(int argc, char **argv, const char *kind)
{
	const char *dir = ".", *format = NULL;
	bool ftrace = false;
	int i = 1, status, ret;
	pid_t pid;

	for (;;) {
		if (i + 1 < argc && !strcmp(argv[i], "-o")) {
			dir = argv[i + 1];
			i += 2;
		} else if (i + 1 < argc && !strcmp(argv[i], "--format")) {
			format = argv[i + 1];
			i += 2;
		} else if (i < argc && !strcmp(argv[i], "--ftrace")) {
			ftrace = true;
			i++;
		} else {
			break;
		}
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc || (format && strcmp(format, "pto") &&
			  strcmp(format, "simpler"))) {
		fprintf(stderr,
			"usage: ptoctl %s [-o DIR] [--format pto|simpler] [--ftrace] -- CMD [ARGS...]\n",
			argv[0]);
		return PTOCTL_EXIT_USAGE;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "ptoctl: %s: %s\n", dir, strerror(errno));
		return PTOCTL_EXIT_ERROR;
	}
	if (ftrace && ftrace_start())
		return PTOCTL_EXIT_ERROR;
	pid = fork();
	if (pid < 0) {
		perror("ptoctl: fork");
		return PTOCTL_EXIT_ERROR;
	}
	if (!pid) {
		setenv("PTO_TRACE_DIR", dir, 1);
		setenv("PTO_TRACE_KIND", kind, 1);
		/* simpler: also DIR/<name>/ as PyPTO/simpler profiling files. */
		if (format)
			setenv("PTO_TRACE_FORMAT", format, 1);
		execvp(argv[i], argv + i);
		fprintf(stderr, "ptoctl: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("ptoctl: waitpid");
		return PTOCTL_EXIT_ERROR;
	}
	if (ftrace) {
		ret = ftrace_stop(dir);
		if (ret) {
			fprintf(stderr, "ptoctl: %s/ftrace.txt: %s\n", dir,
				strerror(-ret));
			return PTOCTL_EXIT_ERROR;
		}
	}
	fprintf(stderr, "ptoctl: %s written under %s%s\n", kind, dir,
		ftrace ? " (tracepoints: ftrace.txt)" : "");
	return WIFEXITED(status) ? WEXITSTATUS(status) : PTOCTL_EXIT_ERROR;
}

static int ptoctl_trace(struct pto_device *dev, int argc, char **argv)
{
	(void)dev;
	return ptoctl_record(argc, argv, "trace");
}

static int ptoctl_deps(struct pto_device *dev, int argc, char **argv)
{
	(void)dev;
	return ptoctl_record(argc, argv, "deps");
}

static void ptoctl_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ptoctl [-d index | --device path] <command> [args]\n"
		   "\n"
		   "options:\n"
		   "  -d, --index N    use /dev/accel/accelN (default 0)\n"
		   "  -D, --device P   use the device node at path P\n"
		   "  -h, --help       show this help\n"
		   "\n"
		   "commands:\n");
	for (i = 0; i < sizeof(ptoctl_cmds) / sizeof(ptoctl_cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", ptoctl_cmds[i].name,
			ptoctl_cmds[i].summary);
}

static const struct ptoctl_cmd *ptoctl_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ptoctl_cmds) / sizeof(ptoctl_cmds[0]); i++)
		if (!strcmp(ptoctl_cmds[i].name, name))
			return &ptoctl_cmds[i];
	return NULL;
}

static void ptoctl_print_kib(const char *what, uint32_t bytes)
{
	printf("  %-24s %" PRIu32 " KiB\n", what, bytes / 1024);
}

static void ptoctl_print_bytes(const char *what, uint64_t bytes)
{
	printf("  %-24s %" PRIu64 " bytes (%" PRIu64 " MiB)\n", what, bytes,
	       bytes >> 20);
}

/* 0 is what an older module that does not know the limit reports. */
static void ptoctl_print_count(const char *what, uint32_t n)
{
	if (n)
		printf("  %-24s %" PRIu32 "\n", what, n);
	else
		printf("  %-24s unknown\n", what);
}

static void ptoctl_print_caps(uint64_t caps)
{
	uint64_t unknown = 0;
	unsigned int bit;

	printf("capabilities:");
	if (!caps)
		printf(" none");
	for (bit = 0; bit < 64; bit++) {
		uint64_t cap = UINT64_C(1) << bit;
		const char *name;

		if (!(caps & cap))
			continue;
		name = pto_capability_name(cap);
		if (name)
			printf(" %s", name);
		else
			unknown |= cap;
	}
	if (unknown)
		printf(" unknown(0x%" PRIx64 ")", unknown);
	printf("\n");
}

static int ptoctl_info(struct pto_device *dev, int argc, char **argv)
{
	struct pto_device_info info;
	struct pto_memory_info mem;
	struct pto_limits lim;
	int ret;

	if (argc > 1) {
		fprintf(stderr, "ptoctl: info: unexpected argument '%s'\n",
			argv[1]);
		return PTOCTL_EXIT_USAGE;
	}
	ret = pto_device_query_info(dev, &info);
	if (!ret)
		ret = pto_device_query_limits(dev, &lim);
	if (!ret)
		ret = pto_device_query_memory(dev, &mem);
	if (ret) {
		fprintf(stderr, "ptoctl: %s: %s\n", pto_device_path(dev),
			pto_strerror(ret));
		return PTOCTL_EXIT_ERROR;
	}

	printf("device:       %s (index %" PRIu32 ")\n", pto_device_path(dev),
	       info.device_index);
	printf("uapi version: %" PRIu32 "\n", info.uapi_version);
	printf("topology:     %" PRIu32 " clusters, %" PRIu32 " AIC, %" PRIu32
	       " AIV\n",
	       info.clusters, info.aic_cores, info.aiv_cores);
	printf("local buffers:\n");
	ptoctl_print_kib("AIV UB", info.aiv_ub_size);
	ptoctl_print_kib("AIC L1", info.aic_l1_size);
	ptoctl_print_kib("AIC L0A", info.aic_l0a_size);
	ptoctl_print_kib("AIC L0B", info.aic_l0b_size);
	ptoctl_print_kib("AIC L0C", info.aic_l0c_size);
	printf("limits:\n");
	ptoctl_print_bytes("max buffer size", lim.max_buffer_size);
	ptoctl_print_bytes("max GM per context", lim.max_gm_per_context);
	ptoctl_print_count("max buffers per context",
			   lim.max_buffers_per_context);
	ptoctl_print_count("max kernels per context",
			   lim.max_kernels_per_context);
	ptoctl_print_count("max insns per kernel", lim.max_insns);
	ptoctl_print_count("max queues per context",
			   lim.max_queues_per_context);
	ptoctl_print_count("max SQ slots", lim.max_sq_slots);
	ptoctl_print_count("max CQ entries", lim.max_cq_entries);
	ptoctl_print_count("max inflight tasks", lim.max_inflight_tasks);
	if (lim.max_inflight_units)
		ptoctl_print_count("max inflight units", lim.max_inflight_units);
	ptoctl_print_count("max tensor args", lim.max_tensor_args);
	ptoctl_print_count("max scalar args", lim.max_scalar_args);
	ptoctl_print_count("max deps", lim.max_deps);
	ptoctl_print_count("max block num", lim.max_block_num);
	printf("  %-24s %" PRIu64 " instructions per unit (queues: %" PRIu64 "-%" PRIu64 ")\n",
	       "work budget", lim.work_budget, lim.min_work_budget,
	       lim.max_work_budget);
	printf("  %-24s %" PRIu32 " ms (a wait in which its task makes no progress, a hung core)\n",
	       "wall-clock timeout", lim.timeout_ms);
	ptoctl_print_caps(info.capabilities);
	printf("GM:\n");
	printf("  %-24s %" PRIu64 " buffers, %" PRIu64 " bytes\n", "device",
	       mem.device_buffers, mem.device_bytes);
	printf("  %-24s %" PRIu64 " buffers, %" PRIu64 " bytes\n",
	       "this context", mem.context_buffers, mem.context_bytes);
	return 0;
}

static int ptoctl_parse_index(const char *s, unsigned int *index)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > UINT_MAX)
		return -EINVAL;
	*index = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "index", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct ptoctl_cmd *cmd;
	const char *path = NULL;
	struct pto_device *dev;
	unsigned int index = 0;
	int c, ret;

	/* '+': stop at the command, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+d:D:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ptoctl_parse_index(optarg, &index)) {
				fprintf(stderr,
					"ptoctl: bad device index '%s'\n",
					optarg);
				return PTOCTL_EXIT_USAGE;
			}
			path = NULL;
			break;
		case 'D':
			path = optarg;
			break;
		case 'h':
			ptoctl_usage(stdout);
			return 0;
		default:
			ptoctl_usage(stderr);
			return PTOCTL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		ptoctl_usage(stderr);
		return PTOCTL_EXIT_USAGE;
	}
	cmd = ptoctl_find(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "ptoctl: unknown command '%s'\n", argv[optind]);
		ptoctl_usage(stderr);
		return PTOCTL_EXIT_USAGE;
	}

	if (cmd->no_device)
		return cmd->run(NULL, argc - optind, argv + optind);
	if (path)
		ret = pto_device_open_path(path, &dev);
	else
		ret = pto_device_open(index, &dev);
	if (ret) {
		if (path)
			fprintf(stderr, "ptoctl: %s: %s\n", path,
				pto_strerror(ret));
		else
			fprintf(stderr, "ptoctl: /dev/accel/accel%u: %s\n",
				index, pto_strerror(ret));
		return PTOCTL_EXIT_ERROR;
	}
	ret = cmd->run(dev, argc - optind, argv + optind);
	pto_device_close(dev);
	return ret;
}
