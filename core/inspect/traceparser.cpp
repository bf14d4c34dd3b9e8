// SPDX-License-Identifier: Apache-2.0
#include "inspect/traceparser.h"

#include "base/json.h"
#include "base/jsonparse.h"
#include "base/usererror.h"

namespace hotkernel {

namespace {

QString dim3(const Json &v)
{
    if (!v.is_array() || v.size() != 3)
        return {};
    return QStringLiteral("(%1, %2, %3)")
        .arg(v[0].get<qint64>())
        .arg(v[1].get<qint64>())
        .arg(v[2].get<qint64>());
}

} // namespace

TraceSummary TraceParser::read(QByteArrayView data)
{
    TraceSummary out;
    qsizetype pos = 0;
    while (pos < data.size()) {
        qsizetype end = data.indexOf('\n', pos);
        if (end < 0)
            end = data.size();
        const QByteArrayView line = data.sliced(pos, end - pos).trimmed();
        pos = end + 1;
        if (line.isEmpty())
            continue;
        const JsonParse parsed = parseJsonLimited(line);
        const Json &j = parsed.value;
        if (!parsed.ok() || !j.is_object()) {
            ++out.badLines;
            continue;
        }
        const std::string type = j.value("type", std::string());
        if (type == "header") {
            ++out.processes;
        } else if (type == "footer") {
            out.dropped += j.value("dropped", qint64(0));
        } else if (type == "kernel") {
            KernelLaunch l;
            l.name = toQt(j.value("name", std::string()));
            l.mangledName = toQt(j.value("mangled", std::string()));
            if (j.contains("duration_ns"))
                l.durationNs = j["duration_ns"].get<double>();
            else if (j.contains("start_ns") && j.contains("end_ns"))
                l.durationNs = j["end_ns"].get<double>() - j["start_ns"].get<double>();
            l.grid = dim3(j.value("grid", Json()));
            l.block = dim3(j.value("block", Json()));
            if (j.contains("registers_per_thread"))
                l.registersPerThread = j["registers_per_thread"].get<int>();
            if (j.contains("static_shared_bytes") || j.contains("dynamic_shared_bytes"))
                l.sharedMemoryBytes = j.value("static_shared_bytes", 0) + j.value("dynamic_shared_bytes", 0);
            if (j.contains("stream"))
                l.stream = j["stream"].get<int>();
            out.launches.push_back(std::move(l));
        }
    }
    if (out.processes == 0 && out.launches.empty())
        throw UserError(QStringLiteral("This is not a hotkernel trace: no tracer header and no kernel lines. "
                                       "Make one with `hotkernel profile --tool trace -- COMMAND`."));
    return out;
}

KernelTable TraceParser::parse(QByteArrayView data, const QString &path)
{
    KernelAggregator aggregator;
    for (const KernelLaunch &launch : read(data).launches)
        aggregator.add(launch);
    return aggregator.table(QStringLiteral("trace"), path);
}

} // namespace hotkernel
