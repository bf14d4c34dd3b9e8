// SPDX-License-Identifier: Apache-2.0
#include "remote/remotehost.h"

#include "base/job.h"
#include "base/logging.h"
#include "base/usererror.h"
#include "process/processgroup.h"
#include "process/processrunner.h"
#include "process/runtimedir.h"
#include "process/supervisor.h"
#include "remote/slurmstepshell.h"
#include "slurm/slurmallocation.h"

#include <QCoroTimer>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QSysInfo>

#include <unistd.h>

namespace hotkernel {

namespace {
constexpr std::chrono::seconds kConnectLimit{40};

QString supervisorSource(QString *error)
{
    QFile f(
        QStringLiteral(":/hotkernel/remote/hotkernel-remote-supervise.py")); // not a named file: a resource
                                                                             // compiled into the binary
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("this hotkernel was built without its remote supervisor");
        return {};
    }
    return QString::fromUtf8(f.readAll());
}

} // namespace

QString RemoteHost::outputLine(const QByteArray &output, const char *key)
{
    const QByteArray prefix = QByteArray(key) + '=';
    for (const QByteArray &line : output.split('\n')) {
        if (line.startsWith(prefix))
            return QString::fromUtf8(line.mid(prefix.size()));
    }
    return {};
}

QString RemoteHost::commandTransport() const
{
    return isSlurm() ? QStringLiteral("a Slurm job step (srun)")
                     : QStringLiteral("a non-interactive ssh command");
}

QString RemoteHost::outputField(const QByteArray &output, const char *key)
{
    const QByteArray prefix = QByteArray(key) + '=';
    for (const QByteArray &line : output.split('\n')) {
        if (line.startsWith(prefix))
            return QString::fromUtf8(line.mid(prefix.size())).trimmed();
    }
    return {};
}

RemoteHost::RemoteHost(HostUrl url, QString localRoot, QObject *parent)
    : QObject(parent), m_url(std::move(url)), m_localRoot(QDir::cleanPath(localRoot))
{
    static int counter = 0;
    QString dir = RuntimeDir::path();
    if (dir.isEmpty())
        dir = QDir::tempPath();
    // One socket per session (never shared with another session's master); short, since a Unix
    // socket's path has at most 107 bytes.
    m_controlPath = QDir(dir).filePath(QStringLiteral("ssh-%1-%2").arg(::getpid()).arg(++counter));
}

RemoteHost::~RemoteHost()
{
    disconnect();
}

bool RemoteHost::isConnected() const
{
    if (isSlurm())
        return m_allocation && m_allocation->state() == SlurmAllocation::State::Running && m_shell &&
               m_probed;
    return m_master && m_master->state() == QProcess::Running && m_ssh && m_probed;
}

QString RemoteHost::defaultWorkdir() const
{
    // Below the remote home, named after this directory and this machine, so two checkouts never
    // share one.
    const QByteArray key = (QSysInfo::machineHostName() + QLatin1Char(':') + m_localRoot).toUtf8();
    return QStringLiteral(".cache/hotkernel/remote/%1-%2")
        .arg(QFileInfo(m_localRoot).fileName().replace(QLatin1Char(' '), QLatin1Char('_')),
             QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha256).toHex().left(10)));
}

QCoro::Task<std::shared_ptr<const RemoteShell>> RemoteHost::connect(Job *job)
{
    if (isConnected())
        co_return std::shared_ptr<const RemoteShell>(m_shell); // a copy: QCoro 0.8 moves from lvalues
    QPointer<RemoteHost> self(this);
    disconnect();
    if (isSlurm()) {
        if (!co_await takeAllocation(job) || !self)
            co_return std::shared_ptr<const RemoteShell>();
    } else {
        m_ssh = std::make_shared<SshHost>(m_url, m_controlPath, m_localRoot);
        m_shell = m_ssh;
        if (job)
            job->setProgress(0, std::nullopt, QStringLiteral("connecting to %1").arg(display()));
        if (!co_await startMaster(job) || !self)
            co_return std::shared_ptr<const RemoteShell>();
    }
    if (!co_await probe(job) || !self)
        co_return std::shared_ptr<const RemoteShell>();
    co_return std::shared_ptr<const RemoteShell>(m_shell);
}

QCoro::Task<bool> RemoteHost::takeAllocation(Job *job)
{
    // The queue may take long; the allocation's progress (queued, why, granted) goes to the job.
    m_allocation = std::make_unique<SlurmAllocation>(m_url.slurm);
    SlurmAllocation *allocation = m_allocation.get();
    QObject::connect(allocation, &SlurmAllocation::ended, this, [this](const QString &why) {
        qCInfo(lcProcess).noquote() << "host" << display() << "ended:" << why;
        m_probed = false; // the next call takes a new allocation
    });
    QPointer<RemoteHost> self(this);
    QPointer<SlurmAllocation> alive(allocation);
    bool running = false;
    try {
        running = co_await allocation->acquire(job);
    } catch (const UserError &e) {
        if (self)
            m_allocation.reset();
        throw UserError(QStringLiteral("host %1: %2").arg(m_url.toString(), e.message()), e.kind());
    }
    if (!self || !alive || !running) {
        if (self)
            m_allocation.reset();
        co_return false;
    }
    m_shell = std::make_shared<SlurmStepShell>(m_url, allocation->jobId(), allocation->stepArguments({}),
                                               m_localRoot);
    co_return true;
}

QCoro::Task<bool> RemoteHost::startMaster(Job *job)
{
    QFile::remove(m_controlPath); // a socket left by a crashed process of the same pid
    m_masterStderr.clear();
    m_master = std::make_unique<QProcess>();
    m_master->setProgram(SshHost::sshProgram());
    m_master->setArguments(m_ssh->masterArguments());
    m_master->setStandardInputFile(QProcess::nullDevice());
    Supervisor::wrap(*m_master);
    QProcess *master = m_master.get();
    QObject::connect(master, &QProcess::readyReadStandardError, this,
                     [this, master] { m_masterStderr += master->readAllStandardError(); });
    QObject::connect(master, &QProcess::finished, this, [this, master] {
        m_masterStderr += master->readAllStandardError();
        qCDebug(lcProcess).noquote() << "ssh master of" << display() << "ended:" << m_masterStderr.trimmed();
    });
    qCDebug(lcProcess).noquote() << "starting ssh master" << SshHost::sshProgram()
                                 << m_ssh->masterArguments().join(QLatin1Char(' '));
    master->start();
    QPointer<RemoteHost> self(this);
    QElapsedTimer clock;
    clock.start();
    // The master creates its socket only once it has logged in.
    while (true) {
        if (QFileInfo::exists(m_controlPath))
            co_return true;
        if (master->state() == QProcess::NotRunning) {
            if (master->error() == QProcess::FailedToStart)
                throw UserError(
                    QStringLiteral("host %1: cannot start %2 (%3); install OpenSSH's client "
                                   "(Debian: apt install openssh-client) or name it with HOTKERNEL_SSH.")
                        .arg(display(), SshHost::sshProgram(), master->errorString()));
            m_masterStderr += master->readAllStandardError();
            const QString message = m_ssh->describeFailure(m_masterStderr);
            m_master.reset();
            throw UserError(message);
        }
        if (job && job->isCancelled()) {
            disconnect();
            co_return false;
        }
        if (clock.elapsed() > std::chrono::milliseconds(kConnectLimit).count()) {
            disconnect();
            throw UserError(
                QStringLiteral("host %1: no connection within %2 s; check that the host is up and "
                               "that `ssh %3 true` works without a prompt.")
                    .arg(display(), QString::number(kConnectLimit.count()), m_url.host));
        }
        co_await QCoro::sleepFor(std::chrono::milliseconds(50));
        if (!self)
            co_return false;
    }
}

QCoro::Task<ProcessResult> RemoteHost::run(QString command, QByteArray input, Job *job,
                                           std::chrono::milliseconds timeout)
{
    const std::shared_ptr<RemoteShell> shell = m_shell;
    ProcessSpec spec;
    spec.program = shell->program();
    // sh -c: the login shell may be anything (fish, tcsh); the commands are POSIX sh.
    spec.arguments = shell->commandArguments(QStringLiteral("exec sh -c ") + shellQuote(command));
    spec.standardInput = input;
    spec.timeout = timeout;
    spec.workingDirectory = m_localRoot;
    ProcessResult r = co_await ProcessRunner::run(spec, job);
    if (r.status == ProcessResult::Status::FailedToStart)
        throw UserError(QStringLiteral("host %1: cannot start %2 (%3).")
                            .arg(shell->display(), spec.program, r.errorString));
    if (r.status == ProcessResult::Status::TimedOut)
        throw UserError(
            QStringLiteral("host %1: a command there did not finish within %2 s (%3); the "
                           "connection may be stalled: run again.")
                .arg(shell->display(), QString::number(timeout.count() / 1000), command.left(80)));
    if (r.status == ProcessResult::Status::Finished && shell->isTransportFailure(r.exitCode, r.standardError))
        throw UserError(shell->describeFailure(r.standardError));
    co_return r;
}

QCoro::Task<bool> RemoteHost::probe(Job *job)
{
    QString error;
    const QString supervisor = supervisorSource(&error);
    if (supervisor.isEmpty())
        throw UserError(QStringLiteral("host %1: %2.").arg(display(), error));
    const QString workdir = m_url.workdir.isEmpty() ? defaultWorkdir() : m_url.workdir;
    const QString python = m_shell->remotePython();
    // Is the remote working directory this very directory (a shared file system)? A token written
    // here and looked for there says so; a path that merely looks alike does not.
    const QString token = QStringLiteral(".hotkernel-probe-%1")
                              .arg(QString::number(QRandomGenerator::system()->generate64(), 16));
    QFile tokenFile(QDir(m_localRoot).filePath(token));
    const bool tokenWritten = tokenFile.open(QIODevice::WriteOnly) && tokenFile.write("hotkernel\n") > 0;
    tokenFile.close();
    const QString q = shellQuote(python);
    // With no working directory named, this very directory is used when the host sees it (a
    // shared file system, as a cluster's nodes usually do): then nothing is copied.
    QString enterWorkdir = QStringLiteral("mkdir -p %1 && cd %1").arg(shellQuote(workdir));
    if (m_url.workdir.isEmpty() && tokenWritten)
        enterWorkdir =
            QStringLiteral("if [ -e %1 ]; then cd %2; else %3; fi")
                .arg(shellQuote(QDir(m_localRoot).filePath(token)), shellQuote(m_localRoot), enterWorkdir);
    const QString script =
        QStringLiteral(
            "set -e\n"
            "%1\n"
            "echo \"workdir=$(pwd -P)\"\n"
            "echo \"entered=$(pwd -L)\"\n"
            "echo \"hostname=$(uname -n)\"\n"
            "if [ -e %2 ]; then echo shared=yes; fi\n"
            "mkdir -p .hotkernel && chmod 700 .hotkernel\n"
            // What an ended session could not remove: judge directories, workers' scratches (issue
            // 41), new's staging folders.
            "find .hotkernel -maxdepth 1 \\( -name 'judge-*' -o -name 'profile-*' -o -name 'witness-*' "
            "-o -name 'worker-*' \\) "
            "-mmin +720 "
            "-exec rm -rf {} + 2>/dev/null || true\n"
            "find . -maxdepth 4 -type d -name '.hotkernel-new-*' -mmin +60 -prune -exec rm -rf {} + "
            "2>/dev/null || true\n"
            "cat > .hotkernel/hotkernel-remote-supervise.py\n"
            "if command -v rsync >/dev/null 2>&1; then echo rsync=yes; fi\n"
            "if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi "
            "--query-gpu=name,driver_version,uuid --format=csv,noheader 2>/dev/null | head -n 1 | "
            "sed 's/^/gpu=/' || true; fi\n"
            "if ! command -v %3 >/dev/null 2>&1; then echo python=; exit 0; fi\n"
            "echo \"python=$(command -v %3)\"\n"
            "%3 -c 'import sys; print(\"python_version=%d.%d.%d\" % sys.version_info[:3])' || true\n"
            "%3 -c 'import torch; print(\"torch=\" + torch.__version__)' 2>/dev/null || echo torch=\n")
            .arg(enterWorkdir, token, q);
    QPointer<RemoteHost> self(this);
    ProcessResult r;
    try {
        r = co_await run(script, supervisor.toUtf8(), job);
    } catch (...) {
        if (tokenWritten)
            QFile::remove(QDir(m_localRoot).filePath(token));
        throw;
    }
    if (tokenWritten)
        QFile::remove(QDir(m_localRoot).filePath(token));
    if (!self || r.status == ProcessResult::Status::Cancelled)
        co_return false;
    if (!r.succeeded())
        throw UserError(QStringLiteral("host %1: cannot prepare the working directory %2 there (%3); check "
                                       "that it can be created and written, and that the disk is not full.")
                            .arg(display(), workdir, r.stderrTail(4)));
    // The whole line, never trimmed, and the folder entered must be the one the URL names, byte
    // for byte (issue 39: a reply read back as its trimmed first line filled another folder).
    const QString entered = outputLine(r.standardOutput, "entered");
    const QString asked = QDir::cleanPath(m_url.workdir);
    if (!m_url.workdir.isEmpty() &&
        (asked.startsWith(QLatin1Char('/')) ? entered != asked : !entered.endsWith(QLatin1Char('/') + asked)))
        throw UserError(QStringLiteral("host ") + display() +
                        QStringLiteral(": the working directory entered there is '") + entered +
                        QStringLiteral("', not the '") + m_url.workdir +
                        QStringLiteral("' the host URL names; name a plain folder (no links that move it, no "
                                       "whitespace) and try again."));
    m_shell->setRemoteWorkdir(outputLine(r.standardOutput, "workdir"));
    m_hostname = outputField(r.standardOutput, "hostname");
    m_shared = outputField(r.standardOutput, "shared") == QLatin1String("yes") && tokenWritten;
    m_haveRsync = outputField(r.standardOutput, "rsync") == QLatin1String("yes");
    m_pythonPath = outputField(r.standardOutput, "python");
    m_pythonVersion = outputField(r.standardOutput, "python_version");
    m_torch = outputField(r.standardOutput, "torch");
    m_gpu = Json::object();
    if (const QStringList gpu = outputField(r.standardOutput, "gpu").split(QStringLiteral(", "));
        gpu.size() >= 2) {
        m_gpu["name"] = toStd(gpu.at(0));
        m_gpu["driver_version"] = toStd(gpu.at(1));
        if (gpu.size() >= 3)
            m_gpu["uuid"] = toStd(gpu.at(2));
    }
    if (m_shell->remoteWorkdir().isEmpty())
        throw UserError(
            QStringLiteral("host %1: the probe printed no working directory; its shell may "
                           "print text at login: keep ~/.bashrc quiet for non-interactive shells.")
                .arg(display()));
    if (m_pythonPath.isEmpty())
        throw UserError(
            QStringLiteral("host %1 has no Python interpreter %2 on the PATH of %3: install Python 3 "
                           "with torch there, or name the interpreter in the host URL "
                           "(%4?python=/path/to/python3).")
                .arg(display(), python, commandTransport(),
                     m_url.toString().section(QLatin1Char('?'), 0, 0)));
    if (m_torch.isEmpty())
        throw UserError(QStringLiteral("host %1: %2 cannot import torch: install torch for it there (pip "
                                       "install torch; Debian: apt install python3-torch), or name an "
                                       "interpreter that has it (%3?python=/path/to/python3).")
                            .arg(display(), m_pythonPath, m_url.toString().section(QLatin1Char('?'), 0, 0)));
    m_shell->setRemotePython(m_pythonPath);
    m_probed = true;
    qCDebug(lcProcess).noquote() << "connected to" << display() << "workdir" << m_shell->remoteWorkdir()
                                 << (m_shared ? "(shared with this machine)" : "");
    co_return true;
}

QCoro::Task<bool> RemoteHost::sync(QStringList relativeFiles, Job *job)
{
    if (m_shared || relativeFiles.isEmpty())
        co_return true;
    if (isSlurm())
        co_return co_await syncByTar(relativeFiles, job);
    if (!m_haveRsync)
        throw UserError(QStringLiteral("host %1 has no rsync, which hotkernel copies the target's files "
                                       "with: install it there (Debian: apt install rsync).")
                            .arg(display()));
    if (job)
        job->setProgress(0, std::nullopt,
                         QStringLiteral("copying %1 file(s) to %2").arg(relativeFiles.size()).arg(display()));
    const std::shared_ptr<SshHost> ssh = m_ssh;
    ProcessSpec spec;
    spec.program = SshHost::rsyncProgram();
    // --files-from keeps each file's path relative to the session's directory; -t keeps mtimes,
    // so an unchanged file is not sent again.
    spec.arguments =
        QStringList{QStringLiteral("-rlpt"),
                    QStringLiteral("--files-from=-"),
                    QStringLiteral("-e"),
                    ssh->rsyncShell(),
                    m_localRoot + QLatin1Char('/'),
                    ssh->destination() + QLatin1Char(':') + ssh->remoteWorkdir() + QLatin1Char('/')};
    spec.standardInput = relativeFiles.join(QLatin1Char('\n')).toUtf8() + '\n';
    spec.workingDirectory = m_localRoot;
    spec.timeout = std::chrono::minutes(5);
    const ProcessResult r = co_await ProcessRunner::run(spec, job);
    if (r.status == ProcessResult::Status::Cancelled)
        co_return false;
    if (r.status == ProcessResult::Status::FailedToStart)
        throw UserError(QStringLiteral("cannot start %1 (%2) to copy the target's files to %3: install rsync "
                                       "here (Debian: apt install rsync) or name it with HOTKERNEL_RSYNC.")
                            .arg(spec.program, r.errorString, ssh->display()));
    if (r.status == ProcessResult::Status::Finished && SshHost::isSshFailure(r.exitCode))
        throw UserError(ssh->describeFailure(r.standardError));
    if (!r.succeeded())
        throw UserError(
            QStringLiteral("host %1: copying the target's files to %2 failed (rsync exit %3: %4); "
                           "check the space and permissions there.")
                .arg(ssh->display(), ssh->remoteWorkdir(), QString::number(r.exitCode), r.stderrTail(4)));
    co_return true;
}

QCoro::Task<bool> RemoteHost::syncByTar(QStringList relativeFiles, Job *job)
{
    // A node of a cluster has no sshd to rsync with, but a step's stdin reaches it: tar the files
    // here and unpack them there. They are the target's scripts and modules: small, so all of them
    // go each time.
    if (job)
        job->setProgress(0, std::nullopt,
                         QStringLiteral("copying %1 file(s) to %2").arg(relativeFiles.size()).arg(display()));
    const std::shared_ptr<RemoteShell> shell = m_shell;
    ProcessSpec tar;
    tar.program = QStringLiteral("tar");
    tar.arguments = QStringList{QStringLiteral("-cf"), QStringLiteral("-"), QStringLiteral("-C"), m_localRoot,
                                QStringLiteral("--")} +
                    relativeFiles;
    tar.workingDirectory = m_localRoot;
    tar.timeout = std::chrono::minutes(2);
    const ProcessResult packed = co_await ProcessRunner::run(tar, job);
    if (packed.status == ProcessResult::Status::Cancelled)
        co_return false;
    if (!packed.succeeded())
        throw UserError(QStringLiteral("cannot pack the target's files for %1 with tar (%2): check that they "
                                       "can be read, and that tar is installed here.")
                            .arg(shell->display(),
                                 packed.errorString.isEmpty() ? packed.stderrTail(4) : packed.errorString));
    const ProcessResult r = co_await run(
        QStringLiteral("cd %1 && tar -xf - --no-same-owner").arg(shellQuote(shell->remoteWorkdir())),
        packed.standardOutput, job, std::chrono::minutes(5));
    if (r.status == ProcessResult::Status::Cancelled)
        co_return false;
    if (!r.succeeded())
        throw UserError(
            QStringLiteral("host %1: copying the target's files to %2 failed (tar exit %3: %4); "
                           "check the space and permissions there.")
                .arg(shell->display(), shell->remoteWorkdir(), QString::number(r.exitCode), r.stderrTail(4)));
    co_return true;
}

QCoro::Task<QString> RemoteHost::makePrivateDir(Job *job, QString purpose, QString parent)
{
    const std::shared_ptr<RemoteShell> shell = m_shell;
    if (parent.isEmpty())
        parent = shell->remoteWorkdir() + QStringLiteral("/.hotkernel");
    const ProcessResult r = co_await run(
        QStringLiteral("umask 077 && mkdir -p %1 && mktemp -d %1/%2-XXXXXX").arg(shellQuote(parent), purpose),
        {}, job);
    if (r.status == ProcessResult::Status::Cancelled)
        co_return QString();
    const QString dir = QString::fromUtf8(r.standardOutput).trimmed();
    if (!r.succeeded() || dir.isEmpty())
        throw UserError(QStringLiteral("host %1: cannot create a private directory (%2-...) in %3 (%4); "
                                       "free some space there.")
                            .arg(shell->display(), purpose, parent, r.stderrTail(4)));
    co_return dir;
}

QCoro::Task<bool> RemoteHost::fetch(QString remoteFile, QString localFile, Job *job)
{
    const ProcessResult r = co_await run(QStringLiteral("cat -- ") + shellQuote(remoteFile), {}, job);
    if (!r.succeeded())
        co_return false;
    QFile out(localFile);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        out.write(r.standardOutput) != r.standardOutput.size())
        throw UserError(
            QStringLiteral("cannot write %1 (%2); free some space there.").arg(localFile, out.errorString()));
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    co_return true;
}

QCoro::Task<void> RemoteHost::remove(QString remotePath, Job *job)
{
    if (remotePath.isEmpty())
        co_return;
    co_await run(QStringLiteral("rm -rf -- ") + shellQuote(remotePath), {}, job);
}

void RemoteHost::removeLater(const QString &remotePath)
{
    if (isConnected())
        m_shell->removeLater(remotePath);
}

void RemoteHost::disconnect()
{
    m_probed = false;
    m_toolCache.clear();
    // Relinquished without waiting (salloc's keeper ends; scancel where that is not enough); Slurm
    // ends the steps that ran in it.
    m_allocation.reset();
    if (!m_master)
        return;
    if (m_master->state() != QProcess::NotRunning) {
        if (m_ssh) { // the polite end; the kill below makes sure, so its complaints are of no use
            QProcess exit;
            exit.setProgram(SshHost::sshProgram());
            exit.setArguments(m_ssh->exitArguments());
            exit.setStandardInputFile(QProcess::nullDevice());
            exit.setStandardOutputFile(QProcess::nullDevice());
            exit.setStandardErrorFile(QProcess::nullDevice());
            exit.startDetached();
        }
        m_master->disconnect(this);
        killProcessGroup(*m_master);
        // Reap it later rather than wait here.
        QProcess *process = m_master.release();
        QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
    }
    m_master.reset();
    QFile::remove(m_controlPath);
}

QCoro::Task<QString> RemoteHost::whyEnded(QString failure)
{
    if (!isSlurm() || !m_allocation)
        co_return QString();
    const QPointer<RemoteHost> self(this);
    const QString why = co_await m_allocation->checkEnded(SlurmStepShell::saysJobIsOver(failure));
    if (!self || why.isEmpty())
        co_return QString();
    co_return QStringLiteral("host %1: %2").arg(display(), why);
}

bool RemoteHost::endOfRun()
{
    if (!isSlurm() || m_url.slurm.lifetime != SlurmHost::Lifetime::Verify || !m_allocation)
        return false;
    disconnect();
    return true;
}

PythonInfo RemoteHost::python() const
{
    PythonInfo p;
    p.path = m_pythonPath;
    p.source = display();
    p.torchVersion = m_torch;
    return p;
}

Json RemoteHost::hostJson() const
{
    Json h = Json::object();
    h["kind"] = isSlurm() ? "slurm" : "ssh";
    h["url"] = toStd(display());
    h["hostname"] = toStd(m_hostname);
    h["workdir"] = m_shell ? toStd(m_shell->remoteWorkdir()) : std::string();
    if (isSlurm()) {
        h["partition"] = toStd(m_url.slurm.partition);
        h["job_id"] = m_allocation ? toStd(m_allocation->jobId()) : std::string();
        h["nodes"] = m_allocation ? toStd(m_allocation->nodes()) : std::string();
    }
    h["shared_directory"] = m_shared;
    h["python"] = toStd(m_pythonPath);
    h["python_version"] = toStd(m_pythonVersion);
    h["torch"] = toStd(m_torch);
    h["card"] = m_gpu.contains("name") ? m_gpu["name"] : Json();
    h["driver"] = m_gpu.contains("driver_version") ? m_gpu["driver_version"] : Json();
    return h;
}

} // namespace hotkernel
