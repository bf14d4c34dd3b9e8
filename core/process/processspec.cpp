// SPDX-License-Identifier: Apache-2.0
#include "process/processspec.h"

#include <QRegularExpression>

namespace hotkernel {

QString shellQuote(const QString &argument)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_./:=,@%+-]+$"));
    if (!argument.isEmpty() && safe.match(argument).hasMatch())
        return argument;
    QString quoted = argument;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString ProcessSpec::commandLine() const
{
    QStringList parts{shellQuote(program)};
    for (const QString &a : arguments)
        parts.append(shellQuote(a));
    return parts.join(QLatin1Char(' '));
}

QString ProcessResult::stderrTail(int lines) const
{
    const QStringList all = QString::fromUtf8(standardError).trimmed().split(QLatin1Char('\n'));
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join(QLatin1Char('\n'));
}

} // namespace hotkernel
