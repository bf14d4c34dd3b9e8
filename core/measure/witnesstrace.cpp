// SPDX-License-Identifier: Apache-2.0
#include "measure/witnesstrace.h"

#include "base/boundedfile.h"

#include <QFile>
#include <QProcess>
#include <QSocketNotifier>
#include <QTemporaryDir>

#include <cerrno>
#include <fcntl.h>
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
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return nullptr;
    auto trace = std::unique_ptr<WitnessTrace>(new WitnessTrace(true));
    trace->m_piped = true;
    trace->m_pipeRead = fds[0];
    trace->m_pipeWrite = fds[1];
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK); // the read end only: the tracer's writes may wait
    // Room for a window's records between two drains (the kernel grants up to its pipe-max-size).
    ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
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
    char buffer[65536];
    while (true) {
        // not a named file: the witness pipe this object made, read without blocking
        const ssize_t n = ::read(m_pipeRead, buffer, sizeof buffer);
        if (n > 0) {
            m_partial.append(buffer, n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) { // every writer is gone: nothing more can come
            m_pipeNotifier.reset();
            ::close(m_pipeRead);
            m_pipeRead = -1;
        }
        break;
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
        std::vector<WitnessWindow> windows = parse(std::exchange(m_received, {}));
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
    return parse(text);
}

std::vector<WitnessWindow> WitnessTrace::parse(const QByteArray &text)
{
    std::vector<WitnessWindow> windows;
    std::optional<WitnessWindow> open;
    std::vector<std::pair<long long, long long>> intervals;
    for (const QByteArray &raw : text.split('\n')) {
        if (raw.trimmed().isEmpty())
            continue;
        const std::optional<Json> line = parseJson(raw);
        if (!line || !line->is_object())
            continue;
        const QString type = stringField(*line, "type");
        if (type == QLatin1String("witness")) {
            const QString phase = stringField(*line, "phase");
            if (phase == QLatin1String("begin")) {
                if (open) // a begin without an end: the earlier window never closed
                    windows.push_back(*open);
                open = WitnessWindow{};
                intervals.clear();
            } else if (phase == QLatin1String("end") && open) {
                open->complete = true;
                open->announced = int(integerField(*line, "kernels", -1));
                open->dropped = integerField(*line, "dropped", 0);
                open->busyNs = unionLength(intervals);
                windows.push_back(std::exchange(*open, {}));
                open.reset();
            }
        } else if (type == QLatin1String("kernel") && open) {
            const long long start = integerField(*line, "start_ns", 0);
            const long long end = integerField(*line, "end_ns", 0);
            if (end > start)
                intervals.emplace_back(start, end);
            ++open->kernels;
            const long long graph = integerField(*line, "graph_id", 0);
            if (graph == 0) {
                ++open->outsideGraph;
                if (open->outsideNames.size() < 3)
                    open->outsideNames.append(stringField(*line, "name").left(80));
            } else {
                open->graphIds.insert(graph);
            }
        }
    }
    if (open) {
        open->busyNs = unionLength(intervals);
        windows.push_back(*open);
    }
    return windows;
}

bool WitnessTrace::unwitnessed(const std::vector<WitnessWindow> &windows, const Json &line)
{
    return windows.empty() && integerField(line, "witness_replays", 0) <= 0;
}

QString WitnessTrace::violation(const std::vector<WitnessWindow> &windows, const Json &line, Time time)
{
    for (const WitnessWindow &w : windows)
        if (w.forged)
            return QStringLiteral("the worker printed a line posing as the remote supervisor's GPU trace "
                                  "(without its token): a forged witness");
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
    if (windows.size() > 1)
        return QStringLiteral("the GPU tracer recorded %1 witness windows for one run; the contract opens "
                              "exactly one")
            .arg(windows.size());
    const WitnessWindow &w = windows.front();
    if (!w.complete)
        return QStringLiteral("the witness window was never closed: the run did not finish its witness "
                              "replays as the contract makes them");
    if (w.dropped > 0)
        return {}; // CUPTI lost records: too little to accuse anyone, the caller warns
    if (w.announced >= 0 && w.announced != w.kernels)
        return QStringLiteral("the witness file holds %1 kernel records where the tracer counted %2: "
                              "records were added to or removed from it")
            .arg(w.kernels)
            .arg(w.announced);
    if (w.kernels == 0)
        return QStringLiteral("the %1 witnessed replays of the timed block launched no kernel on the GPU: "
                              "a block that does no GPU work cannot have been timed on it")
            .arg(replays);
    const bool graph = stringField(line, "timer") == QLatin1String("graph");
    if (graph && w.outsideGraph > 0)
        return QStringLiteral("%1 kernel(s) ran outside the captured graph during its witnessed replays "
                              "(%2): work launched beside the graph is not what the graph timed")
            .arg(w.outsideGraph)
            .arg(w.outsideNames.join(QStringLiteral(", ")));
    const long long iters = integerField(line, "iters", 0);
    const auto ms = line.find("ms");
    if (time == Time::Compared && iters > 0 && ms != line.end() && ms->is_number()) {
        const double reported = ms->get<double>();
        const double witnessed = double(w.busyNs) / 1e6 / double(replays * iters);
        if (reported < witnessed * kTolerance)
            return QStringLiteral("the run reports %1 per call, but the GPU was busy %2 per call in %3 "
                                  "witnessed replays of the same block (%4 kernels): the reported time "
                                  "is not the block's")
                .arg(millis(reported), millis(witnessed))
                .arg(replays)
                .arg(w.kernels);
    }
    return {};
}

} // namespace hotkernel
