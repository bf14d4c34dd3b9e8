// SPDX-License-Identifier: Apache-2.0
#include "inspect/gpuprobe.h"

#include "base/jobguard.h"
#include "base/logging.h"
#include "inspect/cardtable.h"
#include "inspect/nvidiasmiparser.h"
#include "process/processrunner.h"

#include <QCoroFuture>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace hotkernel {

namespace {

// The few NVML declarations we need, from NVIDIA's public NVML API reference. Declared here so
// hotkernel has no link-time dependency on the driver and runs on machines without one.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st *;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
constexpr int NVML_CLOCK_SM = 1;
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;

struct nvmlMemory_t
{
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct nvmlProcessInfo_t // the _v2/_v3 layout
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

struct nvmlProcessUtilizationSample_t
{
    unsigned int pid;
    unsigned long long timeStamp; // CPU time stamp, microseconds
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
};
constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;

struct Nvml
{
    void *lib = nullptr;
    QString loadError;
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*shutdown)() = nullptr;
    const char *(*errorString)(nvmlReturn_t) = nullptr;
    nvmlReturn_t (*getCount)(unsigned int *) = nullptr;
    nvmlReturn_t (*handleByIndex)(unsigned int, nvmlDevice_t *) = nullptr;
    nvmlReturn_t (*handleByUuid)(const char *, nvmlDevice_t *) = nullptr;
    nvmlReturn_t (*getName)(nvmlDevice_t, char *, unsigned int) = nullptr;
    nvmlReturn_t (*getUuid)(nvmlDevice_t, char *, unsigned int) = nullptr;
    nvmlReturn_t (*driverVersion)(char *, unsigned int) = nullptr;
    nvmlReturn_t (*cudaDriverVersion)(int *) = nullptr;
    nvmlReturn_t (*memoryInfo)(nvmlDevice_t, nvmlMemory_t *) = nullptr;
    nvmlReturn_t (*powerLimit)(nvmlDevice_t, unsigned int *) = nullptr;
    nvmlReturn_t (*computeCapability)(nvmlDevice_t, int *, int *) = nullptr;
    nvmlReturn_t (*maxClock)(nvmlDevice_t, int, unsigned int *) = nullptr;
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *) = nullptr;
    nvmlReturn_t (*clockReasons)(nvmlDevice_t, unsigned long long *) = nullptr;
    nvmlReturn_t (*processes)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *) = nullptr;
    nvmlReturn_t (*processName)(unsigned int, char *, unsigned int) = nullptr;
    nvmlReturn_t (*processUtilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *,
                                       unsigned long long) = nullptr;

    template <typename F> void resolve(F &fn, std::initializer_list<const char *> names)
    {
        for (const char *name : names) {
            if (void *sym = dlsym(lib, name)) {
                fn = reinterpret_cast<F>(sym);
                return;
            }
        }
    }

    QString error(nvmlReturn_t r) const
    {
        const char *s = errorString ? errorString(r) : nullptr;
        return s ? QString::fromUtf8(s) : QStringLiteral("NVML error %1").arg(r);
    }
};

// Loaded once per process and kept: NVML is reference-counted by init/shutdown, the library
// itself need not come and go.
Nvml &nvml()
{
    static Nvml n;
    static std::once_flag once;
    std::call_once(once, [] {
        const QByteArray override = qgetenv("HOTKERNEL_NVML_LIBRARY");
        const QByteArray path = override.isEmpty() ? QByteArray("libnvidia-ml.so.1") : override;
        n.lib = dlopen(path.constData(), RTLD_NOW | RTLD_LOCAL);
        if (!n.lib) {
            const char *e = dlerror();
            n.loadError =
                e ? QString::fromUtf8(e) : QStringLiteral("cannot load %1").arg(QString::fromUtf8(path));
            return;
        }
        n.resolve(n.init, {"nvmlInit_v2", "nvmlInit"});
        n.resolve(n.shutdown, {"nvmlShutdown"});
        n.resolve(n.errorString, {"nvmlErrorString"});
        n.resolve(n.getCount, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
        n.resolve(n.handleByIndex, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
        n.resolve(n.handleByUuid, {"nvmlDeviceGetHandleByUUID"});
        n.resolve(n.getName, {"nvmlDeviceGetName"});
        n.resolve(n.getUuid, {"nvmlDeviceGetUUID"});
        n.resolve(n.driverVersion, {"nvmlSystemGetDriverVersion"});
        n.resolve(n.cudaDriverVersion,
                  {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
        n.resolve(n.memoryInfo, {"nvmlDeviceGetMemoryInfo"});
        n.resolve(n.powerLimit, {"nvmlDeviceGetPowerManagementLimit"});
        n.resolve(n.computeCapability, {"nvmlDeviceGetCudaComputeCapability"});
        n.resolve(n.maxClock, {"nvmlDeviceGetMaxClockInfo"});
        n.resolve(n.clock, {"nvmlDeviceGetClockInfo"});
        n.resolve(n.temperature, {"nvmlDeviceGetTemperature"});
        n.resolve(n.clockReasons,
                  {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
        n.resolve(n.processes,
                  {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
        n.resolve(n.processName, {"nvmlSystemGetProcessName"});
        n.resolve(n.processUtilization, {"nvmlDeviceGetProcessUtilization"});
        if (!n.init || !n.handleByIndex || !n.getName)
            n.loadError = QStringLiteral("%1 lacks nvmlInit/nvmlDeviceGetHandleByIndex/nvmlDeviceGetName")
                              .arg(QString::fromUtf8(path));
    });
    return n;
}

struct NvmlOutcome
{
    Json result;    // the snapshot, when NVML answered
    QString reason; // why not, otherwise
    bool driverAbsent = false;
};

// The device hotkernel times on is CUDA device 0: the first entry of CUDA_VISIBLE_DEVICES when set
// (an index or a UUID), else NVML index 0. NVML is initialised; why says what failed.
nvmlReturn_t deviceZero(Nvml &n, nvmlDevice_t *dev, QString *why)
{
    const QString visible =
        QString::fromLocal8Bit(qgetenv("CUDA_VISIBLE_DEVICES")).section(QLatin1Char(','), 0, 0).trimmed();
    bool isIndex = false;
    const unsigned int index = visible.toUInt(&isIndex);
    nvmlReturn_t r = NVML_SUCCESS;
    if (visible.startsWith(QLatin1String("GPU-")) && n.handleByUuid)
        r = n.handleByUuid(visible.toLatin1().constData(), dev);
    else
        r = n.handleByIndex(isIndex ? index : 0, dev);
    if (r != NVML_SUCCESS)
        *why = QStringLiteral("NVML has no device for CUDA device 0 (CUDA_VISIBLE_DEVICES=%1): %2")
                   .arg(visible.isEmpty() ? QStringLiteral("unset") : visible, n.error(r));
    return r;
}

// The SM clock and the clock-event (throttle) reasons now, into j (issue 41: per run).
void addClocks(Nvml &n, nvmlDevice_t dev, Json &j)
{
    unsigned int mhz = 0;
    j["sm_clock_mhz"] = n.clock && n.clock(dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS ? Json(mhz) : Json();
    unsigned long long reasons = 0;
    j["clock_event_reasons"] = n.clockReasons && n.clockReasons(dev, &reasons) == NVML_SUCCESS
                                   ? toJson(NvidiaSmiParser::clockEventReasons(reasons))
                                   : Json();
}

// The per-run probes' NVML session on device 0: false, with j["reason"] set and NVML shut down
// again, when the library lacks `function` (named `name`), fails to start or has no device 0.
// On true the caller shuts NVML down.
template <typename F> bool openDeviceZero(Nvml &n, F function, const char *name, Json &j, nvmlDevice_t *dev)
{
    if (!n.loadError.isEmpty() || !function) {
        j["reason"] =
            toStd(n.loadError.isEmpty() ? QStringLiteral("this NVML lacks %1").arg(QLatin1String(name))
                                        : QStringLiteral("NVML could not be loaded (%1)").arg(n.loadError));
        return false;
    }
    const nvmlReturn_t r = n.init();
    if (r != NVML_SUCCESS) {
        j["reason"] = toStd(QStringLiteral("NVML failed to initialise: %1").arg(n.error(r)));
        return false;
    }
    QString why;
    if (deviceZero(n, dev, &why) != NVML_SUCCESS) {
        n.shutdown();
        j["reason"] = toStd(why);
        return false;
    }
    return true;
}

// Runs on a worker thread.
Json probeClocks()
{
    Json j{{"known", false}, {"source", "nvml"}};
    Nvml &n = nvml();
    nvmlDevice_t dev = nullptr;
    if (!openDeviceZero(n, n.clock, "nvmlDeviceGetClockInfo", j, &dev))
        return j;
    addClocks(n, dev, j);
    j["known"] = !j["sm_clock_mhz"].is_null();
    if (!j["known"].get<bool>())
        j["reason"] = "nvmlDeviceGetClockInfo failed";
    n.shutdown();
    return j;
}

// Runs on a worker thread. NVML keeps a few seconds of per-process samples; the first call asks
// how many there are since sinceUs, the second fetches them.
Json probeProcessUtilization(qint64 sinceUs, qint64 periodFromUs)
{
    Json j{{"known", false}, {"since_us", sinceUs}, {"source", "nvml"}};
    Nvml &n = nvml();
    nvmlDevice_t dev = nullptr;
    if (!openDeviceZero(n, n.processUtilization, "nvmlDeviceGetProcessUtilization", j, &dev))
        return j;
    nvmlReturn_t r = NVML_SUCCESS;
    addClocks(n, dev, j); // the run's end, for the per-run checks: one NVML session, not two
    const auto since = static_cast<unsigned long long>(sinceUs);
    // Earlier samples only tell the sample period (below); they count for nothing else.
    const auto asked =
        static_cast<unsigned long long>(periodFromUs > 0 ? std::min(periodFromUs, sinceUs) : sinceUs);
    unsigned int count = 0;
    r = n.processUtilization(dev, nullptr, &count, asked);
    std::vector<nvmlProcessUtilizationSample_t> samples;
    if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE) {
        samples.resize(count + 16); // processes may start between the two calls
        count = static_cast<unsigned int>(samples.size());
        r = n.processUtilization(dev, samples.data(), &count, asked);
        samples.resize(r == NVML_SUCCESS ? std::min<size_t>(count, samples.size()) : 0);
    }
    n.shutdown();
    // Not found: no process ran anything on the card since then.
    if (r != NVML_SUCCESS && r != NVML_ERROR_NOT_FOUND) {
        j["reason"] = toStd(QStringLiteral("nvmlDeviceGetProcessUtilization failed: %1").arg(n.error(r)));
        return j;
    }
    std::map<unsigned int, std::vector<unsigned long long>> stamps; // every sample, for the period
    std::map<unsigned int, Json> byPid;
    for (const nvmlProcessUtilizationSample_t &s : samples) {
        stamps[s.pid].push_back(s.timeStamp);
        if (s.timeStamp < since)
            continue;
        Json &p = byPid[s.pid];
        if (p.is_null())
            p = Json{{"pid", s.pid}, {"sm_percent_max", 0}, {"mem_percent_max", 0}, {"samples", 0}};
        p["sm_percent_max"] = std::max(p["sm_percent_max"].get<unsigned int>(), s.smUtil);
        p["mem_percent_max"] = std::max(p["mem_percent_max"].get<unsigned int>(), s.memUtil);
        p["samples"] = p["samples"].get<int>() + 1;
        p["last_us"] = std::max(p.value("last_us", 0ULL), static_cast<unsigned long long>(s.timeStamp));
    }
    // NVML's sample period is 1/6 s to 1 s by product. The median gap between two samples of one
    // process: robust to a late sample, and where a process skipped periods (it ran nothing then)
    // it errs long, which only makes the per-run check look at less of a run (issue 41).
    std::vector<unsigned long long> gaps;
    for (auto &[pid, times] : stamps) {
        std::sort(times.begin(), times.end());
        for (size_t k = 1; k < times.size(); ++k)
            if (times[k] > times[k - 1])
                gaps.push_back(times[k] - times[k - 1]);
    }
    std::sort(gaps.begin(), gaps.end());
    const unsigned long long period = gaps.empty() ? 0 : gaps[gaps.size() / 2];
    j["sample_period_us"] = period > 0 ? Json(period) : Json();
    Json processes = Json::array();
    for (auto &[pid, p] : byPid)
        processes.push_back(std::move(p));
    j["known"] = true;
    j["processes"] = std::move(processes);
    return j;
}

// Runs on a worker thread: NVML calls can take tens of milliseconds (more on a busy driver).
NvmlOutcome probeNvml()
{
    NvmlOutcome out;
    Nvml &n = nvml();
    if (!n.loadError.isEmpty()) {
        out.reason = QStringLiteral("NVML could not be loaded (%1)").arg(n.loadError);
        out.driverAbsent = true;
        return out;
    }
    nvmlReturn_t r = n.init();
    if (r != NVML_SUCCESS) {
        out.reason = QStringLiteral("NVML failed to initialise: %1").arg(n.error(r));
        return out;
    }
    unsigned int count = 0;
    if (n.getCount && n.getCount(&count) == NVML_SUCCESS && count == 0) {
        n.shutdown();
        out.reason = QStringLiteral("the NVIDIA driver is loaded but reports no GPU");
        return out;
    }

    nvmlDevice_t dev = nullptr;
    r = deviceZero(n, &dev, &out.reason);
    if (r != NVML_SUCCESS) {
        n.shutdown();
        return out;
    }

    char buf[256] = {};
    Json j{{"available", true}, {"source", "nvml"}};
    auto str = [&](auto fn, const char *key) {
        buf[0] = 0;
        j[key] = fn && fn(dev, buf, sizeof buf) == NVML_SUCCESS ? Json(std::string(buf)) : Json(nullptr);
    };
    str(n.getName, "name");
    str(n.getUuid, "uuid");
    buf[0] = 0;
    j["driver"] = n.driverVersion && n.driverVersion(buf, sizeof buf) == NVML_SUCCESS ? Json(std::string(buf))
                                                                                      : Json(nullptr);
    int cudaVersion = 0;
    j["cuda_driver_version"] = n.cudaDriverVersion && n.cudaDriverVersion(&cudaVersion) == NVML_SUCCESS
                                   ? Json(QStringLiteral("%1.%2")
                                              .arg(cudaVersion / 1000)
                                              .arg((cudaVersion % 1000) / 10)
                                              .toStdString())
                                   : Json(nullptr);
    nvmlMemory_t mem{};
    const bool haveMem = n.memoryInfo && n.memoryInfo(dev, &mem) == NVML_SUCCESS;
    j["memory_total_mib"] = haveMem ? Json(mem.total >> 20) : Json(nullptr);
    j["memory_used_mib"] = haveMem ? Json(mem.used >> 20) : Json(nullptr);
    unsigned int v = 0;
    j["power_limit_w"] =
        n.powerLimit && n.powerLimit(dev, &v) == NVML_SUCCESS ? Json(v / 1000.0) : Json(nullptr);
    int major = 0, minor = 0;
    j["compute_capability"] = n.computeCapability && n.computeCapability(dev, &major, &minor) == NVML_SUCCESS
                                  ? Json(QStringLiteral("%1.%2").arg(major).arg(minor).toStdString())
                                  : Json(nullptr);
    j["max_sm_clock_mhz"] =
        n.maxClock && n.maxClock(dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS ? Json(v) : Json(nullptr);
    j["sm_clock_mhz"] = n.clock && n.clock(dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS ? Json(v) : Json(nullptr);
    j["mem_clock_mhz"] =
        n.clock && n.clock(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS ? Json(v) : Json(nullptr);
    j["temperature_c"] = n.temperature && n.temperature(dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS
                             ? Json(v)
                             : Json(nullptr);
    unsigned long long reasons = 0;
    j["throttle_reasons"] = n.clockReasons && n.clockReasons(dev, &reasons) == NVML_SUCCESS
                                ? toJson(NvidiaSmiParser::clockEventReasons(reasons))
                                : Json::array();
    j["l2_bytes"] = nullptr; // NVML does not report L2; filled from the card table
    j["sm_count"] = nullptr;

    Json busy = Json::array();
    if (n.processes) {
        nvmlProcessInfo_t infos[64] = {};
        unsigned int nproc = 64;
        r = n.processes(dev, &nproc, infos);
        if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE) {
            for (unsigned int i = 0; i < std::min(nproc, 64u); ++i) {
                char name[256] = {};
                if (!n.processName || n.processName(infos[i].pid, name, sizeof name) != NVML_SUCCESS)
                    name[0] = 0;
                busy.push_back(Json{{"pid", infos[i].pid},
                                    {"process_name", std::string(name)},
                                    {"used_memory_mib", infos[i].usedGpuMemory >> 20}});
            }
        }
    }
    j["busy_processes"] = std::move(busy);
    n.shutdown();
    out.result = std::move(j);
    return out;
}

void addCardFigures(Json &snapshot)
{
    const CardSpec *card = CardTable::builtin().find(stringField(snapshot, "name"));
    if (!card)
        return;
    for (const char *key : {"l2_bytes", "sm_count"}) {
        const CardFigure *f = card->figure(QString::fromLatin1(key));
        if (f && f->value && snapshot.value(key, Json()).is_null())
            snapshot[key] = static_cast<long long>(*f->value);
    }
}

QCoro::Task<Json> probeNvidiaSmi(QString nvmlReason, Job *job)
{
    const JobGuard guard(job);
    const QByteArray override = qgetenv("HOTKERNEL_NVIDIA_SMI");
    const QString smi = override.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("nvidia-smi"))
                                           : QString::fromLocal8Bit(override);
    if (smi.isEmpty()) {
        co_return Json{
            {"available", false},
            {"reason", toStd(QStringLiteral("no NVIDIA GPU found: %1, and nvidia-smi is not on PATH. "
                                            "Run hotkernel on a machine with an NVIDIA GPU and driver.")
                                 .arg(nvmlReason))}};
    }
    QStringList fields = NvidiaSmiParser::queryFields();
    ProcessSpec spec;
    spec.program = smi;
    spec.timeout = std::chrono::seconds(20);
    spec.arguments = QStringList{QStringLiteral("--query-gpu=") + fields.join(QLatin1Char(',')),
                                 QStringLiteral("--format=csv,noheader,nounits")};
    ProcessResult result = co_await ProcessRunner::run(spec, job);
    if (!result.succeeded() && result.status == ProcessResult::Status::Finished) {
        // Older drivers call it clocks_throttle_reasons.
        fields.replaceInStrings(QStringLiteral("clocks_event_reasons.active"),
                                QStringLiteral("clocks_throttle_reasons.active"));
        spec.arguments[0] = QStringLiteral("--query-gpu=") + fields.join(QLatin1Char(','));
        result = co_await ProcessRunner::run(spec, guard.job());
    }
    if (!result.succeeded()) {
        const QString out = QString::fromUtf8(result.standardOutput + result.standardError).trimmed();
        co_return Json{
            {"available", false},
            {"reason", toStd(QStringLiteral("no usable NVIDIA GPU: %1; nvidia-smi failed: %2")
                                 .arg(nvmlReason, out.isEmpty() ? result.errorString : out.left(300)))}};
    }
    if (guard.stopped())
        co_return Json{{"available", false}, {"reason", "cancelled"}};
    Json j = GpuProbe::fromNvidiaSmi(result.standardOutput, fields, QStringLiteral("nvidia-smi"));
    if (!j.value("available", false)) {
        j["reason"] = toStd(QStringLiteral("nvidia-smi lists no GPU (%1)").arg(nvmlReason));
        co_return j;
    }

    ProcessSpec apps = spec;
    apps.arguments = QStringList{QStringLiteral("--query-compute-apps=") +
                                     NvidiaSmiParser::appFields().join(QLatin1Char(',')),
                                 QStringLiteral("--format=csv,noheader,nounits")};
    const ProcessResult appsResult = co_await ProcessRunner::run(apps, guard.job());
    Json busy = Json::array();
    if (appsResult.succeeded()) {
        for (Json &app : NvidiaSmiParser::parseApps(appsResult.standardOutput))
            busy.push_back(std::move(app));
    }
    j["busy_processes"] = std::move(busy);
    j["nvml_unavailable"] = toStd(nvmlReason);
    co_return j;
}

} // namespace

Json GpuProbe::fromNvidiaSmi(const QByteArray &csv, const QStringList &fields, const QString &source)
{
    const std::vector<Json> gpus = NvidiaSmiParser::parseGpus(csv, fields);
    if (gpus.empty())
        return Json{{"available", false}, {"reason", toStd(source + QStringLiteral(" lists no GPU"))}};
    Json j{{"available", true}, {"source", toStd(source)}};
    j.update(gpus.front());
    j["l2_bytes"] = nullptr;
    j["sm_count"] = nullptr;
    addCardFigures(j);
    return j;
}

QCoro::Task<Json> GpuProbe::processUtilization(qint64 sinceUs, Job *job)
{
    const JobGuard guard(job);
    QFuture<Json> probing = QtConcurrent::run(probeProcessUtilization, sinceUs, qint64(0));
    co_await probing;
    co_return probing.result();
}

Json GpuProbe::clocksNow()
{
    return probeClocks();
}

Json GpuProbe::processUtilizationNow(qint64 sinceUs, qint64 periodFromUs)
{
    return probeProcessUtilization(sinceUs, periodFromUs);
}

QCoro::Task<Json> GpuProbe::clocks(Job *job)
{
    const JobGuard guard(job);
    QFuture<Json> probing = QtConcurrent::run(probeClocks);
    co_await probing;
    co_return probing.result();
}

QCoro::Task<Json> GpuProbe::snapshot(Job *job)
{
    const JobGuard guard(job);
    QFuture<NvmlOutcome> probing = QtConcurrent::run(probeNvml);
    co_await probing;
    NvmlOutcome outcome = probing.result();
    Json j;
    if (!outcome.result.is_null()) {
        j = std::move(outcome.result);
    } else {
        qCDebug(lcInspect, "NVML probe failed (%s); trying nvidia-smi", qPrintable(outcome.reason));
        j = co_await probeNvidiaSmi(outcome.reason, guard.job());
    }
    if (j.value("available", false))
        addCardFigures(j);
    co_return j;
}

} // namespace hotkernel
