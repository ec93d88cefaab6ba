// harness.cu: the rooftrace calibration harness. Runs the reference kernels
// (bandwidth, FMA sweep, cuBLASLt GEMMs) on device 0 and writes one JSON line
// per measurement to stdout (format: kernels/README.md); progress and skips go
// to stderr.
//
//   rooftrace-harness [--samples N] [--l2-flush] [--quick]
//                     [--only bandwidth,fma,gemm] [--count] [--once]
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
               "[--only bandwidth,fma,gemm] [--count] [--once]\n");
  std::exit(RT_EXIT_USAGE);
}

int main(int argc, char** argv) {
  Options opt;
  bool count_only = false;
  std::string only = "bandwidth,fma,gemm";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) {
      opt.samples = std::atoi(argv[++i]);
      if (opt.samples < 7) usage();
    } else if (!std::strcmp(argv[i], "--l2-flush")) {
      opt.l2_flush = true;
    } else if (!std::strcmp(argv[i], "--quick")) {
      opt.quick = true;
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
  L2Flusher flusher(dev.l2_bytes);
  if (bw) run_bandwidth(dev, opt, &flusher);
  if (fma) run_fma(dev, opt);
  if (gemm) run_gemm(dev, opt, &flusher);
  return 0;
}
