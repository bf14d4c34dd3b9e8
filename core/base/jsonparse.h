// SPDX-License-Identifier: Apache-2.0
// The one parse of JSON that comes from outside (MCP messages, files, tool output), with the
// limits it keeps (issue 18). parseJson in base/json.h is this parse with the default limits.
// Pure; any thread.
#pragma once

#include "base/json.h"

#include <QByteArrayView>

namespace hotkernel {

// nlohmann copies, compares and dumps values recursively, so a value nested 100,000 deep (200 KB
// of "[") overflows the stack long after it parsed; no document hotkernel reads or writes comes
// near these limits.
inline constexpr int MaxJsonDepth = 256;
inline constexpr qsizetype MaxJsonBytes = qsizetype(64) * 1024 * 1024;

struct JsonParse
{
    enum class Status { Ok, Malformed, TooDeep, TooLarge };
    Status status = Status::Malformed;
    // Ok: the document. TooDeep: the document with each value nested past the limit replaced by
    // null, enough to read a JSON-RPC id from; never act on it. Otherwise null.
    Json value;
    QString error; // what was wrong, for a message; empty when Ok
    bool ok() const { return status == Status::Ok; }
};

// Refuses more than maxBytes before reading any of it, and builds no value deeper than maxDepth
// (nlohmann's parser keeps its own nesting on the heap; the rest of the text is still checked).
// Objects with many keys stay linear to read.
JsonParse parseJsonLimited(QByteArrayView text, int maxDepth = MaxJsonDepth,
                           qsizetype maxBytes = MaxJsonBytes);

} // namespace hotkernel
