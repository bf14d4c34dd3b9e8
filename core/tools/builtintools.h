// SPDX-License-Identifier: Apache-2.0
// One registration function per tool; each lives in its own file under core/tools/. Whoever creates
// a Session composes its registry (app/, tests): the session itself knows no tool (issue 40).
#pragma once

#include "session/toolregistry.h"

namespace hotkernel {

void registerGpuInfoTool(ToolRegistry &registry);
void registerRooflineTool(ToolRegistry &registry);
void registerTorchTraceTool(ToolRegistry &registry);
void registerProfileTool(ToolRegistry &registry);
void registerTopKernelsTool(ToolRegistry &registry);
void registerDisasmTool(ToolRegistry &registry);
void registerBenchTool(ToolRegistry &registry);
void registerVerifyTool(ToolRegistry &registry);
void registerRecordTool(ToolRegistry &registry);
void registerNewTargetTool(ToolRegistry &registry);

// Every built-in tool, in the order an agent meets them in the loop.
void registerBuiltinTools(ToolRegistry &registry);
ToolRegistry builtinTools();

} // namespace hotkernel
