// SPDX-License-Identifier: Apache-2.0
// Split-KV decode attention for the example target decode_attention: one query token, GQA with 4
// query heads per KV head, head dim 128, bf16:
//   out[h] = softmax(q[h] . K[h / 4]^T / sqrt(128)) V[h / 4]
//   q [Hq, 128], K and V [Hkv, S, 128] (contiguous), out [Hq, 128].
// Built by examples/cuda_launch.py with nvcc into a cubin and launched through the driver API by
// examples/decode_attention_cuda.py. What was tried on the way here, and what each measured:
// docs/examples.md.
//
// The call is a stream of K and V (128 MiB at the target's shape, ~32 us at the H200's copy rate);
// the arithmetic hides behind it, so the design is about the access order and the tail:
// - Grid (chunks, Hkv): a block owns 1/chunks of one KV head's keys for all 4 of its query heads, so
//   K and V are read exactly once. Keys are dealt "interleaved": step j of every warp of a KV head
//   reads one contiguous window, so the grid streams through a few narrow address windows.
// - Copy "direct": each lane loads 16-byte pieces of K and V straight into the registers where its
//   mma fragments need them (head dims and keys permuted alike in Q, K, V, P and the output), with
//   no shared memory in the streaming loop and one tile in flight per warp beside the one in use.
// - Both products on tensor cores (mma.sync m16n8k16): S = Q K^T with the 4 query heads as rows of
//   a 16-row mma (rows 4..15 zero), and O^T = V^T P^T, so the accumulator has no padding rows.
//   Online softmax in base 2 (1/sqrt(d) folded into log2(e)), fp32 throughout, P rounded to bf16
//   only as an mma operand.
// - Combine "cluster": a KV head's 16 blocks are one thread block cluster and send their partials
//   into the first block's shared memory (st.async counted on an mbarrier): no global memory, fence
//   or ticket on the tail. One block per SM and one cluster per GPC fit only 7 such clusters on the
//   H200, so the heads left over go to a second kernel (the "secondary") on the SMs the clusters
//   leave, whose blocks publish partials to global memory and the last to take a ticket combines.
// - Tail prefetch: warps whose stream has ended have the L2 prefetch the last keys of every head,
//   so that the warps still streaming find their last tiles in L2.
// Two entry points are built (end of file); decode_attention_cuda.py launches both per call.
#include <cuda_bf16.h>
#include <stdint.h>

namespace {

constexpr int kDim = 128;                         // head dimension
constexpr int kGroup = 4;                         // query heads per KV head
constexpr int kTileKeys = 16;                     // keys per pipeline stage and warp
constexpr int kRowBytes = kDim * 2;               // one key row of K or V in global memory

__device__ __forceinline__ uint32_t shared_address(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The cluster's inbox barrier: one arrival, plus the bytes the other blocks will send.
__device__ __forceinline__ void barrier_init(uint32_t bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void barrier_expect_bytes(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
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

// The tagged combine (combine = kCombineTagged, a runtime choice of the secondary's arguments that
// the launcher does not make): every value a block publishes carries the call's epoch in the same
// 64-bit word, so the combining block polls for them without a fence or a counter.
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

// stop_after values other than 0 (run to the end) stop the kernel early, to time its phases; the
// launcher always passes 0.
constexpr int kStopBeforeCombine = 1, kStopAfterStreaming = 2, kStreamOnly = 3;

// How the secondary's chunks are combined (the `combine` argument; the launcher passes
// ticket-release): the last block to take a ticket, after a fence per thread (ticket) or one
// acq_rel atomic (ticket-release), or the last block dispatched, polling for tagged values.
constexpr int kCombineTicket = 0, kCombineTagged = 1, kCombineTicketRelease = 3;

// How a KV head's keys are dealt to its blocks and warps (the `order` argument; the launcher passes
// interleaved).
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

// One tile's online-softmax step: s_lo and s_hi are the score
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

// A warp's result in shared memory: acc [4][128] floats, then (m, l) per query head. l must be the
// group's sum already.
constexpr int kWarpResultBytes = kGroup * kDim * 4 + kGroup * 8;

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

// ---- Copy "direct": tiles read straight into registers --------------------------------------
// The fastest pure stream of K and V loads 16 bytes per lane into registers, and the dot products
// do not care in which order the head dims or the keys of a tile are summed. So each lane loads
// exactly the bytes its mma fragments hold, permuting dims and keys consistently in Q, K, V, P and
// the output, and no tile passes through shared memory:
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
// AHEAD tiles are in flight per warp, in registers, while it works on one (the kernels: one).
struct DirectTile {
    uint4 k[2][4];  // keys: [low/high half][i]
    uint4 v[4][2];  // values: [key 4t + c][dims 8g.. / 64 + 8g..]
};

// A warp's state: the running max m and sum l of head g, and o[J] the accumulator of
// output step J (c0, c1: heads 2t, 2t + 1 at dim 8g + J; c2, c3: the same at 64 + 8g + J).
struct DirectWarpState {
    float m = -INFINITY, l = 0.f;
    float o[kDim / 16][4] = {};
};

// 16 bytes read once: no L1 allocation.
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

// The warp's result in shared memory: acc [4][128] floats, then (m, l) per query head. l must be the group's sum already.
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
// the acq_rel ticket, and the last block's reads of every partial. In a cluster the 16 blocks of a KV head run on one
// GPC at once, so each can write its partial straight into the shared memory of the cluster's
// first block (st.async, which counts the bytes on that block's mbarrier): no global memory, no
// fence, no counter, nothing left behind between calls. The first block waits for the 15 partials
// and merges them in a fixed order, so the result is the same bit for bit on every call.
// A cluster lives in one GPC, and with one block per SM the H200's GPCs hold only 7 clusters of 16
// (cuOccupancyMaxActiveClusters): so the launcher gives the clusters
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
// mbarrier exists. Arriving costs nothing; the wait comes after the stream.
template <int CLUSTER>
__device__ __forceinline__ void start_cluster(uint32_t bar, int chunk)
{
    if (chunk == 0 && threadIdx.x == 0) {
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
template <int WARPS, int CLUSTER>
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
    // One lane per output, partials in chunk order, as the ticket's combine: the same bits on every
    // call.
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

// ---- Tail prefetch (cluster kernel) ------------------------------------------------------------
// The warps of a call do not end their streams together (a KV head's first warp ends ~3 us before
// its last), and as they end, fewer bytes are in flight than the memory could serve. So each warp,
// once its stream has ended, asks the L2 to prefetch one 16 KiB piece of the last kTailKeys keys of
// some KV head (K or V; cp.async.bulk.prefetch: nothing comes back to the SM), the pieces taken in
// the order the warps reached their last tile (a global counter, asked one tile early), in key
// order across all heads. The warps still streaming then find their last tiles in L2. No byte is
// read twice from memory unless the L2 evicts it first (16 MiB of 50).
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

// ---- The kernel body ---------------------------------------------------------------------------
// Grid (chunks, Hkv): block (chunk, h) streams its share of KV head h's keys for the head's 4 query
// heads. Dynamic shared memory: WARPS * kWarpResultBytes, and the inbox after them when CLUSTER
// (launched in clusters of CLUSTER = chunks blocks along x; 0: no cluster, the ticket combines).
// TAIL: the tail prefetch (CLUSTER only; `tickets` is then its tail_state).
template <int WARPS, int AHEAD, int CHAINS, int CLUSTER, bool TAIL = false>
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

    __shared__ __align__(8) uint64_t inbox_bar;  // CLUSTER only
    if constexpr (CLUSTER > 0) {
        start_cluster<CLUSTER>(shared_address(&inbox_bar), chunk);
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");  // the secondary may start: this block is resident
    }

    uint32_t q_frag[kDim / 16][2];
    load_q_fragment_permuted(q_frag, q, kv_head, g, t);
    DirectWarpState st;
    uint32_t checksum = 0;  // the loads' bits, for stop_after kStreamOnly only

    // A ring of AHEAD + 1 tiles in registers, indexed by constants only (the loop is unrolled by the
    // ring's length): tile i + AHEAD is loaded into the slot that tile i - 1 has just freed.
    constexpr int kRing = AHEAD + 1;
    DirectTile ring[kRing];
    const auto load = [&](int slot, int j) {
        load_direct_tile(ring[slot], k_rows, v_rows, tile_order.first_key(j), g, t);
    };
    static_assert(!TAIL || CLUSTER > 0, "the tail prefetch: cluster kernel only");
    unsigned tail_rank = 0;  // TAIL: lane 0's place in the order of the warps' last tiles
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
    if constexpr (TAIL)
        if (lane == 0 && tiles > 0)
            prefetch_tail_piece(reinterpret_cast<const char *>(k), reinterpret_cast<const char *>(v), seq, tickets,
                                tail_rank % (gridDim.x * gridDim.y * WARPS));
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
        finish_cluster<WARPS, CLUSTER>(shared, shared + WARPS * kWarpResultBytes, shared_address(&inbox_bar), out,
                                       kv_head, chunk, stop_after);
    else
        finish_block<WARPS>(shared, kWarpResultBytes, partial, tickets, out, kv_head, chunk, chunks, tag, combine,
                            stop_after);
}

}  // namespace

// ---- Entry points (extern "C": the names decode_attention_cuda.py looks up) ---------------------
// 8 warps, one tile ahead, 4 score chains, one block per SM (248 and 250 registers per thread).
// Both take the same arguments; part_acc, part_ml and tagged are the ticket combine's buffers (the
// cluster kernel passes q for them: its partials never leave the cluster).
#define HOTKERNEL_DECODE_ARGUMENTS                                                                           \
    const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,                                \
        const __nv_bfloat16 *__restrict__ v, float *part_acc, float2 *part_ml, uint64_t *tagged, int *tickets, \
        __nv_bfloat16 *out, int seq, float scale_log2, int order, int combine, int stop_after

// The cluster kernel: grid (16, heads that fit), one 16-block cluster per KV head, tail prefetch;
// `tickets` is the tail prefetch's state. Dynamic shared memory (8 + 15) * kWarpResultBytes.
extern "C" __global__ void __cluster_dims__(16, 1, 1) __launch_bounds__(8 * 32, 1)
    decode_attention_direct_cluster16_tail_w8_a1_c4_b1(HOTKERNEL_DECODE_ARGUMENTS)
{
    decode_attention_direct_body<8, 1, 4, 16, true>(q, k, v, Partial{part_acc, part_ml, tagged}, tickets, out, seq,
                                                    scale_log2, order, combine, stop_after);
}

// The secondary: the KV heads left over, on the SMs the clusters leave, the ticket combine. A
// programmatic dependent of the cluster kernel: it waits for that kernel before it exits, so that
// the call is over only when both are. Dynamic shared memory 8 * kWarpResultBytes.
extern "C" __global__ void __launch_bounds__(8 * 32, 1)
    decode_attention_direct_secondary16_w8_a1_c4_b1(HOTKERNEL_DECODE_ARGUMENTS)
{
    decode_attention_direct_body<8, 1, 4, 0>(q, k, v, Partial{part_acc, part_ml, tagged}, tickets, out, seq,
                                             scale_log2, order, combine, stop_after);
    asm volatile("griddepcontrol.wait;" ::: "memory");  // done only once the cluster kernel is
}
