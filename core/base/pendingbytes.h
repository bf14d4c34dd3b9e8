// SPDX-License-Identifier: Apache-2.0
// What a non-blocking pipe or socket that hotkernel made holds right now: the witness socket a
// tracer writes to, the report pipe of hotkernel-supervise. Not for named files (BoundedFile).
#pragma once

#include <QByteArray>

namespace hotkernel {

// Appends the bytes the non-blocking descriptor holds now to `into`, reading until it would block,
// or until `into` holds at least `limit` bytes (0: no limit). Returns true once every writer has
// closed its end (end of file): nothing more can come.
bool readPendingBytes(int fd, QByteArray &into, qsizetype limit = 0);

} // namespace hotkernel
