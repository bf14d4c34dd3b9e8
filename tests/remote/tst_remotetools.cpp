// SPDX-License-Identifier: Apache-2.0
// The helper the inspect tools run on a remote host (resources/remote/hotkernel-remote-tools.py),
// run here as hotkernel runs it there (`python3 -c SOURCE MODE ...`): where it finds NVIDIA's
// programs, what it says without CMake, where it finds CMake, and the sources RemoteToolbox sends it to
// build.
#include "base/json.h"
#include "remote/remotehost.h"
#include "remote/remotetoolbox.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

class TestRemoteTools : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;

    // A real interpreter, not a shim that needs PATH (a test's PATH may be empty).
    static QString systemPython()
    {
        return QFileInfo::exists(QStringLiteral("/usr/bin/python3"))
                   ? QStringLiteral("/usr/bin/python3")
                   : QStandardPaths::findExecutable(QStringLiteral("python3"));
    }

    static QByteArray runTools(const QStringList &arguments, const QProcessEnvironment &env,
                               const QByteArray &input = {}, const QString &python = systemPython())
    {
        QFile source(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/remote/hotkernel-remote-tools.py"));
        if (!source.open(QIODevice::ReadOnly))
            return {};
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(python, QStringList{QStringLiteral("-c"), QString::fromUtf8(source.readAll())} + arguments);
        p.write(input);
        p.closeWriteChannel();
        p.waitForFinished(60000);
        return p.readAllStandardOutput();
    }

private Q_SLOTS:
    void locateLooksInTheNamedFoldersFirst()
    {
        // A cuobjdump in a folder the URL names (?tools=) wins over any on PATH.
        const QString bin = m_tmp.filePath(QStringLiteral("tools"));
        QVERIFY(QDir().mkpath(bin));
        QFile tool(bin + QStringLiteral("/cuobjdump"));
        QVERIFY(tool.open(QIODevice::WriteOnly));
        tool.write("#!/bin/sh\n");
        tool.close();
        QVERIFY(tool.setPermissions(QFile::ReadOwner | QFile::ExeOwner));
        const QByteArray out = runTools({QStringLiteral("locate"), QStringLiteral("cuobjdump"), bin},
                                        QProcessEnvironment::systemEnvironment());
        QCOMPARE(RemoteHost::outputField(out, "path"), bin + QStringLiteral("/cuobjdump"));
        QVERIFY(RemoteHost::outputField(out, "looked").startsWith(bin + QLatin1Char(':')));

        // A program that is nowhere: no path, and the folders it looked in, for the message.
        const QByteArray none = runTools({QStringLiteral("locate"), QStringLiteral("no-such-tool-here")},
                                         QProcessEnvironment::systemEnvironment());
        QVERIFY(RemoteHost::outputField(none, "path").isEmpty());
        QVERIFY(RemoteHost::outputField(none, "looked").contains(QStringLiteral("/usr/local/cuda/bin")) ||
                !QDir(QStringLiteral("/usr/local/cuda/bin")).exists());
    }

    void buildSaysWhenCMakeIsMissing()
    {
        // Without CMake on its PATH the helper builds nothing and says what is missing.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), m_tmp.filePath(QStringLiteral("empty")));
        Json request = Json::parse(RemoteToolbox::buildRequest().toStdString());
        request["target"] = "hotkernel-tracer";
        request["output"] = "libhotkernel_tracer.so";
        const QString cache = m_tmp.filePath(QStringLiteral("cache"));
        const QByteArray out =
            runTools({QStringLiteral("build"), cache}, env, QByteArray::fromStdString(request.dump()));
        QCOMPARE(RemoteHost::outputField(out, "missing"), QStringLiteral("cmake"));
        QVERIFY(RemoteHost::outputField(out, "built").isEmpty());
        // Where it looked, for the message: the empty PATH and the CUDA Toolkit's usual folder.
        const QString looked = RemoteHost::outputField(out, "looked");
        QVERIFY2(looked.contains(m_tmp.filePath(QStringLiteral("empty"))), qPrintable(looked));
        QVERIFY(looked.endsWith(QStringLiteral("/usr/local/cuda/bin")));
    }

    void buildFindsCMakeBesideTheInterpreter()
    {
        // The GPU machine's CMake is pip's, in the torch venv: a non-interactive ssh command's PATH
        // lacks that venv's bin, so the helper looks there as an activated venv would. A stand-in
        // cmake there records that it was run and fails, so the build reports its log, not
        // missing=cmake.
        const QString venv = m_tmp.filePath(QStringLiteral("venv"));
        QProcess make;
        make.start(systemPython(),
                   {QStringLiteral("-m"), QStringLiteral("venv"), QStringLiteral("--without-pip"), venv});
        QVERIFY(make.waitForFinished(60000));
        if (make.exitCode() != 0)
            QSKIP("python3 -m venv is not available here (Debian's python3-venv)");
        const QString marker = m_tmp.filePath(QStringLiteral("cmake-ran"));
        QFile cmake(venv + QStringLiteral("/bin/cmake"));
        QVERIFY(cmake.open(QIODevice::WriteOnly));
        cmake.write(QStringLiteral("#!/bin/sh\necho \"$@\" >> %1\nexit 1\n").arg(marker).toUtf8());
        cmake.close();
        QVERIFY(cmake.setPermissions(QFile::ReadOwner | QFile::ExeOwner));

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), m_tmp.filePath(QStringLiteral("empty")));
        Json request = Json::parse(RemoteToolbox::buildRequest().toStdString());
        request["target"] = "hotkernel-tracer";
        request["output"] = "libhotkernel_tracer.so";
        const QByteArray out =
            runTools({QStringLiteral("build"), m_tmp.filePath(QStringLiteral("venv-cache"))}, env,
                     QByteArray::fromStdString(request.dump()), venv + QStringLiteral("/bin/python3"));
        QVERIFY2(RemoteHost::outputField(out, "missing").isEmpty(), out.constData());
        QVERIFY(RemoteHost::outputField(out, "built").isEmpty());
        QVERIFY(!RemoteHost::outputField(out, "log").isEmpty());
        QFile ran(marker);
        QVERIFY2(ran.open(QIODevice::ReadOnly), "the venv's cmake was not run");
        QVERIFY(ran.readAll().startsWith("-S "));
    }

    void theSourcesTravelWhole()
    {
        // What a host builds is core/native as this checkout has it, and the cache folder is
        // named after exactly those bytes.
        const Json request = Json::parse(RemoteToolbox::buildRequest().toStdString());
        for (const char *name : {"CMakeLists.txt", "tracer.cpp", "calibrate.cu", "supervise.cpp"}) {
            QFile file(QStringLiteral(HOTKERNEL_SOURCE_DIR "/core/native/") + QString::fromLatin1(name));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QCOMPARE(QByteArray::fromStdString(request["files"][name].get<std::string>()), file.readAll());
        }
        QVERIFY(QRegularExpression(QStringLiteral("^~/\\.cache/hotkernel/native-[0-9a-f]{16}$"))
                    .match(RemoteToolbox::buildCache())
                    .hasMatch());
        QCOMPARE(RemoteToolbox::buildCache(), RemoteToolbox::buildCache());
    }
};

QTEST_GUILESS_MAIN(TestRemoteTools)
#include "tst_remotetools.moc"
