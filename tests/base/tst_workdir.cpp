// SPDX-License-Identifier: Apache-2.0
#include "base/usererror.h"
#include "base/workdir.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

class TestWorkDir : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void insideAndOutside()
    {
        QTemporaryDir root;
        QTemporaryDir elsewhere;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("results/x")));
        QVERIFY(QFile::link(elsewhere.path(), root.filePath(QStringLiteral("escape"))));
        const WorkDir dir(root.path());
        QVERIFY(dir.contains(QStringLiteral("results/x/new.json")));
        QVERIFY(dir.contains(QStringLiteral("not/yet/there.py")));
        QVERIFY(!dir.contains(QStringLiteral("../outside.py")));
        QVERIFY(!dir.contains(QStringLiteral("escape/file.json")));      // through a symlink
        QVERIFY(!dir.contains(elsewhere.filePath(QStringLiteral("a")))); // absolute, outside
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 dir.requireInside(QStringLiteral("escape/f"), QStringLiteral("out_dir")));
    }
};

QTEST_GUILESS_MAIN(TestWorkDir)
#include "tst_workdir.moc"
