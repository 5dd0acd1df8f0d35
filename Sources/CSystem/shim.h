// renameat2(2) for the replace primitive (mn.md §6). Swift's Glibc module is built without
// _GNU_SOURCE, so it lacks the declaration and the RENAME_* flags; glibc before 2.28 and
// some other C libraries lack the wrapper itself, and then the system call is made directly.
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>

#define MN_RENAME_NOREPLACE 1u
#define MN_RENAME_EXCHANGE 2u

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     unsigned int flags);
static inline int mn_renameat2(int olddirfd, const char *oldpath, int newdirfd,
                               const char *newpath, unsigned int flags) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}
#elif defined(SYS_renameat2)
static inline int mn_renameat2(int olddirfd, const char *oldpath, int newdirfd,
                               const char *newpath, unsigned int flags) {
  return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}
#else
static inline int mn_renameat2(int olddirfd, const char *oldpath, int newdirfd,
                               const char *newpath, unsigned int flags) {
  (void)olddirfd; (void)oldpath; (void)newdirfd; (void)newpath; (void)flags;
  errno = ENOSYS;
  return -1;
}
#endif
