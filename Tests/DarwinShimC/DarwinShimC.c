// Empty: DarwinShimC is its header (include/DarwinShimC.h); nothing of it is linked into mn.
