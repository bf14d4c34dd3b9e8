// SPDX-License-Identifier: Apache-2.0
#include "base/logging.h"

namespace hotkernel {
Q_LOGGING_CATEGORY(lcSession, "hotkernel.session", QtInfoMsg)
Q_LOGGING_CATEGORY(lcProcess, "hotkernel.process", QtInfoMsg)
Q_LOGGING_CATEGORY(lcMeasure, "hotkernel.measure", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRecord, "hotkernel.record", QtInfoMsg)
Q_LOGGING_CATEGORY(lcInspect, "hotkernel.inspect", QtInfoMsg)
Q_LOGGING_CATEGORY(lcMcp, "hotkernel.mcp", QtInfoMsg)
} // namespace hotkernel
