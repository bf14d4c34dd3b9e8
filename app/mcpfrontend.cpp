// SPDX-License-Identifier: Apache-2.0
#include "mcpfrontend.h"
#include "tools/builtintools.h"

#include "clientconfig.h"

#include "base/logging.h"
#include "base/workdir.h"
#include "mcp/localsockettransport.h"
#include "mcp/mcplimits.h"
#include "mcp/mcprelay.h"
#include "mcp/mcpserver.h"
#include "mcp/sessionlistener.h"
#include "mcp/stdiotransport.h"
#include "mcp/workbenchconnector.h"
#include "session/session.h"
#include "signalshutdown.h"

#include <QCoreApplication>
#include <QDir>
#include <QLocalSocket>
#include <QProcess>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace hotkernel {

namespace {

// How long a workbench this process started may take to show its window and listen.
constexpr int WorkbenchStartMs = 15000;

bool hasDisplay()
{
    const QString platform = qEnvironmentVariable("QT_QPA_PLATFORM");
    if (platform.startsWith(QLatin1String("offscreen")) || platform.startsWith(QLatin1String("minimal")))
        return false;
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

void say(const QString &text)
{
    std::fprintf(stderr, "hotkernel mcp: %s\n", qPrintable(text));
}

// Everything `hotkernel mcp` may end up running, owned in one place for the event loop's life.
struct McpProcess
{
    QCoreApplication &app;
    QString dir;
    std::unique_ptr<WorkbenchConnector> connector;
    // --window (or HOTKERNEL_MCP_WINDOW=1): with no window open here, start one. Off by default:
    // an agent host starts `hotkernel mcp` in every project, and a window per project outlives it.
    bool openWindow = false;
    bool startedWorkbench = false;
    // Attached: the agent's stdio relayed to the workbench.
    std::unique_ptr<StdioTransport> stdio;
    std::unique_ptr<LocalSocketTransport> socket;
    std::unique_ptr<McpRelay> relay;
    // Headless: the session in this process.
    std::unique_ptr<Session> session;
    std::unique_ptr<McpServer> server;
    // Set when the agent stopped reading: the exit status, whatever the shutdown would say.
    int overflowExitCode = 0;

    std::unique_ptr<StdioTransport> makeStdio()
    {
        auto transport = std::make_unique<StdioTransport>();
        QObject::connect(transport.get(), &StdioTransport::outputOverflowed, &app,
                         [this](qint64 unread, qint64 limit) {
                             say(QStringLiteral("the agent left %1 bytes of output unread (the limit is %2, "
                                                "HOTKERNEL_MCP_OUTPUT_LIMIT); it stopped reading stdout, so "
                                                "this server ends its jobs and exits with status %3")
                                     .arg(unread)
                                     .arg(limit)
                                     .arg(UnreadOutputExitCode));
                             overflowExitCode = UnreadOutputExitCode;
                         });
        return transport;
    }

    void exitWith(int code) { app.exit(overflowExitCode != 0 ? overflowExitCode : code); }

    void attach(QLocalSocket *connected)
    {
        socket = std::make_unique<LocalSocketTransport>(connected);
        stdio = makeStdio();
        relay = std::make_unique<McpRelay>(stdio.get(), socket.get());
        QObject::connect(relay.get(), &McpRelay::finished, &app, [this](int code, const QString &reason) {
            if (!reason.isEmpty())
                say(reason);
            exitWith(code);
        });
        say(QStringLiteral("attached to the hotkernel workbench for %1").arg(QDir::toNativeSeparators(dir)));
    }

    void runHeadless()
    {
        SessionOptions options;
        options.spares = 2; // the first verify finds both workers warm, the next edit one (issue 23)
        session = std::make_unique<Session>(builtinTools(), options);
        session->warmSpares(); // in the background; the agent's first verify finds a warm worker
        stdio = makeStdio();
        server = std::make_unique<McpServer>(*session, stdio.get());
        QObject::connect(server.get(), &McpServer::finished, &app, [this] { exitWith(0); });
    }

    bool startWorkbench(qint64 *pid)
    {
        QProcess workbench;
        workbench.setProgram(QCoreApplication::applicationFilePath());
        workbench.setWorkingDirectory(dir);
        // Never our stdin or stdout (the agent's protocol pipe) nor our stderr: the window
        // outlives this process and must not hold the agent's pipes open.
        workbench.setStandardInputFile(QProcess::nullDevice());
        workbench.setStandardOutputFile(QProcess::nullDevice());
        workbench.setStandardErrorFile(SessionListener::socketName(dir) + QStringLiteral(".log"));
        return workbench.startDetached(pid);
    }

    void firstAttemptFailed(const QString &reason)
    {
        qCInfo(lcMcp).noquote() << reason;
        if (!openWindow || !hasDisplay()) {
            runHeadless();
            return;
        }
        qint64 pid = 0;
        if (!startWorkbench(&pid)) {
            say(QStringLiteral("could not start the workbench window; serving the session headless"));
            runHeadless();
            return;
        }
        startedWorkbench = true;
        say(QStringLiteral("started the hotkernel workbench (pid %1) for %2")
                .arg(pid)
                .arg(QDir::toNativeSeparators(dir)));
        connector->start(WorkbenchStartMs, pid);
    }

    void start()
    {
        dir = WorkDir().root();
        QString error;
        const QString socket = SessionListener::socketName(dir, &error);
        if (socket.isEmpty()) {
            say(QStringLiteral("cannot look for a workbench (%1); serving the session headless").arg(error));
            runHeadless();
            return;
        }
        connector = std::make_unique<WorkbenchConnector>(socket);
        QObject::connect(connector.get(), &WorkbenchConnector::connected, &app,
                         [this](QLocalSocket *s) { attach(s); });
        QObject::connect(connector.get(), &WorkbenchConnector::failed, &app, [this](const QString &reason) {
            if (!startedWorkbench) {
                firstAttemptFailed(reason);
                return;
            }
            say(QStringLiteral("%1; serving the session headless instead (log: %2.log)")
                    .arg(reason, SessionListener::socketName(dir)));
            runHeadless();
        });
        connector->start();
    }
};

} // namespace

QString McpFrontend::help()
{
    return QStringLiteral(
        "Usage: hotkernel mcp [--window | --headless]\n"
        "       hotkernel mcp --print-config claude|codex|cursor\n\n"
        "Serves MCP over stdio for a coding agent. When a hotkernel window is open for the current\n"
        "directory, attaches to it: the agent drives the session the window shows. Otherwise serves\n"
        "the session in this process, without a window.\n\n"
        "  --window        with no window open here, start one when there is a display (DISPLAY or\n"
        "                  WAYLAND_DISPLAY) and attach to it; also HOTKERNEL_MCP_WINDOW=1\n"
        "  --headless      always serve the session in this process; never attach nor start a window\n"
        "  --print-config  print a block for that client's MCP configuration (this binary, the tool\n"
        "                  timeout verify needs, HOTKERNEL_PYTHON when set) and exit\n");
}

int McpFrontend::run(QCoreApplication &app, const QStringList &arguments)
{
    bool headless = false;
    bool window = qEnvironmentVariable("HOTKERNEL_MCP_WINDOW") == QLatin1String("1");
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        if (a == QLatin1String("--print-config")) {
            const QString client = i + 1 < arguments.size() ? arguments[i + 1] : QString();
            const auto text = ClientConfig::text(client, QCoreApplication::applicationFilePath(),
                                                 qEnvironmentVariable("HOTKERNEL_PYTHON"));
            if (!text) {
                std::fprintf(stderr, "hotkernel mcp: --print-config takes one of %s, not '%s'.\n",
                             qPrintable(ClientConfig::clients().join(QStringLiteral(", "))),
                             qPrintable(client));
                return 2;
            }
            std::fputs(text->toUtf8().constData(), stdout);
            return 0;
        }
        if (a == QLatin1String("--headless")) {
            headless = true;
        } else if (a == QLatin1String("--window")) {
            window = true;
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(qPrintable(help()), stdout);
            return 0;
        } else {
            std::fprintf(stderr, "hotkernel mcp: unknown option '%s'.\n\n%s", qPrintable(a),
                         qPrintable(help()));
            return 2;
        }
    }
    McpProcess process{app, {}, {}, window && !headless, false, {}, {}, {}, {}, {}, 0};
    // Headless, a signal ends the session's jobs like a cancel; attached, closing the socket on
    // exit makes the workbench end this agent's jobs (issue 18).
    SignalShutdown shutdown(app, [&process] { return process.session.get(); });
    if (headless)
        process.runHeadless();
    else
        QTimer::singleShot(0, &app, [&process] { process.start(); });
    const int code = app.exec();
    return shutdown.exitCode(code);
}

} // namespace hotkernel
