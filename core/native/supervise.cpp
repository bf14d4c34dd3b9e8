// SPDX-License-Identifier: Apache-2.0
// hotkernel-supervise: runs one command for hotkernel and makes sure that nothing it starts
// outlives the job (issue 18). Usage:
//     hotkernel-supervise [--lifeline=FD] [--confine-writes=DIR]... [--confine-report=FD]
//                         [--] PROGRAM [ARGUMENT...]
// It becomes a child subreaper, so every descendant stays below it even after `setsid` or a
// double fork, and it ends that whole subtree (SIGTERM, then SIGKILL after a grace period) when
//   - FD, the read end of a pipe whose write end only hotkernel holds, reaches EOF: hotkernel
//     exited, however it exited (kill -9 included);
//   - it receives SIGTERM, SIGINT or SIGHUP: hotkernel's cancel or timeout;
//   - PROGRAM exits: whatever PROGRAM left behind goes with it.
// Then it exits the way PROGRAM did (same exit code, or the same signal), so the caller sees
// PROGRAM's status. PROGRAM inherits stdin, stdout and stderr unchanged. When PROGRAM cannot be
// started it prints "hotkernel-supervise: cannot start PROGRAM: REASON" on stderr and exits 127.
// With --confine-writes (issue 41), PROGRAM and everything it starts can write only beneath the
// named directories and /dev (device nodes: CUDA's /dev/nvidia*, /dev/null, /dev/shm), and write
// existing files beneath /proc (CUDA names its threads there): a Landlock ruleset made in the child
// between fork and exec. Reading stays as it was. What it achieved goes
// as one line to --confine-report's descriptor, written by this program before PROGRAM runs and
// closed by the exec, so PROGRAM can neither write nor forge it:
//     "landlock ABI N"   confined (N: the kernel's Landlock ABI; docs/contract.md says what each covers)
//     "none: REASON"     not confined (no Landlock in this kernel, a directory that cannot be opened)
// PROGRAM runs either way; the caller decides what an unconfined run is worth.
// Deliberately tiny and free of Qt: it must never be the thing that hangs.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <poll.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Rights newer than the headers of the oldest system we build on (Debian 12's say ABI 2).
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

namespace {

// Long enough for Python to run its atexit handlers and a CUDA context to be torn down; short
// enough that a cancel still feels immediate.
constexpr long long GraceMs = 1500;
// How often the SIGKILL phase looks again for stragglers (a process forking while we kill).
constexpr long long KillPollMs = 20;

long long nowMs()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// The parent pid from /proc/PID/stat, or -1 when the process is gone. The command name is in
// parentheses and may itself hold ") ", so the fields are read after the last ')'.
pid_t parentOf(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buffer[1024];
    const ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buffer[n] = '\0';
    const char *close = std::strrchr(buffer, ')');
    int parent = -1;
    char state = 0;
    if (!close || std::sscanf(close + 1, " %c %d", &state, &parent) != 2)
        return -1;
    return static_cast<pid_t>(parent);
}

// Every process below this one. Being a subreaper, this process inherits any descendant whose
// parent dies, so walking parent links from /proc finds them all.
std::vector<pid_t> descendants()
{
    struct Entry
    {
        pid_t pid;
        pid_t parent;
    };
    std::vector<Entry> all;
    if (DIR *proc = opendir("/proc")) {
        while (const dirent *e = readdir(proc)) {
            char *end = nullptr;
            const long pid = std::strtol(e->d_name, &end, 10);
            if (pid <= 0 || *end != '\0')
                continue;
            const pid_t parent = parentOf(static_cast<pid_t>(pid));
            if (parent > 0)
                all.push_back({static_cast<pid_t>(pid), parent});
        }
        closedir(proc);
    }
    std::vector<pid_t> found{getpid()};
    for (bool grew = true; grew;) {
        grew = false;
        for (const Entry &e : all) {
            bool parentIn = false, selfIn = false;
            for (pid_t p : found) {
                parentIn = parentIn || p == e.parent;
                selfIn = selfIn || p == e.pid;
            }
            if (parentIn && !selfIn) {
                found.push_back(e.pid);
                grew = true;
            }
        }
    }
    found.erase(found.begin());
    return found;
}

void signalDescendants(int signal)
{
    for (pid_t pid : descendants()) {
        kill(pid, signal);
        if (signal == SIGTERM)
            kill(pid, SIGCONT); // a stopped process would otherwise sit on SIGTERM until SIGKILL
    }
}

[[noreturn]] void exitLike(int status)
{
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    // The same signal, so that the caller sees a crash as a crash; without a core of our own.
    const rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);
    std::signal(signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    raise(signal);
    _exit(128 + signal);
}

int usage()
{
    std::fputs("usage: hotkernel-supervise [--lifeline=FD] [--confine-writes=DIR]... "
               "[--confine-report=FD] [--] PROGRAM [ARGUMENT...]\n",
               stderr);
    return 2;
}

// Every right that changes the file system, by the Landlock ABI that introduced it. Not
// LANDLOCK_ACCESS_FS_IOCTL_DEV (ABI 5): CUDA drives the GPU through ioctls on /dev/nvidia*, and
// ioctls on the file system's regular files are not a way to write them.
unsigned long long writeRights(int abi)
{
    unsigned long long rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                                LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                                LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                                LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                                LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        rights |= LANDLOCK_ACCESS_FS_REFER; // renames and links across directories
    if (abi >= 3)
        rights |= LANDLOCK_ACCESS_FS_TRUNCATE; // truncate(2) and O_TRUNC
    return rights;
}

// The ruleset attribute as ABI 1 knew it; later kernels accept the shorter struct.
struct RulesetAttr
{
    unsigned long long handledAccessFs;
};

// In the child, before exec: confines every later write to `dirs`, /dev and existing files in
// /proc. Returns what it achieved, as the report line says it (without the newline).
std::string confineWrites(const std::vector<const char *> &dirs)
{
    const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        const int error = errno;
        return std::string("none: this kernel has no Landlock (") + std::strerror(error) +
               (error == EOPNOTSUPP
                    ? "; it is built in but not enabled: add landlock to the lsm= boot parameter)"
                    : "; Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK is needed)");
    }
    const unsigned long long rights = writeRights(static_cast<int>(abi));
    const RulesetAttr attr{rights};
    const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
    if (ruleset < 0)
        return std::string("none: landlock_create_ruleset: ") + std::strerror(errno);
    // CUDA's cuInit names its threads by writing /proc/<pid>/task/<tid>/comm and fails with error 304
    // ("OS call failed") when it cannot. A rule on /proc/self would bind to an inode that procfs may
    // drop and remake, and would not cover the worker's children, so the rule is on /proc, and
    // only for writing files that exist: nothing can be made there anyway, and another process's
    // memory (/proc/PID/mem) stays out of reach, since Landlock refuses ptrace access to any
    // process outside the worker's own domain.
    const unsigned long long procRights =
        rights & (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE);
    std::vector<std::pair<const char *, unsigned long long>> allowed;
    for (const char *dir : dirs)
        allowed.emplace_back(dir, rights);
    allowed.emplace_back("/dev", rights);
    allowed.emplace_back("/proc", procRights);
    for (const auto &[dir, dirRights] : allowed) {
        const int fd = open(dir, O_PATH | O_CLOEXEC | O_DIRECTORY);
        if (fd < 0) {
            const int error = errno;
            close(ruleset);
            return std::string("none: cannot open the writable directory ") + dir + ": " +
                   std::strerror(error);
        }
        landlock_path_beneath_attr rule{};
        rule.allowed_access = dirRights;
        rule.parent_fd = fd;
        const long added = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
        const int error = errno;
        close(fd);
        if (added != 0) {
            close(ruleset);
            return std::string("none: landlock_add_rule for ") + dir + ": " + std::strerror(error);
        }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
        const int error = errno;
        close(ruleset);
        return std::string("none: PR_SET_NO_NEW_PRIVS: ") + std::strerror(error);
    }
    const long restricted = syscall(SYS_landlock_restrict_self, ruleset, 0);
    const int error = errno;
    close(ruleset);
    if (restricted != 0)
        return std::string("none: landlock_restrict_self: ") + std::strerror(error);
    return "landlock ABI " + std::to_string(abi);
}

bool openDescriptor(const char *text, int *fd)
{
    char *end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 0 || value > 1 << 20 ||
        fcntl(static_cast<int>(value), F_GETFD) < 0)
        return false;
    *fd = static_cast<int>(value);
    return true;
}

// What the command line asks for; `first` is PROGRAM's index in argv.
struct Options
{
    int first = 1;
    int lifeline = -1;
    int report = -1;
    bool confine = false;
    std::vector<const char *> writable;
};

// The options before PROGRAM; an exit status (2) when they are wrong, else -1.
int parseOptions(int argc, char **argv, Options &o)
{
    for (; o.first < argc && std::strncmp(argv[o.first], "--", 2) == 0 && argv[o.first][2] != '\0';
         ++o.first) {
        const char *option = argv[o.first];
        if (std::strncmp(option, "--lifeline=", 11) == 0) {
            if (!openDescriptor(option + 11, &o.lifeline)) {
                std::fprintf(stderr, "hotkernel-supervise: --lifeline=%s is not an open descriptor\n",
                             option + 11);
                return 2;
            }
        } else if (std::strncmp(option, "--confine-report=", 17) == 0) {
            if (!openDescriptor(option + 17, &o.report)) {
                std::fprintf(stderr, "hotkernel-supervise: --confine-report=%s is not an open descriptor\n",
                             option + 17);
                return 2;
            }
        } else if (std::strncmp(option, "--confine-writes=", 17) == 0 && option[17] == '/') {
            o.confine = true;
            o.writable.push_back(option + 17);
        } else {
            std::fprintf(stderr, "hotkernel-supervise: unknown option %s (directories must be absolute)\n",
                         option);
            return usage();
        }
    }
    if (o.first < argc && std::strcmp(argv[o.first], "--") == 0)
        ++o.first;
    if (o.first >= argc)
        return usage();
    return -1;
}

// Forks PROGRAM (confined first, when asked) and waits until its exec succeeded: its pid, or -1
// after saying why on stderr. The child restores `original`, the signal mask before ours.
pid_t startProgram(char **argv, const Options &o, const sigset_t &original)
{
    int execStatus[2];
    if (pipe2(execStatus, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "hotkernel-supervise: pipe: %s\n", std::strerror(errno));
        return -1;
    }
    const char *program = argv[o.first];
    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "hotkernel-supervise: cannot start %s: fork: %s\n", program,
                     std::strerror(errno));
        return -1;
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &original, nullptr);
        if (o.confine || o.report >= 0) {
            const std::string line =
                (o.confine ? confineWrites(o.writable) : std::string("none: not asked to confine")) + '\n';
            if (o.report >= 0) {
                ssize_t ignored = write(o.report, line.data(), line.size());
                (void)ignored;
            }
        }
        execvp(program, argv + o.first);
        const int error = errno;
        ssize_t ignored = write(execStatus[1], &error, sizeof error);
        (void)ignored;
        _exit(127);
    }
    close(execStatus[1]);
    if (o.report >= 0)
        close(o.report); // only the child writes it: EOF for the reader once PROGRAM has started
    int execError = 0;
    ssize_t got;
    do
        got = read(execStatus[0], &execError, sizeof execError);
    while (got < 0 && errno == EINTR);
    close(execStatus[0]);
    if (got == sizeof execError) {
        waitpid(child, nullptr, 0);
        std::fprintf(stderr, "hotkernel-supervise: cannot start %s: %s\n", program, std::strerror(execError));
        return -1;
    }
    return child;
}

// The subtree below us, from PROGRAM's start until nothing of it is left: ends it when PROGRAM
// exits, a signal comes or the lifeline breaks, then exits as PROGRAM did. Never returns.
class Watch
{
public:
    Watch(pid_t child, int signals, int lifeline) : m_child(child), m_signals(signals), m_lifeline(lifeline)
    {}

    [[noreturn]] void run()
    {
        pollfd fds[2] = {{m_signals, POLLIN, 0}, {m_lifeline, POLLIN, 0}};
        while (true) {
            reap();
            if (m_childDone)
                beginEnding(); // what PROGRAM left behind goes too
            if (poll(fds, 2, nextTimeout()) < 0 && errno != EINTR)
                beginEnding();
            if (fds[0].revents & POLLIN)
                readSignals();
            if (fds[1].fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) &&
                lifelineBroke())
                fds[1].fd = -1; // hotkernel is gone
        }
    }

private:
    // Reaps whatever ended; ECHILD means no process is left below us (see descendants()).
    void reap()
    {
        while (true) {
            int status = 0;
            const pid_t reaped = waitpid(-1, &status, WNOHANG);
            if (reaped > 0) {
                if (reaped == m_child) {
                    m_childDone = true;
                    m_childStatus = status;
                }
                continue;
            }
            if (reaped < 0 && errno == ECHILD) {
                if (!m_childDone)
                    _exit(125); // cannot happen: PROGRAM is our child until we reap it
                exitLike(m_childStatus);
            }
            return;
        }
    }

    void beginEnding()
    {
        if (m_ending)
            return;
        m_ending = true;
        signalDescendants(SIGTERM);
        m_killAt = nowMs() + GraceMs;
    }

    // How long poll() may wait: forever until the ending, then until the next SIGKILL round.
    int nextTimeout()
    {
        if (!m_ending)
            return -1;
        const long long now = nowMs();
        if (now >= m_killAt) {
            signalDescendants(SIGKILL);
            m_killAt = now + KillPollMs;
        }
        return static_cast<int>(m_killAt - now > 0 ? m_killAt - now : KillPollMs);
    }

    void readSignals()
    {
        signalfd_siginfo info{};
        while (read(m_signals, &info, sizeof info) == sizeof info) {
            if (info.ssi_signo != SIGCHLD)
                beginEnding();
        }
    }

    // True (and the ending begun) when the lifeline reached EOF or failed.
    bool lifelineBroke()
    {
        char byte;
        const ssize_t n = read(m_lifeline, &byte, 1);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
            beginEnding();
            return true;
        }
        return false;
    }

    const pid_t m_child;
    const int m_signals;
    const int m_lifeline;
    bool m_childDone = false;
    int m_childStatus = 0;
    bool m_ending = false;
    long long m_killAt = 0;
};

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (const int status = parseOptions(argc, argv, o); status >= 0)
        return status;

    prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
    sigset_t handled, original;
    sigemptyset(&handled);
    for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
        sigaddset(&handled, s);
    sigprocmask(SIG_BLOCK, &handled, &original);
    const int signals = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signals < 0) {
        std::fprintf(stderr, "hotkernel-supervise: signalfd: %s\n", std::strerror(errno));
        return 127;
    }
    if (o.lifeline >= 0)
        fcntl(o.lifeline, F_SETFD, FD_CLOEXEC); // PROGRAM never sees it
    if (o.report >= 0)
        fcntl(o.report, F_SETFD, FD_CLOEXEC); // written before the exec, which closes it

    const pid_t child = startProgram(argv, o, original);
    if (child < 0)
        return 127;
    // Only PROGRAM keeps the caller's stdin and stdout, so their EOF means what it meant before.
    if (const int null = open("/dev/null", O_RDWR | O_CLOEXEC); null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    Watch(child, signals, o.lifeline).run();
}
