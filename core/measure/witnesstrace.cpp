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

} // namespace hotkernel
