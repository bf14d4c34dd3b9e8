// SPDX-License-Identifier: Apache-2.0
// A stand-in `verify` for window tests: no GPU, no interpreter. It reports progress over a few
// pairs, honours cancellation, and returns a result shaped like docs/verify-result.md. The figures
// are test values, not measurements.
#pragma once

#include "../sessionoptions.h" // relative: bench/ includes this header too
#include "base/job.h"
#include "record/verifyrecord.h"
#include "session/session.h"
#include "session/toolregistry.h"

#include <QCoroTimer>

namespace hotkernel::test {

inline QCoro::Task<ToolResult> fakeVerify(Session &, Json arguments, Job &job)
{
    const int pairs = arguments.value("n", 3);
    const int pauseMs = arguments.value("pause_ms", 60);
    for (int i = 0; i < pairs; ++i) {
        job.setProgress(i, pairs, QStringLiteral("pair %1 of %2").arg(i + 1).arg(pairs));
        co_await QCoro::sleepFor(std::chrono::milliseconds(pauseMs));
        if (job.isCancelled())
            co_return ToolResult::cancelledResult();
    }
    job.setProgress(pairs, pairs, QStringLiteral("done"));
    Json result{{"tool", "verify"},
                {"baseline", arguments.value("baseline", std::string("t_baseline.py"))},
                {"candidate", arguments.value("candidate", std::string("t_candidate.py"))},
                {"target", "t"},
                {"verdict", "faster"},
                {"reason", "test double"},
                {"speedup", 2.0},
                {"n", pairs},
                {"baseline_stats", {{"n", pairs}, {"mean_ms", 2.0}, {"std_ms", 0.1}}},
                {"candidate_stats", {{"n", pairs}, {"mean_ms", 1.0}, {"std_ms", 0.05}}},
                {"contract", {{"flops", 1e9}, {"bytes", 1e8}, {"device_name", "test device"}}},
                {"started_at", "2026-12-02T10:00:00Z"},
                {"finished_at", "2026-12-02T10:00:01Z"}};
    co_return ToolResult::success(result, QStringLiteral("faster: 2.000x"));
}

// The built-in tools with verify replaced by fakeVerify (arguments: n, pause_ms, baseline, candidate).
inline void installFakeVerify(Session &session)
{
    ToolRegistry registry;
    for (const ToolSpec &spec : session.tools().all()) {
        if (spec.name != QLatin1String("verify"))
            registry.add(spec);
    }
    ToolSpec verify;
    verify.name = QStringLiteral("verify");
    verify.title = QStringLiteral("verify (test double)");
    verify.description = QStringLiteral("Test double of verify.");
    verify.inputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"baseline", {{"type", "string"}, {"description", "baseline script"}}},
          {"candidate", {{"type", "string"}, {"description", "candidate script"}}},
          {"n", {{"type", "integer"}, {"minimum", 1}, {"default", 3}, {"description", "pairs"}}},
          {"warmup", {{"type", "integer"}, {"minimum", 0}, {"default", 1}, {"description", "warm-up pairs"}}},
          {"pause_ms", {{"type", "integer"}, {"default", 60}, {"description", "pause per pair"}}}}}};
    verify.outputSchema = Json{{"type", "object"}};
    verify.cliVerb = QStringLiteral("verify");
    verify.resultKind = ToolSpec::ResultKind::Verify;
    verify.readsResult<VerifyRecord>();
    verify.handler = fakeVerify;
    registry.add(std::move(verify));
    session.mutableTools() = std::move(registry);
}

} // namespace hotkernel::test
