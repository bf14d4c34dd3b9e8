// SPDX-License-Identifier: Apache-2.0
// The layer order of core/ (docs/hacking.md, "Layers"): a folder may include headers of its own
// folder and of the folders below it, never of one above. Every `#include "area/file.h"` in core/
// is read, and an upward one fails the test. There are no exceptions: issue 40 moved the last
// causes down (Job, JobGuard and ToolResult into base/, SessionPeers and SessionIdentity into
// measure/, and measure's runs take a MeasureSession instead of the Session).
// Each folder is a CMake library (issue 40): the links core/CMakeLists.txt wrote at configure time
// must run down the same order and be what the folder's includes need, no more: PUBLIC for a
// folder its headers include, PRIVATE for one only its sources include.
// Above core, the front-ends (ui/, app/) read results as typed values (ToolResult::as<T>(),
// RunSummary::value, ToolSpec::resultKind): a key read on a result's JSON or a comparison with a
// tool's name there fails the test (issue 40).
// The runners and tools converted to the Host interface (docs/hosts.md, issue 40) take the
// session's Host and never ask which one it is: a `session.remote()`, an `if (remote`, a RemoteHost
// or a Remote* runner twin back in one of them fails the test.
#include "base/boundedfile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
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
// The one folder of core/ that is no library: its helpers build alone.
const QString kNoLibrary = QStringLiteral("native");

// One `#include "folder/file.h"` of a core folder, in a file of another one.
struct Include
{
    QString file;   // relative to core/
    QString from;   // the folder of file
    QString header; // as written
    QString to;     // the folder of header
    bool inHeader;  // file is a header (what includes it needs the folder too)
};

// Every include of one core folder in a file of another (a core/ tree); unreadable files go to
// *unreadable, files of folders outside the layer order to *unplaced.
QList<Include> crossIncludes(const QString &core, QStringList *unplaced, QStringList *unreadable)
{
    static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s+\"(\\w+)/[^\"]+\""));
    const QStringList folders = QDir(core).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QList<Include> out;
    QDirIterator it(core, {QStringLiteral("*.h"), QStringLiteral("*.cpp"), QStringLiteral("*.cu")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString relative = QDir(core).relativeFilePath(it.next());
        const QString folder = relative.section(QLatin1Char('/'), 0, 0);
        if (!kLayerOrder.contains(folder)) {
            unplaced->append(folder);
            continue;
        }
        const BoundedFile::Read read =
            BoundedFile::read(core + QLatin1Char('/') + relative, BoundedFile::kScriptLimit);
        if (!read.ok()) {
            unreadable->append(relative + QStringLiteral(" cannot be read: ") + read.error);
            continue;
        }
        for (const QString &line : QString::fromUtf8(read.bytes).split(QLatin1Char('\n'))) {
            const QRegularExpressionMatch m = include.match(line);
            if (!m.hasMatch() || !folders.contains(m.captured(1)) || m.captured(1) == folder)
                continue;
            const qsizetype open = line.indexOf(QLatin1Char('"'));
            out.append({relative, folder, line.mid(open + 1, line.lastIndexOf(QLatin1Char('"')) - open - 1),
                        m.captured(1), relative.endsWith(QLatin1String(".h"))});
        }
    }
    unplaced->removeDuplicates();
    return out;
}

// "file -> header" for every include in core (a core/ tree) of a core folder above the including
// file's folder.
QStringList upwardIncludes(const QString &core, QStringList *unplaced)
{
    QStringList out;
    for (const Include &include : crossIncludes(core, unplaced, &out)) {
        if (kLayerOrder.indexOf(include.to) > kLayerOrder.indexOf(include.from))
            out << include.file + QStringLiteral(" -> ") + include.header;
    }
    out.sort();
    return out;
}

// The links of the core libraries, one line per library as core/CMakeLists.txt writes them:
// "FOLDER: PUBLIC-FOLDER... [private PRIVATE-FOLDER...]", each list sorted.
using Links = QMap<QString, QString>; // folder -> the rest of its line

Links parseLinks(const QByteArray &text)
{
    Links out;
    for (const QString &line : QString::fromUtf8(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        out.insert(line.left(colon), line.mid(colon + 1).simplified());
    }
    return out;
}

// "library -> library" for every link that does not run down the layer order.
QStringList upwardLinks(const Links &links)
{
    QStringList out;
    for (auto it = links.cbegin(); it != links.cend(); ++it) {
        for (const QString &to : it.value().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            if (to != QLatin1String("private") && kLayerOrder.indexOf(to) >= kLayerOrder.indexOf(it.key()))
                out << QStringLiteral("hotkernel_") + it.key() + QStringLiteral(" -> hotkernel_") + to;
        }
    }
    return out;
}

// The links each library of a core/ tree needs, from its includes, in the form of parseLinks: the
// folders its headers include (PUBLIC: whoever includes the header needs them too), then
// "private" and those only its other files include.
Links neededLinks(const QString &core, QStringList *problems)
{
    QStringList unplaced;
    QMap<QString, QSet<QString>> inHeaders, inSources;
    for (const Include &include : crossIncludes(core, &unplaced, problems))
        (include.inHeader ? inHeaders : inSources)[include.from].insert(include.to);
    Links out;
    for (const QString &folder : QDir(core).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (folder == kNoLibrary || !kLayerOrder.contains(folder))
            continue;
        QStringList publicLinks = inHeaders.value(folder).values();
        QStringList privateLinks = (inSources.value(folder) - inHeaders.value(folder)).values();
        publicLinks.sort();
        privateLinks.sort();
        QString line = publicLinks.join(QLatin1Char(' '));
        if (!privateLinks.isEmpty())
            line =
                QString(line + QStringLiteral(" private ") + privateLinks.join(QLatin1Char(' '))).trimmed();
        out.insert(folder, line);
    }
    return out;
}

// "FOLDER: what CMake links / what the includes need" for every library where the two differ.
QStringList linkMismatches(const Links &linked, const Links &needed)
{
    QStringList out;
    QStringList folders = linked.keys() + needed.keys();
    folders.removeDuplicates();
    folders.sort();
    for (const QString &folder : folders) {
        if (!linked.contains(folder) || !needed.contains(folder)) {
            out << folder + QStringLiteral(": ") +
                       (linked.contains(folder)
                            ? QStringLiteral("a library, but no folder of core/ in the layer order")
                            : QStringLiteral("a folder of core/ without a library"));
        } else if (linked.value(folder) != needed.value(folder)) {
            out << folder + QStringLiteral(": CMake links \"") + linked.value(folder) +
                       QStringLiteral("\", the includes need \"") + needed.value(folder) + QLatin1Char('"');
        }
    }
    return out;
}

// The links core/CMakeLists.txt wrote for this build.
Links builtLinks(QString *error)
{
    const BoundedFile::Read read =
        BoundedFile::read(QStringLiteral(HOTKERNEL_CORE_LINKS), BoundedFile::kScriptLimit);
    if (!read.ok())
        *error = read.error + QStringLiteral(" (configure the build again: core/CMakeLists.txt writes it)");
    return parseLinks(read.bytes);
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

// The files that run their steps through the session's Host (docs/hosts.md); each entry leaves the
// list only with a reason in that document.
const QStringList kHostAgnostic = {
    QStringLiteral("core/inspect/disasmrunner.h"),
    QStringLiteral("core/inspect/disasmrunner.cpp"),
    QStringLiteral("core/tools/disasmtool.cpp"),
    QStringLiteral("core/tools/gpuinfotool.cpp"),
    QStringLiteral("core/tools/hostgpu.h"),
    QStringLiteral("core/tools/hostgpu.cpp"),
    QStringLiteral("core/tools/rooflinetool.cpp"),
    QStringLiteral("core/inspect/calibraterunner.h"),
    QStringLiteral("core/inspect/calibraterunner.cpp"),
};

// "file:line: text" for every line (comments left out) of files, relative to root, that asks whether
// the host is remote, or names the remote host or a remote runner twin; an unreadable file is one
// such line too.
QStringList hostBranches(const QString &root, const QStringList &files)
{
    static const QRegularExpression branch(
        QStringLiteral("\\bremote\\(\\)|\\bif\\s*\\(\\s*!?\\s*(const\\s+)?(RemoteHost\\b|remote\\b)|"
                       "\\bRemoteHost\\b|\\bRemote(Disasm|Profile|TorchTrace|Calibrate)\\b|\"remote/"));
    QStringList out;
    for (const QString &file : files) {
        const BoundedFile::Read read =
            BoundedFile::read(root + QLatin1Char('/') + file, BoundedFile::kScriptLimit);
        if (!read.ok()) {
            out << file + QStringLiteral(": ") + read.error;
            continue;
        }
        const QStringList lines = QString::fromUtf8(read.bytes).split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QString code = lines[i].left(lines[i].indexOf(QStringLiteral("//")));
            if (branch.match(code).hasMatch())
                out << QStringLiteral("%1:%2: %3").arg(file).arg(i + 1).arg(lines[i].trimmed());
        }
    }
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

    // Every link between core libraries runs down the layer order.
    void linksRunDownTheOrder()
    {
        QString error;
        const Links links = builtLinks(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(links.contains(QStringLiteral("base")));
        const QStringList upward = upwardLinks(links);
        QVERIFY2(upward.isEmpty(),
                 qPrintable(QStringLiteral("links that run up the layer order (docs/hacking.md, \"Layers\"; "
                                           "core/FOLDER/CMakeLists.txt):\n  ") +
                            upward.join(QStringLiteral("\n  "))));
    }

    // Each library links exactly what its includes need: a folder its headers include PUBLIC, one
    // only its sources include PRIVATE, and nothing it does not include.
    void linksAreWhatTheIncludesNeed()
    {
        QString error;
        const Links links = builtLinks(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QStringList problems;
        const Links needed = neededLinks(kCore, &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        const QStringList mismatches = linkMismatches(links, needed);
        QVERIFY2(mismatches.isEmpty(),
                 qPrintable(QStringLiteral("core libraries whose links (core/FOLDER/CMakeLists.txt, "
                                           "target_link_libraries) differ from their includes:\n  ") +
                            mismatches.join(QStringLiteral("\n  "))));
    }

    // Both link checks find what they look for, and only that, in a tree and links made for it.
    void checksFindABadLink()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QDir dir(root.path());
        for (const char *folder : {"base", "process", "session", "tools"})
            QVERIFY(dir.mkpath(QString::fromLatin1(folder)));
        const auto write = [&](const QString &name, const QByteArray &text) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
        };
        QVERIFY(write(QStringLiteral("base/token.h"), "#pragma once\n"));
        QVERIFY(write(QStringLiteral("process/runner.h"), "#pragma once\n#include \"base/token.h\"\n"));
        QVERIFY(write(QStringLiteral("process/runner.cpp"), "#include \"process/runner.h\"\n"));
        QVERIFY(write(QStringLiteral("session/session.cpp"),
                      "#include \"base/token.h\"\n#include \"process/runner.h\"\n"));
        QVERIFY(write(QStringLiteral("tools/tool.cpp"), "#include \"session/session.h\"\n"));
        const Links links = parseLinks("base: session\nprocess: private base\nsession: base process\n");
        QCOMPARE(upwardLinks(links), QStringList{QStringLiteral("hotkernel_base -> hotkernel_session")});
        QStringList problems;
        const Links needed = neededLinks(root.path(), &problems);
        QVERIFY(problems.isEmpty());
        QCOMPARE(
            linkMismatches(links, needed),
            QStringList({QStringLiteral("base: CMake links \"session\", the includes need \"\""),
                         QStringLiteral("process: CMake links \"private base\", the includes need \"base\""),
                         QStringLiteral("session: CMake links \"base process\", the includes need "
                                        "\"private base process\""),
                         QStringLiteral("tools: a folder of core/ without a library")}));
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

    void convertedFilesAskNoHost()
    {
        const QStringList branches = hostBranches(QStringLiteral(HOTKERNEL_SOURCE_DIR), kHostAgnostic);
        QVERIFY2(branches.isEmpty(),
                 qPrintable(QStringLiteral("a file that runs through the session's Host asks which host it "
                                           "has (docs/hosts.md: give Host a method instead):\n  ") +
                            branches.join(QStringLiteral("\n  "))));
    }

    // The scan finds each way of asking, and passes the Host's own calls and comments.
    void scanFindsAHostBranch()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QFile file(root.filePath(QStringLiteral("tool.cpp")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#include \"remote/remotehost.h\"\n"
                   "if (session.remote())\n"
                   "if (RemoteHost *remote = s.session->remote())\n"
                   "if (!remote)\n"
                   "return RemoteProfile::run(request, host, job);\n"
                   "co_await session.host().runTool(spec, job); // not on a remote host: Host decides\n"
                   "const QString remoteFile = host.pathThere(path);\n");
        file.close();
        QCOMPARE(hostBranches(root.path(), {QStringLiteral("tool.cpp")}),
                 (QStringList{
                     QStringLiteral("tool.cpp:1: #include \"remote/remotehost.h\""),
                     QStringLiteral("tool.cpp:2: if (session.remote())"),
                     QStringLiteral("tool.cpp:3: if (RemoteHost *remote = s.session->remote())"),
                     QStringLiteral("tool.cpp:4: if (!remote)"),
                     QStringLiteral("tool.cpp:5: return RemoteProfile::run(request, host, job);"),
                 }));
        QCOMPARE(hostBranches(root.path(), {QStringLiteral("missing.cpp")}).size(), 1);
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
