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

// The names Gatehouse hands libcrypto. libcrypto keeps some of them by reference (a parameter
// builder's keys until OSSL_PARAM_BLD_to_param, a context's key type), so each is a string
// literal: a static C array, NUL-terminated by the language, alive as long as the program.
enum gh_libcrypto_name {
    GH_NAME_EC, GH_NAME_RSA, GH_NAME_SHA1, GH_NAME_SHA256, GH_NAME_P256, GH_NAME_PRIME256V1,
    GH_NAME_GROUP, GH_NAME_PUBLIC_KEY, GH_NAME_PRIVATE_KEY, GH_NAME_RSA_N, GH_NAME_RSA_E
};

static inline const char *gh_libcrypto_name_text(enum gh_libcrypto_name name) {
    static const char *const names[] = {
        "EC", "RSA", "SHA1", "SHA256", "P-256", "prime256v1",
        OSSL_PKEY_PARAM_GROUP_NAME, OSSL_PKEY_PARAM_PUB_KEY, OSSL_PKEY_PARAM_PRIV_KEY,
        OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E
    };
    return names[name];
}
#endif
