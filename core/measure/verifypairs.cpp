// SPDX-License-Identifier: Apache-2.0
// Verify's pairs: both sides run in alternating order while the other stands still, each pair is
// checked (same contract, own checks, witness, bracket), the candidate's judged outputs are judged
// outside its process, and the pair's times count unless its timers or conditions differ.
#include "base/job.h"
#include "base/usererror.h"
#include "measure/judgedoutputs.h"
#include "measure/pairchecks.h"
#include "measure/verifystate.h"
#include "measure/workerscriptrunner.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>

namespace hotkernel {

namespace {

// Pairs re-run because a bracket disagreed, at most this many, then the verify is invalid.
constexpr int kVerifyBracketRetries = 2;

// What both runs of a pair gave: index 0 the baseline, 1 the candidate.
struct VerifyPairRuns
{
    RunLine lines[2];
    RunOutcome outcomes[2];
};

// After a check of a pair: go on with it, drop it for another one, or end the pairs (verdict set).
enum class VerifyPairStep { Go, Again, Stop };

const char *verifySideKey(int k)
{
    return k == 0 ? "baseline" : "candidate";
}

void addVerifySteps(Json &steps, const char *who, const Json &line, double wallSeconds)
{
    Json &into = steps[who];
    const auto add = [&into](const std::string &name, double seconds) {
        into[name] = into.value(name, 0.0) + seconds;
    };
    if (const auto it = line.find("steps_ms"); it != line.end() && it->is_object())
        for (const auto &[name, ms] : it->items())
            if (ms.is_number())
                add(name, ms.get<double>() / 1e3);
    add("run_wall", wallSeconds);
}

void stopVerify(VerifyState &s, const QString &verdict, const QString &reason)
{
    s.verdict = verdict;
    s.reason = reason;
    s.mismatches.append(reason);
}

// The measured phase starts with the first pair whose times count (a pair dropped for its timers
// does not). Returns the pair's judge seed.
quint64 beginVerifyPair(VerifyState &s)
{
    if (s.pair >= s.o.warmup && s.b.ms.empty()) {
        s.measuringAt = s.wall.nsecsElapsed() / 1e9;
        s.measuringSinceUs = QDateTime::currentMSecsSinceEpoch() * 1000;
    }
    // 53 bits: exact in every JSON reader. Both sides get the same seed, so their judged inputs
    // must hash alike.
    const quint64 judgeSeed = QRandomGenerator::system()->generate64() >> 11;
    s.judgeSeeds.push_back(judgeSeed);
    s.b.prepared.runner->setJudgeSeed(judgeSeed);
    s.c.prepared.runner->setJudgeSeed(judgeSeed);
    return judgeSeed;
}

// The candidate's start, overlapped with the baseline's warm-up run, ends here; then the GPU lock
// when the candidate is the side that times on the GPU.
QCoro::Task<void> finishVerifyCandidateStart(VerifyState *state)
{
    VerifyState &s = *state;
    const bool ready = co_await s.job(s.c.prepared.runner->waitReady());
    s.job.require(ready);
    s.candidateReady = true;
    s.readyAt = s.wall.nsecsElapsed() / 1e9;
    if (!s.locked && s.needsGpuLock()) {
        const bool locked = co_await s.job(
            MeasureSetup::takeGpuLock(s.deviceLock, s.remoteLock, s.remote, s.job.pointer(), s.o.timeout));
        s.job.require(locked);
        s.locked = true;
        s.lockedAt = s.wall.nsecsElapsed() / 1e9;
        s.lockWait += s.lockedAt - s.readyAt;
    }
}

// One side's run of the pair. Issue 41: the other side stands still while this one runs; the card
// is read around it.
QCoro::Task<RunOutcome> runVerifySide(VerifyState *state, VerifySide *side)
{
    VerifyState &s = *state;
    if (side == &s.c && !s.candidateReady)
        co_await s.job(finishVerifyCandidateStart(state));
    QFuture<void> standing =
        s.isolation->standStill(side == &s.c, side == &s.c || s.candidateReady, s.locked && !s.remote);
    co_await s.job(standing);
    RunOutcome outcome = co_await s.job(side->prepared.runner->run(s.pair));
    s.job.require(!outcome.cancelled);
    QFuture<void> reading = s.isolation->readRun();
    co_await s.job(reading);
    s.isolation->finishRun();
    co_return outcome;
}

// A run's progress, its steps and its line kept; a contract-level failure (bad definition,
// reference raised, no GPU) measured nothing and ends the verify with the contract's words.
void noteVerifyRun(VerifyState &s, VerifySide *side, const RunOutcome &outcome, VerifyPairRuns &runs)
{
    ++s.runsDone;
    s.job->setProgress(s.runsDone, s.total,
                       QStringLiteral("%1 run %2%3: %4 ms")
                           .arg(QLatin1String(side->name))
                           .arg(s.pair)
                           .arg(s.pair < s.o.warmup ? QStringLiteral(" (warm-up)") : QString())
                           .arg(outcome.line.ok ? QString::number(outcome.line.ms, 'g', 5)
                                                : QStringLiteral("check failed")));
    if (const QString error = stringField(outcome.line.json, "error"); !error.isEmpty())
        throw UserError(QStringLiteral("%1 run %2: the contract reported an error: %3")
                            .arg(side->file.given)
                            .arg(s.pair)
                            .arg(error));
    const int k = side == &s.b ? 0 : 1;
    runs.lines[k] = outcome.line;
    if (s.pair == 0 && !side->prepared.reused && side->prepared.worker) {
        // A worker new to this verify: its start's steps (the script's imports, the inputs, the
        // first call), as "start_*".
        const Json &ready = side->prepared.worker->readyLine();
        if (const auto it = ready.find("steps_ms"); it != ready.end() && it->is_object())
            for (const auto &[name, ms] : it->items())
                if (ms.is_number())
                    s.steps[verifySideKey(k)]["start_" + name] = ms.get<double>() / 1e3;
    }
    addVerifySteps(s.steps, verifySideKey(k), outcome.line.json, outcome.wallSeconds);
    runs.outcomes[k] = outcome;
    if (!side->haveFirst) {
        side->first = outcome.line;
        side->haveFirst = true;
    }
}

// Both runs of the pair, b c, c b, b c, ...: going second is nobody's bias.
QCoro::Task<VerifyPairRuns> runVerifyPair(VerifyState *state)
{
    VerifyState &s = *state;
    const bool baselineFirst = s.pair % 2 == 0;
    VerifySide *order[2] = {baselineFirst ? &s.b : &s.c, baselineFirst ? &s.c : &s.b};
    VerifyPairRuns runs;
    for (VerifySide *side : order) {
        const RunOutcome outcome = co_await s.job(runVerifySide(state, side));
        noteVerifyRun(s, side, outcome, runs);
    }
    co_return runs;
}

// Invalid before incorrect: a changed contract usually also fails the check. True when the two
// runs do not measure the same thing (or a line was not the contract's): the verify is invalid.
bool verifyIdentityFails(VerifyState &s, const VerifyPairRuns &runs, quint64 judgeSeed)
{
    const RunLine &lb = runs.lines[0];
    const RunLine &lc = runs.lines[1];
    s.mismatches = RunLineParser::identityMismatches(lb.json, lc.json);
    if (s.mismatches.isEmpty() && s.pair > 0)
        s.mismatches =
            RunLineParser::identityMismatches(s.b.first.json, lb.json); // a side changed between runs
    if (!s.shippedContract.isEmpty()) {
        for (const RunLine *l : {&lb, &lc}) {
            const QString ran = stringField(l->json, "contract_sha256");
            if (ran != s.shippedContract && s.mismatches.isEmpty())
                s.mismatches.append(
                    QStringLiteral("contract_sha256: the %1 ran a contract (%2) that differs from the one "
                                   "this hotkernel ships (%3); re-vendor it with `hotkernel new --force`")
                        .arg(l == &lb ? QStringLiteral("baseline") : QStringLiteral("candidate"),
                             ran.isEmpty() ? QStringLiteral("none reported") : ran.left(12),
                             s.shippedContract.left(12)));
        }
    }
    if (!s.mismatches.isEmpty()) {
        s.verdict = QStringLiteral("invalid");
        s.reason = QStringLiteral("the two scripts do not measure the same thing: ") + s.mismatches.first();
        return true;
    }
    if (const QString why = PairChecks::untrusted(lb, lc, s.pair, judgeSeed); !why.isEmpty()) {
        stopVerify(s, QStringLiteral("invalid"), why);
        return true;
    }
    return false;
}

// A side that failed its own check (its fn raised, or its outputs did not match) says why first:
// such a run may never have reached the timed or witnessed replays, and "not witnessed" would hide
// the real reason. Saying it cannot help a candidate: it loses. True when the verify ends here.
bool verifyOwnChecksFail(VerifyState &s, const VerifyPairRuns &runs)
{
    const RunLine &lb = runs.lines[0];
    const RunLine &lc = runs.lines[1];
    if (!lb.ok) {
        s.verdict = QStringLiteral("invalid");
        s.mismatches.append(
            QStringLiteral("baseline run %1 failed its own check: %2").arg(s.pair).arg(lb.mismatch));
        s.reason = QStringLiteral("the baseline fails its own correctness check (run %1: %2)")
                       .arg(s.pair)
                       .arg(lb.mismatch);
        return true;
    }
    if (!lc.ok) {
        s.verdict = QStringLiteral("incorrect");
        s.failedRuns.push_back(
            Json{{"side", "candidate"}, {"run", s.pair}, {"mismatch", toStd(lc.mismatch)}});
        s.reason = QStringLiteral("the candidate's output does not match the reference (run %1: %2)")
                       .arg(s.pair)
                       .arg(lc.mismatch);
        return true;
    }
    const WitnessTrace::Time time =
        s.pair < s.o.warmup ? WitnessTrace::Time::Ignored : WitnessTrace::Time::Compared;
    if (const QString why =
            PairChecks::witnessed(runs.outcomes[0], runs.outcomes[1], s.pair, &s.witnessUnavailable, time);
        !why.isEmpty()) {
        stopVerify(s, QStringLiteral("invalid"), why);
        return true;
    }
    return false;
}

// Protocol 5: a bracket that disagrees is re-run a few times (a machine busy elsewhere can hold a
// worker between its replays), then the verify is invalid; a warm-up pair's start overlaps the
// other side's (issue 23) and is not held to it. Not on a remote host: this clock would time the
// connection too, so the bounds measured beside the card do not hold.
VerifyPairStep verifyBracket(VerifyState &s, const VerifyPairRuns &runs)
{
    if (s.pair < s.o.warmup || s.remote)
        return VerifyPairStep::Go;
    QString why = PairChecks::bracketed(runs.outcomes[0], QStringLiteral("baseline"), s.pair);
    if (why.isEmpty())
        why = PairChecks::bracketed(runs.outcomes[1], QStringLiteral("candidate"), s.pair);
    // Events out of order are the process's doing, never a busy machine's: no second try.
    const bool broken = !runs.outcomes[0].bracketFault.isEmpty() || !runs.outcomes[1].bracketFault.isEmpty();
    if (!why.isEmpty() && !broken && s.bracketRetries < kVerifyBracketRetries) {
        ++s.bracketRetries;
        s.warnings.append(QStringLiteral("run %1 was measured again: %2").arg(s.pair).arg(why));
        return VerifyPairStep::Again;
    }
    if (!why.isEmpty()) {
        stopVerify(s, QStringLiteral("invalid"), why);
        return VerifyPairStep::Stop;
    }
    return VerifyPairStep::Go;
}

// Everything a pair is checked for before its judged outputs are judged; the witness of a pair
// that passed is kept.
VerifyPairStep checkVerifyPair(VerifyState &s, const VerifyPairRuns &runs, quint64 judgeSeed)
{
    if (verifyIdentityFails(s, runs, judgeSeed) || verifyOwnChecksFail(s, runs))
        return VerifyPairStep::Stop;
    if (const VerifyPairStep step = verifyBracket(s, runs); step != VerifyPairStep::Go)
        return step;
    s.witness = Json{{"baseline", PairChecks::witnessJson(runs.outcomes[0])},
                     {"candidate", PairChecks::witnessJson(runs.outcomes[1])}};
    if (s.pair >= s.o.warmup) {
        PairChecks::addWitnessRatios(s.witnessRatios["baseline"], runs.outcomes[0]);
        PairChecks::addWitnessRatios(s.witnessRatios["candidate"], runs.outcomes[1]);
    }
    return VerifyPairStep::Go;
}

// The candidate's judged outputs of this pair are there and are this pair's; false (the verify is
// invalid) when not.
bool readVerifyJudged(VerifyState &s, const QString &judgedPath, quint64 judgeSeed, const RunLine &lb)
{
    QString unusable;
    const std::optional<JudgedHeader> judgedHeader = JudgedOutputsParser::read(
        judgedPath, JudgedExpectation{s.pair, judgeSeed, stringField(lb.json, "judge_inputs_sha256")},
        &unusable);
    if (judgedHeader) {
        s.judgedTransport = judgedHeader->transport;
        return true;
    }
    s.verdict = QStringLiteral("invalid");
    s.reason =
        QStringLiteral("the candidate's run %1 left no judged outputs that the judge outside its process "
                       "can use (%2: %3); the contract writes them after the judged replay, so "
                       "something in the candidate's process changed or removed them")
            .arg(s.pair)
            .arg(QDir::toNativeSeparators(judgedPath), unusable);
    s.mismatches.append(s.reason);
    return false;
}

// Protocol 4: the baseline's answer on the candidate's judged outputs decides; false when it says
// they are unusable (invalid) or wrong (incorrect).
bool weighVerifyJudged(VerifyState &s, const JudgeOutcome &judged, const QString &judgedPath)
{
    ++s.judgedRuns;
    s.judgeSeconds += judged.wallSeconds;
    addVerifySteps(s.steps, "judge", judged.answer.json, judged.wallSeconds);
    QFile::remove(judgedPath);
    if (!judged.answer.invalid.isEmpty()) {
        stopVerify(s, QStringLiteral("invalid"),
                   QStringLiteral("the baseline, judging the candidate's run %1 outside the candidate's "
                                  "process, cannot use its judged outputs: %2")
                       .arg(s.pair)
                       .arg(judged.answer.invalid));
        return false;
    }
    if (!judged.answer.ok) {
        s.verdict = QStringLiteral("incorrect");
        s.failedRuns.push_back(Json{{"side", "candidate"},
                                    {"run", s.pair},
                                    {"mismatch", toStd(judged.answer.mismatch)},
                                    {"judged_by", "baseline"}});
        s.reason =
            QStringLiteral("the candidate's output does not match the reference, judged by the baseline "
                           "outside the candidate's process (run %1: %2); the candidate's own check "
                           "said ok, so something in its process changed the check or the reference")
                .arg(s.pair)
                .arg(judged.answer.mismatch);
        return false;
    }
    return true;
}

// Issue 19: a side that cannot be graph-captured is timed with events; from the first such pair on
// both sides are, and that pair's times are dropped (Json null: one timer throughout). A pair whose
// two runs ran under different conditions is dropped too (run_conditions names it). Else its
// measured times count: the GPU's account of the timed replays where it was witnessed (protocol 5).
VerifyPairStep acceptVerifyPair(VerifyState &s, const VerifyPairRuns &runs)
{
    const RunLine &lb = runs.lines[0];
    const RunLine &lc = runs.lines[1];
    s.lastTimers[0] = lb.timer;
    s.lastTimers[1] = lc.timer;
    if (const QString why = PairChecks::differentTimers(lb, lc); !why.isEmpty()) {
        if (!s.eventsForBothFrom.is_null()) {
            stopVerify(s, QStringLiteral("invalid"),
                       QStringLiteral("both sides were asked for the events timer from run %1 on, but run %2 "
                                      "still reports the baseline's %3 timer and the candidate's %4; "
                                      "re-vendor the contract with `hotkernel new --force`")
                           .arg(s.eventsForBothFrom.get<int>())
                           .arg(s.pair)
                           .arg(lb.timer, lc.timer));
            return VerifyPairStep::Stop;
        }
        s.eventsForBothFrom = s.pair + 1;
        s.warnings.append(QStringLiteral("%1, so both sides were timed with CUDA events around a plain block "
                                         "(which includes launch overhead) from run %2 on; run %3's "
                                         "times, from different timers, were dropped")
                              .arg(why)
                              .arg(s.pair + 1)
                              .arg(s.pair));
        s.b.prepared.runner->setEventsTimer(true);
        s.c.prepared.runner->setEventsTimer(true);
        return VerifyPairStep::Again;
    }
    if (!s.isolation->judgePair(s.pair, s.pair >= s.o.warmup).isEmpty())
        return VerifyPairStep::Again; // another pair takes its place
    if (s.pair >= s.o.warmup) {
        s.b.ms.push_back(PairChecks::timeOf(runs.outcomes[0]));
        s.c.ms.push_back(PairChecks::timeOf(runs.outcomes[1]));
    }
    return VerifyPairStep::Go;
}

// After a pair that counted: fixed n reached, or adaptive n's interval narrow enough or its budget
// spent.
bool verifyHasEnoughPairs(VerifyState &s)
{
    const int measured = int(s.b.ms.size());
    if (measured == 0)
        return false;
    s.comparison = Statistics::compare(s.b.ms, s.c.ms, s.o.comparison);
    if (s.o.n)
        return measured >= *s.o.n;
    return !Statistics::needsMorePairs(s.comparison, measured, s.wall.nsecsElapsed() / 1e9 - s.measuringAt,
                                       s.o.adaptive);
}

} // namespace

QCoro::Task<void> VerifyPhases::pairs(VerifyState *state)
{
    VerifyState &s = *state;
    if (s.remote)
        s.warnings.append(
            QStringLiteral("the bracket (hotkernel's clock around each run's bracketed replays, "
                           "protocol 5) is not held against the runs on a remote host: it "
                           "would time the connection too"));
    s.isolation.emplace(*s.b.prepared.runner, *s.c.prepared.runner);
    while (true) {
        const quint64 judgeSeed = beginVerifyPair(s);
        const VerifyPairRuns runs = co_await s.job(runVerifyPair(state));
        const VerifyPairStep checked = checkVerifyPair(s, runs, judgeSeed);
        if (checked == VerifyPairStep::Stop)
            break;
        if (checked == VerifyPairStep::Again) {
            ++s.pair;
            continue;
        }
        // Protocol 4: the candidate's ok is its own process's word. Its judged outputs are judged
        // again by the baseline worker, which never imported the candidate; that answer decides.
        const QString judgedPath = QDir(s.judgeDir->path()).filePath(JudgedOutputsParser::fileName(s.pair));
        QString judgedOn = judgedPath; // where the baseline reads it
        if (s.remote) {
            judgedOn = s.remoteJudgeDir + QLatin1Char('/') + JudgedOutputsParser::fileName(s.pair);
            QFile::remove(judgedPath);
            co_await s.job(s.remote->fetch(judgedOn, judgedPath, s.job.get())); // missing: read() says so
        }
        if (!readVerifyJudged(s, judgedPath, judgeSeed, runs.lines[0]))
            break;
        const JudgeOutcome judged = co_await s.job(s.b.prepared.runner->judge(s.pair, judgedOn));
        s.job.require(!judged.cancelled);
        if (!weighVerifyJudged(s, judged, judgedPath))
            break;
        const VerifyPairStep accepted = acceptVerifyPair(s, runs);
        if (accepted == VerifyPairStep::Stop)
            break;
        ++s.pair;
        if (accepted == VerifyPairStep::Again)
            continue;
        if (verifyHasEnoughPairs(s))
            break;
    }
}

} // namespace hotkernel
