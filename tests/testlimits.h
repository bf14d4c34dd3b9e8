// SPDX-License-Identifier: Apache-2.0
// How long a test waits for something that ends on an event (a reply, a signal, a process exit).
// The limit only keeps a broken build from hanging the suite: it is far beyond what a loaded
// 2-core machine needs, so no test fails for being slow. A test about a timeout gives the code
// under test its own short limit and waits for the outcome with this one.
#pragma once

namespace hotkernel::test {

constexpr int kEventLimitMs = 5 * 60 * 1000;

} // namespace hotkernel::test
