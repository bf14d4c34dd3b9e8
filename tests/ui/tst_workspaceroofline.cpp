// SPDX-License-Identifier: Apache-2.0
// The roofline the window draws for a working directory: kernel points from real ncu captures of
// an H200 (tests/data/inspect, see CAPTURE.md there) with intensity and FLOP/s computed from the
// capture's own counters; no point, and a note saying why, for kernels whose report lacks them;
// calibrate's measured ceilings, dashed, when a calibration is stored.
#include "inspect/kernelreportparser.h"
#include "inspect/ncudetailsparser.h"
#include "inspect/ncurawparser.h"
#include "rooflinechartview.h"
#include "workspace/workspace.h"

#include <QChart>
#include <QDir>
#include <QFile>
#include <QLineSeries>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace hotkernel;

namespace {

QString fixturePath(const QString &name)
{
    return QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/") + name;
}

KernelTable parseFixture(const QString &name)
{
    QFile f(fixturePath(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(f.fileName()));
    return KernelReportParser::parse(f.readAll(), f.fileName());
}

KernelStat kernelStat(const char *name, double avgNs, double dramBytes, double flops)
{
    KernelStat k;
    k.name = QString::fromLatin1(name);
    k.avgNs = avgNs;
    k.dramBytes = dramBytes;
    k.flops = flops;
    return k;
}

bool near(double actual, double expected, double relative = 1e-9)
{
    return std::abs(actual / expected - 1.0) < relative;
}

const RooflineCeiling *findCeiling(const RooflineData &data, const QString &origin, const QString &kind)
{
    for (const RooflineCeiling &c : data.ceilings) {
        if (c.origin == origin && c.kind == kind)
            return &c;
    }
    return nullptr;
}

QLineSeries *lineNamed(QChart *chart, const QString &name)
{
    for (QAbstractSeries *s : chart->series()) {
        if (s->name() == name)
            return qobject_cast<QLineSeries *>(s);
    }
    return nullptr;
}

} // namespace

class TestWorkspaceRoofline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
        QStandardPaths::setTestModeEnabled(true); // no calibration of this machine's user leaks in
    }

    void kernelPointFromRawPage()
    {
        const KernelTable table = parseFixture(QStringLiteral("triton-rmsnorm.ncu-raw.csv"));
        QCOMPARE(table.source, QStringLiteral("ncu-raw"));
        Workspace w;
        w.card = QStringLiteral("NVIDIA H200");
        const RooflineData data = w.roofline({}, &table);
        QCOMPARE(data.points.size(), size_t(1));
        const RooflinePoint &p = data.points.front();
        QCOMPARE(p.key, QStringLiteral("rmsnorm_kernel"));
        QCOMPARE(p.kind, QStringLiteral("kernel"));
        // The capture's numbers: FP32 add, mul and FMA thread-instructions per elapsed cycle summed
        // over the SM sub-partitions, smsp__cycles_elapsed.avg, DRAM Mbyte read and written, and
        // gpu__time_duration.sum in us.
        const double flops = (136.584430 + 1109.748493 + 2 * 546.337720) * 61417.015152;
        const double bytes = (67.136256 + 42.865664) * 1e6;
        QVERIFY2(near(p.intensity, flops / bytes), qPrintable(QString::number(p.intensity)));
        QVERIFY2(near(p.flopsPerSecond, flops / 31.936e-6), qPrintable(QString::number(p.flopsPerSecond)));
        QVERIFY(p.intensity > 1.30 && p.intensity < 1.31);
        // The bytes agree with ncu's own rate for the launch (dram__bytes.sum.per_second 3.444449 TB/s).
        QVERIFY(near(bytes / 31.936e-6, 3.444449e12, 1e-5));
        // FP-pipe FLOPs are drawn against the FP32 roof as well as the bf16 one.
        const auto fp32 =
            std::find_if(data.ceilings.begin(), data.ceilings.end(),
                         [](const RooflineCeiling &c) { return c.label.startsWith(QLatin1String("fp32")); });
        QVERIFY(fp32 != data.ceilings.end());
        QCOMPARE(fp32->value, 67e12);
        QVERIFY(data.notes.filter(QStringLiteral("without a point")).isEmpty());
    }

    void kernelPointAveragesLaunches()
    {
        // Three launches of one kernel: FLOPs and bytes averaged per call, time the average.
        const KernelTable table = parseFixture(QStringLiteral("templated.ncu-raw.csv"));
        QCOMPARE(table.kernels.size(), size_t(1));
        QCOMPARE(table.kernels.front().calls, 3);
        const double flops = (4 * 150.118930 * 447037.984848 + 4 * 150.199358 * 446798.606061 +
                              4 * 148.695871 * 451316.257576) /
                             3;
        const double bytes =
            ((536.897536 + 249.331712) + (536.918016 + 249.509120) + (536.935680 + 249.462528)) * 1e6 / 3;
        const double seconds = (228.160 + 227.968 + 229.856) * 1e-6 / 3;
        RooflineData data;
        QCOMPARE(Roofline::addKernelPoints(data, table), 1);
        QVERIFY(near(data.points.front().intensity, flops / bytes));
        QVERIFY(near(data.points.front().flopsPerSecond, flops / seconds));
    }

    void kernelsWithoutCountersGetNoPoint()
    {
        // Default ncu sections: times and throughputs, no FP counters or DRAM bytes.
        const KernelTable eager = parseFixture(QStringLiteral("eager.ncu-raw.csv"));
        QCOMPARE(eager.kernels.size(), size_t(9));
        RooflineData data;
        QCOMPARE(Roofline::addKernelPoints(data, eager), 0);
        QVERIFY(data.points.empty());
        QCOMPARE(data.notes.size(), 1);
        QVERIFY2(data.notes.front().startsWith(QLatin1String("9 of 9 kernels without a point")),
                 qPrintable(data.notes.front()));
        QVERIFY(data.notes.front().contains(QLatin1String("--set full")));

        // The details page has no FLOP count at all, even under --set full.
        const KernelTable details = parseFixture(QStringLiteral("triton-rmsnorm.ncu-details.csv"));
        QCOMPARE(details.source, QStringLiteral("ncu-details"));
        Workspace w;
        w.card = QStringLiteral("NVIDIA H200");
        const RooflineData fromDetails = w.roofline({}, &details);
        QVERIFY(fromDetails.points.empty());
        QVERIFY(
            !fromDetails.notes.filter(QStringLiteral("1 of 1 kernel without a point: the ncu-details report"))
                 .isEmpty());
        // The chart says so under the plot.
        RooflineChartView view;
        view.setData(fromDetails);
        QVERIFY2(view.statusText().contains(QLatin1String("1 of 1 kernel without a point")),
                 qPrintable(view.statusText()));
    }

    void invalidKernelFiguresAreDroppedAndReported()
    {
        KernelTable t;
        t.source = QStringLiteral("ncu-raw");
        const KernelStat copy = kernelStat("copy", 1000, 1e6, 0); // a pure copy: bytes but no FLOPs
        KernelStat gemm = kernelStat("gemm", 1000, 1e6, 1e9);
        gemm.tensorPipeUsed = true;
        const KernelStat broken = kernelStat("broken", 1000, std::numeric_limits<double>::quiet_NaN(), 1e6);
        const KernelStat good = kernelStat("good", 2000, 4e6, 8e6);
        t.kernels = {copy, gemm, broken, good};
        RooflineData data;
        QCOMPARE(Roofline::addKernelPoints(data, t), 1);
        QCOMPARE(data.points.front().key, QStringLiteral("good"));
        QCOMPARE(data.points.front().intensity, 2.0);
        QCOMPARE(data.points.front().flopsPerSecond, 4e12); // 8 MFLOP in 2 us
        QCOMPARE(data.notes.size(), 3);
        QVERIFY(!data.notes.filter(QStringLiteral("tensor-core")).isEmpty());
        QVERIFY(!data.notes.filter(QStringLiteral("no floating-point work")).isEmpty());
        QVERIFY(!data.notes.filter(QStringLiteral("no DRAM traffic")).isEmpty());
    }

    void measuredCeilingsFromCalibration()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("results/calibration")));
        QVERIFY(
            QFile::copy(fixturePath(QStringLiteral("calibrate.json")),
                        dir.filePath(QStringLiteral("results/calibration/h200-sxm-20261202-104800.json"))));
        // No verify records: the calibration names the card.
        const Workspace w = Workspace::load(dir.path());
        QVERIFY(w.measured.has_value());
        QCOMPARE(w.card, QStringLiteral("NVIDIA H200"));
        const RooflineData data = w.roofline({});
        QCOMPARE(data.card, QStringLiteral("NVIDIA H200 SXM"));
        const RooflineCeiling *copy =
            findCeiling(data, QStringLiteral("measured"), QStringLiteral("bandwidth"));
        QVERIFY(copy);
        QCOMPARE(copy->value, 4169.9e9);
        QVERIFY(copy->label.contains(QLatin1String("(measured)")));
        const RooflineCeiling *gemm =
            findCeiling(data, QStringLiteral("measured"), QStringLiteral("compute"));
        QVERIFY(gemm);
        QCOMPARE(gemm->value, 700.5e12);
        const RooflineCeiling *spec = findCeiling(data, QStringLiteral("spec"), QStringLiteral("bandwidth"));
        QVERIFY(spec);
        QCOMPARE(spec->value, 4800e9);

        // Drawn: every ceiling with its own colour and dash (issue 22), so measured and spec differ.
        RooflineChartView view;
        view.setData(data);
        QLineSeries *measuredLine = lineNamed(view.chart(), copy->label);
        QLineSeries *specLine = lineNamed(view.chart(), spec->label);
        QVERIFY(measuredLine && specLine);
        QVERIFY(measuredLine->pen().style() != specLine->pen().style());
        QVERIFY(measuredLine->pen().color() != specLine->pen().color());
        QVERIFY(view.rejected().isEmpty());

        // Without a calibration: spec only, and the chart says how to get measured ceilings.
        QTemporaryDir empty;
        Workspace bare = Workspace::load(empty.path());
        QVERIFY(!bare.measured);
        bare.card = QStringLiteral("NVIDIA H200");
        bare.loadCalibration();
        QVERIFY(!bare.measured);
        const RooflineData specOnly = bare.roofline({});
        QVERIFY(!findCeiling(specOnly, QStringLiteral("measured"), QStringLiteral("bandwidth")));
        QVERIFY(findCeiling(specOnly, QStringLiteral("spec"), QStringLiteral("bandwidth")));
        QVERIFY(!specOnly.notes.filter(QStringLiteral("calibrate")).isEmpty());
    }
};

QTEST_MAIN(TestWorkspaceRoofline)
#include "tst_workspaceroofline.moc"
