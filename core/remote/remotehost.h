// SPDX-License-Identifier: Apache-2.0
// A session's SSH host (issue 24): one master connection for the session's lifetime, the probe
// of the host (its Python, torch, card and driver, whether its working directory is ours on a
// shared file system), the copies before each run, and the few file operations verify needs there.
// Every fault is a UserError that names the host and the fix. Lives on the Session's thread;
// never blocks it.
#pragma once

#include "base/json.h"
#include "process/processspec.h"
#include "process/pythonlocator.h"
#include "remote/sshhost.h"

#include <QByteArray>
#include <QCoroTask>
#include <QObject>

#include <chrono>
#include <functional>
#include <memory>

class QProcess;

namespace hotkernel {

class Job;

class RemoteHost : public QObject
{
    Q_OBJECT
public:
    RemoteHost(HostUrl url, QString localRoot, QObject *parent = nullptr);
    ~RemoteHost() override;

    const HostUrl &url() const { return m_url; }
    QString display() const { return m_url.toString(); }

    // Connects when not connected (the first call, or after the connection was lost), probes the
    // host and copies the remote supervisor there. Resolves null when the job was cancelled.
    QCoro::Task<std::shared_ptr<const SshHost>> connect(Job *job);
    bool isConnected() const;
    // The connected host's command lines (null before connect()).
    std::shared_ptr<const SshHost> ssh() const { return m_ssh; }

    // Copies files (relative to the session's directory) to the remote working directory with
    // rsync over the master; nothing when that directory is the session's own (shared file system).
    // False when the job was cancelled.
    QCoro::Task<bool> sync(QStringList relativeFiles, Job *job);
    // A fresh 0700 directory on the host (below <workdir>/.hotkernel), for verify's judged outputs.
    QCoro::Task<QString> makePrivateDir(Job *job);
    // Copies one remote file here (0600); false when it does not exist there.
    QCoro::Task<bool> fetch(QString remoteFile, QString localFile, Job *job);
    // Removes a remote path (rm -rf); an ssh failure throws UserError.
    QCoro::Task<void> remove(QString remotePath, Job *job);
    // Removes a remote path without waiting for it.
    void removeLater(const QString &remotePath);
    // Takes this user's GPU lock on the host (the file local hotkernel sessions there use too) and
    // holds it while the returned process lives; destroying it releases the lock. Null when the job
    // was cancelled. onWait is told while another process of the user holds it; throws UserError
    // when it is still held after patience (zero: no limit), or on an ssh failure.
    QCoro::Task<std::shared_ptr<QProcess>> holdGpuLock(Job *job, std::function<void(const QString &)> onWait,
                                                       std::chrono::milliseconds patience);
    // Ends the master (`ssh -O exit`, then the process). The remote supervisors end what ran.
    void disconnect();

    bool sharesDirectory() const { return m_shared; }
    PythonInfo python() const;
    // nvidia-smi's first card there ({name, driver_version, uuid}), or {} (a CPU host).
    Json gpu() const;
    // The host's card now, as GpuProbe::snapshot() gives it here (clocks, temperature, throttle
    // reasons; from nvidia-smi there): verify and bench record it (issue 24, "Records say where").
    // "available" false, with the reason, on a host without nvidia-smi or a GPU. Throws UserError on
    // an ssh failure.
    QCoro::Task<Json> gpuSnapshot(Job *job);
    // gpuSnapshot()'s reading of the remote command's output (pure; tests feed real captures).
    static Json parseGpuSnapshot(const QByteArray &output, const QString &host);
    // What a result records about where it ran.
    Json hostJson() const;

private:
    QCoro::Task<bool> startMaster(Job *job);
    QCoro::Task<bool> probe(Job *job);
    // Runs a shell command on the host through the master; throws UserError on an ssh failure.
    QCoro::Task<ProcessResult> run(QString command, QByteArray input, Job *job,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(120));
    QString defaultWorkdir() const;

    HostUrl m_url;
    QString m_localRoot;
    QString m_controlPath;
    std::unique_ptr<QProcess> m_master;
    QByteArray m_masterStderr;
    std::shared_ptr<SshHost> m_ssh;
    bool m_probed = false;
    bool m_shared = false;
    bool m_haveRsync = false;
    QString m_hostname;
    QString m_pythonPath;
    QString m_pythonVersion;
    QString m_torch;
    Json m_gpu = Json::object();
};

} // namespace hotkernel
