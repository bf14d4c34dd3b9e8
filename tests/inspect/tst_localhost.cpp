// SPDX-License-Identifier: Apache-2.0
// LocalHost, this machine as the Host the runners take (docs/hosts.md, issue 40): a step runs as a
// child here and reports how it ended, a file a step made reads back or is fetched (and a missing
// one says so), and paths and command lines are this machine's. The remote side is exercised by
// tests/remote and tests/slurm through the same runners.
#include "../measure/measuretesthelpers.h"
#include "base/job.h"
#include "base/usererror.h"
#include "inspect/localhost.h"
#include "process/pythonlocator.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {

constexpr int kWaitMs = 60000;

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestLocalHost : public QObject
{
    Q_OBJECT

    PythonLocator m_python{QStringLiteral("/usr/bin/python3")};
    LocalHost m_host{m_python};
    QTemporaryDir m_dir;

private Q_SLOTS:
    void describesThisMachine()
    {
        QCOMPARE(m_host.name(), QStringLiteral("this machine"));
        QCOMPARE(m_host.where(), QStringLiteral("here"));
        QVERIFY(m_host.record().is_null()); // results record no host block for this machine
        QCOMPARE(m_host.pathThere(QStringLiteral("/a/b.cubin")), QStringLiteral("/a/b.cubin"));
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/echo");
        spec.arguments = {QStringLiteral("two words")};
        QCOMPARE(m_host.commandLine(spec), spec.commandLine());
    }

    void runsAStepHere()
    {
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/sh");
        spec.arguments = {QStringLiteral("-c"), QStringLiteral("echo out; echo err >&2; exit 3")};
        auto r = capture(m_host.runTool(spec, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kWaitMs);
        QVERIFY2(r->error.isEmpty(), qPrintable(r->error));
        QCOMPARE(int(r->value->status), int(ProcessResult::Status::Finished));
        QCOMPARE(r->value->exitCode, 3);
        QCOMPARE(r->value->standardOutput, QByteArray("out\n"));

        spec.program = m_dir.filePath(QStringLiteral("no-such-program"));
        auto missing = capture(m_host.runTool(spec, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(missing->done, kWaitMs);
        QVERIFY2(missing->error.contains(QStringLiteral("Could not start")) &&
                     missing->error.contains(spec.program),
                 qPrintable(missing->error));
    }

    void cancelledStepSaysSo()
    {
        Job job(1, QStringLiteral("test"), Json::object(), QStringLiteral("test"));
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/sleep");
        spec.arguments = {QStringLiteral("100")};
        auto r = capture(m_host.runTool(spec, &job));
        QTest::qWait(200);
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(r->done, kWaitMs);
        QCOMPARE(int(r->value->status), int(ProcessResult::Status::Cancelled));
    }

    void readsAndFetchesWhatAStepMade()
    {
        const QString made = m_dir.filePath(QStringLiteral("made.csv"));
        QVERIFY(writeFile(made, "a,b\n1,2\n"));
        auto read = capture(m_host.readBack(made, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(read->done, kWaitMs);
        QVERIFY2(read->error.isEmpty(), qPrintable(read->error));
        QCOMPARE(read->value->value_or(QByteArray()), QByteArray("a,b\n1,2\n"));

        auto absent = capture(m_host.readBack(m_dir.filePath(QStringLiteral("absent")), nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(absent->done, kWaitMs);
        QVERIFY(absent->value && !absent->value->has_value());

        const QString here = m_dir.filePath(QStringLiteral("fetched.csv"));
        auto fetched = capture(m_host.fetch(made, here, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(fetched->done, kWaitMs);
        QVERIFY2(fetched->value.value_or(false), qPrintable(fetched->error));
        QFile copy(here);
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QCOMPARE(copy.readAll(), QByteArray("a,b\n1,2\n"));
        QCOMPARE(copy.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());

        auto none = capture(m_host.fetch(m_dir.filePath(QStringLiteral("absent")), here, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(none->done, kWaitMs);
        QCOMPARE(none->value, std::optional<bool>(false));
    }

    // A FIFO where a step's file should be neither blocks the read nor passes as the file.
    void aFifoIsNoFile()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("fifo"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        auto read = capture(m_host.readBack(fifo, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(read->done, kWaitMs);
        QVERIFY2(read->error.contains(fifo) && read->error.contains(QStringLiteral("FIFO")),
                 qPrintable(read->error));
        auto fetched = capture(m_host.fetch(fifo, m_dir.filePath(QStringLiteral("out")), nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(fetched->done, kWaitMs);
        QVERIFY2(fetched->error.contains(QStringLiteral("FIFO")), qPrintable(fetched->error));
    }

    // A helper or tool that is not here says where it was looked for; the optional one is empty.
    void missingHelperSaysWhereItLooked()
    {
        const QString name = QStringLiteral("hotkernel-no-such-helper");
        auto helper = capture(m_host.nativeHelper(name, nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(helper->done, kWaitMs);
        QVERIFY2(helper->error.contains(name) && helper->error.contains(QStringLiteral("looked in")) &&
                     helper->error.contains(QStringLiteral("HOTKERNEL_NATIVE_DIR")),
                 qPrintable(helper->error));
        QVERIFY(m_host.lookForTool(QStringLiteral("hotkernel-no-such-tool"), {}).isEmpty());
    }

    void interpreterIsTheSessionsOwn()
    {
        auto python = capture(m_host.interpreter(nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(python->done, kWaitMs);
        QVERIFY2(python->error.isEmpty(), qPrintable(python->error));
        QCOMPARE(python->value->path, QStringLiteral("/usr/bin/python3"));
    }
};

QTEST_GUILESS_MAIN(TestLocalHost)
#include "tst_localhost.moc"
