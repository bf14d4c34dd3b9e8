// SPDX-License-Identifier: Apache-2.0
// LEADERBOARD.md as a pure function of the result logs: the same logs give the same bytes
// (fixed number formats, no clock, no locale). Also the "best so far" rule. Pure; any thread.
#pragma once

#include "record/resultlog.h"

#include <QList>
#include <QString>

#include <optional>

namespace hotkernel {

class Leaderboard
{
public:
    // The best result for target on card: among logs whose verdict is "faster", the one with the
    // lowest candidate mean (the earliest wins a tie). nullopt when there is none.
    static std::optional<ResultLog> best(const QList<ResultLog> &logs, const QString &target,
                                         const QString &card);
    // True when log beats every earlier log: its verdict is faster and its candidate mean is lower
    // than the best's (or there is no best yet).
    static bool beats(const ResultLog &log, const std::optional<ResultLog> &bestBefore);

    // The whole LEADERBOARD.md text; logs in any order.
    static QString generate(QList<ResultLog> logs);

    // "1.23x" when faster, else "no gain", "incorrect" or "invalid".
    static QString speedupCell(const ResultLog &log);
    // "4", or "3 (older)" for a protocol before this hotkernel's, "-" for none.
    static QString protocolCell(const ResultLog &log);
    // Microseconds with two decimals ("35.10 ± 0.12"), "-" when unknown.
    static QString timeCell(std::optional<double> meanMs, std::optional<double> stdMs);
};

} // namespace hotkernel
