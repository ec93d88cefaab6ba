// fma.cuh: the FMA sweep. Each scalar element is read once, goes through R
// dependent FMAs in registers, and is written once, so its intensity is known
// exactly: 2R FLOP per element per 2*sizeof(element) bytes.
//
// Packed types (half2, bf16x2): an *element* is one 16-bit scalar (one lane).
// One HFMA2 instruction does one FMA on each of its two lanes, so R HFMA2s on
// a pair give each of the two elements R FMAs: 2R lane FLOP per element and
// 4 bytes moved per element, I = R/2 in lane FLOP. rooftrace's FP16 path
// (and ncu) count an HFMA2 as one FMA = 2 FLOP, i.e. R HFMA2 per 8 bytes:
// I = R/4 in that convention (src/calibrate/select.rs halves the rate).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

#include "common.cuh"

__device__ __forceinline__ double rt_fma(double v, double a, double b) { return fma(v, a, b); }
__device__ __forceinline__ float rt_fma(float v, float a, float b) { return fmaf(v, a, b); }
__device__ __forceinline__ __half2 rt_fma(__half2 v, __half2 a, __half2 b) {
  return __hfma2(v, a, b);
}
__device__ __forceinline__ __nv_bfloat162 rt_fma(__nv_bfloat162 v, __nv_bfloat162 a,
                                                 __nv_bfloat162 b) {
  return __hfma2(v, a, b);
}

constexpr int RT_FMA_THREADS = 256;
// Unrolled FMAs per loop trip for R >= 32; R = U * reps. The loop counter and
// branch then cost ~2 issue slots per 32 x lanes FMAs.
constexpr int RT_FMA_MAX_UNROLL = 32;

// Each thread owns one 16-byte vector per grid-stride step: 2 doubles,
// 4 floats, 4 half2 or 4 bf16x2, i.e. independent dependency chains (ILP).
template <typename L, int U>
__global__ void __launch_bounds__(RT_FMA_THREADS)
    fma_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n, L a, L b,
               int reps) {
  constexpr int N = sizeof(uint4) / sizeof(L);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    uint4 raw = in[i];
    L v[N];
    memcpy(v, &raw, sizeof raw);
    for (int r = 0; r < reps; ++r) {
#pragma unroll
      for (int k = 0; k < U; ++k) {
#pragma unroll
        for (int j = 0; j < N; ++j) v[j] = rt_fma(v[j], a, b);
      }
    }
    memcpy(&raw, v, sizeof raw);
    out[i] = raw;
  }
}

template <typename L>
using FmaFn = void (*)(const uint4*, uint4*, size_t, L, L, int);

// The kernel instance for R dependent FMAs and its trip count: R < 32 fully
// unrolled, else R / 32 trips of the 32-FMA body.
template <typename L>
FmaFn<L> fma_fn(int r, int* reps) {
  *reps = 1;
  switch (r) {
    case 1: return fma_kernel<L, 1>;
    case 2: return fma_kernel<L, 2>;
    case 4: return fma_kernel<L, 4>;
    case 8: return fma_kernel<L, 8>;
    case 16: return fma_kernel<L, 16>;
    default: *reps = r / RT_FMA_MAX_UNROLL; return fma_kernel<L, RT_FMA_MAX_UNROLL>;
  }
}

// R values fma_fn can run: 1, 2, 4, 8, 16, or a positive multiple of 32.
inline bool fma_r_ok(int r) {
  return r == 1 || r == 2 || r == 4 || r == 8 || r == 16 ||
         (r > 0 && r % RT_FMA_MAX_UNROLL == 0 && r <= 65536);
}

inline std::vector<int> fma_rs(const Options& opt) {
  if (!opt.fma_r.empty()) return opt.fma_r;
  if (opt.quick) return {1, 64, 2048};
  std::vector<int> rs;
  for (int r = 1; r <= 2048; r *= 2) rs.push_back(r);
  return rs;
}

inline int count_fma(const Options& opt) { return 4 * static_cast<int>(fma_rs(opt).size()); }

// a = b = 0.5 keeps every value in [-1, 1] for any R (v -> 0.5 v + 0.5
// contracts towards 1), so no type overflows or goes subnormal.
template <typename L>
void run_fma_type(const DeviceInfo& dev, const Options& opt, const Nvml* nvml,
                  const char* kernel, const char* dtype, int scalar_bytes, const uint4* in,
                  uint4* out, size_t n_vec, L half) {
  const double elements = static_cast<double>(n_vec) * (sizeof(uint4) / scalar_bytes);
  char shape[128], extra[64];
  for (int r : fma_rs(opt)) {
    int reps = 1;
    FmaFn<L> fn = fma_fn<L>(r, &reps);
    const int grid = occupancy_grid(dev, fn, RT_FMA_THREADS);
    Timing t = time_launches(
        [&] {
          fn<<<grid, RT_FMA_THREADS>>>(in, out, n_vec, half, half, reps);
          return rt_launch_error();
        },
        opt, nullptr, nvml);
    std::snprintf(shape, sizeof shape, "\"r\":%d,\"elements\":%.0f", r, elements);
    std::snprintf(extra, sizeof extra, "\"grid\":%d", grid);
    emit(dev, opt, kernel, "fma", dtype, shape, extra, 2.0 * scalar_bytes * elements,
         2.0 * r * elements, t);
    if (!t.ok()) rt_stop_if_sticky(kernel);
  }
}

// 512 MiB in total: 256 MiB read, 256 MiB written, far above any L2.
inline void run_fma(const DeviceInfo& dev, const Options& opt, const Nvml* nvml) {
  const size_t bytes = size_t(256) << 20;
  const size_t n_vec = bytes / sizeof(uint4);
  uint4 *in = nullptr, *out = nullptr;
  RT_CUDA(cudaMalloc(&in, bytes));
  RT_CUDA(cudaMalloc(&out, bytes));
  // Refill before each type so the lanes hold real values of that type in [-1, 1].
  rt_fill<double><<<grid_for(dev), 256>>>(reinterpret_cast<double*>(in), bytes / 8, 1.0f);
  RT_CUDA(cudaDeviceSynchronize());
  run_fma_type<double>(dev, opt, nvml, "fma_fp64", "fp64", 8, in, out, n_vec, 0.5);
  rt_fill<float><<<grid_for(dev), 256>>>(reinterpret_cast<float*>(in), bytes / 4, 1.0f);
  RT_CUDA(cudaDeviceSynchronize());
  run_fma_type<float>(dev, opt, nvml, "fma_fp32", "fp32", 4, in, out, n_vec, 0.5f);
  rt_fill<__half><<<grid_for(dev), 256>>>(reinterpret_cast<__half*>(in), bytes / 2, 1.0f);
  RT_CUDA(cudaDeviceSynchronize());
  run_fma_type<__half2>(dev, opt, nvml, "fma_fp16x2", "fp16", 2, in, out, n_vec,
                        __float2half2_rn(0.5f));
  rt_fill<__nv_bfloat16><<<grid_for(dev), 256>>>(reinterpret_cast<__nv_bfloat16*>(in), bytes / 2,
                                                 1.0f);
  RT_CUDA(cudaDeviceSynchronize());
  run_fma_type<__nv_bfloat162>(dev, opt, nvml, "fma_bf16x2", "bf16", 2, in, out, n_vec,
                               __float2bfloat162_rn(0.5f));
  cudaFree(in);
  cudaFree(out);
}
