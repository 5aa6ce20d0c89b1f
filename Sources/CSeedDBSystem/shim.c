#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "CSeedDBSystem.h"

long cseeddb_copy_file_range(int in_fd, int out_fd, size_t length) {
    return (long)copy_file_range(in_fd, NULL, out_fd, NULL, length, 0);
}

int cseeddb_ficlone(int dest_fd, int src_fd) {
    return ioctl(dest_fd, FICLONE, src_fd);
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
