// SPDX-License-Identifier: Apache-2.0
#include "tools/builtintools.h"

namespace hotkernel {

void registerBuiltinTools(ToolRegistry &registry)
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

ToolRegistry builtinTools()
{
    ToolRegistry registry;
    registerBuiltinTools(registry);
    return registry;
}

} // namespace hotkernel
