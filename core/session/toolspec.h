// SPDX-License-Identifier: Apache-2.0
// A tool is one record: name, title, description, schemas, annotations and handler side by side.
// The MCP server, the CLI (verbs, flags and help) and the skill check all read the same record.
#pragma once

#include "base/json.h"
#include "base/toolresult.h"

#include <QCoroTask>
#include <QString>
#include <QStringList>

#include <any>
#include <functional>
#include <optional>
#include <vector>

namespace hotkernel {

class Job;
class Session;

struct ToolAnnotations
{
    bool readOnly = false;
    bool destructive = false;
    bool idempotent = false;
    bool openWorld = false;
};

// An argument name the original Python hotkernel used (its documented tool tables), accepted and
// renamed before validation so calls written for it keep working. Not in the input schema: an
// agent reading tools/list sees each argument once (docs/mcp.md lists the aliases).
struct ArgumentAlias
{
    enum class Kind {
        Rename,       // theirs -> ours
        SplitCommand, // theirs -> ours; a command line given as one string becomes its words
        Ignore,       // accepted and dropped: ours decides it by itself (top_kernels' report type)
        WorkDirOnly,  // a directory that must be the working directory itself (record's cwd)
    };
    QString theirs;
    QString ours; // empty unless Rename
    Kind kind = Kind::Rename;
};

struct ToolSpec
{
    using Handler = std::function<QCoro::Task<ToolResult>(Session &, Json arguments, Job &)>;

    QString name; // MCP name, ^[A-Za-z0-9._-]{1,128}$
    QString title;
    QString description; // tools/list: what it does, when to use it, what it returns (short: every
                         // agent session pays for it)
    QString help;        // `hotkernel VERB --help`: the long text; empty means description
    Json inputSchema;    // JSON Schema 2020-12, type object; every property has a description
    Json outputSchema;   // JSON Schema 2020-12, type object
    ToolAnnotations annotations;
    std::vector<ArgumentAlias> argumentAliases;

    QString cliVerb;            // e.g. "new" for new_target, "gpu-info" for gpu_info
    QStringList cliPositionals; // input properties bound to positional CLI arguments, in order

    // Jobs that time kernels on the GPU; the Session runs them one at a time per device.
    bool timesGpu = false;

    // What front-ends need to know about a result, so that none of them matches tool names or
    // peeks at a result's keys (issue 17).
    enum class ResultKind {
        Other,
        Verify,    // a VerifyRecord (record/verifyrecord.h): the window's history
        Bench,     // stats.mean_ms/std_ms: a target's latest bench
        GpuInfo,   // name: the card the status bar shows
        Roofline,  // intensity_flops_per_byte and achieved.tflops: a point on the roofline
        NewTarget, // target: a target the saved session remembers
        Record     // a verify written to results/: nothing left to record
    };
    ResultKind resultKind = ResultKind::Other;
    // The typed value of a successful result read from its structured content (an empty std::any
    // when it does not parse), for results that arrive as JSON: a verify (its JSON is written by
    // VerifyRun), a joined session's reply, a recorded call. Set with readsResult<T>(); null: the
    // tool's result has no type that front-ends read.
    std::function<std::any(const Json &structured)> readResult;
    template <class T> void readsResult()
    {
        readResult = [](const Json &structured) -> std::any {
            if (std::optional<T> v = T::fromJson(structured))
                return std::move(*v);
            return {};
        };
    }
    // The tool runs the user's own program (profile, torch_trace), which must see the caller's
    // environment: the CLI runs it itself, never in a joined session.
    bool runsUserProgram = false;
    // A successful call changes what the working directory holds (reports, records, targets,
    // listings): the window reads the directory again after it.
    bool writesWorkspace = false;
    // Output properties naming a report file the saved session keeps (profile's "report").
    QStringList reportFields;
    // One line saying what a successful result found ("0.290 ± 0.106 ms (n 7)") for feeds and
    // summaries; null: the first line of the result's text.
    std::function<QString(const Json &structured)> headline;

    Handler handler;

    // Gives a successful result its typed value when its handler did not (readResult's cases).
    void attachValue(ToolResult &result) const
    {
        if (!result.isError && !result.cancelled && !result.value.has_value() && readResult)
            result.value = readResult(result.structured);
    }
};

} // namespace hotkernel
