// SPDX-License-Identifier: Apache-2.0
// The helper the inspect tools run on a remote host (resources/remote/hotkernel-remote-tools.py),
// run here as hotkernel runs it there (`python3 -c SOURCE MODE ...`): where it finds NVIDIA's
// programs, what it says without CMake, and the sources RemoteToolbox sends it to build.
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

    static QByteArray runTools(const QStringList &arguments, const QProcessEnvironment &env,
                               const QByteArray &input = {})
    {
        QFile source(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/remote/hotkernel-remote-tools.py"));
        if (!source.open(QIODevice::ReadOnly))
            return {};
        QProcess p;
        p.setProcessEnvironment(env);
        // A real interpreter, not a shim that needs PATH (env's PATH may be empty).
        const QString python = QFileInfo::exists(QStringLiteral("/usr/bin/python3"))
                                   ? QStringLiteral("/usr/bin/python3")
                                   : QStandardPaths::findExecutable(QStringLiteral("python3"));
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
