// SPDX-License-Identifier: Apache-2.0
// How a result over its tool's budget is shortened for a model's context (issue 44): strings cut,
// lists halved, then whole objects left out, largest first, but never the host the result is
// about (a remote verify whose host went missing read as a local one to the agent).
#include "mcp/contextbudget.h"

#include <QTest>

using namespace hotkernel;

class TestContextBudget : public QObject
{
    Q_OBJECT

    // A verify-shaped result: scalars an agent acts on, then objects of detail, host included.
    static Json remoteVerify()
    {
        Json r{{"tool", "verify"}, {"verdict", "inconclusive"}, {"speedup", 1.01}};
        // RemoteHost::hostJson's members for a Slurm host.
        r["host"] = Json{{"kind", "slurm"},
                         {"url", "slurm://debug?time=10&python=/usr/bin/python3&workdir=/tmp/node"},
                         {"hostname", "node1"},
                         {"workdir", "/tmp/node"},
                         {"partition", "debug"},
                         {"job_id", "8"},
                         {"nodes", "node1"},
                         {"shared_directory", false},
                         {"python", "/usr/bin/python3"},
                         {"python_version", "3.11.2"},
                         {"torch", "2.5.1"},
                         {"card", nullptr},
                         {"driver", nullptr}};
        for (const char *detail : {"contract", "physical_floor", "witness", "run_conditions"}) {
            Json o;
            for (int i = 0; i < 12; ++i)
                o["field_" + std::to_string(i)] = std::string(60, 'x');
            r[detail] = o;
        }
        // Smaller than the host: left out largest first, the host would go before it.
        r["frozen"] = Json{{"baseline", std::string(70, 'x')},
                           {"candidate", std::string(70, 'x')},
                           {"note", std::string(40, 'x')}};
        return r;
    }

private Q_SLOTS:
    void withinBudgetIsUntouched()
    {
        const Json r = remoteVerify();
        const ContextBudget::Fitted f = ContextBudget::fit(r, ContextBudget::compactSize(r));
        QVERIFY(f.structured == r);
        QVERIFY(f.shortened.isEmpty());
    }

    void objectsLeftOutButNeverTheHost()
    {
        const Json r = remoteVerify();
        QVERIFY(ContextBudget::compactSize(r["host"]) > ContextBudget::compactSize(r["frozen"]));
        Json essentials = r;
        for (const char *detail : {"contract", "physical_floor", "witness", "frozen", "run_conditions"})
            essentials.erase(detail);
        // Room for the host and the scalars only: every detail object must go, the host must stay.
        const qsizetype budget = ContextBudget::compactSize(essentials) + 20;
        const ContextBudget::Fitted f = ContextBudget::fit(r, budget);
        QVERIFY2(ContextBudget::compactSize(f.structured) <= budget, f.structured.dump().c_str());
        QVERIFY2(f.structured.contains("host"), qPrintable(f.shortened.join(QLatin1Char(' '))));
        QVERIFY(f.structured["host"] == r["host"]);
        QVERIFY(f.structured["verdict"] == r["verdict"]);
        for (const char *detail : {"contract", "physical_floor", "witness", "frozen", "run_conditions"})
            QVERIFY2(!f.structured.contains(detail), detail);
        QVERIFY2(f.shortened.join(QLatin1Char(' ')).contains(QStringLiteral("left out: ")),
                 qPrintable(f.shortened.join(QLatin1Char(' '))));
        QVERIFY(!f.shortened.join(QLatin1Char(' ')).contains(QStringLiteral("host")));
    }
};

QTEST_GUILESS_MAIN(TestContextBudget)
#include "tst_contextbudget.moc"
