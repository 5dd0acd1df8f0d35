// Empty: DarwinCryptoShimC is its header (include/DarwinCryptoShimC.h); nothing of it is linked into mn.
