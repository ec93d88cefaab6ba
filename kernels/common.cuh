// common.cuh: error checks, device description, timing statistics and the
// JSON-lines writer shared by every reference kernel of the rooftrace
// calibration harness. Output format: kernels/README.md.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
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
  double warmup_ms = 25.0;  // per point: launch untimed for at least this long
  double start_warmup_ms = 1000.0;  // once, before the first point: an idle GPU ramps its clocks
  bool once = false;        // launch every point once, untimed, print nothing (for ncu)
  std::vector<int> fma_r;   // --fma-r: only these R values in the FMA sweep (empty = all)
};

// NVML, loaded at run time (dlopen), so that building the harness needs no
// NVML header or library: the few entry points it uses are declared here
// with NVML's C ABI (nvmlReturn_t and the enums are ints, 0 = success).
struct Nvml {
  typedef int (*InitFn)();
  typedef int (*HandleFn)(const char*, void**);
  typedef int (*ClockFn)(void*, int, unsigned int*);
  typedef int (*ReasonsFn)(void*, unsigned long long*);
  typedef int (*PowerFn)(void*, unsigned int*);
  static constexpr int CLOCK_SM = 1;   // NVML_CLOCK_SM
  static constexpr int CLOCK_MEM = 2;  // NVML_CLOCK_MEM
  void* dev = nullptr;
  ClockFn clock = nullptr;
  ReasonsFn reasons = nullptr;
  PowerFn power = nullptr;
  std::string why;  // why NVML is unusable ("" when usable)

  explicit Nvml(int cuda_dev) {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      why = "libnvidia-ml.so.1 not found";
      return;
    }
    InitFn init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
    HandleFn handle = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    // Renamed in r535; the old name is still exported by current drivers.
    reasons = reinterpret_cast<ReasonsFn>(dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (reasons == nullptr) {
      reasons =
          reinterpret_cast<ReasonsFn>(dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    }
    power = reinterpret_cast<PowerFn>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
    char bus[32] = {0};
    if (init == nullptr || handle == nullptr || clock == nullptr) {
      why = "libnvidia-ml lacks nvmlInit_v2/nvmlDeviceGetHandleByPciBusId_v2/nvmlDeviceGetClockInfo";
    } else if (init() != 0) {
      why = "nvmlInit_v2 failed";
    } else if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_dev) != cudaSuccess) {
      why = "cudaDeviceGetPCIBusId failed";
    } else if (handle(bus, &dev) != 0) {
      why = std::string("no NVML device at PCI bus id ") + bus;
      dev = nullptr;
    }
    if (!why.empty()) clock = nullptr;
  }
  bool ok() const { return dev != nullptr && clock != nullptr; }
};

// Clocks, power and throttle reasons read while a point's samples ran.
struct RunClocks {
  std::vector<double> sm_mhz, mem_mhz, power_w;
  unsigned long long reasons = 0;  // OR of nvmlClocksEventReasons bit masks
  bool any = false;

  void read(const Nvml* nvml) {
    if (nvml == nullptr || !nvml->ok()) return;
    unsigned int v = 0;
    if (nvml->clock(nvml->dev, Nvml::CLOCK_SM, &v) == 0) sm_mhz.push_back(v);
    if (nvml->clock(nvml->dev, Nvml::CLOCK_MEM, &v) == 0) mem_mhz.push_back(v);
    if (nvml->power != nullptr && nvml->power(nvml->dev, &v) == 0) power_w.push_back(v * 1e-3);
    unsigned long long r = 0;
    if (nvml->reasons != nullptr && nvml->reasons(nvml->dev, &r) == 0) reasons |= r;
    any = !sm_mhz.empty() && !mem_mhz.empty();
  }
};

inline double rt_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// What one point's timing gave: per-launch times, or the error that stopped it.
struct Timing {
  std::vector<double> sample_ns;
  int launches = 0;
  RunClocks clocks;
  std::string error;  // "" when every launch succeeded
  bool ok() const { return error.empty(); }
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

// After a failed point: a sticky error (illegal address, ...) has killed the
// context and nothing more can run, so the harness stops; any other error
// (no algorithm, out of memory) only skips the point.
inline void rt_stop_if_sticky(const std::string& what) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "rooftrace-harness: CUDA context lost after %s: %s; stopping\n",
                 what.c_str(), cudaGetErrorString(e));
    std::exit(RT_EXIT_CUDA);
  }
  (void)cudaGetLastError();
}

inline double rt_now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#define RT_TRY(call)                                                      \
  do {                                                                    \
    cudaError_t rt_err_ = (call);                                         \
    if (rt_err_ != cudaSuccess) {                                         \
      t.error = std::string(#call) + ": " + cudaGetErrorString(rt_err_); \
      goto done;                                                          \
    }                                                                     \
  } while (0)

// Times `launch` (which returns "" or the error of its launch) with CUDA
// events. Warm-up by time: untimed launches for at least opt.warmup_ms (at
// least 2), then one timed launch to choose how many back-to-back launches
// make one sample of at least min_sample_ms (always 1 with an L2 flush, so
// every launch starts cold). NVML clocks are read once per sample while its
// launches run. On a failed launch the point stops with t.error set.
template <typename F>
Timing time_launches(F launch, const Options& opt, L2Flusher* flusher, const Nvml* nvml) {
  Timing t;
  cudaEvent_t a = nullptr, b = nullptr;
  int reps = 1;
  std::string err;
  if (opt.once) {
    err = launch();
    if (!err.empty()) {
      t.error = err;
      return t;
    }
    RT_TRY(cudaDeviceSynchronize());
    t.launches = 1;
    return t;
  }
  RT_TRY(cudaEventCreate(&a));
  RT_TRY(cudaEventCreate(&b));
  {
    const double start = rt_now_ms();
    for (int i = 0; i < 2 || rt_now_ms() - start < opt.warmup_ms; ++i) {
      if (!(err = launch()).empty()) break;
      RT_TRY(cudaDeviceSynchronize());
    }
  }
  if (!err.empty()) {
    t.error = err;
    goto done;
  }
  if (!opt.l2_flush) {
    RT_TRY(cudaEventRecord(a));
    if (!(err = launch()).empty()) {
      t.error = err;
      goto done;
    }
    RT_TRY(cudaEventRecord(b));
    RT_TRY(cudaEventSynchronize(b));
    float ms = 0;
    RT_TRY(cudaEventElapsedTime(&ms, a, b));
    if (ms > 0 && ms < opt.min_sample_ms) {
      reps = static_cast<int>(std::min(1000.0, std::ceil(opt.min_sample_ms / ms)));
    }
  }
  for (int s = 0; s < opt.samples; ++s) {
    if (flusher != nullptr && opt.l2_flush) flusher->flush();
    RT_TRY(cudaEventRecord(a));
    for (int r = 0; r < reps && err.empty(); ++r) err = launch();
    if (!err.empty()) {
      t.error = err;
      goto done;
    }
    RT_TRY(cudaEventRecord(b));
    // The launches are queued and running: read the clocks they run at.
    t.clocks.read(nvml);
    RT_TRY(cudaEventSynchronize(b));
    RT_TRY(cudaGetLastError());
    float ms = 0;
    RT_TRY(cudaEventElapsedTime(&ms, a, b));
    t.sample_ns.push_back(static_cast<double>(ms) * 1e6 / reps);
  }
  t.launches = reps;
done:
  if (a != nullptr) cudaEventDestroy(a);
  if (b != nullptr) cudaEventDestroy(b);
  return t;
}

// A kernel launch's error as "" or its text (the launch lambdas' result).
inline std::string rt_launch_error() {
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? std::string() : std::string("kernel launch: ") + cudaGetErrorString(e);
}

// Grid for a grid-stride kernel: as many blocks as fit on every SM at once
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor), so no launch has a
// partial last wave whatever the compiler's register count.
template <typename K>
int occupancy_grid(const DeviceInfo& dev, K kernel, int threads) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0) != cudaSuccess ||
      blocks < 1) {
    (void)cudaGetLastError();
    blocks = 1;
  }
  return blocks * dev.sm_count;
}

// The members every line starts with.
inline std::string line_head(const char* kernel, const char* kind, const char* dtype,
                             const std::string& shape) {
  std::string s = "{\"schema\":\"" RT_SCHEMA "\",\"kernel\":\"";
  s += kernel;
  s += "\",\"kind\":\"";
  s += kind;
  s += "\",\"dtype\":\"";
  s += dtype;
  s += "\",";
  s += shape;
  return s;
}

// Writes one measurement as a JSON line on stdout. `shape` and `extra` are
// pre-rendered lists of JSON members (`"m":1,"n":2`; `extra` may be empty),
// `bytes`/`flop` the analytic bytes moved and FLOP per launch. A failed
// point is written as a line with an "error" member and no samples.
inline void emit(const DeviceInfo& dev, const Options& opt, const char* kernel,
                 const char* kind, const char* dtype, const std::string& shape,
                 const std::string& extra, double bytes, double flop, const Timing& t) {
  if (!t.ok()) {
    std::fprintf(stderr, "rooftrace-harness: %s %s failed: %s\n", kernel, shape.c_str(),
                 t.error.c_str());
    if (opt.once) return;
    std::string s = line_head(kernel, kind, dtype, shape);
    if (!extra.empty()) s += "," + extra;
    s += ",\"l2_flush\":";
    s += opt.l2_flush ? "true" : "false";
    s += ",\"error\":\"" + json_escape(t.error) + "\",\"device\":" + dev.json + "}\n";
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
    return;
  }
  if (opt.once) return;
  std::string s = line_head(kernel, kind, dtype, shape);
  if (!extra.empty()) s += "," + extra;
  char buf[320];
  std::snprintf(buf, sizeof buf, ",\"bytes\":%.0f,\"flop\":%.0f,\"l2_flush\":%s,\"launches_per_sample\":%d,\"sample_ns\":[",
                bytes, flop, opt.l2_flush ? "true" : "false", t.launches);
  s += buf;
  for (size_t i = 0; i < t.sample_ns.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.1f", i ? "," : "", t.sample_ns[i]);
    s += buf;
  }
  s += "]";
  if (t.clocks.any) {
    const RunClocks& c = t.clocks;
    std::snprintf(buf, sizeof buf,
                  ",\"clocks\":{\"sm_clock_hz\":%.0f,\"sm_clock_min_hz\":%.0f,"
                  "\"mem_clock_hz\":%.0f,\"power_w\":%.1f,\"throttle_reasons\":%llu}",
                  rt_median(c.sm_mhz) * 1e6,
                  *std::min_element(c.sm_mhz.begin(), c.sm_mhz.end()) * 1e6,
                  rt_median(c.mem_mhz) * 1e6, rt_median(c.power_w), c.reasons);
    s += buf;
  }
  s += ",\"device\":";
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

// Grid of the untimed fill kernels (timed kernels use occupancy_grid).
inline int grid_for(const DeviceInfo& dev, int blocks_per_sm = 8) {
  return dev.sm_count * blocks_per_sm;
}
