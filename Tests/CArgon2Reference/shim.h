#ifndef CARGON2REFERENCE_SHIM_H
#define CARGON2REFERENCE_SHIM_H
/* The reference Argon2 (P-H-C's libargon2, Debian libargon2-dev), which the tests alone link: it is
 * what Gatehouse's multi-lane argon2 is checked against, as libsodium only hashes with one lane. */
#include <argon2.h>
#endif
