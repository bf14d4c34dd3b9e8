// SPDX-License-Identifier: Apache-2.0
#include "session/resultids.h"

#include "base/usererror.h"
#include "session/session.h"

#include <QRandomGenerator>
#include <QRegularExpression>

namespace hotkernel {

namespace {

QString randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(raw.data()), bytes / 4);
    return QString::fromLatin1(raw.toHex());
}

const QRegularExpression &idPattern()
{
    static const QRegularExpression pattern(QStringLiteral("^([a-z]+)-([0-9a-f]{8})-([0-9a-f]{32})$"));
    return pattern;
}

} // namespace

ResultIds::ResultIds() : m_tag(randomHex(4)) {}

QString ResultIds::issue(const QString &kind, Json &result)
{
    const QString id = kind + QLatin1Char('-') + m_tag + QLatin1Char('-') + randomHex(16);
    result[toStd(kind + QStringLiteral("_id"))] = toStd(id);
    m_results[id] = result;
    return id;
}

Json ResultIds::find(const QString &kind, const QString &id) const
{
    const QRegularExpressionMatch m = idPattern().match(id);
    if (!m.hasMatch() || m.captured(1) != kind)
        throw UserError(
            QStringLiteral("'%1' is not a %2 id (%2-XXXXXXXX-... as %2 returned it in %2_id): pass "
                           "the %2_id exactly as given, or the whole %2 result.")
                .arg(id, kind));
    if (m.captured(2) != m_tag)
        throw UserError(
            QStringLiteral("%1 id %2 was issued by another hotkernel session, one that has ended "
                           "or runs in another process: ids live only in the memory of the session "
                           "that issued them. Run %1 again in this session and pass the %1_id it "
                           "returns.")
                .arg(kind, id));
    const auto it = m_results.find(id);
    if (it == m_results.end())
        throw UserError(QStringLiteral("no %1 in this session has the id %2: pass the %1_id exactly as %1 "
                                       "returned it, or run %1 again.")
                            .arg(kind, id));
    return it->second;
}

void ResultIds::addShortened(const QString &id, const Json &shortened)
{
    m_shortened[QString::fromLatin1(Session::verifyDigest(shortened))] = id;
}

QString ResultIds::idOfShortened(const Json &copy) const
{
    const auto it = m_shortened.find(QString::fromLatin1(Session::verifyDigest(copy)));
    return it == m_shortened.end() ? QString() : it->second;
}

bool ResultIds::looksLikeId(const QString &text)
{
    return idPattern().match(text).hasMatch();
}

} // namespace hotkernel
