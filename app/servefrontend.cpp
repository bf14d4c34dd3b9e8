// SPDX-License-Identifier: Apache-2.0
#include "servefrontend.h"
#include "tools/builtintools.h"

#include "mcp/sessionlistener.h"
#include "session/session.h"
#include "signalshutdown.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

namespace hotkernel {

namespace {

void say(const QString &text)
{
    std::fprintf(stderr, "hotkernel serve: %s\n", qPrintable(text));
}

// How often the idle clock is looked at: a served session exits at most this late.
constexpr int IdleCheckMs = 5000;

} // namespace

QString ServeFrontend::help()
{
    return QStringLiteral(
               "Usage: hotkernel serve [--idle-minutes M]\n\n"
               "Serves this directory's session headless, for CLI calls and agents to join through the\n"
               "directory's socket: their workers stay warm between calls and a spare worker waits for\n"
               "the next edit. A CLI call starts one on demand (unless --no-session or\n"
               "HOTKERNEL_NO_SESSION=1); a window open on the directory serves it instead.\n\n"
               "  --idle-minutes M  exit after M minutes with no client and no running job (default %1)\n")
        .arg(DefaultIdleMinutes);
}

int ServeFrontend::run(QCoreApplication &app, const QStringList &arguments, const QString &host)
{
    double idleMinutes = DefaultIdleMinutes;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(qPrintable(help()), stdout);
            return 0;
        }
        QString value;
        if (a == QLatin1String("--idle-minutes") && i + 1 < arguments.size())
            value = arguments.at(++i);
        else if (a.startsWith(QLatin1String("--idle-minutes=")))
            value = a.mid(15);
        else {
            std::fprintf(stderr, "hotkernel serve: unknown option '%s'.\n\n%s", qPrintable(a),
                         qPrintable(help()));
            return 2;
        }
        bool ok = false;
        idleMinutes = value.toDouble(&ok);
        if (!ok || idleMinutes < 0.01 || idleMinutes > 24 * 60) {
            std::fprintf(stderr,
                         "hotkernel serve: --idle-minutes takes minutes from 0.01 to 1440, not '%s'.\n",
                         qPrintable(value));
            return 2;
        }
    }

    SessionOptions options;
    options.host = host;
    options.spares = 2; // the first verify finds both workers warm, the next edit one (issue 23)
    Session session(builtinTools(), options);
    SessionListener listener(session, QStringLiteral("hotkernel serve"));
    SignalShutdown shutdown(app, [&session] { return &session; });
    shutdown.setAnnouncer([&listener](int signal) { listener.announceExit(signal); });

    QElapsedTimer idleSince;
    idleSince.start();
    const auto busy = [&] { return listener.clientCount() > 0 || !session.runningJobs().isEmpty(); };
    QTimer idleCheck;
    QObject::connect(&idleCheck, &QTimer::timeout, &app, [&] {
        if (busy()) {
            idleSince.restart();
            return;
        }
        if (idleSince.elapsed() >= qint64(idleMinutes * 60 * 1000)) {
            say(QStringLiteral("no client for %1 minutes; exiting").arg(idleMinutes));
            app.exit(0);
        }
    });
    QObject::connect(&listener, &SessionListener::listening, &app, [&](const QString &path) {
        say(QStringLiteral("serving %1 on %2 (exits after %3 minutes without a client)")
                .arg(QDir::toNativeSeparators(session.workDir().root()), path)
                .arg(idleMinutes));
        idleCheck.start(IdleCheckMs);
        session.warmSpares(); // the first verify finds a warm worker; nothing to await
    });
    QObject::connect(&listener, &SessionListener::listenFailed, &app, [&](const QString &reason) {
        say(QStringLiteral("cannot serve %1: %2")
                .arg(QDir::toNativeSeparators(session.workDir().root()), reason));
        app.exit(1);
    });
    QObject::connect(&listener, &SessionListener::clientAttached, &app,
                     [](const QString &name) { say(QStringLiteral("%1 joined").arg(name)); });
    QObject::connect(
        &listener, &SessionListener::clientDetached, &app, [&](const QString &name, int jobsEnded) {
            idleSince.restart();
            say(jobsEnded > 0
                    ? QStringLiteral("%1 left; its %2 running job(s) were ended").arg(name).arg(jobsEnded)
                    : QStringLiteral("%1 left").arg(name));
        });
    // From inside the event loop: the listener may fail at once, and exit() before exec() is lost.
    QTimer::singleShot(0, &listener, &SessionListener::start);
    return shutdown.exitCode(app.exec());
}

} // namespace hotkernel
