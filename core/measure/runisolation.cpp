// SPDX-License-Identifier: Apache-2.0
#include "measure/runisolation.h"

#include "inspect/gpuprobe.h"
#include "measure/scriptrunner.h"
#include "process/treefreeze.h"

#include <QDateTime>
#include <QtConcurrentRun>

namespace hotkernel {

namespace {

const char *const SideNames[2] = {"baseline", "candidate"};

// The system clock, which NVML stamps its per-process samples with.
qint64 nowUs()
{
    return QDateTime::currentMSecsSinceEpoch() * 1000;
}

// Thread pool: the stop first, so the clocks and the run's start see the other side still.
void stopAndRead(std::shared_ptr<RunIsolation::Run> run)
{
    if (run->root > 0)
        run->hold = std::make_shared<TreeFreeze>(run->root);
    if (run->gpu)
        run->clocksBefore = GpuProbe::clocksNow();
    run->startUs = nowUs();
}

// Thread pool: read before the thaw, so every sample of the stopped side's processes falls in time
// when they were stopped.
void readAfter(std::shared_ptr<RunIsolation::Run> run)
{
    if (run->gpu)
        // The two seconds before also show NVML's sample period (the other side ran then).
        run->utilisation = GpuProbe::processUtilizationNow(run->startUs, run->startUs - 2000000);
}

} // namespace

RunIsolation::RunIsolation(ScriptRunner &baseline, ScriptRunner &candidate) : m_runners{&baseline, &candidate}
{}

QFuture<void> RunIsolation::standStill(int running, bool otherStarted, bool gpu)
{
    m_running = running;
    const int other = 1 - running;
    Tally &tally = m_tally[other];
    ++tally.runs;
    m_current = std::make_shared<Run>();
    m_current->gpu = gpu;
    if (!gpu && m_unread.isEmpty())
        m_unread =
            QStringLiteral("the target does not time on this machine's GPU (a CPU target or a remote host)");
    if (!otherStarted) {
        // Its start overlaps a warm-up run, whose time counts for nothing.
        ++tally.notFrozen[QStringLiteral("still starting during a warm-up run")];
    } else if (const FreezableTree tree = m_runners[other]->freezableTree(); tree.root <= 0) {
        ++tally.notFrozen[tree.whyNot];
        tally.guardMissing = tally.guardMissing || !tree.between;
    } else {
        m_current->root = tree.root;
    }
    return QtConcurrent::run(&stopAndRead, m_current);
}

QFuture<void> RunIsolation::readRun()
{
    m_current->endUs = nowUs();
    return QtConcurrent::run(&readAfter, m_current);
}

void RunIsolation::finishRun()
{
    Tally &tally = m_tally[1 - m_running];
    QList<long long> stopped;
    if (const TreeFreeze *hold = m_current->hold.get()) {
        if (!hold->error().isEmpty()) {
            ++tally.notFrozen[hold->error()];
            tally.guardMissing = true;
        } else {
            ++tally.frozenRuns;
            tally.processesMax = std::max(tally.processesMax, hold->stopped());
            tally.unconfirmed += hold->unconfirmed();
            stopped = hold->pids();
        }
    }
    m_read[m_running] = m_current->gpu;
    if (const Json period = m_current->utilisation.is_object()
                                ? m_current->utilisation.value("sample_period_us", Json())
                                : Json();
        period.is_number())
        m_samplePeriodUs = period.get<qint64>();
    if (m_current->gpu) {
        m_conditions[m_running] = RunConditions::fromProbes(m_current->clocksBefore, m_current->utilisation,
                                                            stopped, m_current->startUs, m_current->endUs);
        const RunConditions &c = m_conditions[m_running];
        if (c.clockMhz() || c.frozenUnknown.isEmpty())
            m_cardRead = true;
        else if (m_unread.isEmpty())
            m_unread = c.clocksUnknown;
    }
    // The other side runs again now: the thread pool may drop its copy of m_current a little later.
    if (m_current->hold)
        m_current->hold->thaw();
    m_current.reset();
}

QString RunIsolation::judgePair(int pair, bool measured)
{
    if (!m_read[0] || !m_read[1])
        return {};
    m_read[0] = m_read[1] = false;
    if (measured)
        for (int side = 0; side < 2; ++side)
            if (const std::optional<double> mhz = m_conditions[side].clockMhz()) {
                double *range = m_clockRange[side];
                range[0] = range[0] == 0 ? *mhz : std::min(range[0], *mhz);
                range[1] = std::max(range[1], *mhz);
            }
    const QString problem = RunConditionRule::pairProblem(m_conditions[0], m_conditions[1]);
    if (problem.isEmpty())
        return {};
    Json entry{{"pair", pair},
               {"problem", toStd(problem)},
               {"baseline_run", m_conditions[0].json()},
               {"candidate_run", m_conditions[1].json()}};
    QString dropped;
    if (!measured) {
        entry["outcome"] = "warm-up";
    } else if (m_dropped < MaxDroppedPairs) {
        ++m_dropped;
        entry["outcome"] = "dropped";
        dropped = problem;
    } else {
        entry["outcome"] = "counted";
        m_counted << QStringLiteral("pair %1: %2").arg(pair).arg(problem);
        m_countedBusy =
            m_countedBusy || RunConditionRule::frozenSideComputed(m_conditions[0], m_conditions[1]);
    }
    m_pairs.push_back(std::move(entry));
    return dropped;
}

void RunIsolation::amendVerdict(QString &verdict, QString &reason, QStringList &warnings) const
{
    if (m_countedBusy && (verdict == QLatin1String("faster") || verdict == QLatin1String("slower"))) {
        reason = QStringLiteral("the timings alone would say %1 (%2), but a side's stopped processes kept "
                                "computing on the GPU while the other side ran, in more pairs than the %3 "
                                "that may be dropped and run again (run_conditions), so the runs do not "
                                "show each script alone; run verify again, and if it recurs, look for "
                                "processes the scripts start")
                     .arg(verdict, reason)
                     .arg(MaxDroppedPairs);
        verdict = QStringLiteral("inconclusive");
    }
    if (!m_counted.isEmpty())
        warnings.append(QStringLiteral("%1 pairs ran under different conditions and count, since %2 were "
                                       "already dropped: %3")
                            .arg(m_counted.size())
                            .arg(MaxDroppedPairs)
                            .arg(m_counted.join(QStringLiteral("; "))));
    for (int side = 0; side < 2; ++side)
        if (m_tally[side].guardMissing)
            warnings.append(
                QStringLiteral("the %1's processes were not stopped while the other side ran (%2), "
                               "so a process it started could have competed with the other "
                               "side's runs")
                    .arg(QLatin1String(SideNames[side]),
                         m_tally[side].notFrozen.keys().join(QStringLiteral("; "))));
}

Json RunIsolation::frozenJson() const
{
    Json j = Json::object();
    for (int side = 0; side < 2; ++side) {
        const Tally &t = m_tally[side];
        Json notFrozen = Json::object();
        for (auto it = t.notFrozen.cbegin(); it != t.notFrozen.cend(); ++it)
            notFrozen[toStd(it.key())] = it.value();
        j[SideNames[side]] = Json{{"other_side_runs", t.runs},
                                  {"frozen_runs", t.frozenRuns},
                                  {"processes_max", t.processesMax},
                                  {"unconfirmed", t.unconfirmed},
                                  {"not_frozen", notFrozen}};
    }
    return j;
}

Json RunIsolation::conditionsJson() const
{
    const auto range = [](const double(&r)[2]) { return r[1] > 0 ? Json::array({r[0], r[1]}) : Json(); };
    return Json{
        {"card_read", m_cardRead},
        {"why_not", m_cardRead || m_unread.isEmpty() ? Json() : Json(toStd(m_unread))},
        {"clock_tolerance", RunConditionRule::ClockTolerance},
        {"max_dropped_pairs", MaxDroppedPairs},
        {"dropped_pairs", m_dropped},
        {"sm_clock_mhz", Json{{"baseline", range(m_clockRange[0])}, {"candidate", range(m_clockRange[1])}}},
        {"pairs", m_pairs}};
}

QString RunIsolation::summary(const Json &result)
{
    const Json frozen = result.value("frozen", Json());
    const Json conditions = result.value("run_conditions", Json());
    if (!frozen.is_object() || !conditions.is_object())
        return {};
    QStringList parts;
    for (int side = 0; side < 2; ++side) {
        const Json t = frozen.value(SideNames[side], Json::object());
        parts << QStringLiteral("%1 stopped in %2 of %3 runs of the other side")
                     .arg(QLatin1String(SideNames[side]))
                     .arg(t.value("frozen_runs", 0))
                     .arg(t.value("other_side_runs", 0));
    }
    parts << (conditions.value("card_read", false)
                  ? QStringLiteral("card read, %1 pairs dropped").arg(conditions.value("dropped_pairs", 0))
                  : QStringLiteral("card not read (%1)").arg(stringField(conditions, "why_not")));
    return parts.join(QStringLiteral("; "));
}

} // namespace hotkernel
