// Darwin's C library as mn's Darwin code sees it, for the compile checks on Linux (mn.md §15;
// Tests/DarwinShim/README.md). Only the declarations mn uses, with Darwin's types and values,
// restated from Apple's open-source headers (XNU's bsd/sys/*.h, Libc's include/*.h, dyld's
// mach-o/dyld.h; Apple Public Source License 2.0); each group names its header. Self-contained:
// no system header is included, so nothing of Glibc's is visible beside it.
#ifndef MN_DARWIN_SHIM_C_H
#define MN_DARWIN_SHIM_C_H

// <sys/_types.h>, <sys/_types/*.h>, <sys/types.h> (XNU)
typedef signed char __int8_t;
typedef unsigned char __uint8_t;
typedef short __int16_t;
typedef unsigned short __uint16_t;
typedef int __int32_t;
typedef unsigned int __uint32_t;
typedef long long __int64_t;
typedef unsigned long long __uint64_t;
typedef __uint32_t uint32_t;
typedef __int32_t dev_t;
typedef __uint16_t mode_t;
typedef __uint16_t nlink_t;
typedef __uint64_t ino_t;
typedef __uint32_t uid_t;
typedef __uint32_t gid_t;
typedef __int64_t off_t;
typedef __int64_t blkcnt_t;
typedef __int32_t blksize_t;
typedef __int32_t pid_t;
typedef long time_t;
typedef unsigned long size_t;
typedef long ssize_t;
typedef int sig_atomic_t;
typedef __uint32_t sigset_t;

// <sys/_types/_timespec.h>
struct timespec {
  time_t tv_sec;
  long tv_nsec;
};

// <sys/stat.h>: the 64-bit-inode struct stat (__DARWIN_STRUCT_STAT64)
struct stat {
  dev_t st_dev;
  mode_t st_mode;
  nlink_t st_nlink;
  ino_t st_ino;
  uid_t st_uid;
  gid_t st_gid;
  dev_t st_rdev;
  struct timespec st_atimespec;
  struct timespec st_mtimespec;
  struct timespec st_ctimespec;
  struct timespec st_birthtimespec;
  off_t st_size;
  blkcnt_t st_blocks;
  blksize_t st_blksize;
  __uint32_t st_flags;
  __uint32_t st_gen;
  __int32_t st_lspare;
  __int64_t st_qspare[2];
};
int stat(const char *path, struct stat *buf);
int lstat(const char *path, struct stat *buf);
int fstat(int fildes, struct stat *buf);
int fstatat(int fd, const char *path, struct stat *buf, int flag);
int mkdir(const char *path, mode_t mode);
int chmod(const char *path, mode_t mode);

// <sys/fcntl.h>
#define O_RDONLY 0x0000
#define O_WRONLY 0x0001
#define O_RDWR 0x0002
#define O_NONBLOCK 0x00000004
#define O_NOFOLLOW 0x00000100
#define O_CREAT 0x00000200
#define O_EXCL 0x00000800
#define O_NOCTTY 0x00020000
#define O_DIRECTORY 0x00100000
#define O_CLOEXEC 0x01000000
#define AT_FDCWD -2
#define AT_SYMLINK_NOFOLLOW 0x0020
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_FULLFSYNC 51
#define FD_CLOEXEC 1

// <sys/file.h>
#define LOCK_EX 0x02
#define LOCK_NB 0x04
#define LOCK_UN 0x08
int flock(int fd, int operation);

// <stdio.h> (Libc)
#define RENAME_SWAP 0x00000002
#define RENAME_EXCL 0x00000004
int renamex_np(const char *from, const char *to, unsigned int flags);
int rename(const char *old, const char *new_);

// <unistd.h> (Libc)
ssize_t read(int fildes, void *buf, size_t nbyte);
ssize_t write(int fildes, const void *buf, size_t nbyte);
int close(int fildes);
int fsync(int fildes);
int unlink(const char *path);
int rmdir(const char *path);
ssize_t readlink(const char *restrict path, char *restrict buf, size_t bufsize);
int pipe(int fildes[2]);
int isatty(int fildes);
char *getcwd(char *buf, size_t size);
pid_t getpid(void);
void _exit(int status) __attribute__((noreturn));
long sysconf(int name);
#define _SC_NPROCESSORS_ONLN 58

// <stdlib.h>, <string.h> (Libc)
char *getenv(const char *name);
void free(void *ptr);
char *realpath(const char *restrict file_name, char *restrict resolved_name);
char *strdup(const char *s1);
char *strerror(int errnum);
void exit(int status) __attribute__((noreturn));

// <sys/syslimits.h>, <sys/dirent.h> (XNU, 64-bit inode), <dirent.h> (Libc)
#define PATH_MAX 1024
#define NAME_MAX 255
#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10
struct dirent {
  __uint64_t d_ino;
  __uint64_t d_seekoff;
  __uint16_t d_reclen;
  __uint16_t d_namlen;
  __uint8_t d_type;
  char d_name[1024];
};
typedef struct _DIR DIR;  // opaque here: mn only passes it back
DIR *opendir(const char *filename);
struct dirent *readdir(DIR *dirp);
int closedir(DIR *dirp);
int dirfd(DIR *dirp);


// <sys/errno.h> (XNU); `errno` itself is a macro, the Darwin overlay's `var errno` (Libc.swift)
#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define EIO 5
#define EDEADLK 11
#define EACCES 13
#define EEXIST 17
#define EXDEV 18
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENOTTY 25
#define EFBIG 27
#define ENOSPC 28
#define EROFS 30
#define EPIPE 32
#define EAGAIN 35
#define EWOULDBLOCK EAGAIN
#define ENOTSUP 45
#define ELOOP 62
#define ENAMETOOLONG 63
#define ENOTEMPTY 66
#define EDQUOT 69
#define ENOSYS 78

// <sys/signal.h> (XNU), <signal.h> (Libc)
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGKILL 9
#define SIGPIPE 13
#define SIGTERM 15
#define SIGSTOP 17
#define SIG_BLOCK 1
#define SIG_UNBLOCK 2
#define SIG_SETMASK 3
typedef void (*sig_t)(int);
void (*signal(int sig, void (*func)(int)))(int);
int kill(pid_t pid, int sig);
int sigemptyset(sigset_t *set);
int sigaddset(sigset_t *set, int signo);
int sigprocmask(int how, const sigset_t *restrict set, sigset_t *restrict oset);
int pthread_sigmask(int how, const sigset_t *set, sigset_t *oset);

// <sys/wait.h> (XNU)
#define WNOHANG 0x00000001
pid_t waitpid(pid_t pid, int *stat_loc, int options);

// <time.h> (Libc)
typedef enum {
  _CLOCK_REALTIME = 0,
#define CLOCK_REALTIME _CLOCK_REALTIME
  _CLOCK_MONOTONIC = 6,
#define CLOCK_MONOTONIC _CLOCK_MONOTONIC
} clockid_t;
int clock_gettime(clockid_t clock_id, struct timespec *tp);
int nanosleep(const struct timespec *rqtp, struct timespec *rmtp);
struct tm {
  int tm_sec;
  int tm_min;
  int tm_hour;
  int tm_mday;
  int tm_mon;
  int tm_year;
  int tm_wday;
  int tm_yday;
  int tm_isdst;
  long tm_gmtoff;
  char *tm_zone;
};
struct tm *localtime_r(const time_t *restrict clock, struct tm *restrict result);

// <spawn.h> (Libc): the attributes and file actions are pointers on Darwin
typedef void *posix_spawnattr_t;
typedef void *posix_spawn_file_actions_t;
#define POSIX_SPAWN_SETSIGDEF 0x0004
#define POSIX_SPAWN_SETSIGMASK 0x0008
int posix_spawn_file_actions_init(posix_spawn_file_actions_t *file_actions);
int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *file_actions);
int posix_spawn_file_actions_addopen(
    posix_spawn_file_actions_t *restrict file_actions, int filedes, const char *restrict path,
    int oflag, mode_t mode);
int posix_spawn_file_actions_adddup2(
    posix_spawn_file_actions_t *file_actions, int filedes, int newfiledes);
int posix_spawnattr_init(posix_spawnattr_t *attr);
int posix_spawnattr_destroy(posix_spawnattr_t *attr);
int posix_spawnattr_setsigdefault(posix_spawnattr_t *restrict attr, const sigset_t *restrict sigdefault);
int posix_spawnattr_setsigmask(posix_spawnattr_t *restrict attr, const sigset_t *restrict sigmask);
int posix_spawnattr_setflags(posix_spawnattr_t *attr, short flags);
int posix_spawn(
    pid_t *restrict pid, const char *restrict path,
    const posix_spawn_file_actions_t *file_actions, const posix_spawnattr_t *restrict attrp,
    char *const argv[restrict], char *const envp[restrict]);
int posix_spawnp(
    pid_t *restrict pid, const char *restrict file,
    const posix_spawn_file_actions_t *file_actions, const posix_spawnattr_t *restrict attrp,
    char *const argv[restrict], char *const envp[restrict]);

// <crt_externs.h> (Libc), <mach-o/dyld.h> (dyld)
char ***_NSGetEnviron(void);
int _NSGetExecutablePath(char *buf, uint32_t *bufsize);

// <dlfcn.h> (Libc)
#define RTLD_NOW 0x2
void *dlsym(void *handle, const char *symbol);
#define RTLD_LOCAL 0x4
void *dlopen(const char *path, int mode);
int dlclose(void *handle);
char *dlerror(void);

// <xlocale/_locale.h>, <locale.h> (Libc)
#define LC_COLLATE_MASK (1 << 0)
#define LC_CTYPE_MASK (1 << 1)
typedef struct _xlocale *locale_t;
locale_t newlocale(int mask, const char *locale, locale_t base);
locale_t uselocale(locale_t loc);
int freelocale(locale_t loc);

// <sys/_pthread/_pthread_types.h> (libpthread): opaque structures of Darwin's sizes (LP64)
struct _opaque_pthread_t { long __sig; char __opaque[8176]; };
struct _opaque_pthread_attr_t { long __sig; char __opaque[56]; };
struct _opaque_pthread_mutex_t { long __sig; char __opaque[56]; };
struct _opaque_pthread_mutexattr_t { long __sig; char __opaque[8]; };
struct _opaque_pthread_cond_t { long __sig; char __opaque[40]; };
struct _opaque_pthread_condattr_t { long __sig; char __opaque[8]; };
typedef struct _opaque_pthread_t *pthread_t;
typedef struct _opaque_pthread_attr_t pthread_attr_t;
typedef struct _opaque_pthread_mutex_t pthread_mutex_t;
typedef struct _opaque_pthread_mutexattr_t pthread_mutexattr_t;
typedef struct _opaque_pthread_cond_t pthread_cond_t;
typedef struct _opaque_pthread_condattr_t pthread_condattr_t;

// <pthread/pthread.h> (libpthread), the declarations Swift imports (with nullability)
int pthread_create(pthread_t _Nullable *_Nonnull thread, const pthread_attr_t *_Nullable attr,
                   void *_Nullable (*_Nonnull start)(void *_Nullable), void *_Nullable arg);
int pthread_join(pthread_t thread, void *_Nullable *_Nullable value);
int pthread_attr_init(pthread_attr_t *_Nonnull attr);
int pthread_attr_setstacksize(pthread_attr_t *_Nonnull attr, size_t stacksize);
int pthread_attr_destroy(pthread_attr_t *_Nonnull attr);
pthread_t _Nonnull pthread_self(void);
int pthread_mutex_init(pthread_mutex_t *_Nonnull mutex, const pthread_mutexattr_t *_Nullable attr);
int pthread_mutex_destroy(pthread_mutex_t *_Nonnull mutex);
int pthread_mutex_lock(pthread_mutex_t *_Nonnull mutex);
int pthread_mutex_unlock(pthread_mutex_t *_Nonnull mutex);
int pthread_cond_init(pthread_cond_t *_Nonnull cond, const pthread_condattr_t *_Nullable attr);
int pthread_cond_destroy(pthread_cond_t *_Nonnull cond);
int pthread_cond_wait(pthread_cond_t *_Nonnull cond, pthread_mutex_t *_Nonnull mutex);
int pthread_cond_broadcast(pthread_cond_t *_Nonnull cond);
// <sys/_pthread/_pthread_key_t.h>: an unsigned long (Glibc's is an unsigned int)
typedef unsigned long pthread_key_t;
int pthread_key_create(pthread_key_t *_Nonnull key, void (*_Nullable destructor)(void *_Nonnull));
int pthread_setspecific(pthread_key_t key, const void *_Nullable value);
void *_Nullable pthread_getspecific(pthread_key_t key);

#endif
