// SPDX-License-Identifier: Apache-2.0
// The window's pure choices, outside any widget: which listings Diff SASS shows (ui/diffpair.h),
// which verify Record... records and with what (ui/recordrequest.h), and the history a loaded
// workspace shows with this session's unrecorded verifies (ui/workspaceopening.h).
#include "diffpair.h"
#include "recordrequest.h"
#include "workspaceopening.h"

#include <QTest>

using namespace hotkernel;

namespace {

SassFunction listing(const char *name, const char *file, bool sampled)
{
    SassFunction f;
    f.name = QString::fromLatin1(name);
    f.level = QStringLiteral("sass");
    if (file)
        f.metadata[QStringLiteral("file")] = QString::fromLatin1(file);
    SassInstruction in;
    in.text = QStringLiteral("FFMA R0, R1, R2, R3 ;");
    if (sampled)
        in.stallSamples = 12;
    f.instructions.push_back(in);
    return f;
}

VerifyRecord verify(const char *target, const char *at, bool recorded, int minute)
{
    VerifyRecord r;
    r.target = QString::fromLatin1(target);
    r.verifiedAt = QString::fromLatin1(at);
    r.recorded = recorded;
    r.verdict = QStringLiteral("faster");
    r.time = QDateTime(QDate(2026, 12, 1), QTime(10, minute), Qt::UTC);
    return r;
}

} // namespace

class TestWindowChoices : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void diffPrefersTheTargetsBaselineAndCandidate()
    {
        const std::vector<SassFunction> functions{listing("k", "/w/gelu_candidate_v2.sass", true),
                                                  listing("k", "/w/other_baseline.sass", false),
                                                  listing("k", "/w/gelu_baseline.sass", false)};
        const auto pair = DiffPair::choose(functions, QStringLiteral("gelu"), &functions[0]);
        QVERIFY(pair);
        QCOMPARE(pair->left, &functions[2]);
        QCOMPARE(pair->right, &functions[0]);
        QVERIFY(pair->leftLabel.isEmpty()); // the view names the sides itself
    }

    void diffFallsBackToTwoBuildsProfiledOnTheRight()
    {
        // No listing of the target: two builds of the selected kernel, the sampled one right.
        const std::vector<SassFunction> functions{listing("triton_k", "/c/b.sass", true),
                                                  listing("other", "/c/o.sass", false),
                                                  listing("triton_k", nullptr, false)};
        const auto pair = DiffPair::choose(functions, QStringLiteral("gelu"), &functions[0]);
        QVERIFY(pair);
        QCOMPARE(pair->left, &functions[2]);
        QCOMPARE(pair->right, &functions[0]);
        QCOMPARE(pair->leftLabel, QStringLiteral("triton_k")); // no file: its name
        QCOMPARE(pair->rightLabel, QStringLiteral("/c/b.sass"));
        // One build only, or nothing selected: nothing to compare.
        QVERIFY(!DiffPair::choose(functions, QStringLiteral("gelu"), &functions[1]));
        QVERIFY(!DiffPair::choose(functions, QString(), nullptr));
    }

    void recordTakesTheSelectedRowElseTheNewestRecordable()
    {
        const std::vector<VerifyRecord> shown{verify("gelu", "t1", false, 1), verify("gelu", "t2", true, 2),
                                              verify("gelu", "t3", false, 3), verify("gelu", "t4", false, 4)};
        const auto notT4 = [](const VerifyRecord &v) { return v.verifiedAt != QLatin1String("t4"); };
        QCOMPARE(RecordRequest::choose(shown, 0, notT4), &shown[0]);
        // A recorded row selected, or none: the newest this session can vouch for.
        QCOMPARE(RecordRequest::choose(shown, 1, notT4), &shown[2]);
        QCOMPARE(RecordRequest::choose(shown, -1, notT4), &shown[2]);
        QCOMPARE(RecordRequest::choose(shown, 9, notT4), &shown[2]);
        QCOMPARE(RecordRequest::choose(shown, -1, [](const VerifyRecord &) { return false; }), nullptr);
    }

    void recordGoesByIdElseByValue()
    {
        VerifyRecord v = verify("gelu", "t1", false, 1);
        const Json result{{"verdict", "faster"}};
        QVERIFY(RecordRequest::hidden(v, result) == (Json{{"verify_result", result}}));
        v.verifyId = QStringLiteral("v-7");
        QVERIFY(RecordRequest::hidden(v, result) == (Json{{"verify_id", "v-7"}}));
        const Json fields = RecordRequest::fields(v, QStringLiteral("me"));
        // No speedup: the note is the verdict.
        QCOMPARE(QString::fromStdString(fields.dump()),
                 QStringLiteral(R"({"target":"gelu","who":"me","note":"faster"})"));
    }

    void historyKeepsUnrecordedSessionVerifiesInTimeOrder()
    {
        const std::vector<VerifyRecord> records{verify("gelu", "t1", true, 1), verify("gelu", "t5", true, 5)};
        const std::vector<VerifyRecord> session{verify("gelu", "t5", false, 5),
                                                verify("gelu", "t3", false, 3), verify("gelu", "", false, 0)};
        const std::vector<VerifyRecord> all = WorkspaceOpening::history(records, session);
        QCOMPARE(all.size(), size_t(4)); // t5's record replaces the session's t5
        QCOMPARE(all[0].verifiedAt, QString());
        QCOMPARE(all[1].verifiedAt, QStringLiteral("t1"));
        QCOMPARE(all[2].verifiedAt, QStringLiteral("t3"));
        QVERIFY(!all[2].recorded);
        QVERIFY(all[3].recorded);
    }
};

QTEST_GUILESS_MAIN(TestWindowChoices)
#include "tst_windowchoices.moc"
