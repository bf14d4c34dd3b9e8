// SPDX-License-Identifier: Apache-2.0
// WitnessTrace::parse: the tracer's records, per process in the order of their sequence numbers,
// assembled into windows, with the faults that break the tracer's unbroken stream.
#include "measure/witnesstrace.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace hotkernel {

namespace {

long long unionLength(std::vector<std::pair<long long, long long>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    long long total = 0;
    long long start = 0;
    long long end = -1;
    for (const auto &[s, e] : intervals) {
        if (s > end) {
            if (end >= start)
                total += end - start;
            start = s;
            end = e;
        } else {
            end = std::max(end, e);
        }
    }
    if (end >= start)
        total += end - start;
    return total;
}

struct Record
{
    Json json;
    qsizetype position = 0; // the line's index in the text: windows are returned in that order
    long long pid = -1;
    long long seq = -1; // -1: none (a tracer before format 2, or not the tracer's record)
    QString type;
};

// A window being assembled, with where its begin line was.
struct Assembly
{
    WitnessWindow window;
    qsizetype position = 0;
    long long beginSeq = -1;
    std::vector<std::pair<long long, long long>> intervals;
};

void addKernel(Assembly &a, const Json &record)
{
    const long long start = integerField(record, "start_ns", 0);
    const long long end = integerField(record, "end_ns", 0);
    if (end > start)
        a.intervals.emplace_back(start, end);
    ++a.window.kernels;
    const long long graph = integerField(record, "graph_id", 0);
    if (graph == 0) {
        ++a.window.outsideGraph;
        if (a.window.outsideNames.size() < 3)
            a.window.outsideNames.append(stringField(record, "name").left(80));
    } else {
        a.window.graphIds.insert(graph);
    }
}

void setFault(WitnessWindow &w, const QString &why)
{
    if (w.fault.isEmpty()) // the first fault is the one that explains the rest
        w.fault = why;
}

using Placed = std::vector<std::pair<qsizetype, WitnessWindow>>;

void close(Placed &out, Assembly &a)
{
    a.window.busyNs = unionLength(a.intervals);
    if (!a.intervals.empty()) {
        long long first = a.intervals.front().first;
        long long last = a.intervals.front().second;
        for (const auto &[start, end] : a.intervals) {
            first = std::min(first, start);
            last = std::max(last, end);
        }
        a.window.spanNs = last - first;
    }
    out.emplace_back(a.position, std::move(a.window));
}

// The window's end line: what the tracer counted in it, and the window is done.
void closeAtEnd(Placed &out, Assembly &a, const Json &end)
{
    a.window.complete = true;
    a.window.announced = int(integerField(end, "kernels", -1));
    a.window.dropped = integerField(end, "dropped", 0);
    close(out, a);
}

// A tracer before format 2: lines in the order they came, as they were read until issue 41.
void walkUnsequenced(const std::vector<const Record *> &records, Placed &out)
{
    std::optional<Assembly> open;
    for (const Record *r : records) {
        if (r->type == QLatin1String("witness")) {
            const QString phase = stringField(r->json, "phase");
            if (phase == QLatin1String("begin")) {
                if (open) // a begin without an end: the earlier window never closed
                    close(out, *open);
                open = Assembly{};
                open->position = r->position;
            } else if (phase == QLatin1String("end") && open) {
                closeAtEnd(out, *open, r->json);
                open.reset();
            }
        } else if (r->type == QLatin1String("kernel") && open) {
            addKernel(*open, r->json);
        }
    }
    if (open)
        close(out, *open);
}

// One process's records in the order of their numbers. A fault found outside any window goes to
// the next window this text opens, or to a window of its own when none follows.
void walkSequenced(std::vector<const Record *> records, long long pid, WitnessSequence &sequence, Placed &out)
{
    std::stable_sort(records.begin(), records.end(),
                     [](const Record *a, const Record *b) { return a->seq < b->seq; });
    std::optional<Assembly> open;
    QString pending;
    qsizetype pendingPosition = 0;
    const auto fault = [&](const QString &why, qsizetype position) {
        if (open) {
            setFault(open->window, why);
        } else if (pending.isEmpty()) {
            pending = why;
            pendingPosition = position;
        }
    };
    long long expected = sequence.value(pid, -1);
    for (const Record *r : records) {
        if (r->seq < 0) {
            fault(QStringLiteral("a record of process %1 carries no sequence number: the tracer numbers "
                                 "every record it writes, so someone else wrote it")
                      .arg(pid),
                  r->position);
            continue;
        }
        if (expected >= 0 && r->seq < expected) {
            fault(QStringLiteral("record %1 of process %2 came twice: a record was added to the trace")
                      .arg(r->seq)
                      .arg(pid),
                  r->position);
            continue;
        }
        if (expected >= 0 && r->seq > expected)
            fault(QStringLiteral("records %1 to %2 of process %3 are missing from the trace: records were "
                                 "taken out of it")
                      .arg(expected)
                      .arg(r->seq - 1)
                      .arg(pid),
                  r->position);
        expected = r->seq + 1;
        if (r->type == QLatin1String("witness")) {
            const QString phase = stringField(r->json, "phase");
            if (phase == QLatin1String("begin")) {
                if (open) {
                    setFault(open->window,
                             QStringLiteral("a window of process %1 began (record %2) before the "
                                            "one begun at record %3 ended")
                                 .arg(pid)
                                 .arg(r->seq)
                                 .arg(open->beginSeq));
                    close(out, *open);
                }
                open = Assembly{};
                open->position = r->position;
                open->beginSeq = r->seq;
                open->window.sequenced = true;
                if (!pending.isEmpty())
                    setFault(open->window, std::exchange(pending, {}));
            } else if (phase == QLatin1String("end")) {
                if (!open) {
                    fault(QStringLiteral("an end line of process %1 (record %2) closes no window the trace "
                                         "holds")
                              .arg(pid)
                              .arg(r->seq),
                          r->position);
                    continue;
                }
                const long long begun = integerField(r->json, "begin_seq", -1);
                if (begun != open->beginSeq)
                    setFault(open->window,
                             QStringLiteral("the end line of process %1 closes the window begun "
                                            "at record %2, but the trace's window began at "
                                            "record %3")
                                 .arg(pid)
                                 .arg(begun)
                                 .arg(open->beginSeq));
                closeAtEnd(out, *open, r->json);
                open.reset();
            }
        } else if (r->type == QLatin1String("kernel")) {
            if (open)
                addKernel(*open, r->json);
            else
                fault(QStringLiteral("kernel record %1 of process %2 lies outside any witness window: "
                                     "the tracer records kernels only inside one")
                          .arg(r->seq)
                          .arg(pid),
                      r->position);
        } else if (open) { // a header or footer inside a window is not where the tracer puts them
            setFault(open->window, QStringLiteral("record %1 of process %2 (\"%3\") lies inside a witness "
                                                  "window, which holds kernel records only")
                                       .arg(r->seq)
                                       .arg(pid)
                                       .arg(r->type.left(20)));
        }
    }
    if (open)
        close(out, *open);
    if (!pending.isEmpty()) {
        WitnessWindow stray;
        stray.sequenced = true;
        stray.fault = pending;
        out.emplace_back(pendingPosition, std::move(stray));
    }
    if (expected >= 0)
        sequence.insert(pid, expected);
}

} // namespace

std::vector<WitnessWindow> WitnessTrace::parse(const QByteArray &text, WitnessSequence *sequence)
{
    std::vector<Record> records;
    qsizetype position = 0;
    for (const QByteArray &raw : text.split('\n')) {
        ++position;
        if (raw.trimmed().isEmpty())
            continue;
        std::optional<Json> line = parseJson(raw);
        if (!line || !line->is_object())
            continue;
        Record r;
        r.type = stringField(*line, "type");
        r.pid = integerField(*line, "pid", -1);
        r.seq = integerField(*line, "seq", -1);
        r.position = position;
        r.json = std::move(*line);
        records.push_back(std::move(r));
    }
    // Per process: two processes' records share a file (a remote worker's children) but each
    // numbers its own.
    std::vector<long long> pids;
    QHash<long long, std::vector<const Record *>> byPid;
    for (const Record &r : records) {
        if (!byPid.contains(r.pid))
            pids.push_back(r.pid);
        byPid[r.pid].push_back(&r);
    }
    WitnessSequence fresh;
    WitnessSequence &numbers = sequence ? *sequence : fresh;
    Placed placed;
    for (long long pid : pids) {
        const std::vector<const Record *> &own = byPid[pid];
        const bool numbered =
            std::any_of(own.begin(), own.end(), [](const Record *r) { return r->seq >= 0; });
        if (numbered)
            walkSequenced(own, pid, numbers, placed);
        else
            walkUnsequenced(own, placed);
    }
    std::stable_sort(placed.begin(), placed.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<WitnessWindow> windows;
    windows.reserve(placed.size());
    for (auto &[at, window] : placed)
        windows.push_back(std::move(window));
    return windows;
}

} // namespace hotkernel
