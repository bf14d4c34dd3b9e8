// SPDX-License-Identifier: Apache-2.0
// The ids a session gives verify results (issue 44): found in the session that issued them,
// unguessable, and refused elsewhere with a message that says what to do.
#include "base/usererror.h"
#include "session/resultids.h"

#include <QTest>

using namespace hotkernel;

namespace {
QString refusal(const ResultIds &ids, const QString &id)
{
    try {
        ids.find(QStringLiteral("verify"), id);
    } catch (const UserError &e) {
        return e.message();
    }
    return {};
}
} // namespace

class TestResultIds : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void issuedIdFindsTheResultWithItsId()
    {
        ResultIds ids;
        Json result{{"verdict", "faster"}};
        const QString id = ids.issue(QStringLiteral("verify"), result);
        QVERIFY(ResultIds::looksLikeId(id));
        QVERIFY(id.startsWith(QStringLiteral("verify-") + ids.tag() + QLatin1Char('-')));
        QVERIFY(result["verify_id"] == toStd(id));
        QVERIFY(ids.find(QStringLiteral("verify"), id) == result);
    }

    void idsAreNotSequential()
    {
        ResultIds ids;
        Json a = Json::object();
        Json b = Json::object();
        const QString first = ids.issue(QStringLiteral("verify"), a);
        const QString second = ids.issue(QStringLiteral("verify"), b);
        QVERIFY(first != second);
        // 128 random bits each: the two differ in far more than a counter's last digits.
        int differing = 0;
        for (qsizetype i = first.size() - 32; i < first.size(); ++i)
            differing += first[i] != second[i];
        QVERIFY2(differing > 8, qPrintable(first + QLatin1Char(' ') + second));
    }

    void anotherSessionsIdSaysSo()
    {
        ResultIds ended;
        Json result = Json::object();
        const QString id = ended.issue(QStringLiteral("verify"), result);
        const ResultIds now;
        const QString message = refusal(now, id);
        QVERIFY2(message.contains(QLatin1String("another hotkernel session")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("Run verify again")), qPrintable(message));
    }

    void unknownIdOfThisSessionSaysSo()
    {
        ResultIds ids;
        Json result = Json::object();
        QString id = ids.issue(QStringLiteral("verify"), result);
        id.replace(id.size() - 4, 4,
                   id.endsWith(QLatin1String("0000")) ? QStringLiteral("1111") : QStringLiteral("0000"));
        const QString message = refusal(ids, id);
        QVERIFY2(message.contains(QLatin1String("no verify in this session has the id")),
                 qPrintable(message));
    }

    void malformedIdSaysWhatAnIdLooksLike()
    {
        const ResultIds ids;
        QVERIFY(!ResultIds::looksLikeId(QStringLiteral("verify.json")));
        const QString message = refusal(ids, QStringLiteral("42"));
        QVERIFY2(message.contains(QLatin1String("is not a verify id")), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestResultIds)
#include "tst_resultids.moc"
