// SPDX-License-Identifier: Apache-2.0
// The layer order of core/ (docs/hacking.md, "Layers"): a folder may include headers of its own
// folder and of the folders below it, never of one above. Every `#include "area/file.h"` in core/
// is read; an upward one fails the test unless it is in kKnownUpwardIncludes, and a row of that
// table that no longer occurs fails it too, so the table only shrinks (issue 40).
#include "base/boundedfile.h"

#include <QDir>
#include <QDirIterator>
#include <QRegularExpression>
#include <QTest>

#include <array>

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

struct UpwardInclude
{
    const char *file;   // under core/
    const char *header; // as the include writes it
    const char *why;    // and the issue that removes it
};

// Job, JobGuard and ToolResult (the cancellation and progress token every runner takes, and what a
// run returns) moved from session/ into base/ (issue 40); what stays is measure's runs reaching
// into the Session for its worker pool, remote host and settings.
#define HK_SESSION_LOCATOR "measure's runs take Session & as a service locator (issue 40)"

// Today's upward includes, each with its reason. Remove a row when its include goes; never add one.
constexpr std::array kKnownUpwardIncludes = {
    UpwardInclude{"measure/benchrun.cpp", "session/session.h", HK_SESSION_LOCATOR},
    UpwardInclude{"measure/measuresetup.cpp", "session/session.h", HK_SESSION_LOCATOR},
    UpwardInclude{"measure/uncontractedrun.cpp", "session/session.h", HK_SESSION_LOCATOR},
    UpwardInclude{"measure/verifyrun.cpp", "session/session.h", HK_SESSION_LOCATOR},
};

const QString kCore = QStringLiteral(HOTKERNEL_SOURCE_DIR "/core");

// "file -> header" for every include in core/ of a core folder above the including file's folder.
QStringList upwardIncludes(QStringList *unplaced)
{
    static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s+\"(\\w+)/[^\"]+\""));
    const QStringList folders = QDir(kCore).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QStringList out;
    QDirIterator it(kCore, {QStringLiteral("*.h"), QStringLiteral("*.cpp"), QStringLiteral("*.cu")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString relative = QDir(kCore).relativeFilePath(it.next());
        const QString folder = relative.section(QLatin1Char('/'), 0, 0);
        const qsizetype rank = kLayerOrder.indexOf(folder);
        if (rank < 0) {
            unplaced->append(folder);
            continue;
        }
        const BoundedFile::Read read =
            BoundedFile::read(kCore + QLatin1Char('/') + relative, BoundedFile::kScriptLimit);
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

QString known(const UpwardInclude &row)
{
    return QString::fromUtf8(row.file) + QStringLiteral(" -> ") + QString::fromUtf8(row.header);
}

} // namespace

class TestLayers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyFolderHasALayer()
    {
        QStringList unplaced;
        upwardIncludes(&unplaced);
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
        QStringList fresh;
        for (const QString &found : upwardIncludes(&unplaced)) {
            bool listed = false;
            for (const UpwardInclude &row : kKnownUpwardIncludes)
                listed = listed || known(row) == found;
            if (!listed)
                fresh << found;
        }
        QVERIFY2(
            fresh.isEmpty(),
            qPrintable(QStringLiteral("includes that run up the layer order (docs/hacking.md, \"Layers\"; "
                                      "move the code down or the include up, never add an exception):\n  ") +
                       fresh.join(QStringLiteral("\n  "))));
    }

    void everyExceptionStillOccurs()
    {
        QStringList unplaced;
        const QStringList found = upwardIncludes(&unplaced);
        QStringList gone;
        for (const UpwardInclude &row : kKnownUpwardIncludes) {
            QVERIFY2(QString::fromUtf8(row.why).contains(QStringLiteral("issue")), row.file);
            if (!found.contains(known(row)))
                gone << known(row);
        }
        QVERIFY2(gone.isEmpty(),
                 qPrintable(QStringLiteral("exceptions that no longer occur: remove them from "
                                           "kKnownUpwardIncludes:\n  ") +
                            gone.join(QStringLiteral("\n  "))));
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
