// OpenSSL 3 marks the low-level SHA-256 calls deprecated, yet they are the only ones without
// EVP's per-call fetch and context: Bitcoin's thousands of short hashes per block need them.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/sha.h>
