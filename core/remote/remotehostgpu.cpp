// SPDX-License-Identifier: Apache-2.0
// RemoteHost's GPU: the per-user GPU lock on the host and the snapshot of its card that results
// record (issue 24). The rest of RemoteHost (connection, probe, copies, files) is remotehost.cpp.
#include "remote/remotehost.h"

#include "base/job.h"
#include "base/usererror.h"
#include "inspect/gpuprobe.h"
#include "inspect/nvidiasmiparser.h"
#include "process/processgroup.h"
#include "process/supervisor.h"

#include <QCoroTimer>
#include <QElapsedTimer>
#include <QPointer>
#include <QProcess>

namespace hotkernel {

QCoro::Task<std::shared_ptr<QProcess>> RemoteHost::holdGpuLock(Job *job,
                                                               std::function<void(const QString &)> onWait,
                                                               std::chrono::milliseconds patience)
{
    const std::shared_ptr<RemoteShell> shell = m_shell;
    // Killing the holder's group ends ssh (or srun, which ends its step); the remote side then sees
    // the end of its stdin, or is ended, and lets go.
    std::shared_ptr<QProcess> holder(new QProcess, [](QProcess *p) {
        p->disconnect();
        killProcessGroup(*p);
        if (p->state() == QProcess::NotRunning) {
            delete p;
            return;
        }
        QObject::connect(p, &QProcess::finished, p, &QObject::deleteLater);
    });
    holder->setProgram(shell->program());
    holder->setArguments(shell->commandArguments(
        QStringLiteral("exec %1 %2 --hold-gpu-lock")
            .arg(shellQuote(shell->remotePython()), shellQuote(shell->supervisorPath()))));
    Supervisor::wrap(*holder);
    holder->start();
    QPointer<RemoteHost> self(this);
    QElapsedTimer clock;
    clock.start();
    QByteArray output;
    bool toldWaiting = false;
    while (true) {
        output += holder->readAllStandardOutput();
        if (output.contains("locked\n"))
            co_return holder;
        if (output.contains("waiting\n") && !toldWaiting && onWait) {
            onWait(
                QStringLiteral("waiting for the GPU on %1, held by another hotkernel job of this user there")
                    .arg(shell->display()));
            toldWaiting = true;
        }
        if (holder->state() == QProcess::NotRunning) {
            const QByteArray err = holder->readAllStandardError();
            if (shell->isTransportFailure(holder->exitCode(), err))
                throw UserError(shell->describeFailure(err));
            throw UserError(QStringLiteral("host %1: cannot take the GPU lock there (%2).")
                                .arg(shell->display(), QString::fromUtf8(err).trimmed()));
        }
        if (job && job->isCancelled())
            co_return std::shared_ptr<QProcess>();
        if (patience.count() > 0 && clock.elapsed() > patience.count())
            throw UserError(
                QStringLiteral("host %1: the GPU is still held by another hotkernel job of this user "
                               "there after %2 s; wait for it or end it, or raise --timeout.")
                    .arg(shell->display(), QString::number(patience.count() / 1000)));
        co_await QCoro::sleepFor(std::chrono::milliseconds(100));
        if (!self)
            co_return std::shared_ptr<QProcess>();
    }
}

namespace {
// Older drivers name the throttle reasons clocks_throttle_reasons.
QStringList gpuFields(bool throttleName)
{
    QStringList fields = NvidiaSmiParser::queryFields();
    if (throttleName)
        fields.replaceInStrings(QStringLiteral("clocks_event_reasons.active"),
                                QStringLiteral("clocks_throttle_reasons.active"));
    return fields;
}
} // namespace

QCoro::Task<Json> RemoteHost::gpuSnapshot(Job *job)
{
    const auto query = [](bool throttleName) {
        return QStringLiteral("nvidia-smi --query-gpu=%1 --format=csv,noheader,nounits 2>/dev/null")
            .arg(gpuFields(throttleName).join(QLatin1Char(',')));
    };
    // The marker line says which field names the driver took.
    const QString command = QStringLiteral("if ! command -v nvidia-smi >/dev/null 2>&1; then echo '#no-smi'; "
                                           "elif %1; then echo '#events'; elif %2; then echo '#throttle'; "
                                           "else echo '#failed'; fi")
                                .arg(query(false), query(true));
    const QString host = display();
    const ProcessResult r = co_await run(command, {}, job, std::chrono::seconds(30));
    co_return parseGpuSnapshot(r.standardOutput, host);
}

Json RemoteHost::parseGpuSnapshot(const QByteArray &output, const QString &host)
{
    QList<QByteArray> lines = output.trimmed().split('\n');
    const QByteArray marker = lines.isEmpty() ? QByteArray() : lines.takeLast().trimmed();
    const QString source = QStringLiteral("nvidia-smi on %1").arg(host);
    if (marker == "#no-smi")
        return Json{{"available", false},
                    {"reason", toStd(QStringLiteral("host %1 has no nvidia-smi on its PATH: no NVIDIA driver "
                                                    "there, or a PATH that the commands hotkernel runs there "
                                                    "(not a login shell) do not get")
                                         .arg(host))}};
    if (marker != "#events" && marker != "#throttle")
        return Json{
            {"available", false},
            {"reason",
             toStd(QStringLiteral("nvidia-smi on host %1 failed: no usable NVIDIA GPU there").arg(host))}};
    return GpuProbe::fromNvidiaSmi(lines.join('\n'), gpuFields(marker == "#throttle"), source);
}

Json RemoteHost::gpu() const
{
    return m_gpu;
}

} // namespace hotkernel
