// SPDX-License-Identifier: Apache-2.0
// new's writing step: its staging folder (.hotkernel-new-*) and the folders it created go on
// every exit path, and the scripts replace a symlink rather than write through it. The import
// check runs a fake interpreter (a shell script); nothing here needs torch.
#include "base/job.h"
#include "base/workdir.h"
#include "measure/targetscaffold.h"
#include "measuretesthelpers.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;
using namespace hotkernel::test;

namespace {

TargetRequest geluRequest()
{
    TargetRequest r;
    r.name = QStringLiteral("gelu");
    r.from = QStringLiteral("torch.nn.functional:gelu");
    r.shape = QStringLiteral("256x512");
    return r;
}

QString fakePython(const QTemporaryDir &dir, const QByteArray &body)
{
    const QString path = dir.filePath(QStringLiteral("python"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write("#!/bin/sh\n" + body + "\n") < 0)
        qFatal("cannot write the fake interpreter");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                               QDir::Name);
}

} // namespace

class TestTargetScaffoldWrite : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cancelDuringTheImportCheckLeavesNothing()
    {
        QTemporaryDir root;
        QTemporaryDir tools;
        const QString marker = tools.filePath(QStringLiteral("started"));
        const QString python = fakePython(tools, "touch '" + marker.toUtf8() + "'\nexec sleep 600");
        TargetRequest r = geluRequest();
        r.outDir = QStringLiteral("kernels/gelu");
        Job job(1, QStringLiteral("new_target"), Json::object(), QStringLiteral("test"));
        auto outcome = capture(TargetScaffold::write(r, WorkDir(root.path()), python, &job));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(marker), 120000);
        const QStringList staged = entries(root.filePath(QStringLiteral("kernels/gelu")));
        QCOMPARE(staged.size(), 1);
        QVERIFY2(staged.front().startsWith(QStringLiteral(".hotkernel-new-")), qPrintable(staged.front()));
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(outcome->done, 120000);
        QVERIFY2(outcome->error.contains(QStringLiteral("cancelled")), qPrintable(outcome->error));
        QCOMPARE(entries(root.path()), QStringList()); // kernels/gelu was made by this call: gone too
    }

    void failedImportCheckLeavesNothing()
    {
        QTemporaryDir root;
        QTemporaryDir tools;
        const QString python = fakePython(tools, "echo 'ModuleNotFoundError: no torch' >&2\nexit 1");
        Job job(1, QStringLiteral("new_target"), Json::object(), QStringLiteral("test"));
        auto outcome = capture(TargetScaffold::write(geluRequest(), WorkDir(root.path()), python, &job));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->done, 120000);
        QVERIFY2(outcome->error.contains(QStringLiteral("does not import")), qPrintable(outcome->error));
        QCOMPARE(entries(root.path()), QStringList());
    }

    void scriptsReplaceASymlinkInsteadOfWritingThroughIt()
    {
        QTemporaryDir root;
        QTemporaryDir tools;
        QTemporaryDir outside;
        const QString victim = outside.filePath(QStringLiteral("victim.py"));
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("precious\n");
        v.close();
        QVERIFY(QFile::link(victim, root.filePath(QStringLiteral("gelu_baseline.py"))));
        const QString python = fakePython(tools, "echo ok");
        TargetRequest r = geluRequest();
        r.force = true;
        Job job(1, QStringLiteral("new_target"), Json::object(), QStringLiteral("test"));
        auto outcome = capture(TargetScaffold::write(r, WorkDir(root.path()), python, &job));
        QTRY_VERIFY_WITH_TIMEOUT(outcome->done, 120000);
        QVERIFY2(outcome->error.isEmpty(), qPrintable(outcome->error));
        QVERIFY(v.open(QIODevice::ReadOnly));
        QCOMPARE(v.readAll(), QByteArray("precious\n"));
        QVERIFY(!QFileInfo(root.filePath(QStringLiteral("gelu_baseline.py"))).isSymLink());
        QCOMPARE(entries(root.path()),
                 (QStringList{QStringLiteral("_hotkernel_contract.py"), QStringLiteral("gelu_baseline.py"),
                              QStringLiteral("gelu_candidate.py")}));
    }

    // Issue 41's migration: re-vendoring the contract for a new protocol (--force) rewrites the
    // baseline and the contract and keeps the candidate, which is the user's work.
    void forceKeepsTheCandidate()
    {
        QTemporaryDir root;
        QTemporaryDir tools;
        const QString python = fakePython(tools, "echo ok");
        Job first(1, QStringLiteral("new_target"), Json::object(), QStringLiteral("test"));
        auto made = capture(TargetScaffold::write(geluRequest(), WorkDir(root.path()), python, &first));
        QTRY_VERIFY_WITH_TIMEOUT(made->done, 120000);
        QVERIFY2(made->error.isEmpty(), qPrintable(made->error));
        const auto overwrite = [&root](const char *name, const QByteArray &bytes) {
            QFile f(root.filePath(QLatin1String(name)));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bytes);
        };
        overwrite("gelu_candidate.py", "# my faster gelu\n");
        overwrite("_hotkernel_contract.py", "PROTOCOL = 4\n");

        TargetRequest r = geluRequest();
        r.force = true;
        Job again(2, QStringLiteral("new_target"), Json::object(), QStringLiteral("test"));
        auto redone = capture(TargetScaffold::write(r, WorkDir(root.path()), python, &again));
        QTRY_VERIFY_WITH_TIMEOUT(redone->done, 120000);
        QVERIFY2(redone->error.isEmpty(), qPrintable(redone->error));
        QVERIFY(redone->value && redone->value->keptCandidate);
        QVERIFY(redone->value->files.contains(root.filePath(QStringLiteral("gelu_candidate.py"))));
        QFile candidate(root.filePath(QStringLiteral("gelu_candidate.py")));
        QVERIFY(candidate.open(QIODevice::ReadOnly));
        QCOMPARE(candidate.readAll(), QByteArray("# my faster gelu\n"));
        QFile contract(root.filePath(QStringLiteral("_hotkernel_contract.py")));
        QVERIFY(contract.open(QIODevice::ReadOnly));
        QVERIFY(contract.readAll().contains("PROTOCOL = 5"));
    }
};

QTEST_GUILESS_MAIN(TestTargetScaffoldWrite)
#include "tst_targetscaffoldwrite.moc"
