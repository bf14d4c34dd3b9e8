// SPDX-License-Identifier: Apache-2.0
#include "kernelrowrequests.h"

#include "inspect/ncukernelfilter.h"
#include "kerneltablemodel.h"

#include <QDir>

namespace hotkernel {

Json KernelRowRequests::profile(const QString &kernel, const QString &target)
{
    // The kernel's own words, not its base name: "vectorized_elementwise_kernel" alone is every
    // elementwise op, and launch_count 1 would profile whichever came first.
    Json wanted{{"tool", "ncu"},
                {"kernel_regex", toStd(NcuKernelFilter::regexFor(kernel))},
                {"set", "full"},
                {"launch_count", 1}};
    if (!target.isEmpty())
        wanted["command"] = Json::array({"python3", toStd(target + QStringLiteral("_candidate.py"))});
    return wanted;
}

Json KernelRowRequests::disasm(const QString &kernel)
{
    return Json{{"function", toStd(KernelTableModel::shortName(kernel).section(QLatin1Char('<'), 0, 0))}};
}

Json KernelRowRequests::torchTrace(const QString &target)
{
    return target.isEmpty() ? Json::object()
                            : Json{{"script", toStd(target + QStringLiteral("_baseline.py"))}};
}

Json KernelRowRequests::newTarget(const QString &kernel, const QString &tablePath, const QString &root)
{
    // new_target rebuilds the aten op that launched the kernel from a torch_trace report: the
    // table's own report when it is one, else the newest report under profiles/.
    Json wanted{{"target", toStd(targetName(kernel))}};
    const QString report =
        tablePath.endsWith(QLatin1String(".torch-trace.json")) ? tablePath : newestTraceReport(root);
    if (!report.isEmpty()) {
        wanted["from_trace"] = toStd(QDir(root).relativeFilePath(report));
        wanted["kernel"] = toStd(kernel);
    }
    return wanted;
}

QString KernelRowRequests::targetName(const QString &kernel)
{
    QString name = KernelTableModel::shortName(kernel).section(QLatin1Char('<'), 0, 0);
    for (QChar &c : name) {
        if (!c.isLetterOrNumber() && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    }
    while (name.startsWith(QLatin1Char('_')))
        name.remove(0, 1);
    return name.left(48).toLower();
}

QString KernelRowRequests::newestTraceReport(const QString &root)
{
    // Report names carry a UTC stamp (NAME-yyyyMMdd-HHmmss.torch-trace.json), so the newest sorts
    // last among the same script's; across scripts the file time decides.
    const QFileInfoList reports =
        QDir(root + QStringLiteral("/profiles"))
            .entryInfoList({QStringLiteral("*.torch-trace.json")}, QDir::Files, QDir::Time);
    return reports.isEmpty() ? QString() : reports.first().absoluteFilePath();
}

} // namespace hotkernel
