// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/confinedwrite.h"
#include "base/job.h"
#include "base/targetname.h"
#include "base/usererror.h"
#include "inspect/host.h"
#include "inspect/inspectformat.h"
#include "inspect/leadingkernel.h"
#include "inspect/profilerunner.h"
#include "measure/measuresetup.h"
#include "remote/remotehost.h"
#include "remote/remoteprofile.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/watchedhandler.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace hotkernel {

namespace {

// A file name from the command: "rmsnorm_baseline" for python rmsnorm_baseline.py.
QString reportName(const QStringList &command)
{
    QString stem =
        command.isEmpty() ? QStringLiteral("profile") : QFileInfo(command.front()).completeBaseName();
    for (const QString &part : command) {
        if (part.endsWith(QLatin1String(".py"))) {
            stem = QFileInfo(part).completeBaseName();
            break;
        }
    }
    stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    stem.replace(QLatin1String(".."), QLatin1String("_"));
    while (stem.startsWith(QLatin1Char('.')))
        stem.remove(0, 1);
    stem = stem.left(96); // the timestamp follows; TargetName::MaxLength in all
    if (stem.isEmpty())
        stem = QStringLiteral("profile");
    return stem + QLatin1Char('-') +
           QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
}

QCoro::Task<PythonInfo> noPython()
{
    co_return PythonInfo();
}

// The interpreter a .py command runs in: the host's (Host::interpreter); none for another program.
QCoro::Task<PythonInfo> interpreterFor(Session &session, bool needed, Job *job)
{
    return needed ? session.host().interpreter(job) : noPython();
}

// Where the profile runs: this machine, or the session's host (its reports come back here).
QCoro::Task<ProfileOutcome> runProfile(Session &session, const ProfileRequest &request, Job *job)
{
    if (RemoteHost *remote = session.remote())
        return RemoteProfile::run(request, remote, job);
    return ProfileRunner::run(request, job);
}

// The command's .py files that lie here: on a remote host they (and the modules they import) are
// copied there first. Other programs run as the host has them.
QStringList localScripts(const Session &session, const QStringList &command)
{
    QStringList scripts;
    for (const QString &part : command) {
        const QString path = session.workDir().absolute(part);
        if (part.endsWith(QLatin1String(".py")) && QFileInfo(path).isFile())
            scripts << path;
    }
    return scripts;
}

QCoro::Task<ToolResult> profileWatched(Session &session, Json arguments, const CancelAware *watching)
{
    const CancelAware &watch = *watching;
    // The report's name follows the target-name rule, checked before anything runs.
    const QString givenName = stringField(arguments, "name");
    if (!givenName.isEmpty())
        TargetName::require(givenName, QStringLiteral("the report name"));
    ProfileRequest request;
    request.command = toStringList(arguments.value("command", Json::array()));
    request.tool = stringField(arguments, "tool", QStringLiteral("auto"));
    // nsys is not looked for on a remote host; the tracer is built there.
    if (request.tool == QLatin1String("auto"))
        request.tool =
            session.host().lookForTool(QStringLiteral("nsys"), QStringLiteral("HOTKERNEL_NSYS")).isEmpty()
                ? QStringLiteral("trace")
                : QStringLiteral("nsys");
    request.kernelRegex = stringField(arguments, "kernel_regex");
    request.caseSensitive = arguments.value("case_sensitive", false);
    request.launchCount = arguments.value("launch_count", 1);
    request.launchSkip = arguments.value("launch_skip", 0);
    request.set = stringField(arguments, "set");
    request.sections = toStringList(arguments.value("sections", Json::array()));
    request.clockControl = stringField(arguments, "clock_control", QStringLiteral("none"));
    request.importSource = arguments.value("import_source", false);
    request.timeoutSeconds = arguments.value("timeout_s", 600);
    request.workingDirectory = session.workDir().root();
    const int top = arguments.value("top", 10);

    // A Python script runs in the user's torch interpreter. The co_await runs either way
    // (docs/hacking.md, "Compiler rules").
    const bool pythonScript =
        !request.command.isEmpty() && request.command.front().endsWith(QLatin1String(".py"));
    // On a remote host: connect, and copy the scripts (nothing here otherwise).
    const QStringList scripts = localScripts(session, request.command);
    const bool hostReady = co_await watch(MeasureSetup::prepareHost(session, scripts, watch.get()));
    watch.require(hostReady);
    const PythonInfo python = co_await watch(interpreterFor(session, pythonScript, watch.get()));
    if (pythonScript)
        request.command.prepend(python.path);
    const QString name = givenName.isEmpty() ? reportName(request.command) : givenName;
    TargetName::require(name, QStringLiteral("the report name"));
    // Opened (created) without leaving the working directory; the runner writes only below it.
    const ConfinedDir reports = ConfinedDir::open(session.workDir().root(), QStringLiteral("profiles"));
    request.reportBase = reports.filePath(name);

    const ProfileOutcome outcome = co_await watch(runProfile(session, request, watch.get()));

    Json out = InspectFormat::kernelTable(outcome.table, top);
    out["tool"] = toStd(outcome.tool);
    out["report"] = toStd(outcome.report);
    out["summary_csv"] = toStd(outcome.summaryCsv);
    if (!outcome.sourceCsv.isEmpty())
        out["source_csv"] = toStd(outcome.sourceCsv);
    if (!outcome.sourceNote.isEmpty())
        out["source_note"] = toStd(outcome.sourceNote);
    out["commands"] = toJson(outcome.commands);
    out["exit_code"] = outcome.exitCode;
    QString text = QStringLiteral("%1 report: %2\n").arg(outcome.tool, outcome.report);
    if (!outcome.summaryCsv.isEmpty())
        text += QStringLiteral("summary CSV: %1\n").arg(outcome.summaryCsv);
    if (!outcome.sourceCsv.isEmpty())
        text += QStringLiteral("source page (hot instructions: disasm %1): %1\n").arg(outcome.sourceCsv);
    if (!outcome.sourceNote.isEmpty())
        text += QStringLiteral("note: %1\n").arg(outcome.sourceNote);
    if (outcome.exitCode != 0) {
        out["note"] =
            toStd(QStringLiteral("the profiled command exited with status %1").arg(outcome.exitCode));
        text += QStringLiteral("note: the profiled command exited with status %1:\n%2\n")
                    .arg(outcome.exitCode)
                    .arg(outcome.stderrTail);
    }
    text += InspectFormat::kernelTableText(outcome.table, top);
    co_return ToolResult::success(out, text);
}

} // namespace

void registerProfileTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("profile");
    spec.title = QStringLiteral("Profile a command with nsys, ncu or the tracer");
    spec.description =
        QStringLiteral("Runs a command under a profiler: the report path (under profiles/) and the heaviest "
                       "kernels. tool: nsys (every kernel's time), ncu (hardware counters; slow: narrow with "
                       "kernel_regex, launch_count) or trace (CUPTI, no Nsight needed).");
    spec.help = QStringLiteral("Runs a command under a profiler and returns the report path plus a "
                               "parsed per-kernel summary (heaviest first, "
                               "with share, calls, times and a memory/compute/latency hint where ncu "
                               "measured throughput). tool \"ncu\" (Nsight "
                               "Compute): per-kernel hardware metrics; slow, so target one kernel "
                               "with kernel_regex and launch_count; set/"
                               "sections pick what it collects; kernel_regex matches demangled names (as "
                               "tables show them) in any case unless case_sensitive; the details "
                               "page is exported as CSV beside the report, and with set \"full\" or "
                               "import_source the source page too (source_csv: give it to disasm for "
                               "hot instructions, no binary needed). \"nsys\" (Nsight Systems): "
                               "every kernel's time. \"trace\": hotkernel's "
                               "own CUPTI tracer (CUDA_INJECTION64_PATH) records every kernel's "
                               "device time, grid, block, registers and shared "
                               "memory in any CUDA process, with no Nsight installed. Default: nsys "
                               "when installed, else trace. A command "
                               "starting with a .py file runs in the torch interpreter. Reports go to "
                               "profiles/ in the working directory. Fails "
                               "with what to do on ERR_NVGPUCTRPERM (counter permission), a missing "
                               "ncu/nsys, or a tracer not built. In a session on a remote host ncu or "
                               "the tracer (built there once with its CMake and CUDA Toolkit) run "
                               "there, the .py scripts copied first, and the report and CSVs come back "
                               "into profiles/ here; nsys is not run there (auto means trace).");
    spec.inputSchema =
        Json{{"type", "object"},
             {"properties",
              {{"command",
                {{"type", "array"},
                 {"items", {{"type", "string"}}},
                 {"minItems", 1},
                 {"description",
                  "Program and arguments, e.g. [\"x_baseline.py\"] or [\"./app\", \"-n\", \"8\"]."}}},
               {"tool",
                {{"type", "string"},
                 {"enum", Json::array({"auto", "ncu", "nsys", "trace"})},
                 {"default", "auto"},
                 {"description", "auto: nsys when installed, else trace (trace on a remote host)."}}},
               {"kernel_regex",
                {{"type", "string"},
                 {"default", ""},
                 {"description", "ncu: only kernels whose name matches this regex."}}},
               {"launch_count",
                {{"type", "integer"},
                 {"minimum", 0},
                 {"default", 1},
                 {"description", "ncu: matching launches to profile (0 = all)."}}},
               {"launch_skip",
                {{"type", "integer"},
                 {"minimum", 0},
                 {"default", 0},
                 {"description", "ncu: matching launches to skip first."}}},
               {"set",
                {{"type", "string"},
                 {"default", ""},
                 {"description", "ncu: section set (basic, detailed, full)."}}},
               {"sections",
                {{"type", "array"},
                 {"items", {{"type", "string"}}},
                 {"default", Json::array()},
                 {"description", "ncu: extra sections (e.g. Occupancy)."}}},
               {"clock_control",
                {{"type", "string"},
                 {"enum", Json::array({"none", "base"})},
                 {"default", "none"},
                 {"description", "ncu: none keeps the card's clocks; base locks them."}}},
               {"import_source",
                {{"type", "boolean"},
                 {"default", false},
                 {"description", "ncu: embed source and SASS (with set full) for disasm."}}},
               {"name",
                {{"type", "string"},
                 {"default", ""},
                 {"description", "Report file name under profiles/, no extension."}}},
               {"top",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"default", 10},
                 {"description", "Kernels in the summary."}}},
               {"timeout_s",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"default", 600},
                 {"description", "Seconds before the command is stopped."}}}}},
             {"required", Json::array({"command"})},
             {"additionalProperties", false}};
    Json outputProperties = Json{
        {"tool", {{"type", "string"}, {"description", "the profiler that ran: ncu, nsys or trace"}}},
        {"report",
         {{"type", "string"},
          {"description", "the profiler's report (.ncu-rep, .nsys-rep or .trace.jsonl)"}}},
        {"summary_csv",
         {{"type", "string"}, {"description", "the CSV the summary was parsed from (empty for trace)"}}},
        {"source_csv",
         {{"type", "string"},
          {"description", "ncu with set full or import_source: the source page export, disasm's target for "
                          "hot instructions"}}},
        {"source_note", {{"type", "string"}, {"description", "why no source page was exported"}}},
        {"commands",
         {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "every command run"}}},
        {"exit_code", {{"type", "integer"}, {"description", "the profiled command's exit status"}}},
        {"note",
         {{"type", "string"}, {"description", "a warning, such as a non-zero exit of the profiled command"}}},
        {"source",
         {{"type", "string"}, {"description", "summary format: ncu-details, nsys-kernsum or trace"}}},
        {"path", {{"type", "string"}, {"description", "the file the summary was parsed from"}}},
        {"total_ns", {{"type", "number"}, {"description", "kernel time over all profiled kernels, ns"}}},
        {"kernel_count", {{"type", "integer"}, {"description", "distinct kernels"}}},
        {"kernels",
         {{"type", "array"},
          {"items", InspectFormat::kernelStatSchema()},
          {"description", "the heaviest kernels"}}}};
    spec.outputSchema = Json{{"type", "object"},
                             {"properties", outputProperties},
                             {"required", Json::array({"tool", "report", "kernels"})}};
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {
        {QStringLiteral("cmd"), QStringLiteral("command"), ArgumentAlias::Kind::SplitCommand},
        {QStringLiteral("ncu_kernel_regex"), QStringLiteral("kernel_regex"), ArgumentAlias::Kind::Rename},
        {QStringLiteral("ncu_launch_count"), QStringLiteral("launch_count"), ArgumentAlias::Kind::Rename},
        {QStringLiteral("timeout"), QStringLiteral("timeout_s"), ArgumentAlias::Kind::Rename},
        {QStringLiteral("out_dir"), QString(), ArgumentAlias::Kind::Ignore},
        {QStringLiteral("cwd"), QString(), ArgumentAlias::Kind::WorkDirOnly}};
    spec.cliVerb = QStringLiteral("profile");
    spec.cliPositionals = {QStringLiteral("command")};
    spec.timesGpu = true;
    spec.writesWorkspace = true;
    spec.reportFields = QStringList{QStringLiteral("report")};
    spec.readsResult<LeadingKernel>();
    spec.runsUserProgram = true;
    spec.handler = [](Session &session, Json arguments, Job &job) {
        return watched(profileWatched, session, std::move(arguments), job);
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
