// SPDX-License-Identifier: Apache-2.0
// The layer order of core/ (docs/hacking.md, "Layers"): a folder may include headers of its own
// folder and of the folders below it, never of one above. Every `#include "area/file.h"` in core/
// is read, and an upward one fails the test. There are no exceptions: issue 40 moved the last
// causes down (Job, JobGuard and ToolResult into base/, SessionPeers and SessionIdentity into
// measure/, and measure's runs take a MeasureSession instead of the Session).
#include "base/boundedfile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

// From the ground up; the same order docs/hacking.md states on its "Layer order:" line.
// native builds alone (the helpers run inside other programs) and includes no other folder.
const QStringList kLayerOrder = {
    QStringLiteral("native"),  QStringLiteral("base"),   QStringLiteral("process"),
    QStringLiteral("inspect"), QStringLiteral("slurm"),  QStringLiteral("remote"),
    QStringLiteral("measure"), QStringLiteral("record"), QStringLiteral("workspace"),
    QStringLiteral("session"), QStringLiteral("tools"),  QStringLiteral("mcp"),
};

const QString kCore = QStringLiteral(HOTKERNEL_SOURCE_DIR "/core");

// "file -> header" for every include in core (a core/ tree) of a core folder above the including
// file's folder.
QStringList upwardIncludes(const QString &core, QStringList *unplaced)
{
    static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s+\"(\\w+)/[^\"]+\""));
    const QStringList folders = QDir(core).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QStringList out;
    QDirIterator it(core, {QStringLiteral("*.h"), QStringLiteral("*.cpp"), QStringLiteral("*.cu")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString relative = QDir(core).relativeFilePath(it.next());
        const QString folder = relative.section(QLatin1Char('/'), 0, 0);
        const qsizetype rank = kLayerOrder.indexOf(folder);
        if (rank < 0) {
            unplaced->append(folder);
            continue;
        }
        const BoundedFile::Read read =
            BoundedFile::read(core + QLatin1Char('/') + relative, BoundedFile::kScriptLimit);
        if (!read.ok()) {
            out << relative + QStringLiteral(" cannot be read: ") + read.error;
            continue;
        }
        for (const QString &line : QString::fromUtf8(read.bytes).split(QLatin1Char('\n'))) {
            const QRegularExpressionMatch m = include.match(line);
            if (!m.hasMatch() || !folders.contains(m.captured(1)))
                continue;
            if (kLayerOrder.indexOf(m.captured(1)) > rank) {
                const qsizetype open = line.indexOf(QLatin1Char('"'));
                out << relative + QStringLiteral(" -> ") +
                           line.mid(open + 1, line.lastIndexOf(QLatin1Char('"')) - open - 1);
            }
        }
    }
    unplaced->removeDuplicates();
    out.sort();
    return out;
}

} // namespace

class TestLayers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyFolderHasALayer()
    {
        QStringList unplaced;
        upwardIncludes(kCore, &unplaced);
        QVERIFY2(unplaced.isEmpty(),
                 qPrintable(QStringLiteral("core folders missing from the layer order "
                                           "(place them in kLayerOrder and docs/hacking.md): ") +
                            unplaced.join(QStringLiteral(", "))));
        for (const QString &folder : kLayerOrder)
            QVERIFY2(QDir(kCore).exists(folder),
                     qPrintable(folder + QStringLiteral(" is in the order but not in core/")));
    }

    void noIncludeRunsUpward()
    {
        QStringList unplaced;
        const QStringList upward = upwardIncludes(kCore, &unplaced);
        QVERIFY2(
            upward.isEmpty(),
            qPrintable(QStringLiteral("includes that run up the layer order (docs/hacking.md, \"Layers\"; "
                                      "move the code down or the include up):\n  ") +
                       upward.join(QStringLiteral("\n  "))));
    }

    // The scan itself finds an upward include, and only that one, in a tree made for it.
    void scanFindsAnUpwardInclude()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QDir dir(root.path());
        QVERIFY(dir.mkpath(QStringLiteral("base")) && dir.mkpath(QStringLiteral("session")));
        const auto write = [&](const QString &name, const QByteArray &text) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
        };
        QVERIFY(write(QStringLiteral("base/token.h"), "#pragma once\n#include \"base/json.h\"\n"));
        QVERIFY(write(QStringLiteral("base/token.cpp"),
                      "#include \"base/token.h\"\n  #  include \"session/session.h\"\n#include <QObject>\n"));
        QVERIFY(write(QStringLiteral("session/session.cpp"), "#include \"base/token.h\"\n"));
        QStringList unplaced;
        QCOMPARE(upwardIncludes(root.path(), &unplaced),
                 QStringList{QStringLiteral("base/token.cpp -> session/session.h")});
        QVERIFY(unplaced.isEmpty());
    }

    // The order the test holds is the one the documentation states.
    void documentedOrderMatches()
    {
        const BoundedFile::Read read = BoundedFile::read(
            QStringLiteral(HOTKERNEL_SOURCE_DIR "/docs/hacking.md"), BoundedFile::kScriptLimit);
        QVERIFY2(read.ok(), qPrintable(read.error));
        static const QRegularExpression line(QStringLiteral("^Layer order: (.*)$"),
                                             QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = line.match(QString::fromUtf8(read.bytes));
        QVERIFY2(m.hasMatch(), "docs/hacking.md has no \"Layer order: \" line");
        QStringList documented;
        static const QRegularExpression name(QStringLiteral("`(\\w+)`"));
        for (const QRegularExpressionMatch &n : name.globalMatch(m.captured(1)))
            documented << n.captured(1);
        QCOMPARE(documented, kLayerOrder);
    }
};

QTEST_GUILESS_MAIN(TestLayers)
#include "tst_layers.moc"
