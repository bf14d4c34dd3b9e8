// SPDX-License-Identifier: Apache-2.0
#include "session/argumentaliases.h"

#include "base/workdir.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>

namespace hotkernel {

Json ArgumentAliases::apply(const ToolSpec &spec, const Json &arguments, const WorkDir &workDir,
                            QString *problem)
{
    if (!arguments.is_object() || spec.argumentAliases.empty())
        return arguments;
    Json out = arguments;
    for (const ArgumentAlias &alias : spec.argumentAliases) {
        const std::string theirs = toStd(alias.theirs);
        if (!out.contains(theirs))
            continue;
        Json value = out[theirs];
        out.erase(theirs);
        switch (alias.kind) {
        case ArgumentAlias::Kind::Rename:
        case ArgumentAlias::Kind::SplitCommand: {
            const std::string ours = toStd(alias.ours);
            if (out.contains(ours)) {
                *problem =
                    QStringLiteral("'%1' and '%2' are the same argument (%1 is the original hotkernel's "
                                   "name for it); give only '%2'")
                        .arg(alias.theirs, alias.ours);
                return arguments;
            }
            if (alias.kind == ArgumentAlias::Kind::SplitCommand && value.is_string())
                value = toJson(QProcess::splitCommand(toQt(value.get<std::string>())));
            out[ours] = std::move(value);
            break;
        }
        case ArgumentAlias::Kind::Ignore:
            break;
        case ArgumentAlias::Kind::WorkDirOnly: {
            if (!value.is_string()) {
                *problem = QStringLiteral("'%1' must be a string (a directory)").arg(alias.theirs);
                return arguments;
            }
            const QString given = toQt(value.get<std::string>());
            const QString resolved =
                QFileInfo(QDir(workDir.root()).absoluteFilePath(given)).canonicalFilePath();
            if (resolved != QFileInfo(workDir.root()).canonicalFilePath()) {
                *problem =
                    QStringLiteral("'%1' is '%2', but %3 writes only in the working directory %4: start "
                                   "hotkernel there, or leave '%1' out")
                        .arg(alias.theirs, given, spec.name, workDir.root());
                return arguments;
            }
            break;
        }
        }
    }
    return out;
}

} // namespace hotkernel
