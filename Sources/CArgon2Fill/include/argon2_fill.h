#ifndef GATEHOUSE_ARGON2_FILL_H
#define GATEHOUSE_ARGON2_FILL_H

#include <stdint.h>

/* The memory-hard middle of Argon2 (RFC 9106 section 3.2 steps 5-6, version 0x13), the part that
 * takes the time: filling every block after each lane's first two with the BlaMka compression
 * function G. The framing around it (H0, H', the tag) is Blake2b and lives in Swift (Secrets). */

/* Bytes in one block, and 64-bit words in it. */
#define GH_ARGON2_BLOCK_BYTES 1024
#define GH_ARGON2_BLOCK_WORDS 128

/* Argon2's type field y: data-independent (i) or hybrid (id) addressing. */
typedef enum {
    GH_ARGON2_I = 1,
    GH_ARGON2_ID = 2,
} gh_argon2_type;

/* Which implementation of G fills memory: the fastest this CPU runs, or the portable one (so the
 * tests can check both against the same vectors on one machine). */
typedef enum {
    GH_ARGON2_FASTEST = 0,
    GH_ARGON2_PORTABLE = 1,
} gh_argon2_kernel;

/* Fills `memory`: `lanes` lanes of `lane_length` blocks each, lane after lane, 64-byte aligned;
 * the first two blocks of every lane must already hold H'(H0 || 0 || lane) and H'(H0 || 1 || lane).
 * `lane_length` is a multiple of 4 and at least 8; `passes` is t (at least 1). */
void gh_argon2_fill(uint64_t *memory, uint32_t lanes, uint32_t lane_length, uint32_t passes,
                    gh_argon2_type type, gh_argon2_kernel kernel);

/* The name of the kernel GH_ARGON2_FASTEST picks on this CPU ("avx2" or "portable"). */
const char *gh_argon2_fastest_kernel(void);

#endif
