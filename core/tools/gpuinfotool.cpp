// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/job.h"
#include "inspect/calibrationstore.h"
#include "inspect/cardtable.h"
#include "inspect/cudatools.h"
#include "inspect/host.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/gpuinforesult.h"
#include "tools/hostgpu.h"
#include "tools/watchedhandler.h"

#include <QCoroFuture>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace hotkernel {

namespace {

QString valueText(const Json &j, const char *key, const QString &unit = {})
{
    const Json v = j.value(key, Json());
    if (v.is_null())
        return QStringLiteral("?");
    if (v.is_string())
        return toQt(v.get<std::string>()) + unit;
    if (v.is_number_integer())
        return QString::number(v.get<long long>()) + unit;
    if (v.is_number())
        return QString::number(v.get<double>(), 'g', 5) + unit;
    return toQt(v.dump());
}

QString cardLine(const CardSpec &card)
{
    QStringList peaks;
    for (const QString &d : CardTable::dtypes()) {
        const auto p = card.peakFlopsPerSecond(d);
        peaks.append(d + QLatin1Char(' ') + (p ? QString::number(*p / 1e12, 'g', 5) : QStringLiteral("-")));
    }
    const auto bw = card.bandwidthBytesPerSecond();
    return QStringLiteral("%1 (%2): %3 GB/s; %4 TFLOP/s (dense)")
        .arg(card.name, card.id, bw ? QString::number(*bw / 1e9, 'g', 5) : QStringLiteral("?"),
             peaks.join(QStringLiteral(", ")));
}

Json calibrationJson(const StoredCalibration &c)
{
    Json figures = Json::object();
    const Json all = c.data.value("figures", Json::object());
    for (auto it = all.begin(); it != all.end(); ++it)
        figures[it.key()] = it.value().value("value", Json());
    return Json{{"origin", toStd(c.origin)},
                {"measured_at", c.data.value("measured_at", Json())},
                {"card", c.data.value("card", Json())},
                {"uuid", c.data.value("uuid", Json())},
                {"figures", std::move(figures)}};
}

QString gpuText(const Json &g)
{
    QString t;
    t += QStringLiteral("GPU         %1 (%2) [%3]\n")
             .arg(valueText(g, "name"), valueText(g, "uuid"), valueText(g, "source"));
    t += QStringLiteral("driver      %1, CUDA %2\n")
             .arg(valueText(g, "driver"), valueText(g, "cuda_driver_version"));
    t += QStringLiteral("memory      %1 total, %2 used\n")
             .arg(valueText(g, "memory_total_mib", QStringLiteral(" MiB")),
                  valueText(g, "memory_used_mib", QStringLiteral(" MiB")));
    t += QStringLiteral("power limit %1\n").arg(valueText(g, "power_limit_w", QStringLiteral(" W")));
    const Json l2 = g.value("l2_bytes", Json());
    t += QStringLiteral("compute     %1, %2 SMs, L2 %3\n")
             .arg(valueText(g, "compute_capability"), valueText(g, "sm_count"),
                  l2.is_number()
                      ? QString::number(l2.get<double>() / (1 << 20), 'g', 4) + QStringLiteral(" MiB")
                      : QStringLiteral("?"));
    t += QStringLiteral("clocks      SM %1 (max %2), memory %3\n")
             .arg(valueText(g, "sm_clock_mhz", QStringLiteral(" MHz")),
                  valueText(g, "max_sm_clock_mhz", QStringLiteral(" MHz")),
                  valueText(g, "mem_clock_mhz", QStringLiteral(" MHz")));
    const QStringList reasons = toStringList(g.value("throttle_reasons", Json::array()));
    t += QStringLiteral("temperature %1; clock reasons: %2\n")
             .arg(valueText(g, "temperature_c", QStringLiteral(" C")),
                  reasons.isEmpty() ? QStringLiteral("none") : reasons.join(QStringLiteral(", ")));
    QStringList busy;
    for (const Json &p : g.value("busy_processes", Json::array()))
        busy.append(QStringLiteral("pid %1 %2 (%3)")
                        .arg(valueText(p, "pid"), valueText(p, "process_name"),
                             valueText(p, "used_memory_mib", QStringLiteral(" MiB"))));
    t += QStringLiteral("busy        %1\n")
             .arg(busy.isEmpty() ? QStringLiteral("no other compute processes")
                                 : busy.join(QStringLiteral("; ")));
    return t;
}

// The job is a child of the Session: after each await, a live job (the watch's check) means a live
// Session too.
QCoro::Task<ToolResult> gpuInfoWatched(Session &session, Json, const CancelAware *watching)
{
    const CancelAware &watch = *watching;
    Job &job = *watch.get();
    const Host &host = session.host();
    job.setProgress(0, std::nullopt, QStringLiteral("probing the GPU of %1").arg(host.name()));
    const Json gpu = co_await watch(hostGpuSnapshot(session, job));
    watch.require(!gpu.is_null()); // null: the probe was cancelled

    const bool available = gpu.value("available", false);
    const CardSpec *card = available ? CardTable::builtin().find(stringField(gpu, "name")) : nullptr;
    std::optional<StoredCalibration> calibration;
    if (available) {
        const QString uuid = stringField(gpu, "uuid");
        const QString root = session.workDir().root();
        // A named future, no lambda temporary in the co_await (docs/hacking.md, "Compiler rules").
        QFuture<std::optional<StoredCalibration>> loading =
            QtConcurrent::run([uuid, root] { return CalibrationStore::load(uuid, root); });
        calibration = co_await watch(loading);
    }

    GpuInfoResult result;
    result.available = available;
    result.reason = available ? QString() : stringField(gpu, "reason", QStringLiteral("unknown"));
    result.gpu = gpu;
    result.card = card ? card->toJson() : Json(nullptr);
    result.calibration = calibration ? calibrationJson(*calibration) : Json(nullptr);

    // Which NVIDIA tools profile and disasm will use, and from where: the interpreter's wheels and
    // Triton's bundle count, which users of pip-installed PyTorch often have instead of a toolkit.
    Json tools = Json::object();
    QString toolText = QStringLiteral("tools      ");
    for (const auto &[tool, variable] :
         {std::pair{"ncu", "HOTKERNEL_NCU"}, std::pair{"nsys", "HOTKERNEL_NSYS"},
          std::pair{"cuobjdump", "HOTKERNEL_CUOBJDUMP"}, std::pair{"nvdisasm", "HOTKERNEL_NVDISASM"},
          std::pair{"ptxas", ""}}) {
        const QString path = CudaTools::find(QString::fromLatin1(tool), QString::fromLatin1(variable));
        tools[tool] = path.isEmpty() ? Json(nullptr) : Json(toStd(path));
        toolText += QStringLiteral(" %1: %2;")
                        .arg(QString::fromLatin1(tool), path.isEmpty() ? QStringLiteral("not found") : path);
    }
    result.tools = tools;
    result.toolSearch = toJson(CudaTools::searchDirectories());
    result.host = host.record();

    QString text;
    if (!available) {
        text += QStringLiteral("no GPU: %1\n").arg(stringField(gpu, "reason"));
    } else {
        text += gpuText(gpu);
        text +=
            card ? QStringLiteral("card table  %1\n").arg(cardLine(*card))
                 : QStringLiteral("card table  no row for '%1' (known: %2); roofline needs --card\n")
                       .arg(stringField(gpu, "name"), CardTable::builtin().ids().join(QStringLiteral(", ")));
        if (calibration) {
            const MeasuredCeilings m = CalibrationStore::ceilings(*calibration);
            QStringList parts;
            if (m.bandwidthBytesPerSecond)
                parts.append(QStringLiteral("copy %1 GB/s").arg(*m.bandwidthBytesPerSecond / 1e9, 0, 'f', 0));
            for (const auto &[dtype, flops] : m.peakFlopsPerSecond)
                parts.append(QStringLiteral("%1 %2 TFLOP/s").arg(dtype).arg(flops / 1e12, 0, 'f', 0));
            text += QStringLiteral("calibration %1 (%2, %3)\n")
                        .arg(parts.join(QStringLiteral(", ")), m.measuredAt, m.origin);
        } else {
            text += QStringLiteral("calibration none for this card: run `hotkernel calibrate`\n");
        }
    }
    text += toolText + QLatin1Char('\n');
    text +=
        QStringLiteral("host        the card is %1; the tools listed are this machine's\n").arg(host.where());
    job.setProgress(1, 1, QStringLiteral("done"));
    co_return ToolResult::typed(std::move(result), text);
}

} // namespace

void registerGpuInfoTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("gpu_info");
    spec.title = QStringLiteral("What GPU this is and its state");
    spec.description =
        QStringLiteral("The GPU hotkernel times on: name, driver, memory, power limit, compute capability, "
                       "clocks, throttle reasons, other processes on it, its spec peaks and measured "
                       "calibration. Use it first. Without a GPU: available false and why.");
    spec.help = QStringLiteral("Reports the GPU hotkernel times on (CUDA device 0; with --host, the "
                               "host's, read with nvidia-smi there): name, UUID, "
                               "driver and CUDA driver version, memory, power "
                               "limit, compute capability, SM and memory clocks (current and max), "
                               "temperature, active clock-event (throttle) "
                               "reasons, other compute processes on the device, and L2 size and SM "
                               "count where the card table knows them. "
                               "Read through NVML (libnvidia-ml.so.1, loaded at run time), with "
                               "nvidia-smi as fallback. Also returns the "
                               "matching card-table row (spec bandwidth and dense peaks per dtype, "
                               "each with its source) and this card's "
                               "stored calibration (measured copy bandwidth and GEMM peaks from "
                               "`hotkernel calibrate`), which roofline uses. "
                               "Also says where ncu, nsys, cuobjdump, nvdisasm and ptxas were found (the "
                               "interpreter's Triton and NVIDIA wheels, /opt/nvidia, "
                               "HOTKERNEL_TOOL_DIRS, PATH, CUDA_HOME). "
                               "Use it first, to know the card and whether anything else is using it. "
                               "Without a GPU or driver it does not "
                               "fail: available is false and reason says why.");
    spec.inputSchema =
        Json{{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"available", {{"type", "boolean"}, {"description", "Whether a GPU was found and read."}}},
          {"reason",
           {{"type", Json::array({"string", "null"})},
            {"description", "Why no GPU could be read, when available is false."}}},
          {"gpu",
           {{"type", "object"},
            {"description",
             "The probe: available, source (nvml or nvidia-smi), name, uuid, driver, cuda_driver_version, "
             "memory_total_mib, memory_used_mib, power_limit_w, compute_capability, max_sm_clock_mhz, "
             "sm_clock_mhz, mem_clock_mhz, temperature_c, throttle_reasons, l2_bytes, sm_count, "
             "busy_processes; unknown figures are null."}}},
          {"card",
           {{"type", Json::array({"object", "null"})},
            {"description",
             "The card-table row for this GPU (id, name, figures with value and source), or null when "
             "the table has no row for it."}}},
          {"calibration",
           {{"type", Json::array({"object", "null"})},
            {"description",
             "This card's stored calibration (origin file, measured_at, figures: copy_gbs, "
             "copy_kernel_gbs, read_gbs, write_gbs, bf16_tflops and fp16_tflops (burst after a rest: the "
             "roofline ceiling), "
             "bf16_tflops_sustained and fp16_tflops_sustained (back to back, power-limited)), or null."}}},
          {"tools",
           {{"type", "object"},
            {"description", "ncu, nsys, cuobjdump, nvdisasm, ptxas: the path each was found at, or null"}}},
          {"host",
           {{"type", Json::array({"object", "null"})},
            {"description", "The session's remote host the card was read on (kind, url, hostname, workdir, "
                            "...), or null for this machine; tools are always this machine's."}}},
          {"tool_search",
           {{"type", "array"},
            {"description", "folders searched before PATH: HOTKERNEL_TOOL_DIRS, the interpreter's Triton and "
                            "NVIDIA wheel bin folders, /opt/nvidia Nsight installs"}}}}},
        {"required", Json::array({"available", "reason", "gpu", "card", "calibration"})}};
    spec.annotations.readOnly = true;
    spec.annotations.idempotent = true;
    spec.cliVerb = QStringLiteral("gpu-info");
    spec.resultKind = ToolSpec::ResultKind::GpuInfo;
    spec.readsResult<GpuInfoResult>();
    spec.handler = [](Session &session, Json arguments, Job &job) {
        return watched(gpuInfoWatched, session, std::move(arguments), job);
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
