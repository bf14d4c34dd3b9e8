// SPDX-License-Identifier: Apache-2.0
// What a session that others join says of itself (issue 23): which process serves it, its host,
// and the environment that decides what it measures. A CLI call joins only a session that would
// measure what it would measure alone: never silently with another interpreter, host or card.
// It sits in measure/ beside SessionPeers, whose GPU-sharing check names a session by it; the
// MCP server (mcp/) sends it, in its initialize reply and its hotkernel/workers answers.
#pragma once

#include "base/json.h"

#include <QString>

namespace hotkernel {

namespace SessionIdentity {

// Where the identity travels: the _meta of the session's initialize reply.
inline constexpr const char *MetaKey = "hotkernel/session";

// {"served_by": servedBy, "pid": this process, "host": hostDisplay (Session::hostDisplay()),
// "executable": the binary, "environment": {HOTKERNEL_PYTHON, CUDA_VISIBLE_DEVICES, PYTHONPATH}}.
Json of(const QString &hostDisplay, const QString &servedBy);
// Empty when a call from this process that would run on host ("local", or the URL it was given)
// may join the session that sent identity: the same binary, host and environment. Else why not,
// naming both values and what to do.
QString mismatch(const Json &identity, const QString &host);
// "hotkernel serve (pid 4242)": for messages.
QString describe(const Json &identity);
// What ends the session that sent identity, for messages: "end that session (kill 4242)",
// "close that window".
QString howToEnd(const Json &identity);

} // namespace SessionIdentity

} // namespace hotkernel
