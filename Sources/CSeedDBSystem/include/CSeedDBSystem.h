// Linux system calls that Glibc's Swift overlay does not expose (they need _GNU_SOURCE),
// and sqlite3_config, which C-variadic Swift cannot call.
// Thin wrappers only; all policy lives in Swift (Sources/SeedDB/Internals/Syscalls.swift).
#ifndef CSEEDDB_SYSTEM_H
#define CSEEDDB_SYSTEM_H

#include <stddef.h>

#include "CSeedDBZstd.h"

/// copy_file_range(2) from the descriptors' current offsets; returns bytes copied or -1.
long cseeddb_copy_file_range(int in_fd, int out_fd, size_t length);

/// ioctl(FICLONE): share the source's extents on a reflink file system; 0 or -1.
int cseeddb_ficlone(int dest_fd, int src_fd);

/// ioctl(FS_IOC_FIEMAP): 1 when an extent of the file shares its blocks with another file
/// (FIEMAP_EXTENT_SHARED: a reflink), 0 when none does, -1 with errno set on error.
int cseeddb_shares_extents(int fd);

/// getdents64(2): fills `buffer` with the directory's next entries (struct linux_dirent64:
/// d_ino at 0, d_off at 8, d_reclen at 16, d_type at 18, the name from 19); returns the bytes
/// filled, 0 at the end, or -1 with errno set.
long cseeddb_getdents64(int fd, void *buffer, size_t length);

/// renameat2(RENAME_NOREPLACE): renames, failing with EEXIST when the destination exists;
/// 0 or -1.
int cseeddb_rename_noreplace(const char *source, const char *destination);

/// fcntl(F_OFD_SETLK) on one byte; `exclusive` 1 for a write lock, 0 for a read lock,
/// -1 to unlock. Returns 0 or -1 with errno set.
int cseeddb_ofd_setlk(int fd, int exclusive, long long byte);

/// fcntl(F_OFD_GETLK) on one byte: 1 when a lock (`exclusive` as above) would conflict,
/// 0 when not, -1 on error.
int cseeddb_ofd_conflicts(int fd, int exclusive, long long byte);

/// sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0), which C-variadic Swift cannot call: SQLite
/// stops counting its allocations (each count takes one global mutex). SQLITE_OK (0), or
/// SQLITE_MISUSE (21) once SQLite is initialised.
int cseeddb_sqlite_memory_statistics_off(void);

/// The number of the process's arguments, the program's name included, as the C runtime
/// passed them to `main`, or 0 before they were kept (see `cseeddb_arguments`).
int cseeddb_argument_count(void);

/// The process's arguments as the C runtime passed them to `main`, kept by an ELF
/// constructor (glibc gives every `init_array` function `argc`, `argv` and `envp`). Swift's
/// `CommandLine.arguments` reads them from /proc on Linux and finds none where /proc is not
/// mounted (a chroot, `dpkg --root`).
char *const *cseeddb_arguments(void);

#endif
