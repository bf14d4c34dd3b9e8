// SPDX-License-Identifier: Apache-2.0
// BoundedFile: every hostile kind of file a script or an argument can name (a FIFO, a device, a
// directory, a socket, a link, a huge or growing file) is refused at once with its reason, never
// waited on or read past the limit; and the rule of docs/hacking.md ("Files a user names"): no raw
// file read in core/, ui/ or the shipped Python outside the bounded-read helpers.
#include "base/boundedfile.h"
#include "base/usererror.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLocalServer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace hotkernel;

namespace {

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// The source files the rule covers, relative to the tree.
QStringList sourcesUnder(const QString &folder, const QStringList &patterns)
{
    QStringList out;
    const QString root = QStringLiteral(HOTKERNEL_SOURCE_DIR);
    QDirIterator it(root + QLatin1Char('/') + folder, patterns, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(root).relativeFilePath(it.next());
    out.sort();
    return out;
}

// Lines of file that break the rule: a read that opens or slurps a file without the helper. A
// line is allowed when it, or one of the six before it, says "not a named file" and why.
QStringList violations(const QString &relative, const QList<QRegularExpression> &patterns)
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/") + relative);
    if (!f.open(QIODevice::ReadOnly))
        return {relative + QStringLiteral(": cannot be read")};
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    QStringList out;
    for (int i = 0; i < lines.size(); ++i) {
        bool hit = false;
        for (const QRegularExpression &p : patterns)
            hit = hit || p.match(lines[i]).hasMatch();
        if (!hit)
            continue;
        bool justified = false;
        for (int k = std::max(0, i - 6); k <= i; ++k)
            justified = justified || lines[k].contains(QLatin1String("not a named file"));
        if (!justified)
            out << relative + QLatin1Char(':') + QString::number(i + 1) + QStringLiteral(": ") +
                       lines[i].trimmed();
    }
    return out;
}

// What a raw read looks like in C++.
QList<QRegularExpression> cppPatterns()
{
    return {QRegularExpression(QStringLiteral("QIODevice::ReadOnly|QIODevice::ReadWrite")),
            QRegularExpression(QStringLiteral("(\\.|->)readAll\\(\\)")),
            QRegularExpression(QStringLiteral("std::ifstream|std::fstream|\\bfopen\\(|\\bQFile::copy\\(")),
            // ::open/::openat without O_NONBLOCK, unless it opens a directory or only writes.
            QRegularExpression(
                QStringLiteral("(^|[^\\w])::open(at)?\\((?!.*(O_NONBLOCK|O_DIRECTORY|O_WRONLY))"))};
}

} // namespace

class TestBoundedFile : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const char *name) const { return m_dir.filePath(QLatin1String(name)); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(writeFile(path("small.json"), "{\"a\": 1}\n"));
        QVERIFY(::mkfifo(QFile::encodeName(path("fifo")).constData(), 0600) == 0);
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path("zero-link")));
        QVERIFY(QFile::link(path("small.json"), path("json-link")));
        QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("folder")));
    }

    void regularFileIsRead()
    {
        const BoundedFile::Read r = BoundedFile::read(path("small.json"), 1024);
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.bytes, QByteArray("{\"a\": 1}\n"));
        QCOMPARE(r.size, 9);
        QCOMPARE(BoundedFile::sha256Hex(path("small.json"), 1024),
                 QString::fromLatin1(
                     QCryptographicHash::hash("{\"a\": 1}\n", QCryptographicHash::Sha256).toHex()));
    }

    // Each hostile kind is refused with a reason that names it; none of them blocks (a FIFO opened
    // for reading without O_NONBLOCK would wait for a writer here for good).
    void hostileKindsAreRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("links");
        QTest::addColumn<QString>("reason");
        const int follow = int(BoundedFile::Links::Follow);
        const int refuse = int(BoundedFile::Links::Refuse);
        QTest::newRow("fifo") << QStringLiteral("fifo") << follow << QStringLiteral("is a FIFO");
        QTest::newRow("link to /dev/zero")
            << QStringLiteral("zero-link") << follow << QStringLiteral("is a character device");
        QTest::newRow("/dev/zero") << QStringLiteral("/dev/zero") << follow
                                   << QStringLiteral("is a character device");
        QTest::newRow("directory") << QStringLiteral("folder") << follow << QStringLiteral("is a directory");
        QTest::newRow("socket") << QStringLiteral("socket") << follow << QStringLiteral("is a socket");
        QTest::newRow("link, refused")
            << QStringLiteral("json-link") << refuse << QStringLiteral("symbolic link");
        QTest::newRow("missing") << QStringLiteral("missing") << follow << QStringLiteral("does not exist");
    }
    void hostileKindsAreRefused()
    {
        QFETCH(QString, name);
        QFETCH(int, links);
        QFETCH(QString, reason);
        QLocalServer server;
        if (name == QLatin1String("socket")) {
            server.setSocketOptions(QLocalServer::UserAccessOption);
            QVERIFY(server.listen(m_dir.filePath(name)));
        }
        const QString file = name.startsWith(QLatin1Char('/')) ? name : m_dir.filePath(name);
        const auto mode = BoundedFile::Links(links);
        const BoundedFile::Read r = BoundedFile::read(file, BoundedFile::kJsonLimit, mode);
        QVERIFY2(r.error.contains(reason), qPrintable(r.error));
        QVERIFY(r.bytes.isEmpty());
        QVERIFY(BoundedFile::sha256Hex(file, BoundedFile::kJsonLimit, mode).isEmpty());
        QVERIFY(!BoundedFile::readStart(file, 100, mode).ok());
        const QString thrown = [&] {
            try {
                BoundedFile::readOrThrow(file, 1024, QStringLiteral("the verify result"),
                                         QStringLiteral("pass a file verify wrote."), mode);
            } catch (const UserError &e) {
                return e.message();
            }
            return QString();
        }();
        QVERIFY2(thrown.startsWith(QStringLiteral("the verify result ") + file + QLatin1Char(' ')),
                 qPrintable(thrown));
        QVERIFY2(thrown.contains(reason) && thrown.endsWith(QStringLiteral(": pass a file verify wrote.")),
                 qPrintable(thrown));
    }

    void linkIsFollowedWhenAsked()
    {
        const BoundedFile::Read r = BoundedFile::read(path("json-link"), 1024, BoundedFile::Links::Follow);
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.bytes, QByteArray("{\"a\": 1}\n"));
    }

    void oversizeIsRefusedBeforeReading()
    {
        QVERIFY(writeFile(path("big"), QByteArray(4096, 'x')));
        const BoundedFile::Read r = BoundedFile::read(path("big"), 4095);
        QVERIFY2(r.error.contains(QStringLiteral("is larger than 4095 bytes")), qPrintable(r.error));
        QVERIFY(BoundedFile::sha256Hex(path("big"), 4095).isEmpty());
        QVERIFY(BoundedFile::read(path("big"), 4096).ok());
        // A header read takes its first bytes of a file of any size.
        const BoundedFile::Read head = BoundedFile::readStart(path("big"), 10);
        QVERIFY(head.ok());
        QCOMPARE(head.bytes, QByteArray(10, 'x'));
        QCOMPARE(head.size, 4096);
    }

    // A file whose size said little but whose bytes kept coming (one that grows while read): the
    // kernel's files under /proc say size 0 and give more, as a growing file would.
    void growingFileStopsAtTheLimit()
    {
        const BoundedFile::Read r = BoundedFile::read(QStringLiteral("/proc/self/status"), 64);
        QVERIFY2(r.error.contains(QStringLiteral("grew past 64 bytes")), qPrintable(r.error));
        QVERIFY(r.bytes.isEmpty());
        QVERIFY(BoundedFile::sha256Hex(QStringLiteral("/proc/self/status"), 64).isEmpty());
        QVERIFY(BoundedFile::read(QStringLiteral("/proc/self/status"), 1 << 20).ok());
    }

    // docs/hacking.md, "Files a user names": the test that keeps the rule.
    void noRawFileReadOutsideTheHelper()
    {
        const QList<QRegularExpression> cpp = cppPatterns();
        QStringList found;
        QStringList files =
            sourcesUnder(QStringLiteral("core"), {QStringLiteral("*.cpp"), QStringLiteral("*.h")}) +
            sourcesUnder(QStringLiteral("ui"), {QStringLiteral("*.cpp"), QStringLiteral("*.h")}) +
            sourcesUnder(QStringLiteral("app"), {QStringLiteral("*.cpp"), QStringLiteral("*.h")});
        // The helper itself; and core/native, whose helpers run inside other programs and read
        // only /proc and their own pipes.
        files.removeIf([](const QString &f) {
            return f == QLatin1String("core/base/boundedfile.cpp") ||
                   f.startsWith(QLatin1String("core/native/"));
        });
        QVERIFY(files.size() > 100);
        for (const QString &f : std::as_const(files))
            found += violations(f, cpp);

        // Python: a builtin open() for reading, or an os.open without O_NONBLOCK.
        const QList<QRegularExpression> python{
            // (a mode "w..." or "a..." on the line: a write, which waits on nothing the caller named)
            QRegularExpression(QStringLiteral("(^|[^\\w.])open\\((?!.*[\"'][wa]b?[\"'])")),
            QRegularExpression(QStringLiteral("\\bos\\.open\\((?!.*O_NONBLOCK)")),
            QRegularExpression(QStringLiteral("\\.read_(bytes|text)\\("))};
        const QStringList scripts =
            sourcesUnder(QStringLiteral("resources/contract"), {QStringLiteral("*.py")}) +
            sourcesUnder(QStringLiteral("resources/scripts"), {QStringLiteral("*.py")}) +
            sourcesUnder(QStringLiteral("resources/remote"), {QStringLiteral("*.py")});
        QVERIFY(scripts.size() >= 5);
        for (const QString &f : scripts)
            found += violations(f, python);
        QVERIFY2(
            found.isEmpty(),
            qPrintable(QStringLiteral("raw file reads outside BoundedFile (docs/hacking.md, \"Files a user "
                                      "names\"); read through BoundedFile, or say why the file is not one "
                                      "a user names with a \"not a named file\" comment:\n") +
                       found.join(QLatin1Char('\n'))));
    }

    // The rule's patterns find what they are meant to: a test of the test.
    void ruleCatchesARawRead()
    {
        QTemporaryDir dir(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/base/.rule-XXXXXX"));
        QVERIFY(dir.isValid());
        QVERIFY(writeFile(dir.filePath(QStringLiteral("bad.cpp")),
                          "QFile f(path);\nif (f.open(QIODevice::ReadOnly))\n    x = f.readAll();\n"
                          "int fd = ::open(name, O_RDONLY);\n"));
        const QString relative = QDir(QStringLiteral(HOTKERNEL_SOURCE_DIR))
                                     .relativeFilePath(dir.filePath(QStringLiteral("bad.cpp")));
        QCOMPARE(violations(relative, cppPatterns()).size(), 3);
    }
};

QTEST_GUILESS_MAIN(TestBoundedFile)
#include "tst_boundedfile.moc"
