#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
// OpenSSL 3's libcrypto only (no TLS): digests, HMAC, ECDSA P-256 and RSA, through the EVP and
// provider interfaces; nothing deprecated in 3.0 is used.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#endif
