// SPDX-License-Identifier: Apache-2.0
#include "base/pendingbytes.h"

#include <cerrno>
#include <unistd.h>

namespace hotkernel {

bool readPendingBytes(int fd, QByteArray &into, qsizetype limit)
{
    char buffer[65536];
    while (limit == 0 || into.size() < limit) {
        // not a named file: a pipe or socket this process made, read without blocking
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            into.append(buffer, n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n == 0; // end of file; otherwise EAGAIN (nothing more yet) or an error
    }
    return false;
}

} // namespace hotkernel
