// SPDX-License-Identifier: Apache-2.0
// A session's remote host (issue 24): over SSH, one master connection for the session's lifetime;
// on Slurm, one allocation (salloc) whose steps run everything. Then, the same for both: the probe
// of the host (its Python, torch, card and driver, whether its working directory is ours on a
// shared file system), the copies before each run, and the few file operations verify needs there.
// Every fault is a UserError that names the host and the fix. Lives on the Session's thread;
// never blocks it.
#pragma once

#include "base/json.h"
#include "inspect/host.h"
#include "process/processspec.h"
#include "process/pythonlocator.h"
#include "remote/remoteshell.h"
#include "remote/sshhost.h"

#include <QByteArray>
#include <QCoroTask>
#include <QHash>
#include <QObject>
#include <QPointer>

#include <chrono>
#include <functional>
#include <memory>

class QProcess;

namespace hotkernel {

class Job;
class SlurmAllocation;

// The Host the session hands its runners when it has a remote host (docs/hosts.md): its overrides
// (remotehostashost.cpp) connect first, and run through RemoteToolbox.
class RemoteHost : public QObject, public Host
{
    Q_OBJECT
public:
    RemoteHost(HostUrl url, QString localRoot, QObject *parent = nullptr);
    ~RemoteHost() override;

    const HostUrl &url() const { return m_url; }
    QString display() const { return m_url.toString(); }

    bool isSlurm() const { return m_url.kind == HostUrl::Kind::Slurm; }
    // What runs hotkernel's commands there, for messages about their PATH: "a non-interactive ssh
    // command" or "a Slurm job step (srun)".
    QString commandTransport() const;
    // The value of the first "key=..." line of output, whole: nothing trimmed (a path).
    static QString outputLine(const QByteArray &output, const char *key);

    // Connects when not connected (the first call, or after the connection was lost or the
    // allocation ended): starts the ssh master or waits for the Slurm allocation, probes the host
    // and copies the remote supervisor there. Resolves null when the job was cancelled.
    QCoro::Task<std::shared_ptr<const RemoteShell>> connect(Job *job);
    bool isConnected() const;
    // The connected host's command lines (null before connect()).
    std::shared_ptr<const RemoteShell> shell() const { return m_shell; }

    // Copies files (relative to the session's directory) to the remote working directory (rsync over
    // the ssh master; a tar stream into a step on Slurm); nothing when that directory is the
    // session's own (shared file system).
    // False when the job was cancelled.
    QCoro::Task<bool> sync(QStringList relativeFiles, Job *job);
    // A fresh 0700 directory on the host (below <workdir>/.hotkernel), for verify's judged outputs
    // (purpose "judge") or a profile's reports ("profile"); the next connection sweeps those a
    // session could not remove. parent: another folder to make it in, made 0700 when missing (the
    // candidate's scratch there, which its supervisor may not have made yet: issue 41).
    QCoro::Task<QString> makePrivateDir(Job *job, QString purpose, QString parent = {});
    // Copies one remote file here (0600); false when it does not exist there.
    QCoro::Task<bool> fetch(QString remoteFile, QString localFile, Job *job) override;
    // Removes a remote path (rm -rf); an ssh failure throws UserError.
    QCoro::Task<void> remove(QString remotePath, Job *job);
    // Removes a remote path without waiting for it.
    void removeLater(const QString &remotePath);
    // Removes a private folder (makePrivateDir) when it goes out of scope, unless path was cleared:
    // whatever ends a job there (return, throw, cancel) leaves nothing behind on the host.
    struct FolderRemoval
    {
        QPointer<RemoteHost> host;
        QString path;
        ~FolderRemoval()
        {
            if (host && !path.isEmpty())
                host->removeLater(path);
        }
    };
    // The value of a `key=value` line in a remote command's output; empty when there is none.
    static QString outputField(const QByteArray &output, const char *key);
    // Takes this user's GPU lock on the host (the file local hotkernel sessions there use too) and
    // holds it while the returned process lives; destroying it releases the lock. Null when the job
    // was cancelled. onWait is told while another process of the user holds it; throws UserError
    // when it is still held after patience (zero: no limit), or on an ssh failure.
    QCoro::Task<std::shared_ptr<QProcess>> holdGpuLock(Job *job, std::function<void(const QString &)> onWait,
                                                       std::chrono::milliseconds patience);
    // Ends the master (`ssh -O exit`, then the process) or gives the allocation back. The remote
    // supervisors (or Slurm, with the allocation) end what ran.
    void disconnect();
    // After a run failed: why the Slurm allocation ended under it ("host URL: The Slurm allocation
    // (job 12 in partition 'gpu') reached its time limit ..."), waiting a little for Slurm to say;
    // empty when it still runs, or for an ssh:// host.
    // failure: the run's error, which may say that Slurm already refused a step of the job.
    QCoro::Task<QString> whyEnded(QString failure);
    // After each bench or verify: a slurm:// host with lifetime=verify gives its allocation back,
    // so nothing idles in the queue's time between verifies. True when it did.
    bool endOfRun();

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

    // Runs a POSIX sh command on the host through the master (or as a step of the allocation);
    // throws UserError on a transport failure or a timeout.
    QCoro::Task<ProcessResult> run(QString command, QByteArray input, Job *job,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(120));
    // What RemoteToolbox found or built on this host, by name; forgotten when the host is left.
    QHash<QString, QString> &toolCache() { return m_toolCache; }

    // Host (remotehostashost.cpp).
    QString name() const override { return display(); }
    QString where() const override { return QStringLiteral("on ") + display(); }
    Json record() const override { return hostJson(); }
    QString pathThere(const QString &path) const override;
    QString commandLine(const ProcessSpec &spec) const override;
    QStringList tritonCacheRoots() const override;
    QCoro::Task<bool> prepareFiles(QStringList relativeFiles, Job *job) override;
    QCoro::Task<QString> findTool(QString tool, QString variable, Job *job) override;
    QString lookForTool(const QString &tool, const QString &variable) const override;
    QCoro::Task<QString> nativeHelper(QString fileName, Job *job) override;
    QCoro::Task<ProcessResult> runTool(ProcessSpec spec, Job *job) override;
    QCoro::Task<std::optional<QByteArray>> readBack(QString path, Job *job) override;
    QCoro::Task<PythonInfo> interpreter(Job *job) override;
    QCoro::Task<Json> probeGpu(Job *job) override;

private:
    QCoro::Task<bool> startMaster(Job *job);
    QCoro::Task<bool> takeAllocation(Job *job);
    QCoro::Task<bool> probe(Job *job);
    QCoro::Task<bool> syncByTar(QStringList relativeFiles, Job *job);
    QString defaultWorkdir() const;

    HostUrl m_url;
    QString m_localRoot;
    QString m_controlPath;
    std::unique_ptr<QProcess> m_master;
    QByteArray m_masterStderr;
    std::shared_ptr<SshHost> m_ssh;                // an ssh:// host's command lines
    std::unique_ptr<SlurmAllocation> m_allocation; // a slurm:// host's allocation
    std::shared_ptr<RemoteShell> m_shell;          // either host's, as the rest of hotkernel sees them
    bool m_probed = false;
    bool m_shared = false;
    bool m_haveRsync = false;
    QString m_hostname;
    QString m_pythonPath;
    QString m_pythonVersion;
    QString m_torch;
    Json m_gpu = Json::object();
    QHash<QString, QString> m_toolCache;
};

} // namespace hotkernel
