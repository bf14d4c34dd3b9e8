// SPDX-License-Identifier: Apache-2.0
#include "record/leaderboardcommand.h"

#include "base/boundedfile.h"
#include "base/usererror.h"
#include "record/recorder.h"

#include <QFile>

#include <algorithm>

namespace hotkernel {

namespace {
void print(FILE *stream, const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stream);
    if (!text.endsWith(QLatin1Char('\n')))
        std::fputc('\n', stream);
    std::fflush(stream);
}

const char Usage[] =
    "usage: hotkernel leaderboard [--check]\n"
    "  Regenerates LEADERBOARD.md in the current directory from the logs under results/ alone.\n"
    "  --check  write nothing; exit 1 and show the first difference when LEADERBOARD.md is\n"
    "           missing or differs by a byte from what results/ gives (with no results, the\n"
    "           file must say so: run `hotkernel leaderboard` once to write it).\n";
} // namespace

QString LeaderboardCommand::difference(const QString &expected, const QString &actual,
                                       const QString &expectedName, const QString &actualName)
{
    if (expected == actual)
        return {};
    const QStringList a = expected.split(QLatin1Char('\n'));
    const QStringList b = actual.split(QLatin1Char('\n'));
    qsizetype first = 0;
    while (first < a.size() && first < b.size() && a.at(first) == b.at(first))
        ++first;
    qsizetype differing = 0;
    for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i)
        differing += (i >= a.size() || i >= b.size() || a.at(i) != b.at(i)) ? 1 : 0;
    QString text = QStringLiteral("--- %1\n+++ %2\nfirst difference at line %3 (%4 line(s) differ):\n")
                       .arg(expectedName, actualName)
                       .arg(first + 1)
                       .arg(differing);
    if (first > 0)
        text += QStringLiteral("  ") + a.at(first - 1) + QLatin1Char('\n');
    for (qsizetype i = first; i < std::min(a.size(), first + 3); ++i)
        text += QStringLiteral("- ") + a.at(i) + QLatin1Char('\n');
    for (qsizetype i = first; i < std::min(b.size(), first + 3); ++i)
        text += QStringLiteral("+ ") + b.at(i) + QLatin1Char('\n');
    if (a.size() != b.size())
        text += QStringLiteral("(%1 has %2 lines, %3 has %4)\n")
                    .arg(expectedName)
                    .arg(a.size())
                    .arg(actualName)
                    .arg(b.size());
    return text;
}

int LeaderboardCommand::run(const QString &root, const QStringList &arguments, FILE *out, FILE *err)
{
    bool check = false;
    for (const QString &a : arguments) {
        if (a == QLatin1String("--check")) {
            check = true;
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            print(out, QString::fromLatin1(Usage));
            return 0;
        } else {
            print(err, QStringLiteral("hotkernel leaderboard: unknown argument '%1'.\n").arg(a) +
                           QString::fromLatin1(Usage));
            return 2;
        }
    }

    const QString path = Recorder::leaderboardPath(root);
    if (check) {
        QStringList warnings;
        int count = 0;
        const QString generated = Recorder::leaderboardText(root, &warnings, &count);
        for (const QString &w : std::as_const(warnings))
            print(err, QStringLiteral("hotkernel leaderboard: warning: %1").arg(w));
        const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kJsonLimit);
        if (!file.ok()) {
            print(err, QStringLiteral(
                           "hotkernel leaderboard --check: %1 is missing (%2 result(s) under results/): "
                           "run `hotkernel leaderboard` and commit the file.")
                           .arg(path)
                           .arg(count));
            return 1;
        }
        const QByteArray &committed = file.bytes;
        if (committed != generated.toUtf8()) {
            print(err,
                  QStringLiteral(
                      "hotkernel leaderboard --check: %1 differs from what the %2 result(s) under results/ "
                      "give; it must never be edited by hand. Run `hotkernel leaderboard` and commit it.\n")
                          .arg(path)
                          .arg(count) +
                      difference(QString::fromUtf8(committed), generated,
                                 QStringLiteral("LEADERBOARD.md (on disk)"),
                                 QStringLiteral("LEADERBOARD.md (from results/)")));
            return 1;
        }
        print(out, QStringLiteral("LEADERBOARD.md is up to date (%1 result(s)).").arg(count));
        return 0;
    }

    try {
        const LeaderboardUpdate update = Recorder::regenerateLeaderboard(root);
        for (const QString &w : std::as_const(update.warnings))
            print(err, QStringLiteral("hotkernel leaderboard: warning: %1").arg(w));
        print(out,
              QStringLiteral("%1 %2 (%3 result(s)).")
                  .arg(update.changed ? QStringLiteral("wrote") : QStringLiteral("unchanged:"), update.path)
                  .arg(update.logCount));
        return 0;
    } catch (const UserError &e) {
        print(err, QStringLiteral("hotkernel leaderboard: %1").arg(e.message()));
        return 1;
    }
}

} // namespace hotkernel
