// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/boundedfile.h"
#include "base/job.h"
#include "base/usererror.h"
#include "record/leaderboard.h"
#include "record/recorder.h"
#include "session/resultids.h"
#include "session/session.h"
#include "session/toolregistry.h"

#include <QCoroFuture>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent>

namespace hotkernel {

namespace {

// What the worker thread hands back: exceptions do not cross QtConcurrent as UserError.
struct RecordRun
{
    std::optional<RecordOutcome> outcome;
    QString error;
};

// What record writes when the caller gave no note or who (the original hotkernel's optional
// arguments): said plainly, so the leaderboard never passes it off as given. Not schema defaults:
// tools/list stays under its size limit (tests/mcp/test_mcp_agents.py).
constexpr char NoNote[] = "(no note given)";
constexpr char NoWho[] = "(who not given)";

Json loadVerifyResult(const Session &session, const Json &value)
{
    if (value.is_object())
        return value;
    const QString text = toQt(value.get<std::string>());
    if (ResultIds::looksLikeId(text.trimmed())) // `hotkernel record TARGET VERIFY_ID`
        return session.resultIds().find(QStringLiteral("verify"), text.trimmed());
    if (text.trimmed().startsWith(QLatin1Char('{'))) {
        QString error;
        if (auto parsed = parseJson(text.toUtf8(), &error))
            return *parsed;
        throw UserError(
            QStringLiteral("verify_result looks like inline JSON but does not parse (%1): pass the verify "
                           "result object or the path of a file holding it.")
                .arg(error));
    }
    const QString path = session.workDir().absolute(text);
    // Named by the caller: a FIFO, a device or a huge file is refused before any byte is read.
    const QByteArray bytes = BoundedFile::readOrThrow(
        path, BoundedFile::kJsonLimit, QStringLiteral("the verify result"),
        QStringLiteral("pass the object verify returned in this session, or record on the command line "
                       "with `hotkernel verify BASELINE CANDIDATE --record --note NOTE --who WHO`."));
    QString error;
    auto parsed = parseJson(bytes, &error);
    if (!parsed) {
        throw UserError(
            QStringLiteral("%1 is not JSON (%2): pass the object verify returned in this session.")
                .arg(path, error));
    }
    return *parsed;
}

QString notVouchedMessage(bool alreadyRecorded)
{
    if (alreadyRecorded) {
        return QStringLiteral(
            "this verify result is already recorded (see results/): each verify is recorded once. Run "
            "verify again to record another measurement.");
    }
    return QStringLiteral(
        "this verify result was not produced by a verify in this hotkernel session, so it is not recorded: "
        "results/ holds only what hotkernel measured, and a JSON file, a copy from another session or an "
        "edited result proves nothing (docs/verify-result.md, \"Who can record\"). Run verify in this "
        "session and record the object it returned (an agent: verify then record through the same "
        "`hotkernel mcp`; the window: Record this verify), or on the command line: `hotkernel verify "
        "BASELINE CANDIDATE --record --note NOTE --who WHO`, or `hotkernel record` of a verify made in the "
        "directory's session (not with --no-session).");
}

// Recording does blocking file I/O (and fsync), so it runs on the thread pool.
QFuture<RecordRun> startRecord(RecordRequest request)
{
    return QtConcurrent::run([request = std::move(request)]() {
        RecordRun r;
        try {
            r.outcome = Recorder::record(request);
        } catch (const UserError &e) {
            r.error = e.message();
        }
        return r;
    });
}

QString uriFor(const QString &relativePath)
{
    return QStringLiteral("hotkernel://") + relativePath;
}

Json bestJson(const std::optional<ResultLog> &best)
{
    if (!best)
        return nullptr;
    const auto mean = best->candidateMean();
    const auto speedup = best->speedup();
    return Json{{"log", toStd(best->relativePath())},
                {"recorded_at", toStd(best->recordedAt())},
                {"candidate_mean_ms", mean ? Json(*mean) : Json(nullptr)},
                {"speedup", speedup ? Json(*speedup) : Json(nullptr)},
                {"who", toStd(best->who())},
                {"note", toStd(best->note())}};
}

QString bestLine(const std::optional<ResultLog> &best)
{
    return QStringLiteral("%1 us (%2, %3)")
        .arg(Leaderboard::timeCell(best->candidateMean(), best->candidateStd()),
             Leaderboard::speedupCell(*best), best->relativePath());
}

QCoro::Task<ToolResult> recordHandler(Session &session, Json arguments, Job &job)
{
    RecordRequest request;
    request.root = session.workDir().root();
    request.target = toQt(arguments["target"].get<std::string>());
    const bool byId = arguments.contains("verify_id");
    if (byId == arguments.contains("verify_result"))
        throw UserError(QStringLiteral(
            "record needs the verify to record: pass verify_id (the id verify returned) or verify_result "
            "(the whole object verify returned), one of them, not both."));
    request.verify = byId ? session.resultIds().find(QStringLiteral("verify"),
                                                     toQt(arguments["verify_id"].get<std::string>()))
                          : loadVerifyResult(session, arguments["verify_result"]);
    // The copy the MCP server shortened to fit the agent's context stands for the full result.
    if (const QString full = session.resultIds().idOfShortened(request.verify); !full.isEmpty())
        request.verify = session.resultIds().find(QStringLiteral("verify"), full);
    request.note = toQt(arguments.value("note", std::string(NoNote)));
    request.who = toQt(arguments.value("who", std::string(NoWho)));

    const QByteArray digest = Session::verifyDigest(request.verify);
    if (!session.takeVerifyVoucher(digest))
        throw UserError(notVouchedMessage(session.recordedVerify(digest)));

    job.setProgress(0, 1, QStringLiteral("writing the log and regenerating LEADERBOARD.md"));
    // A named future (docs/hacking.md, "Compiler rules").
    QFuture<RecordRun> future = startRecord(std::move(request));
    const QPointer<Job> guard(&job);
    const QPointer<Session> sessionGuard(&session);
    const RecordRun run = co_await future;
    if (!guard || !sessionGuard) // the Session is gone: nobody is left to tell
        co_return ToolResult::cancelledResult();
    // The log is on disk once the worker returns; a late cancel does not undo it, so report it.
    if (!run.outcome) {
        // Nothing was written: the verify may be recorded once the problem is fixed.
        session.returnVerifyVoucher(digest);
        throw UserError(run.error);
    }
    const RecordOutcome &o = *run.outcome;
    job.setProgress(1, 1, QStringLiteral("recorded"));

    const auto mean = o.log.candidateMean();
    const auto speedup = o.log.speedup();
    const QString leaderboardRelative = QFileInfo(o.leaderboard.path).fileName();
    Json structured = Json::object();
    structured["log"] = toStd(o.logPath);
    structured["log_uri"] = toStd(uriFor(o.logPath));
    structured["target"] = toStd(o.log.target());
    structured["card"] = toStd(o.log.card());
    structured["verdict"] = toStd(o.log.verdict());
    structured["speedup"] = speedup ? Json(*speedup) : Json(nullptr);
    structured["candidate_mean_ms"] = mean ? Json(*mean) : Json(nullptr);
    structured["beats_best"] = o.beatsBest;
    structured["best_before"] = bestJson(o.bestBefore);
    structured["best"] = bestJson(o.bestNow);
    structured["leaderboard"] = toStd(leaderboardRelative);
    structured["leaderboard_uri"] = toStd(uriFor(leaderboardRelative));
    structured["results_count"] = o.leaderboard.logCount;
    structured["warnings"] = toJson(o.leaderboard.warnings);

    QString text = QStringLiteral("recorded %1\n  %2 on %3: %4, candidate %5 us\n")
                       .arg(o.logPath, o.log.target(), o.log.card(), Leaderboard::speedupCell(o.log),
                            Leaderboard::timeCell(mean, o.log.candidateStd()));
    if (o.beatsBest) {
        text += o.bestBefore
                    ? QStringLiteral("  beats the best so far: was %1\n").arg(bestLine(o.bestBefore))
                    : QStringLiteral(
                          "  beats the best so far: the first faster result for this target and card\n");
    } else {
        text += o.bestBefore
                    ? QStringLiteral("  does not beat the best so far: %1\n").arg(bestLine(o.bestBefore))
                    : QStringLiteral(
                          "  does not beat the best so far: no faster result for this target and card yet\n");
    }
    text += QStringLiteral("  %1 regenerated from %2 result(s)\n")
                .arg(leaderboardRelative)
                .arg(o.leaderboard.logCount);
    for (const QString &w : o.leaderboard.warnings)
        text += QStringLiteral("  warning: %1\n").arg(w);

    ToolResult result = ToolResult::success(std::move(structured), text);
    result.resourceLinks = QStringList{uriFor(o.logPath), uriFor(leaderboardRelative)};
    co_return result;
}

Json bestSchema()
{
    return Json{{"type", Json::array({"object", "null"})},
                {"description", "A faster result for this target and card, or null when there is none."},
                {"properties",
                 {{"log", {{"type", "string"}}},
                  {"recorded_at", {{"type", "string"}}},
                  {"candidate_mean_ms", {{"type", Json::array({"number", "null"})}}},
                  {"speedup", {{"type", Json::array({"number", "null"})}}},
                  {"who", {{"type", "string"}}},
                  {"note", {{"type", "string"}}}}}};
}

} // namespace

void registerRecordTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("record");
    spec.title = QStringLiteral("Record a verify result");
    spec.description = QStringLiteral(
        "Records a verify result, win or lose, under results/<target>/ with note and who, "
        "regenerates LEADERBOARD.md and says whether it beats the best so far for this target and "
        "card. Call it after every verify with its verify_id; others are refused.");
    spec.help = QStringLiteral(
        "Records one verify result, win or lose, as results/<target>/<UTC time>-<id>.json in the working "
        "directory: "
        "the verify result as given, plus note, who, the time, both scripts' sources with their sha256, the "
        "interpreter, torch/Triton/CUDA versions and the card's clocks, temperature and throttle reasons at "
        "verify "
        "time. The log is written atomically (temporary file + rename that never overwrites), so two records "
        "at once "
        "both survive. Then regenerates LEADERBOARD.md from every log under results/ and nothing else, and "
        "says "
        "whether this result beats the best so far for the target and card: the best is the result with "
        "verdict "
        "'faster' and the lowest candidate mean time among the logs for the same target on the same card; a "
        "result "
        "beats it when it is 'faster' and its candidate mean is lower (the first faster one always does). "
        "Use it after every verify, including losses. Pass verify_id, the id verify returned (single use, "
        "valid while the session that issued it lives), or the whole verify result. Only a result that a "
        "verify in this same session returned can be recorded, once: the session keeps each result's sha256 "
        "in memory, so a JSON "
        "file written elsewhere, a result of another session or an edited copy is refused; on the command "
        "line record with `hotkernel verify BASELINE CANDIDATE --record --note NOTE --who WHO`. "
        "Fails, recording nothing, when the target name has "
        "'/', '..' "
        "or control characters, the verify id is unknown or used, the verify result cannot be read or is "
        "not one, a "
        "script "
        "changed since verify (re-run verify), or results/ cannot be written.");
    spec.inputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"target",
           {{"type", "string"}, {"minLength", 1}, {"description", "Target name, as given to new_target."}}},
          {"verify_id",
           {{"type", "string"}, {"minLength", 1}, {"description", "The verify_id verify returned."}}},
          {"verify_result",
           {{"oneOf", Json::array({Json{{"type", "object"}}, Json{{"type", "string"}}})},
            {"description", "Or verify's whole result."}}},
          {"note",
           {{"type", "string"},
            {"minLength", 1},
            {"description", "One line: what changed in the candidate."}}},
          {"who",
           {{"type", "string"},
            {"minLength", 1},
            {"description", "Who made the candidate, honestly: \"agent: <model>\" or a person."}}}}},
        {"required", Json::array({"target"})},
        {"additionalProperties", false}};
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"log",
           {{"type", "string"}, {"description", "The log written, relative to the working directory."}}},
          {"log_uri", {{"type", "string"}}},
          {"target", {{"type", "string"}}},
          {"card", {{"type", "string"}}},
          {"verdict", {{"type", "string"}}},
          {"speedup", {{"type", Json::array({"number", "null"})}}},
          {"candidate_mean_ms", {{"type", Json::array({"number", "null"})}}},
          {"beats_best",
           {{"type", "boolean"},
            {"description", "Whether this result is the new best for target and card."}}},
          {"best_before", bestSchema()},
          {"best", bestSchema()},
          {"leaderboard", {{"type", "string"}}},
          {"leaderboard_uri", {{"type", "string"}}},
          {"results_count", {{"type", "integer"}}},
          {"warnings", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
        {"required", Json::array({"log", "log_uri", "target", "card", "verdict", "beats_best", "best_before",
                                  "best", "leaderboard", "leaderboard_uri", "results_count", "warnings"})}};
    spec.annotations.readOnly = false;
    spec.annotations.destructive = false;
    spec.annotations.idempotent = false;
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {{QStringLiteral("cwd"), QString(), ArgumentAlias::Kind::WorkDirOnly}};
    spec.cliVerb = QStringLiteral("record");
    spec.writesWorkspace = true;
    spec.resultKind = ToolSpec::ResultKind::Record;
    spec.cliPositionals = QStringList{QStringLiteral("target"), QStringLiteral("verify_result")};
    spec.handler = recordHandler;
    registry.add(std::move(spec));
}

} // namespace hotkernel
