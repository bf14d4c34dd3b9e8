// SPDX-License-Identifier: Apache-2.0
// The layer order of core/ (docs/hacking.md, "Layers"): a folder may include headers of its own
// folder and of the folders below it, never of one above. Every `#include "area/file.h"` in core/
// is read, and an upward one fails the test. There are no exceptions: issue 40 moved the last
// causes down (Job, JobGuard and ToolResult into base/, SessionPeers and SessionIdentity into
// measure/, and measure's runs take a MeasureSession instead of the Session).
// Above core, the front-ends (ui/, app/) read results as typed values (ToolResult::as<T>(),
// RunSummary::value, ToolSpec::resultKind): a key read on a result's JSON or a comparison with a
// tool's name there fails the test (issue 40).
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

// The names of the built-in tools, as core/tools/*.cpp registers them (spec.name = "...").
QStringList toolNames(const QString &tools)
{
    static const QRegularExpression name(
        QStringLiteral("\\bspec\\.name\\s*=\\s*QStringLiteral\\(\"([^\"]+)\"\\)"));
    QStringList names;
    QDirIterator it(tools, {QStringLiteral("*.cpp")}, QDir::Files);
    while (it.hasNext()) {
        const BoundedFile::Read read = BoundedFile::read(it.next(), BoundedFile::kScriptLimit);
        for (const QRegularExpressionMatch &m : name.globalMatch(QString::fromUtf8(read.bytes)))
            names << m.captured(1);
    }
    names.sort();
    return names;
}

// "folder/file:line: text" for every line of the front-ends (<root>/ui, <root>/app) that reads a
// key of a result's JSON (structured, structuredContent or a recorded run's details: indexed,
// value(), at(), contains(), find(), or bound to a const name to be read later) or compares a
// string with a tool's name. Passing a result's JSON on whole (dump(), a details dialog, record's
// verify_result, a copy the CLI adds to) is not a read.
QStringList frontEndResultReads(const QString &root, const QStringList &tools)
{
    static const QRegularExpression keyRead(QStringLiteral(
        "\\b(structured\\w*|details)\\s*(\\[|(\\.|->)\\s*(value|at|contains|find|count|items)\\s*\\()"));
    static const QRegularExpression alias(
        QStringLiteral("\\bconst\\s+Json\\s*&?\\s*\\w+\\s*=[^;]*\\b(structured|details)\\s*;"));
    QList<QRegularExpression> names;
    for (const QString &tool : tools) {
        const QString literal =
            QStringLiteral("(QLatin1String|QStringLiteral|QString|QStringView)?\\s*\\(?\\s*u?\"") +
            QRegularExpression::escape(tool) + QStringLiteral("\"");
        names << QRegularExpression(QStringLiteral("(==|!=)\\s*") + literal + QLatin1Char('|') + literal +
                                    QStringLiteral("\\s*\\)?\\s*(==|!=)"));
    }
    QStringList out;
    for (const QString &folder : {QStringLiteral("ui"), QStringLiteral("app")}) {
        QDirIterator it(root + QLatin1Char('/') + folder, {QStringLiteral("*.h"), QStringLiteral("*.cpp")},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const BoundedFile::Read read = BoundedFile::read(path, BoundedFile::kScriptLimit);
            const QStringList lines = QString::fromUtf8(read.bytes).split(QLatin1Char('\n'));
            for (qsizetype i = 0; i < lines.size(); ++i) {
                const QString &line = lines[i];
                bool hit = line.contains(keyRead) || line.contains(alias);
                for (const QRegularExpression &n : std::as_const(names))
                    hit = hit || line.contains(n);
                if (hit)
                    out << QDir(root).relativeFilePath(path) + QLatin1Char(':') + QString::number(i + 1) +
                               QStringLiteral(": ") + line.trimmed();
            }
        }
    }
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

    void frontEndsReadNoResultKeys()
    {
        const QStringList tools = toolNames(QStringLiteral(HOTKERNEL_SOURCE_DIR "/core/tools"));
        QVERIFY2(tools.contains(QStringLiteral("verify")) && tools.contains(QStringLiteral("bench")),
                 qPrintable(QStringLiteral("the tool names read from core/tools: ") +
                            tools.join(QStringLiteral(", "))));
        const QStringList reads = frontEndResultReads(QStringLiteral(HOTKERNEL_SOURCE_DIR), tools);
        QVERIFY2(reads.isEmpty(),
                 qPrintable(QStringLiteral(
                                "front-ends read a result's JSON or match a tool's name (give the "
                                "result a typed value in core: ToolResult::as<T>(), ToolSpec::readsResult, "
                                "ToolSpec::resultKind):\n  ") +
                            reads.join(QStringLiteral("\n  "))));
    }

    // The scan finds each kind of read, and passes a result's JSON handed on whole.
    void scanFindsAFrontEndResultRead()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QDir dir(root.path());
        QVERIFY(dir.mkpath(QStringLiteral("ui")) && dir.mkpath(QStringLiteral("app")));
        const auto write = [&](const QString &name, const QByteArray &text) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
        };
        QVERIFY(write(QStringLiteral("ui/window.cpp"),
                      "const double t = job->result().structured[\"achieved\"].value(\"tflops\", 0.0);\n"
                      "if (run.tool == QLatin1String(\"bench\"))\n"
                      "dialog(result.structured.dump(2));\n"
                      "record(Json{{\"verify_result\", result.structured}});\n"
                      "runDialog(QStringLiteral(\"verify\"));\n"));
        QVERIFY(write(QStringLiteral("app/cli.cpp"), "const Json &verify = result->structured;\n"
                                                     "Json both = result->structured;\n"
                                                     "if (QStringLiteral(\"verify\") != spec.name) {}\n"
                                                     "x = run.details.value(\"structuredContent\", Json());\n"
                                                     "if (verb == QLatin1String(\"leaderboard\")) {}\n"));
        const QStringList tools{QStringLiteral("bench"), QStringLiteral("verify")};
        QCOMPARE(frontEndResultReads(root.path(), tools),
                 (QStringList{
                     QStringLiteral("app/cli.cpp:1: const Json &verify = result->structured;"),
                     QStringLiteral("app/cli.cpp:3: if (QStringLiteral(\"verify\") != spec.name) {}"),
                     QStringLiteral("app/cli.cpp:4: x = run.details.value(\"structuredContent\", Json());"),
                     QStringLiteral(
                         "ui/window.cpp:1: const double t = job->result().structured[\"achieved\"].value("
                         "\"tflops\", 0.0);"),
                     QStringLiteral("ui/window.cpp:2: if (run.tool == QLatin1String(\"bench\"))"),
                 }));
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
