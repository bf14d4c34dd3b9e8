// SPDX-License-Identifier: Apache-2.0
// Probes the coroutine code forms docs/hacking.md ("Compiler rules") forbids, with a type that
// counts its constructions and destructions and owns heap memory, so that AddressSanitizer reports
// a double destruction. Run it when the compiler changes:
//   for o in -O0 -O2; do g++ -std=c++20 $o -fsanitize=address,undefined docs/coroutine-probe.cpp \
//       -o /tmp/probe && for i in $(seq 1 10); do /tmp/probe $i 2>&1 | grep -E 'ok|WRONG|ERROR: A'; done;
//       done
// A line per case: "ok" when every object was destroyed once, else ASan's report.
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <utility>

namespace {

int g_live = 0;

struct Counted
{
    int *p;
    Counted() : p(new int(1)) { ++g_live; }
    Counted(const Counted &o) : p(new int(*o.p)) { ++g_live; }
    Counted(Counted &&o) noexcept : p(std::exchange(o.p, nullptr)) { ++g_live; }
    Counted &operator=(Counted &&o) noexcept
    {
        std::swap(p, o.p);
        return *this;
    }
    ~Counted()
    {
        delete p;
        --g_live;
    }
};

// A minimal lazy-enough task: starts at once, resumes its awaiter when it ends.
struct Task
{
    struct promise_type
    {
        std::coroutine_handle<> continuation;
        Task get_return_object() { return Task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
        std::suspend_never initial_suspend() noexcept { return {}; }
        struct Final
        {
            bool await_ready() noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept
            {
                auto c = h.promise().continuation;
                return c ? c : std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        Final final_suspend() noexcept { return {}; }
        void return_void() {}
        void unhandled_exception() { std::terminate(); }
    };
    std::coroutine_handle<promise_type> h;
    explicit Task(std::coroutine_handle<promise_type> handle) : h(handle) {}
    Task(Task &&o) noexcept : h(std::exchange(o.h, {})) {}
    ~Task()
    {
        if (h)
            h.destroy();
    }
    bool await_ready() { return h.done(); }
    void await_suspend(std::coroutine_handle<> c) { h.promise().continuation = c; }
    void await_resume() {}
};

// Suspends until the event loop below resumes it: every probe really suspends.
std::deque<std::coroutine_handle<>> g_pending;
struct Later
{
    bool await_ready() { return false; }
    void await_suspend(std::coroutine_handle<> c) { g_pending.push_back(c); }
    void await_resume() {}
};

Task takesValue(Counted c)
{
    co_await Later{};
    (void)*c.p;
}
Task takesFunction(std::function<void()> f)
{
    co_await Later{};
    f();
}
Task nothing()
{
    co_await Later{};
}
struct Convertible
{
};
struct Converted
{
    Counted c;
    Converted(Convertible) {}
};
Task takesConverted(Converted c)
{
    co_await Later{};
    (void)*c.c.p;
}

Task lambdaTemporaryInAwait()
{
    Counted c;
    co_await takesFunction([c] { (void)*c.p; });
}
Task namedLambda()
{
    Counted c;
    std::function<void()> f = [c] { (void)*c.p; };
    co_await takesFunction(f);
}
Task conditionalInAwait(bool b)
{
    co_await (b ? takesValue(Counted{}) : nothing());
}
Task prvalueArgument()
{
    co_await takesValue(Counted{});
}
Task convertedArgument()
{
    co_await takesConverted(Convertible{});
}
Task skippedAwait(bool b)
{
    if (b)
        co_await takesValue(Counted{});
    co_await nothing();
}
Task earlyReturnSkipsAwait(bool stop)
{
    co_await nothing();
    if (stop)
        co_return;
    co_await takesValue(Counted{});
}
Task returnFromNestedBlock(bool b)
{
    {
        Counted local;
        co_await takesValue(local);
        if (b)
            co_return;
    }
    co_await nothing();
}

// A wrapping awaiter as base/cancelaware.h's CancelAwareTask is: it holds the task it was given and
// checks after it, as a temporary in the co_await operand; the check may throw, caught around it.
struct Checked
{
    Task task;
    Counted c;
    bool stop;
    bool await_ready() { return task.await_ready(); }
    void await_suspend(std::coroutine_handle<> h) { task.await_suspend(h); }
    void await_resume()
    {
        (void)*c.p;
        if (stop)
            throw stop;
    }
};
Checked checked(Task &&task, bool stop)
{
    return Checked{std::move(task), Counted{}, stop};
}
Task wrappedAwait(bool stop)
{
    try {
        co_await checked(takesValue(Counted{}), stop);
    } catch (bool) {
    }
    co_await nothing();
}

struct Case
{
    const char *name;
    std::function<Task()> make;
};

} // namespace

int main(int argc, char **argv)
{
    const Case cases[] = {
        {"capturing lambda temporary in co_await", [] { return lambdaTemporaryInAwait(); }},
        {"named lambda, then co_await", [] { return namedLambda(); }},
        {"?: in co_await, true arm", [] { return conditionalInAwait(true); }},
        {"?: in co_await, false arm", [] { return conditionalInAwait(false); }},
        {"prvalue by-value argument", [] { return prvalueArgument(); }},
        {"argument converted to the parameter type", [] { return convertedArgument(); }},
        {"co_await in a branch not taken", [] { return skippedAwait(false); }},
        {"co_await in a branch taken", [] { return skippedAwait(true); }},
        {"co_return skips a later co_await", [] { return earlyReturnSkipsAwait(true); }},
        {"co_return from a nested block", [] { return returnFromNestedBlock(true); }},
        {"wrapping awaiter temporary in co_await", [] { return wrappedAwait(false); }},
        {"wrapping awaiter whose check throws", [] { return wrappedAwait(true); }},
    };
    const int n = int(sizeof cases / sizeof cases[0]);
    const int only = argc > 1 ? std::atoi(argv[1]) : 0;
    for (int i = 1; i <= n; ++i) {
        if (only && i != only)
            continue;
        g_live = 0;
        {
            Task t = cases[i - 1].make();
            while (!g_pending.empty()) {
                auto c = g_pending.front();
                g_pending.pop_front();
                c.resume();
            }
        }
        std::printf("%2d %-45s %s\n", i, cases[i - 1].name, g_live == 0 ? "ok" : "WRONG");
    }
}
