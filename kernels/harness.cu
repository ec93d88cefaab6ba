// harness.cu: the rooftrace calibration harness. Runs the reference kernels
// (bandwidth, FMA sweep, cuBLASLt GEMMs) on device 0 and writes one JSON line
// per measurement to stdout (format: kernels/README.md); progress and skips go
// to stderr.
//
//   rooftrace-harness [--samples N] [--l2-flush] [--quick] [--warmup-ms MS]
//                     [--start-warmup-ms MS] [--fma-r R,R,...]
//                     [--only bandwidth,fma,gemm]
//                     [--count] [--once]
//
// A point that fails (a cuBLAS error, no algorithm) is written as a line
// with an "error" member and the run goes on; only a lost CUDA context
// stops it (exit 1). Clocks, power and throttle reasons during each point
// come from NVML, loaded at run time when the driver provides it.
//
// --count prints the number of points the run would measure and exits.
// --once launches every point once, untimed, and prints no JSON: for running
// the kernels under Nsight Compute (docs/calibrate.md).
#include <cstring>

#include "bandwidth.cuh"
#include "common.cuh"
#include "fma.cuh"
#include "gemm.cuh"

static void usage() {
  std::fprintf(stderr,
               "usage: rooftrace-harness [--samples N>=7] [--l2-flush] [--quick] "
               "[--warmup-ms MS] [--start-warmup-ms MS] [--fma-r R,R,...] "
               "[--only bandwidth,fma,gemm] [--count] [--once]\n");
  std::exit(RT_EXIT_USAGE);
}

// Keeps the GPU busy for `ms` milliseconds (FP32 FMAs on a 64 MiB buffer)
// so that an idle GPU, parked at a few hundred MHz, has ramped its clocks
// before the first timed point.
static void start_warmup(const DeviceInfo& dev, double ms) {
  const size_t bytes = size_t(64) << 20;
  uint4 *in = nullptr, *out = nullptr;
  RT_CUDA(cudaMalloc(&in, bytes));
  RT_CUDA(cudaMalloc(&out, bytes));
  RT_CUDA(cudaMemset(in, 0, bytes));
  int reps = 1;
  FmaFn<float> fn = fma_fn<float>(256, &reps);
  const int grid = occupancy_grid(dev, fn, RT_FMA_THREADS);
  const double start = rt_now_ms();
  while (rt_now_ms() - start < ms) {
    for (int i = 0; i < 8; ++i) {
      fn<<<grid, RT_FMA_THREADS>>>(in, out, bytes / sizeof(uint4), 0.5f, 0.5f, reps);
    }
    RT_CUDA(cudaGetLastError());
    RT_CUDA(cudaDeviceSynchronize());
  }
  cudaFree(in);
  cudaFree(out);
}

int main(int argc, char** argv) {
  Options opt;
  bool count_only = false;
  std::string only = "bandwidth,fma,gemm";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) {
      opt.samples = std::atoi(argv[++i]);
      if (opt.samples < 7) usage();
    } else if (!std::strcmp(argv[i], "--warmup-ms") && i + 1 < argc) {
      opt.warmup_ms = std::atof(argv[++i]);
      if (!(opt.warmup_ms >= 0)) usage();
    } else if (!std::strcmp(argv[i], "--start-warmup-ms") && i + 1 < argc) {
      opt.start_warmup_ms = std::atof(argv[++i]);
      if (!(opt.start_warmup_ms >= 0)) usage();
    } else if (!std::strcmp(argv[i], "--l2-flush")) {
      opt.l2_flush = true;
    } else if (!std::strcmp(argv[i], "--quick")) {
      opt.quick = true;
    } else if (!std::strcmp(argv[i], "--fma-r") && i + 1 < argc) {
      // Comma-separated R values, e.g. 1,16,256,2048 (for a short ncu run).
      for (const char* p = argv[++i]; *p != '\0';) {
        char* end = nullptr;
        const long r = std::strtol(p, &end, 10);
        if (end == p || !fma_r_ok(static_cast<int>(r)) || r > 65536) usage();
        opt.fma_r.push_back(static_cast<int>(r));
        p = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0') usage();
      }
      if (opt.fma_r.empty()) usage();
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--once")) {
      opt.once = true;
    } else if (!std::strcmp(argv[i], "--count")) {
      count_only = true;
    } else {
      usage();
    }
  }
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::fprintf(stderr, "rooftrace-harness: no CUDA device: %s\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    return RT_EXIT_NO_DEVICE;
  }
  RT_CUDA(cudaSetDevice(0));
  const DeviceInfo dev = query_device(0);
  const bool bw = only.find("bandwidth") != std::string::npos;
  const bool fma = only.find("fma") != std::string::npos;
  const bool gemm = only.find("gemm") != std::string::npos;
  if (count_only) {
    std::printf("%d\n", (bw ? count_bandwidth(dev, opt) : 0) + (fma ? count_fma(opt) : 0) +
                            (gemm ? count_gemm(dev, opt) : 0));
    return 0;
  }
  std::fprintf(stderr, "rooftrace-harness: %s (cc %d.%d, %d SMs, L2 %lld bytes)\n",
               dev.name.c_str(), dev.cc_major, dev.cc_minor, dev.sm_count, dev.l2_bytes);
  Nvml nvml(0);
  if (!nvml.ok()) {
    std::fprintf(stderr,
                 "rooftrace-harness: NVML unavailable (%s): clocks during the run are not "
                 "recorded\n",
                 nvml.why.c_str());
  }
  if (!opt.once) start_warmup(dev, opt.start_warmup_ms);
  L2Flusher flusher(dev.l2_bytes);
  if (bw) run_bandwidth(dev, opt, &flusher, &nvml);
  if (fma) run_fma(dev, opt, &nvml);
  if (gemm) run_gemm(dev, opt, &flusher, &nvml);
  return 0;
}
