// SPDX-License-Identifier: Apache-2.0
// The CLI front-end: a verb's arguments become a tool call, in the directory's session when one
// serves it (the window, or `hotkernel serve`, started on demand: issue 23) or else on this
// process's Session; progress goes to stderr, the result to stdout (a human table, or the
// structured content with --json).
#pragma once

#include "base/toolresult.h"

#include <QCoroTask>
#include <QStringList>

#include <memory>
#include <optional>

namespace hotkernel {

class Session;
class SessionClient;
struct ToolSpec;

class CliFrontend
{
public:
    struct Options
    {
        bool json = false;
        bool quiet = false;
        // Join the directory's session (false: --no-session, HOTKERNEL_NO_SESSION=1).
        bool joinSession = true;
        QString hostArgument; // --host, passed on to a `hotkernel serve` this call starts
    };
    // session: this process's own, for the tools' specs and to run alone.
    CliFrontend(Session &session, Options options);
    ~CliFrontend();

    // Exit code: 0 done, 1 the tool failed, 2 bad command line, 130 cancelled (Ctrl-C).
    QCoro::Task<int> run(const ToolSpec &spec, QStringList arguments);
    static QString help(const Session &session);

private:
    // Runs one tool call and waits for it; progress on stderr unless quiet. Null: the session went.
    QCoro::Task<std::optional<ToolResult>> call(const ToolSpec &spec, Json arguments);

    // Joins the directory's session when allowed; says on stderr where the call runs.
    QCoro::Task<void> joinSession(const ToolSpec &spec);

    Session &m_session;
    Options m_options;
    std::unique_ptr<SessionClient> m_joined; // null: the call runs in this process
};

} // namespace hotkernel
