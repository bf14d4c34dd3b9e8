// SPDX-License-Identifier: Apache-2.0
// The core's reading of a judged-outputs file header, on a file the contract wrote
// (tests/data/measure/judged/run-1.judged on CPU, run-1-cuda-ipc.judged on the GPU machine; the commands
// are in pair_baseline.py next to them).
#include "measure/judgedoutputs.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {
const QString kDigest = QStringLiteral("b4dbe481fa64ef0d5aa3c347c4868e128096c1472fa84992287c67bedbd1039a");
constexpr quint64 kSeed = 12345;
} // namespace

class TestJudgedOutputs : public QObject
{
    Q_OBJECT

    QByteArray m_file;

    QString realFileTransport() const
    {
        QString error;
        const auto h = JudgedOutputsParser::parse(m_file, m_file.size(), {1, kSeed, kDigest}, &error);
        return h ? h->transport : error;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/judged/run-1.judged"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        m_file = f.readAll();
    }

    void realFile()
    {
        QString error;
        const auto h = JudgedOutputsParser::parse(m_file, m_file.size(), {1, kSeed, kDigest}, &error);
        QVERIFY2(h, qPrintable(error));
        QCOMPARE(h->run, 1);
        QCOMPARE(h->judgeSeed, kSeed);
        QCOMPARE(h->outputs.size(), size_t(6)); // 3 rotated sets (iters 3) x 2 outputs
        QCOMPARE(h->outputs[3].set, 1);
        QCOMPARE(h->outputs[3].index, 1);
        QCOMPARE(h->outputs[3].dtype, QStringLiteral("bfloat16"));
        QCOMPARE(h->outputs[3].shape, (std::vector<qint64>{4, 8}));
        QCOMPARE(h->outputs[3].bytes, qint64(64));
        QCOMPARE(h->headerBytes + 6 * 64, qint64(m_file.size()));
        QCOMPARE(JudgedOutputsParser::fileName(1), QStringLiteral("run-1.judged"));
        // Without the baseline's digest the header's own is taken as it is.
        QVERIFY(JudgedOutputsParser::parse(m_file, m_file.size(), {1, kSeed, {}}, &error));
    }

    void realCudaIpcFile()
    {
        // Written on the GPU machine: the outputs stay in the candidate's memory, the header names them.
        QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/measure/judged/run-1-cuda-ipc.judged"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QString error;
        const auto h = JudgedOutputsParser::parse(
            bytes, bytes.size(),
            {1, kSeed, QStringLiteral("ebb214203ede38fef3ed44888e24ce78668091cd135476ec546eb4f20eca687f")},
            &error);
        QVERIFY2(h, qPrintable(error));
        QCOMPARE(h->transport, QStringLiteral("cuda_ipc"));
        QCOMPARE(h->outputs.size(), size_t(6));
        QCOMPARE(h->outputs[5].bytes, qint64(64));
        QCOMPARE(h->headerBytes, qint64(bytes.size())); // nothing follows the header
        // The bytes of a file transport appended to it are refused: the header says none follow.
        QVERIFY(!JudgedOutputsParser::parse(bytes + QByteArray(384, '\0'), bytes.size() + 384, {1, kSeed, {}},
                                            &error));
        QVERIFY2(error.contains(QStringLiteral("bytes appended")), qPrintable(error));
        QCOMPARE(realFileTransport(), QStringLiteral("file"));
    }

    void rejected_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("run");
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<QString>("digest");
        QTest::addColumn<QString>("expected");
        const QByteArray f = m_file;
        const qsizetype header = f.indexOf('\n') + 1;
        QTest::newRow("empty") << QByteArray() << 1 << kSeed << kDigest << QStringLiteral("empty");
        QTest::newRow("header cut") << f.left(40) << 1 << kSeed << kDigest
                                    << QStringLiteral("no complete header");
        QTest::newRow("payload cut") << f.left(f.size() - 1) << 1 << kSeed << kDigest
                                     << QStringLiteral(
                                            "383 bytes of outputs, its header lists 384 (truncated)");
        QTest::newRow("appended") << f + "x" << 1 << kSeed << kDigest << QStringLiteral("bytes appended");
        QTest::newRow("other run") << f << 2 << kSeed << kDigest << QStringLiteral("for run 1, not run 2");
        QTest::newRow("other seed") << f << 1 << quint64(7) << kDigest
                                    << QStringLiteral("judge seed 12345, not this run's 7");
        QTest::newRow("other inputs") << f << 1 << kSeed << QString(64, QLatin1Char('0'))
                                      << QStringLiteral("not computed on the judged inputs");
        QByteArray notJson = f;
        notJson[0] = 'x';
        QTest::newRow("not json") << notJson << 1 << kSeed << kDigest << QStringLiteral("not a JSON object");
        QByteArray lying = f;
        lying.replace("\"shape\":[4,8],\"bytes\":64}]", "\"shape\":[4,9],\"bytes\":64}]");
        QTest::newRow("bytes vs shape") << lying << 1 << kSeed << kDigest
                                        << QStringLiteral("output 1 of set 2 says 64 bytes, its shape [4,9]");
        QByteArray dtype = f;
        dtype.replace("\"bfloat16\"", "\"complex64\"");
        QTest::newRow("dtype") << dtype << 1 << kSeed << kDigest
                               << QStringLiteral("has dtype complex64, which the judge does not read");
        QByteArray format = f;
        format.replace("hotkernel-judged-outputs", "hotkernel-judged-outputz");
        QTest::newRow("format") << format << 1 << kSeed << kDigest << QStringLiteral("format");
        QByteArray protocol = f;
        protocol.replace("\"protocol\":5", "\"protocol\":3");
        QTest::newRow("protocol") << protocol << 1 << kSeed << kDigest << QStringLiteral("protocol 3, not 5");
        QTest::newRow("header only") << f.left(header) << 1 << kSeed << kDigest
                                     << QStringLiteral("0 bytes of outputs");
        QByteArray pigeon = f;
        pigeon.replace("\"outputs\":[", "\"transport\":\"pigeon\",\"outputs\":[");
        QTest::newRow("transport") << pigeon << 1 << kSeed << kDigest
                                   << QStringLiteral("transport pigeon, neither file nor cuda_ipc");
        QByteArray unnamed = f.left(header);
        unnamed.replace("\"outputs\":[", "\"transport\":\"cuda_ipc\",\"outputs\":[");
        QTest::newRow("ipc without handles")
            << unnamed << 1 << kSeed << kDigest << QStringLiteral("shared by CUDA IPC but names no handle");
    }

    void rejected()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, run);
        QFETCH(quint64, seed);
        QFETCH(QString, digest);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!JudgedOutputsParser::parse(bytes, bytes.size(), {run, seed, digest}, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void readsFiles()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY(!JudgedOutputsParser::read(dir.filePath(QStringLiteral("run-1.judged")), {1, kSeed, kDigest},
                                           &error));
        QVERIFY2(error.contains(QStringLiteral("does not exist")), qPrintable(error));
        QFile f(dir.filePath(QStringLiteral("run-1.judged")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(m_file.left(m_file.size() / 2));
        f.close();
        QVERIFY(!JudgedOutputsParser::read(f.fileName(), {1, kSeed, kDigest}, &error));
        QVERIFY2(error.contains(QStringLiteral("truncated")), qPrintable(error));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(m_file);
        f.close();
        QVERIFY2(JudgedOutputsParser::read(f.fileName(), {1, kSeed, kDigest}, &error), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestJudgedOutputs)
#include "tst_judgedoutputs.moc"
