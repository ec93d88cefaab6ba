// common.cuh: error checks, device description, timing statistics and the
// JSON-lines writer shared by every reference kernel of the rooftrace
// calibration harness. Output format: kernels/README.md.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define RT_SCHEMA "rooftrace.calib/1"

// Exit codes the rooftrace CLI understands (src/calibrate/run.rs).
constexpr int RT_EXIT_CUDA = 1;
constexpr int RT_EXIT_USAGE = 2;
constexpr int RT_EXIT_NO_DEVICE = 3;

#define RT_CUDA(call)                                                              \
  do {                                                                             \
    cudaError_t rt_err_ = (call);                                                  \
    if (rt_err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "rooftrace-harness: %s failed at %s:%d: %s\n", #call, \
                   __FILE__, __LINE__, cudaGetErrorString(rt_err_));               \
      std::exit(RT_EXIT_CUDA);                                                     \
    }                                                                              \
  } while (0)

// What every JSON line repeats about the device, so that one line read alone
// says where it was measured.
struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  long long global_mem_bytes = 0;
  double sm_clock_hz = 0;   // maximum SM clock the driver reports
  double mem_clock_hz = 0;  // peak memory clock the driver reports
  int mem_bus_width_bits = 0;
  int driver_version = 0;   // e.g. 13000 for 13.0
  int runtime_version = 0;
  std::string json;         // the "device" object, pre-rendered
};

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o;
}

inline DeviceInfo query_device(int dev) {
  DeviceInfo d;
  cudaDeviceProp p;
  RT_CUDA(cudaGetDeviceProperties(&p, dev));
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = static_cast<long long>(p.totalGlobalMem);
  int khz = 0;
  // cudaDeviceProp::clockRate is gone in CUDA 13; the attributes remain.
  RT_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  d.sm_clock_hz = khz * 1e3;
  RT_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
  d.mem_clock_hz = khz * 1e3;
  RT_CUDA(cudaDeviceGetAttribute(&d.mem_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  RT_CUDA(cudaDriverGetVersion(&d.driver_version));
  RT_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"name\":\"%s\",\"cc\":\"%d.%d\",\"sm_count\":%d,\"l2_bytes\":%lld,"
                "\"global_mem_bytes\":%lld,\"sm_clock_hz\":%.0f,\"mem_clock_hz\":%.0f,"
                "\"mem_bus_width_bits\":%d,\"driver_version\":%d,\"runtime_version\":%d}",
                json_escape(d.name).c_str(), d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes,
                d.global_mem_bytes, d.sm_clock_hz, d.mem_clock_hz, d.mem_bus_width_bits,
                d.driver_version, d.runtime_version);
  d.json = buf;
  return d;
}

// Run-wide settings from the command line.
struct Options {
  int samples = 9;          // timed samples per point (>= 7)
  bool l2_flush = false;    // flush L2 before every sample (one launch per sample)
  bool quick = false;       // fewer points (for a smoke test)
  double min_sample_ms = 1.0;  // batch launches until one sample lasts this long
  bool once = false;        // launch every point once, untimed, print nothing (for ncu)
};

// Evicts L2 by writing a buffer twice its size.
struct L2Flusher {
  void* buf = nullptr;
  size_t bytes = 0;
  explicit L2Flusher(long long l2_bytes) {
    bytes = static_cast<size_t>(std::max<long long>(l2_bytes, 1 << 20)) * 2;
    RT_CUDA(cudaMalloc(&buf, bytes));
  }
  ~L2Flusher() { cudaFree(buf); }
  void flush() { RT_CUDA(cudaMemsetAsync(buf, 0, bytes)); }
};

// Times `launch` with CUDA events. Warm-up: 2 launches, then one timed launch
// to choose how many back-to-back launches make one sample of at least
// min_sample_ms (always 1 with an L2 flush, so every launch starts cold).
// Returns per-launch times in ns, one per sample; `launches` receives the
// number of launches averaged in each sample.
template <typename F>
std::vector<double> time_launches(F launch, const Options& opt, L2Flusher* flusher,
                                  int* launches) {
  if (opt.once) {
    launch();
    RT_CUDA(cudaGetLastError());
    RT_CUDA(cudaDeviceSynchronize());
    *launches = 1;
    return {};
  }
  cudaEvent_t a, b;
  RT_CUDA(cudaEventCreate(&a));
  RT_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) launch();
  RT_CUDA(cudaGetLastError());
  RT_CUDA(cudaDeviceSynchronize());
  int reps = 1;
  if (!opt.l2_flush) {
    RT_CUDA(cudaEventRecord(a));
    launch();
    RT_CUDA(cudaEventRecord(b));
    RT_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    RT_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (ms > 0 && ms < opt.min_sample_ms) {
      reps = static_cast<int>(std::min(1000.0, std::ceil(opt.min_sample_ms / ms)));
    }
  }
  std::vector<double> out;
  for (int s = 0; s < opt.samples; ++s) {
    if (flusher != nullptr && opt.l2_flush) flusher->flush();
    RT_CUDA(cudaEventRecord(a));
    for (int r = 0; r < reps; ++r) launch();
    RT_CUDA(cudaEventRecord(b));
    RT_CUDA(cudaEventSynchronize(b));
    RT_CUDA(cudaGetLastError());
    float ms = 0;
    RT_CUDA(cudaEventElapsedTime(&ms, a, b));
    out.push_back(static_cast<double>(ms) * 1e6 / reps);
  }
  RT_CUDA(cudaEventDestroy(a));
  RT_CUDA(cudaEventDestroy(b));
  *launches = reps;
  return out;
}

// Writes one measurement as a JSON line on stdout. `shape` is a
// pre-rendered list of JSON members (`"m":1,"n":2`), `bytes`/`flop` are the
// analytic bytes moved and FLOP per launch.
inline void emit(const DeviceInfo& dev, const Options& opt, const char* kernel,
                 const char* kind, const char* dtype, const std::string& shape, double bytes,
                 double flop, int launches, const std::vector<double>& sample_ns) {
  if (opt.once) return;
  std::string s = "{\"schema\":\"" RT_SCHEMA "\",\"kernel\":\"";
  s += kernel;
  s += "\",\"kind\":\"";
  s += kind;
  s += "\",\"dtype\":\"";
  s += dtype;
  s += "\",";
  s += shape;
  char buf[256];
  std::snprintf(buf, sizeof buf, ",\"bytes\":%.0f,\"flop\":%.0f,\"l2_flush\":%s,\"launches_per_sample\":%d,\"sample_ns\":[",
                bytes, flop, opt.l2_flush ? "true" : "false", launches);
  s += buf;
  for (size_t i = 0; i < sample_ns.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.1f", i ? "," : "", sample_ns[i]);
    s += buf;
  }
  s += "],\"device\":";
  s += dev.json;
  s += "}\n";
  std::fputs(s.c_str(), stdout);
  std::fflush(stdout);
}

// Deterministic pseudo-random fill in [-1, 1) so that no kernel runs on zeros
// (zeros draw less power and can clock higher than real data).
__device__ __forceinline__ float rt_hash_unit(size_t i) {
  uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(i >> 32);
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  return static_cast<float>(x & 0xffffff) / 8388608.0f - 1.0f;
}

template <typename T>
__global__ void rt_fill(T* p, size_t n, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[i] = T(rt_hash_unit(i) * scale);
  }
}

inline int grid_for(const DeviceInfo& dev, int blocks_per_sm = 8) {
  return dev.sm_count * blocks_per_sm;
}
