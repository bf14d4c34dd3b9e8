// SPDX-License-Identifier: Apache-2.0
#include "inspect/kernelwords.h"

#include <QRegularExpression>
#include <QSet>

namespace hotkernel {

QStringList KernelWords::of(const QString &text)
{
    // Whole identifiers only: "2ul" is a literal, not the word "ul", and "(int)8" has no word 8.
    static const QRegularExpression word(QStringLiteral("\\b[A-Za-z_]\\w*"));
    static const QRegularExpression templateParameter(QStringLiteral("^T\\d*$"));
    static const QSet<QString> everyName{
        QStringLiteral("void"),     QStringLiteral("at"),        QStringLiteral("native"),
        QStringLiteral("const"),    QStringLiteral("std"),       QStringLiteral("c10"),
        QStringLiteral("operator"), QStringLiteral("lambda"),    QStringLiteral("instance"),
        QStringLiteral("array"),    QStringLiteral("char"),      QStringLiteral("int"),
        QStringLiteral("unsigned"), QStringLiteral("long"),      QStringLiteral("short"),
        QStringLiteral("signed"),   QStringLiteral("float"),     QStringLiteral("double"),
        QStringLiteral("bool"),     QStringLiteral("true"),      QStringLiteral("false"),
        QStringLiteral("unnamed"),  QStringLiteral("anonymous"), QStringLiteral("namespace"),
        QStringLiteral("detail")};
    QStringList words;
    for (auto it = word.globalMatch(text); it.hasNext();) {
        const QString w = it.next().captured();
        if (!everyName.contains(w) && !templateParameter.match(w).hasMatch() && !words.contains(w))
            words.append(w);
    }
    return words;
}

} // namespace hotkernel
