// SPDX-License-Identifier: Apache-2.0
// hotkernel-calibrate: measures this card's streaming bandwidth (device copy, read-only and
// write-only kernels, buffers rotated past 2x L2) and its bf16/fp16 tensor-core GEMM peak
// (cuBLASLt, 8192^3, random data), and prints one JSON object on stdout. Progress on stderr.
// Plain CUDA C++, no Qt. Options: --device N, --quick (fewer repeats, smaller GEMM).
#include <cublasLt.h>

#include <chrono>
#include <thread>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string &what)
{
    std::printf("{\"tool\":\"hotkernel-calibrate\",\"ok\":false,\"error\":\"%s\"}\n", what.c_str());
    std::fflush(stdout);
    std::exit(1);
}

void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        fail(std::string(what) + ": " + cudaGetErrorString(e));
}

void checkLt(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        fail(std::string(what) + ": cuBLASLt status " + std::to_string(static_cast<int>(s)));
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

__device__ __forceinline__ uint32_t hash32(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return static_cast<uint32_t>(x);
}

// Uniform values in [-1, 1): random enough that the tensor cores do real work (zeros are
// known to run faster on some parts, which would overstate the peak).
template <typename T>
__global__ void fillRandom(T *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const float u = (hash32(seed * 0x9e3779b97f4a7c15ULL + i) >> 8) * (1.0f / 16777216.0f);
        p[i] = T(2.0f * u - 1.0f);
    }
}

__global__ void copyKernel(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

// Reads every element; one store per block keeps the compiler from dropping the loads.
__global__ void readKernel(const float4 *__restrict__ src, size_t n, float *sink)
{
    float acc = 0.f;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const float4 v = src[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5678f) // practically never true, but the compiler cannot know
        sink[blockIdx.x] = acc;
}

__global__ void writeKernel(float4 *__restrict__ dst, size_t n, float value)
{
    const float4 v = make_float4(value, value, value, value);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = v;
}

struct Figure
{
    std::string key;
    double value = 0;
    std::string unit;
    std::string method;
};

struct Options
{
    int device = 0;
    bool quick = false;
};

class Timer
{
public:
    Timer() { check(cudaEventCreate(&m_a), "cudaEventCreate"); check(cudaEventCreate(&m_b), "cudaEventCreate"); }
    ~Timer() { cudaEventDestroy(m_a); cudaEventDestroy(m_b); }
    void start(cudaStream_t s) { check(cudaEventRecord(m_a, s), "cudaEventRecord"); }
    double stopMs(cudaStream_t s)
    {
        check(cudaEventRecord(m_b, s), "cudaEventRecord");
        check(cudaEventSynchronize(m_b), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, m_a, m_b), "cudaEventElapsedTime");
        return ms;
    }

private:
    cudaEvent_t m_a{}, m_b{};
};

// Runs body(i) for i in [0, iters) between events, repeats times; returns the median ms per call.
template <typename Body>
double timeBlock(cudaStream_t s, int warmup, int iters, int repeats, Body body)
{
    for (int i = 0; i < warmup; ++i)
        body(i);
    check(cudaStreamSynchronize(s), "warm-up");
    Timer t;
    std::vector<double> samples;
    for (int r = 0; r < repeats; ++r) {
        t.start(s);
        for (int i = 0; i < iters; ++i)
            body(i);
        samples.push_back(t.stopMs(s) / iters);
    }
    return median(samples);
}

std::vector<Figure> measureBandwidth(const cudaDeviceProp &prop, const Options &opt, cudaStream_t s)
{
    const size_t l2 = static_cast<size_t>(std::max(prop.l2CacheSize, 1 << 20));
    // Each buffer is far larger than L2, and the rotation set (src and dst of every slot)
    // exceeds 2x L2, so no access is served from the cache of the previous call.
    size_t bytes = std::max<size_t>(256u << 20, 4 * l2);
    size_t freeMem = 0, totalMem = 0;
    check(cudaMemGetInfo(&freeMem, &totalMem), "cudaMemGetInfo");
    const int slots = static_cast<int>(std::max<size_t>(2, (2 * l2) / (2 * bytes) + 1));
    while (bytes > (16u << 20) && 2 * slots * bytes > freeMem / 2)
        bytes /= 2;
    bytes &= ~size_t(15);
    const size_t n4 = bytes / sizeof(float4);

    std::vector<float4 *> src(slots), dst(slots);
    for (int i = 0; i < slots; ++i) {
        check(cudaMalloc(&src[i], bytes), "cudaMalloc");
        check(cudaMalloc(&dst[i], bytes), "cudaMalloc");
        fillRandom<float><<<1024, 256, 0, s>>>(reinterpret_cast<float *>(src[i]), bytes / sizeof(float), i + 1);
    }
    float *sink = nullptr;
    check(cudaMalloc(&sink, 65536 * sizeof(float)), "cudaMalloc");
    check(cudaStreamSynchronize(s), "fill");

    const int blocks = prop.multiProcessorCount * 8;
    const int iters = opt.quick ? 5 : 20;
    const int repeats = opt.quick ? 3 : 9;
    const double mb = bytes / 1e9;
    const std::string rot = std::to_string(slots) + " rotated buffer pairs of " + std::to_string(bytes >> 20)
                            + " MiB (L2 " + std::to_string(l2 >> 20) + " MiB)";
    std::vector<Figure> figures;

    double ms = timeBlock(s, 3, iters, repeats, [&](int i) {
        check(cudaMemcpyAsync(dst[i % slots], src[i % slots], bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    });
    figures.push_back({"copy_gbs", 2 * mb / (ms * 1e-3), "GB/s",
                       "cudaMemcpyAsync device to device, bytes read + written / time; " + rot + "; CUDA events around "
                           + std::to_string(iters) + " copies, median of " + std::to_string(repeats)});

    ms = timeBlock(s, 3, iters, repeats, [&](int i) {
        copyKernel<<<blocks, 256, 0, s>>>(src[i % slots], dst[i % slots], n4);
    });
    figures.push_back({"copy_kernel_gbs", 2 * mb / (ms * 1e-3), "GB/s",
                       "grid-stride float4 copy kernel, bytes read + written / time; " + rot + "; median of "
                           + std::to_string(repeats)});

    ms = timeBlock(s, 3, iters, repeats, [&](int i) { readKernel<<<blocks, 256, 0, s>>>(src[i % slots], n4, sink); });
    figures.push_back({"read_gbs", mb / (ms * 1e-3), "GB/s",
                       "read-only float4 reduction kernel, bytes read / time; " + rot + "; median of " + std::to_string(repeats)});

    ms = timeBlock(s, 3, iters, repeats, [&](int i) { writeKernel<<<blocks, 256, 0, s>>>(dst[i % slots], n4, 1.0f); });
    figures.push_back({"write_gbs", mb / (ms * 1e-3), "GB/s",
                       "write-only float4 store kernel, bytes written / time; " + rot + "; median of " + std::to_string(repeats)});
    check(cudaGetLastError(), "bandwidth kernels");

    for (int i = 0; i < slots; ++i) {
        cudaFree(src[i]);
        cudaFree(dst[i]);
    }
    cudaFree(sink);
    return figures;
}

template <typename T>
std::vector<Figure> measureGemm(const char *key, cudaDataType_t type, const char *typeName, const Options &opt, cudaStream_t s)
{
    const int64_t n = opt.quick ? 4096 : 8192;
    const size_t elems = size_t(n) * n;
    T *a = nullptr, *b = nullptr, *c = nullptr;
    check(cudaMalloc(&a, elems * sizeof(T)), "cudaMalloc A");
    check(cudaMalloc(&b, elems * sizeof(T)), "cudaMalloc B");
    check(cudaMalloc(&c, elems * sizeof(T)), "cudaMalloc C");
    fillRandom<T><<<1024, 256, 0, s>>>(a, elems, 11);
    fillRandom<T><<<1024, 256, 0, s>>>(b, elems, 12);
    fillRandom<T><<<1024, 256, 0, s>>>(c, elems, 13);

    cublasLtHandle_t lt{};
    checkLt(cublasLtCreate(&lt), "cublasLtCreate");
    size_t workspaceBytes = 64u << 20;
    void *workspace = nullptr;
    check(cudaMalloc(&workspace, workspaceBytes), "cudaMalloc workspace");
    cublasLtMatmulPreference_t pref{};
    checkLt(cublasLtMatmulPreferenceCreate(&pref), "preference");
    checkLt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
                                                 sizeof workspaceBytes),
            "workspace preference");
    cublasLtMatrixLayout_t layout{};
    checkLt(cublasLtMatrixLayoutCreate(&layout, type, n, n, n), "layout");
    const float alpha = 1.0f, beta = 0.0f;

    // A peak is the best cuBLASLt can do: try both layouts torch uses (NN for row-major a @ b,
    // TN) and the heuristic's top candidates briefly, then time the fastest properly.
    struct Candidate
    {
        cublasLtMatmulDesc_t desc{};
        cublasLtMatmulAlgo_t algo{};
        const char *layoutName = "";
        double ms = 1e30;
    };
    std::vector<Candidate> candidates;
    const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    for (int variant = 0; variant < 2; ++variant) {
        cublasLtMatmulDesc_t desc{};
        checkLt(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        const cublasOperation_t &opA = variant == 0 ? opN : opT;
        checkLt(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA), "TRANSA");
        checkLt(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN), "TRANSB");
        cublasLtMatmulHeuristicResult_t results[8] = {};
        int found = 0;
        if (cublasLtMatmulAlgoGetHeuristic(lt, desc, layout, layout, layout, layout, pref, 8, results, &found)
                != CUBLAS_STATUS_SUCCESS)
            found = 0;
        const size_t before = candidates.size();
        for (int i = 0; i < found; ++i) {
            if (results[i].state == CUBLAS_STATUS_SUCCESS)
                candidates.push_back({desc, results[i].algo, variant == 0 ? "NN" : "TN"});
        }
        if (candidates.size() == before)
            cublasLtMatmulDescDestroy(desc);
    }
    if (candidates.empty())
        fail(std::string("cuBLASLt found no algorithm for ") + typeName);
    Candidate *best = nullptr;
    for (Candidate &cand : candidates) {
        bool ok = true;
        cand.ms = timeBlock(s, 1, 3, 1, [&](int) {
            if (cublasLtMatmul(lt, cand.desc, &alpha, a, layout, b, layout, &beta, c, layout, c, layout, &cand.algo,
                               workspace, workspaceBytes, s)
                != CUBLAS_STATUS_SUCCESS)
                ok = false;
        });
        if (ok && (!best || cand.ms < best->ms))
            best = &cand;
    }
    if (!best)
        fail(std::string("no cuBLASLt algorithm ran for ") + typeName);

    const auto matmul = [&](int) {
        checkLt(cublasLtMatmul(lt, best->desc, &alpha, a, layout, b, layout, &beta, c, layout, c, layout, &best->algo,
                               workspace, workspaceBytes, s),
                "cublasLtMatmul");
    };
    // Two rates, because the card is power-limited: a short burst after a rest (what a kernel of a
    // few milliseconds meets, and what torch's one-off timings report: ~800 TFLOP/s bf16 on the
    // H200 here) and the sustained rate of back-to-back blocks (clocks fall under the power cap
    // after ~100 ms: ~690 TFLOP/s). The burst rate is the roofline's compute ceiling.
    const int burstIters = 10;
    const int burstRepeats = opt.quick ? 3 : 5;
    const auto rest = std::chrono::milliseconds(opt.quick ? 100 : 300);
    matmul(0);
    check(cudaStreamSynchronize(s), "GEMM warm-up");
    std::vector<double> burstSamples;
    Timer burstTimer;
    for (int r = 0; r < burstRepeats; ++r) {
        std::this_thread::sleep_for(rest);
        burstTimer.start(s);
        for (int i = 0; i < burstIters; ++i)
            matmul(i);
        burstSamples.push_back(burstTimer.stopMs(s) / burstIters);
    }
    const double burstMs = median(burstSamples);
    const int iters = opt.quick ? 5 : 20;
    const int repeats = opt.quick ? 3 : 7;
    const double ms = timeBlock(s, 5, iters, repeats, matmul);
    const std::string layoutName = best->layoutName;
    const size_t tried = candidates.size();
    const double flops = 2.0 * double(n) * double(n) * double(n);

    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(layout);
    for (size_t i = 0; i < candidates.size(); ++i) {
        if (i == 0 || candidates[i].desc != candidates[i - 1].desc)
            cublasLtMatmulDescDestroy(candidates[i].desc);
    }
    cublasLtDestroy(lt);
    cudaFree(workspace);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);

    const std::string dim = std::to_string(n);
    const std::string what = std::string("cuBLASLt matmul ") + typeName + " " + dim + "x" + dim + "x" + dim + " ("
        + layoutName + ", fp32 accumulate, uniform random inputs; fastest of " + std::to_string(tried)
        + " heuristic candidates over NN and TN), 2*M*N*K / time; ";
    return {{key, flops / (burstMs * 1e-3) / 1e12, "TFLOP/s",
             what + "burst: CUDA events around " + std::to_string(burstIters) + " calls after a "
                 + std::to_string(rest.count()) + " ms rest, median of " + std::to_string(burstRepeats)},
            {std::string(key) + "_sustained", flops / (ms * 1e-3) / 1e12, "TFLOP/s",
             what + "sustained: CUDA events around " + std::to_string(iters) + " back-to-back calls, median of "
                 + std::to_string(repeats)}};
}

std::string uuidString(const cudaUUID_t &u)
{
    // Same form as NVML and nvidia-smi: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
    std::string s = "GPU-";
    char buf[4];
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s += '-';
        std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(u.bytes[i]));
        s += buf;
    }
    return s;
}

std::string jsonString(const std::string &s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out + "\"";
}

} // namespace

int main(int argc, char **argv)
{
    Options opt;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick"))
            opt.quick = true;
        else if (!std::strcmp(argv[i], "--device") && i + 1 < argc)
            opt.device = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--help")) {
            std::printf("usage: hotkernel-calibrate [--device N] [--quick]\n");
            return 0;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        fail("no CUDA device is visible (check the driver and CUDA_VISIBLE_DEVICES)");
    if (opt.device < 0 || opt.device >= count)
        fail("--device " + std::to_string(opt.device) + " is out of range (" + std::to_string(count) + " devices)");
    check(cudaSetDevice(opt.device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, opt.device), "cudaGetDeviceProperties");
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaStream_t s{};
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");

    std::fprintf(stderr, "hotkernel-calibrate: %s: bandwidth...\n", prop.name);
    std::vector<Figure> figures = measureBandwidth(prop, opt, s);
    std::fprintf(stderr, "hotkernel-calibrate: bf16 GEMM...\n");
    for (Figure &f : measureGemm<__nv_bfloat16>("bf16_tflops", CUDA_R_16BF, "bf16", opt, s))
        figures.push_back(std::move(f));
    std::fprintf(stderr, "hotkernel-calibrate: fp16 GEMM...\n");
    for (Figure &f : measureGemm<__half>("fp16_tflops", CUDA_R_16F, "fp16", opt, s))
        figures.push_back(std::move(f));
    cudaStreamDestroy(s);

    char when[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

    std::string out = "{\"tool\":\"hotkernel-calibrate\",\"format\":1,\"ok\":true";
    out += ",\"card\":" + jsonString(prop.name);
    out += ",\"uuid\":" + jsonString(uuidString(prop.uuid));
    out += ",\"device\":" + std::to_string(opt.device);
    out += ",\"compute_capability\":\"" + std::to_string(prop.major) + "." + std::to_string(prop.minor) + "\"";
    out += ",\"sm_count\":" + std::to_string(prop.multiProcessorCount);
    out += ",\"l2_bytes\":" + std::to_string(prop.l2CacheSize);
    out += ",\"memory_bytes\":" + std::to_string(prop.totalGlobalMem);
    out += ",\"cuda_driver_version\":" + std::to_string(driver);
    out += ",\"cuda_runtime_version\":" + std::to_string(runtime);
    out += ",\"quick\":" + std::string(opt.quick ? "true" : "false");
    out += ",\"measured_at\":\"" + std::string(when) + "\"";
    out += ",\"figures\":{";
    for (size_t i = 0; i < figures.size(); ++i) {
        char value[64];
        std::snprintf(value, sizeof value, "%.1f", figures[i].value);
        out += (i ? "," : "") + jsonString(figures[i].key) + ":{\"value\":" + value + ",\"unit\":"
               + jsonString(figures[i].unit) + ",\"method\":" + jsonString(figures[i].method) + "}";
    }
    out += "}}\n";
    std::fputs(out.c_str(), stdout);
    return 0;
}
