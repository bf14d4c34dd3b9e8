// SPDX-License-Identifier: Apache-2.0
// Split-KV decode attention for the example target decode_attention: one query token, GQA with 4
// query heads per KV head, head dim 128, bf16:
//   out[h] = softmax(q[h] . K[h / 4]^T / sqrt(128)) V[h / 4]
//   q [Hq, 128], K and V [Hkv, S, 128] (contiguous), out [Hq, 128].
// Built by examples/cuda_launch.py with nvcc into a cubin and launched through the driver API.
//
// Why it is shaped this way (the H200 streams the 128 MiB of K and V in ~32 us; cuDNN takes ~38 us
// and the two-launch Triton kernel ~36.4 us, so the kernel boundary, the access order and the tail
// matter, not the arithmetic):
// - One launch. Grid (chunks, Hkv): a block owns 1/chunks of the keys of one KV head and all 4 of
//   its query heads, so K and V are read exactly once. The block that finishes a KV head's chunks
//   last (a per-head ticket counter, reset by that block) combines their partials, issuing all of
//   its loads in one round trip; there is no second kernel and no gap between launches inside a
//   CUDA graph. The tagged combine (combine = 1) takes the fence and the ticket off that tail:
//   every published value carries the call's epoch in its 64-bit word, and the head's last block
//   polls until it has them all. On the H200 it measured slower (38.5 against 37.3 us,
//   bench/gpu/results/decode-probe-2026-12-02-2258.txt), as did the even layout at the end of
//   this file (43.2 us); both are kept as measured alternatives, not used by any candidate.
// - The kept candidate's combine ("cluster", with the direct copy below) is not one launch: a KV
//   head's 16 blocks form a thread block cluster and merge their partials over distributed shared
//   memory, which takes the tail off global memory (34.1 against 35.2 us for the ticket), and the
//   heads whose clusters do not fit at once go to a second kernel (see "Combine cluster"). Its
//   cluster warps also have the L2 prefetch the last keys for the warps still streaming once their
//   own stream has ended (see "Tail prefetch": 33.7-33.9 against 34.1-34.7 us).
// - Every warp runs its own pipeline over its own keys (STAGES tiles of 16 keys of K and of V in
//   flight), synchronised with __syncwarp only: no block barrier in the streaming loop. Three ways
//   to fill a tile are kept, because the H200 measured them equal (bench/gpu/results/decode-cuda-*):
//   cp.async per thread, the same with a 256-byte L2 prefetch, and cp.async.bulk (TMA) per row.
//   Shared-memory rows are padded to 272 bytes so that the 8 rows an ldmatrix reads fall in
//   different banks.
// - Key order: "interleaved" (step j of every warp of a KV head reads one contiguous window) ran
//   5% faster than each block walking its own run of keys (thousands of scattered streams).
//   "staggered" also starts KV head h h/Hkv of the way along its keys, so that the heads' windows
//   sit at different offsets of their regions (measured within 1% of interleaved).
// - Tensor cores do both products with the flash-attention fragment trick: S = Q K^T with the 4
//   query heads as the rows of a 16-row mma (rows 4..15 are zero), and the score fragment is,
//   element for element, the A fragment of P V, so the probabilities never leave registers.
//   V's B fragment comes from ldmatrix.trans. The wasted rows cost tensor-core time, of which
//   there is plenty; they cost no memory traffic.
// - Online softmax in base 2 (the 1/sqrt(d) scale folded into log2(e)), fp32 throughout, P
//   rounded to bf16 only as an mma operand.
#include <cuda_bf16.h>
#include <stdint.h>

namespace {

constexpr int kDim = 128;                         // head dimension
constexpr int kGroup = 4;                         // query heads per KV head
constexpr int kTileKeys = 16;                     // keys per pipeline stage and warp
constexpr int kRowBytes = kDim * 2;               // one key row of K or V in global memory
constexpr int kRowStride = kRowBytes + 16;        // its padded row in shared memory
constexpr int kTileBytes = kTileKeys * kRowStride;
constexpr int kStageBytes = 2 * kTileBytes;       // K tile, then V tile
constexpr int kChunksPerLane = kTileKeys * kRowBytes / 16 / 32;  // 16-byte copies per lane and tile

__device__ __forceinline__ uint32_t shared_address(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void copy_async_16(uint32_t dst, const void *src)
{
    // .cg: straight to L2, not L1; K and V are read once.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void copy_async_16_prefetch(uint32_t dst, const void *src)
{
    // The same, asking L2 to fetch the whole 256-byte block from DRAM (larger DRAM requests).
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void copy_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int PENDING>
__device__ __forceinline__ void copy_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

// The bulk-copy path (the Hopper TMA engine): one instruction per lane copies a whole 256-byte row,
// and completion is counted in bytes on a per-slot mbarrier instead of per-thread copy groups.
__device__ __forceinline__ void barrier_init(uint32_t bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void barrier_expect_bytes(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void barrier_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    }
}

__device__ __forceinline__ void copy_bulk(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void load_matrix_x4(uint32_t r[4], uint32_t address)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address)
                 : "memory");
}

__device__ __forceinline__ void load_matrix_x4_transposed(uint32_t r[4], uint32_t address)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address)
                 : "memory");
}

// c += A (16x16, row-major fragment a) * B (16x8, column fragment b0 b1), fp32 accumulate.
__device__ __forceinline__ void mma_16x8x16(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float exp2_approx(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));  // ex2(-inf) = +0
    return y;
}

__device__ __forceinline__ uint32_t pack_bf16(float low, float high)
{
    const __nv_bfloat162 v = __floats2bfloat162_rn(low, high);
    return *reinterpret_cast<const uint32_t *>(&v);
}

// The block's result for one KV head's chunk, per query head: the running max m (log2 units),
// the sum l of exp2(score - m), and the unnormalised output acc[128].
struct Partial {
    float *acc;  // [Hkv * chunks * 4][128]
    float2 *ml;  // [Hkv * chunks * 4]: (m, l)
    // The tagged combine: Hkv epoch words, padded to 32, then [Hkv * chunks * 4][130] words of
    // (epoch + 1) << 32 | value bits: acc[128], m, l.
    uint64_t *tagged;
};

// The tagged combine (combine = 1) replaces write, fence, ticket and read (three L2 round trips on
// the tail that no streaming hides) with one store and a poll: every value a block publishes
// carries the call's epoch in the same 64-bit word, so the combining block knows each one is this
// call's without any fence or counter, and the epoch, kept beside the values, moves on once per call.
constexpr int kTaggedRow = 130, kEpochWords = 32;
constexpr unsigned kMaxPolls = 1u << 24;  // ~seconds of polling: far beyond any real wait

__device__ __forceinline__ void store_tagged(uint64_t *p, uint32_t tag, float value)
{
    const uint64_t word = (uint64_t(tag) << 32) | __float_as_uint(value);
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(word) : "memory");
}

__device__ __forceinline__ uint64_t load_tagged(const uint64_t *p)
{
    uint64_t word;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(p) : "memory");
    return word;
}

// cp.async 16 bytes per thread (optionally with a 256-byte L2 prefetch), or cp.async.bulk per row.
enum class Copy { per_thread, per_thread_prefetch, bulk };

// stop_after values other than 0 (run to the end) are for measuring the phases only
// (bench/gpu/check_decode_cuda.py); candidates always run to the end.
constexpr int kStopBeforeCombine = 1, kStopAfterStreaming = 2, kStreamOnly = 3;

// How a KV head's chunks are combined (decode_attention_cuda.py names them): the last block to take
// a ticket, after a fence per thread (ticket) or one acq_rel atomic (ticket-release); the last
// block dispatched, polling for tagged values (tagged); the first block of the head's thread block
// cluster, which the others send their partials to through distributed shared memory (cluster,
// the direct copy only: finish_cluster). (2 was "dedicated": a row of blocks that did
// no streaming merged the partials as they were published; 2.3 us slower than the ticket on the
// H200 in two versions, bench/gpu/results/decode_direct_sweep-2026-12-03-{0754,0813}.txt.)
constexpr int kCombineTicket = 0, kCombineTagged = 1, kCombineTicketRelease = 3;  // "cluster": the _cluster entries

// How a KV head's keys are dealt to its blocks and warps (decode_attention_cuda.py names them).
constexpr int kOrderChunk = 0, kOrderInterleaved = 1, kOrderStaggered = 2;

// Which keys tile j of a warp holds. In chunk order a block owns seq / chunks consecutive keys;
// interleaved, step j of all blocks and warps of a KV head covers one contiguous window (tile
// (j * chunks + chunk) * warps + warp), so the whole grid streams through a few narrow address
// windows instead of thousands of scattered ones. Staggered is interleaved with KV head h starting
// its walk h/Hkv of the way along its keys (and wrapping), so that the heads' windows do not sit at
// the same offset of their 8 MiB regions.
struct TileOrder {
    int order, chunk, chunks, warp, warps, tiles, keys_per_chunk, keys_per_warp, rotation;

    __device__ TileOrder(int order_, int chunk_, int chunks_, int warp_, int warps_, int tiles_, int seq, int kv_head,
                         int kv_heads)
        : order(order_), chunk(chunk_), chunks(chunks_), warp(warp_), warps(warps_), tiles(tiles_),
          keys_per_chunk(seq / chunks_), keys_per_warp(seq / chunks_ / warps_), rotation(order_ == kOrderStaggered ? kv_head * tiles_ / kv_heads : 0)
    {
    }

    __device__ size_t first_key(int j) const
    {
        if (order == kOrderChunk)
            return size_t(chunk) * keys_per_chunk + size_t(warp) * keys_per_warp + size_t(j) * kTileKeys;
        const int step = (j + rotation) % tiles;
        return size_t((step * chunks + chunk) * warps + warp) * kTileKeys;
    }
};

// One warp's share of a tile: copies 16 keys of K and of V (byte offset src in their rows) into a
// pipeline slot of padded rows, 16 bytes per lane and copy.
template <Copy COPY>
__device__ __forceinline__ void copy_tile_per_thread(uint32_t k_dst, const char *k_rows, const char *v_rows, size_t src,
                                                     int lane)
{
    const uint32_t v_dst = k_dst + kTileBytes;
#pragma unroll
    for (int i = 0; i < kChunksPerLane; ++i) {
        const int c = i * 32 + lane, row = c / 16, col = c % 16;  // a warp copies two whole rows
        const uint32_t dst = row * kRowStride + col * 16;
        const size_t from = src + row * kRowBytes + col * 16;
        if constexpr (COPY == Copy::per_thread_prefetch) {
            copy_async_16_prefetch(k_dst + dst, k_rows + from);
            copy_async_16_prefetch(v_dst + dst, v_rows + from);
        } else {
            copy_async_16(k_dst + dst, k_rows + from);
            copy_async_16(v_dst + dst, v_rows + from);
        }
    }
}

// Q as the A fragment of S = Q K^T, one pair of registers per 16-dim step: row g is query head
// g of this KV head (rows 4..15 are zero, as are the a1/a3 registers of rows g + 8).
__device__ __forceinline__ void load_q_fragment(uint32_t q_frag[kDim / 16][2], const __nv_bfloat16 *q, int kv_head,
                                                int g, int t)
{
    const uint32_t *q_pairs = reinterpret_cast<const uint32_t *>(q + (kv_head * kGroup + min(g, kGroup - 1)) * kDim);
#pragma unroll
    for (int s = 0; s < kDim / 16; ++s) {
        q_frag[s][0] = g < kGroup ? q_pairs[(s * 16 + 2 * t) / 2] : 0u;
        q_frag[s][1] = g < kGroup ? q_pairs[(s * 16 + 2 * t + 8) / 2] : 0u;
    }
}

// A warp's online softmax over its keys for the 4 query heads. o[n] holds head g's dims 8n + 2t and
// 8n + 2t + 1 in [0] and [1] ([2], [3] are the unused rows g + 8); l is this lane's share of the
// sum until summed over the group's four lanes.
struct WarpState {
    float m = -INFINITY, l = 0.f;
    float o[kDim / 8][4] = {};
};

// One tile's online-softmax step, whichever way the tile was read: s_lo and s_hi are the score
// fragments of Q K^T for the tile's two 8-key halves (head g's scores for keys 2t, 2t + 1 of each in
// [0] and [1]). Rescales the warp's state and leaves the probabilities in p_frag as the A fragment of
// P V, keys as its columns (2t, 2t + 1 of the low half, then of the high half), and returns the
// factor alpha by which head g's output so far must be rescaled. The max over the tile needs the
// four lanes of the group.
__device__ __forceinline__ float softmax_step(const float s_lo[4], const float s_hi[4], float scale_log2, float &m,
                                              float &l, uint32_t p_frag[4])
{
    const float x0 = s_lo[0] * scale_log2, x1 = s_lo[1] * scale_log2;
    const float x2 = s_hi[0] * scale_log2, x3 = s_hi[1] * scale_log2;
    float tile_max = fmaxf(fmaxf(x0, x1), fmaxf(x2, x3));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float m_new = fmaxf(m, tile_max);
    const float alpha = exp2_approx(m - m_new);
    const float p0 = exp2_approx(x0 - m_new), p1 = exp2_approx(x1 - m_new);
    const float p2 = exp2_approx(x2 - m_new), p3 = exp2_approx(x3 - m_new);
    l = l * alpha + ((p0 + p1) + (p2 + p3));
    m = m_new;
    p_frag[0] = pack_bf16(p0, p1);
    p_frag[1] = 0u;
    p_frag[2] = pack_bf16(p2, p3);
    p_frag[3] = 0u;
    return alpha;
}

// ldmatrix row addresses of this lane inside a tile: K for the B fragment of Q K^T (matrices:
// keys 0-7 dims +0, keys 0-7 dims +8, keys 8-15 dims +0, keys 8-15 dims +8), V transposed for
// the B fragment of P V (keys 0-7 dims +0, keys 8-15 dims +0, keys 0-7 dims +8, keys 8-15 dims +8).
__device__ __forceinline__ uint32_t k_lane_offset(int lane)
{
    return ((lane >> 4) * 8 + (lane & 7)) * kRowStride + ((lane >> 3) & 1) * 16;
}

__device__ __forceinline__ uint32_t v_lane_offset(int lane)
{
    return kTileBytes + (((lane >> 3) & 1) * 8 + (lane & 7)) * kRowStride + (lane >> 4) * 16;
}

// Folds one 16-key tile (K and V in the slot at shared address `slot`) into the warp's state.
__device__ __forceinline__ void attend_tile(uint32_t slot, uint32_t k_lane, uint32_t v_lane,
                                            const uint32_t q_frag[kDim / 16][2], float scale_log2, WarpState &st)
{
    float s_lo[4] = {0.f, 0.f, 0.f, 0.f}, s_hi[4] = {0.f, 0.f, 0.f, 0.f};  // keys 0-7, keys 8-15
#pragma unroll
    for (int s = 0; s < kDim / 16; ++s) {
        uint32_t b[4];
        load_matrix_x4(b, slot + k_lane + s * 32);
        const uint32_t a[4] = {q_frag[s][0], 0u, q_frag[s][1], 0u};
        mma_16x8x16(s_lo, a, b[0], b[1]);
        mma_16x8x16(s_hi, a, b[2], b[3]);
    }
    uint32_t p_frag[4];
    const float alpha = softmax_step(s_lo, s_hi, scale_log2, st.m, st.l, p_frag);
#pragma unroll
    for (int n = 0; n < kDim / 8; ++n) {
        st.o[n][0] *= alpha;
        st.o[n][1] *= alpha;
    }
#pragma unroll
    for (int j = 0; j < kDim / 16; ++j) {
        uint32_t b[4];
        load_matrix_x4_transposed(b, slot + v_lane + j * 32);
        mma_16x8x16(st.o[2 * j], p_frag, b[0], b[1]);
        mma_16x8x16(st.o[2 * j + 1], p_frag, b[2], b[3]);
    }
}

// A warp's result in shared memory: acc [4][128] floats, then (m, l) per query head. l must be the
// group's sum already.
constexpr int kWarpResultBytes = kGroup * kDim * 4 + kGroup * 8;

__device__ __forceinline__ void store_warp_result(unsigned char *area, const WarpState &st, int g, int t)
{
    float *acc = reinterpret_cast<float *>(area);
    if (g < kGroup) {
#pragma unroll
        for (int n = 0; n < kDim / 8; ++n)
            *reinterpret_cast<float2 *>(acc + g * kDim + 8 * n + 2 * t) = make_float2(st.o[n][0], st.o[n][1]);
        if (t == 0)
            reinterpret_cast<float2 *>(acc + kGroup * kDim)[g] = make_float2(st.m, st.l);
    }
}

// The warps' results (WARPS areas, `stride` bytes apart) merged for query head h, dims d..d+3.
template <int WARPS>
__device__ __forceinline__ void merge_warp_results(const unsigned char *first, int stride, int h, int d, float &m,
                                                   float &l, float4 &acc)
{
    m = -INFINITY;
#pragma unroll
    for (int w = 0; w < WARPS; ++w)
        m = fmaxf(m, reinterpret_cast<const float2 *>(first + w * stride + kGroup * kDim * 4)[h].x);
    l = 0.f;
    acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        const float *wa = reinterpret_cast<const float *>(first + w * stride);
        const float2 ml = reinterpret_cast<const float2 *>(wa + kGroup * kDim)[h];
        const float f = exp2_approx(ml.x - m);  // 0 for a warp with no keys (m = -inf), if another has some
        const float4 a = *reinterpret_cast<const float4 *>(wa + h * kDim + d);
        l += ml.y * f;
        acc.x += a.x * f;
        acc.y += a.y * f;
        acc.z += a.z * f;
        acc.w += a.w * f;
    }
}

__device__ __forceinline__ void store_tagged_partial(uint64_t *row, uint32_t tag, int d, float m, float l, float4 acc)
{
    store_tagged(row + d, tag, acc.x);
    store_tagged(row + d + 1, tag, acc.y);
    store_tagged(row + d + 2, tag, acc.z);
    store_tagged(row + d + 3, tag, acc.w);
    if (d == 0) {
        store_tagged(row + kDim, tag, m);
        store_tagged(row + kDim + 1, tag, l);
    }
}

// Loads BATCH tagged partial rows (dims d..d+3 and m, l each), all in flight at once, and again
// only those that do not carry `tag` yet, until every one does.
template <int BATCH>
__device__ __forceinline__ void load_tagged_batch(const uint64_t *const rows[BATCH], uint32_t tag, int d,
                                                  float2 ml[BATCH], float4 a[BATCH])
{
    uint64_t w[BATCH][6];
    bool ready[BATCH];
#pragma unroll
    for (int j = 0; j < BATCH; ++j)
        ready[j] = false;
    for (unsigned polls = 0;; ++polls) {
        if (polls > kMaxPolls)
            __trap();  // a block never published: fail loudly rather than hang the GPU
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            if (!ready[j]) {
                w[j][0] = load_tagged(rows[j] + d);
                w[j][1] = load_tagged(rows[j] + d + 1);
                w[j][2] = load_tagged(rows[j] + d + 2);
                w[j][3] = load_tagged(rows[j] + d + 3);
                w[j][4] = load_tagged(rows[j] + kDim);
                w[j][5] = load_tagged(rows[j] + kDim + 1);
            }
        }
        bool all = true;
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            bool r = true;
#pragma unroll
            for (int x = 0; x < 6; ++x)
                r = r && uint32_t(w[j][x] >> 32) == tag;
            ready[j] = r;
            all = all && r;
        }
        if (all)
            break;
    }
#pragma unroll
    for (int j = 0; j < BATCH; ++j) {
        a[j] = make_float4(__uint_as_float(uint32_t(w[j][0])), __uint_as_float(uint32_t(w[j][1])),
                           __uint_as_float(uint32_t(w[j][2])), __uint_as_float(uint32_t(w[j][3])));
        ml[j] = make_float2(__uint_as_float(uint32_t(w[j][4])), __uint_as_float(uint32_t(w[j][5])));
    }
}

// The final combine of one KV head's n partials into its 4 query heads' outputs (out_head: [4][128]).
// One round trip to L2: every thread issues all of its loads before using any. With 8 warps two
// threads share an output, each taking every other partial, and merge by a shuffle.
// load(batch of partial indices, h, d, ml, a) fills the batch's values (indices past n are clamped).
constexpr int kCombineBatch = 8;  // partials loaded together per thread

template <int WARPS, typename Load>
__device__ __forceinline__ void combine_partials(int n, Load load, __nv_bfloat16 *__restrict__ out_head)
{
    constexpr int kOutputs = kGroup * kDim / 4;  // float4 outputs of a KV head
    constexpr int kParts = WARPS * 32 >= 2 * kOutputs ? WARPS * 32 / kOutputs : 1;
    static_assert(kParts <= 32 && (kParts & (kParts - 1)) == 0, "the parts of an output share a warp");
    const int part = threadIdx.x % kParts;
    for (int idx = threadIdx.x / kParts; idx < kOutputs; idx += WARPS * 32 / kParts) {
        const int h = idx / (kDim / 4), d = (idx % (kDim / 4)) * 4;
        float m = -INFINITY, l = 0.f;
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int c0 = part; c0 < n; c0 += kCombineBatch * kParts) {
            int index[kCombineBatch];
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j)
                index[j] = min(c0 + j * kParts, n - 1);
            float2 ml[kCombineBatch];
            float4 a[kCombineBatch];
            load(index, h, d, ml, a);
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j)
                if (c0 + j * kParts >= n)
                    ml[j] = make_float2(-INFINITY, 0.f);  // weight exp2(-inf) = 0
            float m_new = m;
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j)
                m_new = fmaxf(m_new, ml[j].x);  // finite: partial c0 is always valid
            const float rescale = exp2_approx(m - m_new);
            l *= rescale;
            acc = make_float4(acc.x * rescale, acc.y * rescale, acc.z * rescale, acc.w * rescale);
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j) {
                const float f = exp2_approx(ml[j].x - m_new);
                l += ml[j].y * f;
                acc.x += a[j].x * f;
                acc.y += a[j].y * f;
                acc.z += a[j].z * f;
                acc.w += a[j].w * f;
            }
            m = m_new;
        }
#pragma unroll
        for (int offset = 1; offset < kParts; offset *= 2) {
            const float m_other = __shfl_xor_sync(0xffffffffu, m, offset);
            const float l_other = __shfl_xor_sync(0xffffffffu, l, offset);
            float4 a_other;
            a_other.x = __shfl_xor_sync(0xffffffffu, acc.x, offset);
            a_other.y = __shfl_xor_sync(0xffffffffu, acc.y, offset);
            a_other.z = __shfl_xor_sync(0xffffffffu, acc.z, offset);
            a_other.w = __shfl_xor_sync(0xffffffffu, acc.w, offset);
            const float m_new = fmaxf(m, m_other);
            const float f = m == -INFINITY ? 0.f : exp2_approx(m - m_new);  // a part with no partials
            const float f_other = m_other == -INFINITY ? 0.f : exp2_approx(m_other - m_new);
            l = l * f + l_other * f_other;
            acc = make_float4(acc.x * f + a_other.x * f_other, acc.y * f + a_other.y * f_other,
                              acc.z * f + a_other.z * f_other, acc.w * f + a_other.w * f_other);
            m = m_new;
        }
        if (part == 0) {
            const float inv = 1.f / l;
            __nv_bfloat16 *dst = out_head + h * kDim + d;
            *reinterpret_cast<__nv_bfloat162 *>(dst) = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
            *reinterpret_cast<__nv_bfloat162 *>(dst + 2) = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
        }
    }
}

// A warp's STAGES-deep copy pipeline over its `tiles` tiles: issue(j, slot) starts tile j's copies
// into slot j % STAGES, wait(i) makes tile i visible to the whole warp, use(i, slot) consumes it.
template <int STAGES, typename Issue, typename Wait, typename Use>
__device__ __forceinline__ void run_pipeline(int tiles, Issue issue, Wait wait, Use use)
{
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles)
            issue(s, s);
        copy_async_commit();
    }
    for (int i = 0; i < tiles; ++i) {
        const int next = i + STAGES - 1;
        if (next < tiles)
            issue(next, next % STAGES);  // the slot tile i - 1 used; freed by the last __syncwarp
        wait(i);
        use(i, i % STAGES);
        __syncwarp();  // the slot is free for the copy issued next iteration
    }
    copy_async_wait<0>();
}

// One KV head's tagged partials combined into its outputs by the whole block, polling for `tag` on
// every value read (the caller moves the epoch on once all threads have read).
template <int WARPS>
__device__ __forceinline__ void combine_tagged_head(Partial partial, __nv_bfloat16 *__restrict__ out, int kv_head,
                                                    int chunks, uint32_t tag)
{
    const size_t head_row = size_t(kv_head) * chunks * kGroup;
    combine_partials<WARPS>(
        chunks,
        [&](const int(&index)[kCombineBatch], int h, int d, float2 *ml, float4 *a) {
            const uint64_t *rows[kCombineBatch];
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j)
                rows[j] = partial.tagged + kEpochWords + (head_row + size_t(index[j]) * kGroup + h) * kTaggedRow;
            load_tagged_batch<kCombineBatch>(rows, tag, d, ml, a);
        },
        out + size_t(kv_head) * kGroup * kDim);
}

__device__ __forceinline__ int atomic_add_acq_rel(int *p, int value)
{
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(value) : "memory");
    return old;
}

// After the stream, once every warp's result is in shared memory (WARPS areas, `stride` bytes
// apart): the block's partial (the warps' results merged, four dims per thread and step) is
// published as chunk `chunk` of `chunks`, and the block that completes its KV head combines the
// head's chunks. tag is this call's tag for the tagged combines.
template <int WARPS>
__device__ __forceinline__ void finish_block(const unsigned char *warp_results, int stride, Partial partial,
                                             int *__restrict__ tickets, __nv_bfloat16 *__restrict__ out, int kv_head,
                                             int chunk, int chunks, uint32_t tag, int combine, int stop_after)
{
    __shared__ int ticket;
    const bool tagged = combine == kCombineTagged;
    const size_t part_row = (size_t(kv_head) * chunks + chunk) * kGroup;
    for (int idx = threadIdx.x; idx < kGroup * kDim / 4; idx += WARPS * 32) {
        const int h = idx / (kDim / 4), d = (idx % (kDim / 4)) * 4;
        float m, l;
        float4 acc;
        merge_warp_results<WARPS>(warp_results, stride, h, d, m, l, acc);
        if (tagged) {
            store_tagged_partial(partial.tagged + kEpochWords + (part_row + h) * kTaggedRow, tag, d, m, l, acc);
            continue;
        }
        *reinterpret_cast<float4 *>(partial.acc + (part_row + h) * kDim + d) = acc;
        if (d == 0)
            partial.ml[part_row + h] = make_float2(m, l);
    }
    if (tagged) {
        // The last block of the KV head (the last one dispatched) combines, polling for this call's
        // tag on every value it reads.
        if (chunk != chunks - 1)
            return;
        if (stop_after != kStopBeforeCombine)  // which still moves the epoch on: no later call may take these values
            combine_tagged_head<WARPS>(partial, out, kv_head, chunks, tag);
        __syncthreads();  // every thread has read this call's values
        if (threadIdx.x == 0)
            store_tagged(partial.tagged + kv_head, 0u, __uint_as_float(tag));  // the next call's tag is tag + 1
        return;
    }

    // The last block of this KV head to finish combines all chunks.
    if (combine == kCombineTicketRelease) {
        // The block's writes are ordered before thread 0's ticket by the barrier, and released at GPU
        // scope by that one acq_rel atomic (release is cumulative); its acquire and the second barrier
        // order every thread's reads of the other blocks' partials after their tickets.
        __syncthreads();
        if (threadIdx.x == 0)
            ticket = atomic_add_acq_rel(tickets + kv_head, 1);
        __syncthreads();
    } else {  // every thread fences its own writes (threadFenceReduction pattern)
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0)
            ticket = atomicAdd(tickets + kv_head, 1);
        __syncthreads();
    }
    if (ticket != chunks - 1)
        return;
    if (stop_after == kStopBeforeCombine) {
        if (threadIdx.x == 0)
            tickets[kv_head] = 0;
        return;
    }
    if (combine == kCombineTicket)
        __threadfence();
    const size_t head_row = size_t(kv_head) * chunks * kGroup;
    combine_partials<WARPS>(
        chunks,
        [&](const int(&index)[kCombineBatch], int h, int d, float2 *ml, float4 *a) {
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j) {
                const size_t row = head_row + size_t(index[j]) * kGroup + h;
                ml[j] = __ldcg(partial.ml + row);
                a[j] = __ldcg(reinterpret_cast<const float4 *>(partial.acc + row * kDim + d));
            }
        },
        out + size_t(kv_head) * kGroup * kDim);
    if (threadIdx.x == 0)
        tickets[kv_head] = 0;  // ready for the next call on this stream
}

template <int WARPS, int STAGES, Copy COPY>
__device__ __forceinline__ void decode_attention_body(const __nv_bfloat16 *__restrict__ q,
                                                      const __nv_bfloat16 *__restrict__ k,
                                                      const __nv_bfloat16 *__restrict__ v, Partial partial,
                                                      int *__restrict__ tickets, __nv_bfloat16 *__restrict__ out,
                                                      int seq, float scale_log2, int order, int combine,
                                                      int stop_after)
{
    extern __shared__ __align__(16) unsigned char shared[];
    __shared__ __align__(8) uint64_t slot_full[COPY == Copy::bulk ? WARPS * STAGES : 1];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;  // fragment row group and thread-in-group
    const int chunk = blockIdx.x, chunks = gridDim.x, kv_head = blockIdx.y;
    const int keys_per_warp = seq / chunks / WARPS;
    const int tiles = keys_per_warp / kTileKeys;
    const TileOrder tile_order(order, chunk, chunks, warp, WARPS, tiles, seq, kv_head, gridDim.y);
    // This call's tag for the tagged combine; read now, used after the stream.
    const uint32_t tag = combine == kCombineTagged ? uint32_t(load_tagged(partial.tagged + kv_head)) + 1u : 0u;
    const char *k_rows = reinterpret_cast<const char *>(k + size_t(kv_head) * seq * kDim);
    const char *v_rows = reinterpret_cast<const char *>(v + size_t(kv_head) * seq * kDim);
    unsigned char *warp_shared = shared + warp * STAGES * kStageBytes;
    const uint32_t warp_base = shared_address(warp_shared);

    const uint32_t full_base = shared_address(slot_full) + warp * STAGES * 8;
    if constexpr (COPY == Copy::bulk) {
        if (lane == 0)
            for (int s = 0; s < STAGES; ++s)
                barrier_init(full_base + s * 8);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");  // visible to the copy engine
        __syncwarp();
    }

    auto issue_tile = [&](int tile, int slot) {
        const uint32_t k_dst = warp_base + slot * kStageBytes, v_dst = k_dst + kTileBytes;
        const size_t src = tile_order.first_key(tile) * kRowBytes;
        if constexpr (COPY == Copy::bulk) {
            const uint32_t bar = full_base + slot * 8;
            if (lane == 0)
                barrier_expect_bytes(bar, 2 * kTileKeys * kRowBytes);
            __syncwarp();
            // Lanes 0-15 copy the K rows, lanes 16-31 the V rows, into the padded layout.
            const int row = lane % kTileKeys;
            const char *rows = lane < kTileKeys ? k_rows : v_rows;
            copy_bulk((lane < kTileKeys ? k_dst : v_dst) + row * kRowStride, rows + src + row * kRowBytes, kRowBytes, bar);
        } else {
            copy_tile_per_thread<COPY>(k_dst, k_rows, v_rows, src, lane);
        }
    };

    uint32_t q_frag[kDim / 16][2];
    load_q_fragment(q_frag, q, kv_head, g, t);
    WarpState st;
    const uint32_t k_lane = k_lane_offset(lane), v_lane = v_lane_offset(lane);

    run_pipeline<STAGES>(
        tiles,
        [&](int j, int slot) {
            if constexpr (COPY == Copy::bulk)  // the slot was last read through the generic proxy (ldmatrix)
                if (j >= STAGES - 1)
                    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            issue_tile(j, slot);
        },
        [&](int i) {
            if constexpr (COPY == Copy::bulk) {
                barrier_wait(full_base + (i % STAGES) * 8, (i / STAGES) & 1);
            } else {
                copy_async_commit();
                copy_async_wait<STAGES - 1>();
                __syncwarp();  // every lane's copies of tile i are visible to the whole warp
            }
        },
        [&](int, int slot) {
            if (stop_after == kStreamOnly)  // the copies alone: how fast this shape can stream at all
                st.l += float(warp_shared[slot * kStageBytes + lane]);
            else
                attend_tile(warp_base + slot * kStageBytes, k_lane, v_lane, q_frag, scale_log2, st);
        });
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
    if (stop_after == kStopAfterStreaming || stop_after == kStreamOnly) {
        if (st.l < 0.f)  // never: keeps the loop's results alive for the measurement
            out[threadIdx.x] = __float2bfloat16(st.o[0][0]);
        return;
    }

    // Each warp leaves its (m, l, acc) in its own pipeline space, which only it has used.
    __syncwarp();
    store_warp_result(warp_shared, st, g, t);
    __syncthreads();

    finish_block<WARPS>(shared, STAGES * kStageBytes, partial, tickets, out, kv_head, chunk, chunks, tag, combine,
                        stop_after);
}

// ---- Copy "direct": tiles read straight into registers --------------------------------------
// Every copy path above goes through shared memory: cp.async into a slot, ldmatrix out of it, with
// per-warp group bookkeeping. The H200's fastest pure stream (bench/gpu/decode_stream_probe.py)
// loads 16 bytes per lane into registers, and the dot products do not care in which order the head
// dims or the keys of a tile are summed. So each lane loads exactly the bytes its mma fragments
// hold, permuting dims and keys consistently in Q, K, V, P and the output:
// - K: lane (g, t) loads 64 contiguous bytes per key, dims 8t + 32i .. + 7 for i = 0..3, of key
//   2g - (g & 1) (low half of the tile; the high half is that + 2). Register word p of load i is
//   then the B fragment of Q K^T for the 16-dim step s = 2i + p / 2, once Q's A fragment is loaded
//   with the same dims (load_q_fragment_permuted). Per instruction the warp reads 8 runs of 64 bytes.
// - Keys: with that choice, lane t's scores (keys 2t, 2t + 1 of each half) are keys 4t .. 4t + 3 of
//   the tile, and softmax_step's P fragment is, as it stands, the B fragment of P^T.
// - P V is computed transposed, O^T = V^T P^T, so that the accumulator has no padding rows: the 16
//   rows are dims, the 8 columns heads (4 real). Output step J (0..7) covers dims 8g + J (row g)
//   and 64 + 8g + J (row g + 8); lane (g, t) loads keys 4t .. 4t + 3, dims 8g .. 8g + 7 and
//   64 + 8g .. 64 + 8g + 7, and one byte permute per register pair puts two keys' values of one dim
//   in a register: the A fragment of V^T. Per instruction the warp reads 4 runs of 128 bytes.
// - The accumulator of step J then holds heads 2t, 2t + 1 (lanes t < 2) at dims 8g + J and
//   64 + 8g + J, so the rescale factor of those heads comes from lanes 8t and 8t + 4.
// AHEAD tiles are in flight per warp, in registers, while it works on one. One measured best on the
// H200: two tiles of keys ahead (with Q's fragment moved to shared memory to make room) streamed at
// 35.3-38.5 us against 33.8 (bench/gpu/results/decode_direct_sweep-2026-12-03-0403.txt).
struct DirectTile {
    uint4 k[2][4];  // keys: [low/high half][i]
    uint4 v[4][2];  // values: [key 4t + c][dims 8g.. / 64 + 8g..]
};

// A warp's state: the running max and sum of head g (as in WarpState), and o[J] the accumulator of
// output step J (c0, c1: heads 2t, 2t + 1 at dim 8g + J; c2, c3: the same at 64 + 8g + J).
struct DirectWarpState {
    float m = -INFINITY, l = 0.f;
    float o[kDim / 16][4] = {};
};

// 16 bytes read once: no L1 allocation. (A 256-byte L2 prefetch on top measured slower on the H200:
// streaming 34.1-34.4 against 33.2-33.5 us, bench/gpu/results/decode_direct_sweep-2026-12-03-0348.txt.)
__device__ __forceinline__ uint4 load_streaming_16(const char *p)
{
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

__device__ __forceinline__ void load_direct_tile(DirectTile &tile, const char *k_rows, const char *v_rows,
                                                 size_t first_key, int g, int t)
{
    const char *k_src = k_rows + (first_key + 2 * g - (g & 1)) * kRowBytes + 16 * t;
#pragma unroll
    for (int half = 0; half < 2; ++half)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            tile.k[half][i] = load_streaming_16(k_src + half * 2 * kRowBytes + 64 * i);
    const char *v_src = v_rows + (first_key + 4 * t) * kRowBytes + 16 * g;
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int half = 0; half < 2; ++half)
            tile.v[c][half] = load_streaming_16(v_src + c * kRowBytes + 128 * half);
}

// Q's A fragment in the dim order of the direct K fragment: step s, lane t holds dims
// 8t + 32 (s / 2) + 4 (s % 2) + {0, 1} (a0) and + {2, 3} (a2).
__device__ __forceinline__ void load_q_fragment_permuted(uint32_t q_frag[kDim / 16][2], const __nv_bfloat16 *q,
                                                         int kv_head, int g, int t)
{
    const uint32_t *q_pairs = reinterpret_cast<const uint32_t *>(q + (kv_head * kGroup + min(g, kGroup - 1)) * kDim);
#pragma unroll
    for (int s = 0; s < kDim / 16; ++s) {
        const int dim = 8 * t + 32 * (s / 2) + 4 * (s % 2);
        q_frag[s][0] = g < kGroup ? q_pairs[dim / 2] : 0u;
        q_frag[s][1] = g < kGroup ? q_pairs[dim / 2 + 1] : 0u;
    }
}

__device__ __forceinline__ uint32_t word(const uint4 &r, int w)
{
    return w == 0 ? r.x : w == 1 ? r.y : w == 2 ? r.z : r.w;
}

// The low (e even) or high bf16 of word e / 2 of x and of y, as one pair.
__device__ __forceinline__ uint32_t pair_of(const uint4 &x, const uint4 &y, int e)
{
    return __byte_perm(word(x, e / 2), word(y, e / 2), e % 2 ? 0x7632u : 0x5410u);
}

// CHAINS independent accumulations per score fragment, summed at the end: the 8 dependent mma of
// one chain are the longest latency between a tile's arrival and its P V.
template <int CHAINS>
__device__ __forceinline__ void attend_direct_tile(const DirectTile &tile, const uint32_t q_frag[kDim / 16][2],
                                                   float scale_log2, DirectWarpState &st, int t)
{
    float lo[CHAINS][4] = {}, hi[CHAINS][4] = {};
#pragma unroll
    for (int s = 0; s < kDim / 16; ++s) {
        const uint32_t a[4] = {q_frag[s][0], 0u, q_frag[s][1], 0u};
        const int i = s / 2, p = 2 * (s % 2);
        mma_16x8x16(lo[s % CHAINS], a, word(tile.k[0][i], p), word(tile.k[0][i], p + 1));
        mma_16x8x16(hi[s % CHAINS], a, word(tile.k[1][i], p), word(tile.k[1][i], p + 1));
    }
    float s_lo[4], s_hi[4];
#pragma unroll
    for (int x = 0; x < 4; ++x) {
        s_lo[x] = lo[0][x];
        s_hi[x] = hi[0][x];
#pragma unroll
        for (int c = 1; c < CHAINS; ++c) {
            s_lo[x] += lo[c][x];
            s_hi[x] += hi[c][x];
        }
    }
    uint32_t p_frag[4];
    const float alpha = softmax_step(s_lo, s_hi, scale_log2, st.m, st.l, p_frag);
    // This lane's accumulator columns are heads 2t and 2t + 1, whose factors lanes 8t, 8t + 4 hold.
    const float alpha0 = __shfl_sync(0xffffffffu, alpha, (8 * t) & 31);
    const float alpha1 = __shfl_sync(0xffffffffu, alpha, (8 * t + 4) & 31);
#pragma unroll
    for (int j = 0; j < kDim / 16; ++j) {
        st.o[j][0] *= alpha0;
        st.o[j][1] *= alpha1;
        st.o[j][2] *= alpha0;
        st.o[j][3] *= alpha1;
        const uint32_t a[4] = {pair_of(tile.v[0][0], tile.v[1][0], j), pair_of(tile.v[0][1], tile.v[1][1], j),
                               pair_of(tile.v[2][0], tile.v[3][0], j), pair_of(tile.v[2][1], tile.v[3][1], j)};
        mma_16x8x16(st.o[j], a, p_frag[0], p_frag[2]);
    }
}

// The warp's result in shared memory in the layout of store_warp_result: acc [4][128] floats, then
// (m, l) per query head. l must be the group's sum already.
__device__ __forceinline__ void store_direct_warp_result(unsigned char *area, const DirectWarpState &st, int g, int t)
{
    float *acc = reinterpret_cast<float *>(area);
    if (t < 2) {
#pragma unroll
        for (int r = 0; r < 2; ++r)  // head 2t + r
#pragma unroll
            for (int half = 0; half < 2; ++half)  // dims 64 half + 8g + J
#pragma unroll
                for (int j4 = 0; j4 < 2; ++j4) {
                    const int j = 4 * j4, c = 2 * half + r;
                    *reinterpret_cast<float4 *>(acc + (2 * t + r) * kDim + 64 * half + 8 * g + j) =
                        make_float4(st.o[j][c], st.o[j + 1][c], st.o[j + 2][c], st.o[j + 3][c]);
                }
    }
    if (g < kGroup && t == 0)
        reinterpret_cast<float2 *>(acc + kGroup * kDim)[g] = make_float2(st.m, st.l);
}

// ---- Combine "cluster": a KV head's chunks are one thread block cluster ----------------------
// The ticket's tail is three round trips to L2 that no streaming hides: the block's partial out,
// the acq_rel ticket, and the last block's reads of every partial (bench: the block epilogue and the
// combine cost 1.2 and 1.0 us of a 34.9 us call). In a cluster the 16 blocks of a KV head run on one
// GPC at once, so each can write its partial straight into the shared memory of the cluster's
// first block (st.async, which counts the bytes on that block's mbarrier): no global memory, no
// fence, no counter, nothing left behind between calls. The first block waits for the 15 partials
// and merges them in a fixed order, so the result is the same bit for bit on every call.
// A cluster lives in one GPC, and with one block per SM the H200's GPCs hold only 7 clusters of 16
// (bench/gpu/results/decode_direct_sweep-2026-12-03-1110.txt): so the launcher gives the clusters
// the heads that fit and the rest to a second, ordinary kernel over the SMs left over (the
// "secondary": 20 blocks for one head on the H200, so that it finishes early despite the ticket's
// longer tail). The secondary is a programmatic dependent of the cluster kernel, which lets it
// launch as soon as every cluster is resident (so that its blocks cannot take the SMs a cluster
// needs), and it waits for the cluster kernel before it exits, so that the call is over only when
// both are.

__device__ __forceinline__ uint32_t map_to_block(uint32_t shared_addr, uint32_t rank)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(shared_addr), "r"(rank));
    return remote;
}

__device__ __forceinline__ void cluster_arrive_relaxed()
{
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}

__device__ __forceinline__ void cluster_wait()
{
    asm volatile("barrier.cluster.wait;" ::: "memory");
}

__device__ __forceinline__ void send_float4(uint32_t remote, float4 x, uint32_t remote_bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(remote),
                 "f"(x.x), "f"(x.y), "f"(x.z), "f"(x.w), "r"(remote_bar)
                 : "memory");
}

__device__ __forceinline__ void send_float2(uint32_t remote, float2 x, uint32_t remote_bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(remote),
                 "f"(x.x), "f"(x.y), "r"(remote_bar)
                 : "memory");
}

__device__ __forceinline__ void barrier_wait_cluster(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    for (unsigned polls = 0; !done; ++polls) {
        if (polls > kMaxPolls)
            __trap();  // a block never sent: fail loudly rather than hang the GPU
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    }
}

// Before the stream: the first block readies its mbarrier for the others' bytes (its inbox holds
// one partial, acc [4][128] floats and (m, l) per head, from every other block), and every thread
// arrives on the cluster barrier that finish_cluster waits on, so that no block sends before the
// mbarrier exists. Arriving costs nothing; the wait comes after the stream. With the dynamic deal
// (below) the first block also zeroes the counter the others will ask for tiles, and they wait on
// the cluster barrier before their first ask.
template <int CLUSTER, bool DYNAMIC>
__device__ __forceinline__ void start_cluster(uint32_t bar, int *tiles_dealt, int chunk)
{
    if (chunk == 0 && threadIdx.x == 0) {
        if constexpr (DYNAMIC) {
            *tiles_dealt = 0;
            asm volatile("fence.acq_rel.cluster;" ::: "memory");  // released by the relaxed arrive below
        }
        barrier_init(bar);
        barrier_expect_bytes(bar, (CLUSTER - 1) * kWarpResultBytes);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster_arrive_relaxed();
}

// After the stream, once every warp's result is in shared memory: each block's partial (the warps'
// results merged) goes to the first block's inbox (its chunk's slot, in the layout of a warp
// result); the first block, having merged its own in registers, waits for the rest and writes the
// KV head's 4 outputs. One thread per four dims of one head (128 threads).
template <int WARPS, int CLUSTER, bool WAITED>
__device__ __forceinline__ void finish_cluster(const unsigned char *warp_results, unsigned char *inbox, uint32_t bar,
                                               __nv_bfloat16 *__restrict__ out, int kv_head, int chunk,
                                               int stop_after)
{
    static_assert(WARPS * 32 >= kGroup * kDim / 4, "one thread per four dims of a head");
    const int idx = threadIdx.x, h = idx / (kDim / 4), d = (idx % (kDim / 4)) * 4;
    const bool merges = idx < kGroup * kDim / 4;
    float m = -INFINITY, l = 0.f;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    if (merges)
        merge_warp_results<WARPS>(warp_results, kWarpResultBytes, h, d, m, l, acc);
    if constexpr (!WAITED)
        cluster_wait();  // the first block's mbarrier is ready (every block arrived before its stream)
    if (chunk != 0) {
        if (merges) {
            const uint32_t slot = shared_address(inbox) + (chunk - 1) * kWarpResultBytes;
            const uint32_t remote_bar = map_to_block(bar, 0);
            send_float4(map_to_block(slot + (h * kDim + d) * 4, 0), acc, remote_bar);
            if (d == 0)
                send_float2(map_to_block(slot + kGroup * kDim * 4 + h * 8, 0), make_float2(m, l), remote_bar);
        }
        return;  // the first block outlives every send: it waits for all of their bytes
    }
    barrier_wait_cluster(bar, 0);
    if (!merges || stop_after == kStopBeforeCombine)
        return;
    // Chunk order, as the ticket's combine: the same bits on every call. (Two lanes per output, each
    // merging every other warp and then every other partial, folded by shuffles, measured 0.27 us
    // slower: 35.11-35.13 us against 34.84-34.85, alternating in one sweep,
    // bench/gpu/results/decode_direct_sweep-2026-12-03-1159.txt.)
    float m_all = m;
#pragma unroll
    for (int c = 0; c < CLUSTER - 1; ++c)
        m_all = fmaxf(m_all, reinterpret_cast<const float2 *>(inbox + c * kWarpResultBytes + kGroup * kDim * 4)[h].x);
    const float f0 = exp2_approx(m - m_all);
    l *= f0;
    acc = make_float4(acc.x * f0, acc.y * f0, acc.z * f0, acc.w * f0);
#pragma unroll
    for (int c = 0; c < CLUSTER - 1; ++c) {
        const unsigned char *slot = inbox + c * kWarpResultBytes;
        const float2 ml = reinterpret_cast<const float2 *>(slot + kGroup * kDim * 4)[h];
        const float4 a = *reinterpret_cast<const float4 *>(slot + (h * kDim + d) * 4);
        const float f = exp2_approx(ml.x - m_all);
        l += ml.y * f;
        acc = make_float4(acc.x + a.x * f, acc.y + a.y * f, acc.z + a.z * f, acc.w + a.w * f);
    }
    const float inv = 1.f / l;
    __nv_bfloat16 *dst = out + (size_t(kv_head) * kGroup + h) * kDim + d;
    *reinterpret_cast<__nv_bfloat162 *>(dst) = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
    *reinterpret_cast<__nv_bfloat162 *>(dst + 2) = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
}

// ---- Deal "dynamic" (cluster combine only): a KV head's later tiles go to whichever warp is ready --
// In the static deal every warp takes its tiles in advance (16 of them at the target's shape), so
// the stream ends when the warp whose loads were served slowest ends. Dynamically, each warp takes
// its first tiles in advance (kFixedTiles, interleaved as before) and then one at a time from a
// counter in the shared memory of its cluster's first block (an atomic over distributed shared
// memory, asked for a tile ahead so that the reply is in before it is needed), so that the warps
// of a KV head end together. The tiles still go out in address order: one window per KV head
// as in the interleaved order. The cost: which warp sums which keys changes from call to call, so
// the result is no longer the same bit for bit on every call (within the tolerance).
// Measured slower on the H200, and used by no candidate: 34.73-34.91 us against 34.32-34.74 for the
// static deal, alternating in one sweep (bench/gpu/results/decode_direct_sweep-2026-12-03-1405.txt),
// 1.067x in its verify. Its warps did end closer together (a head's first and last stream end 2.3
// us apart, not 3.4, decode_timeline-eager-2026-12-03-1405.txt), but the heads ended no earlier:
// what a head's warps read per microsecond together is set by the memory, not by how they share it.
constexpr int kFixedTiles = 8;

__device__ __forceinline__ int deal_tile(uint32_t counter)
{
    int tile;
    asm volatile("atom.relaxed.cluster.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(tile) : "r"(counter) : "memory");
    return tile;
}

// ---- Tail prefetch (cluster combine only) ------------------------------------------------------
// The warps of a call do not end their streams together (the first warp of a KV head ends its
// stream ~3 us before the last, bench/gpu/results/decode_timeline-2026-12-03-1413.txt), and as they
// end, fewer bytes are in flight than the memory could serve. So each warp, once its
// stream has ended, asks the GPU's L2 to prefetch one 16 KiB piece of the last kTailKeys keys of
// some KV head (K or V; cp.async.bulk.prefetch: nothing comes back to the SM), the pieces taken in
// the order the warps reached their last tile (a global counter, asked one tile early), in key order
// across all heads. The warps still streaming then find their last tiles in L2. No byte is read
// twice from memory unless the L2 evicts it first (16 MiB of 50).
// On the H200, alternating in one sweep (bench/gpu/results/decode_direct_sweep-2026-12-03-1431.txt):
// 33.73-33.94 us with it, 34.10-34.68 without (2 or 4 score chains), cuDNN 37.29-37.61; its verifies
// 1.104-1.115x (five, of n=5 to 9). The timeline of 4 calls back to back per graph replay, as the
// sweep and verify run them (decode_timeline-back-to-back-2026-12-03-1437.txt), shows where: the
// last warps end their streams ~0.5 us earlier, the call's last block 31.58-31.66 us after its first
// warp starts against 32.03-32.10. With one call per replay and the GPU idle before it
// (decode_timeline-2026-12-03-1413.txt) it made no difference (32.50 us either way); I have not
// found why the two differ.
constexpr int kTailKeys = 4096, kTailPieceBytes = 16384;

// tail_state: [0] a counter that only grows (each call adds one per warp, so its value modulo the
// warps of the grid is the warp's rank in this call), [1] the number of KV heads.
__device__ __forceinline__ void prefetch_tail_piece(const char *k, const char *v, int seq, const int *tail_state,
                                                    unsigned rank)
{
    const int heads = tail_state[1];
    const int tail_keys = min(kTailKeys, seq);
    const unsigned per_tensor = unsigned(tail_keys) * kRowBytes / kTailPieceBytes;
    if (rank >= per_tensor * 2 * heads)
        return;
    const unsigned position = rank / (2 * heads), head = rank / 2 % heads;
    const char *tensor = rank % 2 ? v : k;
    const char *piece =
        tensor + (size_t(head) * seq + seq - tail_keys) * kRowBytes + size_t(position) * kTailPieceBytes;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(piece), "r"(kTailPieceBytes) : "memory");
}

// Timestamps for bench/gpu/decode_timeline.py only (built with -DHOTKERNEL_DECODE_TRACE, which
// passes a buffer of 4 words per warp in place of the tagged partials): the warp's start, the end
// of its stream, its block's end (ns, %globaltimer), and its SM with the tiles it streamed.
#ifdef HOTKERNEL_DECODE_TRACE
__device__ __forceinline__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ uint64_t sm_id()
{
    uint32_t id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
#define HOTKERNEL_TRACE(slot, value)                                                                  \
    do {                                                                                              \
        if (lane == 0)                                                                                \
            partial.tagged[((size_t(blockIdx.y) * gridDim.x + blockIdx.x) * WARPS + warp) * 4 + (slot)] = \
                (value);                                                                              \
    } while (0)
#else
#define HOTKERNEL_TRACE(slot, value) \
    do {                             \
    } while (0)
#endif

// Grid (chunks, Hkv) like decode_attention_body, the same orders, partials and combines; dynamic
// shared memory WARPS * kWarpResultBytes, and the inbox after them when CLUSTER (launched in
// clusters of CLUSTER = chunks blocks along x, combine "cluster"; 0: not). DYNAMIC: the dynamic
// deal above (CLUSTER, the interleaved order and one tile ahead only). TAIL: the tail prefetch above
// (CLUSTER only; `tickets` is then its tail_state).
template <int WARPS, int AHEAD, int CHAINS, int CLUSTER, bool DYNAMIC = false, bool TAIL = false>
__device__ __forceinline__ void decode_attention_direct_body(const __nv_bfloat16 *__restrict__ q,
                                                             const __nv_bfloat16 *__restrict__ k,
                                                             const __nv_bfloat16 *__restrict__ v, Partial partial,
                                                             int *__restrict__ tickets, __nv_bfloat16 *__restrict__ out,
                                                             int seq, float scale_log2, int order, int combine,
                                                             int stop_after)
{
    extern __shared__ __align__(16) unsigned char shared[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int chunk = blockIdx.x, kv_head = blockIdx.y, chunks = gridDim.x;
    // Interleaved, warp w of the P = chunks x WARPS warps takes tiles w, w + P, ... of the seq / 16:
    // P need not divide them (the secondary's 20 blocks). The other orders need equal runs.
    const int warps_all = chunks * WARPS, warp_all = chunk * WARPS + warp;
    const int tiles = order == kOrderInterleaved ? (seq / kTileKeys - warp_all + warps_all - 1) / warps_all
                                                 : seq / chunks / WARPS / kTileKeys;
    const TileOrder tile_order(order, chunk, chunks, warp, WARPS, tiles, seq, kv_head, gridDim.y);
    const uint32_t tag = combine == kCombineTagged ? uint32_t(load_tagged(partial.tagged + kv_head)) + 1u : 0u;
    const char *k_rows = reinterpret_cast<const char *>(k + size_t(kv_head) * seq * kDim);
    const char *v_rows = reinterpret_cast<const char *>(v + size_t(kv_head) * seq * kDim);

    HOTKERNEL_TRACE(0, global_ns());
    __shared__ __align__(8) uint64_t inbox_bar;  // CLUSTER only
    __shared__ int tiles_dealt;  // DYNAMIC only: the first block's count of the tiles dealt
    static_assert(!DYNAMIC || (CLUSTER > 0 && AHEAD == 1), "the dynamic deal: cluster combine, one tile ahead");
    if constexpr (CLUSTER > 0) {
        start_cluster<CLUSTER, DYNAMIC>(shared_address(&inbox_bar), &tiles_dealt, chunk);
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");  // the secondary may start: this block is resident
    }

    uint32_t q_frag[kDim / 16][2];
    load_q_fragment_permuted(q_frag, q, kv_head, g, t);
    DirectWarpState st;
    uint32_t checksum = 0;  // the loads' bits, for _stop_after 3 only

    // A ring of AHEAD + 1 tiles in registers, indexed by constants only (the loop is unrolled by the
    // ring's length): tile i + AHEAD is loaded into the slot that tile i - 1 has just freed.
    constexpr int kRing = AHEAD + 1;
    DirectTile ring[kRing];
    const auto load = [&](int slot, int j) {
        load_direct_tile(ring[slot], k_rows, v_rows, tile_order.first_key(j), g, t);
    };
#ifdef HOTKERNEL_DECODE_TRACE
    int traced_tiles = tiles;
#endif
    static_assert(!TAIL || (CLUSTER > 0 && !DYNAMIC), "the tail prefetch: cluster combine, static deal");
    unsigned tail_rank = 0;  // TAIL: lane 0's place in the order of the warps' last tiles
    if constexpr (DYNAMIC) {
        // Tiles 0 .. fixed - 1 of the warp are its interleaved ones; then it asks the counter, one
        // tile ahead (lane 0 asks, the warp reads the reply by shuffle a tile later). The cluster
        // wait (the counter is set) comes before the first ask, by which time every block has long
        // arrived. Returns the tile's first key, or -1 when the KV head's tiles are all dealt.
        const int total = seq / kTileKeys, fixed = min(kFixedTiles, total / warps_all);
        const uint32_t counter = map_to_block(shared_address(&tiles_dealt), 0);
        int reply = 0;
        const auto tile_key = [&](int n) -> long long {
            if (n < fixed) {
                if (n == fixed - 1) {
                    cluster_wait();
                    if (lane == 0)
                        reply = deal_tile(counter);
                }
                return (long long)(n * warps_all + warp_all) * kTileKeys;
            }
            const int tile = fixed * warps_all + __shfl_sync(0xffffffffu, reply, 0);
            if (tile >= total)
                return -1;
            if (lane == 0)
                reply = deal_tile(counter);
            return (long long)tile * kTileKeys;
        };
        // The ring of two, by constant indices: tile i + r is in ring[r], the next goes to the other.
        load_direct_tile(ring[0], k_rows, v_rows, tile_key(0), g, t);
        bool more = true;
        for (int i = 0; more; i += 2)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                if (!more)
                    break;
                const long long next = tile_key(i + r + 1);
                if (next >= 0)
                    load_direct_tile(ring[1 - r], k_rows, v_rows, next, g, t);
                attend_direct_tile<CHAINS>(ring[r], q_frag, scale_log2, st, t);
                if (next < 0) {
                    more = false;
#ifdef HOTKERNEL_DECODE_TRACE
                    traced_tiles = i + r + 1;
#endif
                }
            }
    } else {
#pragma unroll
        for (int j = 0; j < AHEAD; ++j)
            if (j < tiles)
                load(j, j);
        for (int i0 = 0; i0 < tiles; i0 += kRing) {
#pragma unroll
            for (int r = 0; r < kRing; ++r) {
                const int i = i0 + r;
                if (i + AHEAD < tiles)
                    load((r + AHEAD) % kRing, i + AHEAD);
                if (i < tiles) {
                    if constexpr (TAIL)
                        if (i == tiles - 1 && lane == 0)  // the reply comes back while the last tile is worked on
                            tail_rank = atomicAdd(reinterpret_cast<unsigned *>(tickets), 1u);
                    const DirectTile &tile = ring[r];
                    if (stop_after == kStreamOnly)  // every word, or ptxas drops (or narrows) the loads not used
#pragma unroll
                        for (int x = 0; x < 8; ++x) {
                            const uint4 kw = tile.k[x / 4][x % 4], vw = tile.v[x / 2][x % 2];
                            checksum ^= kw.x ^ kw.y ^ kw.z ^ kw.w ^ vw.x ^ vw.y ^ vw.z ^ vw.w;
                        }
                    else
                        attend_direct_tile<CHAINS>(tile, q_frag, scale_log2, st, t);
                }
            }
        }
    }
    if constexpr (TAIL)
        if (lane == 0 && tiles > 0)
            prefetch_tail_piece(reinterpret_cast<const char *>(k), reinterpret_cast<const char *>(v), seq, tickets,
                                tail_rank % (gridDim.x * gridDim.y * WARPS));
    HOTKERNEL_TRACE(1, global_ns());
#ifdef HOTKERNEL_DECODE_TRACE
    HOTKERNEL_TRACE(3, sm_id() | uint64_t(traced_tiles) << 32);
#endif
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
    if (stop_after == kStopAfterStreaming || stop_after == kStreamOnly) {
        if (st.l < 0.f || checksum == 0x9e3779b9u)  // (almost) never: keeps the loop's results alive
            out[threadIdx.x] = __float2bfloat16(st.o[0][0]);
        return;
    }
    store_direct_warp_result(shared + warp * kWarpResultBytes, st, g, t);
    __syncthreads();
    if constexpr (CLUSTER > 0)
        finish_cluster<WARPS, CLUSTER, DYNAMIC>(shared, shared + WARPS * kWarpResultBytes, shared_address(&inbox_bar),
                                                out, kv_head, chunk, stop_after);
    else
        finish_block<WARPS>(shared, kWarpResultBytes, partial, tickets, out, kv_head, chunk, chunks, tag, combine,
                            stop_after);
    HOTKERNEL_TRACE(2, global_ns());
}

// The even split (layout "even"): the grid is one block per SM (or two), and the Hkv * seq / 16
// tiles of all KV heads, head after head, are cut into gridDim.x equal runs, so that no SM idles
// (a grid of 16 blocks per KV head leaves 4 of the H200's 132 SMs without work). A block's warps
// take the tiles of its run in turn, so each step of a block reads one contiguous window. A run is
// shorter than a KV head, so it holds one or two heads' segments; each segment is published as a
// tagged partial (row (block * 2 + segment) * 4 + query head), and the block holding a head's last
// tile, the last block of that head to be dispatched, combines the head.
template <int WARPS, int STAGES>
__device__ __forceinline__ void decode_attention_even_body(const __nv_bfloat16 *__restrict__ q,
                                                           const __nv_bfloat16 *__restrict__ k,
                                                           const __nv_bfloat16 *__restrict__ v, uint64_t *tagged,
                                                           __nv_bfloat16 *__restrict__ out, int seq, int kv_heads,
                                                           float scale_log2, int stop_after)
{
    extern __shared__ __align__(16) unsigned char shared[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;  // fragment row group and thread-in-group
    const int64_t tiles_per_head = seq / kTileKeys, total = tiles_per_head * kv_heads;
    const int blocks = gridDim.x, block = blockIdx.x;
    const auto run_start = [&](int64_t b) { return b * total / blocks; };
    const int64_t first = run_start(block), last = run_start(block + 1);  // this block's tiles [first, last)
    const int head0 = int(first / tiles_per_head);
    const bool two_heads = (last - 1) / tiles_per_head != head0;
    const int64_t boundary = int64_t(head0 + 1) * tiles_per_head;  // the first tile of head0 + 1
    // This call's tags of the (one or two) heads this block touches; read now, used after the stream.
    const uint32_t tag0 = uint32_t(load_tagged(tagged + head0)) + 1u;
    const uint32_t tag1 = two_heads ? uint32_t(load_tagged(tagged + head0 + 1)) + 1u : 0u;

    const int tiles = last - first > warp ? int((last - first - warp + WARPS - 1) / WARPS) : 0;
    const auto tile_of = [&](int i) { return first + warp + int64_t(i) * WARPS; };
    unsigned char *warp_shared = shared + warp * STAGES * kStageBytes;
    const uint32_t warp_base = shared_address(warp_shared);
    unsigned char *const first_segment_results = shared + WARPS * STAGES * kStageBytes;
    const char *k_rows = reinterpret_cast<const char *>(k), *v_rows = reinterpret_cast<const char *>(v);
    auto issue_tile = [&](int i, int slot) {
        // Head after head, tile x starts x * 16 rows into K and V.
        copy_tile_per_thread<Copy::per_thread>(warp_base + slot * kStageBytes, k_rows, v_rows,
                                               size_t(tile_of(i)) * kTileKeys * kRowBytes, lane);
    };

    // The warp starts in head0 unless its first tile is already in head0 + 1.
    const bool starts_in_first = tiles > 0 && tile_of(0) < boundary;
    uint32_t q_frag[kDim / 16][2], q_next[kDim / 16][2];
    load_q_fragment(q_frag, q, starts_in_first || !two_heads ? head0 : head0 + 1, g, t);
    if (two_heads)
        load_q_fragment(q_next, q, head0 + 1, g, t);
    bool in_first = starts_in_first || !two_heads;
    WarpState st;
    const uint32_t k_lane = k_lane_offset(lane), v_lane = v_lane_offset(lane);
    unsigned char *const my_first_result = first_segment_results + warp * kWarpResultBytes;

    run_pipeline<STAGES>(
        tiles, issue_tile,
        [&](int) {
            copy_async_commit();
            copy_async_wait<STAGES - 1>();
            __syncwarp();  // every lane's copies of tile i are visible to the whole warp
        },
        [&](int i, int slot) {
            if (in_first && tile_of(i) >= boundary) {  // into head0 + 1: park head0's state, start afresh
                st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
                st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
                store_warp_result(my_first_result, st, g, t);
                st = WarpState();
#pragma unroll
                for (int s = 0; s < kDim / 16; ++s) {
                    q_frag[s][0] = q_next[s][0];
                    q_frag[s][1] = q_next[s][1];
                }
                in_first = false;
            }
            attend_tile(warp_base + slot * kStageBytes, k_lane, v_lane, q_frag, scale_log2, st);
        });
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
    if (stop_after == kStopAfterStreaming) {
        if (st.l < 0.f)  // never: keeps the loop's results alive for the measurement
            out[threadIdx.x] = __float2bfloat16(st.o[0][0]);
        return;
    }

    // Segment 0's results go to their own area, segment 1's to the warp's pipeline space; a warp
    // with no keys in a segment leaves an empty result there (m = -inf weighs nothing).
    __syncwarp();
    if (in_first) {
        store_warp_result(my_first_result, st, g, t);
        if (two_heads)
            store_warp_result(warp_shared, WarpState(), g, t);
    } else {
        store_warp_result(warp_shared, st, g, t);
        if (!starts_in_first)
            store_warp_result(my_first_result, WarpState(), g, t);
    }
    __syncthreads();

    uint64_t *const rows = tagged + kEpochWords;
    for (int idx = threadIdx.x; idx < kGroup * kDim / 4; idx += WARPS * 32) {
        const int h = idx / (kDim / 4), d = (idx % (kDim / 4)) * 4;
        float m, l;
        float4 acc;
        merge_warp_results<WARPS>(first_segment_results, kWarpResultBytes, h, d, m, l, acc);
        store_tagged_partial(rows + ((size_t(block) * 2) * kGroup + h) * kTaggedRow, tag0, d, m, l, acc);
        if (two_heads) {
            merge_warp_results<WARPS>(shared, STAGES * kStageBytes, h, d, m, l, acc);
            store_tagged_partial(rows + ((size_t(block) * 2 + 1) * kGroup + h) * kTaggedRow, tag1, d, m, l, acc);
        }
    }

    // The block holding head0's last tile combines head0 (a run is shorter than a head, so it cannot
    // also hold the last tile of head0 + 1).
    if (last < boundary)
        return;
    // The block holding tile x: the largest b with run_start(b) <= x.
    const auto block_of = [&](int64_t x) { return int(((x + 1) * blocks + total - 1) / total - 1); };
    const int first_block = block_of(int64_t(head0) * tiles_per_head);
    combine_partials<WARPS>(
        block - first_block + 1,
        [&](const int(&index)[kCombineBatch], int h, int d, float2 *ml, float4 *a) {
            const uint64_t *batch[kCombineBatch];
#pragma unroll
            for (int j = 0; j < kCombineBatch; ++j) {
                const int b = first_block + index[j];
                const int segment = head0 - int(run_start(b) / tiles_per_head);
                batch[j] = rows + ((size_t(b) * 2 + segment) * kGroup + h) * kTaggedRow;
            }
            load_tagged_batch<kCombineBatch>(batch, tag0, d, ml, a);
        },
        out + size_t(head0) * kGroup * kDim);
    __syncthreads();  // every thread has read this call's values
    if (threadIdx.x == 0)
        store_tagged(tagged + head0, 0u, __uint_as_float(tag0));  // the next call's tag is tag0 + 1
}

}  // namespace

// One entry point per copy path, warps per block and pipeline stages; extern "C" keeps the names the
// launcher looks up. Dynamic shared memory: WARPS * STAGES * 8704 bytes.
#define HOTKERNEL_DECODE_ATTENTION(NAME, COPY, WARPS, STAGES)                                               \
    extern "C" __global__ void __launch_bounds__(WARPS * 32)                                                 \
        NAME##_w##WARPS##_s##STAGES(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, \
                                    const __nv_bfloat16 *__restrict__ v, float *part_acc, float2 *part_ml,     \
                                    uint64_t *tagged, int *tickets, __nv_bfloat16 *out, int seq,             \
                                    float scale_log2, int order, int combine, int stop_after)                \
    {                                                                                                        \
        decode_attention_body<WARPS, STAGES, COPY>(q, k, v, Partial{part_acc, part_ml, tagged}, tickets, out, \
                                                   seq, scale_log2, order, combine, stop_after);             \
    }

#define HOTKERNEL_DECODE_ATTENTION_ALL(WARPS, STAGES)                                                      \
    HOTKERNEL_DECODE_ATTENTION(decode_attention, Copy::per_thread, WARPS, STAGES)                           \
    HOTKERNEL_DECODE_ATTENTION(decode_attention_prefetch, Copy::per_thread_prefetch, WARPS, STAGES)         \
    HOTKERNEL_DECODE_ATTENTION(decode_attention_bulk, Copy::bulk, WARPS, STAGES)

HOTKERNEL_DECODE_ATTENTION_ALL(1, 3)
HOTKERNEL_DECODE_ATTENTION_ALL(1, 4)
HOTKERNEL_DECODE_ATTENTION_ALL(2, 3)
HOTKERNEL_DECODE_ATTENTION_ALL(2, 4)
HOTKERNEL_DECODE_ATTENTION_ALL(2, 6)
HOTKERNEL_DECODE_ATTENTION_ALL(4, 2)
HOTKERNEL_DECODE_ATTENTION_ALL(4, 3)
HOTKERNEL_DECODE_ATTENTION_ALL(4, 4)
HOTKERNEL_DECODE_ATTENTION_ALL(4, 6)
HOTKERNEL_DECODE_ATTENTION_ALL(8, 2)
HOTKERNEL_DECODE_ATTENTION_ALL(8, 3)

// The even split: one entry per (warps, stages); dynamic shared memory WARPS * (STAGES * 8704 + 2080) bytes.
#define HOTKERNEL_DECODE_ATTENTION_EVEN(WARPS, STAGES)                                                       \
    extern "C" __global__ void __launch_bounds__(WARPS * 32)                                                 \
        decode_attention_even_w##WARPS##_s##STAGES(const __nv_bfloat16 *__restrict__ q,                      \
                                                   const __nv_bfloat16 *__restrict__ k,                      \
                                                   const __nv_bfloat16 *__restrict__ v, uint64_t *tagged,    \
                                                   __nv_bfloat16 *out, int seq, int kv_heads, float scale_log2, \
                                                   int stop_after)                                           \
    {                                                                                                        \
        decode_attention_even_body<WARPS, STAGES>(q, k, v, tagged, out, seq, kv_heads, scale_log2, stop_after); \
    }

HOTKERNEL_DECODE_ATTENTION_EVEN(8, 2)
HOTKERNEL_DECODE_ATTENTION_EVEN(8, 3)
HOTKERNEL_DECODE_ATTENTION_EVEN(4, 3)
HOTKERNEL_DECODE_ATTENTION_EVEN(4, 4)

// The direct copy: one entry per (warps, tiles ahead, score chains, blocks per SM); dynamic shared
// memory WARPS * 2080 bytes. MIN_BLOCKS caps the registers so that that many blocks fit on an SM.
// The _clusterN entries are launched in clusters of N blocks (combine "cluster"); dynamic shared
// memory (WARPS + N - 1) * 2080 bytes; _clusterN_dynamic deals the later tiles dynamically, and
// _clusterN_tail prefetches the tail into L2 as its warps end their streams. The
// _secondaryN entries are the direct kernel that waits for the cluster kernel it was launched after
// before it exits.
#define HOTKERNEL_DECODE_ATTENTION_DIRECT_ENTRY(NAME, CLUSTER, DYNAMIC, TAIL, SECONDARY, ATTRIBUTES, WARPS, AHEAD,   \
                                                CHAINS, MIN_BLOCKS)                                                 \
    extern "C" __global__ void ATTRIBUTES __launch_bounds__(WARPS * 32, MIN_BLOCKS)                          \
        NAME##_w##WARPS##_a##AHEAD##_c##CHAINS##_b##MIN_BLOCKS(                                               \
            const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,                         \
            const __nv_bfloat16 *__restrict__ v, float *part_acc, float2 *part_ml, uint64_t *tagged,         \
            int *tickets, __nv_bfloat16 *out, int seq, float scale_log2, int order, int combine,              \
            int stop_after)                                                                                  \
    {                                                                                                        \
        decode_attention_direct_body<WARPS, AHEAD, CHAINS, CLUSTER, DYNAMIC, TAIL>(                           \
            q, k, v, Partial{part_acc, part_ml, tagged}, tickets, out, seq, scale_log2, order, combine,       \
            stop_after);                                                                                     \
        if constexpr (SECONDARY)                                                                             \
            asm volatile("griddepcontrol.wait;" ::: "memory"); /* done only once the cluster kernel is */    \
    }

#define HOTKERNEL_DECODE_ATTENTION_DIRECT(WARPS, AHEAD, CHAINS, MIN_BLOCKS)                                   \
    HOTKERNEL_DECODE_ATTENTION_DIRECT_ENTRY(decode_attention_direct, 0, false, false, false, , WARPS, AHEAD,   \
                                            CHAINS, MIN_BLOCKS)
// The cluster combine: the cluster kernel (the static deal, the dynamic deal, the static deal with
// the tail prefetch), and the secondary for the KV heads left over.
#define HOTKERNEL_DECODE_ATTENTION_DIRECT_CLUSTER(SIZE, WARPS, AHEAD, CHAINS, MIN_BLOCKS)                     \
    HOTKERNEL_DECODE_ATTENTION_DIRECT_ENTRY(decode_attention_direct_cluster##SIZE, SIZE, false, false, false,  \
                                            __cluster_dims__(SIZE, 1, 1), WARPS, AHEAD, CHAINS, MIN_BLOCKS)  \
    HOTKERNEL_DECODE_ATTENTION_DIRECT_ENTRY(decode_attention_direct_cluster##SIZE##_dynamic, SIZE, true, false,  \
                                            false, __cluster_dims__(SIZE, 1, 1), WARPS, AHEAD, CHAINS,         \
                                            MIN_BLOCKS)                                                       \
    HOTKERNEL_DECODE_ATTENTION_DIRECT_ENTRY(decode_attention_direct_cluster##SIZE##_tail, SIZE, false, true,     \
                                            false, __cluster_dims__(SIZE, 1, 1), WARPS, AHEAD, CHAINS,         \
                                            MIN_BLOCKS)                                                       \
    HOTKERNEL_DECODE_ATTENTION_DIRECT_ENTRY(decode_attention_direct_secondary##SIZE, 0, false, false, true, ,  \
                                            WARPS, AHEAD, CHAINS, MIN_BLOCKS)

HOTKERNEL_DECODE_ATTENTION_DIRECT(8, 1, 1, 1)
HOTKERNEL_DECODE_ATTENTION_DIRECT(4, 1, 1, 2)
HOTKERNEL_DECODE_ATTENTION_DIRECT(2, 1, 1, 4)
HOTKERNEL_DECODE_ATTENTION_DIRECT(8, 1, 2, 1)
HOTKERNEL_DECODE_ATTENTION_DIRECT(4, 1, 2, 2)
HOTKERNEL_DECODE_ATTENTION_DIRECT(8, 1, 4, 1)
HOTKERNEL_DECODE_ATTENTION_DIRECT_CLUSTER(16, 8, 1, 2, 1)
HOTKERNEL_DECODE_ATTENTION_DIRECT_CLUSTER(16, 8, 1, 4, 1)
