// SPDX-License-Identifier: Apache-2.0
#include "inspect/rooflineresult.h"

namespace hotkernel {

namespace {

// The JSON says TFLOP/s and GB/s, the values FLOP/s and bytes/s.
constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

Json optionalNumber(const std::optional<double> &v)
{
    return v ? Json(*v) : Json(nullptr);
}

std::optional<double> number(const Json &object, const char *key)
{
    if (!object.is_object() || !object.contains(key) || !object[key].is_number())
        return std::nullopt;
    return object[key].get<double>();
}

Json ceilingsJson(const RooflineCeilingsUsed &c, bool ridgeOnly)
{
    const auto kernel = [ridgeOnly](Json value) { return ridgeOnly ? Json(nullptr) : value; };
    return Json{{"peak_tflops", c.peakFlopsPerSecond / kTera},
                {"bandwidth_gbs", c.bandwidthBytesPerSecond / kGiga},
                {"ridge_flops_per_byte", c.ridge},
                {"bound", kernel(toStd(c.bound))},
                {"compute_ms", kernel(c.computeMs)},
                {"memory_ms", kernel(c.memoryMs)},
                {"attainable_ms", kernel(c.attainableMs)},
                {"peak_from_spec", c.peakFromSpec}};
}

RooflineCeilingsUsed ceilingsFromJson(const Json &j)
{
    RooflineCeilingsUsed c;
    c.peakFlopsPerSecond = number(j, "peak_tflops").value_or(0) * kTera;
    c.bandwidthBytesPerSecond = number(j, "bandwidth_gbs").value_or(0) * kGiga;
    c.ridge = number(j, "ridge_flops_per_byte").value_or(0);
    c.bound = stringField(j, "bound");
    c.computeMs = number(j, "compute_ms").value_or(0);
    c.memoryMs = number(j, "memory_ms").value_or(0);
    c.attainableMs = number(j, "attainable_ms").value_or(0);
    c.peakFromSpec = j.value("peak_from_spec", false);
    return c;
}

} // namespace

std::optional<double> RooflineResult::intensity() const
{
    return query.ridgeOnly ? std::nullopt : std::optional(estimate.intensity);
}

std::optional<double> RooflineResult::achievedFlopsPerSecond() const
{
    return query.measuredMs ? estimate.achievedFlopsPerSecond : std::nullopt;
}

Json RooflineResult::toJson() const
{
    const RooflineQuery &q = query;
    const RooflineEstimate &e = estimate;
    Json j{{"card", Json{{"id", toStd(q.card.id)}, {"name", toStd(q.card.name)}}},
           {"dtype", toStd(q.dtype.toLower())},
           {"flops", q.ridgeOnly ? Json(nullptr) : Json(q.flops)},
           {"bytes", q.ridgeOnly ? Json(nullptr) : Json(q.bytes)},
           {"intensity_flops_per_byte", q.ridgeOnly ? Json(nullptr) : Json(e.intensity)},
           {"spec", ceilingsJson(e.spec, q.ridgeOnly)},
           {"measured", e.measured ? ceilingsJson(*e.measured, q.ridgeOnly) : Json(nullptr)}};
    if (q.measured && e.measured)
        j["calibration"] = Json{{"origin", toStd(q.measured->origin)},
                                {"measured_at", toStd(q.measured->measuredAt)},
                                {"uuid", toStd(q.measured->uuid)},
                                {"card", toStd(q.measured->card)},
                                {"bandwidth_method", toStd(q.measured->bandwidthMethod)}};
    else
        j["calibration"] = nullptr;
    if (q.measuredMs)
        j["achieved"] = Json{{"ms", *q.measuredMs},
                             {"tflops", *e.achievedFlopsPerSecond / kTera},
                             {"gbs", *e.achievedBytesPerSecond / kGiga},
                             {"spec_floor_fraction", optionalNumber(e.specFloorFraction)},
                             {"measured_floor_fraction", optionalNumber(e.measuredFloorFraction)}};
    else
        j["achieved"] = nullptr;
    j["card_origin"] = toStd(cardOrigin);
    Json list = Json::array();
    for (const RooflineCeiling &c : ceilings)
        list.push_back(Json{{"label", toStd(c.label)},
                            {"kind", toStd(c.kind)},
                            {"origin", toStd(c.origin)},
                            {"value", c.value}});
    j["ceilings"] = std::move(list);
    return j;
}

std::optional<RooflineResult> RooflineResult::fromJson(const Json &json)
{
    if (!json.is_object() || !json.contains("card") || !json["card"].is_object() || !json.contains("spec") ||
        !json["spec"].is_object())
        return std::nullopt;
    RooflineResult r;
    RooflineQuery &q = r.query;
    RooflineEstimate &e = r.estimate;
    q.card.id = stringField(json["card"], "id");
    q.card.name = stringField(json["card"], "name");
    q.dtype = stringField(json, "dtype");
    q.ridgeOnly = !number(json, "flops");
    q.flops = number(json, "flops").value_or(0);
    q.bytes = number(json, "bytes").value_or(0);
    e.intensity = number(json, "intensity_flops_per_byte").value_or(0);
    e.spec = ceilingsFromJson(json["spec"]);
    if (json.contains("measured") && json["measured"].is_object())
        e.measured = ceilingsFromJson(json["measured"]);
    if (json.contains("calibration") && json["calibration"].is_object()) {
        const Json &c = json["calibration"];
        MeasuredCeilings m;
        m.origin = stringField(c, "origin");
        m.measuredAt = stringField(c, "measured_at");
        m.uuid = stringField(c, "uuid");
        m.card = stringField(c, "card");
        m.bandwidthMethod = stringField(c, "bandwidth_method");
        q.measured = m;
    }
    if (json.contains("achieved") && json["achieved"].is_object()) {
        const Json &a = json["achieved"];
        q.measuredMs = number(a, "ms");
        e.achievedFlopsPerSecond = number(a, "tflops").value_or(0) * kTera;
        e.achievedBytesPerSecond = number(a, "gbs").value_or(0) * kGiga;
        e.specFloorFraction = number(a, "spec_floor_fraction");
        e.measuredFloorFraction = number(a, "measured_floor_fraction");
    }
    r.cardOrigin = stringField(json, "card_origin");
    for (const Json &c : json.value("ceilings", Json::array())) {
        if (c.is_object())
            r.ceilings.push_back(RooflineCeiling{stringField(c, "label"), stringField(c, "kind"),
                                                 stringField(c, "origin"), number(c, "value").value_or(0)});
    }
    return r;
}

} // namespace hotkernel
