// SPDX-License-Identifier: Apache-2.0
#include "inspect/ncukernelfilter.h"

#include "inspect/kernelwords.h"

#include <QRegularExpression>

namespace hotkernel {

QString NcuKernelFilter::argument(const QString &regex, bool caseSensitive)
{
    // ncu's regex engine takes the (?i) flag (seen with ncu 2025.3 on an H200: "regex:(?i)GELU"
    // profiled the gelu kernel; tests/data/inspect/journey.ncu-demangled-ci.txt).
    if (caseSensitive || regex.startsWith(QLatin1String("(?i)")))
        return QStringLiteral("regex:") + regex;
    return QStringLiteral("regex:(?i)") + regex;
}

QString NcuKernelFilter::regexFor(const QString &kernelName)
{
    // Copies, memsets and syncs appear in torch's tables but are no kernel ncu can profile.
    if (kernelName.startsWith(QLatin1String("Memcpy ")) || kernelName.startsWith(QLatin1String("Memset ")))
        return {};
    // The name up to its parameter list: torch prints the parameters' full types, ncu T1, T2.
    QString name = kernelName;
    name.remove(QLatin1String("(anonymous namespace)"));
    int depth = 0;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        if (c == QLatin1Char('<') || c == QLatin1Char('[') || c == QLatin1Char('{'))
            ++depth;
        else if (c == QLatin1Char('>') || c == QLatin1Char(']') || c == QLatin1Char('}'))
            --depth;
        else if (c == QLatin1Char('(') && depth == 0) {
            name.truncate(i);
            break;
        }
    }
    // Six words in order are enough to tell apart every kernel of the journey's model
    // (tst_journey), and few enough that ncu's backtracking matcher stays fast on the names that
    // do not match.
    const QStringList words = KernelWords::of(name).mid(0, 6);
    QStringList parts;
    for (const QString &w : words)
        parts.append(QStringLiteral("\\b%1\\b").arg(w));
    return parts.join(QLatin1String(".*"));
}

QStringList NcuKernelFilter::availableKernels(QByteArrayView output)
{
    static const QRegularExpression item(QStringLiteral("^\\s*\\d+\\.\\s+(.+?)\\s*$"));
    QStringList names;
    const QString text = QString::fromUtf8(output);
    const qsizetype start = text.indexOf(QLatin1String("Available Kernels:"));
    if (start < 0)
        return names;
    const QStringList lines = text.mid(start).split(QLatin1Char('\n')).mid(1);
    for (const QString &line : lines) {
        const auto m = item.match(line);
        if (!m.hasMatch())
            break;
        names.append(m.captured(1));
    }
    return names;
}

QString NcuKernelFilter::noMatchMessage(const QString &regex, bool caseSensitive, const QStringList &launched,
                                        const QString &stderrTail)
{
    QString message =
        regex.isEmpty()
            ? QStringLiteral("ncu profiled no kernel: check that the command launches CUDA kernels at all.")
            : QStringLiteral("ncu profiled no kernel whose demangled name matches '%1' (%2).")
                  .arg(regex, caseSensitive ? QStringLiteral("case-sensitive") : QStringLiteral("any case"));
    if (!launched.isEmpty()) {
        message += QStringLiteral(" The program launched these kernels; pick a regex from one of them:\n");
        for (const QString &name : launched)
            message += QStringLiteral("  %1\n").arg(name);
        return message;
    }
    message += QStringLiteral(
        " ncu listed no launched kernel either: run profile --tool trace or torch_trace for the names.");
    if (!stderrTail.isEmpty())
        message += QLatin1Char('\n') + stderrTail;
    return message;
}

} // namespace hotkernel
