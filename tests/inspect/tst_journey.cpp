// SPDX-License-Identifier: Apache-2.0
// Issue 21's steps on real captures of tests/data/capture/transformer_block.py (CAPTURE.md): ncu's
// kernel filter and its no-match list, hot instructions from a source page alone, the execution
// trace's arguments, a target made from an op row, and where the CUDA tools are found.
#include "fixtures.h"
#include "golden.h"
#include "parsertext.h"

#include "base/json.h"
#include "base/usererror.h"
#include "inspect/cudatools.h"
#include "inspect/hotinstructions.h"
#include "inspect/kernelreportparser.h"
#include "inspect/ncukerneldetails.h"
#include "inspect/ncukernelfilter.h"
#include "inspect/ncusourceparser.h"
#include "inspect/torchtracereportparser.h"
#include "measure/executiontrace.h"
#include "measure/tracetarget.h"
#include "workspace/workspace.h"

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

Json fixtureJson(const QString &name)
{
    const std::optional<Json> json = parseJson(readInspectFixture(name));
    if (!json)
        qFatal("fixture %s is not JSON", qPrintable(name));
    return *json;
}

TraceTargetPlan planForRow(int row)
{
    const Json report = fixtureJson(QStringLiteral("journey.torch-trace.json"));
    const Json trace = fixtureJson(QStringLiteral("journey.et.json"));
    const TraceOpRow picked = TraceTarget::pick(TraceTarget::rows(report), row, {});
    return TraceTarget::plan(picked, ExecutionTrace::call(trace, picked.node), {}, QStringLiteral("R"));
}

} // namespace

class TestJourney : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kernelFilterIgnoresCaseByDefault()
    {
        QCOMPARE(NcuKernelFilter::argument(QStringLiteral("gelu"), false), QStringLiteral("regex:(?i)gelu"));
        QCOMPARE(NcuKernelFilter::argument(QStringLiteral("Gelu"), true), QStringLiteral("regex:Gelu"));
        QCOMPARE(NcuKernelFilter::argument(QStringLiteral("(?i)gelu"), false),
                 QStringLiteral("regex:(?i)gelu"));
    }

    void noMatchListsLaunchedKernels()
    {
        // With --kernel-name-base demangled ncu lists full names; the gelu kernel is among them.
        const QStringList demangled =
            NcuKernelFilter::availableKernels(readInspectFixture(QStringLiteral("journey.ncu-nomatch.txt")));
        QCOMPARE(demangled.size(), 12);
        QVERIFY(demangled.filter(QStringLiteral("GeluCUDAKernelImpl")).size() == 1);
        // Without it (ncu's default), the bare function names, which is why "gelu" matched nothing.
        const QStringList base = NcuKernelFilter::availableKernels(
            readInspectFixture(QStringLiteral("journey.ncu-base-regex.txt")));
        QVERIFY(base.contains(QStringLiteral("vectorized_elementwise_kernel")));
        QVERIFY(base.filter(QStringLiteral("Gelu"), Qt::CaseInsensitive).isEmpty());
        const QString message =
            NcuKernelFilter::noMatchMessage(QStringLiteral("nosuchkernel"), false, demangled, {});
        QVERIFY(message.contains(QStringLiteral("any case")));
        QVERIFY(message.contains(demangled.last()));
        QVERIFY(NcuKernelFilter::availableKernels("==PROF== Report: x.ncu-rep\n").isEmpty());
    }

    void kernelRegexPicksOneNcuName()
    {
        // The window profiles "this kernel" of a torch_trace table with ncu: the regex built from
        // torch's spelling must pick exactly ncu's spelling of the same kernel, of the same program.
        const QStringList ncuNames =
            NcuKernelFilter::availableKernels(readInspectFixture(QStringLiteral("journey.ncu-nomatch.txt")));
        const Json report = fixtureJson(QStringLiteral("journey.torch-trace.json"));
        int kernels = 0;
        const auto matchesOf = [&ncuNames](const QString &regex) {
            const QRegularExpression re(regex, QRegularExpression::CaseInsensitiveOption);
            return ncuNames.filter(re);
        };
        for (const Json &k : report["kernels"]) {
            const QString torchName = toQt(k["name"].get<std::string>());
            const QString regex = NcuKernelFilter::regexFor(torchName);
            if (torchName.startsWith(QLatin1String("Memcpy")) ||
                torchName.startsWith(QLatin1String("Memset"))) {
                QVERIFY2(regex.isEmpty(), qPrintable(torchName));
                continue;
            }
            ++kernels;
            QVERIFY2(!regex.isEmpty(), qPrintable(torchName));
            QCOMPARE(matchesOf(regex).size(), 1);
        }
        QCOMPARE(kernels, int(ncuNames.size())); // the same program: the same kernels
        // ncu's own spelling (a table of an ncu report) picks itself, and only itself.
        for (const QString &name : ncuNames)
            QCOMPARE(matchesOf(NcuKernelFilter::regexFor(name)), QStringList{name});
        // The gelu kernel, by the words a reader recognises.
        const QString gelu = NcuKernelFilter::regexFor(ncuNames.filter(QStringLiteral("Gelu")).value(0));
        QVERIFY(
            gelu.startsWith(QLatin1String("\\bvectorized_elementwise_kernel\\b.*\\bGeluCUDAKernelImpl\\b")));
    }

    void rulesAndMetricsPerKernel()
    {
        const std::vector<NcuLaunchDetail> launches =
            NcuKernelDetails::parse(readInspectFixture(QStringLiteral("journey-gelu.ncu-details.csv")));
        QCOMPARE(launches.size(), size_t(2));
        QVERIFY(launches[0].name.contains(QStringLiteral("GeluCUDAKernelImpl")));
        const auto &m = launches[0].metrics;
        QCOMPARE(m.at(QStringLiteral("sm_clock_mhz")), 1950.0);
        QCOMPARE(m.at(QStringLiteral("dram_clock_mhz")), 3200.0);
        QCOMPARE(m.at(QStringLiteral("elapsed_cycles")), 75890.0);
        QCOMPARE(m.at(QStringLiteral("duration_ns")), 38820.0);
        QCOMPARE(m.at(QStringLiteral("theoretical_occupancy_pct")), 100.0);
        QCOMPARE(m.at(QStringLiteral("waves_per_sm")), 15.52);
        QCOMPARE(m.at(QStringLiteral("l2_throughput_pct")), 78.42);
        QCOMPARE(m.at(QStringLiteral("l1_throughput_pct")), 25.05);
        const Json folded = NcuKernelDetails::kernelJson({&launches[0], &launches[1]}, false);
        QCOMPARE(folded["launches_profiled"].get<int>(), 2);
        QVERIFY(!folded.contains("launches"));
        const Json &rules = folded["rules"];
        // Estimated speedups first, largest first: CPIStall's local 40.44% in launch 0.
        QCOMPARE(rules[0]["rule"].get<std::string>(), std::string("CPIStall"));
        QVERIFY(rules[0]["estimated_speedup_pct"].get<double>() >= 40.44);
        QCOMPARE(rules[0]["speedup_type"].get<std::string>(), std::string("local"));
        bool occupancy = false;
        for (const Json &r : rules)
            occupancy = occupancy || r["rule"].get<std::string>() == "AchievedOccupancy";
        QVERIFY(occupancy);
        const Json perLaunch = NcuKernelDetails::kernelJson({&launches[0], &launches[1]}, true);
        QCOMPARE(perLaunch["launches"].size(), size_t(2));
        QCOMPARE(perLaunch["launches"][1]["id"].get<std::string>(), std::string("1"));
    }

    void hotInstructionsFromSourcePageAlone()
    {
        const std::vector<SourceReport> reports =
            NcuSourceParser::parse(readInspectFixture(QStringLiteral("journey-gelu.ncu-source-sass.csv")));
        const SourceReport *report = HotInstructions::find(reports, QStringLiteral("GELU"));
        QVERIFY(report);
        QVERIFY(report->kernelName.contains(QStringLiteral("GeluCUDAKernelImpl")));
        QCOMPARE(report->launches, 2); // -c 2: both launches merged
        QVERIFY(!HotInstructions::find(reports, QStringLiteral("no such kernel")));
        SassFunction function = HotInstructions::fromReport(*report);
        QCOMPARE(function.instructions.size(), report->rows.size());
        QCOMPARE(*function.instructions.front().address, quint64(0));
        const AttachSummary summary = HotInstructions::attach(function, *report);
        QCOMPARE(summary.matched, int(report->rows.size()));
        QCOMPARE(summary.unmatched, 0);
        QCOMPARE(summary.opcodeMismatches, 0);
        QVERIFY(summary.totalSamples > 0);
        QVERIFY(!summary.topStallReasons.empty());
        const std::vector<size_t> hot = HotInstructions::hottest(function, 5);
        QCOMPARE(hot.size(), size_t(5));
        const SassInstruction &hottest = function.instructions[hot.front()];
        QVERIFY(!hottest.opcode.isEmpty());
        QVERIFY(*hottest.stallSamples > 0);
        QVERIFY(!hottest.stallReasons.empty());
        qint64 executed = 0;
        for (const SassInstruction &in : function.instructions)
            executed += in.executed.value_or(0);
        QVERIFY(executed > 0);
    }

    void workspaceShowsAnExportWithoutListing()
    {
        // profile leaves profiles/NAME.source-sass.csv and no listing: the window's workspace shows
        // the kernel's SASS with its figures from that file alone.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("profiles")));
        QVERIFY(QFile::copy(inspectFixturePath(QStringLiteral("journey-gelu.ncu-source-sass.csv")),
                            dir.filePath(QStringLiteral("profiles/gelu.source-sass.csv"))));
        const Workspace w = Workspace::load(dir.path());
        QCOMPARE(w.functions.size(), size_t(1));
        const SassFunction &f = w.functions.front();
        QVERIFY(f.demangled.contains(QStringLiteral("GeluCUDAKernelImpl")));
        QCOMPARE(f.metadata.at(QStringLiteral("file")), QStringLiteral("profiles/gelu.source-sass.csv"));
        qint64 samples = 0;
        for (const SassInstruction &in : f.instructions)
            samples += in.stallSamples.value_or(0);
        QVERIFY(samples > 0);
    }

    void workspaceShowsATorchTraceReport()
    {
        // torch_trace from the window leaves profiles/NAME-TIME.torch-trace.json beside its execution
        // trace: the kernel table shows its kernels (the report, not the .et.json), heaviest first,
        // so "New target from this kernel" has a row to rebuild.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("profiles")));
        const QString report =
            dir.filePath(QStringLiteral("profiles/model-20261204-120000.torch-trace.json"));
        QVERIFY(QFile::copy(inspectFixturePath(QStringLiteral("journey.torch-trace.json")), report));
        QVERIFY(QFile::copy(inspectFixturePath(QStringLiteral("journey.et.json")),
                            dir.filePath(QStringLiteral("profiles/model-20261204-120000.et.json"))));
        QCOMPARE(KernelReportParser::detect(readInspectFixture(QStringLiteral("journey.torch-trace.json"))),
                 KernelReportParser::Format::TorchTrace);
        QCOMPARE(KernelReportParser::detect(readInspectFixture(QStringLiteral("trace-torch.jsonl"))),
                 KernelReportParser::Format::Trace);
        const Workspace w = Workspace::load(dir.path());
        QVERIFY2(w.problems.isEmpty(), qPrintable(w.problems.join(QLatin1Char('\n'))));
        QCOMPARE(w.kernelTables.size(), size_t(1));
        const KernelTable &t = w.kernelTables.front();
        QCOMPARE(t.source, QStringLiteral("torch-trace"));
        QCOMPARE(t.path, report);
        const Json captured = fixtureJson(QStringLiteral("journey.torch-trace.json"));
        QCOMPARE(t.kernels.size(), captured["kernels"].size());
        QVERIFY(t.kernels.front().name.startsWith(QLatin1String("nvjet_sm90")));
        QVERIFY(t.kernels.front().totalNs >= t.kernels.back().totalNs);
        QCOMPARE(t.kernels.front().calls, 12);
        QVERIFY(std::any_of(t.kernels.begin(), t.kernels.end(), [](const KernelStat &k) {
            return k.name.contains(QLatin1String("GeluCUDAKernelImpl"));
        }));
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 TorchTraceReportParser::parse("{\"tool\": \"torch_trace\"}", report));
    }

    // The torch_trace report's whole kernel table against
    // tests/data/golden/journey.torch-trace.expected.txt.
    void torchTraceReportGolden()
    {
        const QString fixture = QStringLiteral("journey.torch-trace.json");
        HK_COMPARE_GOLDEN(
            QStringLiteral("journey.torch-trace"),
            parsertext::kernelTable(TorchTraceReportParser::parse(readInspectFixture(fixture), fixture)));
    }

    void executionTraceKeepsNonTensorArguments()
    {
        const Json trace = fixtureJson(QStringLiteral("journey.et.json"));
        const TraceCall gelu = ExecutionTrace::call(trace, 238);
        QCOMPARE(gelu.op, QStringLiteral("aten::gelu"));
        QCOMPARE(gelu.overload, QString());
        QCOMPARE(gelu.arguments.size(), size_t(2));
        QVERIFY(gelu.arguments[0].isTensor);
        QCOMPARE(gelu.arguments[0].dtype, QStringLiteral("bf16"));
        QCOMPARE(gelu.arguments[0].shape, (QList<qint64>{8, 1024, 4096}));
        QCOMPARE(gelu.arguments[1].name, QStringLiteral("approximate"));
        QVERIFY(gelu.arguments[1].keywordOnly);
        QCOMPARE(gelu.arguments[1].value.get<std::string>(), std::string("tanh"));
        const TraceCall norm = ExecutionTrace::call(trace, 138);
        QCOMPARE(norm.arguments[1].name, QStringLiteral("normalized_shape"));
        QVERIFY(norm.arguments[1].value == Json::array({1024}));
        QCOMPARE(norm.arguments[4].value.get<double>(), 1e-5);
        QVERIFY_THROWS_EXCEPTION(std::exception, ExecutionTrace::call(trace, 999999));
    }

    void opRowsJoinKernelsToTheirOps()
    {
        const std::vector<TraceOpRow> rows =
            TraceTarget::rows(fixtureJson(QStringLiteral("journey.torch-trace.json")));
        QVERIFY(rows.size() > 10);
        QCOMPARE(rows.front().op, QStringLiteral("aten::linear")); // the GEMMs lead
        // ncu's spelling of the gelu kernel ("(int)8", "(unsigned long)2") finds torch's row.
        const QString ncuName = QStringLiteral("void at::native::vectorized_elementwise_kernel<(int)8, "
                                               "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase "
                                               "&, at::native::GeluType)::[lambda() (instance 1)]::operator "
                                               "()() const::[lambda() (instance 4)]::operator "
                                               "()() const::[lambda(c10::BFloat16) (instance 1)], "
                                               "std::array<char *, (unsigned long)2>>(int, T2, T3)");
        QCOMPARE(TraceTarget::pick(rows, 0, ncuName).op, QStringLiteral("aten::gelu"));
        QCOMPARE(TraceTarget::pick(rows, 0, QStringLiteral("layer_norm_kernel")).op,
                 QStringLiteral("aten::layer_norm"));
        QVERIFY_THROWS_EXCEPTION(std::exception,
                                 TraceTarget::pick(rows, 0, QStringLiteral("no_such_kernel")));
        QVERIFY_THROWS_EXCEPTION(std::exception, TraceTarget::pick(rows, 999, {}));
    }

    void wrapperJoinReproducesTheCapturedRows()
    {
        // torch_trace.py's join (kernel -> CPU op -> rf_id -> trace node -> outermost aten op) is
        // plain Python over the two files: run it on the captured chrome and execution traces and
        // compare with the rows the wrapper produced on the GPU machine.
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("no python3 on PATH");
        QProcess process;
        process.start(
            python, {QStringLiteral("-c"),
                     QStringLiteral("import json, sys; sys.path.insert(0, sys.argv[1]); import torch_trace; "
                                    "rows, unjoined = torch_trace._op_rows(sys.argv[2], sys.argv[3]); "
                                    "print(json.dumps({'rows': rows, 'unjoined': unjoined}))"),
                     QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/scripts"),
                     inspectFixturePath(QStringLiteral("journey.kineto.json")),
                     inspectFixturePath(QStringLiteral("journey.et.json"))});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        const std::optional<Json> joined = parseJson(process.readAllStandardOutput());
        QVERIFY(joined);
        const Json captured = fixtureJson(QStringLiteral("journey.torch-trace.json"));
        QCOMPARE((*joined)["rows"].size(), captured["op_rows"].size());
        for (size_t i = 0; i < captured["op_rows"].size(); ++i) {
            QVERIFY((*joined)["rows"][i]["name"] == captured["op_rows"][i]["name"]);
            QVERIFY((*joined)["rows"][i]["et_node"] == captured["op_rows"][i]["et_node"]);
            QVERIFY((*joined)["rows"][i]["calls"] == captured["op_rows"][i]["calls"]);
        }
        QVERIFY((*joined)["unjoined"].empty()); // every kernel of the model found its op
    }

    void targetFromGeluRow()
    {
        const TraceTargetPlan p = planForRow(6);
        QCOMPARE(p.row.op, QStringLiteral("aten::gelu"));
        QVERIFY2(p.unsupported.isEmpty(), qPrintable(p.unsupported));
        QVERIFY(
            p.moduleSource.contains(QStringLiteral("torch.ops.aten.gelu.default(x, approximate=\"tanh\")")));
        QCOMPARE(p.request.name, QStringLiteral("gelu"));
        QCOMPARE(p.request.from, QStringLiteral("./gelu_op.py:op"));
        QCOMPARE(p.request.shape, QStringLiteral("x=8x1024x4096"));
        QVERIFY(p.request.extra.isEmpty());
        QCOMPARE(p.request.dtype, QStringLiteral("bf16"));
        TargetScaffold::plan(p.request); // a request `new` accepts
    }

    void targetFromLayerNormAndAttentionRows()
    {
        const TraceTargetPlan norm = planForRow(5);
        QVERIFY2(norm.unsupported.isEmpty(), qPrintable(norm.unsupported));
        QVERIFY(norm.moduleSource.contains(
            QStringLiteral("torch.ops.aten.layer_norm.default(x, [1024], weight, bias, 1e-05, True)")));
        QCOMPARE(norm.request.extra,
                 (QStringList{QStringLiteral("weight:1024:bf16"), QStringLiteral("bias:1024:bf16")}));
        const TraceTargetPlan sdpa = planForRow(4);
        QVERIFY2(sdpa.unsupported.isEmpty(), qPrintable(sdpa.unsupported));
        QVERIFY(sdpa.moduleSource.contains(
            QStringLiteral("scaled_dot_product_attention.default(query, key, value, None, 0.0, True, "
                           "scale=None, enable_gqa=False)")));
        QVERIFY(sdpa.moduleSource.contains(QStringLiteral("had strides [3145728,64,3072,1]")));
        QCOMPARE(sdpa.request.shape, QStringLiteral("query=8x16x1024x64"));
    }

    void factoryOpsCannotBeRebuilt()
    {
        const TraceTargetPlan randn = planForRow(9);
        QCOMPARE(randn.row.op, QStringLiteral("aten::randn"));
        QVERIFY(randn.unsupported.contains(QStringLiteral("no tensor input")));
        const TraceTargetPlan div = planForRow(17); // divides by a 0-dim double tensor
        QVERIFY(!div.unsupported.isEmpty());
    }

    void toolsFromTheInterpretersWheels()
    {
        // The test venv holds NVIDIA's cuobjdump wheel: found through the interpreter's prefix alone.
        const QString venv = QStringLiteral("/opt/hotkernel-deps/venv/bin/python");
        if (!QFileInfo::exists(venv))
            QSKIP("no /opt/hotkernel-deps/venv (packaging/setup-deps.sh makes it)");
        QTemporaryDir fakeBin;
        QVERIFY(fakeBin.isValid());
        qputenv("HOTKERNEL_PYTHON", venv.toUtf8());
        qunsetenv("HOTKERNEL_TOOL_DIRS");
        const QString wheel = CudaTools::find(QStringLiteral("cuobjdump"));
        QVERIFY2(wheel.contains(QStringLiteral("/site-packages/nvidia/")), qPrintable(wheel));
        QVERIFY(CudaTools::interpreterSitePackages().front().startsWith(
            QStringLiteral("/opt/hotkernel-deps/venv/lib/")));
        // HOTKERNEL_TOOL_DIRS comes first.
        const QString fake = fakeBin.filePath(QStringLiteral("cuobjdump"));
        QFile file(fake);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#!/bin/sh\n");
        file.close();
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("HOTKERNEL_TOOL_DIRS", fakeBin.path().toUtf8());
        QCOMPARE(CudaTools::find(QStringLiteral("cuobjdump")), fake);
        QStringList tried;
        QVERIFY(CudaTools::find(QStringLiteral("no-such-tool-xyz"), {}, &tried).isEmpty());
        QVERIFY(tried.contains(fakeBin.path() + QStringLiteral("/no-such-tool-xyz")));
        qunsetenv("HOTKERNEL_TOOL_DIRS");
        qunsetenv("HOTKERNEL_PYTHON");
    }
};

QTEST_GUILESS_MAIN(TestJourney)
#include "tst_journey.moc"
