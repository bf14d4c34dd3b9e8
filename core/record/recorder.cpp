// SPDX-License-Identifier: Apache-2.0
#include "record/recorder.h"

#include "base/usererror.h"
#include "base/workdir.h"
#include "measure/uncontractedrun.h"
#include "measure/uncontractedscript.h"
#include "record/leaderboard.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QTemporaryFile>

#include <unistd.h>

namespace hotkernel {

namespace {
QString randomId()
{
    return QStringLiteral("%1").arg(QRandomGenerator::system()->generate() & 0xffffffu, 6, 16,
                                    QLatin1Char('0'));
}

QString firstLine(const QString &text)
{
    return text.section(QLatin1Char('\n'), 0, 0);
}
} // namespace

QString Recorder::leaderboardPath(const QString &root)
{
    return QDir(root).filePath(QStringLiteral("LEADERBOARD.md"));
}

QString Recorder::stemFor(const QDateTime &recordedAt)
{
    // Digits only, so the name sorts by time and reads the same under every locale.
    return recordedAt.toUTC().toString(QStringLiteral("yyyyMMdd'T'HHmmss.zzz'Z'"));
}

QString Recorder::writeLog(const QString &dir, const QString &stem, const QByteArray &bytes, QString id,
                           const std::function<void(const QString &)> &beforeRename)
{
    // The temporary file is a dot file in the same directory: the rename stays on one file
    // system (so it is atomic) and the scan never takes it for a log.
    QTemporaryFile temporary(QDir(dir).filePath(QStringLiteral(".record-XXXXXX.part")));
    if (!temporary.open()) {
        throw UserError(
            QStringLiteral("cannot write in %1 (%2): make the results directory writable and record again.")
                .arg(dir, temporary.errorString()));
    }
    const QString temporaryPath = temporary.fileName();
    if (temporary.write(bytes) != bytes.size() || !temporary.flush() || ::fsync(temporary.handle()) != 0) {
        throw UserError(
            QStringLiteral("writing the log in %1 failed (%2): free some space or fix the directory, then "
                           "record again; nothing was recorded.")
                .arg(dir, temporary.errorString()));
    }
    temporary.close();
    if (beforeRename)
        beforeRename(temporaryPath); // a throw here removes the temporary file (autoRemove)

    if (id.isEmpty())
        id = randomId();
    for (int attempt = 0; attempt < 64; ++attempt) {
        const QString finalPath = QDir(dir).filePath(QStringLiteral("%1-%2.json").arg(stem, id));
        // QFile::rename never replaces an existing file (renameat2 NOREPLACE or link + unlink),
        // so two records in the same millisecond with the same id cannot overwrite each other.
        if (QFile::rename(temporaryPath, finalPath)) {
            temporary.setAutoRemove(false);
            return finalPath;
        }
        if (!QFileInfo::exists(finalPath))
            break; // not a name clash: the directory refuses the rename
        id = randomId();
    }
    throw UserError(
        QStringLiteral("could not move the log into place in %1: make the results directory writable and "
                       "record again; nothing was recorded.")
            .arg(dir));
}

QString Recorder::leaderboardText(const QString &root, QStringList *warnings, int *logCount)
{
    ResultLog::Scan scan = ResultLog::scan(root);
    if (warnings)
        *warnings = scan.warnings;
    if (logCount)
        *logCount = int(scan.logs.size());
    return Leaderboard::generate(std::move(scan.logs));
}

LeaderboardUpdate Recorder::regenerateLeaderboard(const QString &root)
{
    LeaderboardUpdate update;
    update.path = leaderboardPath(root);
    // Another record may add a log between our scan and our write and then write its own
    // board before ours lands; scanning again after writing and repeating until nothing new
    // appeared means the last writer always lists every log that existed when it finished.
    for (int round = 0; round < 16; ++round) {
        const QStringList before = ResultLog::listFiles(root);
        const QByteArray text = leaderboardText(root, &update.warnings, &update.logCount).toUtf8();
        QFile current(update.path);
        const bool same = current.open(QIODevice::ReadOnly) && current.readAll() == text;
        current.close();
        if (!same) {
            QSaveFile file(update.path);
            if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit()) {
                throw UserError(
                    QStringLiteral(
                        "cannot write %1 (%2): make it writable, then run `hotkernel leaderboard`.")
                        .arg(update.path, file.errorString()));
            }
            update.changed = true;
        }
        if (ResultLog::listFiles(root) == before)
            break;
    }
    return update;
}

RecordOutcome Recorder::record(const RecordRequest &request)
{
    if (const QString problem = ResultLog::targetNameProblem(request.target); !problem.isEmpty()) {
        throw UserError(
            QStringLiteral(
                "%1: a target name becomes a directory under results/, so it may not contain "
                "'/', '\\', '..' or control characters; use the name you gave `new`, such as rmsnorm.")
                .arg(problem));
    }
    const QString refusal = QStringLiteral(
        "%1 is uncontracted (not a target made by new_target): its numbers carry no anti-cheat "
        "guarantee, so it can never be recorded. Make a contracted pair with new_target (the "
        "function becomes the baseline, you edit the candidate), verify that and record it.");
    if (request.verify.is_object() &&
        (request.verify.value("contracted", Json(true)) == Json(false) ||
         stringField(request.verify, "label") == QLatin1String(UncontractedRun::label())))
        throw UserError(refusal.arg(QStringLiteral("this verify result")));
    // The label can be edited out of a result; the scripts themselves cannot lie about it.
    for (const char *key : {"baseline_path", "candidate_path"}) {
        const QString path = stringField(request.verify, key);
        if (!path.isEmpty() && QFileInfo(path).isFile() && UncontractedScriptRunner::isUncontracted(path))
            throw UserError(refusal.arg(path));
    }
    if (const QString problem = ResultLog::verifyResultProblem(request.verify); !problem.isEmpty()) {
        throw UserError(
            QStringLiteral(
                "the verify result is not usable: %1. Pass the structured result of verify "
                "(for example the file written by `hotkernel --json verify BASELINE CANDIDATE > v.json`).")
                .arg(problem));
    }
    if (const QString verifyTarget = stringField(request.verify, "target");
        !verifyTarget.isEmpty() && verifyTarget != request.target) {
        throw UserError(QStringLiteral("the verify result is for target '%1', not '%2': record it as %1.")
                            .arg(verifyTarget, request.target));
    }
    const QString note = request.note.trimmed();
    const QString who = request.who.trimmed();
    if (note.isEmpty())
        throw UserError(QStringLiteral(
            "note is missing: say in one line what changed in the candidate (--note \"...\")."));
    if (note.contains(QLatin1Char('\n')) || note.contains(QLatin1Char('\r')))
        throw UserError(QStringLiteral(
            "note must be one line (it is a leaderboard cell); put details in the candidate's comments."));
    if (who.isEmpty()) {
        throw UserError(QStringLiteral(
            "who is missing: say honestly who made the candidate, e.g. --who \"agent: <model>\" "
            "or --who \"hand-written by <name>\"."));
    }
    if (who.contains(QLatin1Char('\n')) || who.contains(QLatin1Char('\r')))
        throw UserError(QStringLiteral("who must be one line."));

    const ScriptRecord baseline =
        ResultLog::readScript(request.verify, QStringLiteral("baseline"), request.root);
    const ScriptRecord candidate =
        ResultLog::readScript(request.verify, QStringLiteral("candidate"), request.root);
    for (const ScriptRecord *script : {&baseline, &candidate}) {
        if (UncontractedScriptRunner::isUncontracted(script->path) && QFileInfo(script->path).isFile())
            throw UserError(refusal.arg(script->path));
        if (script->changedSinceVerify) {
            throw UserError(
                QStringLiteral("%1 changed since verify (sha256 now %2, verify saw %3): the result no longer "
                               "describes the file; re-run verify on it and record that result.")
                    .arg(script->path, script->sha256.left(12), script->verifySha256.left(12)));
        }
    }

    const WorkDir workDir(request.root);
    const QString relativeDir = QStringLiteral("results/") + request.target;
    const QString dir = workDir.requireInside(relativeDir, QStringLiteral("results directory"));
    if (!QDir().mkpath(dir) || !QFileInfo(dir).isDir()) {
        throw UserError(
            QStringLiteral("cannot create %1: make the working directory writable (and remove any file of "
                           "that name), then record again.")
                .arg(dir));
    }

    const ResultLog::Scan existing = ResultLog::scan(request.root);
    const QString card = ResultLog::cardOf(request.verify);
    RecordOutcome outcome;
    outcome.bestBefore = Leaderboard::best(existing.logs, request.target, card);

    const QDateTime recordedAt =
        request.recordedAt.isValid() ? request.recordedAt.toUTC() : QDateTime::currentDateTimeUtc();
    const Json json =
        ResultLog::build(request.target, request.verify, note, who, recordedAt, baseline, candidate);
    const QByteArray bytes = QByteArray::fromStdString(json.dump(2)) + '\n';
    outcome.absoluteLogPath = writeLog(dir, stemFor(recordedAt), bytes, request.id, request.beforeRename);
    outcome.logPath = relativeDir + QLatin1Char('/') + QFileInfo(outcome.absoluteLogPath).fileName();

    QString error;
    auto log = ResultLog::fromJson(json, outcome.logPath, &error);
    if (!log) // build() and fromJson() disagree: a bug, but the log is already safely on disk
        throw UserError(QStringLiteral("the log %1 was written but does not read back (%2).")
                            .arg(outcome.logPath, error));
    outcome.log = *log;
    outcome.beatsBest = Leaderboard::beats(outcome.log, outcome.bestBefore);

    try {
        outcome.leaderboard = regenerateLeaderboard(request.root);
    } catch (const UserError &e) {
        throw UserError(
            QStringLiteral("the result was recorded in %1, but LEADERBOARD.md was not updated: %2")
                .arg(outcome.logPath, firstLine(e.message())));
    }
    QList<ResultLog> all = existing.logs;
    all.append(outcome.log);
    outcome.bestNow = Leaderboard::best(all, request.target, card);
    return outcome;
}

} // namespace hotkernel
