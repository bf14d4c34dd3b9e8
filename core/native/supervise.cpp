// SPDX-License-Identifier: Apache-2.0
// hotkernel-supervise: runs one command for hotkernel and makes sure that nothing it starts
// outlives the job (issue 18). Usage:
//     hotkernel-supervise [--lifeline=FD] [--] PROGRAM [ARGUMENT...]
// It becomes a child subreaper, so every descendant stays below it even after `setsid` or a
// double fork, and it ends that whole subtree (SIGTERM, then SIGKILL after a grace period) when
//   - FD, the read end of a pipe whose write end only hotkernel holds, reaches EOF: hotkernel
//     exited, however it exited (kill -9 included);
//   - it receives SIGTERM, SIGINT or SIGHUP: hotkernel's cancel or timeout;
//   - PROGRAM exits: whatever PROGRAM left behind goes with it.
// Then it exits the way PROGRAM did (same exit code, or the same signal), so the caller sees
// PROGRAM's status. PROGRAM inherits stdin, stdout and stderr unchanged. When PROGRAM cannot be
// started it prints "hotkernel-supervise: cannot start PROGRAM: REASON" on stderr and exits 127.
// Deliberately tiny and free of Qt: it must never be the thing that hangs.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

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
    std::fputs("usage: hotkernel-supervise [--lifeline=FD] [--] PROGRAM [ARGUMENT...]\n", stderr);
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    int first = 1;
    int lifeline = -1;
    if (first < argc && std::strncmp(argv[first], "--lifeline=", 11) == 0) {
        lifeline = std::atoi(argv[first] + 11);
        if (lifeline < 0 || fcntl(lifeline, F_GETFD) < 0) {
            std::fprintf(stderr, "hotkernel-supervise: --lifeline=%s is not an open descriptor\n",
                         argv[first] + 11);
            return 2;
        }
        ++first;
    }
    if (first < argc && std::strcmp(argv[first], "--") == 0)
        ++first;
    if (first >= argc)
        return usage();

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
    if (lifeline >= 0)
        fcntl(lifeline, F_SETFD, FD_CLOEXEC); // PROGRAM never sees it

    int execStatus[2];
    if (pipe2(execStatus, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "hotkernel-supervise: pipe: %s\n", std::strerror(errno));
        return 127;
    }
    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "hotkernel-supervise: cannot start %s: fork: %s\n", argv[first],
                     std::strerror(errno));
        return 127;
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &original, nullptr);
        execvp(argv[first], argv + first);
        const int error = errno;
        ssize_t ignored = write(execStatus[1], &error, sizeof error);
        (void)ignored;
        _exit(127);
    }
    close(execStatus[1]);
    int execError = 0;
    ssize_t got;
    do
        got = read(execStatus[0], &execError, sizeof execError);
    while (got < 0 && errno == EINTR);
    close(execStatus[0]);
    if (got == sizeof execError) {
        waitpid(child, nullptr, 0);
        std::fprintf(stderr, "hotkernel-supervise: cannot start %s: %s\n", argv[first],
                     std::strerror(execError));
        return 127;
    }
    // Only PROGRAM keeps the caller's stdin and stdout, so their EOF means what it meant before.
    if (const int null = open("/dev/null", O_RDWR | O_CLOEXEC); null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        close(null);
    }

    bool childDone = false;
    int childStatus = 0;
    bool ending = false;
    long long killAt = 0;
    const auto beginEnding = [&] {
        if (ending)
            return;
        ending = true;
        signalDescendants(SIGTERM);
        killAt = nowMs() + GraceMs;
    };
    pollfd fds[2] = {{signals, POLLIN, 0}, {lifeline, POLLIN, 0}};
    while (true) {
        // Reap first: ECHILD means no process is left below us (see descendants()).
        while (true) {
            int status = 0;
            const pid_t reaped = waitpid(-1, &status, WNOHANG);
            if (reaped > 0) {
                if (reaped == child) {
                    childDone = true;
                    childStatus = status;
                }
                continue;
            }
            if (reaped < 0 && errno == ECHILD) {
                if (!childDone)
                    _exit(125); // cannot happen: PROGRAM is our child until we reap it
                exitLike(childStatus);
            }
            break;
        }
        if (childDone)
            beginEnding(); // what PROGRAM left behind goes too
        int timeout = -1;
        if (ending) {
            const long long now = nowMs();
            if (now >= killAt) {
                signalDescendants(SIGKILL);
                killAt = now + KillPollMs;
            }
            timeout = static_cast<int>(killAt - now > 0 ? killAt - now : KillPollMs);
        }
        if (poll(fds, 2, timeout) < 0 && errno != EINTR)
            beginEnding();
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo info{};
            while (read(signals, &info, sizeof info) == sizeof info) {
                if (info.ssi_signo != SIGCHLD)
                    beginEnding();
            }
        }
        if (fds[1].fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
            char byte;
            const ssize_t n = read(lifeline, &byte, 1);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                fds[1].fd = -1; // hotkernel is gone
                beginEnding();
            }
        }
    }
}
