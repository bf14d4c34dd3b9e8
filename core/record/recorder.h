// SPDX-License-Identifier: Apache-2.0
// Records a verify result: checks it, writes its log atomically under results/<target>/ with a
// name no other record can take, regenerates LEADERBOARD.md from every log, judges "best so far".
// Blocking file I/O: call it from a worker thread (QtConcurrent), or from a CLI-only path.
#pragma once

#include "record/resultlog.h"

#include <QDateTime>
#include <QString>

#include <functional>
#include <optional>

namespace hotkernel {

class ConfinedDir;

// Lengths a note and a `who` may have, in UTF-16 code units after VisibleText::strip (docs/verify-result.md).
inline constexpr qsizetype kNoteLimit = 2000;
inline constexpr qsizetype kWhoLimit = 200;

struct RecordRequest
{
    QString root; // the working directory; everything is written under it
    QString target;
    Json verify;          // the verify result as given
    QString note;         // one line: what changed (at most kNoteLimit characters once stripped)
    QString who;          // who honestly made the candidate
    QDateTime recordedAt; // default: now (UTC)
    QString id;           // default: random; a taken name gets a fresh random id
    // Test hook: runs after the log's bytes are in the temporary file and before it is renamed;
    // a throw there must leave nothing behind.
    std::function<void(const QString &temporaryPath)> beforeRename;
};

struct LeaderboardUpdate
{
    QString path; // absolute
    int logCount = 0;
    bool changed = false; // whether the file's bytes changed
    QStringList warnings; // logs that were skipped
};

struct RecordOutcome
{
    QString logPath; // relative to root: results/<target>/<file>.json
    QString absoluteLogPath;
    ResultLog log;
    bool beatsBest = false;
    std::optional<ResultLog> bestBefore; // the best for this target and card before this record
    std::optional<ResultLog> bestNow;
    LeaderboardUpdate leaderboard;
};

class Recorder
{
public:
    // Throws UserError with what was wrong and what to do; on any error no log is left behind.
    static RecordOutcome record(const RecordRequest &request);

    // Writes bytes to dir/<stem>-<id>.json through a temporary file and a rename that never
    // replaces an existing file (nor writes through a symlink); returns the absolute path written. Throws
    // UserError.
    static QString writeLog(const ConfinedDir &dir, const QString &stem, const QByteArray &bytes, QString id,
                            const std::function<void(const QString &)> &beforeRename = {});

    // Regenerates root/LEADERBOARD.md from root/results/ and nothing else, atomically; repeats
    // while new logs appear meanwhile, so concurrent records end with every log listed.
    static LeaderboardUpdate regenerateLeaderboard(const QString &root);

    // The text LEADERBOARD.md should hold now (warnings: skipped logs).
    static QString leaderboardText(const QString &root, QStringList *warnings = nullptr,
                                   int *logCount = nullptr);
    static QString leaderboardPath(const QString &root);
    static QString leaderboardName();

    // The log file's name without id and extension: the UTC time to the millisecond.
    static QString stemFor(const QDateTime &recordedAt);
};

} // namespace hotkernel
