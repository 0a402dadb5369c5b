/* renameat2 is a GNU extension: declared only with _GNU_SOURCE, before any include. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "COTLPShims.h"

int COTLPShims_rename_noreplace(const char *from, const char *to) {
    int result = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
    if (result == 0 || (errno != EINVAL && errno != ENOSYS)) return result;
    /* The file system cannot do RENAME_NOREPLACE: check, then rename (callers hold the output's lock, so
       only a process ignoring it could slip in between). */
    struct stat info;
    if (lstat(to, &info) == 0) {
        errno = EEXIST;
        return -1;
    }
    if (errno != ENOENT) return -1;
    return rename(from, to);
}
