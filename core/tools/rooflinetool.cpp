// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/usererror.h"
#include "inspect/calibrationstore.h"
#include "inspect/cardtable.h"
#include "inspect/gpuprobe.h"
#include "inspect/roofline.h"
#include "session/job.h"
#include "session/session.h"
#include "session/toolregistry.h"

#include <QCoroFuture>
#include <QtConcurrent/QtConcurrentRun>

namespace hotkernel {

namespace {

QString knownCards()
{
    return CardTable::builtin().ids().join(QStringLiteral(", "));
}

Json ceilingsJson(const RooflineData &data)
{
    Json list = Json::array();
    for (const RooflineCeiling &c : data.ceilings)
        list.push_back(Json{{"label", toStd(c.label)},
                            {"kind", toStd(c.kind)},
                            {"origin", toStd(c.origin)},
                            {"value", c.value}});
    return list;
}

QCoro::Task<ToolResult> rooflineHandler(Session &session, Json arguments, Job &job)
{
    const QString cardArg = toQt(arguments.value("card", std::string()));
    RooflineQuery query;
    query.dtype = toQt(arguments.value("dtype", std::string("bf16")));
    query.flops = arguments.value("flops", 0.0);
    query.bytes = arguments.value("bytes", 0.0);
    if (arguments.contains("ms"))
        query.measuredMs = arguments["ms"].get<double>();
    query.label = toQt(arguments.value("label", std::string()));

    const CardTable &table = CardTable::builtin();
    const CardSpec *card = nullptr;
    if (!cardArg.isEmpty()) {
        card = table.find(cardArg);
        if (!card)
            throw UserError(
                QStringLiteral("unknown card '%1'; pass one of: %2 (names as nvidia-smi prints them, such "
                               "as 'NVIDIA H200', work too).")
                    .arg(cardArg, knownCards()));
    }

    // The GPU here tells the default card and which calibration (by UUID) belongs to it.
    const QPointer<Job> guard(&job);
    job.setProgress(0, std::nullopt, QStringLiteral("probing the GPU"));
    const Json gpu = co_await GpuProbe::snapshot(&job);
    if (!guard || guard->isCancelled())
        co_return ToolResult::cancelledResult();
    const bool haveGpu = gpu.value("available", false);
    const CardSpec *probedCard = haveGpu ? table.find(stringField(gpu, "name")) : nullptr;
    if (!card) {
        if (!haveGpu)
            throw UserError(QStringLiteral("no card given and no GPU here (%1); pass --card, one of: %2.")
                                .arg(stringField(gpu, "reason"), knownCards()));
        if (!probedCard)
            throw UserError(
                QStringLiteral("the GPU here, '%1', is not in the card table; pass --card with the "
                               "closest one of: %2.")
                    .arg(stringField(gpu, "name"), knownCards()));
        card = probedCard;
    }
    query.card = *card;

    const QString uuid = probedCard && probedCard->id == card->id ? stringField(gpu, "uuid") : QString();
    const QString cardId = card->id;
    const QString root = session.workDir().root();
    // A named future, no lambda temporary in the co_await (docs/hacking.md, "Compiler rules").
    QFuture<std::optional<StoredCalibration>> loading = QtConcurrent::run([uuid, cardId, root] {
        return uuid.isEmpty() ? CalibrationStore::loadForCard(cardId, root)
                              : CalibrationStore::load(uuid, root);
    });
    co_await loading;
    const std::optional<StoredCalibration> calibration = loading.result();
    if (!guard || guard->isCancelled())
        co_return ToolResult::cancelledResult();
    if (calibration)
        query.measured = CalibrationStore::ceilings(*calibration);

    const RooflineEstimate estimate = Roofline::estimate(query);
    const RooflineData chart = Roofline::chartData(query, estimate);
    Json structured = Roofline::toJson(query, estimate);
    structured["card_origin"] = cardArg.isEmpty() ? "probed" : "argument";
    structured["ceilings"] = ceilingsJson(chart);

    QString text = Roofline::toText(query, estimate);
    if (calibration && uuid.isEmpty())
        text += QStringLiteral("(measured ceilings from another card of the same model: %1)\n")
                    .arg(calibration->origin);
    job.setProgress(1, 1, QStringLiteral("done"));
    co_return ToolResult::success(std::move(structured), text);
}

Json ceilingsUsedSchema(const char *description)
{
    return Json{
        {"type", Json::array({"object", "null"})},
        {"description", description},
        {"properties",
         {{"peak_tflops", {{"type", "number"}}},
          {"bandwidth_gbs", {{"type", "number"}}},
          {"ridge_flops_per_byte",
           {{"type", "number"}, {"description", "peak / bandwidth: the intensity where the roofs meet."}}},
          {"bound", {{"type", "string"}, {"enum", Json::array({"memory", "compute"})}}},
          {"compute_ms", {{"type", "number"}}},
          {"memory_ms", {{"type", "number"}}},
          {"attainable_ms", {{"type", "number"}, {"description", "max(compute_ms, memory_ms): the floor."}}},
          {"peak_from_spec",
           {{"type", "boolean"},
            {"description", "The peak is the spec's (no measured peak for this dtype)."}}}}}};
}

} // namespace

void registerRooflineTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("roofline");
    spec.title = QStringLiteral("Roofline: is a kernel memory- or compute-bound, and how fast could it be");
    spec.description = QStringLiteral(
        "For a card, dtype, FLOPs and bytes of one kernel call: arithmetic intensity, the ridge point "
        "(peak / bandwidth), whether the call is memory- or compute-bound, and the attainable time "
        "(max(flops/peak, bytes/bandwidth)) from the spec sheet (dense peaks from the card table) and from "
        "this "
        "card's measured ceilings (device-copy bandwidth and cuBLASLt GEMM peak from `hotkernel calibrate`; "
        "the "
        "realistic floor). With ms, also the achieved TFLOP/s and GB/s and how close the call is to each "
        "floor "
        "(1.0 = on the roof). The card defaults to the GPU here; calibration is matched by the card's UUID, "
        "preferring "
        "results/calibration/ in the working directory over the user's data directory. Use it on the "
        "dominant kernel "
        "before optimising, to know the floor to aim at. Fails with the list of known cards or dtypes when "
        "the card is "
        "unknown (or no GPU is here and no card is given), the dtype is unknown or the card has no peak for "
        "it, bytes "
        "is not above 0, or flops is negative.");
    QStringList cardIds = CardTable::builtin().ids();
    spec.inputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"card",
           {{"type", "string"},
            {"description",
             toStd(QStringLiteral("Card-table id or name (%1; 'NVIDIA H200' as nvidia-smi prints it works "
                                  "too). Default: the GPU here.")
                       .arg(cardIds.join(QStringLiteral(", "))))}}},
          {"dtype",
           {{"type", "string"},
            {"enum", toJson(CardTable::dtypes())},
            {"default", "bf16"},
            {"description", "Data type the kernel computes in; picks the peak (dense tensor-core rate; "
                            "CUDA-core for fp32)."}}},
          {"flops",
           {{"type", "number"},
            {"description", "Floating-point operations of one call (2*M*N*K for a matmul; 0 for a copy)."}}},
          {"bytes",
           {{"type", "number"},
            {"description",
             "Bytes one call must move to and from DRAM: inputs read plus outputs written (> 0)."}}},
          {"ms",
           {{"type", "number"},
            {"description", "Measured time of one call in milliseconds, for achieved figures (optional)."}}},
          {"label",
           {{"type", "string"},
            {"description", "Name of the kernel or target, for the chart point (optional)."}}}}},
        {"required", Json::array({"flops", "bytes"})},
        {"additionalProperties", false}};
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"card", {{"type", "object"}, {"description", "id and name of the card-table row used."}}},
          {"card_origin", {{"type", "string"}, {"enum", Json::array({"probed", "argument"})}}},
          {"dtype", {{"type", "string"}}},
          {"flops", {{"type", "number"}}},
          {"bytes", {{"type", "number"}}},
          {"intensity_flops_per_byte", {{"type", "number"}}},
          {"spec", ceilingsUsedSchema("Verdict and floor from the spec sheet.")},
          {"measured",
           ceilingsUsedSchema("Verdict and floor from the measured ceilings, or null without calibration.")},
          {"calibration",
           {{"type", Json::array({"object", "null"})},
            {"description", "Where the measured ceilings came from."}}},
          {"achieved",
           {{"type", Json::array({"object", "null"})},
            {"description",
             "With ms: ms, tflops, gbs, spec_floor_fraction and measured_floor_fraction (floor / ms)."}}},
          {"ceilings",
           {{"type", "array"},
            {"description",
             "Chart ceilings: label, kind (bandwidth in bytes/s or compute in FLOP/s), origin, value."},
            {"items", {{"type", "object"}}}}}}},
        {"required",
         Json::array({"card", "card_origin", "dtype", "flops", "bytes", "intensity_flops_per_byte", "spec",
                      "measured", "calibration", "achieved", "ceilings"})}};
    spec.annotations.readOnly = true;
    spec.annotations.idempotent = true;
    spec.cliVerb = QStringLiteral("roofline");
    spec.resultKind = ToolSpec::ResultKind::Roofline;
    spec.handler = rooflineHandler;
    registry.add(std::move(spec));
}

} // namespace hotkernel
