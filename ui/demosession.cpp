// SPDX-License-Identifier: Apache-2.0
#include "demosession.h"

#include "base/json.h"
#include "measure/benchrun.h"
#include "session/toolregistry.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

#include <memory>

namespace hotkernel::DemoSession {

namespace {

const QString kRoot = QStringLiteral(":/hotkernel-demo");

} // namespace

int dataFileCount()
{
    int count = 0;
    QDirIterator it(kRoot, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        if (!it.next().endsWith(QLatin1String("/MANIFEST.md")))
            ++count;
    }
    return count;
}

QString extract(QString *error)
{
    static std::unique_ptr<QTemporaryDir> dir;
    dir = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("hotkernel-demo-XXXXXX")));
    if (!dir->isValid()) {
        if (error)
            *error = QStringLiteral("cannot create a temporary directory for the demo: %1")
                         .arg(dir->errorString());
        return {};
    }
    QDirIterator it(kRoot, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString target = QDir(dir->path()).filePath(source.mid(kRoot.size() + 1));
        QDir().mkpath(QFileInfo(target).absolutePath());
        // Resource files are read-only; the copies must be writable (the session saves there).
        // not a named file: the demo bundled as a resource
        if (!QFile::copy(source, target)) {
            if (error)
                *error = QStringLiteral("cannot copy the demo file %1 to %2").arg(source, target);
            return {};
        }
        QFile::setPermissions(target, QFile::permissions(target) | QFileDevice::WriteOwner);
    }
    return dir->path();
}

QList<RunSummary> recordedRuns(const QString &dir, const ToolRegistry &tools, QString *error)
{
    const QDir calls(QDir(dir).filePath(QStringLiteral("calls")));
    auto read = [&](const QString &name, QByteArray *bytes) {
        QFile file(calls.filePath(name)); // not a named file: the demo bundled as a resource
        if (!file.open(QIODevice::ReadOnly)) {
            if (error)
                *error = QStringLiteral("cannot read the demo's recorded call %1: %2. Rebuild hotkernel "
                                        "from a complete source tree.")
                             .arg(file.fileName(), file.errorString());
            return false;
        }
        *bytes = file.readAll(); // not a named file: a resource
        return true;
    };
    QByteArray bytes;
    if (!read(QStringLiteral("calls.json"), &bytes))
        return {};
    QString why;
    const std::optional<Json> index = parseJson(bytes, &why);
    if (!index || !index->is_object() || !index->contains("calls") || !(*index)["calls"].is_array()) {
        if (error)
            *error = QStringLiteral("the demo's calls/calls.json is not a list of calls (%1)").arg(why);
        return {};
    }
    QList<RunSummary> runs;
    for (const Json &call : (*index)["calls"]) {
        const QString tool = stringField(call, "tool");
        QByteArray result;
        QByteArray progress;
        if (!read(stringField(call, "result"), &result) || !read(stringField(call, "progress"), &progress))
            return {};
        const std::optional<Json> structured = parseJson(result, &why);
        if (!structured) {
            if (error)
                *error = QStringLiteral("the demo's recorded %1 is not JSON: %2")
                             .arg(stringField(call, "result"), why);
            return {};
        }
        // The call printed its JSON (--json); its text is the command, the progress it wrote and,
        // for a bench, the text the tool makes of that JSON (what a live session's row holds).
        QString text = QStringLiteral("$ %1\n%2\n\n")
                           .arg(stringField(call, "command"), QString::fromUtf8(progress).trimmed());
        const ToolSpec *spec = tools.find(tool);
        text += spec && spec->resultKind == ToolSpec::ResultKind::Bench
                    ? BenchRun::text(*structured)
                    : QStringLiteral("(the whole result, as --json printed it, is in the JSON tab)");
        runs.append(RunSummary::fromRecorded(tool, stringField(call, "client"),
                                             call.value("arguments", Json::object()), *structured, text,
                                             spec));
    }
    return runs;
}

} // namespace hotkernel::DemoSession
