// SPDX-License-Identifier: Apache-2.0
// What the window shows once a workspace has loaded: the verify history with this session's
// unrecorded verifies, the report the kernel table opens on and the kernel it selects first.
// Pure: workspace data (and the kernel table's sorted rows) in, choices out; GUI thread for the
// model argument only.
#pragma once

#include "workspace/workspace.h"

#include <optional>

class QAbstractItemModel;

namespace hotkernel::WorkspaceOpening {

// The workspace's records plus each session verify no record has replaced, by time.
std::vector<VerifyRecord> history(const std::vector<VerifyRecord> &records,
                                  const std::vector<VerifyRecord> &sessionVerifies);

struct Reports
{
    int after = 0;
    int before = -1; // the target's baseline report when after is a candidate's, else -1
};
// The first report with a kernel that has a disassembly; a candidate's report opens as the
// change from its target's baseline report. Nothing when no kernel has a disassembly.
std::optional<Reports> reports(const Workspace &workspace);

// The heaviest kernel of rows (KernelTableModel::KernelNameRole, sorted) that has a disassembly,
// else the heaviest; empty when rows has none.
QString firstKernel(const QAbstractItemModel *rows, const Workspace &workspace);

} // namespace hotkernel::WorkspaceOpening
