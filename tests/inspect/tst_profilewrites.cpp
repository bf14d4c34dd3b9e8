// SPDX-License-Identifier: Apache-2.0
// profile and torch_trace write only inside the working directory: report names that would climb
// out are refused, symlinks planted at a report's name are replaced (never written through or
// deleted through), and their scratch folders go on every exit path. Only the tool processes are
// fakes (shell scripts); what they print or leave is the real capture under tests/data/inspect/.
#include "../measure/measuretesthelpers.h"
#include "base/job.h"
#include "fixtures.h"
#include "inspect/torchtracerunner.h"
#include "toolcall.h"
#include "tools/builtintools.h"

#include <QDir>
#include <QFileInfo>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {

QString writeScript(const QString &path, const QByteArray &body)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write("#!/bin/sh\n" + body + "\n") < 0)
        qFatal("cannot write %s", qPrintable(path));
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                               QDir::Name);
}

QByteArray quoted(const QString &path)
{
    return "'" + path.toUtf8() + "'";
}

// A working directory inside a parent that holds files a report named ".." would hit.
struct Layout
{
    QTemporaryDir parent;
    QTemporaryDir tools;
    QString work;
    QString profiles;
    QStringList outsideFiles;

    Layout()
    {
        QDir(parent.path()).mkpath(QStringLiteral("work"));
        work = parent.filePath(QStringLiteral("work"));
        profiles = work + QStringLiteral("/profiles");
        for (const char *suffix : {".kernsum.csv", ".nsys-rep", ".trace.jsonl", ".ncu-rep", ".details.csv"}) {
            const QString path = work + QLatin1String(suffix);
            writeFile(path, "precious " + QByteArray(suffix) + "\n");
            outsideFiles.append(path);
        }
    }
    bool outsideUntouched() const
    {
        for (const QString &path : outsideFiles) {
            const QByteArray suffix = path.mid(work.size()).toUtf8();
            if (readFile(path) != "precious " + suffix + "\n")
                return false;
        }
        return entries(parent.path()).size() == outsideFiles.size() + 1; // nothing new beside work/
    }
    // The tracer stand-in: a command that appends the captured trace where the tracer would.
    QString tracedCommand() const
    {
        return writeScript(tools.filePath(QStringLiteral("traced")),
                           "cat " + quoted(inspectFixturePath(QStringLiteral("trace-native.jsonl"))) +
                               " >> \"$HOTKERNEL_TRACE_FILE\"");
    }
};

Json traceCall(const QString &command, const QString &name)
{
    return Json{{"command", Json::array({toStd(command)})}, {"tool", "trace"}, {"name", toStd(name)}};
}

} // namespace

class TestProfileWrites : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // The trace path needs a tracer library to exist; the fake command never loads it.
        qputenv("HOTKERNEL_TRACER",
                QFile::encodeName(inspectFixturePath(QStringLiteral("trace-native.jsonl"))));
    }

    void namesThatClimbOutAreRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("dotdot") << QStringLiteral("..");
        QTest::newRow("slash") << QStringLiteral("a/b");
        QTest::newRow("dotdot slash") << QStringLiteral("../../work");
        QTest::newRow("dot") << QStringLiteral(".");
        QTest::newRow("129") << QString(129, QLatin1Char('a'));
    }
    void namesThatClimbOutAreRefused()
    {
        QFETCH(QString, name);
        Layout layout;
        Session session(builtinTools(), inspectSessionOptions(layout.work));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("profile"), traceCall(layout.tracedCommand(), name));
        QVERIFY2(r.isError, r.structured.dump().c_str());
        QVERIFY2(r.text.contains(QStringLiteral("report name")), qPrintable(r.text));
        QVERIFY2(r.text.contains(QStringLiteral("128 characters")), qPrintable(r.text)); // the rule
        QVERIFY2(r.text.contains(QStringLiteral("plain name")), qPrintable(r.text));     // what to do
        QVERIFY(layout.outsideUntouched());
        QVERIFY(!QFileInfo::exists(layout.profiles));
    }

    void traceReplacesASymlinkAtTheReport()
    {
        Layout layout;
        QVERIFY(QDir().mkpath(layout.profiles));
        const QString victim = layout.work + QStringLiteral(".trace.jsonl");
        QVERIFY(QFile::link(victim, layout.profiles + QStringLiteral("/x.trace.jsonl")));
        Session session(builtinTools(), inspectSessionOptions(layout.work));
        const ToolResult r = callInspectTool(session, QStringLiteral("profile"),
                                             traceCall(layout.tracedCommand(), QStringLiteral("x")));
        QVERIFY2(!r.isError, qPrintable(r.text));
        QVERIFY(layout.outsideUntouched());
        const QString report = layout.profiles + QStringLiteral("/x.trace.jsonl");
        QVERIFY(!QFileInfo(report).isSymLink());
        QCOMPARE(readFile(report), readInspectFixture(QStringLiteral("trace-native.jsonl")));
        QCOMPARE(toQt(r.structured["report"].get<std::string>()), report);
        QVERIFY(!r.structured["kernels"].empty());
        QCOMPARE(entries(layout.profiles), QStringList{QStringLiteral("x.trace.jsonl")}); // no scratch left
    }

    void ncuReplacesSymlinksAtReportAndCsv()
    {
        Layout layout;
        QVERIFY(QDir().mkpath(layout.profiles));
        QVERIFY(QFile::link(layout.work + QStringLiteral(".ncu-rep"),
                            layout.profiles + QStringLiteral("/x.ncu-rep")));
        QVERIFY(QFile::link(layout.work + QStringLiteral(".details.csv"),
                            layout.profiles + QStringLiteral("/x.details.csv")));
        const QString ncu =
            writeScript(layout.tools.filePath(QStringLiteral("ncu")),
                        "for a in \"$@\"; do [ \"$a\" = --import ] && exec cat " +
                            quoted(inspectFixturePath(QStringLiteral("eager.ncu-details.csv"))) +
                            "; done\n"
                            "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && printf 'fake report' > "
                            "\"$2.ncu-rep\"; shift; done");
        qputenv("HOTKERNEL_NCU", QFile::encodeName(ncu));
        const auto restore = qScopeGuard([] { qunsetenv("HOTKERNEL_NCU"); });
        Session session(builtinTools(), inspectSessionOptions(layout.work));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("profile"),
                            Json{{"command", Json::array({"true"})}, {"tool", "ncu"}, {"name", "x"}});
        QVERIFY2(!r.isError, qPrintable(r.text));
        QVERIFY(layout.outsideUntouched());
        QVERIFY(!QFileInfo(layout.profiles + QStringLiteral("/x.ncu-rep")).isSymLink());
        QCOMPARE(readFile(layout.profiles + QStringLiteral("/x.ncu-rep")), QByteArray("fake report"));
        QCOMPARE(readFile(layout.profiles + QStringLiteral("/x.details.csv")),
                 readInspectFixture(QStringLiteral("eager.ncu-details.csv")));
        QCOMPARE(entries(layout.profiles),
                 (QStringList{QStringLiteral("x.details.csv"), QStringLiteral("x.ncu-rep")}));
    }

    void nsysReplacesASymlinkAtTheReport()
    {
        Layout layout;
        QVERIFY(QDir().mkpath(layout.profiles));
        QVERIFY(QFile::link(layout.work + QStringLiteral(".nsys-rep"),
                            layout.profiles + QStringLiteral("/x.nsys-rep")));
        QVERIFY(QFile::link(layout.work + QStringLiteral(".kernsum.csv"),
                            layout.profiles + QStringLiteral("/x.kernsum.csv")));
        // No nsys capture exists (the GPU machine has none), so stats fails; the report itself
        // is still put in place, and nothing is written through either link.
        const QString nsys = writeScript(
            layout.tools.filePath(QStringLiteral("nsys")),
            "[ \"$1\" = stats ] && exit 1\n"
            "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && printf 'fake report' > \"$2.nsys-rep\"; shift; done");
        qputenv("HOTKERNEL_NSYS", QFile::encodeName(nsys));
        const auto restore = qScopeGuard([] { qunsetenv("HOTKERNEL_NSYS"); });
        Session session(builtinTools(), inspectSessionOptions(layout.work));
        const ToolResult r =
            callInspectTool(session, QStringLiteral("profile"),
                            Json{{"command", Json::array({"true"})}, {"tool", "nsys"}, {"name", "x"}});
        QVERIFY(r.isError);
        QVERIFY2(r.text.contains(QStringLiteral("found no kernels")), qPrintable(r.text));
        QVERIFY(layout.outsideUntouched());
        QVERIFY(!QFileInfo(layout.profiles + QStringLiteral("/x.nsys-rep")).isSymLink());
        QCOMPARE(readFile(layout.profiles + QStringLiteral("/x.nsys-rep")), QByteArray("fake report"));
        QCOMPARE(entries(layout.profiles),
                 (QStringList{QStringLiteral("x.kernsum.csv"), QStringLiteral("x.nsys-rep")}));
    }

    void profilesFolderLinkedOutIsRefused()
    {
        Layout layout;
        QTemporaryDir elsewhere;
        QVERIFY(QFile::link(elsewhere.path(), layout.profiles));
        Session session(builtinTools(), inspectSessionOptions(layout.work));
        const ToolResult r = callInspectTool(session, QStringLiteral("profile"),
                                             traceCall(layout.tracedCommand(), QStringLiteral("x")));
        QVERIFY(r.isError);
        QVERIFY2(r.text.contains(QStringLiteral("symbolic link")), qPrintable(r.text));
        QCOMPARE(entries(elsewhere.path()), QStringList());
        QVERIFY(layout.outsideUntouched());
    }

    void torchTraceCancelledLeavesNoTemporaryFolder()
    {
        Layout layout;
        QTemporaryDir tmp; // the wrapper's folder goes under TMPDIR
        const QByteArray oldTmp = qgetenv("TMPDIR");
        qputenv("TMPDIR", QFile::encodeName(tmp.path()));
        const auto restore =
            qScopeGuard([&] { oldTmp.isNull() ? qunsetenv("TMPDIR") : qputenv("TMPDIR", oldTmp); });
        const QString marker = layout.tools.filePath(QStringLiteral("started"));
        TorchTraceRequest request;
        request.python = writeScript(layout.tools.filePath(QStringLiteral("python")),
                                     "touch " + quoted(marker) + "\nexec sleep 600");
        request.script = layout.work + QStringLiteral("/model.py");
        request.workingDirectory = layout.work;
        request.chromeTrace = layout.profiles + QStringLiteral("/model.torch-trace.json");
        Job job(1, QStringLiteral("torch_trace"), Json::object(), QStringLiteral("test"));
        auto outcome = capture(TorchTraceRunner::run(request, &job));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(marker), 120000);
        QCOMPARE(entries(tmp.path()).size(), 1);      // the wrapper's folder, while it runs
        QCOMPARE(entries(layout.profiles).size(), 1); // the trace's scratch folder
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(outcome->done, 120000);
        QCOMPARE(entries(tmp.path()), QStringList());
        QCOMPARE(entries(layout.profiles), QStringList());
    }

    void torchTraceMovesTheChromeTraceOverASymlink()
    {
        Layout layout;
        const QString victim = layout.work + QStringLiteral(".trace.jsonl");
        QVERIFY(QDir().mkpath(layout.profiles));
        const QString trace = layout.profiles + QStringLiteral("/model.torch-trace.json");
        QVERIFY(QFile::link(victim, trace));
        TorchTraceRequest request;
        // Stands in for the interpreter running torch_trace.py: writes the trace where it is told
        // and prints the wrapper's document naming it.
        request.python =
            writeScript(layout.tools.filePath(QStringLiteral("python")),
                        "while [ $# -gt 0 ]; do [ \"$1\" = --chrome-trace ] && out=\"$2\"; shift; done\n"
                        "cp " +
                            quoted(inspectFixturePath(QStringLiteral("torch-profiler-trace.json"))) +
                            " \"$out\"\n"
                            "printf '{\"kernels\": [], \"chrome_trace\": \"%s\"}\\n' \"$out\"");
        request.script = layout.work + QStringLiteral("/model.py");
        request.workingDirectory = layout.work;
        request.chromeTrace = trace;
        Job job(1, QStringLiteral("torch_trace"), Json::object(), QStringLiteral("test"));
        auto outcome = capture(TorchTraceRunner::run(request, &job));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->done, 120000);
        QVERIFY2(outcome->error.isEmpty(), qPrintable(outcome->error));
        QCOMPARE(toQt((*outcome->value)["chrome_trace"].get<std::string>()), trace);
        QVERIFY(layout.outsideUntouched());
        QVERIFY(!QFileInfo(trace).isSymLink());
        QCOMPARE(readFile(trace), readInspectFixture(QStringLiteral("torch-profiler-trace.json")));
        QCOMPARE(entries(layout.profiles), QStringList{QStringLiteral("model.torch-trace.json")});
    }
};

QTEST_GUILESS_MAIN(TestProfileWrites)
#include "tst_profilewrites.moc"
