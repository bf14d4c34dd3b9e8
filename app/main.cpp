// SPDX-License-Identifier: Apache-2.0
// Composes the one Session with its front-ends: the CLI verbs, the MCP server, the window.
#include "apptheme.h"
#include "clifrontend.h"
#include "demosession.h"
#include "inspect/calibraterunner.h"
#include "inspect/host.h"
#include "mainwindow.h"
#include "mcp/sessionlistener.h"
#include "mcpfrontend.h"
#include "process/nativehelpers.h"
#include "record/leaderboardcommand.h"
#include "remote/hosturl.h"
#include "servefrontend.h"
#include "session/session.h"
#include "session/sessionstore.h"
#include "signalshutdown.h"
#include "tools/builtintools.h"
#include "windowoptions.h"

#include <QApplication>
#include <QCoroTask>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

#include <cstdio>
#include <memory>

using namespace hotkernel;

namespace {

struct GlobalOptions
{
    bool json = false;
    bool quiet = false;
    QString host; // --host URL (issue 24); empty: HOTKERNEL_HOST, else local
    bool hostGiven = false;
    bool noSession = false; // --no-session: a CLI verb runs in this process alone (issue 23)
    QStringList rest;
};

GlobalOptions takeGlobalOptions(const QStringList &arguments)
{
    GlobalOptions options;
    const QStringList words = arguments.mid(1);
    bool afterDashDash = false;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString &a = words.at(i);
        afterDashDash = afterDashDash || a == QLatin1String("--"); // a profiled program's words follow
        if (!afterDashDash && a == QLatin1String("--host") && i + 1 < words.size()) {
            options.host = words.at(++i);
            options.hostGiven = true;
        } else if (!afterDashDash && a.startsWith(QLatin1String("--host="))) {
            options.host = a.mid(7);
            options.hostGiven = true;
        } else if (a == QLatin1String("--json"))
            options.json = true;
        else if (a == QLatin1String("--quiet"))
            options.quiet = true;
        else if (!afterDashDash && a == QLatin1String("--no-session"))
            options.noSession = true;
        else
            options.rest.append(a);
    }
    return options;
}

int runCoroutine(QCoreApplication &app, std::function<QCoro::Task<int>()> body)
{
    QTimer::singleShot(0, &app, [&app, body = std::move(body)] {
        QCoro::connect(body(), &app, [&app](int code) { app.exit(code); });
    });
    return app.exec();
}

} // namespace

int main(int argc, char **argv)
{
    QStringList raw;
    for (int i = 0; i < argc; ++i)
        raw.append(QString::fromLocal8Bit(argv[i]));
    const GlobalOptions options = takeGlobalOptions(raw);
    const QString verb = options.rest.value(0);

    if (verb == QLatin1String("--version")) {
        std::printf("hotkernel %s\n", HOTKERNEL_VERSION);
        return 0;
    }

    const bool wantsWindow =
        verb.isEmpty() || WindowOptions::isWindowArgument(verb) || WindowOptions::isQtArgument(verb);
    if (!wantsWindow) {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("hotkernel"));
        // Before any Session: attached, the session is the workbench's, not this process's.
        if (verb == QLatin1String("mcp")) {
            if (options.hostGiven) // the session's default, also for a window that mcp starts
                qputenv("HOTKERNEL_HOST", options.host.toUtf8());
            return McpFrontend::run(app, options.rest.mid(1));
        }
        if (options.hostGiven) {
            if (QString error; !HostUrl::parse(options.host, &error)) {
                std::fprintf(stderr, "hotkernel: %s\n", qPrintable(error));
                return 2;
            }
        }
        if (verb == QLatin1String("serve"))
            return ServeFrontend::run(app, options.rest.mid(1), options.host);
        SessionOptions cliOptions;
        cliOptions.host = options.host;
        Session session(builtinTools(), cliOptions);
        // A signal ends the session's jobs like a cancel, then exits 128 + the signal (issue 18).
        SignalShutdown shutdown(app, [&session] { return &session; });
        if (verb == QLatin1String("help") || verb == QLatin1String("--help") || verb == QLatin1String("-h")) {
            std::fputs(CliFrontend::help(session).toUtf8().constData(), stdout);
            std::fputs((QStringLiteral("\n") + WindowOptions::help()).toUtf8().constData(), stdout);
            return 0;
        }
        if (verb == QLatin1String("leaderboard")) // CLI-only, not an MCP tool
            return LeaderboardCommand::run(session.workDir().root(), options.rest.mid(1));
        if (verb == QLatin1String("helpers")) { // where the installed or built helpers are
            std::fputs(NativeHelpers::report().toUtf8().constData(), stdout);
            return 0;
        }
        if (verb == QLatin1String("calibrate")) { // a native helper, not one of the MCP tools
            // On the session's host; a remote one builds the helper from the sources hotkernel carries.
            Host *host = &session.host();
            CalibrateRunner::Measure measure = [host](QStringList helperArguments) {
                return CalibrateRunner::run(*host, helperArguments);
            };
            const QString where = host->name();
            return shutdown.exitCode(runCoroutine(app, [&] {
                return CalibrateRunner::runCli(options.rest.mid(1), session.workDir().root(), options.json,
                                               measure, where);
            }));
        }
        const ToolSpec *spec = session.tools().findByCliVerb(verb);
        if (!spec) {
            std::fprintf(stderr, "hotkernel: unknown verb '%s'.\n\n%s", qPrintable(verb),
                         CliFrontend::help(session).toUtf8().constData());
            return 2;
        }
        CliFrontend::Options cliFrontendOptions;
        cliFrontendOptions.json = options.json;
        cliFrontendOptions.quiet = options.quiet;
        cliFrontendOptions.joinSession =
            !options.noSession && qEnvironmentVariable("HOTKERNEL_NO_SESSION") != QLatin1String("1");
        cliFrontendOptions.hostArgument = options.hostGiven ? options.host : QString();
        CliFrontend cli(session, cliFrontendOptions);
        return shutdown.exitCode(runCoroutine(app, [&] { return cli.run(*spec, options.rest.mid(1)); }));
    }

    if (const QString problem =
            WindowOptions::displayProblem(QProcessEnvironment::systemEnvironment().toStringList());
        !problem.isEmpty()) {
        std::fprintf(stderr, "%s\n", qPrintable(problem));
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("hotkernel"));
    const WindowOptions windowOptions = WindowOptions::parse(options.rest);
    if (!windowOptions.error.isEmpty()) {
        std::fprintf(stderr, "hotkernel: %s\n", qPrintable(windowOptions.error));
        return 2;
    }
    const QStringList shotThemes = windowOptions.screenshotThemes();
    if (!windowOptions.theme.isEmpty())
        AppTheme::apply(windowOptions.theme);
    else if (!windowOptions.screenshotDir.isEmpty())
        AppTheme::apply(shotThemes.first());
    SessionOptions sessionOptions;
    sessionOptions.host = options.host; // the window's workers run there too (docs/remote.md)
    sessionOptions.spares = 2;          // both of the first verify's workers are warm (issue 23)
    if (windowOptions.demo) {
        QString error;
        sessionOptions.workDir = DemoSession::extract(&error);
        if (sessionOptions.workDir.isEmpty()) {
            std::fprintf(stderr, "hotkernel: %s\n", qPrintable(error));
            return 1;
        }
    }
    Session session(builtinTools(), sessionOptions);
    SessionStore store(session);
    if (QString error; !store.load(&error))
        std::fprintf(stderr, "hotkernel: %s\n", qPrintable(error));
    if (windowOptions.demo) {
        // The demo shows what a live session would after these calls: Latest bench, feed rows.
        QString error;
        store.addRecordedRuns(DemoSession::recordedRuns(sessionOptions.workDir, session.tools(), &error));
        if (!error.isEmpty())
            std::fprintf(stderr, "hotkernel: %s\n", qPrintable(error));
    }
    MainWindow window(&session, &store);
    // Agents that run `hotkernel mcp` in this directory drive this session (issue 6). A window
    // that cannot listen still opens; its status bar says why.
    SessionListener listener(session);
    QObject::connect(&listener, &SessionListener::listening, &window,
                     [&window](const QString &path) { window.setAgentAccess(true, path); });
    QObject::connect(&listener, &SessionListener::listenFailed, &window, [&window](const QString &reason) {
        std::fprintf(stderr, "hotkernel: agents cannot attach: %s\n", qPrintable(reason));
        window.setAgentAccess(false, reason);
    });
    // A session belongs to its directory: another directory opens in another window (process).
    QObject::connect(&window, &MainWindow::openDirectoryRequested, &app, [](const QString &dir) {
        QProcess::startDetached(QCoreApplication::applicationFilePath(), {}, dir);
    });
    QObject::connect(&listener, &SessionListener::clientAttached, &window, &MainWindow::agentAttached);
    QObject::connect(&listener, &SessionListener::clientDetached, &window, &MainWindow::agentDetached);
    listener.start();
    // A signal tells attached agents why their calls end, then ends the jobs like a cancel.
    SignalShutdown shutdown(app, [&session] { return &session; });
    shutdown.setAnnouncer([&listener](int signal) { listener.announceExit(signal); });
    window.show();
    if (!windowOptions.demo && windowOptions.screenshotDir.isEmpty())
        session.warmSpares(); // the first verify finds a warm worker (issue 23); nothing to await
    if (!windowOptions.screenshotDir.isEmpty()) {
        QObject::connect(&window, &MainWindow::workspaceLoaded, &app, [&] {
            QTimer::singleShot(300, &app, [&] {
                const QStringList files =
                    window.writeScreenshots(windowOptions.screenshotDir, shotThemes.first());
                std::printf("%s\n", qPrintable(files.join(QLatin1Char('\n'))));
                std::fflush(stdout);
                if (files.isEmpty() || shotThemes.size() == 1) {
                    app.exit(files.isEmpty() ? 1 : 0);
                    return;
                }
                // The other theme from a fresh process: a palette switched at run time re-polishes
                // the widgets (the report boxes grow, the roofline drops its selection ring), and
                // the pictures must show the window as that theme opens it.
                auto *next = new QProcess(&app);
                next->setProcessChannelMode(QProcess::ForwardedChannels);
                QObject::connect(next, &QProcess::finished, &app,
                                 [&app](int code, QProcess::ExitStatus status) {
                                     app.exit(status == QProcess::NormalExit ? code : 1);
                                 });
                QObject::connect(
                    next, &QProcess::errorOccurred, &app, [&app, next](QProcess::ProcessError e) {
                        if (e != QProcess::FailedToStart)
                            return;
                        std::fprintf(stderr,
                                     "hotkernel: cannot start %s to draw the other theme (%s); run it again "
                                     "with --theme dark for those pictures\n",
                                     qPrintable(next->program()), qPrintable(next->errorString()));
                        app.exit(1);
                    });
                QStringList arguments;
                if (windowOptions.demo)
                    arguments << QStringLiteral("--demo");
                arguments << QStringLiteral("--theme") << shotThemes.at(1) << QStringLiteral("--screenshot")
                          << windowOptions.screenshotDir;
                window.hide();
                next->start(QCoreApplication::applicationFilePath(), arguments);
            });
        });
    }
    return shutdown.exitCode(app.exec());
}
