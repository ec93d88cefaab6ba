// gemm.cuh: tensor-core matrix multiplies through cuBLASLt, Y = X * A with
// X: M x K, A: K x N, Y: M x N. FLOP per call = 2 M N K; bytes (analytic) =
// (M K + K N) * sizeof(input) + M N * sizeof(output).
//
// Shapes: square n = 256 ... 8192, and the M sweep: N = K = 8192,
// M = 1, 2, 4 ... 2048 and 8192.
//
// cuBLAS is column-major; we compute Y^T (N x M) = A^T (N x K) * X^T (K x M),
// i.e. cuBLAS m = N, n = M, k = K, with the "TN" layout (first operand
// transposed) that FP8 requires, so every type runs the same layout and every
// leading dimension is K or N (multiples of 16 bytes).
#pragma once

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "common.cuh"

#define RT_CUBLAS(call)                                                               \
  do {                                                                                \
    cublasStatus_t rt_st_ = (call);                                                   \
    if (rt_st_ != CUBLAS_STATUS_SUCCESS) {                                            \
      std::fprintf(stderr, "rooftrace-harness: %s failed at %s:%d: %s\n", #call,      \
                   __FILE__, __LINE__, cublasLtGetStatusName(rt_st_));                \
      std::exit(RT_EXIT_CUDA);                                                        \
    }                                                                                 \
  } while (0)

// A cuBLASLt status as text for a failed point's "error" member.
inline std::string rt_cublas_error(const char* call, cublasStatus_t st) {
  return std::string(call) + ": " + cublasLtGetStatusName(st) + " (status " +
         std::to_string(static_cast<int>(st)) + ")";
}

struct GemmType {
  const char* kernel;   // gemm_fp16 ...
  const char* dtype;    // fp16 ...
  cudaDataType_t in_type, out_type;
  cublasComputeType_t compute;
  cudaDataType_t scale_type;
  int in_bytes, out_bytes;
  int min_cc;           // 10 * major + minor
  int fast_accum;       // FP8 only: CUBLASLT_MATMUL_DESC_FAST_ACCUM 0 or 1; -1 = not set
};

inline std::vector<GemmType> gemm_types() {
  return {
      {"gemm_fp16", "fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, 70, -1},
      {"gemm_bf16", "bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, 80, -1},
      {"gemm_tf32", "tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 4,
       4, 80, -1},
      {"gemm_fp64", "fp64", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, 8, 8, 80, -1},
      // FP8 E4M3 inputs, BF16 output (an FP8 output needs a scale; BF16 does
      // not), with and without fast accumulation: without it the tensor
      // cores' partial sums are promoted to FP32 at intervals (more
      // accurate, slower); with it cuBLAS reaches its FP8 peak.
      {"gemm_fp8_e4m3", "fp8_e4m3", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1,
       2, 89, 0},
      {"gemm_fp8_e4m3_fast_accum", "fp8_e4m3", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F,
       CUDA_R_32F, 1, 2, 89, 1},
  };
}

struct GemmShape {
  const char* sweep;  // "square" or "m_sweep"
  long long m, n, k;
};

inline std::vector<GemmShape> gemm_shapes(const Options& opt) {
  std::vector<GemmShape> s;
  if (opt.quick) {
    s.push_back({"square", 8192, 8192, 8192});
    s.push_back({"m_sweep", 1, 8192, 8192});
    return s;
  }
  for (long long n = 256; n <= 8192; n *= 2) s.push_back({"square", n, n, n});
  for (long long m = 1; m <= 2048; m *= 2) s.push_back({"m_sweep", m, 8192, 8192});
  s.push_back({"m_sweep", 8192, 8192, 8192});
  return s;
}

inline int count_gemm(const DeviceInfo& dev, const Options& opt) {
  int types = 0;
  for (const GemmType& t : gemm_types()) types += (dev.cc_major * 10 + dev.cc_minor >= t.min_cc);
  return types * static_cast<int>(gemm_shapes(opt).size());
}

template <typename T>
void fill_as(void* p, size_t n, const DeviceInfo& dev) {
  rt_fill<T><<<grid_for(dev), 256>>>(static_cast<T*>(p), n, 1.0f);
}

inline void fill_typed(cudaDataType_t t, void* p, size_t n, const DeviceInfo& dev) {
  switch (t) {
    case CUDA_R_16F: fill_as<__half>(p, n, dev); break;
    case CUDA_R_16BF: fill_as<__nv_bfloat16>(p, n, dev); break;
    case CUDA_R_32F: fill_as<float>(p, n, dev); break;
    case CUDA_R_64F: fill_as<double>(p, n, dev); break;
    case CUDA_R_8F_E4M3: fill_as<__nv_fp8_e4m3>(p, n, dev); break;
    default: break;
  }
}

// The algorithm cuBLASLt's heuristic chose, as JSON members of "algo".
inline std::string algo_json(const cublasLtMatmulHeuristicResult_t& h) {
  const cublasLtMatmulAlgoConfigAttributes_t attrs[] = {
      CUBLASLT_ALGO_CONFIG_ID,          CUBLASLT_ALGO_CONFIG_TILE_ID,
      CUBLASLT_ALGO_CONFIG_STAGES_ID,   CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
      CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
      CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION};
  const char* names[] = {"id", "tile", "stages", "splitk", "reduction", "swizzle", "custom"};
  std::string s = "\"algo\":{";
  char buf[64];
  for (int i = 0; i < 7; ++i) {
    int32_t v = 0;  // every one of these attributes is a 32-bit integer
    size_t written = 0;
    const bool ok = cublasLtMatmulAlgoConfigGetAttribute(&h.algo, attrs[i], &v, sizeof v,
                                                         &written) == CUBLAS_STATUS_SUCCESS;
    std::snprintf(buf, sizeof buf, "\"%s\":%d,", names[i], ok ? v : -1);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "\"waves\":%.3f}", static_cast<double>(h.wavesCount));
  return s + buf;
}

// Buffers and handle shared by every GEMM point.
struct GemmContext {
  cublasLtHandle_t lt;
  void *a, *x, *y, *workspace;
  size_t workspace_bytes;
};

#define RT_GEMM_TRY(call)                                    \
  do {                                                       \
    cublasStatus_t rt_st_ = (call);                          \
    if (rt_st_ != CUBLAS_STATUS_SUCCESS && err.empty()) {    \
      err = rt_cublas_error(#call, rt_st_);                  \
    }                                                        \
  } while (0)

// Runs one shape of one type and writes its line: the measurement with the
// algorithm cuBLASLt chose, or the error that made it fail (no algorithm,
// a failed matmul), and the run goes on.
inline void run_gemm_point(const DeviceInfo& dev, const Options& opt, L2Flusher* flusher,
                           const Nvml* nvml, const GemmContext& g, const GemmType& t,
                           const GemmShape& s) {
  // cuBLAS view: C (m_ x n_) = op(A) (m_ x k) * B (k x n_), op(A) = A^T.
  const uint64_t m_ = s.n, n_ = s.m, k = s.k;
  std::string err;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heur = {};
  int found = 0;
  cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
  RT_GEMM_TRY(cublasLtMatmulDescCreate(&desc, t.compute, t.scale_type));
  if (err.empty()) {
    RT_GEMM_TRY(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
    RT_GEMM_TRY(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN));
    if (t.fast_accum >= 0) {
      const int8_t fa = static_cast<int8_t>(t.fast_accum);
      RT_GEMM_TRY(
          cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fa, sizeof fa));
    }
  }
  RT_GEMM_TRY(cublasLtMatrixLayoutCreate(&la, t.in_type, k, m_, k));
  RT_GEMM_TRY(cublasLtMatrixLayoutCreate(&lb, t.in_type, k, n_, k));
  RT_GEMM_TRY(cublasLtMatrixLayoutCreate(&lc, t.out_type, m_, n_, m_));
  RT_GEMM_TRY(cublasLtMatmulPreferenceCreate(&pref));
  if (err.empty()) {
    RT_GEMM_TRY(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &g.workspace_bytes,
        sizeof g.workspace_bytes));
    RT_GEMM_TRY(
        cublasLtMatmulAlgoGetHeuristic(g.lt, desc, la, lb, lc, lc, pref, 1, &heur, &found));
    if (err.empty() && found == 0) err = "cublasLtMatmulAlgoGetHeuristic: no algorithm";
  }
  char shape[160];
  std::snprintf(shape, sizeof shape, "\"sweep\":\"%s\",\"m\":%lld,\"n\":%lld,\"k\":%lld", s.sweep,
                s.m, s.n, s.k);
  std::string extra;
  if (t.fast_accum >= 0) extra = t.fast_accum ? "\"fast_accum\":true" : "\"fast_accum\":false";
  Timing times;
  if (!err.empty()) {
    times.error = err;
  } else {
    if (!extra.empty()) extra += ",";
    extra += algo_json(heur);
    double alpha_d = 1.0, beta_d = 0.0;
    float alpha_f = 1.0f, beta_f = 0.0f;
    const void* alpha = t.scale_type == CUDA_R_64F ? static_cast<const void*>(&alpha_d) : &alpha_f;
    const void* beta = t.scale_type == CUDA_R_64F ? static_cast<const void*>(&beta_d) : &beta_f;
    times = time_launches(
        [&]() -> std::string {
          cublasStatus_t st = cublasLtMatmul(g.lt, desc, alpha, g.a, la, g.x, lb, beta, g.y, lc,
                                             g.y, lc, &heur.algo, g.workspace, g.workspace_bytes,
                                             0);
          return st == CUBLAS_STATUS_SUCCESS ? std::string() : rt_cublas_error("cublasLtMatmul", st);
        },
        opt, flusher, nvml);
  }
  const double bytes = static_cast<double>(s.m * s.k + s.k * s.n) * t.in_bytes +
                       static_cast<double>(s.m * s.n) * t.out_bytes;
  emit(dev, opt, t.kernel, "gemm", t.dtype, shape, extra, bytes, 2.0 * s.m * s.n * s.k, times);
  if (pref != nullptr) cublasLtMatmulPreferenceDestroy(pref);
  if (la != nullptr) cublasLtMatrixLayoutDestroy(la);
  if (lb != nullptr) cublasLtMatrixLayoutDestroy(lb);
  if (lc != nullptr) cublasLtMatrixLayoutDestroy(lc);
  if (desc != nullptr) cublasLtMatmulDescDestroy(desc);
  if (!times.ok()) rt_stop_if_sticky(t.kernel);
}

inline void run_gemm(const DeviceInfo& dev, const Options& opt, L2Flusher* flusher,
                     const Nvml* nvml) {
  GemmContext g;
  RT_CUBLAS(cublasLtCreate(&g.lt));
  g.workspace_bytes = size_t(32) << 20;
  RT_CUDA(cudaMalloc(&g.workspace, g.workspace_bytes));
  const size_t max_elems = size_t(8192) * 8192;
  RT_CUDA(cudaMalloc(&g.a, max_elems * 8));
  RT_CUDA(cudaMalloc(&g.x, max_elems * 8));
  RT_CUDA(cudaMalloc(&g.y, max_elems * 8));
  const int cc = dev.cc_major * 10 + dev.cc_minor;
  for (const GemmType& t : gemm_types()) {
    if (cc < t.min_cc) {
      std::fprintf(stderr, "rooftrace-harness: skipped %s: needs compute capability %d.%d\n",
                   t.kernel, t.min_cc / 10, t.min_cc % 10);
      continue;
    }
    fill_typed(t.in_type, g.a, max_elems, dev);
    fill_typed(t.in_type, g.x, max_elems, dev);
    RT_CUDA(cudaDeviceSynchronize());
    for (const GemmShape& s : gemm_shapes(opt)) run_gemm_point(dev, opt, flusher, nvml, g, t, s);
  }
  cudaFree(g.a);
  cudaFree(g.x);
  cudaFree(g.y);
  cudaFree(g.workspace);
  cublasLtDestroy(g.lt);
}
