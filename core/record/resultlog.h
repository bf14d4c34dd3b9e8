// SPDX-License-Identifier: Apache-2.0
// One recorded result (results/<target>/<UTC time>-<id>.json): the verify result as given plus
// what is needed to reproduce it. Building, reading and scanning logs; pure file I/O, any thread.
#pragma once

#include "base/json.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace hotkernel {

// One of the two scripts as record read it.
struct ScriptRecord
{
    QString name;         // as verify was given it
    QString path;         // the absolute path that was read
    QString sha256;       // of the bytes read now
    QString verifySha256; // what verify saw
    bool changedSinceVerify = false;
    QByteArray source;
};

class ResultLog
{
public:
    static constexpr const char *Kind = "hotkernel-result-log";
    static constexpr int FormatVersion = 1;

    // Empty when name may be a target (a file and directory name); else why it may not.
    static QString targetNameProblem(const QString &name);
    // Empty when verify looks like the structured result of `verify`; else what is wrong.
    static QString verifyResultProblem(const Json &verify);
    // Reads a script named by the verify result (role "baseline" or "candidate"): its
    // "<role>_path", falling back to "<role>" taken from workDir. Throws UserError when it is gone.
    static ScriptRecord readScript(const Json &verify, const QString &role, const QString &workDir);
    // The card a verify result ran on: the GPU's name, else the contract's device name or device.
    static QString cardOf(const Json &verify);

    // The log record writes. recordedAt is UTC.
    static Json build(const QString &target, const Json &verify, const QString &note, const QString &who,
                      const QDateTime &recordedAt, const ScriptRecord &baseline,
                      const ScriptRecord &candidate);

    // Wraps a parsed log; nullopt (and *error) when json is not a result log.
    static std::optional<ResultLog> fromJson(Json json, const QString &relativePath, QString *error);

    struct Scan
    {
        QList<ResultLog> logs; // ordered by target, then file name (which starts with the time)
        QStringList warnings;  // files that could not be read, one line each
        int ignored = 0;       // JSON files under results/ that are not result logs (calibration data)
    };
    // Reads results/*/*.json under root; never throws, skips and reports what it cannot read.
    static Scan scan(const QString &root);
    // Relative paths of the same files scan() would open, sorted: cheap, for change detection.
    static QStringList listFiles(const QString &root);

    const Json &json() const { return m_json; }
    QString relativePath() const { return m_relativePath; } // results/<target>/<file>.json
    QString target() const;
    QString card() const;
    QString recordedAt() const;
    QString verdict() const;
    QString note() const;
    QString who() const;
    std::optional<double> speedup() const;
    std::optional<double> baselineMean() const;
    std::optional<double> baselineStd() const;
    std::optional<double> candidateMean() const;
    std::optional<double> candidateStd() const;
    std::optional<int> n() const;
    // The measurement contract's protocol the verify ran under (issue 41's migration: records of
    // an older protocol stay on the leaderboard, marked); nullopt for an uncontracted one.
    std::optional<int> protocol() const;

private:
    Json m_json;
    QString m_relativePath;
};

} // namespace hotkernel
