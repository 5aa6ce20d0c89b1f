#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sqlite3.h>
#include "CSeedDBSystem.h"

long cseeddb_copy_file_range(int in_fd, int out_fd, size_t length) {
    return (long)copy_file_range(in_fd, NULL, out_fd, NULL, length, 0);
}

int cseeddb_ficlone(int dest_fd, int src_fd) {
    return ioctl(dest_fd, FICLONE, src_fd);
}

int cseeddb_shares_extents(int fd) {
    enum { batch = 64 };
    size_t size = sizeof(struct fiemap) + batch * sizeof(struct fiemap_extent);
    struct fiemap *map = malloc(size);
    if (map == NULL) return -1;
    unsigned long long start = 0;
    int shared = 0;
    for (;;) {
        memset(map, 0, size);
        map->fm_start = start;
        map->fm_length = FIEMAP_MAX_OFFSET - start;
        map->fm_extent_count = batch;
        if (ioctl(fd, FS_IOC_FIEMAP, map) != 0) { shared = -1; break; }
        if (map->fm_mapped_extents == 0) break;
        int last = 0;
        for (unsigned int index = 0; index < map->fm_mapped_extents; index++) {
            struct fiemap_extent *extent = &map->fm_extents[index];
            if (extent->fe_flags & FIEMAP_EXTENT_SHARED) shared = 1;
            if (extent->fe_flags & FIEMAP_EXTENT_LAST) last = 1;
            start = extent->fe_logical + extent->fe_length;
        }
        if (shared || last) break;
    }
    free(map);
    return shared;
}

long cseeddb_getdents64(int fd, void *buffer, size_t length) {
    return (long)getdents64(fd, buffer, length);
}

int cseeddb_rename_noreplace(const char *source, const char *destination) {
    return renameat2(AT_FDCWD, source, AT_FDCWD, destination, RENAME_NOREPLACE);
}

static struct flock one_byte(int exclusive, long long byte) {
    struct flock lock = { 0 };
    lock.l_type = exclusive > 0 ? F_WRLCK : (exclusive == 0 ? F_RDLCK : F_UNLCK);
    lock.l_whence = SEEK_SET;
    lock.l_start = (off_t)byte;
    lock.l_len = 1;
    return lock;
}

int cseeddb_ofd_setlk(int fd, int exclusive, long long byte) {
    struct flock lock = one_byte(exclusive, byte);
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int cseeddb_ofd_conflicts(int fd, int exclusive, long long byte) {
    struct flock lock = one_byte(exclusive, byte);
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}

int cseeddb_sqlite_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int kept_argument_count;
static char *const *kept_arguments;

#if defined(__GLIBC__)
// glibc passes argc, argv and envp to every init_array function (musl passes nothing:
// there, nothing is kept, and Swift's CommandLine is used).
__attribute__((constructor))
static void keep_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    kept_argument_count = argc;
    kept_arguments = argv;
}
#endif

int cseeddb_argument_count(void) {
    return kept_argument_count;
}

char *const *cseeddb_arguments(void) {
    return kept_arguments;
}
