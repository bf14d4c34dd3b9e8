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
// both sides confined to their scratch by the host's supervisor (issue 41: "landlock ABI N"; the
// host's kernel must have Landlock), and a log written here whose host is url. *recorded gets the
// log's "verify" object. A void function, since QVERIFY returns: callers go on only while
// !QTest::currentTestFailed().
inline void checkRecordedVerify(const QByteArray &out, const QString &project, const QString &url,
                                QJsonObject *recorded)
{
    const QJsonObject r = QJsonDocument::fromJson(out).object();
    const QString verdict = r[QStringLiteral("verdict")].toString();
    QVERIFY2(verdict == QLatin1String("faster") || verdict == QLatin1String("slower") ||
                 verdict == QLatin1String("inconclusive"),
             out.constData());
    QVERIFY2(r[QStringLiteral("outside_judge")].toObject()[QStringLiteral("runs_judged")].toInt() >= 3,
             out.constData());
    const QJsonObject confinement = r[QStringLiteral("confinement")].toObject();
    for (const char *side : {"baseline", "candidate"})
        QVERIFY2(confinement[QLatin1String(side)].toString().startsWith(QLatin1String("landlock ABI ")),
                 out.constData());
    const QString log = r[QStringLiteral("record")].toObject()[QStringLiteral("log")].toString();
    QVERIFY2(!log.isEmpty(), out.constData());
    *recorded = QJsonDocument::fromJson(readFile(QDir(project).filePath(log)))
                    .object()[QStringLiteral("verify")]
                    .toObject();
    const QJsonObject host = (*recorded)[QStringLiteral("host")].toObject();
    QCOMPARE(host[QStringLiteral("url")].toString(), url);
    QVERIFY(!host[QStringLiteral("hostname")].toString().isEmpty());
}

// Runs tests/remote/agent_loop.py in project: the official MCP Python SDK (in testPython, the test
// venv) launches `hotkernel mcp` with HOTKERNEL_HOST=url in environment and calls new_target, bench,
// verify and record for a CPU gelu target named target. Checks that each call ran on url's host,
// that the server's progress named the host, and that the log record wrote here names it and the
// candidate's confinement (issue 41). A void function, since QVERIFY returns.
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
    // A result shortened for the model's context (full_result) must still name its host: when
    // it does not, say which members it kept and what was cut.
    for (const char *call : {"bench", "verify"}) {
        const QJsonObject result = out[QLatin1String(call)].toObject();
        QVERIFY2(hostOf(call) == url,
                 qPrintable(QStringLiteral("%1 kept %2; %3")
                                .arg(QLatin1String(call), result.keys().join(QLatin1Char(' ')),
                                     QString::fromUtf8(
                                         QJsonDocument(result[QStringLiteral("full_result")].toObject())
                                             .toJson(QJsonDocument::Compact)))));
    }
    const QString verdict = out[QStringLiteral("verify")].toObject()[QStringLiteral("verdict")].toString();
    QVERIFY2(verdict == QLatin1String("faster") || verdict == QLatin1String("slower") ||
                 verdict == QLatin1String("inconclusive"),
             qPrintable(verdict));
    bool progressNamesHost = false;
    for (const QJsonValue &message : out[QStringLiteral("progress")].toArray())
        progressNamesHost = progressNamesHost || message.toString().contains(url);
    QVERIFY2(progressNamesHost,
             QJsonDocument(out[QStringLiteral("progress")].toArray()).toJson().constData());
    // Issue 41: the host's supervisor confined the workers, so record took the verify.
    const QString log = out[QStringLiteral("record")].toObject()[QStringLiteral("log")].toString();
    QVERIFY2(!log.isEmpty(), err.constData());
    const QJsonObject recorded = QJsonDocument::fromJson(readFile(QDir(project).filePath(log)))
                                     .object()[QStringLiteral("verify")]
                                     .toObject();
    QCOMPARE(recorded[QStringLiteral("host")].toObject()[QStringLiteral("url")].toString(), url);
    QCOMPARE(recorded[QStringLiteral("verdict")].toString(), verdict);
    QVERIFY2(
        recorded[QStringLiteral("confinement")].toObject()[QStringLiteral("candidate")].toString().startsWith(
            QLatin1String("landlock ABI ")),
        QJsonDocument(recorded).toJson().constData());
}

} // namespace hotkernel::test
