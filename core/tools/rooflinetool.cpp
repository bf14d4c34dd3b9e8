// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

#include "base/job.h"
#include "base/usererror.h"
#include "inspect/calibrationstore.h"
#include "inspect/cardtable.h"
#include "inspect/host.h"
#include "inspect/roofline.h"
#include "inspect/rooflineresult.h"
#include "session/session.h"
#include "session/toolregistry.h"
#include "tools/hostgpu.h"
#include "tools/watchedhandler.h"

#include <QCoroFuture>
#include <QtConcurrent/QtConcurrentRun>

namespace hotkernel {

namespace {

QString knownCards()
{
    return CardTable::builtin().ids().join(QStringLiteral(", "));
}

// measured_mem_gbs / measured_tflops: ceilings the caller measured (the original hotkernel's
// argument), taking the place of the calibration's. A peak alone keeps the calibration's
// bandwidth, or the spec's when there is none.
void overrideMeasured(RooflineQuery &query, const Json &arguments)
{
    const bool bandwidth = arguments.contains("measured_mem_gbs");
    const bool peak = arguments.contains("measured_tflops");
    if (!bandwidth && !peak)
        return;
    MeasuredCeilings m = query.measured.value_or(MeasuredCeilings{});
    QStringList given;
    if (bandwidth) {
        m.bandwidthBytesPerSecond = arguments["measured_mem_gbs"].get<double>() * 1e9;
        m.bandwidthMethod = QStringLiteral("given as measured_mem_gbs");
        given.append(QStringLiteral("measured_mem_gbs"));
    } else if (!m.bandwidthBytesPerSecond) {
        m.bandwidthBytesPerSecond = query.card.bandwidthBytesPerSecond();
        m.bandwidthMethod = QStringLiteral("spec (no measured bandwidth)");
    }
    if (peak) {
        m.peakFlopsPerSecond[query.dtype.toLower()] = arguments["measured_tflops"].get<double>() * 1e12;
        given.append(QStringLiteral("measured_tflops"));
    }
    m.origin = QStringLiteral("arguments (%1)").arg(given.join(QStringLiteral(", ")));
    m.measuredAt.clear();
    m.uuid.clear();
    m.card = query.card.name;
    query.measured = m;
}

QCoro::Task<ToolResult> rooflineWatched(Session &session, Json arguments, const CancelAware *watching)
{
    const CancelAware &watch = *watching;
    const QString cardArg = toQt(arguments.value("card", std::string()));
    RooflineQuery query;
    query.dtype = toQt(arguments.value("dtype", std::string("bf16")));
    if (arguments.contains("flops") != arguments.contains("bytes"))
        throw UserError(QStringLiteral("give both flops and bytes of one call (bench and verify return them "
                                       "as roofline_inputs), or neither for the card's ridge point alone."));
    query.ridgeOnly = !arguments.contains("flops");
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

    // The session host's GPU tells the default card and which calibration (by UUID) belongs to it.
    watch->setProgress(0, std::nullopt, QStringLiteral("probing the GPU"));
    Job &job = *watch.get();
    const Json gpu = co_await watch(hostGpuSnapshot(session, job));
    watch.require(!gpu.is_null()); // null: the probe was cancelled
    const bool haveGpu = gpu.value("available", false);
    const CardSpec *probedCard = haveGpu ? table.find(stringField(gpu, "name")) : nullptr;
    if (!card) {
        if (!haveGpu)
            throw UserError(QStringLiteral("no card given and no GPU %1 (%2); pass --card, one of: %3.")
                                .arg(session.host().where(), stringField(gpu, "reason"), knownCards()));
        if (!probedCard)
            throw UserError(QStringLiteral("the GPU %1, '%2', is not in the card table; pass --card with the "
                                           "closest one of: %3.")
                                .arg(session.host().where(), stringField(gpu, "name"), knownCards()));
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
    const std::optional<StoredCalibration> calibration = co_await watch(loading);
    if (calibration)
        query.measured = CalibrationStore::ceilings(*calibration);
    overrideMeasured(query, arguments);

    RooflineResult result;
    result.query = query;
    result.estimate = Roofline::estimate(query);
    result.cardOrigin = cardArg.isEmpty() ? QStringLiteral("probed") : QStringLiteral("argument");
    result.ceilings = Roofline::chartData(query, result.estimate).ceilings;

    QString text = Roofline::toText(query, result.estimate);
    if (calibration && uuid.isEmpty())
        text += QStringLiteral("(measured ceilings from another card of the same model: %1)\n")
                    .arg(calibration->origin);
    watch->setProgress(1, 1, QStringLiteral("done"));
    co_return ToolResult::typed(std::move(result), text);
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
          {"bound", {{"enum", Json::array({"memory", "compute", nullptr})}}},
          {"compute_ms", {{"type", Json::array({"number", "null"})}}},
          {"memory_ms", {{"type", Json::array({"number", "null"})}}},
          {"attainable_ms",
           {{"type", Json::array({"number", "null"})},
            {"description", "max(compute_ms, memory_ms): the floor (null for the ridge point alone)."}}},
          {"peak_from_spec",
           {{"type", "boolean"},
            {"description", "The peak is the spec's (no measured peak for this dtype)."}}}}}};
}

} // namespace

void registerRooflineTool(ToolRegistry &registry)
{
    ToolSpec spec;
    spec.name = QStringLiteral("roofline");
    spec.title = QStringLiteral("Roofline: ridge point, bound and floor");
    spec.description = QStringLiteral(
        "Roofline of a card and dtype. Alone: the ridge point. With flops and bytes of one call "
        "(bench returns them): memory- or compute-bound and the attainable time from the spec and "
        "from measured ceilings (the realistic floor); with ms, how close the call is.");
    spec.help = QStringLiteral(
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
    spec.inputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"card",
           {{"type", "string"},
            {"description", "Card-table id or name, e.g. h200-sxm or 'NVIDIA H200' (an unknown one lists "
                            "the known). Default: the GPU here."}}},
          {"dtype",
           {{"type", "string"},
            {"enum", toJson(CardTable::dtypes())},
            {"default", "bf16"},
            {"description", "Data type; picks the peak (dense)."}}},
          {"flops",
           {{"type", "number"},
            {"description",
             "FLOPs of one call (2*M*N*K for a matmul). With bytes; neither: the ridge point alone."}}},
          {"bytes", {{"type", "number"}, {"description", "Bytes one call moves to and from DRAM."}}},
          {"measured_mem_gbs",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"description", "Measured bandwidth, GB/s (e.g. a device copy)."}}},
          {"measured_tflops",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"description", "Measured peak for dtype, TFLOP/s."}}},
          {"ms",
           {{"type", "number"}, {"description", "Measured ms of one call: how close it is to the floor."}}},
          {"label", {{"type", "string"}, {"description", "Name for the chart point."}}}}},
        {"additionalProperties", false}};
    spec.outputSchema = Json{
        {"type", "object"},
        {"properties",
         {{"card", {{"type", "object"}, {"description", "id and name of the card-table row used."}}},
          {"card_origin", {{"type", "string"}, {"enum", Json::array({"probed", "argument"})}}},
          {"dtype", {{"type", "string"}}},
          {"flops", {{"type", Json::array({"number", "null"})}}},
          {"bytes", {{"type", Json::array({"number", "null"})}}},
          {"intensity_flops_per_byte", {{"type", Json::array({"number", "null"})}}},
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
    // The original hotkernel's argument names (docs/mcp.md, "Calls written for the original").
    spec.argumentAliases = {{QStringLiteral("gpu"), QStringLiteral("card"), ArgumentAlias::Kind::Rename}};
    spec.cliVerb = QStringLiteral("roofline");
    spec.resultKind = ToolSpec::ResultKind::Roofline;
    spec.readsResult<RooflineResult>();
    spec.handler = [](Session &session, Json arguments, Job &job) {
        return watched(rooflineWatched, session, std::move(arguments), job);
    };
    registry.add(std::move(spec));
}

} // namespace hotkernel
