// SPDX-License-Identifier: Apache-2.0
// Runs one tool call through a real Session and waits (turning the test's event loop) for its result.
#pragma once

#include "base/job.h"
#include "session/session.h"
#include "testlimits.h"

#include <QTest>

#include <memory>

// Json values compared with QVERIFY: QCOMPARE's overload set does not take nlohmann::json.
#define HK_JSON_COMPARE(actual, expected)                                                                    \
    QVERIFY2((actual) == (expected),                                                                         \
             qPrintable(QStringLiteral(#actual " is ") + QString::fromStdString((actual).dump())))

inline hotkernel::SessionOptions inspectSessionOptions(const QString &workDir)
{
    hotkernel::SessionOptions options;
    options.workDir = workDir;
    return options;
}

inline hotkernel::ToolResult callInspectTool(hotkernel::Session &session, const QString &tool,
                                             hotkernel::Json arguments,
                                             int timeoutMs = hotkernel::test::kEventLimitMs)
{
    hotkernel::Job *job = session.start(tool, std::move(arguments), QStringLiteral("test"));
    auto result = std::make_shared<std::optional<hotkernel::ToolResult>>();
    QObject::connect(job, &hotkernel::Job::finished, job,
                     [result](const hotkernel::ToolResult &r) { *result = r; });
    if (!QTest::qWaitFor([result] { return result->has_value(); }, timeoutMs))
        qFatal("%s did not finish within %d ms", qPrintable(tool), timeoutMs);
    return **result;
}
