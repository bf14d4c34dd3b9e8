// SPDX-License-Identifier: Apache-2.0
// What the end-to-end tests of remote hosts (tst_remotessh, tst_remoteslurm) share: running the
// hotkernel binary in a project, a tool call through an in-process Session, an agent's loop over
// MCP, and the search of /proc for processes left behind.
#pragma once

#include "measure/measuretesthelpers.h"
#include "session/session.h"
#include "testlimits.h"

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QTest>

#include <unistd.h>

namespace hotkernel::test {

inline QByteArray readFile(const QString &file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every process but this one whose command line mentions marker (a remote working directory's
// path marks the remote side's processes and the local ssh or srun that carries them).
inline QStringList processesWith(const QString &marker)
{
    QStringList found;
    const QByteArray needle = marker.toUtf8();
    const QString self = QString::number(::getpid());
    for (QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot); it.hasNext();) {
        const QString pid = QFileInfo(it.next()).fileName();
        bool number = false;
        pid.toLongLong(&number);
        if (!number || pid == self)
            continue;
        QByteArray cmdline = readFile(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (cmdline.contains(needle))
            found << pid + QLatin1Char(' ') + QString::fromUtf8(cmdline.replace('\0', ' ')).left(160);
    }
    return found;
}

// Runs the hotkernel binary in directory; its exit code, or -1 when it did not end in time.
inline int runHotkernel(const QString &directory, const QProcessEnvironment &environment,
                        const QStringList &arguments, QByteArray *out, QByteArray *err)
{
    QProcess p;
    p.setWorkingDirectory(directory);
    p.setProcessEnvironment(environment);
    p.start(QStringLiteral(HOTKERNEL_BINARY), arguments);
    if (!p.waitForFinished(kEventLimitMs)) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    *out = p.readAllStandardOutput();
    *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// The folder of the cuobjdump wheel in the test venv (packaging/setup-deps.sh installs it), for a
// host URL's ?tools=: the host's own interpreter does not have it. Empty when there is none.
inline QString venvCuobjdumpDir(const QString &testPython)
{
    const QString lib = QDir::cleanPath(QFileInfo(testPython).absolutePath() + QStringLiteral("/../lib"));
    for (QDirIterator it(lib, {QStringLiteral("cuobjdump")}, QDir::Files, QDirIterator::Subdirectories);
         it.hasNext();)
        return QFileInfo(it.next()).absolutePath();
    return {};
}

// A real sm_90 cubin (tests/data/inspect) copied into project/kernels/; its path relative to
// project, empty when the copy failed.
inline QString placeCubin(const QString &project)
{
    const QString cubin = QStringLiteral("kernels/templated.sm_90.cubin");
    if (!QDir(project).mkpath(QStringLiteral("kernels")) ||
        !QFile::copy(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/templated.sm_90.cubin"),
                     project + QLatin1Char('/') + cubin))
        return {};
    return cubin;
}

// One tool call in an in-process session, waited for; an error result when it did not finish.
inline ToolResult callTool(Session &session, const QString &tool, const Json &arguments)
{
    auto r = capture(session.call(tool, arguments, QStringLiteral("test")));
    (void)QTest::qWaitFor([&] { return r->done; }, kEventLimitMs);
    return r->value ? *r->value : ToolResult::error(QStringLiteral("did not finish: ") + r->error);
}

// Checks what `verify --json --record` of the CPU gelu target (n 3) on any remote host shows: a
// verdict that is neither invalid nor incorrect, every run judged outside the candidate's process,
// the host url in the result, and (issue 41: workers on a remote host are not confined yet) the
// candidate's confinement "none: ..." and the record refused with that reason, no log written.
// *result gets the verify result. A void function, since QVERIFY returns: callers go on only
// while !QTest::currentTestFailed().
inline void checkUnconfinedVerifyNotRecorded(const QByteArray &out, const QByteArray &err,
                                             const QString &project, const QString &url, QJsonObject *result)
{
    const QJsonObject r = QJsonDocument::fromJson(out).object();
    const QString verdict = r[QStringLiteral("verdict")].toString();
    QVERIFY2(verdict == QLatin1String("faster") || verdict == QLatin1String("slower") ||
                 verdict == QLatin1String("inconclusive"),
             out.constData());
    QVERIFY2(r[QStringLiteral("outside_judge")].toObject()[QStringLiteral("runs_judged")].toInt() >= 3,
             out.constData());
    QVERIFY2(r[QStringLiteral("confinement")].toObject()[QStringLiteral("candidate")].toString().startsWith(
                 QLatin1String("none: workers on a remote host are not confined yet")),
             out.constData());
    QVERIFY2(err.contains("ran unconfined"), err.constData());
    QVERIFY2(!QDir(project).exists(QStringLiteral("results/gelu")), out.constData());
    const QJsonObject host = r[QStringLiteral("host")].toObject();
    QCOMPARE(host[QStringLiteral("url")].toString(), url);
    QVERIFY(!host[QStringLiteral("hostname")].toString().isEmpty());
    *result = r;
}

// Runs tests/remote/agent_loop.py in project: the official MCP Python SDK (in testPython, the test
// venv) launches `hotkernel mcp` with HOTKERNEL_HOST=url in environment and calls new_target, bench,
// verify and record for a CPU gelu target named target. Checks that each call ran on url's host,
// that the server's progress named the host, and that record refused the unconfined verify. A void
// function, since QVERIFY returns.
inline void checkAgentLoop(const QString &project, QProcessEnvironment environment, const QString &url,
                           const QString &testPython, const QString &target)
{
    environment.insert(QStringLiteral("HOTKERNEL_HOST"), url);
    environment.insert(QStringLiteral("HOTKERNEL_BINARY"), QStringLiteral(HOTKERNEL_BINARY));
    QProcess agent;
    agent.setWorkingDirectory(project);
    agent.setProcessEnvironment(environment);
    agent.start(testPython,
                {QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/remote/agent_loop.py"), project, target});
    QVERIFY2(agent.waitForFinished(kEventLimitMs), "the agent did not finish");
    const QByteArray err = agent.readAllStandardError();
    QVERIFY2(agent.exitStatus() == QProcess::NormalExit && agent.exitCode() == 0, err.constData());
    const QJsonObject out = QJsonDocument::fromJson(agent.readAllStandardOutput()).object();
    const auto hostOf = [&out](const char *call) {
        return out[QLatin1String(call)]
            .toObject()[QStringLiteral("host")]
            .toObject()[QStringLiteral("url")]
            .toString();
    };
    QCOMPARE(out[QStringLiteral("new_target")]
                 .toObject()[QStringLiteral("python")]
                 .toObject()[QStringLiteral("source")]
                 .toString(),
             url);
    QCOMPARE(hostOf("bench"), url);
    QCOMPARE(hostOf("verify"), url);
    const QString verdict = out[QStringLiteral("verify")].toObject()[QStringLiteral("verdict")].toString();
    QVERIFY2(verdict == QLatin1String("faster") || verdict == QLatin1String("slower") ||
                 verdict == QLatin1String("inconclusive"),
             qPrintable(verdict));
    bool progressNamesHost = false;
    for (const QJsonValue &message : out[QStringLiteral("progress")].toArray())
        progressNamesHost = progressNamesHost || message.toString().contains(url);
    QVERIFY2(progressNamesHost,
             QJsonDocument(out[QStringLiteral("progress")].toArray()).toJson().constData());
    // Issue 41: the remote workers ran unconfined, so record refused the verify and said why.
    const QString refused = out[QStringLiteral("record_refused")].toString();
    QVERIFY2(refused.contains(QLatin1String("ran unconfined")), qPrintable(refused));
    QVERIFY(!QDir(project).exists(QStringLiteral("results/") + QStringLiteral("agent")));
    QCOMPARE(out[QStringLiteral("verify")]
                 .toObject()[QStringLiteral("host")]
                 .toObject()[QStringLiteral("url")]
                 .toString(),
             url);
}

} // namespace hotkernel::test
