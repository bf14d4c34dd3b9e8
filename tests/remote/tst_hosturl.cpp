// SPDX-License-Identifier: Apache-2.0
// HostUrl::parse: the host forms --host accepts, and the messages for those it refuses; SshHost's
// path mirroring and the wrapping of a fresh run; a Slurm host's steps, and srun's real complaints
// told apart from a command's own exit.
#include "process/processspec.h"
#include "remote/hosturl.h"
#include "remote/remotehost.h"
#include "remote/slurmstepshell.h"
#include "remote/sshhost.h"

#include <QFile>
#include <QTest>

using namespace hotkernel;

class TestHostUrl : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("workdir");
        QTest::addColumn<QString>("python");
        QTest::addColumn<QString>("error"); // a word the message must carry
        QTest::newRow("local") << "local" << true << ""
                               << "" << 0 << ""
                               << ""
                               << "";
        QTest::newRow("empty") << "" << true << ""
                               << "" << 0 << ""
                               << ""
                               << "";
        QTest::newRow("host") << "ssh://gpubox" << true << ""
                              << "gpubox" << 0 << ""
                              << ""
                              << "";
        QTest::newRow("full") << "ssh://ann@gpu-1.lab:2222/scratch/ann/k?python=/opt/py/bin/python3" << true
                              << "ann"
                              << "gpu-1.lab" << 2222 << "/scratch/ann/k"
                              << "/opt/py/bin/python3"
                              << "";
        QTest::newRow("home-relative") << "ssh://box/~/work/k/" << true << ""
                                       << "box" << 0 << "work/k"
                                       << ""
                                       << "";
        QTest::newRow("scheme") << "sftp://box" << false << ""
                                << "" << 0 << ""
                                << ""
                                << "sftp";
        QTest::newRow("not a url") << "box" << false << ""
                                   << "" << 0 << ""
                                   << ""
                                   << "not a URL";
        QTest::newRow("no host") << "ssh:///tmp" << false << ""
                                 << "" << 0 << ""
                                 << ""
                                 << "no host";
        QTest::newRow("option host") << "ssh://-oProxyCommand=x" << false << ""
                                     << "" << 0 << ""
                                     << ""
                                     << "host";
        QTest::newRow("password") << "ssh://ann:secret@box" << false << ""
                                  << "" << 0 << ""
                                  << ""
                                  << "password";
        QTest::newRow("port") << "ssh://box:99999" << false << ""
                              << "" << 0 << ""
                              << ""
                              << "ssh://";
        QTest::newRow("query") << "ssh://box?gpu=1" << false << ""
                               << "" << 0 << ""
                               << ""
                               << "gpu";
        QTest::newRow("relative tools") << "ssh://box?tools=bin" << false << ""
                                        << "" << 0 << ""
                                        << ""
                                        << "absolute";
        QTest::newRow("root dir") << "ssh://box/" << false << ""
                                  << "" << 0 << ""
                                  << ""
                                  << "working directory";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QString problem;
        const auto url = HostUrl::parse(text, &problem);
        QVERIFY2(bool(url) == ok, qPrintable(problem));
        if (!ok) {
            QFETCH(QString, error);
            QString message;
            HostUrl::parse(text, &message);
            QVERIFY2(message.contains(error) && message.contains(QLatin1String("ssh://[user@]host")),
                     qPrintable(message));
            return;
        }
        QFETCH(QString, user);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(QString, workdir);
        QFETCH(QString, python);
        QCOMPARE(url->user, user);
        QCOMPARE(url->host, host);
        QCOMPARE(url->port, port);
        QCOMPARE(url->workdir, workdir);
        QCOMPARE(url->python, python);
        QCOMPARE(url->isLocal(), host.isEmpty());
        // What toString() writes parses back to the same host.
        const auto again = HostUrl::parse(url->toString(), &problem);
        QVERIFY2(again, qPrintable(problem));
        QCOMPARE(again->toString(), url->toString());
    }

    // Issue 39: whitespace and control characters in the folder of a host URL, percent-encoded,
    // are refused with what and where, on ssh and Slurm alike: decoded and trimmed or cut at a line
    // break they named another folder (/tmp/x/victim).
    void whitespaceInTheWorkdirIsRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("words");
        const QString ssh = QStringLiteral("ssh://ann@box:2222/tmp/x/victim");
        const QString slurm = QStringLiteral("slurm://gpu?workdir=/tmp/x/victim");
        const QList<std::pair<const char *, const char *>> encoded{
            {"%0A", "a line feed (U+000A)"},
            {"%0D", "a carriage return (U+000D)"},
            {"%09", "a tab (U+0009)"},
            {"%20", "a space (U+0020)"},
            {"%C2%A0", "a no-break space (U+00A0)"},
            {"%E2%80%8B", "an invisible character (U+200B)"},
            {"%00", "an invisible character (U+0000)"}};
        for (const auto &[code, words] : encoded) {
            QTest::addRow("ssh, trailing %s", code)
                << ssh + QLatin1String(code) << QString::fromLatin1(words);
            QTest::addRow("ssh, %s then more", code)
                << ssh + QLatin1String(code) + QStringLiteral("junk") << QString::fromLatin1(words);
            QTest::addRow("slurm, trailing %s", code)
                << slurm + QLatin1String(code) << QString::fromLatin1(words);
        }
    }
    void whitespaceInTheWorkdirIsRefused()
    {
        QFETCH(QString, text);
        QFETCH(QString, words);
        QString message;
        QVERIFY2(!HostUrl::parse(text, &message), qPrintable(text));
        QVERIFY2(message.contains(words), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("without whitespace or control characters")),
                 qPrintable(message));
        // The message shows the folder encoded (one line), and nothing of it went through a
        // placeholder: "%0D" stays as written, never "1D".
        QVERIFY2(!message.contains(QLatin1Char('\n')) && !message.contains(QLatin1Char('\r')),
                 qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("/tmp/x/victim%")), qPrintable(message));
    }

    void toolFolders()
    {
        // ?tools= names folders on the host searched first for ncu, cuobjdump, nvdisasm and cmake.
        QString problem;
        const auto url = HostUrl::parse(
            QStringLiteral("ssh://box/k?python=/opt/py/bin/python3&tools=/opt/ncu:/opt/cuda/bin"), &problem);
        QVERIFY2(url, qPrintable(problem));
        QCOMPARE(url->toolDirs, QStringList({QStringLiteral("/opt/ncu"), QStringLiteral("/opt/cuda/bin")}));
        QCOMPARE(url->python, QStringLiteral("/opt/py/bin/python3"));
        QCOMPARE(url->toString(),
                 QStringLiteral("ssh://box/k?python=/opt/py/bin/python3&tools=/opt/ncu:/opt/cuda/bin"));
    }

    void paths()
    {
        SshHost ssh(*HostUrl::parse(QStringLiteral("ssh://box"), nullptr), QStringLiteral("/run/ctl"),
                    QStringLiteral("/home/ann/proj"));
        ssh.setRemoteWorkdir(QStringLiteral("/scratch/proj"));
        QCOMPARE(ssh.remotePath(QStringLiteral("/home/ann/proj/t/x.py")),
                 QStringLiteral("/scratch/proj/t/x.py"));
        QCOMPARE(ssh.remotePath(QStringLiteral("/home/ann/project/x.py")),
                 QStringLiteral("/home/ann/project/x.py"));
        QCOMPARE(ssh.localPath(QStringLiteral("/scratch/proj/t/x.py")),
                 QStringLiteral("/home/ann/proj/t/x.py"));
        QCOMPARE(ssh.localPath(QStringLiteral("/usr/lib/python3/x.py")), QString());
        // A worker's scratch there (issue 41: its Triton cache, its bytecode) mirrors nothing here.
        QCOMPARE(ssh.localPath(QStringLiteral("/scratch/proj/.hotkernel/worker-1a2b/triton/k.py")),
                 QString());

        ProcessSpec spec;
        spec.program = QStringLiteral("python3");
        spec.arguments = {QStringLiteral("/home/ann/proj/t/x.py"), QStringLiteral("--run"),
                          QStringLiteral("0")};
        spec.workingDirectory = QStringLiteral("/home/ann/proj/t");
        ssh.wrap(spec, true);
        QCOMPARE(spec.program, SshHost::sshProgram());
        QVERIFY(spec.arguments.contains(QStringLiteral("BatchMode=yes")));
        QVERIFY(spec.arguments.contains(QStringLiteral("ControlPath=/run/ctl")));
        QVERIFY(spec.arguments.contains(QStringLiteral("ControlMaster=no")));
        const QString command = spec.arguments.last();
        QVERIFY2(command.startsWith(QStringLiteral("cd /scratch/proj/t && exec python3 "
                                                   "/scratch/proj/.hotkernel/hotkernel-remote-supervise.py "
                                                   "--keep-on-eof -- python3 /scratch/proj/t/x.py --run 0")),
                 qPrintable(command));
    }

    void failures()
    {
        SshHost ssh(*HostUrl::parse(QStringLiteral("ssh://ann@box:2222"), nullptr),
                    QStringLiteral("/run/ctl"), QStringLiteral("/p"));
        const QString key = ssh.describeFailure("Host key verification failed.\r\n");
        QVERIFY2(key.contains(QLatin1String("ssh://ann@box:2222")) &&
                     key.contains(QLatin1String("ssh -p 2222 ann@box")),
                 qPrintable(key));
        const QString auth = ssh.describeFailure("ann@box: Permission denied (publickey).\n");
        QVERIFY2(auth.contains(QLatin1String("refused the login")) &&
                     auth.contains(QLatin1String("ssh-copy-id")),
                 qPrintable(auth));
        const QString lost = ssh.describeFailure("Connection to box closed by remote host.\n");
        QVERIFY2(lost.contains(QLatin1String("lost")) && lost.contains(QLatin1String("ssh://ann@box:2222")),
                 qPrintable(lost));
    }

    void slurmUrls()
    {
        QString problem;
        const auto url = HostUrl::parse(
            QStringLiteral("slurm://gpu?gres=gpu:1&time=30&python=/opt/py/bin/python3&workdir=/scratch/k/"),
            &problem);
        QVERIFY2(url, qPrintable(problem));
        QCOMPARE(url->kind, HostUrl::Kind::Slurm);
        QVERIFY(!url->isLocal());
        QCOMPARE(url->slurm.partition, QStringLiteral("gpu"));
        QCOMPARE(url->slurm.gres, QStringLiteral("gpu:1"));
        // The interpreter and the working directory reach the parts that ssh hosts use too.
        QCOMPARE(url->python, QStringLiteral("/opt/py/bin/python3"));
        QCOMPARE(url->workdir, QStringLiteral("/scratch/k"));
        const auto again = HostUrl::parse(url->toString(), &problem);
        QVERIFY2(again, qPrintable(problem));
        QCOMPARE(again->toString(), url->toString());
        QCOMPARE(again->slurm, url->slurm);

        // ?tools= on a node as on an ssh host; toString() keeps it.
        const auto withTools = HostUrl::parse(
            QStringLiteral("slurm://gpu?time=30&tools=/opt/ncu:/usr/local/cuda/bin"), &problem);
        QVERIFY2(withTools, qPrintable(problem));
        QCOMPARE(withTools->toolDirs,
                 QStringList({QStringLiteral("/opt/ncu"), QStringLiteral("/usr/local/cuda/bin")}));
        QCOMPARE(HostUrl::parse(withTools->toString(), &problem)->toolDirs, withTools->toolDirs);

        const auto plain = HostUrl::parse(QStringLiteral("slurm://"), &problem);
        QVERIFY2(plain && plain->kind == HostUrl::Kind::Slurm, qPrintable(problem));
        QVERIFY(plain->slurm.partition.isEmpty());

        QString message;
        QVERIFY(!HostUrl::parse(QStringLiteral("slurm://gpu?gres=gpu:1&gpus=2"), &message));
        QVERIFY2(message.contains(QLatin1String("gpus")) && message.contains(QLatin1String("slurm://")),
                 qPrintable(message));
        QVERIFY(!HostUrl::parse(QStringLiteral("slurm://gpu?workdir=/"), &message));
        QVERIFY2(message.contains(QLatin1String("workdir")), qPrintable(message));
        // The scheme list that a wrong scheme is told names both kinds of host.
        QVERIFY(!HostUrl::parse(QStringLiteral("pbs://q"), &message));
        QVERIFY2(message.contains(QLatin1String("slurm://")) && message.contains(QLatin1String("ssh://")),
                 qPrintable(message));
    }

    void slurmStep()
    {
        const auto url =
            HostUrl::parse(QStringLiteral("slurm://debug?time=5&python=/opt/py/bin/python3"), nullptr);
        QVERIFY(url);
        SlurmStepShell shell(*url, QStringLiteral("42"),
                             {QStringLiteral("--jobid=42"), QStringLiteral("--overlap")},
                             QStringLiteral("/home/ann/proj"));
        shell.setRemoteWorkdir(QStringLiteral("/home/ann/proj"));
        ProcessSpec spec;
        spec.program = QStringLiteral("python3");
        spec.arguments = {QStringLiteral("/home/ann/proj/x.py"), QStringLiteral("--worker")};
        spec.workingDirectory = QStringLiteral("/home/ann/proj");
        shell.wrap(spec, false);
        QCOMPARE(spec.program, QStringLiteral("srun"));
        QCOMPARE(spec.arguments.mid(0, 6),
                 QStringList({QStringLiteral("--jobid=42"), QStringLiteral("--overlap"), QStringLiteral("--"),
                              QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                              QStringLiteral("cd /home/ann/proj && exec /opt/py/bin/python3 "
                                             "/home/ann/proj/.hotkernel/hotkernel-remote-supervise.py -- "
                                             "python3 /home/ann/proj/x.py --worker")}));
    }

    void slurmStepFailures_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<bool>("transport");
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("says"); // a word the message must carry
        QTest::newRow("own exit") << "srun-task-exit-7.stderr" << 7 << false << ""
                                  << "";
        QTest::newRow("scancel") << "srun-job-scancelled.stderr" << 143 << true << "CANCELLED"
                                 << "cancelled";
        QTest::newRow("time limit") << "srun-time-limit.stderr" << 143 << true << "TIMEOUT"
                                    << "?time=";
        QTest::newRow("job gone") << "srun-job-gone.stderr" << 1 << true << ""
                                  << "has expired";
    }
    void slurmStepFailures()
    {
        QFETCH(QString, capture);
        QFETCH(int, exitCode);
        QFETCH(bool, transport);
        QFETCH(QString, state);
        QFETCH(QString, says);
        QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/slurm/") + capture);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray stderrText = f.readAll();
        const auto url = HostUrl::parse(QStringLiteral("slurm://debug?time=1"), nullptr);
        QVERIFY(url);
        const SlurmStepShell shell(*url, QStringLiteral("3"), {}, QStringLiteral("/p"));
        QCOMPARE(shell.isTransportFailure(exitCode, stderrText), transport);
        QCOMPARE(SlurmStepShell::endStateIn(stderrText), state);
        // A refused step says the job is over (the session then waits for Slurm to say why).
        QCOMPARE(SlurmStepShell::saysJobIsOver(QString::fromUtf8(stderrText)),
                 capture.contains(QLatin1String("gone")));
        if (!transport)
            return;
        const QString message = shell.describeFailure(stderrText);
        QVERIFY2(message.contains(QLatin1String("slurm://debug?time=1")) &&
                     message.contains(QLatin1String("job 3")) && message.contains(says),
                 qPrintable(message));
    }

    void gpuSnapshotOfTheHost()
    {
        // nvidia-smi's real answer on the H200 (tests/data/inspect), as the host's shell prints it
        // with the marker line: the same snapshot a local verify records, clocks included.
        QFile capture(
            QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/nvidia-smi-query-noheader.csv"));
        QVERIFY(capture.open(QIODevice::ReadOnly));
        const QString host = QStringLiteral("ssh://ann@gpubox");
        const Json gpu = RemoteHost::parseGpuSnapshot(capture.readAll() + "#events\n", host);
        QVERIFY(gpu.value("available", false));
        QCOMPARE(toQt(gpu.value("name", std::string())), QStringLiteral("NVIDIA H200"));
        QCOMPARE(toQt(gpu.value("source", std::string())), QStringLiteral("nvidia-smi on ssh://ann@gpubox"));
        QCOMPARE(gpu.value("max_sm_clock_mhz", 0.0), 1980.0);
        QCOMPARE(gpu.value("sm_clock_mhz", 0.0), 345.0);
        QCOMPARE(gpu.value("l2_bytes", 0LL), 62914560LL); // from the card table, as locally

        const Json none = RemoteHost::parseGpuSnapshot("#no-smi\n", host);
        QVERIFY(!none.value("available", true));
        QVERIFY(toQt(none.value("reason", std::string())).contains(host));
        const Json failed = RemoteHost::parseGpuSnapshot("NVIDIA-SMI has failed\n#failed\n", host);
        QVERIFY(!failed.value("available", true));
        QVERIFY(toQt(failed.value("reason", std::string())).contains(QLatin1String("no usable NVIDIA GPU")));
    }
};

QTEST_GUILESS_MAIN(TestHostUrl)
#include "tst_hosturl.moc"
