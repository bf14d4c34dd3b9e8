// SPDX-License-Identifier: Apache-2.0
#include "inspect/torchtracereportparser.h"

#include "base/json.h"
#include "base/usererror.h"

#include <QRegularExpression>

namespace hotkernel {

bool TorchTraceReportParser::looksLikeOne(QByteArrayView data)
{
    // torch_trace writes "tool" first; a bounded look keeps detection cheap on large reports.
    static const QRegularExpression tool(QStringLiteral("^\\s*\\{\\s*\"tool\"\\s*:\\s*\"torch_trace\""));
    return tool.match(QString::fromUtf8(data.first(std::min<qsizetype>(data.size(), 256)))).hasMatch();
}

KernelTable TorchTraceReportParser::parse(QByteArrayView data, const QString &path)
{
    QString error;
    const std::optional<Json> document = parseJson(QByteArray(data.data(), data.size()), &error);
    const QString where = path.isEmpty() ? QStringLiteral("the torch_trace report") : path;
    if (!document || !document->is_object())
        throw UserError(
            QStringLiteral("%1 is not a torch_trace report (%2): run torch_trace again to write it.")
                .arg(where, error.isEmpty() ? QStringLiteral("not a JSON object") : error));
    const Json kernels = document->value("kernels", Json());
    if (!kernels.is_array())
        throw UserError(QStringLiteral("%1 has no kernel list: it was written by another tool, or by a "
                                       "torch_trace that failed; run torch_trace again.")
                            .arg(where));
    KernelTable table;
    table.source = QStringLiteral("torch-trace");
    table.path = path;
    // The report keeps the heaviest kernels; the share is of all kernels' device time.
    table.totalNs = document->value("kernel_total_us", 0.0) * 1000.0;
    for (const Json &k : kernels) {
        if (!k.is_object() || !k.contains("name") || !k["name"].is_string())
            continue;
        KernelStat s;
        s.name = toQt(k["name"].get<std::string>());
        s.calls = k.value("calls", 0);
        s.totalNs = k.value("total_us", 0.0) * 1000.0;
        s.avgNs = k.value("avg_us", 0.0) * 1000.0;
        s.minNs = k.value("min_us", 0.0) * 1000.0;
        s.maxNs = k.value("max_us", 0.0) * 1000.0;
        s.share = k.value("share", 0.0);
        table.kernels.push_back(std::move(s));
    }
    return table;
}

} // namespace hotkernel
