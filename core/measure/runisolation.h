// SPDX-License-Identifier: Apache-2.0
// Verify's "the other side stands still" (issue 41): while one side runs, the other side's whole
// process tree is stopped (TreeFreeze), so a child of the candidate cannot load the card or the
// CPU during the baseline's runs; on a GPU target of this machine the SM clock and the stopped
// side's GPU use are read around each run (RunConditions), and a pair whose two runs ran under
// different conditions is dropped, up to a cap, then named. One per verify, on the Session's thread;
// the stops and NVML reads run on the thread pool.
#pragma once

#include "base/json.h"
#include "measure/runconditions.h"

#include <QFuture>
#include <QMap>
#include <QString>
#include <QStringList>

#include <memory>

namespace hotkernel {

class ScriptRunner;
class TreeFreeze;

class RunIsolation
{
public:
    // Pairs dropped for their conditions before later ones count and are named instead: a card
    // whose clocks differ for every pair must still end the verify.
    static constexpr int MaxDroppedPairs = 3;

    RunIsolation(ScriptRunner &baseline, ScriptRunner &candidate);

    // Before the run of side `running` (0 the baseline, 1 the candidate): stops the other side's
    // tree unless it is still starting (otherStarted false: a candidate whose start overlaps the
    // baseline's warm-up run), and reads the clocks when gpu (a GPU target on this machine's card).
    QFuture<void> standStill(int running, bool otherStarted, bool gpu);
    // Right after the run, before anything else: the stopped side's GPU use over the run and the
    // clocks at its end.
    QFuture<void> readRun();
    // After readRun() finished: keeps what was read and resumes the other side.
    void finishRun();
    // After both runs of a pair: why its times are dropped, or empty when they count (also past
    // the cap, where the pair is named in the result instead).
    QString judgePair(int pair, bool measured);
    // faster or slower becomes inconclusive when a counted pair's stopped side computed on the GPU;
    // warnings for counted pairs at different clocks and for a side that could not be stopped.
    void amendVerdict(QString &verdict, QString &reason, QStringList &warnings) const;
    // "frozen": per side, the runs of the other side during which it was stopped, how many of its
    // processes, and why not where it was not.
    Json frozenJson() const;
    // "run_conditions": whether the card was read, the pairs named, the clocks per side.
    Json conditionsJson() const;

    // One line for the CLI's text from a result's "frozen" and "run_conditions"; empty without them.
    static QString summary(const Json &result);

    // What one run's stop and reads share with the thread pool.
    struct Run
    {
        long long root = 0; // what to stop; 0: nothing
        bool gpu = false;
        std::shared_ptr<TreeFreeze> hold;
        Json clocksBefore;
        Json utilisation;
        qint64 startUs = 0;
        qint64 endUs = 0;
    };

private:
    struct Tally
    {
        int runs = 0;       // runs of the other side
        int frozenRuns = 0; // ... during which this side was stopped
        int processesMax = 0;
        int unconfirmed = 0;
        QMap<QString, int> notFrozen; // why not, and how often
        bool guardMissing = false;    // a reason that leaves the other side's runs exposed
    };

    ScriptRunner *m_runners[2];
    Tally m_tally[2]; // by the side that was to stand still
    std::shared_ptr<Run> m_current;
    int m_running = 0;
    RunConditions m_conditions[2];
    bool m_read[2] = {false, false};
    QString m_unread; // why the card was not read (the first reason seen)
    bool m_cardRead = false;
    qint64 m_samplePeriodUs = 0; // the last one NVML's samples showed
    Json m_pairs = Json::array();
    int m_dropped = 0;
    QStringList m_counted;      // problems of counted pairs past the cap
    bool m_countedBusy = false; // one of them: a stopped side computed
    double m_clockRange[2][2] = {{0, 0}, {0, 0}};
};

} // namespace hotkernel
