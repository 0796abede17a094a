// SPDX-License-Identifier: MIT
/*
 * sim-peer: make bench-peer's driver of simpler's CPU simulator (platform
 * a2a3sim, runtime tensormap_and_ringbuffer), through its C++ ChipWorker
 * (no Python). Runs the workloads of sim_orch.cpp at two sizes and prints,
 * per workload, one line as pto-peer does:
 *
 *	=== PTO-PEER {"runtime":"sim",...,"per_task_us":...}
 *
 * Each ChipWorker::run() starts and joins every AICPU and AICore thread,
 * so the per-task cost is the slope between the two sizes (the median of
 * the per-repetition slopes; each repetition runs small, large, large,
 * small). The simulator's width comes from the build (SIM_AUTO_BLOCKDIM,
 * which tools/bench/peer/build.sh patches to read PTO_PEER_SIM_BLOCKDIM).
 *
 * usage: sim-peer LIBDIR ORCH.so KERNEL.so WIDTH AICPU_THREADS [REPS [WORKLOAD]]
 *	LIBDIR: simpler's build/lib (libcpu_sim_context.so and
 *	a2a3/sim/tensormap_and_ringbuffer/lib{host_runtime,aicpu_kernel,aicore_kernel}.so)
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "callable.h"
#include "chip_run_lane.h"
#include "chip_worker.h"
#include "host_log.h"

static std::vector<uint8_t> slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);

	if (!f)
		throw std::runtime_error("cannot read " + path);
	return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct workload {
	const char *name;
	uint64_t kind, small, large;
};

int main(int argc, char **argv)
{
	static const workload wl[] = {
		{ "fan", 0, 200, 2000 },    { "chain", 1, 200, 2000 },
		{ "skip", 2, 200, 2000 },   { "singles48", 3, 5, 40 },
		{ "spmd48", 4, 5, 40 },
	};

	if (argc < 6) {
		std::fprintf(stderr, "usage: sim-peer LIBDIR ORCH.so KERNEL.so WIDTH AICPU_THREADS [REPS [WORKLOAD]]\n");
		return 2;
	}
	const std::string lib = argv[1], rt = lib + "/a2a3/sim/tensormap_and_ringbuffer/";
	const char *width = argv[4];
	const int threads = std::atoi(argv[5]), reps = argc > 6 ? std::atoi(argv[6]) : 7;
	const char *bd = std::getenv("PTO_PEER_SIM_BLOCKDIM"), *only = argc > 7 ? argv[7] : nullptr;

	try {
		HostLogger::get_instance().set_level(simpler::log::LogLevel::WARN);
		ChipWorker w;
		w.init(rt + "libhost_runtime.so", rt + "libaicpu_kernel.so", rt + "libaicore_kernel.so", "", 0,
		       nullptr, 0, lib + "/libcpu_sim_context.so");

		std::vector<uint8_t> orch = slurp(argv[2]), kern = slurp(argv[3]);
		std::vector<uint8_t> child = make_callable<CORE_MAX_TENSOR_ARGS>(nullptr, 0, kern.data(),
										 (uint32_t)kern.size());
		const int32_t ids[1] = { 0 };
		std::vector<uint8_t> chip = make_callable<CoreCallable, CHIP_MAX_TENSOR_ARGS, 1024>(
			nullptr, 0, "aicpu_orchestration_entry", orch.data(), (uint32_t)orch.size(), ids, &child, 1,
			"aicpu_orchestration_config");
		w.register_callable(0, chip.data());

		CallConfig cfg;
		cfg.aicpu_thread_num = threads;
		auto run_us = [&](uint64_t kind, uint64_t n) {
			ChipStorageTaskArgs a;
			a.add_scalar(kind);
			a.add_scalar(n);
			auto t0 = std::chrono::steady_clock::now();
			w.run(0, &a, cfg);
			return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
		};
		run_us(0, 200); /* warm up: the first run loads the binaries */
		for (const workload &k : wl) {
			std::vector<double> ts, tl, slope;

			if (only && std::string(only) != k.name)
				continue;

			for (int r = 0; r < reps; r++) {
				double s1 = run_us(k.kind, k.small), l1 = run_us(k.kind, k.large);
				double l2 = run_us(k.kind, k.large), s2 = run_us(k.kind, k.small);

				ts.push_back((s1 + s2) / 2);
				tl.push_back((l1 + l2) / 2);
				slope.push_back(((l1 + l2) - (s1 + s2)) / 2 / (double)(k.large - k.small));
			}
			std::printf("=== PTO-PEER {\"runtime\":\"sim\",\"width\":\"%s\",\"clusters\":%s,"
				    "\"aicpu_threads\":%d,\"workload\":\"%s\",\"n_small\":%llu,\"n_large\":%llu,"
				    "\"slopes_us\":[",
				    width, bd ? bd : "8", threads, k.name, (unsigned long long)k.small,
				    (unsigned long long)k.large);
			for (size_t i = 0; i < slope.size(); i++)
				std::printf("%s%.3f", i ? "," : "", slope[i]);
			std::printf("],"
				    "\"t_small_us\":%.1f,\"t_large_us\":%.1f,\"per_task_us\":%.3f,"
				    "\"per_task_min_us\":%.3f,\"per_task_max_us\":%.3f,\"per_task_of_minima_us\":%.3f,"
				    "\"reps\":%d}\n",
				    median(ts), median(tl), median(slope),
				    *std::min_element(slope.begin(), slope.end()),
				    *std::max_element(slope.begin(), slope.end()),
				    (*std::min_element(tl.begin(), tl.end()) - *std::min_element(ts.begin(), ts.end())) /
					    (double)(k.large - k.small),
				    reps);
			std::fflush(stdout);
		}
		w.finalize();
	} catch (const std::exception &e) {
		std::fprintf(stderr, "sim-peer: %s\n", e.what());
		return 1;
	}
	return 0;
}
