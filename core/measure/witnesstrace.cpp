// SPDX-License-Identifier: Apache-2.0
#include "measure/witnesstrace.h"

#include "base/boundedfile.h"
#include "base/pendingbytes.h"

#include <QFile>
#include <QProcess>
#include <QSocketNotifier>
#include <QTemporaryDir>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace hotkernel {

namespace {

long long integerField(const Json &object, const char *key, long long fallback)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer())
        return fallback;
    return it->get<long long>();
}

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

QString millis(double ms)
{
    return QString::number(ms, 'g', 4) + QStringLiteral(" ms");
}

} // namespace

WitnessTrace::WitnessTrace() : m_dir(std::make_unique<QTemporaryDir>()) {}

WitnessTrace::WitnessTrace(bool streamed) : m_streamed(streamed) {}

WitnessTrace::~WitnessTrace()
{
    m_pipeNotifier.reset();
    for (int fd : {m_pipeRead, m_pipeWrite})
        if (fd >= 0)
            ::close(fd);
}

std::unique_ptr<WitnessTrace> WitnessTrace::piped()
{
    // A socket pair, not a pipe: a process can open its pipe's write end again for reading through
    // /proc/self/fd/N (Landlock does not cover pipes), take the tracer's records out before this
    // process reads them and write edited ones with the same numbers. A socket cannot be opened
    // through /proc, and its end here is shut for writing, the worker's for reading.
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return nullptr;
    ::shutdown(fds[0], SHUT_WR);
    ::shutdown(fds[1], SHUT_RD);
    auto trace = std::unique_ptr<WitnessTrace>(new WitnessTrace(true));
    trace->m_piped = true;
    trace->m_pipeRead = fds[0];
    trace->m_pipeWrite = fds[1];
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK); // the read end only: the tracer's writes may wait
    // Room for a window's records between two drains (the kernel caps it at its wmem_max).
    const int bytes = 1 << 20;
    ::setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    WitnessTrace *raw = trace.get();
    trace->m_pipeNotifier = std::make_unique<QSocketNotifier>(fds[0], QSocketNotifier::Read);
    QObject::connect(trace->m_pipeNotifier.get(), &QSocketNotifier::activated, trace->m_pipeNotifier.get(),
                     [raw] { raw->drainPipe(); });
    return trace;
}

void WitnessTrace::closeWriteEnd()
{
    if (m_pipeWrite >= 0)
        ::close(m_pipeWrite);
    m_pipeWrite = -1;
}

QProcessEnvironment WitnessTrace::pipeEnvironment(const QString &tracer) const
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("CUDA_INJECTION64_PATH"), tracer);
    // The pipe's inode too: a process the worker starts may inherit the variable but not the pipe
    // (core/native/tracer.cpp).
    struct stat info
    {
    };
    const unsigned long long inode = ::fstat(m_pipeWrite, &info) == 0 ? info.st_ino : 0;
    env.insert(QStringLiteral("HOTKERNEL_TRACE_FD"), QStringLiteral("%1:%2").arg(m_pipeWrite).arg(inode));
    env.insert(QStringLiteral("HOTKERNEL_TRACE_WITNESS"), QStringLiteral("1"));
    return env;
}

void WitnessTrace::drainPipe()
{
    if (m_pipeRead < 0)
        return;
    if (readPendingBytes(m_pipeRead, m_partial)) { // every writer is gone: nothing more can come
        m_pipeNotifier.reset();
        ::close(m_pipeRead);
        m_pipeRead = -1;
    }
    if (m_partial.size() > BoundedFile::kJsonLimit) // a flood is not a trace: keep the newest
        m_partial = m_partial.right(BoundedFile::kJsonLimit);
    // Whole lines only, as from the remote supervisor; a line still being written waits.
    const qsizetype lastNewline = m_partial.lastIndexOf('\n');
    if (lastNewline >= 0) {
        m_received += m_partial.left(lastNewline + 1);
        m_partial.remove(0, lastNewline + 1);
    }
}

bool WitnessTrace::isValid() const
{
    return m_streamed || (m_dir && m_dir->isValid());
}

std::unique_ptr<WitnessTrace> WitnessTrace::streamed()
{
    return std::unique_ptr<WitnessTrace>(new WitnessTrace(true));
}

QProcessEnvironment WitnessTrace::remoteEnvironment(const QString &tracer)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("CUDA_INJECTION64_PATH"), tracer);
    env.insert(QStringLiteral("HOTKERNEL_TRACE_WITNESS"), QStringLiteral("1"));
    return env;
}

bool WitnessTrace::takeStreamLine(const QByteArray &text)
{
    if (!m_streamed || m_piped || !text.startsWith("{\"hotkernel_trace\":"))
        return false;
    const std::optional<Json> line = parseJson(text);
    if (!line || !line->is_object() || m_token.isEmpty() ||
        stringField(*line, "token").toLatin1() != m_token) {
        ++m_forged;
        return true;
    }
    m_received +=
        QByteArray::fromBase64(QByteArray::fromStdString(line->value("hotkernel_trace", std::string())));
    return true;
}

QString WitnessTrace::path() const
{
    return m_dir && m_dir->isValid() ? m_dir->filePath(QStringLiteral("witness.jsonl")) : QString();
}

QProcessEnvironment WitnessTrace::environment(const QString &tracer) const
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("CUDA_INJECTION64_PATH"), tracer);
    env.insert(QStringLiteral("HOTKERNEL_TRACE_FILE"), path());
    env.insert(QStringLiteral("HOTKERNEL_TRACE_WITNESS"), QStringLiteral("1"));
    return env;
}

std::unique_ptr<WitnessTrace> WitnessTrace::inject(QProcess &process, const QString &tracer)
{
    auto trace = std::make_unique<WitnessTrace>();
    if (!trace->isValid())
        return nullptr;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QProcessEnvironment witness = trace->environment(tracer);
    for (const QString &key : witness.keys())
        env.insert(key, witness.value(key));
    process.setProcessEnvironment(env);
    return trace;
}

std::vector<WitnessWindow> WitnessTrace::takeNew()
{
    if (m_streamed) {
        drainPipe(); // what the tracer wrote before the result line that asked for this
        // The supervisor sends whole lines only.
        std::vector<WitnessWindow> windows = parse(std::exchange(m_received, {}), &m_sequence);
        if (std::exchange(m_forged, 0) > 0) {
            WitnessWindow forged;
            forged.forged = true;
            windows.push_back(forged);
        }
        return windows;
    }
    if (!isValid())
        return {};
    // Written by the tracer inside the measured process, which could put anything there.
    const BoundedFile::Read fresh =
        BoundedFile::readStart(path(), BoundedFile::kJsonLimit, BoundedFile::Links::Refuse, m_offset);
    if (!fresh.ok())
        return {};
    QByteArray text = m_partial + fresh.bytes;
    m_offset += fresh.bytes.size();
    // A line still being written stays for the next call; windows are judged whole.
    const qsizetype lastNewline = text.lastIndexOf('\n');
    m_partial = text.mid(lastNewline + 1);
    text.truncate(lastNewline + 1);
    return parse(text, &m_sequence);
}

namespace {

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

bool WitnessTrace::unwitnessed(const std::vector<WitnessWindow> &windows, const Json &line)
{
    return windows.empty() && integerField(line, "witness_replays", 0) <= 0;
}

namespace {

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
    const long long iters = integerField(line, "iters", 0);
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
    const long long iters = integerField(line, "iters", 0);
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
