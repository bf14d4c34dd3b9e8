// SPDX-License-Identifier: Apache-2.0
#include "record/recorder.h"

#include "base/boundedfile.h"
#include "base/confinedwrite.h"
#include "base/targetname.h"
#include "base/usererror.h"
#include "base/visibletext.h"
#include "base/workdir.h"
#include "measure/uncontractedrun.h"
#include "measure/uncontractedscript.h"
#include "process/writeconfinement.h"
#include "record/leaderboard.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

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

QString Recorder::leaderboardName()
{
    return QStringLiteral("LEADERBOARD.md");
}

QString Recorder::leaderboardPath(const QString &root)
{
    return QDir(root).filePath(leaderboardName());
}

QString Recorder::stemFor(const QDateTime &recordedAt)
{
    // Digits only, so the name sorts by time and reads the same under every locale.
    return recordedAt.toUTC().toString(QStringLiteral("yyyyMMdd'T'HHmmss.zzz'Z'"));
}

QString Recorder::writeLog(const ConfinedDir &dir, const QString &stem, const QByteArray &bytes, QString id,
                           const std::function<void(const QString &)> &beforeRename)
{
    if (id.isEmpty())
        id = randomId();
    for (int attempt = 0; attempt < 64; ++attempt) {
        const QString name = QStringLiteral("%1-%2.json").arg(stem, id);
        // Existing::Keep never replaces a file, so two records in the same millisecond with the
        // same id cannot overwrite each other; a throw (the test hook too) leaves nothing behind.
        if (dir.write(name, bytes, ConfinedDir::Existing::Keep, attempt == 0 ? beforeRename : nullptr))
            return dir.filePath(name);
        id = randomId();
    }
    throw UserError(
        QStringLiteral("could not find a free log name in %1: remove stray files there and record again; "
                       "nothing was recorded.")
            .arg(dir.path()));
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
        // A symlink at LEADERBOARD.md is never taken for the board: it is replaced by the file.
        const BoundedFile::Read current =
            BoundedFile::read(update.path, BoundedFile::kJsonLimit, BoundedFile::Links::Refuse);
        const bool same = current.ok() && current.bytes == text;
        if (!same) {
            try {
                ConfinedDir::open(root, QString()).write(leaderboardName(), text);
            } catch (const UserError &e) {
                throw UserError(QStringLiteral("%1 Then run `hotkernel leaderboard` to write %2.")
                                    .arg(e.message(), update.path));
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
                "%1: a target name becomes a folder under results/, so it must be %2; use the name "
                "you gave `new`, such as rmsnorm.")
                .arg(problem, TargetName::rule()));
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
    // Issue 41: a candidate that could write calibrations, the baseline's sources or results/ while
    // it ran may have decided its own verdict. Every verify result carries the field.
    if (const Json confinement =
            request.verify.is_object() ? request.verify.value("confinement", Json()) : Json();
        confinement.is_object() && !WriteConfinement::confined(stringField(confinement, "candidate"))) {
        throw UserError(
            QStringLiteral("this verify's candidate ran unconfined (%1): it could write where the verdict "
                           "reads (calibrations, the baseline's sources, results/), so its result cannot be "
                           "recorded. Verify where the kernel has Landlock (Linux 5.13 or newer with "
                           "landlock among its LSMs: cat /sys/kernel/security/lsm): on this machine with "
                           "hotkernel-supervise installed beside hotkernel, or on a remote host (SSH or "
                           "Slurm) whose nodes' kernels have it, then record that result.")
                .arg(stringField(confinement, "candidate")));
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
    // Line breaks are refused below (a leaderboard cell is one line); other controls and the bidi
    // overrides that could hide or reorder the text where it is shown are dropped, and the log
    // keeps the rest as given.
    const auto oneLine = [](const QString &text) {
        return !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')) &&
               !text.contains(QChar(0x2028)) && !text.contains(QChar(0x2029));
    };
    const QString note = VisibleText::strip(request.note).trimmed();
    const QString who = VisibleText::strip(request.who).trimmed();
    if (note.isEmpty())
        throw UserError(QStringLiteral(
            "note is missing: say in one line what changed in the candidate (--note \"...\")."));
    if (!oneLine(request.note.trimmed()))
        throw UserError(QStringLiteral(
            "note must be one line (it is a leaderboard cell); put details in the candidate's comments."));
    if (who.isEmpty()) {
        throw UserError(QStringLiteral(
            "who is missing: say honestly who made the candidate, e.g. --who \"agent: <model>\" "
            "or --who \"hand-written by <name>\"."));
    }
    if (!oneLine(request.who.trimmed()))
        throw UserError(QStringLiteral("who must be one line."));
    // Issue 39: a 200 KB note made a 300 KB leaderboard row. The limits leave room for a detailed
    // sentence and a model's full name with its settings, and keep a row readable.
    if (note.size() > kNoteLimit)
        throw UserError(QStringLiteral("note is ") + QString::number(note.size()) +
                        QStringLiteral(" characters; a note holds at most ") + QString::number(kNoteLimit) +
                        QStringLiteral(" (it is one leaderboard cell): shorten it and put details in the "
                                       "candidate's comments."));
    if (who.size() > kWhoLimit)
        throw UserError(QStringLiteral("who is ") + QString::number(who.size()) +
                        QStringLiteral(" characters; it holds at most ") + QString::number(kWhoLimit) +
                        QStringLiteral(": name the agent and model, or the person, briefly."));

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

    const QString relativeDir = QStringLiteral("results/") + request.target;
    const ConfinedDir dir = ConfinedDir::open(request.root, relativeDir);

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
