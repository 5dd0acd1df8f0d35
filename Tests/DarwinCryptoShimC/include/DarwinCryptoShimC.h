// CommonCrypto's SHA-256 as AutomergeCodec's SHA256Digest uses it on Darwin, for the compile
// check on Linux (mn.md §15; Tests/DarwinLibcShim/README.md). Restated from Apple's
// open-source CommonCrypto (include/CommonDigest.h; Apple Public Source License 2.0), with
// no system header included. Apart from DarwinShimC: the check that uses it also imports
// the real AutomergeCodec, whose C modules bring Glibc's headers.
#ifndef MN_DARWIN_CRYPTO_SHIM_C_H
#define MN_DARWIN_CRYPTO_SHIM_C_H

typedef unsigned int CC_LONG;  // uint32_t
#define CC_SHA256_DIGEST_LENGTH 32
typedef struct CC_SHA256state_st {
  CC_LONG count[2];
  CC_LONG hash[8];
  CC_LONG wbuf[16];
} CC_SHA256_CTX;
int CC_SHA256_Init(CC_SHA256_CTX *c);
int CC_SHA256_Update(CC_SHA256_CTX *c, const void *data, CC_LONG len);
int CC_SHA256_Final(unsigned char *md, CC_SHA256_CTX *c);
unsigned char *CC_SHA256(const void *data, CC_LONG len, unsigned char *md);

#endif
