// SPDX-License-Identifier: Apache-2.0
// Parses and checks the one JSON result line a target script prints per run (docs/contract.md).
// Pure; any thread. Every way a line can be bad yields a message naming the script and the run.
#pragma once

#include "base/json.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <vector>

namespace hotkernel {

struct RunLine
{
    Json json; // the whole line as printed
    bool ok = false;
    double ms = 0; // per-call ms; 0 when ok is false and the script gave none
    int run = 0;
    QString timer;                 // graph, events, wall (empty when absent)
    QString mismatch;              // why ok is false
    std::vector<double> samplesMs; // per-call ms of each timed replay
};

// The baseline worker's answer to a judge request (protocol 4): the candidate's judged outputs of
// one run against the baseline's reference for the same judge seed.
struct JudgeAnswer
{
    Json json;
    bool ok = false;              // judged_ok
    std::optional<double> maxErr; // null when nothing was compared
    QString mismatch;             // why the values failed (incorrect)
    QString invalid;              // why the file could not be judged (invalid)
};

class RunLineParser
{
public:
    // The worker protocol this hotkernel speaks (docs/contract.md); other versions are refused.
    static constexpr int kProtocol = 5;

    // The fields two lines must agree on for a pair to be valid (docs/contract.md).
    static const std::vector<const char *> &identityFields();
    // The calls of one timed replay: "calls" where the line has it (a timed replay makes one call
    // per rotated set, at most the target's iters: issue 41, class 8), else the target's "iters".
    // 0 when neither is a positive integer.
    static long long blockCalls(const Json &line);

    // Parses one line. run is the index that was requested; the line must carry the same.
    // On failure returns std::nullopt and sets *error to a sentence that names script and run.
    static std::optional<RunLine> parseLine(const QByteArray &line, const QString &script, int run,
                                            QString *error);

    // Picks the result line out of a standalone run's whole stdout (the last non-empty line)
    // and parses it. Empty stdout is "printed no JSON line".
    static std::optional<RunLine> parseOutput(const QByteArray &standardOutput, const QString &script,
                                              int run, QString *error);

    // A worker's first line: {"event": "ready", ...}. Returns the object or sets *error.
    static std::optional<Json> parseReady(const QByteArray &line, const QString &script, QString *error);

    // A judge request's answer line: {"event": "judged", "judged_ok": ..., "run": run, ...}. A line
    // with "error" (a contract-level failure) or one that breaks the protocol sets *error.
    static std::optional<JudgeAnswer> parseJudgeAnswer(const QByteArray &line, const QString &script, int run,
                                                       QString *error);
    // The same out of a standalone `--judge-file` run's whole stdout (its last non-empty line).
    static std::optional<JudgeAnswer> parseJudgeOutput(const QByteArray &standardOutput,
                                                       const QString &script, int run, QString *error);

    // "field: baseline X, candidate Y" for every identity field on which the two lines differ.
    static QStringList identityMismatches(const Json &baseline, const Json &candidate);
};

} // namespace hotkernel
