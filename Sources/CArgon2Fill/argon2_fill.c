/* Argon2's memory filling (RFC 9106, version 0x13) with two implementations of the compression
 * function G: portable C, and AVX2 chosen at run time on x86-64 CPUs that have it. Written from the
 * RFC's text; the tests check both against libsodium and the RFC's test vectors. */
#include "argon2_fill.h"

#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define GH_HAVE_AVX2_KERNEL 1
#endif

#define SYNC_POINTS 4         /* slices per lane */
#define ADDRESSES_IN_BLOCK 128 /* pseudo-random words per address block */

/* G writes `next` = P(prev ^ ref) ^ (prev ^ ref), XORed into `next`'s old value when `with_xor`
 * (every pass after the first). It reads both inputs in full before writing, so `next` may alias
 * `ref` (address generation compresses a block into itself). */
typedef void (*compress_fn)(const uint64_t *prev, const uint64_t *ref, uint64_t *next, int with_xor);

/* ---- portable ---- */

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

/* BlaMka's multiply-add: x + y + 2 * lo32(x) * lo32(y), all mod 2^64. */
static inline uint64_t blamka(uint64_t x, uint64_t y) {
    return x + y + 2 * ((x & 0xffffffffu) * (y & 0xffffffffu));
}

static inline void gb(uint64_t *a, uint64_t *b, uint64_t *c, uint64_t *d) {
    *a = blamka(*a, *b); *d = rotr64(*d ^ *a, 32);
    *c = blamka(*c, *d); *b = rotr64(*b ^ *c, 24);
    *a = blamka(*a, *b); *d = rotr64(*d ^ *a, 16);
    *c = blamka(*c, *d); *b = rotr64(*b ^ *c, 63);
}

/* The permutation P over sixteen words, named by their indexes into `v`. */
static inline void permute(uint64_t *v, const unsigned i[16]) {
    gb(&v[i[0]], &v[i[4]], &v[i[8]], &v[i[12]]);
    gb(&v[i[1]], &v[i[5]], &v[i[9]], &v[i[13]]);
    gb(&v[i[2]], &v[i[6]], &v[i[10]], &v[i[14]]);
    gb(&v[i[3]], &v[i[7]], &v[i[11]], &v[i[15]]);
    gb(&v[i[0]], &v[i[5]], &v[i[10]], &v[i[15]]);
    gb(&v[i[1]], &v[i[6]], &v[i[11]], &v[i[12]]);
    gb(&v[i[2]], &v[i[7]], &v[i[8]], &v[i[13]]);
    gb(&v[i[3]], &v[i[4]], &v[i[9]], &v[i[14]]);
}

static void compress_portable(const uint64_t *prev, const uint64_t *ref, uint64_t *next, int with_xor) {
    uint64_t r[GH_ARGON2_BLOCK_WORDS], z[GH_ARGON2_BLOCK_WORDS];
    for (unsigned k = 0; k < GH_ARGON2_BLOCK_WORDS; k++) {
        r[k] = prev[k] ^ ref[k];
        z[k] = with_xor ? r[k] ^ next[k] : r[k];
    }
    /* The block is an 8x8 matrix of 16-byte registers: P over each row, then over each column. */
    for (unsigned row = 0; row < 8; row++) {
        unsigned i[16];
        for (unsigned k = 0; k < 16; k++) i[k] = 16 * row + k;
        permute(r, i);
    }
    for (unsigned col = 0; col < 8; col++) {
        unsigned i[16];
        for (unsigned k = 0; k < 8; k++) {
            i[2 * k] = 16 * k + 2 * col;
            i[2 * k + 1] = 16 * k + 2 * col + 1;
        }
        permute(r, i);
    }
    for (unsigned k = 0; k < GH_ARGON2_BLOCK_WORDS; k++) next[k] = r[k] ^ z[k];
}

/* ---- AVX2: four words per register, 32 registers per block ---- */

#if GH_HAVE_AVX2_KERNEL
#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i blamka4(__m256i x, __m256i y) {
    __m256i product = _mm256_mul_epu32(x, y); /* lo32(x) * lo32(y) in each 64-bit lane */
    return _mm256_add_epi64(_mm256_add_epi64(x, y), _mm256_add_epi64(product, product));
}

AVX2 static inline __m256i rotr32x4(__m256i x) { return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)); }

AVX2 static inline __m256i rotr24x4(__m256i x) {
    const __m256i bytes = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10,
                                           3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
    return _mm256_shuffle_epi8(x, bytes);
}

AVX2 static inline __m256i rotr16x4(__m256i x) {
    const __m256i bytes = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9,
                                           2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
    return _mm256_shuffle_epi8(x, bytes);
}

AVX2 static inline __m256i rotr63x4(__m256i x) {
    return _mm256_xor_si256(_mm256_srli_epi64(x, 63), _mm256_add_epi64(x, x));
}

/* Four GBs side by side: lane k of a, b, c, d is one GB's (a, b, c, d). */
AVX2 static inline void gb4(__m256i *a, __m256i *b, __m256i *c, __m256i *d) {
    *a = blamka4(*a, *b); *d = rotr32x4(_mm256_xor_si256(*d, *a));
    *c = blamka4(*c, *d); *b = rotr24x4(_mm256_xor_si256(*b, *c));
    *a = blamka4(*a, *b); *d = rotr16x4(_mm256_xor_si256(*d, *a));
    *c = blamka4(*c, *d); *b = rotr63x4(_mm256_xor_si256(*b, *c));
}

/* P over v0..v15 held as a = v0..v3, b = v4..v7, c = v8..v11, d = v12..v15: the column GBs, then
 * the diagonal ones after rotating b, c and d so each diagonal lines up in one lane. */
AVX2 static inline void permute4(__m256i *a, __m256i *b, __m256i *c, __m256i *d) {
    gb4(a, b, c, d);
    *b = _mm256_permute4x64_epi64(*b, _MM_SHUFFLE(0, 3, 2, 1));
    *c = _mm256_permute4x64_epi64(*c, _MM_SHUFFLE(1, 0, 3, 2));
    *d = _mm256_permute4x64_epi64(*d, _MM_SHUFFLE(2, 1, 0, 3));
    gb4(a, b, c, d);
    *b = _mm256_permute4x64_epi64(*b, _MM_SHUFFLE(2, 1, 0, 3));
    *c = _mm256_permute4x64_epi64(*c, _MM_SHUFFLE(1, 0, 3, 2));
    *d = _mm256_permute4x64_epi64(*d, _MM_SHUFFLE(0, 3, 2, 1));
}

AVX2 static void compress_avx2(const uint64_t *prev, const uint64_t *ref, uint64_t *next, int with_xor) {
    /* r[4 * row + k] holds words 16 * row + 4k ... + 3, i.e. registers 2k and 2k + 1 of that row. */
    __m256i r[32], z[32];
    for (unsigned k = 0; k < 32; k++) {
        r[k] = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(prev + 4 * k)),
                                _mm256_loadu_si256((const __m256i *)(ref + 4 * k)));
        z[k] = with_xor ? _mm256_xor_si256(r[k], _mm256_loadu_si256((const __m256i *)(next + 4 * k))) : r[k];
    }
    for (unsigned row = 0; row < 8; row++) permute4(&r[4 * row], &r[4 * row + 1], &r[4 * row + 2], &r[4 * row + 3]);
    /* Columns 2k and 2k + 1 at once: gather each column's registers from rows 2q and 2q + 1 into
     * one __m256i per pair of rows, permute, and put them back. */
    for (unsigned k = 0; k < 4; k++) {
        __m256i even[4], odd[4];
        for (unsigned q = 0; q < 4; q++) {
            even[q] = _mm256_permute2x128_si256(r[8 * q + k], r[8 * q + 4 + k], 0x20);
            odd[q] = _mm256_permute2x128_si256(r[8 * q + k], r[8 * q + 4 + k], 0x31);
        }
        permute4(&even[0], &even[1], &even[2], &even[3]);
        permute4(&odd[0], &odd[1], &odd[2], &odd[3]);
        for (unsigned q = 0; q < 4; q++) {
            r[8 * q + k] = _mm256_permute2x128_si256(even[q], odd[q], 0x20);
            r[8 * q + 4 + k] = _mm256_permute2x128_si256(even[q], odd[q], 0x31);
        }
    }
    for (unsigned k = 0; k < 32; k++) _mm256_storeu_si256((__m256i *)(next + 4 * k), _mm256_xor_si256(r[k], z[k]));
}

static int cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#endif

static compress_fn pick(gh_argon2_kernel kernel) {
#if GH_HAVE_AVX2_KERNEL
    if (kernel == GH_ARGON2_FASTEST && cpu_has_avx2()) return compress_avx2;
#endif
    (void)kernel;
    return compress_portable;
}

const char *gh_argon2_fastest_kernel(void) { return pick(GH_ARGON2_FASTEST) == compress_portable ? "portable" : "avx2"; }

/* ---- filling ---- */

/* Where a segment is: which pass, lane and slice, in memory of `lanes` x `lane_length` blocks. */
typedef struct {
    uint64_t *memory;
    uint32_t lanes, lane_length, segment_length, passes;
    gh_argon2_type type;
    compress_fn compress;
} instance;

static inline uint64_t *block_at(const instance *in, uint32_t lane, uint32_t column) {
    return in->memory + ((size_t)lane * in->lane_length + column) * GH_ARGON2_BLOCK_WORDS;
}

/* The column of the reference block (RFC 9106 section 3.4.2): J1 mapped non-uniformly onto the
 * blocks this position may reference, counted back from the newest. */
static uint32_t reference_column(const instance *in, uint32_t pass, uint32_t slice, uint32_t index,
                                 uint32_t j1, int same_lane) {
    uint64_t area;
    if (pass == 0) {
        /* First pass: only finished slices of other lanes, and this lane up to the previous block. */
        uint64_t finished = (uint64_t)slice * in->segment_length;
        area = same_lane ? finished + index - 1 : finished - (index == 0 ? 1 : 0);
    } else {
        /* Later passes: the other three slices, plus this segment so far in the same lane. */
        uint64_t others = (uint64_t)in->lane_length - in->segment_length;
        area = same_lane ? others + index - 1 : others - (index == 0 ? 1 : 0);
    }
    uint64_t x = ((uint64_t)j1 * j1) >> 32;
    uint64_t relative = area - 1 - ((area * x) >> 32);
    uint64_t start = (pass == 0 || slice == SYNC_POINTS - 1) ? 0 : (uint64_t)(slice + 1) * in->segment_length;
    return (uint32_t)((start + relative) % in->lane_length);
}

static void fill_segment(const instance *in, uint32_t pass, uint32_t slice, uint32_t lane) {
    int independent = in->type == GH_ARGON2_I || (pass == 0 && slice < SYNC_POINTS / 2);
    _Alignas(64) uint64_t zero[GH_ARGON2_BLOCK_WORDS] = {0};
    _Alignas(64) uint64_t input[GH_ARGON2_BLOCK_WORDS] = {0};
    _Alignas(64) uint64_t addresses[GH_ARGON2_BLOCK_WORDS];
    if (independent) {
        input[0] = pass;
        input[1] = lane;
        input[2] = slice;
        input[3] = (uint64_t)in->lanes * in->lane_length;
        input[4] = in->passes;
        input[5] = in->type;
    }
    uint32_t first = 0;
    if (pass == 0 && slice == 0) first = 2; /* blocks 0 and 1 come from H0 */
    for (uint32_t index = first; index < in->segment_length; index++) {
        uint32_t column = slice * in->segment_length + index;
        uint64_t *current = block_at(in, lane, column);
        const uint64_t *previous = block_at(in, lane, column == 0 ? in->lane_length - 1 : column - 1);
        uint64_t pseudo_random;
        if (independent) {
            if (index == first || index % ADDRESSES_IN_BLOCK == 0) {
                /* The next 128 addresses: G(0, G(0, input)) with input's counter one higher. */
                input[6]++;
                in->compress(zero, input, addresses, 0);
                in->compress(zero, addresses, addresses, 0);
            }
            pseudo_random = addresses[index % ADDRESSES_IN_BLOCK];
        } else {
            pseudo_random = previous[0];
        }
        uint32_t ref_lane = (pass == 0 && slice == 0) ? lane : (uint32_t)((pseudo_random >> 32) % in->lanes);
        uint32_t ref_column = reference_column(in, pass, slice, index, (uint32_t)pseudo_random, ref_lane == lane);
        in->compress(previous, block_at(in, ref_lane, ref_column), current, pass != 0);
    }
}

void gh_argon2_fill(uint64_t *memory, uint32_t lanes, uint32_t lane_length, uint32_t passes,
                    gh_argon2_type type, gh_argon2_kernel kernel) {
    instance in = {memory, lanes, lane_length, lane_length / SYNC_POINTS, passes, type, pick(kernel)};
    for (uint32_t pass = 0; pass < passes; pass++)
        for (uint32_t slice = 0; slice < SYNC_POINTS; slice++)
            for (uint32_t lane = 0; lane < lanes; lane++) fill_segment(&in, pass, slice, lane);
}
