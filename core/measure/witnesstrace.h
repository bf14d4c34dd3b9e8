// SPDX-License-Identifier: Apache-2.0
// The GPU's own account of a run (issue 19): hotkernel's CUPTI tracer, injected into the workers
// in witness mode, records only the untimed witness replays the contract brackets with
// hotkernel_tracer_witness(1/0). Each bracket becomes a WitnessWindow; the core compares it with
// the time the run line reports, so a patched timer, a forged line or a block that launches
// nothing cannot pass for fast.
#pragma once

#include "base/json.h"

#include <QByteArray>
#include <QHash>
#include <QProcessEnvironment>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QProcess;
class QSocketNotifier;
class QTemporaryDir;

namespace hotkernel {

struct WitnessWindow
{
    bool complete = false; // the end line came (the window was closed, the kernels flushed)
    int kernels = 0;       // kernel records inside the window
    int announced = -1;    // kernels the end line counts (-1: no end line)
    long long dropped = 0; // records CUPTI lost (the run is invalid when > 0)
    long long busyNs = 0;  // union of the kernels' [start, end] intervals
    long long spanNs = 0;  // first kernel's start to last kernel's end
    int outsideGraph = 0;  // kernels with graph_id 0 (not launched by a CUDA graph)
    QStringList outsideNames;
    QSet<long long> graphIds;
    // A remote worker printed a line posing as its supervisor's trace (WitnessTrace::takeStreamLine).
    bool forged = false;
    // Every record carried the tracer's sequence number (tracer format 2, issue 41). A window
    // without them cannot show a record removed, repeated or added, and is not judged.
    bool sequenced = false;
    // Why the records around this window are not the tracer's unbroken stream: a number missing,
    // one that came twice, a kernel record outside any window, an end line that names another
    // begin. Empty when none. A window made only to carry such a fault has complete == false.
    QString fault;
};

// The next sequence number expected from each traced process, kept between the reads of one
// worker's trace so that a record removed between two windows shows too.
using WitnessSequence = QHash<long long, long long>;

class WitnessTrace
{
public:
    // The bounds on a run's reported time per call against its witness, in both directions (issue
    // 41): a candidate that reports less than its GPU did is faster for nothing, and so is one
    // whose baseline reports more. The one place to change them; they come from honest runs'
    // ratios measured on the GPU machine with bench/witness_ratios.py (docs/contract.md).
    // - Below kMinReportedOverBusy of the busy time (the union of the kernels' intervals, the least
    //   the GPU can have spent), the reported time is not the block's. Honest runs on an H100
    //   (2026-12-07, docs/contract.md): 0.987 at the lowest over the examples' 42 measured runs,
    //   0.907 over the honest corpus's ten verifies (a load_inline extension); 0.85 leaves a free
    //   1.18x at most, where 0.75 left 1.33x.
    // - Above kMaxReportedOverSpan of the span (first kernel's start to last kernel's end, gaps
    //   included, the most the witnessed replays took on the GPU), the reported time is more than
    //   the block took. Not the busy time: an honest block with host work between its kernels (the
    //   events timer) reports twice its busy time (the rmsnorm capture under tests/data). Honest
    //   runs on the H100: 1.029 at the highest of the span over 42 runs, and 1.098 at the highest
    //   of the busy time (which the span is never below) over the corpus; 1.15 above both.
    static constexpr double kMinReportedOverBusy = 0.85;
    // Protocol 5: held only against a line without timed windows, whose reported time is still the
    // one verify compares; with them the windows give the time, and the events around a traced
    // replay include the tracer's launch overhead (about 0.5 ms a graph launch on an H200).
    static constexpr double kMaxReportedOverSpan = 1.15;

    // A private directory (0700) for one runner's trace file; isValid() false when it cannot be
    // made, in which case the runner's runs go unwitnessed and verify says so.
    WitnessTrace();
    ~WitnessTrace();
    WitnessTrace(const WitnessTrace &) = delete;
    WitnessTrace &operator=(const WitnessTrace &) = delete;

    bool isValid() const;
    QString path() const;
    // The windows the file gained since the last call, oldest first.
    std::vector<WitnessWindow> takeNew();

    // Every window in a tracer file's text (pure; tests feed it real captures). Records are taken
    // per process in the order of their sequence numbers, not of their timestamps or lines;
    // `sequence` carries the numbers expected next from one read to the next (none: a fresh one).
    static std::vector<WitnessWindow> parse(const QByteArray &text, WitnessSequence *sequence = nullptr);
    // True when the run made no witness at all: the contract reports no witness replays and the
    // tracer wrote no window (the tracer was not injected, or CUPTI refused). Whether that is an
    // accusation depends on the other side: see VerifyRun.
    static bool unwitnessed(const std::vector<WitnessWindow> &windows, const Json &line);
    // Whether violation() holds the reported time against the witnessed busy time. A warm-up run's
    // time counts for nothing, and verify lets it overlap the other side's start (issue 23), whose
    // kernels share the card then: only what the witness saw launched is checked for it.
    enum class Time { Compared, Ignored };
    // Why a run line's time is not what its witness shows, or empty. `line` is the contract's
    // result line (iters, timer, ms, witness_replays); `windows` what takeNew() gave for it.
    static QString violation(const std::vector<WitnessWindow> &windows, const Json &line,
                             Time time = Time::Compared);
    // Protocol 5 (issue 41): the run's time per call as the GPU saw it, the median over its timed
    // replays' windows of each window's span (first kernel's start to last kernel's end) over the
    // block's calls. The time verify compares; what the worker reported is a cross-check
    // (violation()). std::nullopt when the line names no timed windows.
    static std::optional<double> timedMsPerCall(const std::vector<WitnessWindow> &windows, const Json &line);
    // The timed windows' spans added up, in ms (what the bracket bounds); std::nullopt as above.
    static std::optional<double> timedTotalMs(const std::vector<WitnessWindow> &windows, const Json &line);
    // The variables that inject `tracer` in witness mode, writing to path().
    QProcessEnvironment environment(const QString &tracer) const;
    // A new trace whose tracer a process about to start will load: its environment becomes the
    // system's plus environment(tracer). Null, and the process left as it was, when no private
    // directory could be made (its runs then go unwitnessed).
    static std::unique_ptr<WitnessTrace> inject(QProcess &process, const QString &tracer);

    // A local worker that may not write the trace file (issue 41): the tracer writes to the sending
    // end of a socket pair (HOTKERNEL_TRACE_FD; a socket, since a pipe's write end can be opened
    // again for reading through /proc) whose other end only this object holds, drained as records
    // come, so what the worker wrote cannot be reopened, taken back or rewritten later. The tracer
    // writes a window's end line before the contract prints its result line, so the records of a
    // run are in the socket when its line arrives. Null when no socket pair can be made.
    static std::unique_ptr<WitnessTrace> piped();
    // The descriptor the worker inherits (close-on-exec here; Supervisor::wrap passes it on).
    int pipeWriteEnd() const { return m_pipeWrite; }
    // After the process started: this process's copy of the write end goes.
    void closeWriteEnd();
    // The variables that inject `tracer` in witness mode writing to the pipe.
    QProcessEnvironment pipeEnvironment(const QString &tracer) const;

    // A worker on a remote host (issue 24): the tracer writes there, and the remote supervisor
    // (--stream-trace) sends what it wrote ahead of each stdout line, as a line
    // {"hotkernel_trace": "<base64>"}. Such a trace reads from what feed() got, not from a file.
    static std::unique_ptr<WitnessTrace> streamed();
    // The variables that load `tracer` there in witness mode (the supervisor adds the file).
    static QProcessEnvironment remoteEnvironment(const QString &tracer);
    // The token the supervisor marks its lines with (sent to it on its stdin, never to the worker).
    void expectToken(const QByteArray &token) { m_token = token; }
    // A streamed trace takes the supervisor's line (true) and keeps its bytes for takeNew(). A line
    // that looks like one but lacks the token (the worker forging it) is taken and dropped, so that
    // it cannot pass for a result line either.
    bool takeStreamLine(const QByteArray &line);

private:
    WitnessTrace(bool streamed);
    void drainPipe();
    bool m_streamed = false;
    QByteArray m_token;
    QByteArray m_received;
    int m_forged = 0;
    WitnessSequence m_sequence;
    std::unique_ptr<QTemporaryDir> m_dir;
    qint64 m_offset = 0;
    QByteArray m_partial;
    bool m_piped = false;
    int m_pipeRead = -1;
    int m_pipeWrite = -1;
    std::unique_ptr<QSocketNotifier> m_pipeNotifier;
};

} // namespace hotkernel
