// SPDX-License-Identifier: Apache-2.0
#include "workspaceopening.h"

#include "kerneltablemodel.h"

#include <QAbstractItemModel>
#include <QFileInfo>

#include <algorithm>

namespace hotkernel::WorkspaceOpening {

std::vector<VerifyRecord> history(const std::vector<VerifyRecord> &records,
                                  const std::vector<VerifyRecord> &sessionVerifies)
{
    std::vector<VerifyRecord> all = records;
    // Verifies nobody recorded yet stay visible (a record of the same verify replaces it).
    for (const VerifyRecord &v : sessionVerifies) {
        const bool recorded = std::any_of(all.begin(), all.end(), [&v](const VerifyRecord &r) {
            return r.verifiedAt == v.verifiedAt && !v.verifiedAt.isEmpty();
        });
        if (!recorded)
            all.push_back(v);
    }
    std::stable_sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.time < b.time; });
    return all;
}

namespace {

// The baseline report of the candidate's report named file, else -1.
int baselineReportOf(const Workspace &workspace, const QString &file)
{
    const qsizetype at = file.indexOf(QLatin1String("_candidate"));
    for (size_t b = 0; at > 0 && b < workspace.kernelTables.size(); ++b) {
        if (QFileInfo(workspace.kernelTables[b].path)
                .fileName()
                .startsWith(file.left(at) + QStringLiteral("_baseline")))
            return int(b);
    }
    return -1;
}

} // namespace

std::optional<Reports> reports(const Workspace &workspace)
{
    for (size_t t = 0; t < workspace.kernelTables.size(); ++t) {
        const auto &kernels = workspace.kernelTables[t].kernels;
        if (std::any_of(kernels.begin(), kernels.end(),
                        [&workspace](const KernelStat &k) { return workspace.functionFor(k.name); })) {
            // A candidate's report opens as the change it is: its target's baseline -> it.
            const QString file = QFileInfo(workspace.kernelTables[t].path).fileName();
            return Reports{int(t), baselineReportOf(workspace, file)};
        }
    }
    return std::nullopt;
}

QString firstKernel(const QAbstractItemModel *rows, const Workspace &workspace)
{
    if (rows->rowCount() == 0)
        return {};
    for (int r = 0; r < rows->rowCount(); ++r) {
        const QString name = rows->index(r, 0).data(KernelTableModel::KernelNameRole).toString();
        if (workspace.functionFor(name))
            return name;
    }
    return rows->index(0, 0).data(KernelTableModel::KernelNameRole).toString();
}

} // namespace hotkernel::WorkspaceOpening
