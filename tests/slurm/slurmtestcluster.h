// SPDX-License-Identifier: Apache-2.0
// The one-node Slurm that the Slurm tests start for themselves (slurm-cluster.sh), and the tests'
// own synchronous look at it, independent of the code under test.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

namespace hotkernel::test {

struct SlurmClusterStart
{
    int exitCode = -1; // 77: it cannot run here (not root, a package missing); errors says why
    QString errors;    // what the script said on stderr
    QByteArray conf;   // SLURM_CONF's value, for the clients
};

inline QString slurmClusterScript()
{
    return QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/slurm/slurm-cluster.sh");
}

// Starts munged, slurmctld and slurmd with every file in directory (which munge must be able to
// traverse: a QTemporaryDir of its own).
inline SlurmClusterStart startSlurmCluster(const QString &directory)
{
    QProcess start;
    start.start(QStringLiteral("bash"), {slurmClusterScript(), QStringLiteral("start"), directory});
    SlurmClusterStart started;
    if (!start.waitForFinished(120000)) {
        start.kill();
        start.waitForFinished();
        started.errors = QStringLiteral("slurm-cluster.sh start did not end within 120 s");
        return started;
    }
    started.exitCode = start.exitCode();
    started.errors = QString::fromUtf8(start.readAllStandardError());
    const QByteArray out = start.readAllStandardOutput().trimmed();
    if (started.exitCode == 0 && !out.startsWith("SLURM_CONF=")) {
        started.exitCode = -1;
        started.errors += QStringLiteral("no SLURM_CONF line: ") + QString::fromUtf8(out);
    }
    started.conf = out.mid(11);
    return started;
}

// Cancels every job and ends every process start left; true when the script succeeded.
inline bool stopSlurmCluster(const QString &directory)
{
    QProcess stop;
    stop.start(QStringLiteral("bash"), {slurmClusterScript(), QStringLiteral("stop"), directory});
    return stop.waitForFinished(120000) && stop.exitStatus() == QProcess::NormalExit && stop.exitCode() == 0;
}

// Runs a Slurm client (squeue, scancel) to its end and returns its standard output.
inline QString slurm(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.start(program, arguments);
    process.waitForFinished(30000);
    return QString::fromUtf8(process.readAllStandardOutput()).trimmed();
}

} // namespace hotkernel::test
