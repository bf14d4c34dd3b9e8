// SPDX-License-Identifier: Apache-2.0
#include "remote/hosturl.h"

#include "base/exactpath.h"
#include "base/usererror.h"

#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace hotkernel {

namespace {
const QString kForm =
    QStringLiteral("write it as ssh://[user@]host[:port][/workdir][?python=PATH&tools=DIR:DIR], "
                   "slurm://[partition][?gres=gpu:1&time=60], or local");

bool fail(QString *error, const QString &text, const QString &why)
{
    if (error)
        *error = QStringLiteral("host %1: %2; %3.").arg(text, why, kForm);
    return false;
}
} // namespace

QString HostUrl::toString() const
{
    if (kind == Kind::Local)
        return QStringLiteral("local");
    if (kind == Kind::Slurm)
        return slurm.toUrl();
    QString s = QStringLiteral("ssh://");
    if (!user.isEmpty())
        s += user + QLatin1Char('@');
    s += host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    if (port > 0)
        s += QLatin1Char(':') + QString::number(port);
    if (!workdir.isEmpty())
        s += workdir.startsWith(QLatin1Char('/')) ? workdir : QStringLiteral("/~/") + workdir;
    QStringList query;
    if (!python.isEmpty())
        query << QStringLiteral("python=") + python;
    if (!toolDirs.isEmpty())
        query << QStringLiteral("tools=") + toolDirs.join(QLatin1Char(':'));
    if (!query.isEmpty())
        s += QLatin1Char('?') + query.join(QLatin1Char('&'));
    return s;
}

std::optional<HostUrl> HostUrl::parse(const QString &input, QString *error)
{
    const QString text = input.trimmed();
    HostUrl h;
    if (text.isEmpty() || text == QLatin1String("local"))
        return h;
    if (SlurmHost::looksLikeSlurm(text)) {
        try {
            h.slurm = SlurmHost::parse(text);
        } catch (const UserError &e) {
            if (error)
                *error = e.message();
            return std::nullopt;
        }
        h.kind = Kind::Slurm;
        h.host = QStringLiteral("slurm");
        h.workdir = h.slurm.workdir;
        h.python = h.slurm.python;
        h.toolDirs = h.slurm.toolDirs;
        return h;
    }
    if (!text.startsWith(QLatin1String("ssh://"))) {
        const qsizetype colon = text.indexOf(QStringLiteral("://"));
        fail(error, text,
             colon > 0 ? QStringLiteral("the scheme %1 is not one hotkernel knows").arg(text.left(colon))
                       : QStringLiteral("it is not a URL"));
        return std::nullopt;
    }
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid()) {
        fail(error, text, url.errorString());
        return std::nullopt;
    }
    h.kind = Kind::Ssh;
    h.user = url.userName();
    h.host = url.host();
    h.port = url.port(0);
    if (!url.password().isEmpty()) {
        fail(error, text,
             QStringLiteral("it carries a password, which hotkernel never sends (it runs ssh "
                            "with BatchMode); use a key or an agent"));
        return std::nullopt;
    }
    if (h.host.isEmpty()) {
        fail(error, text, QStringLiteral("it names no host"));
        return std::nullopt;
    }
    // Both reach ssh's command line: a leading '-' would be read as an option.
    static const QRegularExpression safeName(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9._:%-]*$"));
    if (!safeName.match(h.host).hasMatch()) {
        fail(error, text,
             QStringLiteral("the host name %1 has characters a host name cannot have").arg(h.host));
        return std::nullopt;
    }
    if (!h.user.isEmpty() && !safeName.match(h.user).hasMatch()) {
        fail(error, text,
             QStringLiteral("the user name %1 has characters a user name cannot have").arg(h.user));
        return std::nullopt;
    }
    if (url.port() == 0 || url.port() > 65535) {
        fail(error, text, QStringLiteral("the port must be between 1 and 65535"));
        return std::nullopt;
    }
    QString path = url.path(QUrl::FullyDecoded);
    if (path.startsWith(QLatin1String("/~/")) || path == QLatin1String("/~"))
        path = path.mid(3); // relative to the remote home
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (path == QLatin1String("/")) {
        fail(error, text,
             QStringLiteral("/ cannot be the working directory: name a folder hotkernel may fill"));
        return std::nullopt;
    }
    if (const QString wrong = ExactPath::problem(path); !wrong.isEmpty()) {
        // Said, never trimmed: "/tmp/x/victim\njunk" read back as its first line filled /tmp/x/victim.
        fail(error, text,
             QStringLiteral("the working directory ") + url.path(QUrl::FullyEncoded) + QLatin1Char(' ') +
                 wrong +
                 QStringLiteral(", which hotkernel refuses in a folder name: name a folder without "
                                "whitespace or control characters"));
        return std::nullopt;
    }
    h.workdir = path;
    const QUrlQuery query(url);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (key == QLatin1String("python") && !value.isEmpty()) {
            h.python = value;
        } else if (key == QLatin1String("tools") && !value.isEmpty()) {
            h.toolDirs = value.split(QLatin1Char(':'), Qt::SkipEmptyParts);
            for (const QString &dir : std::as_const(h.toolDirs)) {
                if (!dir.startsWith(QLatin1Char('/'))) {
                    fail(error, text,
                         QStringLiteral("tools= takes absolute folders on the host, separated by ':' "
                                        "(%1 is not absolute)")
                             .arg(dir));
                    return std::nullopt;
                }
            }
        } else {
            fail(error, text,
                 QStringLiteral("the query parameter %1 is not known (python=PATH and tools=DIR:DIR are)")
                     .arg(key));
            return std::nullopt;
        }
    }
    if (url.hasFragment()) {
        fail(error, text, QStringLiteral("it has a #fragment"));
        return std::nullopt;
    }
    return h;
}

} // namespace hotkernel
