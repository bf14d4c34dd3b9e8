// SPDX-License-Identifier: Apache-2.0
// A slurm:// session host (issue 24) against a real one-node Slurm that the test starts
// (slurm-cluster.sh): `new`, `bench`, `verify --record` with the hotkernel binary and
// --host slurm://debug?...&workdir=DIR (the files go there as a tar stream into a step), an
// in-process session that keeps its allocation and its workers, the node seeing this very
// directory (nothing copied), lifetime=verify (an allocation per run), and the faults: a partition
// Slurm refuses, an interpreter the node lacks, scancel mid-verify and a one-minute time limit
// passed mid-verify, each an error naming the host and the fix, with no process and no job left.
// Needs root, Debian's slurm-wlm and munge, and CPU torch; skips with the reason.
#include "../remote/remotetesthelpers.h"
#include "../remote/windowloop.h"
#include "slurmtestcluster.h"
#include "tools/builtintools.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace hotkernel::test;

namespace {
// The jobs Slurm still holds (any state but gone), one "ID STATE" per line.
QString jobsLeft()
{
    return slurm(QStringLiteral("squeue"), {QStringLiteral("--noheader"), QStringLiteral("--format=%i %T")});
}
} // namespace

class TestRemoteSlurm : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QTemporaryDir m_cluster; // its own: slurm-cluster.sh opens it to the munge user
    QString m_python;
    QString m_url;
    QString m_remoteDir; // the node's working directory: its path marks every process of ours there
    bool m_started = false;

    QString path(const QString &relative) const { return m_tmp.filePath(relative); }
    QString project() const { return path(QStringLiteral("project")); }
    // A debug-partition host in the canonical order (what results carry back as the host's url).
    // workdir: the node's directory, or none (this very directory, which the node sees).
    QString url(const QString &options, const QString &workdir) const
    {
        return QStringLiteral("slurm://debug?%1&python=%2").arg(options, m_python) +
               (workdir.isEmpty() ? QString() : QStringLiteral("&workdir=") + workdir);
    }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOTKERNEL_PYTHON"), m_python);
        env.insert(QStringLiteral("HOTKERNEL_LOCK_DIR"), m_tmp.path());
        env.remove(QStringLiteral("HOTKERNEL_HOST"));
        return env;
    }

    int hotkernel(const QStringList &arguments, QByteArray *out, QByteArray *err)
    {
        return runHotkernel(project(), environment(), arguments, out, err);
    }

    // `hotkernel new NAME` on the host: a CPU gelu target in targets/.
    int makeTarget(const QString &name, const QString &shape, const QString &iters, QByteArray *out,
                   QByteArray *err)
    {
        return hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url, QStringLiteral("new"),
                          name, QStringLiteral("--from"), QStringLiteral("torch.nn.functional:gelu"),
                          QStringLiteral("--shape"), shape, QStringLiteral("--dtype"), QStringLiteral("fp32"),
                          QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--iters"), iters,
                          QStringLiteral("--out-dir"), QStringLiteral("targets")},
                         out, err);
    }

    // Nothing of ours left: no process on the node or here that names its directory, no job.
    void verifyNothingLeft(int ms = 30000)
    {
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), ms);
        QTRY_VERIFY2_WITH_TIMEOUT(jobsLeft().isEmpty(), qPrintable(jobsLeft()), ms);
    }

    // A verify far longer than any test waits (n=1000 pairs of CPU runs), once its progress on
    // stderr shows marker.
    bool startLongVerify(QProcess &verify, const QString &host, const QByteArray &marker, QByteArray *err)
    {
        verify.setWorkingDirectory(project());
        verify.setProcessEnvironment(environment());
        verify.start(QStringLiteral(HOTKERNEL_BINARY),
                     {QStringLiteral("--host"), host, QStringLiteral("verify"),
                      QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("targets/gelu_candidate.py"),
                      QStringLiteral("--n"), QStringLiteral("1000")});
        if (!verify.waitForStarted())
            return false;
        return QTest::qWaitFor(
                   [&] {
                       *err += verify.readAllStandardError();
                       return err->contains(marker) || verify.state() == QProcess::NotRunning;
                   },
                   120000) &&
               verify.state() == QProcess::Running;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("needs root: the test starts its own munged, slurmctld and slurmd (CI runs as root)");
        for (const char *tool :
             {"salloc", "srun", "squeue", "scancel", "slurmctld", "slurmd", "munged", "tar"}) {
            if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
                QSKIP(qPrintable(QStringLiteral("%1 is not installed: apt-get install slurm-wlm munge "
                                                "(packaging/setup-deps.sh installs them)")
                                     .arg(QString::fromLatin1(tool))));
        }
        m_python = qEnvironmentVariable("HOTKERNEL_TORCH_PYTHON", QStringLiteral("/usr/bin/python3"));
        if (QProcess::execute(m_python, {QStringLiteral("-c"), QStringLiteral("import torch")}) != 0)
            QSKIP("no Python with torch (HOTKERNEL_TORCH_PYTHON; Debian: apt install python3-torch)");
        QVERIFY(m_tmp.isValid() && m_cluster.isValid());
        QVERIFY(QDir().mkpath(project()));
        m_remoteDir = path(QStringLiteral("node"));

        const SlurmClusterStart cluster = startSlurmCluster(m_cluster.path());
        if (cluster.exitCode == 77)
            QSKIP(qPrintable(cluster.errors));
        m_started = true; // stop what started, even half
        QVERIFY2(cluster.exitCode == 0, qPrintable(cluster.errors));
        qputenv("SLURM_CONF", cluster.conf); // for hotkernel, salloc and squeue alike

        // A directory of the node's that is not this one: the files must be copied there.
        m_url = url(QStringLiteral("time=10"), m_remoteDir);
        QByteArray out, err;
        QCOMPARE(
            makeTarget(QStringLiteral("gelu"), QStringLiteral("256x512"), QStringLiteral("10"), &out, &err),
            0);
        QVERIFY2(QFileInfo::exists(project() + QStringLiteral("/targets/gelu_candidate.py")),
                 err.constData());
        // The import check ran in a step, with the node's interpreter.
        const QJsonObject made = QJsonDocument::fromJson(out).object();
        QCOMPARE(made[QStringLiteral("python")].toObject()[QStringLiteral("source")].toString(), m_url);
        verifyNothingLeft();
    }

    void cleanupTestCase()
    {
        if (!m_started)
            return;
        QVERIFY(stopSlurmCluster(m_cluster.path()));
    }

    void refusedPartition()
    {
        const QString host = QStringLiteral("slurm://nosuchpartition?time=5&python=") + m_python;
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--host"), host, QStringLiteral("bench"),
                            QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                            QStringLiteral("2")},
                           &out, &err),
                 1);
        QVERIFY2(err.contains(host.toUtf8()) && err.contains("nosuchpartition"), err.constData());
        verifyNothingLeft();
    }

    void noPythonThere()
    {
        const QString host =
            QStringLiteral("slurm://debug?time=5&python=/nonexistent/python3&workdir=") + m_remoteDir;
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--host"), host, QStringLiteral("bench"),
                            QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                            QStringLiteral("2")},
                           &out, &err),
                 1);
        // Named as what runs the commands there: a Slurm step, not ssh.
        QVERIFY2(err.contains(host.toUtf8()) && err.contains("no Python interpreter") &&
                     err.contains("python=") && err.contains("a Slurm job step") &&
                     !err.contains("non-interactive ssh"),
                 err.constData());
        verifyNothingLeft();
    }

    // Issue 39: whitespace or a control character in the URL's folder, percent-encoded, is refused
    // with a message before anything reaches the host, and no file lands in the folder the name
    // would have been cut or trimmed to.
    void whitespaceInTheWorkdirCopiesNothing_data()
    {
        QTest::addColumn<QString>("code");
        for (const char *code : {"%0Ajunk", "%20", "%09", "%0D", "%C2%A0"})
            QTest::newRow(code) << QString::fromLatin1(code);
    }
    void whitespaceInTheWorkdirCopiesNothing()
    {
        QFETCH(QString, code);
        const QString victim = m_remoteDir + QStringLiteral("-victim");
        const QString host = url(QStringLiteral("time=5"), victim + code);
        QByteArray out, err;
        QVERIFY(hotkernel({QStringLiteral("--host"), host, QStringLiteral("bench"),
                           QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                           QStringLiteral("2")},
                          &out, &err) != 0);
        QVERIFY2(err.contains("without whitespace or control characters"), err.constData());
        QVERIFY2(!QFileInfo::exists(victim), qPrintable(victim));
    }

    void bench()
    {
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url,
                            QStringLiteral("bench"), QStringLiteral("targets/gelu_baseline.py"),
                            QStringLiteral("--n"), QStringLiteral("3")},
                           &out, &err),
                 0);
        const QJsonObject r = QJsonDocument::fromJson(out).object();
        QVERIFY2(!r.isEmpty(), err.constData());
        QCOMPARE(r[QStringLiteral("n")].toInt(), 3);
        QVERIFY(r[QStringLiteral("stats")].toObject()[QStringLiteral("mean_ms")].toDouble() > 0);
        const QJsonObject host = r[QStringLiteral("host")].toObject();
        QCOMPARE(host[QStringLiteral("kind")].toString(), QStringLiteral("slurm"));
        QCOMPARE(host[QStringLiteral("url")].toString(), m_url);
        QCOMPARE(host[QStringLiteral("partition")].toString(), QStringLiteral("debug"));
        QVERIFY(!host[QStringLiteral("job_id")].toString().isEmpty());
        QVERIFY(!host[QStringLiteral("nodes")].toString().isEmpty());
        QCOMPARE(host[QStringLiteral("workdir")].toString(), m_remoteDir);
        QCOMPARE(host[QStringLiteral("shared_directory")].toBool(), false);
        QCOMPARE(readFile(m_remoteDir + QStringLiteral("/targets/gelu_baseline.py")),
                 readFile(project() + QStringLiteral("/targets/gelu_baseline.py")));
        QVERIFY(QFileInfo::exists(m_remoteDir + QStringLiteral("/targets/_hotkernel_contract.py")));
        verifyNothingLeft();
    }

    void verifyAndRecord()
    {
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url,
                            QStringLiteral("verify"), QStringLiteral("targets/gelu_baseline.py"),
                            QStringLiteral("targets/gelu_candidate.py"), QStringLiteral("--n"),
                            QStringLiteral("3"), QStringLiteral("--record"), QStringLiteral("--note"),
                            QStringLiteral("through Slurm"), QStringLiteral("--who"),
                            QStringLiteral("tst_remoteslurm")},
                           &out, &err),
                 0);
        // The baseline judged the candidate's outputs on the node; both sides ran confined there.
        QJsonObject recorded;
        checkRecordedVerify(out, project(), m_url, &recorded);
        if (QTest::currentTestFailed())
            return;
        const QJsonObject host = recorded[QStringLiteral("host")].toObject();
        QCOMPARE(host[QStringLiteral("kind")].toString(), QStringLiteral("slurm"));
        QVERIFY(!host[QStringLiteral("job_id")].toString().isEmpty());
        QCOMPARE(QDir(m_remoteDir + QStringLiteral("/.hotkernel"))
                     .entryList({QStringLiteral("judge-*")}, QDir::Dirs),
                 QStringList());
        verifyNothingLeft();
    }

    void oneSessionKeepsItsAllocation()
    {
        // In one session (the window's, an agent's) the allocation and the warm worker stay: a
        // verify after a bench runs in the same job and reuses the baseline's worker.
        hotkernel::SessionOptions options;
        options.workDir = project();
        options.host = m_url;
        auto session = std::make_unique<hotkernel::Session>(hotkernel::builtinTools(), options);
        const auto call = [&session](const QString &tool, const hotkernel::Json &args) {
            return callTool(*session, tool, args);
        };
        const hotkernel::ToolResult bench =
            call(QStringLiteral("bench"), hotkernel::Json{{"script", "targets/gelu_baseline.py"}, {"n", 2}});
        QVERIFY2(!bench.isError, qPrintable(bench.text));
        const hotkernel::ToolResult verify =
            call(QStringLiteral("verify"), hotkernel::Json{{"baseline", "targets/gelu_baseline.py"},
                                                           {"candidate", "targets/gelu_candidate.py"},
                                                           {"n", 2}});
        QVERIFY2(!verify.isError, qPrintable(verify.text));
        QCOMPARE(verify.structured["workers_reused"]["baseline"].get<bool>(), true);
        const std::string job = bench.structured["host"]["job_id"].get<std::string>();
        QVERIFY(!job.empty());
        QCOMPARE(verify.structured["host"]["job_id"].get<std::string>(), job);
        QVERIFY2(jobsLeft().startsWith(QString::fromStdString(job)), qPrintable(jobsLeft()));
        session.reset(); // gives the allocation back; Slurm ends the steps
        verifyNothingLeft();
    }

    void agentRunsTheLoop()
    {
        // An agent's MCP server with HOTKERNEL_HOST=slurm://... (its .mcp.json "env"), driven by
        // the official MCP Python SDK: new_target, bench, verify and record in the allocation.
        checkAgentLoop(project(), environment(), m_url, QStringLiteral(HOTKERNEL_TEST_PYTHON),
                       QStringLiteral("agentgelu"));
        verifyNothingLeft();
    }

    void windowRunsTheLoop()
    {
        // The workbench window over a session whose host is the Slurm partition.
        checkWindowLoop(project(), m_url, QStringLiteral("windowgelu"));
        verifyNothingLeft();
    }

    void lifetimePerVerify()
    {
        // lifetime=verify: each run queues for its own allocation and gives it back at its end.
        hotkernel::SessionOptions options;
        options.workDir = project();
        options.host = url(QStringLiteral("time=10&lifetime=verify"), m_remoteDir);
        auto session = std::make_unique<hotkernel::Session>(hotkernel::builtinTools(), options);
        const auto bench = [&session] {
            return callTool(*session, QStringLiteral("bench"),
                            hotkernel::Json{{"script", "targets/gelu_baseline.py"}, {"n", 2}});
        };
        const hotkernel::ToolResult first = bench();
        QVERIFY2(!first.isError, qPrintable(first.text));
        verifyNothingLeft(); // between runs nothing is held
        const hotkernel::ToolResult second = bench();
        QVERIFY2(!second.isError, qPrintable(second.text));
        QVERIFY(first.structured["host"]["job_id"] != second.structured["host"]["job_id"]);
        session.reset();
        verifyNothingLeft();
    }

    void gpuInfoReadsTheNode()
    {
        // The card is the node's (nvidia-smi in a step of the allocation), not this machine's.
        QByteArray out, err;
        QCOMPARE(
            hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url, QStringLiteral("gpu-info")},
                      &out, &err),
            0);
        const QJsonObject r = QJsonDocument::fromJson(out).object();
        QVERIFY2(!r.isEmpty(), err.constData());
        QCOMPARE(r[QStringLiteral("host")].toObject()[QStringLiteral("url")].toString(), m_url);
        const QJsonObject gpu = r[QStringLiteral("gpu")].toObject();
        if (gpu[QStringLiteral("available")].toBool())
            QVERIFY2(gpu[QStringLiteral("source")].toString().contains(m_url), out.constData());
        else
            QVERIFY2(r[QStringLiteral("reason")].toString().contains(m_url), out.constData());
        verifyNothingLeft();
    }

    void inspectToolsInAStep()
    {
        // torch_trace and disasm run as steps of the allocation, as the workers do; what they make
        // comes back here.
        QByteArray out, err;
        int exitCode = hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url,
                                  QStringLiteral("torch-trace"), QStringLiteral("targets/gelu_baseline.py"),
                                  QStringLiteral("--save-trace")},
                                 &out, &err);
        QVERIFY2(exitCode == 0, err.constData());
        const QJsonObject trace = QJsonDocument::fromJson(out).object();
        QCOMPARE(trace[QStringLiteral("host")].toString(), m_url);
        QCOMPARE(trace[QStringLiteral("script")].toString(),
                 m_remoteDir + QStringLiteral("/targets/gelu_baseline.py"));
        QVERIFY(trace[QStringLiteral("op_count")].toInt() > 0);
        QVERIFY(
            !QJsonDocument::fromJson(readFile(trace[QStringLiteral("chrome_trace")].toString())).isNull());

        const QString tools = hotkernel::test::venvCuobjdumpDir(QStringLiteral(HOTKERNEL_TEST_PYTHON));
        if (tools.isEmpty())
            QSKIP("no cuobjdump wheel in the test venv (packaging/setup-deps.sh installs it)");
        const QString cubin = hotkernel::test::placeCubin(project());
        QVERIFY(!cubin.isEmpty());
        const QString url = m_url + QStringLiteral("&tools=") + tools;
        exitCode = hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), url,
                              QStringLiteral("disasm"), cubin, QStringLiteral("--list")},
                             &out, &err);
        QVERIFY2(exitCode == 0, err.constData());
        const QJsonObject listing = QJsonDocument::fromJson(out).object();
        QCOMPARE(listing[QStringLiteral("binary")].toString(), m_remoteDir + QLatin1Char('/') + cubin);
        QVERIFY2(listing[QStringLiteral("command")].toString().startsWith(
                     QStringLiteral("on %1: %2").arg(url, tools)),
                 out.constData());
        QVERIFY(!listing[QStringLiteral("functions")].toArray().isEmpty());
        verifyNothingLeft();
    }

    void nodeSeesThisDirectory()
    {
        // No workdir: the node sees this very directory (here, as on a cluster's shared file
        // system), found by the probe's token, so nothing is copied.
        QByteArray out, err;
        QCOMPARE(
            hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), url(QStringLiteral("time=5"), {}),
                       QStringLiteral("bench"), QStringLiteral("targets/gelu_baseline.py"),
                       QStringLiteral("--n"), QStringLiteral("2")},
                      &out, &err),
            0);
        const QJsonObject host = QJsonDocument::fromJson(out).object()[QStringLiteral("host")].toObject();
        QCOMPARE(host[QStringLiteral("shared_directory")].toBool(), true);
        QCOMPARE(host[QStringLiteral("workdir")].toString(), QDir(project()).canonicalPath());
        QVERIFY2(!err.contains("copying"), err.constData());
        for (const QString &name : QDir(project()).entryList(QDir::Files | QDir::Hidden))
            QVERIFY2(!name.startsWith(QLatin1String(".hotkernel-probe-")), qPrintable(name));
        QTRY_VERIFY2_WITH_TIMEOUT(jobsLeft().isEmpty(), qPrintable(jobsLeft()), 30000);
    }

    void scancelMidVerify()
    {
        QProcess verify;
        QByteArray err;
        QVERIFY2(startLongVerify(verify, m_url, "run 2", &err), err.right(900).constData());
        QVERIFY(!processesWith(m_remoteDir + QStringLiteral("/targets/gelu_baseline.py")).isEmpty());
        const QString job = jobsLeft().section(QLatin1Char(' '), 0, 0);
        QVERIFY(!job.isEmpty());
        slurm(QStringLiteral("scancel"), {job});
        QVERIFY(verify.waitForFinished(90000));
        err += verify.readAllStandardError();
        QCOMPARE(verify.exitCode(), 1);
        QVERIFY2(err.contains(m_url.toUtf8()) && err.contains("cancelled") && err.contains(job.toUtf8()),
                 err.right(900).constData());
        QVERIFY2(!verify.readAllStandardOutput().contains("\"record\""), "nothing recorded");
        verifyNothingLeft();
    }

    void timeLimitMidVerify()
    {
        // time=1 is Slurm's smallest limit, one minute; the cluster ends the job right at it.
        const QString host = url(QStringLiteral("time=1"), m_remoteDir);
        QProcess verify;
        QByteArray err;
        // Once its workers start on the node, the limit may end it in any phase, warm-up included
        // (a CPU run on the one-CPU allocation takes seconds).
        QVERIFY2(startLongVerify(verify, host, "starting workers", &err), err.right(900).constData());
        // Slurm checks time limits every few tens of seconds: the end comes one to two minutes in.
        QVERIFY(verify.waitForFinished(180000));
        err += verify.readAllStandardError();
        QCOMPARE(verify.exitCode(), 1);
        // QTest keeps a message's first kilobyte or so: the end of stderr is what says why.
        QVERIFY2(err.contains(host.toUtf8()) && err.contains("time limit") && err.contains("?time="),
                 err.right(900).constData());
        // Not said twice: the allocation's own error carries UserError::Kind::HostEnded, so the
        // session does not ask the host why it ended and put the same sentence in front of it.
        QVERIFY2(!QString::fromUtf8(err).contains(
                     QRegularExpression(QStringLiteral("What failed: [^\n]*The Slurm allocation"))),
                 err.right(900).constData());
        verifyNothingLeft();
    }
};

QTEST_MAIN(TestRemoteSlurm)
#include "tst_remoteslurm.moc"
