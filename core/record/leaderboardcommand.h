// SPDX-License-Identifier: Apache-2.0
// `hotkernel leaderboard [--check]`: a CLI-only path (not one of the MCP tools) that regenerates
// LEADERBOARD.md from results/ or checks the file on disk against it. Main thread, blocking I/O.
#pragma once

#include <QString>
#include <QStringList>

#include <cstdio>

namespace hotkernel {

class LeaderboardCommand
{
public:
    // Exit status: 0 written or up to date, 1 --check found a difference (nothing written) or the
    // file could not be written, 2 bad arguments. Messages go to out and err.
    static int run(const QString &root, const QStringList &arguments, FILE *out = stdout, FILE *err = stderr);

    // A short, diff-like description of how actual differs from expected (empty when equal):
    // the first differing line with its number, a little context, and how many lines differ.
    static QString difference(const QString &expected, const QString &actual,
                              const QString &expectedName = QStringLiteral("expected"),
                              const QString &actualName = QStringLiteral("actual"));
};

} // namespace hotkernel
