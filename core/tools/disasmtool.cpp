// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/boundedfile.h"
#include "base/cancelaware.h"
#include "base/job.h"
#include "base/jobguard.h"
#include "base/usererror.h"
#include "inspect/disasmrunner.h"
#include "inspect/host.h"
#include "inspect/hotinstructions.h"
#include "inspect/inspectformat.h"
#include "inspect/ncusourceparser.h"
#include "inspect/tritoncache.h"
#include "measure/measuresetup.h"
#include "session/session.h"
#include "session/toolregistry.h"

#include <QCoroFuture>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace hotkernel {

namespace {

struct SourcePage
{
    std::vector<SourceReport> reports;
    QString error;
};

SourcePage readSourcePage(const QString &path)
{
    SourcePage out;
    if (path.isEmpty())
        return out;
    const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kReportLimit);
    if (!file.ok()) {
        out.error =
            path + QLatin1Char(' ') + file.error + QStringLiteral(": give a source page that ncu exported.");
        return out;
    }
    try {
        out.reports = NcuSourceParser::parse(file.bytes);
    } catch (const UserError &e) {
        out.error = e.message();
    }
    return out;
}

// The function whose name or demangled name contains wanted; exact matches first.
size_t pickFunction(const std::vector<SassFunction> &functions, const QString &wanted, const QString &binary)
{
    if (wanted.isEmpty())
        return 0;
    for (size_t i = 0; i < functions.size(); ++i) {
        if (functions[i].name == wanted || functions[i].demangled == wanted)
            return i;
    }
    for (size_t i = 0; i < functions.size(); ++i) {
        if (functions[i].name.contains(wanted) || functions[i].demangled.contains(wanted))
            return i;
    }
    QStringList names;
    for (const SassFunction &f : functions)
        names.append(f.demangled);
    throw UserError(QStringLiteral("No function in %1 matches '%2'. Its functions: %3.")
                        .arg(binary, wanted, names.join(QStringLiteral("; "))));
}

QString functionListText(const std::vector<SassFunction> &functions, const QString &binary)
{
    QString text = QStringLiteral("%1 functions in %2:\n").arg(functions.size()).arg(binary);
    for (const SassFunction &f : functions)
        text += QStringLiteral("  %1  %2 (%3 lines)\n").arg(f.arch, f.demangled).arg(f.instructions.size());
    return text;
}

Json tritonJson(const TritonKernel &k)
{
    Json j{{"name", toStd(k.name)},
           {"folder", toStd(k.folder)},
           {"metadata_path", toStd(k.metadataPath)},
           {"modified", toStd(k.modified.toUTC().toString(Qt::ISODate))}};
    for (const char *key :
         {"num_warps", "num_stages", "num_ctas", "shared", "maxnreg", "cluster_dims", "target"}) {
        if (k.metadata.contains(key))
            j[key] = k.metadata[key];
    }
    return j;
}

// The hot-instruction part of disasm's answer, for a function with the report's figures attached.
void describeHot(const SassFunction &function, const AttachSummary &summary, const SourceReport &report,
                 const QString &reportPath, int hotCount, Json &out, QString &text)
{
    Json reasons = Json::array();
    for (const auto &[reason, n] : summary.topStallReasons)
        reasons.push_back(Json{{"reason", toStd(reason)}, {"samples", n}});
    Json hot = Json::array();
    text += QStringLiteral("hot instructions from %1 (%2 samples; %3 instructions matched, %4 unmatched):\n")
                .arg(reportPath)
                .arg(summary.totalSamples)
                .arg(summary.matched)
                .arg(summary.unmatched);
    for (const size_t i : HotInstructions::hottest(function, hotCount)) {
        const SassInstruction &in = function.instructions[i];
        hot.push_back(InspectFormat::instruction(in));
        const double share =
            summary.totalSamples ? 100.0 * double(*in.stallSamples) / double(summary.totalSamples) : 0;
        QStringList why;
        std::vector<std::pair<QString, qint64>> byReason(in.stallReasons.begin(), in.stallReasons.end());
        std::stable_sort(byReason.begin(), byReason.end(),
                         [](const auto &a, const auto &b) { return a.second > b.second; });
        for (size_t r = 0; r < byReason.size() && r < 2; ++r)
            why.append(QStringLiteral("%1 %2").arg(byReason[r].first).arg(byReason[r].second));
        text += QStringLiteral("  %1  %2%  %3%4\n")
                    .arg(*in.address, 6, 16, QLatin1Char('0'))
                    .arg(share, 5, 'f', 1)
                    .arg(in.text)
                    .arg(why.isEmpty()
                             ? QString()
                             : QStringLiteral("   [") + why.join(QStringLiteral(", ")) + QLatin1Char(']'));
    }
    QStringList reasonText;
    for (const auto &[reason, n] : summary.topStallReasons)
        reasonText.append(QStringLiteral("%1 %2").arg(reason).arg(n));
    text += QStringLiteral("top stall reasons: %1\n").arg(reasonText.join(QStringLiteral(", ")));
    out["hot"] =
        Json{{"report", toStd(reportPath)},           {"kernel", toStd(report.kernelName)},
             {"total_samples", summary.totalSamples}, {"matched", summary.matched},
             {"unmatched", summary.unmatched},        {"opcode_mismatches", summary.opcodeMismatches},
             {"top_stall_reasons", reasons},          {"instructions", hot}};
    (void)function;
}

Json functionJson(const SassFunction &function, int maxLines)
{
    Json lines = Json::array();
    for (size_t i = 0; i < function.instructions.size() && (maxLines <= 0 || int(i) < maxLines); ++i)
        lines.push_back(InspectFormat::instruction(function.instructions[i]));
    return Json{{"name", toStd(function.name)},
                {"demangled", toStd(function.demangled)},
                {"arch", toStd(function.arch)},
                {"instruction_count", function.instructions.size()},
                {"truncated", maxLines > 0 && int(function.instructions.size()) > maxLines},
                {"instructions", lines}};
}

// disasm of an ncu source-page export alone: the SASS, executed counts and stall samples all come
// from the export, so no binary (and no cuobjdump) is needed.
QCoro::Task<ToolResult> disasmSourcePage(Session &session, Json arguments, Job &job)
{
    CancelAware watch(job);
    const QString path = session.workDir().absolute(stringField(arguments, "target"));
    const QString wanted = stringField(arguments, "function");
    const bool list = arguments.value("list", false);
    const int maxLines = arguments.value("max_lines", 400);
    const int hotCount = arguments.value("hot", 10);
    job.setProgress(0, std::nullopt, QStringLiteral("reading the ncu source page"));
    const QFuture<SourcePage> reading = QtConcurrent::run(readSourcePage, path); // a named future
    SourcePage page;
    bool cancelled = false;
    try {
        page = co_await watch(reading);
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    if (!page.error.isEmpty())
        throw UserError(page.error);
    Json out = Json::object();
    out["binary"] = toStd(path);
    out["command"] = "";
    out["level"] = "sass";
    Json names = Json::array();
    QStringList nameList;
    for (const SourceReport &r : page.reports) {
        names.push_back(Json{{"name", toStd(r.kernelName)},
                             {"demangled", toStd(r.kernelName)},
                             {"arch", ""},
                             {"instructions", r.rows.size()}});
        nameList.append(r.kernelName);
    }
    out["functions"] = names;
    QString text = QStringLiteral("%1 kernels in the source page %2 (SASS from the report, no binary):\n")
                       .arg(page.reports.size())
                       .arg(path);
    for (const SourceReport &r : page.reports)
        text += QStringLiteral("  %1 launches, %2 samples  %3\n")
                    .arg(r.launches)
                    .arg(r.totalSamples)
                    .arg(r.kernelName);
    if (list)
        co_return ToolResult::success(out, text);
    const SourceReport *report = HotInstructions::find(page.reports, wanted);
    if (!report)
        throw UserError(
            QStringLiteral("No kernel in %1 contains '%2' (it has: %3). Pick one with --function.")
                .arg(path, wanted, nameList.join(QStringLiteral("; "))));
    SassFunction function = HotInstructions::fromReport(*report);
    const AttachSummary summary = HotInstructions::attach(function, *report);
    describeHot(function, summary, *report, path, hotCount, out, text);
    out["function"] = functionJson(function, maxLines);
    text += QStringLiteral("%1 (%2 lines, from the source page)\n")
                .arg(function.demangled)
                .arg(function.instructions.size());
    text += InspectFormat::functionText(function, maxLines);
    co_return ToolResult::success(out, text);
}

// Connects to the session's host and copies there a binary in the session's directory (one not here
// is the host's own). A helper of a phase: its awaits are checked by the phase's await of it.
QCoro::Task<bool> prepareBinaryHost(Session &session, QString binary, Job *job)
{
    const JobGuard guard(job);
    const QStringList noScripts; // a named argument (docs/hacking.md)
    const bool connected =
        co_await MeasureSetup::prepareHost(session, noScripts, guard.job()); // cancel: checked by the caller
    if (!connected || guard.stopped())
        co_return false;
    const QString root = QDir::cleanPath(session.workDir().root());
    QStringList files;
    if (QFileInfo(binary).isFile() && QDir::cleanPath(binary).startsWith(root + QLatin1Char('/')))
        files << QDir(root).relativeFilePath(binary);
    co_return co_await session.host().prepareFiles(files, guard.job()); // cancel: checked by the caller
}

bool isSourcePage(const Session &session, const QString &target)
{
    if (!target.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        return false;
    const BoundedFile::Read start = BoundedFile::readStart(session.workDir().absolute(target), 4096);
    if (!start.ok())
        return true; // readSourcePage says why it cannot be read
    return start.bytes.contains("\"Kernel Name\"");
}

// One disasm of a binary (or of a Triton-cache kernel), in disasmBinary's frame; its phases take a
// pointer to it. What the awaits give lives here, at the frame's scope (docs/hacking.md,
// "Compiler rules").
struct DisasmCall
{
    DisasmCall(Session &s, const Json &arguments, Job &j)
        : session(&s), job(j), target(stringField(arguments, "target")),
          wanted(stringField(arguments, "function")),
          level(stringField(arguments, "level", QStringLiteral("sass"))),
          tool(stringField(arguments, "tool", QStringLiteral("auto"))), list(arguments.value("list", false)),
          maxLines(arguments.value("max_lines", 400)), hotCount(arguments.value("hot", 10)),
          sourceReport(stringField(arguments, "source_report"))
    {}
    DisasmCall(const DisasmCall &) = delete;
    DisasmCall &operator=(const DisasmCall &) = delete;

    Session *session;
    CancelAware job; // every await of the phases goes through it
    const QString target;
    const QString wanted;
    const QString level;
    const QString tool;
    const bool list;
    const int maxLines;
    const int hotCount;
    const QString sourceReport;

    Json out = Json::object();
    QString text;
    QString binary;
    std::optional<TritonKernel> triton;
    std::vector<TritonKernel> found;
    QString command;
    std::vector<SassFunction> functions;
    std::map<QString, std::map<QString, QString>> usage;
    QString reportPath;
    SourcePage page;
};

// The Triton cache's folders to search for target "triton-cache" (UserError when it cannot be
// searched); none for any other target.
QStringList tritonSearchRoots(const DisasmCall &s)
{
    if (s.target != QLatin1String("triton-cache"))
        return {};
    if (s.wanted.isEmpty())
        throw UserError(
            QStringLiteral("Name the Triton kernel: disasm triton-cache --function NAME (a substring of "
                           "the @triton.jit function's name)."));
    const QStringList roots = s.session->host().tritonCacheRoots();
    if (roots.isEmpty())
        throw UserError(
            QStringLiteral("No Triton cache here: neither $TRITON_CACHE_DIR nor ~/.triton/cache exists. "
                           "Run the script that compiles the kernel first (or set TRITON_CACHE_DIR)."));
    return roots;
}

// The newest Triton kernel found is the one disassembled: its .cubin (or .ptx) and its metadata.
void useTritonKernel(DisasmCall &s, const QStringList &roots)
{
    if (s.found.empty())
        throw UserError(
            QStringLiteral("No kernel named like '%1' in the Triton cache (%2). Run the script once so "
                           "Triton compiles it, and check the name.")
                .arg(s.wanted, roots.join(QStringLiteral(", "))));
    s.triton = s.found.front();
    const TritonKernel &triton = *s.triton;
    s.binary = s.level == QLatin1String("ptx") && !triton.ptx.isEmpty() ? triton.ptx : triton.cubin;
    if (s.binary.isEmpty())
        throw UserError(QStringLiteral("The Triton cache folder %1 has no .cubin; ask for level \"ptx\".")
                            .arg(triton.folder));
    s.out["triton"] = tritonJson(triton);
    s.text += QStringLiteral("Triton kernel %1 (%2), num_warps %3, num_stages %4, shared %5 bytes\n")
                  .arg(triton.name, triton.folder)
                  .arg(QString::fromStdString(triton.metadata.value("num_warps", Json()).dump()),
                       QString::fromStdString(triton.metadata.value("num_stages", Json()).dump()),
                       QString::fromStdString(triton.metadata.value("shared", Json()).dump()));
}

// The file to disassemble (the target, or the Triton kernel's), ready on the session's host.
// Every co_await here and in the next phase runs unconditionally, a no-op when not needed
// (docs/hacking.md, "Compiler rules").
QCoro::Task<void> locateDisasmBinary(DisasmCall *call)
{
    DisasmCall &s = *call;
    const bool isTriton = s.target == QLatin1String("triton-cache");
    const QStringList roots = tritonSearchRoots(s);
    if (isTriton)
        s.job->setProgress(0, std::nullopt, QStringLiteral("searching the Triton cache"));
    // No roots: nothing to scan. A named future (docs/hacking.md).
    const QFuture<std::vector<TritonKernel>> search = QtConcurrent::run(TritonCache::find, roots, s.wanted);
    s.found = co_await s.job(search);
    if (isTriton)
        useTritonKernel(s, roots);
    else
        s.binary = s.session->workDir().absolute(s.target);
    // Here a missing file is said before any tool is looked for (record() is null only here).
    if (!isTriton && s.session->host().record().is_null() && !QFileInfo(s.binary).isFile())
        throw UserError(
            s.binary +
            QStringLiteral(" does not exist or is not a file: give a .cubin, .ptx, .so or executable."));
    const bool hostReady = co_await s.job(prepareBinaryHost(*s.session, s.binary, s.job.get()));
    s.job.require(hostReady);
}

// The functions in the file, named in the answer; the registers, stack, shared and local memory as
// the assembler reports them (SASS only) and the ncu source page, both awaited before any answer.
QCoro::Task<void> disassembleBinary(DisasmCall *call)
{
    DisasmCall &s = *call;
    s.job->setProgress(0, std::nullopt,
                       QStringLiteral("disassembling %1").arg(QFileInfo(s.binary).fileName()));
    Host &host = s.session->host();
    s.functions =
        co_await s.job(DisasmRunner::disassemble(host, s.binary, s.level, s.tool, s.job.get(), &s.command));
    if (s.functions.empty())
        throw UserError(
            QStringLiteral("%1 holds no %2 code (`%3` printed no function). For a host executable or .so, "
                           "check it was built with device code for this level.")
                .arg(s.binary, s.level, s.command));
    // The file is named as the host has it, and a remote host by its URL.
    s.binary = host.pathThere(s.binary);
    const Json where = host.record();
    if (where.contains("url"))
        s.out["host"] = where["url"];
    s.out["binary"] = toStd(s.binary);
    s.out["command"] = toStd(s.command);
    s.out["level"] = toStd(s.level);
    Json names = Json::array();
    for (const SassFunction &f : s.functions)
        names.push_back(Json{{"name", toStd(f.name)},
                             {"demangled", toStd(f.demangled)},
                             {"arch", toStd(f.arch)},
                             {"instructions", f.instructions.size()}});
    s.out["functions"] = names;
    // Plain if/else, no ?: around a co_await (docs/hacking.md, "Compiler rules").
    QString usagePath;
    if (s.level == QLatin1String("sass") && !s.list)
        usagePath = s.binary;
    s.usage = co_await s.job(DisasmRunner::resourceUsage(host, usagePath, s.job.get()));
    if (!s.sourceReport.isEmpty() && !s.list)
        s.reportPath = s.session->workDir().absolute(s.sourceReport);
    if (!s.reportPath.isEmpty())
        s.job->setProgress(0, std::nullopt, QStringLiteral("reading the ncu source page"));
    const QFuture<SourcePage> reading = QtConcurrent::run(readSourcePage, s.reportPath); // a named future
    s.page = co_await s.job(reading);
}

// The function's registers, stack, shared and local memory, when the assembler reported them.
void describeResources(DisasmCall &s, const SassFunction &function)
{
    const auto it = s.usage.find(function.name);
    if (it == s.usage.end())
        return;
    const auto field = [&](const char *key) {
        return it->second.count(QString::fromLatin1(key)) ? it->second.at(QString::fromLatin1(key)).toInt()
                                                          : 0;
    };
    s.out["resources"] = Json{{"registers", field("REG")},
                              {"stack_bytes", field("STACK")},
                              {"shared_bytes", field("SHARED")},
                              {"local_bytes", field("LOCAL")}};
    s.text += QStringLiteral("registers %1, stack %2 B, static shared %3 B, local %4 B per thread (spills "
                             "land in local)\n")
                  .arg(field("REG"))
                  .arg(field("STACK"))
                  .arg(field("SHARED"))
                  .arg(field("LOCAL"));
}

// The source page's figures attached to the function, and its hottest instructions named.
void describeSourceReport(DisasmCall &s, SassFunction &function)
{
    if (!s.page.error.isEmpty())
        throw UserError(s.page.error);
    const SourceReport *report = HotInstructions::pick(s.page.reports, function);
    if (!report) {
        QStringList names;
        for (const SourceReport &r : s.page.reports)
            names.append(r.kernelName);
        throw UserError(
            QStringLiteral("%1 has no kernel matching %2 (it has: %3). Pick the function with --function.")
                .arg(s.reportPath, function.demangled, names.join(QStringLiteral("; "))));
    }
    const AttachSummary summary = HotInstructions::attach(function, *report);
    describeHot(function, summary, *report, s.reportPath, s.hotCount, s.out, s.text);
    if (summary.opcodeMismatches > summary.matched / 10)
        s.text +=
            QStringLiteral("warning: %1 of %2 matched instructions differ in opcode: the report may come "
                           "from another build of this kernel\n")
                .arg(summary.opcodeMismatches)
                .arg(summary.matched);
}

// The answer: the function list, or the chosen function with what is known about it.
ToolResult disasmBinaryAnswer(DisasmCall &s)
{
    if (s.list)
        return ToolResult::success(s.out, s.text + functionListText(s.functions, s.binary));
    const QString match = s.triton ? s.triton->name : s.wanted;
    SassFunction function = s.functions[pickFunction(s.functions, match, s.binary)];
    describeResources(s, function);
    if (!s.sourceReport.isEmpty())
        describeSourceReport(s, function);
    s.out["function"] = functionJson(function, s.maxLines);
    s.text += QStringLiteral("%1 (%2, %3 lines) via %4\n")
                  .arg(function.demangled, function.arch)
                  .arg(function.instructions.size())
                  .arg(s.command);
    s.text += InspectFormat::functionText(function, s.maxLines);
    return ToolResult::success(s.out, s.text);
}

QCoro::Task<ToolResult> disasmBinary(Session &session, Json arguments, Job &job)
{
    DisasmCall call(session, arguments, job);
    DisasmCall *phaseCall = &call; // a named argument (docs/hacking.md)
    bool cancelled = false;
    try {
        co_await call.job(locateDisasmBinary(phaseCall));
        co_await call.job(disassembleBinary(phaseCall));
    } catch (const JobCancelled &) {
        cancelled = true;
    }
    if (cancelled)
        co_return ToolResult::cancelledResult();
    co_return disasmBinaryAnswer(call);
}

// A plain function, not a coroutine: it hands the call to one of two coroutines whole (g++ 12
// mishandles a coroutine that skips a co_await).
QCoro::Task<ToolResult> disasm(Session &session, Json arguments, Job &job)
{
    if (isSourcePage(session, stringField(arguments, "target")))
        return disasmSourcePage(session, std::move(arguments), job);
    return disasmBinary(session, std::move(arguments), job);
}

} // namespace

void registerDisasmTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("disasm");
    spec.title = QStringLiteral("SASS or PTX of a kernel");
    spec.description = QStringLiteral(
        "SASS or PTX of a .cubin, .ptx, .so or executable, or of the newest Triton-cache kernel "
        "named by function (target \"triton-cache\"), with registers and spills. With source_report "
        "(ncu source CSV), or that CSV as target alone: the hottest instructions and stall reasons.");
    spec.help =
        QStringLiteral("Disassembles a .cubin, .ptx, .so or executable (cuobjdump -sass/-ptx, "
                       "or nvdisasm for a cubin), or the newest "
                       "Triton-cache kernel whose name matches (target \"triton-cache\" with "
                       "function NAME; searches $TRITON_CACHE_DIR "
                       "and ~/.triton/cache) with its metadata (num_warps, num_stages, shared "
                       "memory). `list` names the functions in "
                       "the binary; `function` picks one by name substring. SASS comes with "
                       "the registers, stack, shared and local "
                       "memory (where spills go) that cuobjdump -res-usage reports. A target that "
                       "is an ncu source-page CSV (profile's source_csv) gives the SASS, executed "
                       "counts and stall samples by reason from the export alone. With "
                       "source_report (an `ncu --import R.ncu-rep "
                       "--csv --page source --print-source sass` export of a report made with "
                       "`--set full --import-source yes`), each "
                       "instruction gets its warp-stall samples and executed count, and the "
                       "hottest instructions and top stall reasons "
                       "are named. Read-only. Fails with what to install when "
                       "cuobjdump/nvdisasm are missing (PATH, $CUDA_HOME/bin, "
                       "/usr/local/cuda/bin, HOTKERNEL_CUOBJDUMP, HOTKERNEL_NVDISASM). In a session on "
                       "a remote host the disassembler runs there, on the file as the host has it "
                       "(one in the session's directory is copied there first); the host's "
                       "Triton cache is not searched: give the .cubin's path there.");
    spec.inputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"target",
           {{"type", "string"},
            {"minLength", 1},
            {"description", "A .cubin, .ptx, .so or executable, \"triton-cache\", or an ncu source-page CSV "
                            "(profile's source_csv)."}}},
          {"function",
           {{"type", "string"},
            {"default", ""},
            {"description", "Part of the function (or Triton kernel) name."}}},
          {"level",
           {{"type", "string"},
            {"enum", Json::array({"sass", "ptx"})},
            {"default", "sass"},
            {"description", "SASS or PTX."}}},
          {"tool",
           {{"type", "string"},
            {"enum", Json::array({"auto", "cuobjdump", "nvdisasm"})},
            {"default", "auto"},
            {"description", "auto: nvdisasm for a cubin's SASS, else cuobjdump."}}},
          {"list", {{"type", "boolean"}, {"default", false}, {"description", "Only list the functions."}}},
          {"max_lines",
           {{"type", "integer"}, {"default", 400}, {"description", "Most lines to return; 0 or less: all."}}},
          {"source_report",
           {{"type", "string"},
            {"default", ""},
            {"description", "ncu source-page CSV: stall samples per instruction."}}},
          {"hot",
           {{"type", "integer"},
            {"minimum", 1},
            {"default", 10},
            {"description", "Hot instructions to name."}}}}},
        {"required", Json::array({"target"})},
        {"additionalProperties", false}};
    const Json instructions{{"type", "array"},
                            {"items", InspectFormat::instructionSchema()},
                            {"description", "listing lines in order"}};
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"binary", {{"type", "string"}, {"description", "the file disassembled (as its host has it)"}}},
          {"host",
           {{"type", "string"},
            {"description", "the session's remote host the disassembler ran on; absent here"}}},
          {"command", {{"type", "string"}, {"description", "the disassembler command run"}}},
          {"level", {{"type", "string"}, {"description", "sass or ptx"}}},
          {"functions",
           {{"type", "array"},
            {"description", "every function in the binary: name, demangled, arch, instructions"}}},
          {"function",
           {{"type", "object"},
            {"description",
             "the chosen function: name, demangled, arch, instruction_count, truncated, instructions"},
            {"properties", {{"instructions", instructions}}}}},
          {"resources",
           {{"type", "object"},
            {"description",
             "registers, stack_bytes, shared_bytes, local_bytes per thread (cuobjdump -res-usage)"}}},
          {"triton",
           {{"type", "object"},
            {"description", "the Triton cache entry: name, folder, num_warps, num_stages, shared, ..."}}},
          {"hot",
           {{"type", "object"},
            {"description", "from source_report: total_samples, matched, unmatched, top_stall_reasons, "
                            "hottest instructions"}}}}},
        {"required", Json::array({"binary", "level", "functions"})}};
    spec.annotations.readOnly = true;
    spec.annotations.idempotent = true;
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {
        {QStringLiteral("kernel"), QStringLiteral("function"), ArgumentAlias::Kind::Rename}};
    spec.cliVerb = QStringLiteral("disasm");
    spec.writesWorkspace = true;
    spec.cliPositionals = {QStringLiteral("target")};
    spec.handler = disasm;
    registry.add(std::move(spec));
}

} // namespace hotkernel
