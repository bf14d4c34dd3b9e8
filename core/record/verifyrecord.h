// SPDX-License-Identifier: Apache-2.0
// One verify as the history shows it, read from a verify result (docs/verify-result.md) or a
// recorded log under results/<target>/ (the same plus note, who, recorded_at). Plain values.
#pragma once

#include "base/json.h"

#include <QDateTime>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace hotkernel {

struct VerifyRecord
{
    QDateTime time;
    QString target;
    QString card;
    int n = 0;
    double baselineMeanMs = 0;
    double baselineStdMs = 0;
    double candidateMeanMs = 0;
    double candidateStdMs = 0;
    QString verdict;
    QString reason; // why this verdict (what an incorrect or invalid run shows instead of figures)
    // mean_b / mean_c for faster, slower and inconclusive (also for results written before verify
    // gave it for every verdict: from the means); none for incorrect and invalid.
    std::optional<double> speedup;
    std::optional<std::pair<double, double>> ci99; // the speedup's 99% interval (Fieller)
    QString rule;                                  // "welch" or "seed"
    QString mode;                                  // "warm" or "fresh"
    QString who;
    QString note;
    bool recorded = false;       // false for a verify of this session that no record has written yet
    QString path;                // the log, when recorded
    QString verifiedAt;          // the verify's finished_at: the same verify recorded or not
    QString verifyId;            // the session's id for it (record takes it); empty when none was given
    std::optional<double> flops; // per call, from the contract
    std::optional<double> bytes;

    // nullopt when json is not a verify result (no verdict or no stats).
    static std::optional<VerifyRecord> fromJson(const Json &json);
    // Whether the verdict rests on measured pairs (faster, slower, inconclusive): only those
    // have a speedup and an interval.
    bool measured() const;
    // Every result log under <root>/results/ (core/record's ResultLog), oldest first; what could
    // not be read goes to *problems.
    static std::vector<VerifyRecord> readResults(const QString &root, QStringList *problems = nullptr);
};

} // namespace hotkernel
