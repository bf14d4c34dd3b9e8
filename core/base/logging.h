// SPDX-License-Identifier: Apache-2.0
// Logging categories (hotkernel.<area>); every category writes to stderr, never stdout.
#pragma once

#include <QLoggingCategory>

namespace hotkernel {
Q_DECLARE_LOGGING_CATEGORY(lcSession)
Q_DECLARE_LOGGING_CATEGORY(lcProcess)
Q_DECLARE_LOGGING_CATEGORY(lcMeasure)
Q_DECLARE_LOGGING_CATEGORY(lcRecord)
Q_DECLARE_LOGGING_CATEGORY(lcInspect)
Q_DECLARE_LOGGING_CATEGORY(lcMcp)
} // namespace hotkernel
