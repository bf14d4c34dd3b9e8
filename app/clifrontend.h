// SPDX-License-Identifier: Apache-2.0
// The CLI front-end: a verb's arguments become a tool call on the Session; progress goes to
// stderr, the result to stdout (a human table, or the structured content with --json).
#pragma once

#include "session/toolresult.h"

#include <QCoroTask>
#include <QStringList>

#include <optional>

namespace hotkernel {

class Session;
struct ToolSpec;

class CliFrontend
{
public:
    CliFrontend(Session &session, bool json, bool quiet);

    // Exit code: 0 done, 1 the tool failed, 2 bad command line, 130 cancelled (Ctrl-C).
    QCoro::Task<int> run(const ToolSpec &spec, QStringList arguments);
    static QString help(const Session &session);

private:
    // Runs one tool call and waits for it; progress on stderr unless quiet. Null: the session went.
    QCoro::Task<std::optional<ToolResult>> call(const ToolSpec &spec, Json arguments);

    Session &m_session;
    bool m_json;
    bool m_quiet;
};

} // namespace hotkernel
