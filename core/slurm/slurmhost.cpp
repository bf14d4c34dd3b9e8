// SPDX-License-Identifier: Apache-2.0
#include "slurm/slurmhost.h"

#include "base/exactpath.h"
#include "base/usererror.h"

#include <QRegularExpression>
#include <QSet>
#include <QUrl>

namespace hotkernel {

namespace {

const QString scheme = QStringLiteral("slurm://");
const QString example = QStringLiteral("slurm://gpu?gres=gpu:1&time=120");

// Partition, account and QOS names: what Slurm itself accepts in practice, and nothing a shell or
// an option parser could read as something else.
bool isName(const QString &value)
{
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.+-]*$"));
    return name.match(value).hasMatch();
}

// name[:type][:count][,name[:type][:count]...], e.g. gpu:1, gpu:a100:2, gpu:1,nvme:1
bool isGres(const QString &value)
{
    static const QRegularExpression gres(
        QStringLiteral("^[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)*(,[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)*)*$"));
    return gres.match(value).hasMatch();
}

bool isTime(const QString &value)
{
    static const QRegularExpression time(
        QStringLiteral("^(\\d+|\\d+:\\d{1,2}|\\d+:\\d{1,2}:\\d{1,2}|\\d+-\\d{1,2}(:\\d{1,2}){0,2})$"));
    if (value.compare(QLatin1String("infinite"), Qt::CaseInsensitive) == 0 ||
        value.compare(QLatin1String("unlimited"), Qt::CaseInsensitive) == 0)
        return true;
    if (!time.match(value).hasMatch())
        return false;
    // "0" and "0:00" would ask for no time at all.
    static const QRegularExpression nonZero(QStringLiteral("[1-9]"));
    return nonZero.match(value).hasMatch();
}

[[noreturn]] void fail(const QString &text, const QString &what)
{
    throw UserError(QStringLiteral("Slurm host '%1': %2 (write it like %3)").arg(text, what, example));
}

} // namespace

bool SlurmHost::looksLikeSlurm(const QString &text)
{
    return text.startsWith(QLatin1String("slurm:"), Qt::CaseInsensitive);
}

SlurmHost SlurmHost::parse(const QString &text)
{
    if (!text.startsWith(scheme, Qt::CaseInsensitive))
        fail(text, QStringLiteral("it must start with slurm://"));
    const QString rest = text.mid(scheme.size());
    const qsizetype question = rest.indexOf(QLatin1Char('?'));
    const QString partition = QUrl::fromPercentEncoding(rest.left(question).toUtf8());
    const QString query = question < 0 ? QString() : rest.mid(question + 1);

    SlurmHost host;
    if (partition.contains(QLatin1Char('/')))
        fail(text,
             QStringLiteral("a Slurm host has no path; the part after slurm:// is the partition alone"));
    if (!partition.isEmpty() && !isName(partition))
        fail(text, QStringLiteral("'%1' is not a partition name (letters, digits, _ . + -)").arg(partition));
    host.partition = partition;

    QSet<QString> seen;
    const QStringList pairs = query.split(QLatin1Char('&'), Qt::SkipEmptyParts);
    for (const QString &pair : pairs) {
        const qsizetype equals = pair.indexOf(QLatin1Char('='));
        const QString key = QUrl::fromPercentEncoding(pair.left(equals).toUtf8()).toLower();
        const QString value =
            equals < 0 ? QString() : QUrl::fromPercentEncoding(pair.mid(equals + 1).toUtf8());
        if (seen.contains(key))
            fail(text, QStringLiteral("'%1' is given twice").arg(key));
        seen.insert(key);
        if (equals < 0 || value.isEmpty())
            fail(text, QStringLiteral("'%1' has no value; write %1=VALUE").arg(key));
        if (key == QLatin1String("gres")) {
            if (!isGres(value))
                fail(text, QStringLiteral("gres '%1' is not NAME[:TYPE]:COUNT, e.g. gpu:1 or gpu:a100:1")
                               .arg(value));
            host.gres = value;
        } else if (key == QLatin1String("time")) {
            if (!isTime(value))
                fail(text, QStringLiteral("time '%1' is not a Slurm time limit: minutes (60), HH:MM:SS or "
                                          "DAYS-HH:MM, and more than zero")
                               .arg(value));
            host.time = value;
        } else if (key == QLatin1String("account") || key == QLatin1String("qos")) {
            if (!isName(value))
                fail(text,
                     QStringLiteral("%1 '%2' is not a name (letters, digits, _ . + -)").arg(key, value));
            (key == QLatin1String("account") ? host.account : host.qos) = value;
        } else if (key == QLatin1String("cpus")) {
            bool ok = false;
            const int cpus = value.toInt(&ok);
            if (!ok || cpus < 1 || cpus > 4096)
                fail(text, QStringLiteral("cpus '%1' is not a count of CPUs from 1 to 4096").arg(value));
            host.cpus = cpus;
        } else if (key == QLatin1String("python")) {
            if (value.contains(QLatin1Char('\n')))
                fail(text, QStringLiteral("python '%1' is not a path").arg(value));
            host.python = value;
        } else if (key == QLatin1String("workdir")) {
            QString dir = value;
            while (dir.size() > 1 && dir.endsWith(QLatin1Char('/')))
                dir.chop(1);
            if (dir == QLatin1String("/"))
                fail(text, QStringLiteral("workdir '/' cannot be the working directory: name a folder "
                                          "hotkernel may fill"));
            if (const QString wrong = ExactPath::problem(dir); !wrong.isEmpty())
                fail(text, QStringLiteral("workdir '") +
                               QString::fromUtf8(QUrl::toPercentEncoding(dir, "/")) + QStringLiteral("' ") +
                               wrong +
                               QStringLiteral(", which hotkernel refuses in a folder name: name a folder "
                                              "without whitespace or control characters"));
            host.workdir = dir;
        } else if (key == QLatin1String("tools")) {
            host.toolDirs = value.split(QLatin1Char(':'), Qt::SkipEmptyParts);
            for (const QString &dir : std::as_const(host.toolDirs))
                if (!dir.startsWith(QLatin1Char('/')) || dir.contains(QLatin1Char('\n')))
                    fail(text, QStringLiteral("tools= takes absolute folders on the node, separated by ':' "
                                              "('%1' is not absolute)")
                                   .arg(dir));
        } else if (key == QLatin1String("lifetime")) {
            if (value == QLatin1String("session"))
                host.lifetime = Lifetime::Session;
            else if (value == QLatin1String("verify"))
                host.lifetime = Lifetime::Verify;
            else
                fail(text,
                     QStringLiteral("lifetime '%1' is neither 'session' (one allocation for the session, "
                                    "the default) nor 'verify' (one per verify)")
                         .arg(value));
        } else {
            fail(text, QStringLiteral("unknown option '%1'; the options are gres, time, account, qos, cpus, "
                                      "lifetime, python, workdir and tools")
                           .arg(key));
        }
    }
    return host;
}

QString SlurmHost::toUrl() const
{
    QStringList query;
    if (!gres.isEmpty())
        query << QStringLiteral("gres=") + gres;
    if (!time.isEmpty())
        query << QStringLiteral("time=") + time;
    if (!account.isEmpty())
        query << QStringLiteral("account=") + account;
    if (!qos.isEmpty())
        query << QStringLiteral("qos=") + qos;
    if (cpus > 0)
        query << QStringLiteral("cpus=%1").arg(cpus);
    if (lifetime == Lifetime::Verify)
        query << QStringLiteral("lifetime=verify");
    if (!python.isEmpty())
        query << QStringLiteral("python=") + QString::fromUtf8(QUrl::toPercentEncoding(python, "/"));
    if (!workdir.isEmpty())
        query << QStringLiteral("workdir=") + QString::fromUtf8(QUrl::toPercentEncoding(workdir, "/"));
    if (!toolDirs.isEmpty())
        query << QStringLiteral("tools=") +
                     QString::fromUtf8(QUrl::toPercentEncoding(toolDirs.join(QLatin1Char(':')), "/:"));
    QString url = scheme + partition;
    if (!query.isEmpty())
        url += QLatin1Char('?') + query.join(QLatin1Char('&'));
    return url;
}

QString SlurmHost::describePartition() const
{
    return partition.isEmpty() ? QStringLiteral("the default partition")
                               : QStringLiteral("partition '%1'").arg(partition);
}

QStringList SlurmHost::allocationArguments() const
{
    QStringList arguments;
    if (!partition.isEmpty())
        arguments << QStringLiteral("--partition=") + partition;
    if (!gres.isEmpty())
        arguments << QStringLiteral("--gres=") + gres;
    if (!time.isEmpty())
        arguments << QStringLiteral("--time=") + time;
    if (!account.isEmpty())
        arguments << QStringLiteral("--account=") + account;
    if (!qos.isEmpty())
        arguments << QStringLiteral("--qos=") + qos;
    if (cpus > 0)
        arguments << QStringLiteral("--cpus-per-task=%1").arg(cpus);
    return arguments;
}

} // namespace hotkernel
