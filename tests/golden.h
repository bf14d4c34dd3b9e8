// SPDX-License-Identifier: Apache-2.0
// Golden files: a parser's whole result, rendered as text, compared with a committed
// tests/data/golden/<name>.expected.txt, so a change anywhere in the output fails a test, not only
// in the fields a targeted assertion names. docs/hacking.md ("Golden files") says how to update.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>

namespace hotkernel::golden {

inline QString directory()
{
    return QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/golden");
}

// Set to 1 to rewrite the expected files from what the parsers produce now.
inline bool updating()
{
    return qEnvironmentVariable("HOTKERNEL_UPDATE_GOLDEN") == QLatin1String("1");
}

inline bool writeText(const QString &path, const QString &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text.toUtf8()) >= 0;
}

// At most this many differing lines in a failure message: the first few say what changed; the
// rest is in the .actual.txt file.
constexpr int kShownDifferences = 5;

// Where a differing line starts to differ, and its text from a little before that point: the
// lines of a record are long, and the change is often one field among twenty.
constexpr qsizetype kExcerptBefore = 24;
constexpr qsizetype kExcerptLength = 96;

inline QString excerpt(const QStringList &lines, qsizetype i, qsizetype from)
{
    if (i >= lines.size())
        return QStringLiteral("(past the end)");
    const QString &text = lines[i];
    QString shown = text.mid(from, kExcerptLength);
    if (from > 0)
        shown.prepend(QStringLiteral("..."));
    if (from + kExcerptLength < text.size())
        shown += QStringLiteral("...");
    return QLatin1Char('"') + shown + QLatin1Char('"');
}

// "line N, column C" with the expected and the actual text there, for the first differing lines.
inline QString firstDifferences(const QStringList &expected, const QStringList &actual)
{
    QString out;
    int shown = 0;
    const qsizetype count = std::max(expected.size(), actual.size());
    for (qsizetype i = 0; i < count && shown < kShownDifferences; ++i) {
        const QString a = i < expected.size() ? expected[i] : QString();
        const QString b = i < actual.size() ? actual[i] : QString();
        if (i < expected.size() && i < actual.size() && a == b)
            continue;
        qsizetype column = 0;
        while (column < a.size() && column < b.size() && a[column] == b[column])
            ++column;
        const qsizetype from = std::max<qsizetype>(0, column - kExcerptBefore);
        out += QStringLiteral("  line %1, column %2\n    expected: %3\n    actual:   %4\n")
                   .arg(i + 1)
                   .arg(column + 1)
                   .arg(excerpt(expected, i, from), excerpt(actual, i, from));
        ++shown;
    }
    return out;
}

// Empty when text is what tests/data/golden/<name>.expected.txt holds. Otherwise writes text to
// <name>.actual.txt beside it and returns a message with the first differing lines and what to do.
// With HOTKERNEL_UPDATE_GOLDEN=1 it writes the expected file instead and returns empty.
inline QString mismatch(const QString &name, QString text)
{
    if (!text.isEmpty() && !text.endsWith(QLatin1Char('\n')))
        text += QLatin1Char('\n');
    const QString expectedPath = directory() + QLatin1Char('/') + name + QStringLiteral(".expected.txt");
    const QString actualPath = directory() + QLatin1Char('/') + name + QStringLiteral(".actual.txt");
    if (updating()) {
        if (!QDir().mkpath(directory()) || !writeText(expectedPath, text))
            return QStringLiteral("cannot write %1: check that the source tree is writable")
                .arg(expectedPath);
        QFile::remove(actualPath);
        return {};
    }
    QFile file(expectedPath);
    const bool found = file.open(QIODevice::ReadOnly);
    const QString expected = found ? QString::fromUtf8(file.readAll()) : QString();
    if (found && expected == text) {
        QFile::remove(actualPath); // left by an earlier failing run
        return {};
    }
    if (!writeText(actualPath, text))
        return QStringLiteral("output differs from %1, and %2 cannot be written: check that the source tree "
                              "is writable")
            .arg(expectedPath, actualPath);
    if (!found)
        return QStringLiteral("golden file %1 does not exist; the output is in %2.\nTo create it, rerun the "
                              "test with HOTKERNEL_UPDATE_GOLDEN=1, read the new file through and commit it.")
            .arg(expectedPath, actualPath);
    const QString saved =
        QStringLiteral("The whole output is in %1;\ncompare: diff -u %2 %1\n").arg(actualPath, expectedPath);
    const QString update =
        QStringLiteral("If the change is intended, rerun the test with HOTKERNEL_UPDATE_GOLDEN=1 and review "
                       "the change to the expected file before committing it.");
    const QStringList expectedLines = expected.split(QLatin1Char('\n'));
    const QStringList actualLines = text.split(QLatin1Char('\n'));
    return QStringLiteral("output differs from golden file %1 (%2 lines expected, %3 produced):\n")
               .arg(expectedPath)
               .arg(expectedLines.size() - 1)
               .arg(actualLines.size() - 1) +
           firstDifferences(expectedLines, actualLines) + saved + update;
}

} // namespace hotkernel::golden

// Fails the test function with golden::mismatch's message when text differs from the golden file.
#define HK_COMPARE_GOLDEN(name, text)                                                                        \
    do {                                                                                                     \
        const QString hkGoldenMessage = hotkernel::golden::mismatch((name), (text));                         \
        if (!hkGoldenMessage.isEmpty())                                                                      \
            QFAIL(qPrintable(hkGoldenMessage));                                                              \
    } while (false)
