// SPDX-License-Identifier: Apache-2.0
// bench, verify and record over SSH against a real OpenSSH server (issue 24): the test starts
// Debian's sshd on a free localhost port with its own host key, authorized key and known_hosts,
// makes a CPU target with `hotkernel new`, and runs the hotkernel binary with --host
// ssh://root@127.0.0.1:PORT/DIR. Then the fault: sshd killed mid-verify must end in an error
// naming the host, with no worker left on either side. Needs root, sshd, rsync and CPU torch.
#include "remotetesthelpers.h"
#include "tools/builtintools.h"
#include "windowloop.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using hotkernel::test::checkRecordedVerify;
using hotkernel::test::processesWith;
using hotkernel::test::readFile;

class TestRemoteSsh : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_python;
    QString m_url;
    QString m_remoteDir; // the host's working directory: its path marks every remote process
    QProcess m_sshd;
    int m_port = 0;

    QString path(const QString &relative) const { return m_tmp.filePath(relative); }
    QString project() const { return path(QStringLiteral("project")); }

    static bool writeFile(const QString &file, const QByteArray &bytes)
    {
        QFile f(file);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
    }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOTKERNEL_SSH_CONFIG"), path(QStringLiteral("ssh_config")));
        env.insert(QStringLiteral("HOTKERNEL_PYTHON"), m_python);
        env.insert(QStringLiteral("HOTKERNEL_LOCK_DIR"), m_tmp.path());
        env.remove(QStringLiteral("HOTKERNEL_HOST"));
        env.remove(QStringLiteral("SSH_AUTH_SOCK")); // only the keys the config names
        return env;
    }

    // The host (this machine) can build hotkernel's native helpers: CMake and the CUDA Toolkit.
    static bool canBuildHelpers()
    {
        return QFileInfo::exists(QStringLiteral("/usr/local/cuda/bin/nvcc")) &&
               !QStandardPaths::findExecutable(QStringLiteral("cmake")).isEmpty();
    }

    int hotkernel(const QStringList &arguments, QByteArray *out, QByteArray *err)
    {
        return hotkernel::test::runHotkernel(project(), environment(), arguments, out, err);
    }

    static int freePort()
    {
        QTcpServer server;
        return server.listen(QHostAddress::LocalHost, 0) ? server.serverPort() : 0;
    }

    // The sshd listener and every process below it (the connection's privilege-separated children).
    QList<qint64> sshdTree() const
    {
        QList<qint64> tree{m_sshd.processId()};
        bool grew = true;
        while (grew) {
            grew = false;
            for (QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot); it.hasNext();) {
                bool number = false;
                const qint64 pid = QFileInfo(it.next()).fileName().toLongLong(&number);
                if (!number || tree.contains(pid))
                    continue;
                const QByteArray stat = readFile(QStringLiteral("/proc/%1/stat").arg(pid));
                const qsizetype close = stat.lastIndexOf(')');
                const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
                if (fields.size() > 1 && tree.contains(fields.at(1).toLongLong())) {
                    // Only sshd itself: the remote shell and the supervisor must end on their own.
                    if (readFile(QStringLiteral("/proc/%1/comm").arg(pid)).trimmed() == "sshd") {
                        tree.append(pid);
                        grew = true;
                    }
                }
            }
        }
        return tree;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("needs root: sshd runs as root with its own host key (CI runs as root)");
        if (!QFileInfo::exists(QStringLiteral("/usr/sbin/sshd")))
            QSKIP("no /usr/sbin/sshd (Debian: apt install openssh-server; packaging/setup-deps.sh does)");
        for (const char *tool : {"ssh", "ssh-keygen", "rsync"}) {
            if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
                QSKIP(qPrintable(QStringLiteral("no %1 (Debian: apt install openssh-client rsync)")
                                     .arg(QString::fromLatin1(tool))));
        }
        m_python = qEnvironmentVariable("HOTKERNEL_TORCH_PYTHON", QStringLiteral("/usr/bin/python3"));
        if (QProcess::execute(m_python, {QStringLiteral("-c"), QStringLiteral("import torch")}) != 0)
            QSKIP("no Python with torch (HOTKERNEL_TORCH_PYTHON; Debian: apt install python3-torch)");
        QVERIFY(m_tmp.isValid());
        QVERIFY(QDir().mkpath(project()));
        m_remoteDir = path(QStringLiteral("remote"));

        // Keys: the server's host key, the client's key, which is the only authorized one.
        for (const char *key : {"host_key", "client_key", "stranger_key"})
            QCOMPARE(QProcess::execute(QStringLiteral("ssh-keygen"),
                                       {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                        QStringLiteral("-N"), QString(), QStringLiteral("-f"),
                                        path(QString::fromLatin1(key))}),
                     0);
        QVERIFY(QFile::copy(path(QStringLiteral("client_key.pub")), path(QStringLiteral("authorized_keys"))));
        m_port = freePort();
        QVERIFY(m_port > 0);
        const QByteArray config =
            QStringLiteral("Port %1\nListenAddress 127.0.0.1\nHostKey %2\n"
                           "AuthorizedKeysFile %3\nPidFile %4\nStrictModes no\nUsePAM no\n"
                           "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                           "PermitRootLogin prohibit-password\n")
                .arg(m_port)
                .arg(path(QStringLiteral("host_key")), path(QStringLiteral("authorized_keys")),
                     path(QStringLiteral("sshd.pid")))
                .toUtf8();
        QVERIFY(writeFile(path(QStringLiteral("sshd_config")), config));
        QVERIFY(writeFile(path(QStringLiteral("known_hosts")),
                          QStringLiteral("[127.0.0.1]:%1 ").arg(m_port).toUtf8() +
                              readFile(path(QStringLiteral("host_key.pub")))));
        QVERIFY(writeFile(
            path(QStringLiteral("ssh_config")),
            // "stranger": an alias, as in ~/.ssh/config, whose key is not authorized there.
            QStringLiteral("Host stranger\n  HostName 127.0.0.1\n  IdentityFile %3\n  IdentitiesOnly yes\n"
                           "Host * !stranger\n  IdentityFile %1\n  IdentitiesOnly yes\n"
                           "Host *\n  UserKnownHostsFile %2\n  StrictHostKeyChecking yes\n")
                .arg(path(QStringLiteral("client_key")), path(QStringLiteral("known_hosts")),
                     path(QStringLiteral("stranger_key")))
                .toUtf8()));
        QDir().mkpath(QStringLiteral("/run/sshd")); // sshd's privilege separation directory
        m_sshd.setProcessChannelMode(QProcess::MergedChannels);
        m_sshd.start(QStringLiteral("/usr/sbin/sshd"),
                     {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
                      path(QStringLiteral("sshd_config"))});
        QVERIFY2(m_sshd.waitForStarted(), qPrintable(m_sshd.errorString()));
        QTRY_VERIFY2_WITH_TIMEOUT(
            [this] {
                QTcpSocket s;
                s.connectToHost(QHostAddress::LocalHost, quint16(m_port));
                return s.waitForConnected(200);
            }() ||
                m_sshd.state() == QProcess::NotRunning,
            "sshd does not listen", 10000);
        QVERIFY2(m_sshd.state() == QProcess::Running, m_sshd.readAll().constData());
        m_url = QStringLiteral("ssh://root@127.0.0.1:%1%2?python=%3").arg(m_port).arg(m_remoteDir, m_python);

        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url, QStringLiteral("new"),
                            QStringLiteral("gelu"), QStringLiteral("--from"),
                            QStringLiteral("torch.nn.functional:gelu"), QStringLiteral("--shape"),
                            QStringLiteral("256x512"), QStringLiteral("--dtype"), QStringLiteral("fp32"),
                            QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--iters"),
                            QStringLiteral("10"), QStringLiteral("--out-dir"), QStringLiteral("targets")},
                           &out, &err),
                 0);
        QVERIFY(QFileInfo::exists(project() + QStringLiteral("/targets/gelu_candidate.py")));
        // The import check ran on the host, with its interpreter.
        const QJsonObject made = QJsonDocument::fromJson(out).object();
        QCOMPARE(made[QStringLiteral("python")].toObject()[QStringLiteral("source")].toString(), m_url);
    }

    void cleanupTestCase()
    {
        if (m_sshd.state() != QProcess::NotRunning) {
            m_sshd.terminate();
            m_sshd.waitForFinished(5000);
        }
    }

    void badHostKey()
    {
        // A host key ssh does not know: refused without a prompt, with the fix in the message.
        const QString url =
            QStringLiteral("ssh://root@localhost:%1%2?python=%3").arg(m_port).arg(m_remoteDir, m_python);
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--host"), url, QStringLiteral("bench"),
                            QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                            QStringLiteral("2")},
                           &out, &err),
                 1);
        QVERIFY2(err.contains("host key") && err.contains(url.toUtf8()), err.constData());
    }

    void loginRefused()
    {
        const QString url =
            QStringLiteral("ssh://root@stranger:%1%2?python=%3").arg(m_port).arg(m_remoteDir, m_python);
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--host"), url, QStringLiteral("bench"),
                            QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                            QStringLiteral("2")},
                           &out, &err),
                 1);
        QVERIFY2(err.contains(url.toUtf8()) && err.contains("refused the login") &&
                     err.contains("ssh-copy-id"),
                 err.constData());
    }

    void noTorchThere()
    {
        // An interpreter the host does not have: the message names the host and ?python=.
        const QString url = QStringLiteral("ssh://root@127.0.0.1:%1%2?python=/nonexistent/python3")
                                .arg(m_port)
                                .arg(m_remoteDir);
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--host"), url, QStringLiteral("bench"),
                            QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                            QStringLiteral("2")},
                           &out, &err),
                 1);
        QVERIFY2(err.contains(url.toUtf8()) && err.contains("no Python interpreter") &&
                     err.contains("?python=") && err.contains("non-interactive ssh command"),
                 err.constData());
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
        const QString url = QStringLiteral("ssh://root@127.0.0.1:") + QString::number(m_port) + victim +
                            code + QStringLiteral("?python=") + m_python;
        QByteArray out, err;
        QVERIFY(hotkernel({QStringLiteral("--host"), url, QStringLiteral("bench"),
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
        QCOMPARE(host[QStringLiteral("kind")].toString(), QStringLiteral("ssh"));
        QCOMPARE(host[QStringLiteral("url")].toString(), m_url);
        QCOMPARE(host[QStringLiteral("workdir")].toString(), m_remoteDir);
        QVERIFY(!host[QStringLiteral("hostname")].toString().isEmpty());
        // Not a shared directory: the files were copied there.
        QCOMPARE(host[QStringLiteral("shared_directory")].toBool(), false);
        QCOMPARE(readFile(m_remoteDir + QStringLiteral("/targets/gelu_baseline.py")),
                 readFile(project() + QStringLiteral("/targets/gelu_baseline.py")));
        QVERIFY(QFileInfo::exists(m_remoteDir + QStringLiteral("/targets/_hotkernel_contract.py")));
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 10000);
    }

    void gpuInfoReadsTheHost()
    {
        // The card is the host's (nvidia-smi there), not this machine's.
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
    }

    void verifyAndRecord()
    {
        QByteArray out, err;
        QCOMPARE(
            hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url, QStringLiteral("verify"),
                       QStringLiteral("targets/gelu_baseline.py"),
                       QStringLiteral("targets/gelu_candidate.py"), QStringLiteral("--n"),
                       QStringLiteral("3"), QStringLiteral("--record"), QStringLiteral("--note"),
                       QStringLiteral("over ssh"), QStringLiteral("--who"), QStringLiteral("tst_remotessh")},
                      &out, &err),
            0);
        // The baseline judged the candidate's outputs on the host; both sides ran confined there.
        QJsonObject recorded;
        checkRecordedVerify(out, project(), m_url, &recorded);
        if (QTest::currentTestFailed())
            return;
        const QJsonObject host = recorded[QStringLiteral("host")].toObject();
        QVERIFY(host.contains(QStringLiteral("card")) && host.contains(QStringLiteral("driver")));
        // The card snapshot (clocks, on a GPU host) comes from the host: this one has no nvidia-smi.
        const QJsonObject gpu = recorded[QStringLiteral("gpu")].toObject();
        QVERIFY2(!gpu[QStringLiteral("available")].toBool(true) &&
                     gpu[QStringLiteral("reason")].toString().contains(m_url),
                 QJsonDocument(gpu).toJson().constData());
        // The judge's directory on the host went with the verify, and the workers' scratches (the
        // judge's lay in the candidate's) with their supervisors.
        QCOMPARE(QDir(m_remoteDir + QStringLiteral("/.hotkernel"))
                     .entryList({QStringLiteral("judge-*")}, QDir::Dirs),
                 QStringList());
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(QDir(m_remoteDir + QStringLiteral("/.hotkernel"))
                                      .entryList({QStringLiteral("worker-*")}, QDir::Dirs),
                                  QStringList(), 10000);
    }

    void aCandidateCannotWriteOutsideItsScratch()
    {
        // Issue 41 on the host: a candidate that plants a file beside the scripts and a .pyc of the
        // baseline there (tests/data/adversarial/target_write.py) is refused by the Landlock ruleset
        // of the host's supervisor; the verify says the candidate ran confined, and nothing
        // appears in the host's copy of the target's folder.
        const QString candidate = QStringLiteral("targets/gelu_write.py");
        QFile::remove(project() + QLatin1Char('/') + candidate);
        QVERIFY(QFile::copy(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/adversarial/target_write.py"),
                            project() + QLatin1Char('/') + candidate));
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url,
                            QStringLiteral("verify"), QStringLiteral("targets/gelu_baseline.py"), candidate,
                            QStringLiteral("--n"), QStringLiteral("3")},
                           &out, &err),
                 0);
        const QJsonObject r = QJsonDocument::fromJson(out).object();
        QVERIFY2(
            r[QStringLiteral("confinement")].toObject()[QStringLiteral("candidate")].toString().startsWith(
                QLatin1String("landlock ABI ")),
            out.constData());
        const QString verdict = r[QStringLiteral("verdict")].toString();
        QVERIFY2(verdict == QLatin1String("faster") || verdict == QLatin1String("slower") ||
                     verdict == QLatin1String("inconclusive"),
                 out.constData());
        for (const char *name : {"planted_by_candidate.txt", "gelu_baseline.pyc"}) {
            QVERIFY2(!QFileInfo::exists(m_remoteDir + QStringLiteral("/targets/") + QLatin1String(name)),
                     name);
            QVERIFY2(!QFileInfo::exists(project() + QStringLiteral("/targets/") + QLatin1String(name)), name);
        }
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 10000);
    }

    void oneSessionKeepsItsWorkers()
    {
        // In one session (the window's, an agent's) the connection and the warm worker stay: a
        // verify after a bench reuses the baseline's remote worker, whose reported sources (the
        // host's paths) map back to the files here and are unchanged.
        qputenv("HOTKERNEL_SSH_CONFIG", path(QStringLiteral("ssh_config")).toUtf8());
        hotkernel::SessionOptions options;
        options.workDir = project();
        options.host = m_url;
        auto session = std::make_unique<hotkernel::Session>(hotkernel::builtinTools(), options);
        const auto call = [&session](const QString &tool, const hotkernel::Json &args) {
            return hotkernel::test::callTool(*session, tool, args);
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
        session.reset(); // ends the workers and the connection
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 15000);
    }

    void agentRunsTheLoop()
    {
        // An agent's MCP server with HOTKERNEL_HOST set (its .mcp.json "env"), driven by the
        // official MCP Python SDK: new_target, bench, verify and record all on the host.
        hotkernel::test::checkAgentLoop(project(), environment(), m_url,
                                        QStringLiteral(HOTKERNEL_TEST_PYTHON), QStringLiteral("agentgelu"));
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 15000);
    }

    void windowRunsTheLoop()
    {
        // The workbench window over a session on the host: its toolbar's jobs and Record dialog.
        qputenv("HOTKERNEL_SSH_CONFIG", path(QStringLiteral("ssh_config")).toUtf8());
        hotkernel::test::checkWindowLoop(project(), m_url, QStringLiteral("windowgelu"));
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 15000);
    }

    void torchTraceOnTheHost()
    {
        // The script runs under torch.profiler there; its chrome trace comes back into profiles/.
        QByteArray out, err;
        const int exitCode = hotkernel(
            {QStringLiteral("--json"), QStringLiteral("--host"), m_url, QStringLiteral("torch-trace"),
             QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--save-trace")},
            &out, &err);
        QVERIFY2(exitCode == 0, err.constData());
        const QJsonObject r = QJsonDocument::fromJson(out).object();
        QVERIFY2(!r.isEmpty(), err.constData());
        QCOMPARE(r[QStringLiteral("host")].toString(), m_url);
        // It ran the host's copy of the script, in the host's directory.
        QCOMPARE(r[QStringLiteral("script")].toString(),
                 m_remoteDir + QStringLiteral("/targets/gelu_baseline.py"));
        QVERIFY(r[QStringLiteral("op_count")].toInt() > 0);
        const QString chrome = r[QStringLiteral("chrome_trace")].toString();
        QVERIFY2(chrome.startsWith(project() + QStringLiteral("/profiles/")), qPrintable(chrome));
        QVERIFY(!QJsonDocument::fromJson(readFile(chrome)).isNull()); // an array from torch 1.13
        // Nothing of the run is left there, and no process.
        QVERIFY(QDir(m_remoteDir + QStringLiteral("/.hotkernel"))
                    .entryList({QStringLiteral("profile-*")}, QDir::Dirs)
                    .isEmpty());
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 10000);
    }

    void disasmOnTheHost()
    {
        // cuobjdump runs there: a cubin in the session's directory is copied over first. The CI's
        // cuobjdump is a wheel in the test venv, which the host's interpreter does not have, so the
        // URL names its folder (?tools=).
        const QString tools = hotkernel::test::venvCuobjdumpDir(QStringLiteral(HOTKERNEL_TEST_PYTHON));
        if (tools.isEmpty())
            QSKIP("no cuobjdump wheel in the test venv (packaging/setup-deps.sh installs it)");
        const QString cubin = hotkernel::test::placeCubin(project());
        QVERIFY(!cubin.isEmpty());
        const QString url = m_url + QStringLiteral("&tools=") + tools;
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), url, QStringLiteral("disasm"),
                            cubin, QStringLiteral("--list")},
                           &out, &err),
                 0);
        const QJsonObject remote = QJsonDocument::fromJson(out).object();
        QVERIFY2(!remote.isEmpty(), err.constData());
        QCOMPARE(remote[QStringLiteral("host")].toString(), url);
        QCOMPARE(remote[QStringLiteral("binary")].toString(), m_remoteDir + QLatin1Char('/') + cubin);
        QVERIFY2(remote[QStringLiteral("command")].toString().startsWith(
                     QStringLiteral("on %1: %2").arg(url, tools)),
                 qPrintable(remote[QStringLiteral("command")].toString()));
        QCOMPARE(readFile(m_remoteDir + QLatin1Char('/') + cubin),
                 readFile(project() + QLatin1Char('/') + cubin));
        // The same functions as cuobjdump here finds.
        QProcessEnvironment env = environment();
        env.insert(QStringLiteral("HOTKERNEL_TOOL_DIRS"), tools);
        QByteArray localOut;
        QCOMPARE(hotkernel::test::runHotkernel(
                     project(), env,
                     {QStringLiteral("--json"), QStringLiteral("disasm"), cubin, QStringLiteral("--list")},
                     &localOut, &err),
                 0);
        const QJsonArray here =
            QJsonDocument::fromJson(localOut).object()[QStringLiteral("functions")].toArray();
        QVERIFY(!here.isEmpty());
        QCOMPARE(remote[QStringLiteral("functions")].toArray(), here);

        // A file the host does not have: cuobjdump's complaint, naming the host.
        QCOMPARE(hotkernel({QStringLiteral("--host"), url, QStringLiteral("disasm"),
                            QStringLiteral("/nonexistent/kernel.cubin"), QStringLiteral("--tool"),
                            QStringLiteral("cuobjdump")},
                           &out, &err),
                 1);
        QVERIFY2(err.contains(QStringLiteral("on %1").arg(url).toUtf8()) &&
                     err.contains("/nonexistent/kernel.cubin"),
                 err.constData());
    }

    void profileOnTheHost()
    {
        // ncu is looked for there, not here: a host without it is an error naming the host, where
        // it looked and ?tools=.
        QByteArray out, err;
        QCOMPARE(
            hotkernel({QStringLiteral("--host"), m_url, QStringLiteral("profile"), QStringLiteral("--tool"),
                       QStringLiteral("ncu"), QStringLiteral("targets/gelu_baseline.py")},
                      &out, &err),
            1);
        QVERIFY2(err.contains(QStringLiteral("host %1 has no ncu").arg(m_url).toUtf8()) &&
                     err.contains("?tools="),
                 err.constData());
        // The tracer is built there with the host's CMake and CUDA Toolkit, then injected into the
        // command; a CPU target never starts CUDA, so the driver never loads it: the error says so.
        if (!canBuildHelpers())
            QSKIP("no CUDA Toolkit in /usr/local/cuda or no cmake: the tracer cannot be built on the host");
        QCOMPARE(
            hotkernel({QStringLiteral("--host"), m_url, QStringLiteral("profile"), QStringLiteral("--tool"),
                       QStringLiteral("trace"), QStringLiteral("targets/gelu_baseline.py")},
                      &out, &err),
            1);
        QVERIFY2(err.contains(QStringLiteral("The tracer wrote no trace on %1").arg(m_url).toUtf8()) &&
                     err.contains("never initialised CUDA") && err.contains("libhotkernel_tracer.so"),
                 err.constData());
        // Built once, in this user's cache there, and found again by the next call.
        QStringList built;
        for (QDirIterator it(QDir::homePath() + QStringLiteral("/.cache/hotkernel"),
                             {QStringLiteral("libhotkernel_tracer.so")}, QDir::Files,
                             QDirIterator::Subdirectories);
             it.hasNext();)
            built << it.next();
        QVERIFY2(!built.isEmpty(), err.constData());
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 10000);
    }

    void calibrateOnTheHost()
    {
        // calibrate measures the host's card with a helper built there; this host has no GPU, so the
        // helper runs and fails, and the reason, naming the host, reaches stdout as --json's error.
        if (!canBuildHelpers())
            QSKIP("no CUDA Toolkit in /usr/local/cuda or no cmake: calibrate cannot be built on the host");
        if (QFileInfo::exists(QStringLiteral("/dev/nvidia0")))
            QSKIP("this machine has a GPU: calibrate would succeed there (bench/ssh_localhost.sh shows it)");
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), m_url,
                            QStringLiteral("calibrate"), QStringLiteral("--quick")},
                           &out, &err),
                 1);
        const QString error = QJsonDocument::fromJson(out).object()[QStringLiteral("error")].toString();
        QVERIFY2(error.contains(QStringLiteral("on %1 failed").arg(m_url)) &&
                     error.contains(QStringLiteral("CUDA")),
                 qPrintable(error + QLatin1Char('\n') + QString::fromUtf8(err)));
        QVERIFY2(err.contains(error.toUtf8()), err.constData());
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 10000);
    }

    void sharedDirectory()
    {
        // The host's working directory is this very directory (as on a shared file system): found
        // by the probe's token, so nothing is copied.
        const QString url =
            QStringLiteral("ssh://root@127.0.0.1:%1%2?python=%3").arg(m_port).arg(project(), m_python);
        QByteArray out, err;
        QCOMPARE(hotkernel({QStringLiteral("--json"), QStringLiteral("--host"), url, QStringLiteral("bench"),
                            QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("--n"),
                            QStringLiteral("2")},
                           &out, &err),
                 0);
        const QJsonObject host = QJsonDocument::fromJson(out).object()[QStringLiteral("host")].toObject();
        QCOMPARE(host[QStringLiteral("shared_directory")].toBool(), true);
        QVERIFY2(!err.contains("copying"), err.constData());
        // The probe's token is gone again.
        for (const QString &name : QDir(project()).entryList(QDir::Files | QDir::Hidden))
            QVERIFY2(!name.startsWith(QLatin1String(".hotkernel-probe-")), qPrintable(name));
    }

    void sshdKilledMidVerify()
    {
        QProcess verify;
        verify.setWorkingDirectory(project());
        verify.setProcessEnvironment(environment());
        verify.start(QStringLiteral(HOTKERNEL_BINARY),
                     {QStringLiteral("--host"), m_url, QStringLiteral("verify"),
                      QStringLiteral("targets/gelu_baseline.py"), QStringLiteral("targets/gelu_candidate.py"),
                      QStringLiteral("--n"), QStringLiteral("200")});
        QVERIFY(verify.waitForStarted());
        QByteArray err;
        // Mid-verify: the workers answered runs on the host.
        QTRY_VERIFY2_WITH_TIMEOUT((err += verify.readAllStandardError()).contains("run 2"), err.constData(),
                                  120000);
        QVERIFY(!processesWith(m_remoteDir + QStringLiteral("/targets/gelu_baseline.py")).isEmpty());
        for (const qint64 pid : sshdTree())
            ::kill(pid_t(pid), SIGKILL);
        QVERIFY(verify.waitForFinished(60000));
        err += verify.readAllStandardError();
        QCOMPARE(verify.exitCode(), 1);
        QVERIFY2(err.contains(m_url.toUtf8()) && err.contains("connection"), err.constData());
        // Neither the local ssh clients and supervisors nor the remote workers are left.
        QTRY_VERIFY2_WITH_TIMEOUT(processesWith(m_remoteDir).isEmpty(),
                                  qPrintable(processesWith(m_remoteDir).join(QLatin1Char('\n'))), 15000);
    }
};

QTEST_MAIN(TestRemoteSsh)
#include "tst_remotessh.moc"
