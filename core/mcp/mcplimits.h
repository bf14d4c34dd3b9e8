// SPDX-License-Identifier: Apache-2.0
// How much output one MCP client may leave unread before it is dropped (issue 18): a client that
// stops reading must not make hotkernel queue without bound. One place for `hotkernel mcp` (its
// stdout) and the window (each attached agent's socket). Any thread.
#pragma once

#include <QtGlobal>

namespace hotkernel {

inline constexpr qint64 MaxUnreadOutputBytes = qint64(64) * 1024 * 1024;

// The exit status of `hotkernel mcp` when its client stopped reading.
inline constexpr int UnreadOutputExitCode = 3;

// MaxUnreadOutputBytes, or HOTKERNEL_MCP_OUTPUT_LIMIT (bytes) when that is set to a positive number,
// so that a test need not produce 64 MB.
inline qint64 unreadOutputLimit()
{
    bool ok = false;
    const qint64 fromEnvironment = qgetenv("HOTKERNEL_MCP_OUTPUT_LIMIT").toLongLong(&ok);
    return ok && fromEnvironment > 0 ? fromEnvironment : MaxUnreadOutputBytes;
}

} // namespace hotkernel
