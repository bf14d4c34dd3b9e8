// SPDX-License-Identifier: Apache-2.0
#include "base/usererror.h"
#include "inspect/kernelreportparser.h"
#include "inspect/ncudetailsparser.h"
#include "inspect/ncurawparser.h"
#include "inspect/ncuvalue.h"
#include "inspect/nsyskernsumparser.h"
#include "inspect/traceparser.h"

#include "fixtures.h"
#include "golden.h"
#include "parsertext.h"

#include <QDir>
#include <QTest>

#include <algorithm>

using namespace hotkernel;

namespace {
const QString kTemplated =
    QStringLiteral("void scaled_add<float, 4, 113>(const T1 *, T1 *, Pair<T1, 2>, int)");
}

class TestNcuParsers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void values()
    {
        QCOMPARE(NcuValue::number("449,997").value(), 449997.0);
        QCOMPARE(NcuValue::number("2,675,137,727,910.24").value(), 2675137727910.24);
        QVERIFY(!NcuValue::number("n/a"));
        QVERIFY(!NcuValue::number(""));
        QCOMPARE(NcuValue::nanosecondsPer("us").value(), 1e3);
        QCOMPARE(NcuValue::nanosecondsPer("msecond").value(), 1e6);
        QCOMPARE(NcuValue::bytesPer("Kbyte").value(), 1e3);
        QVERIFY(!NcuValue::bytesPer("register/thread"));
    }

    // Three profiled launches of one templated kernel (commas inside the quoted name).
    void detailsTemplated()
    {
        const QByteArray data = readInspectFixture(QStringLiteral("templated.ncu-details.csv"));
        const std::vector<KernelLaunch> launches = NcuDetailsParser::launches(data);
        QCOMPARE(launches.size(), size_t(3));
        QCOMPARE(launches[0].name, kTemplated);
        QCOMPARE(launches[0].durationNs.value(), 228160.0);
        QCOMPARE(launches[0].dramThroughputPct.value(), 71.62);
        QCOMPARE(launches[0].smThroughputPct.value(), 12.46);
        QCOMPARE(launches[0].achievedOccupancyPct.value(), 81.65);
        QCOMPARE(launches[0].registersPerThread.value(), 22);
        QCOMPARE(launches[0].sharedMemoryBytes.value(), 0);
        QCOMPARE(launches[0].grid, QStringLiteral("(65536, 1, 1)"));
        QCOMPARE(launches[0].block, QStringLiteral("(256, 1, 1)"));
        QCOMPARE(launches[0].stream.value(), 7);

        const KernelTable table = NcuDetailsParser::parse(data, QStringLiteral("t.csv"));
        QCOMPARE(table.source, QStringLiteral("ncu-details"));
        QCOMPARE(table.kernels.size(), size_t(1));
        const KernelStat &k = table.kernels[0];
        QCOMPARE(k.calls, 3);
        QCOMPARE(k.totalNs, 685990.0);
        QCOMPARE(k.minNs, 227970.0);
        QCOMPARE(k.maxNs, 229860.0);
        QCOMPARE(k.share, 1.0);
        QCOMPARE(k.boundHint, QStringLiteral("memory"));
        QVERIFY(k.hintReason.contains(QStringLiteral("DRAM")));
    }

    // Twelve launches of eight PyTorch kernels, with lambdas and nested templates in their names.
    void detailsEager()
    {
        const KernelTable table =
            NcuDetailsParser::parse(readInspectFixture(QStringLiteral("eager.ncu-details.csv")));
        QCOMPARE(table.kernels.size(), size_t(9));
        QVERIFY(qAbs(table.totalNs - 739110.0) < 0.5);
        const KernelStat &top = table.kernels[0];
        QVERIFY(top.name.startsWith(
            QStringLiteral("void unnamed>::distribution_elementwise_grid_stride_kernel<float, 4,")));
        QCOMPARE(top.calls, 3);
        QVERIFY(qAbs(top.totalNs - 242530.0) < 0.5);
        QCOMPARE(top.boundHint,
                 QStringLiteral("compute")); // SM 75-76% on its two long launches (duration-weighted)
        QVERIFY(table.kernels[0].totalNs >= table.kernels[1].totalNs);
        double shares = 0;
        for (const KernelStat &k : table.kernels)
            shares += k.share;
        QVERIFY(qAbs(shares - 1.0) < 1e-9);
    }

    // --print-units base: durations in nanoseconds with thousands separators ("81,632").
    void detailsBaseUnitsAgree()
    {
        const KernelTable scaled =
            NcuDetailsParser::parse(readInspectFixture(QStringLiteral("eager.ncu-details.csv")));
        const KernelTable base =
            NcuDetailsParser::parse(readInspectFixture(QStringLiteral("eager.ncu-details-base-units.csv")));
        QCOMPARE(base.kernels.size(), scaled.kernels.size());
        QVERIFY(qAbs(base.totalNs - 739104.0) < 0.5);
        for (size_t i = 0; i < base.kernels.size(); ++i) {
            QCOMPARE(base.kernels[i].name, scaled.kernels[i].name);
            QVERIFY(qAbs(base.kernels[i].totalNs - scaled.kernels[i].totalNs) < 50); // rounding of "us"
        }
    }

    // Straight to stdout: ncu's warnings and the program's own print come before the header.
    void detailsFromStdout()
    {
        const QByteArray data = readInspectFixture(QStringLiteral("eager.ncu-details-stdout.csv"));
        QCOMPARE(KernelReportParser::detect(data), KernelReportParser::Format::NcuDetails);
        const KernelTable table = KernelReportParser::parse(data);
        QCOMPARE(table.kernels.size(), size_t(9));
        int calls = 0;
        for (const KernelStat &k : table.kernels)
            calls += k.calls;
        QCOMPARE(calls, 12);
    }

    void raw()
    {
        const QByteArray data = readInspectFixture(QStringLiteral("templated.ncu-raw.csv"));
        QCOMPARE(KernelReportParser::detect(data), KernelReportParser::Format::NcuRaw);
        const std::vector<KernelLaunch> launches = NcuRawParser::launches(data);
        QCOMPARE(launches.size(), size_t(3));
        QCOMPARE(launches[0].name, kTemplated);
        QCOMPARE(launches[0].durationNs.value(), 228160.0);
        QVERIFY(qAbs(launches[0].dramThroughputPct.value() - 71.624401) < 1e-9);
        QVERIFY(qAbs(launches[0].smThroughputPct.value() - 12.457202) < 1e-9);
        QCOMPARE(launches[0].registersPerThread.value(), 22);
        // Roofline work (--set full): DRAM Mbyte read + written; FP32 add + mul + 2 x FMA per
        // elapsed cycle over the SM sub-partitions, times the elapsed cycles.
        QVERIFY(qAbs(launches[0].dramBytes.value() - (536.897536 + 249.331712) * 1e6) < 1.0);
        QVERIFY(qAbs(launches[0].flops.value() / (4 * 150.118930 * 447037.984848) - 1) < 1e-12);
        QVERIFY(!launches[0].tensorPipeUsed);
        const KernelTable table = KernelReportParser::parse(data);
        QCOMPARE(table.source, QStringLiteral("ncu-raw"));
        QCOMPARE(table.kernels[0].boundHint, QStringLiteral("memory"));

        const KernelTable eager =
            NcuRawParser::parse(readInspectFixture(QStringLiteral("eager.ncu-raw.csv")));
        QCOMPARE(eager.kernels.size(), size_t(9));
        QVERIFY(!eager.kernels[0].flops && !eager.kernels[0].dramBytes); // default sections: no counters
        QVERIFY(qAbs(eager.totalNs - 739104.0) < 0.5);

        const KernelTable triton =
            NcuRawParser::parse(readInspectFixture(QStringLiteral("triton-rmsnorm.ncu-raw.csv")));
        QCOMPARE(triton.kernels.size(), size_t(1));
        QCOMPARE(triton.kernels[0].name, QStringLiteral("rmsnorm_kernel"));
        QCOMPARE(triton.kernels[0].registersPerThread.value(), 64);
        QCOMPARE(triton.kernels[0].sharedMemoryBytes.value(), 32);
    }

    void wrongPageIsActionable()
    {
        const QByteArray source = readInspectFixture(QStringLiteral("templated.ncu-source-sass.csv"));
        QCOMPARE(KernelReportParser::detect(source), KernelReportParser::Format::NcuSource);
        try {
            KernelReportParser::parse(source, QStringLiteral("s.csv"));
            QFAIL("a source page is not a kernel list");
        } catch (const UserError &e) {
            QVERIFY(e.message().contains(QStringLiteral("--page details")));
        }
        QVERIFY_THROWS_EXCEPTION(
            UserError, NcuDetailsParser::parse(readInspectFixture(QStringLiteral("templated.ncu-raw.csv"))));
    }

    // --print-summary per-kernel: min/max/average per (kernel, grid, block); the two grids of the
    // distribution kernel fold into one row.
    void perKernelSummary()
    {
        const QByteArray data = readInspectFixture(QStringLiteral("eager.ncu-summary-per-kernel.csv"));
        QCOMPARE(KernelReportParser::detect(data), KernelReportParser::Format::NcuDetails);
        const KernelTable table = KernelReportParser::parse(data);
        QCOMPARE(table.source, QStringLiteral("ncu-summary"));
        QCOMPARE(table.kernels.size(), size_t(9));
        QVERIFY(qAbs(table.totalNs - 739130.0) < 1.0);
        const KernelStat &top = table.kernels[0];
        QVERIFY(top.name.startsWith(
            QStringLiteral("void unnamed>::distribution_elementwise_grid_stride_kernel")));
        QCOMPARE(top.calls, 3);
        QCOMPARE(top.minNs, 2500.0);
        QCOMPARE(top.maxNs, 158400.0);
    }

    // nsys is not installed on the GPU machine, so no real kernel summary exists yet; the parser
    // runs on any nsys capture the lead adds as *.nsys-kernsum.csv.
    void nsysKernSum()
    {
        const QStringList files =
            QDir(inspectFixturePath(QString())).entryList({QStringLiteral("*.nsys-kernsum*.csv")});
        if (files.isEmpty())
            QSKIP("no real nsys cuda_gpu_kern_sum capture (nsys is not installed on the GPU machine)");
        for (const QString &file : files) {
            const QByteArray data = readInspectFixture(file);
            QCOMPARE(KernelReportParser::detect(data), KernelReportParser::Format::NsysKernSum);
            const KernelTable table = NsysKernSumParser::parse(data, file);
            QVERIFY(!table.kernels.empty());
            QVERIFY(table.kernels[0].totalNs > 0);
        }
    }

    // trace_native.cu under our tracer: three kernels (two templated) launched four times each.
    void traceNative()
    {
        const QByteArray data = readInspectFixture(QStringLiteral("trace-native.jsonl"));
        const TraceSummary summary = TraceParser::read(data);
        QCOMPARE(summary.processes, 1);
        QCOMPARE(summary.launches.size(), size_t(12));
        QCOMPARE(summary.launches[0].name, QStringLiteral("plain_fill"));
        QCOMPARE(summary.launches[0].durationNs.value(), 10911.0);
        QCOMPARE(summary.launches[0].registersPerThread.value(), 16);
        QCOMPARE(summary.launches[0].grid, QStringLiteral("(16384, 1, 1)"));
        const KernelTable table = KernelReportParser::parse(data, QStringLiteral("trace-native.jsonl"));
        QCOMPARE(table.source, QStringLiteral("trace"));
        QCOMPARE(table.kernels.size(), size_t(3));
        for (const KernelStat &k : table.kernels)
            QCOMPARE(k.calls, 4);
        QVERIFY(std::any_of(table.kernels.begin(), table.kernels.end(), [](const KernelStat &k) {
            return k.name.startsWith(QLatin1String("void demo::scale<float, 4>(float*, int, float)"));
        }));
    }

    // Our CUPTI tracer's JSON lines, once captured on the GPU machine as *.trace.jsonl.
    void trace()
    {
        const QStringList files = QDir(inspectFixturePath(QString())).entryList({QStringLiteral("*.jsonl")});
        if (files.isEmpty())
            QSKIP("no real hotkernel-tracer capture yet (tests/data/inspect/*.jsonl)");
        for (const QString &file : files) {
            const QByteArray data = readInspectFixture(file);
            QCOMPARE(KernelReportParser::detect(data), KernelReportParser::Format::Trace);
            const TraceSummary summary = TraceParser::read(data);
            QVERIFY(summary.processes >= 1);
            QVERIFY(!summary.launches.empty());
            QVERIFY(summary.launches[0].durationNs.value() > 0);
            QVERIFY(!summary.launches[0].grid.isEmpty());
            const KernelTable table = TraceParser::parse(data, file);
            QCOMPARE(table.kernels[0].boundHint, QString()); // a trace has no throughput figures
        }
    }

    // Every capture's whole result against tests/data/golden/<golden>.expected.txt: the launches
    // as the parser read them, then the table they fold into.
    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("parser");
        const auto row = [](const char *fixture, const char *parser) {
            QString golden = QString::fromLatin1(fixture);
            golden.truncate(golden.lastIndexOf(QLatin1Char('.'))); // the golden file's name
            QTest::newRow(qPrintable(golden)) << QString::fromLatin1(fixture) << QString::fromLatin1(parser);
        };
        for (const char *details : {"templated.ncu-details.csv", "eager.ncu-details.csv",
                                    "eager.ncu-details-base-units.csv", "triton-rmsnorm.ncu-details.csv",
                                    "journey-gelu.ncu-details.csv", "journey-two.ncu-details.csv"})
            row(details, "details");
        row("eager.ncu-details-stdout.csv", "detect"); // found by KernelReportParser past ncu's noise
        row("eager.ncu-summary-per-kernel.csv", "summary");
        for (const char *raw : {"templated.ncu-raw.csv", "eager.ncu-raw.csv", "triton-rmsnorm.ncu-raw.csv",
                                "journey-gelu.ncu-raw.csv"})
            row(raw, "raw");
        for (const char *trace : {"trace-native.jsonl", "trace-torch.jsonl"})
            row(trace, "trace");
        // many.trace.jsonl (900 launches of 500 kernels) has no golden file: its table alone would
        // be 270 kB, for no line of the parser the two above do not reach; trace() checks it.
    }

    void golden()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, parser);
        const QByteArray data = readInspectFixture(fixture);
        QString text;
        if (parser == QLatin1String("details"))
            text = parsertext::launches(NcuDetailsParser::launches(data)) +
                   parsertext::kernelTable(NcuDetailsParser::parse(data, fixture));
        else if (parser == QLatin1String("detect"))
            text = QStringLiteral("format: ") +
                   KernelReportParser::formatName(KernelReportParser::detect(data)) + QLatin1Char('\n') +
                   parsertext::kernelTable(KernelReportParser::parse(data, fixture));
        else if (parser == QLatin1String("summary"))
            text = parsertext::kernelTable(NcuDetailsParser::parse(data, fixture));
        else if (parser == QLatin1String("raw"))
            text = parsertext::launches(NcuRawParser::launches(data)) +
                   parsertext::kernelTable(NcuRawParser::parse(data, fixture));
        else
            text = parsertext::traceSummary(TraceParser::read(data)) +
                   parsertext::kernelTable(TraceParser::parse(data, fixture));
        HK_COMPARE_GOLDEN(QString::fromLatin1(QTest::currentDataTag()), text);
    }
};

QTEST_GUILESS_MAIN(TestNcuParsers)
#include "tst_ncuparsers.moc"
