// SPDX-License-Identifier: Apache-2.0
// One registration function per tool; each lives in its own file under core/tools/.
#pragma once

namespace hotkernel {

class ToolRegistry;

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

// In the order an agent meets them in the loop.
inline void registerBuiltinTools(ToolRegistry &registry)
{
    registerGpuInfoTool(registry);
    registerRooflineTool(registry);
    registerTorchTraceTool(registry);
    registerProfileTool(registry);
    registerTopKernelsTool(registry);
    registerDisasmTool(registry);
    registerBenchTool(registry);
    registerVerifyTool(registry);
    registerRecordTool(registry);
    registerNewTargetTool(registry);
}

} // namespace hotkernel
