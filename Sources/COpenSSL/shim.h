// OpenSSL 3 marks the low-level SHA-256 calls deprecated, yet they are the only ones without
// EVP's per-call fetch and context: bitcoin-bench's reference (SHA256d of each of a block's
// transactions) times the hashing with them. CSHA256 includes them on its own.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/sha.h>
