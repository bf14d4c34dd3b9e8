// SPDX-License-Identifier: Apache-2.0
// Child processes get a process group of their own so that a timeout or a cancel can end
// everything they started (a Python script's compiler workers, ncu's target), not just them.
#pragma once

class QProcess;

namespace hotkernel {

// Call before QProcess::start(): the child becomes the leader of a new process group.
void putInOwnProcessGroup(QProcess &process);
// Ends the child's whole group: SIGTERM to a supervisor at its head (see supervisor.h), which then
// ends every descendant; otherwise SIGKILL to the group. Harmless when it has already exited.
void killProcessGroup(QProcess &process);
// The same for a group id saved while the leader ran (QProcess forgets it once finished).
void killProcessGroup(long long groupId);
// True while any process of the group is alive (used by tests to prove nothing leaks).
bool processGroupAlive(long long groupId);

} // namespace hotkernel
