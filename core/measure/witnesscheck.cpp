// SPDX-License-Identifier: Apache-2.0
// What a run's witness windows vouch for: the faults that void a window, the reported time held
// against the witnessed one, and (protocol 5) the time per call the windows themselves give.
#include "measure/witnesstrace.h"

#include "measure/runline.h"

#include <algorithm>
#include <vector>

namespace hotkernel {

bool WitnessTrace::unwitnessed(const std::vector<WitnessWindow> &windows, const Json &line)
{
    return windows.empty() && integerField(line, "witness_replays", 0) <= 0;
}

namespace {

QString millis(double ms)
{
    return QString::number(ms, 'g', 4) + QStringLiteral(" ms");
}

// Why one window cannot vouch for anything, whatever the line says (`which` names it).
QString windowFault(const WitnessWindow &w, const QString &which, bool graph)
{
    if (!w.complete)
        return QStringLiteral("the %1 was never closed: the run did not finish its witnessed replays as the "
                              "contract makes them")
            .arg(which);
    if (!w.sequenced)
        return QStringLiteral("the GPU tracer's records carry no sequence numbers (a tracer older than "
                              "format 2), so a record taken out, repeated or added could not be told: "
                              "rebuild hotkernel's tracer (libhotkernel_tracer.so) from this version");
    // Not a re-run: a candidate can make CUPTI drop records (a flood of tiny kernels in the
    // witnessed replay), and a retry would give it as many tries as it wants (docs/contract.md).
    if (w.dropped > 0)
        return QStringLiteral("CUPTI lost %1 kernel record(s) during the %2, so the witness cannot vouch "
                              "for the run: a block that launches more kernels than the tracer can record "
                              "in one replay cannot be verified; launch fewer, larger kernels (or capture "
                              "them in a graph)")
            .arg(w.dropped)
            .arg(which);
    if (w.announced >= 0 && w.announced != w.kernels)
        return QStringLiteral("the %1 holds %2 kernel records where the tracer counted %3: records were "
                              "added to or removed from it")
            .arg(which)
            .arg(w.kernels)
            .arg(w.announced);
    if (w.kernels == 0)
        return QStringLiteral("the %1 launched no kernel on the GPU: a block that does no GPU work cannot "
                              "have been timed on it")
            .arg(which);
    if (graph && w.outsideGraph > 0)
        return QStringLiteral("%1 kernel(s) ran outside the captured graph during the %2 (%3): work "
                              "launched beside the graph is not what the graph timed")
            .arg(w.outsideGraph)
            .arg(which, w.outsideNames.join(QStringLiteral(", ")));
    return {};
}

// Why `reported` ms per call is not what `w` shows for `calls` calls, or empty. `upper`: whether a
// report above the span is a fault too, which matters only where the reported time is the one
// verify compares (a line without timed windows); once the windows give the time (protocol 5), the
// events around a traced replay honestly include the tracer's launch overhead.
QString timeFault(double reported, const WitnessWindow &w, double calls, const QString &which, bool upper)
{
    const double busy = double(w.busyNs) / 1e6 / calls;
    if (reported < busy * WitnessTrace::kMinReportedOverBusy)
        return QStringLiteral("the run reports %1 per call, but the GPU was busy %2 per call in the %3 "
                              "(%4 kernels): the reported time is not the block's")
            .arg(millis(reported), millis(busy), which)
            .arg(w.kernels);
    const double span = double(w.spanNs) / 1e6 / calls;
    if (upper && reported > span * WitnessTrace::kMaxReportedOverSpan)
        return QStringLiteral("the run reports %1 per call, but the %2 took %3 per call on the GPU from the "
                              "first kernel's start to the last one's end (%4 kernels): the reported time "
                              "is more than the block took")
            .arg(millis(reported), which, millis(span))
            .arg(w.kernels);
    return {};
}

} // namespace

QString WitnessTrace::violation(const std::vector<WitnessWindow> &windows, const Json &line, Time time)
{
    for (const WitnessWindow &w : windows) {
        if (w.forged)
            return QStringLiteral("the worker printed a line posing as the remote supervisor's GPU trace "
                                  "(without its token): a forged witness");
        if (!w.fault.isEmpty())
            return QStringLiteral("the GPU tracer's records are not the stream it wrote: ") + w.fault;
    }
    const long long replays = integerField(line, "witness_replays", 0);
    if (replays <= 0)
        return QStringLiteral("the line reports no witness replays, but the GPU tracer recorded %1 witness "
                              "window(s) for the run: the line is not the run's")
            .arg(windows.size());
    if (windows.empty())
        return QStringLiteral(
                   "the GPU tracer recorded no witness window for this run, although the line "
                   "claims %1 witness replays: the line was not produced by the run the tracer saw")
            .arg(replays);
    // Protocol 5: one window per timed replay, then the judged replay's.
    const long long timed = integerField(line, "timed_windows", 0);
    if (timed < 0 || windows.size() != size_t(timed) + 1)
        return QStringLiteral("the GPU tracer recorded %1 witness windows for one run, where the line "
                              "claims %2 timed replays in windows and the contract adds one for the judged "
                              "replay")
            .arg(windows.size())
            .arg(timed);
    const bool graph = stringField(line, "timer") == QLatin1String("graph");
    for (size_t i = 0; i < windows.size(); ++i) {
        const QString which = i + 1 == windows.size()
                                  ? QStringLiteral("judged replay's witness window")
                                  : QStringLiteral("witness window of timed replay %1").arg(i);
        if (const QString why = windowFault(windows[i], which, graph); !why.isEmpty())
            return why;
    }
    const long long iters = RunLineParser::blockCalls(line);
    const auto ms = line.find("ms");
    if (time != Time::Compared || iters <= 0 || ms == line.end() || !ms->is_number())
        return {};
    if (const QString why =
            timeFault(ms->get<double>(), windows.back(), double(replays * iters),
                      QStringLiteral("%1 witnessed replays of the same block").arg(replays), timed == 0);
        !why.isEmpty())
        return why;
    // Each timed replay against its own window: what the worker reported for it is a cross-check
    // of the time the core takes from the windows (timedMsPerCall).
    const auto samples = line.find("samples_ms");
    if (timed > 0 && (samples == line.end() || !samples->is_array() || samples->size() != size_t(timed)))
        return QStringLiteral("the line reports %1 timed samples for %2 witnessed timed replays")
            .arg(samples != line.end() && samples->is_array() ? int(samples->size()) : 0)
            .arg(timed);
    for (long long i = 0; i < timed; ++i) {
        const Json &sample = (*samples)[size_t(i)];
        if (!sample.is_number())
            return QStringLiteral("timed sample %1 is not a number").arg(i);
        if (const QString why = timeFault(sample.get<double>(), windows[size_t(i)], double(iters),
                                          QStringLiteral("witness window of timed replay %1").arg(i), false);
            !why.isEmpty())
            return why;
    }
    return {};
}

std::optional<double> WitnessTrace::timedMsPerCall(const std::vector<WitnessWindow> &windows,
                                                   const Json &line)
{
    const long long timed = integerField(line, "timed_windows", 0);
    const long long iters = RunLineParser::blockCalls(line);
    if (timed <= 0 || iters <= 0 || windows.size() < size_t(timed))
        return std::nullopt;
    std::vector<double> perCall;
    for (long long i = 0; i < timed; ++i)
        perCall.push_back(double(windows[size_t(i)].spanNs) / 1e6 / double(iters));
    std::sort(perCall.begin(), perCall.end());
    const size_t n = perCall.size();
    return n % 2 ? perCall[n / 2] : (perCall[n / 2 - 1] + perCall[n / 2]) / 2;
}

std::optional<double> WitnessTrace::timedTotalMs(const std::vector<WitnessWindow> &windows, const Json &line)
{
    const long long timed = integerField(line, "timed_windows", 0);
    if (timed <= 0 || windows.size() < size_t(timed))
        return std::nullopt;
    double total = 0;
    for (long long i = 0; i < timed; ++i)
        total += double(windows[size_t(i)].spanNs) / 1e6;
    return total;
}

} // namespace hotkernel
