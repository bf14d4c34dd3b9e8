// SPDX-License-Identifier: Apache-2.0
// hotkernel's CUPTI kernel tracer: a shared library the CUDA driver loads into any CUDA process
// when CUDA_INJECTION64_PATH names it. Records every kernel through the CUPTI activity API and
// appends JSON lines to the file named by HOTKERNEL_TRACE_FILE (default hotkernel-trace.jsonl):
//   {"type":"header","tool":"hotkernel-tracer","format":1,"pid":..,"cupti_api_version":..,"clock":"cupti_ns"}
//   {"type":"kernel","name":..,"mangled":..,"start_ns":..,"end_ns":..,"duration_ns":..,
//    "grid":[x,y,z],"block":[x,y,z],"registers_per_thread":..,"static_shared_bytes":..,
//    "dynamic_shared_bytes":..,"local_bytes_per_thread":..,"device":..,"context":..,"stream":..,
//    "correlation_id":..,"graph_id":..,"pid":..}
//   {"type":"footer","pid":..,"kernels":..,"dropped":..}
// Format 2 (issue 41) ends every record with "seq": this process's record number, 0 for the header
// and one more for each record after it, so that a record removed, repeated or added by someone
// else shows as a gap or a repeat; the trace descriptor carries them in that order.
// Several processes (a Python script and its workers) may share one file: it is opened with
// O_APPEND and each line goes out in one write(), so lines never interleave. Plain C++, no Qt.
//
// HOTKERNEL_TRACE_FD=N:INODE (issue 41: a confined verify worker may not write any file outside
// its scratch) makes it write to descriptor N instead, the sending end of a socket pair (of that
// inode) whose other end only hotkernel holds; the file is then not opened. A socket and not a
// pipe, since a pipe's write end can be opened again for reading through /proc/self/fd/N. The
// descriptor is taken once, marked close-on-exec and the variable cleared; a process this one
// starts, whose descriptor N is not that socket, traces nothing rather than write into whatever N
// is there.
//
// Witness mode (HOTKERNEL_TRACE_WITNESS=1, issue 19): nothing is recorded until the measured
// program calls hotkernel_tracer_witness(1), and recording stops at hotkernel_tracer_witness(0),
// so the timed replays run untraced and only the untimed witness replays pay for tracing:
//   {"type":"witness","phase":"begin","pid":..}  kernel lines
//   {"type":"witness","phase":"end","pid":..,"kernels":..,"dropped":..,"begin_seq":..}
#include <cupti.h>

#include <cxxabi.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif

constexpr size_t kBufferBytes = 8u << 20;
constexpr size_t kBufferAlign = 8;

std::mutex g_writeMutex;
int g_fd = -1;
std::atomic<uint64_t> g_kernels{0};
std::atomic<uint64_t> g_dropped{0};
std::atomic<bool> g_finished{false};
std::atomic<bool> g_witnessMode{false};
// This process's record number (issue 41), given under the write lock so that the socket's order
// is the numbers' order. The core reads a gap as a lost or stolen record and a repeat as a forged one.
uint64_t g_seq = 0;

// Writes one record: `open` is its JSON object without the closing brace; the sequence number goes
// last. Returns the number given (a record that could not be written still uses one, so the core
// sees the gap).
uint64_t writeRecord(std::string open)
{
    std::lock_guard<std::mutex> lock(g_writeMutex);
    const uint64_t seq = g_seq++;
    open += ",\"seq\":";
    open += std::to_string(seq);
    open += "}\n";
    if (g_fd < 0)
        return seq;
    const char *p = open.data();
    size_t left = open.size();
    while (left > 0) {
        const ssize_t n = ::write(g_fd, p, left);
        if (n <= 0)
            return seq;
        p += n;
        left -= static_cast<size_t>(n);
    }
    return seq;
}

void appendEscaped(std::string &out, const char *s)
{
    out += '"';
    for (const unsigned char *c = reinterpret_cast<const unsigned char *>(s); *c; ++c) {
        switch (*c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (*c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", *c);
                out += buf;
            } else {
                out += static_cast<char>(*c);
            }
        }
    }
    out += '"';
}

std::string demangle(const char *mangled)
{
    if (!mangled)
        return "<unknown>";
    int status = 0;
    char *d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status == 0 && d) {
        std::string result(d);
        std::free(d);
        return result;
    }
    std::free(d);
    return mangled; // C names (extern "C" kernels, Triton) are not mangled
}

void appendField(std::string &out, const char *key, long long value)
{
    out += ",\"";
    out += key;
    out += "\":";
    out += std::to_string(value);
}

void writeKernel(const KernelRecord &k)
{
    const std::string name = demangle(k.name);
    std::string line;
    line.reserve(256 + name.size() * 2);
    line += "{\"type\":\"kernel\",\"name\":";
    appendEscaped(line, name.c_str());
    line += ",\"mangled\":";
    appendEscaped(line, k.name ? k.name : "");
    appendField(line, "start_ns", static_cast<long long>(k.start));
    appendField(line, "end_ns", static_cast<long long>(k.end));
    appendField(line, "duration_ns", static_cast<long long>(k.end - k.start));
    line += ",\"grid\":[" + std::to_string(k.gridX) + "," + std::to_string(k.gridY) + "," +
            std::to_string(k.gridZ) + "]";
    line += ",\"block\":[" + std::to_string(k.blockX) + "," + std::to_string(k.blockY) + "," +
            std::to_string(k.blockZ) + "]";
    appendField(line, "registers_per_thread", k.registersPerThread);
    appendField(line, "static_shared_bytes", k.staticSharedMemory);
    appendField(line, "dynamic_shared_bytes", k.dynamicSharedMemory);
    appendField(line, "local_bytes_per_thread", k.localMemoryPerThread);
    appendField(line, "device", k.deviceId);
    appendField(line, "context", k.contextId);
    appendField(line, "stream", k.streamId);
    appendField(line, "correlation_id", k.correlationId);
    appendField(line, "graph_id", k.graphId);
    appendField(line, "pid", static_cast<long long>(::getpid()));
    writeRecord(std::move(line));
    g_kernels.fetch_add(1, std::memory_order_relaxed);
}

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxNumRecords)
{
    void *p = nullptr;
    if (posix_memalign(&p, kBufferAlign, kBufferBytes) != 0)
        p = nullptr;
    *buffer = static_cast<uint8_t *>(p);
    *size = p ? kBufferBytes : 0;
    *maxNumRecords = 0; // as many as fit
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t *buffer, size_t /*size*/,
                              size_t validSize)
{
    CUpti_Activity *record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
            writeKernel(*reinterpret_cast<const KernelRecord *>(record));
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS)
        g_dropped.fetch_add(dropped, std::memory_order_relaxed);
    std::free(buffer);
}

void reportError(const char *what, CUptiResult result)
{
    const char *text = nullptr;
    cuptiGetResultString(result, &text);
    std::fprintf(stderr, "hotkernel-tracer: %s failed: %s\n", what, text ? text : "unknown CUPTI error");
}

void finish()
{
    if (g_finished.exchange(true))
        return;
    // Forced flush: also hands over buffers of kernels that have not been collected yet.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::string line = "{\"type\":\"footer\"";
    appendField(line, "pid", static_cast<long long>(::getpid()));
    appendField(line, "kernels", static_cast<long long>(g_kernels.load()));
    appendField(line, "dropped", static_cast<long long>(g_dropped.load()));
    writeRecord(std::move(line));
    std::lock_guard<std::mutex> lock(g_writeMutex);
    if (g_fd >= 0) {
        ::close(g_fd);
        g_fd = -1;
    }
}

bool enableKernelActivity()
{
    const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS)
        reportError("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    return r == CUPTI_SUCCESS;
}

} // namespace

// Starts (on != 0) or ends a witness window; returns 1 on success, 0 when not in witness mode or
// CUPTI refused. The caller synchronises the device before ending, so every kernel of the window
// has finished and the forced flush hands all of them over before the end line is written.
extern "C" __attribute__((visibility("default"))) int hotkernel_tracer_witness(int on)
{
    if (!g_witnessMode.load() || g_finished.load())
        return 0;
    static uint64_t kernelsAtBegin = 0;
    static uint64_t droppedAtBegin = 0;
    static uint64_t beginSeq = 0;
    std::string line = "{\"type\":\"witness\",\"phase\":";
    if (on) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        kernelsAtBegin = g_kernels.load();
        droppedAtBegin = g_dropped.load();
        line += "\"begin\"";
        appendField(line, "pid", static_cast<long long>(::getpid()));
        beginSeq = writeRecord(std::move(line));
        return enableKernelActivity() ? 1 : 0;
    }
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    line += "\"end\"";
    appendField(line, "pid", static_cast<long long>(::getpid()));
    appendField(line, "kernels", static_cast<long long>(g_kernels.load() - kernelsAtBegin));
    appendField(line, "dropped", static_cast<long long>(g_dropped.load() - droppedAtBegin));
    // The window is the records numbered begin_seq + 1 .. begin_seq + kernels, all kernels, and
    // this end line follows them directly: anything else in that range was not written here.
    appendField(line, "begin_seq", static_cast<long long>(beginSeq));
    writeRecord(std::move(line));
    return 1;
}

// Called once by the CUDA driver during its initialisation, on the thread that first used CUDA.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    static std::atomic<bool> initialised{false};
    if (initialised.exchange(true))
        return 1;

    const char *path = std::getenv("HOTKERNEL_TRACE_FILE");
    if (!path || !*path)
        path = "hotkernel-trace.jsonl";
    if (const char *fdText = std::getenv("HOTKERNEL_TRACE_FD")) {
        if (!*fdText)
            return 0; // a process started by a traced one: the socket was its parent's alone
        // "N:INODE": descriptor N must still be the socket hotkernel made. A process started by
        // this one may see the variable unchanged (Python copies the environment at its start)
        // while its own descriptor N is something else, or nothing.
        char *end = nullptr;
        const long fd = std::strtol(fdText, &end, 10);
        unsigned long long inode = 0;
        if (*end == ':')
            inode = std::strtoull(end + 1, &end, 10);
        struct stat info
        {
        };
        if (*end != '\0' || fd < 0 || inode == 0 || ::fstat(static_cast<int>(fd), &info) != 0 ||
            !S_ISSOCK(info.st_mode) || static_cast<unsigned long long>(info.st_ino) != inode)
            return 0; // not this process's trace socket: trace nothing rather than write elsewhere
        ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
        ::setenv("HOTKERNEL_TRACE_FD", "", 1);
        g_fd = static_cast<int>(fd);
        path = "the trace socket";
    } else {
        g_fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    if (g_fd < 0) {
        std::fprintf(stderr, "hotkernel-tracer: cannot open %s for writing: %s\n", path,
                     std::strerror(errno));
        return 0;
    }

    std::string header = "{\"type\":\"header\",\"tool\":\"hotkernel-tracer\",\"format\":2";
    appendField(header, "pid", static_cast<long long>(::getpid()));
    appendField(header, "cupti_api_version", CUPTI_API_VERSION);
    header += ",\"clock\":\"cupti_ns\"";
    if (const char *w = std::getenv("HOTKERNEL_TRACE_WITNESS"); w && std::strcmp(w, "1") == 0)
        header += ",\"mode\":\"witness\"";
    writeRecord(std::move(header));

    CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    if (r != CUPTI_SUCCESS) {
        reportError("cuptiActivityRegisterCallbacks", r);
        return 0;
    }
    const char *witness = std::getenv("HOTKERNEL_TRACE_WITNESS");
    g_witnessMode = witness && std::strcmp(witness, "1") == 0;
    if (!g_witnessMode && !enableKernelActivity())
        return 0;
    std::atexit(finish);
    return 1;
}
