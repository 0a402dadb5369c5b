/* renameat2 is a GNU extension: declared only with _GNU_SOURCE, before any include. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "COTLPShims.h"

int COTLPShims_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__)
    int result = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#elif defined(__APPLE__)
    int result = renamex_np(from, to, RENAME_EXCL);
#else
    int result = -1;
    errno = ENOSYS;
#endif
    if (result == 0 || (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)) return result;
    /* The file system cannot rename without replacing: check, then rename (callers hold the output's lock,
       so only a process ignoring it could slip in between). */
    struct stat info;
    if (lstat(to, &info) == 0) {
        errno = EEXIST;
        return -1;
    }
    if (errno != ENOENT) return -1;
    return rename(from, to);
}
