// SPDX-License-Identifier: Apache-2.0
// Drives `hotkernel mcp --headless` with the official MCP TypeScript SDK client, which checks every
// structuredContent against the tool's outputSchema with Ajv (issue 18). test_ts_sdk_client.py
// copies this file beside the SDK's node_modules and runs it:
//   node ts_sdk_client.mjs HOTKERNEL_BINARY WORKDIR
// Prints one line per check; exits 1 when any failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [binary, workdir] = process.argv.slice(2);
let failures = 0;

function check(title, ok, detail) {
    console.log(`${ok ? 'ok  ' : 'FAIL'}  ${title}${ok ? '' : `: ${detail}`}`);
    if (!ok)
        failures += 1;
}

function textOf(result) {
    return (result.content ?? []).map((c) => c.text ?? '').join(' ');
}

const transport = new StdioClientTransport({
    command: binary,
    args: ['mcp', '--headless'],
    cwd: workdir,
    env: { ...process.env },
    stderr: 'inherit',
});
const client = new Client({ name: 'ts-sdk-e2e', version: '1.0.0' });
await client.connect(transport);
check('initialize: server is hotkernel', client.getServerVersion()?.name === 'hotkernel',
      JSON.stringify(client.getServerVersion()));

// listTools compiles every outputSchema with Ajv; callTool validates against them from now on.
const listed = await client.listTools();
const names = listed.tools.map((t) => t.name);
check('tools/list: ten tools, each with an outputSchema',
      names.length === 10 && listed.tools.every((t) => t.outputSchema?.type === 'object'), names.join(','));

// A tool call as the agent sees it: the result, or the error the SDK threw instead.
async function call(name, args) {
    try {
        return { result: await client.callTool({ name, arguments: args }, undefined, { timeout: 240000 }) };
    } catch (error) {
        return { error };
    }
}

async function expectSuccess(title, name, args, predicate) {
    const { result, error } = await call(name, args);
    if (error) {
        check(title, false, `threw ${error.code}: ${error.message}`);
        return;
    }
    check(title, !result.isError && predicate(result.structuredContent),
          `isError ${result.isError}: ${textOf(result).slice(0, 300)}`);
}

// The agent must see our message: an isError result whose text names what was wrong.
async function expectToolError(title, name, args, ...words) {
    const { result, error } = await call(name, args);
    if (error) {
        check(title, false, `threw ${error.code}: ${error.message}`);
        return;
    }
    const text = textOf(result);
    check(title, result.isError === true && words.every((w) => text.includes(w)),
          `isError ${result.isError}, text: ${text.slice(0, 300)}`);
}

await expectSuccess('success: new_target', 'new_target',
                    { target: 'scale', from: 'torch.nn.functional:relu', shape: '256', dtype: 'fp32', device: 'cpu',
                      iters: 2 },
                    (s) => s?.target === 'scale');
await expectSuccess('success: roofline', 'roofline', { card: 'H200', flops: 1e9, bytes: 1e8 },
                    (s) => typeof s?.intensity_flops_per_byte === 'number');
await expectSuccess('success: top_kernels', 'top_kernels', { path: 'report.ncu-details.csv' },
                    (s) => Array.isArray(s?.kernels) && s.kernels.length > 0);

// gpu_info succeeds on a GPU machine and may fail elsewhere; either way the agent gets a result.
{
    const { result, error } = await call('gpu_info', {});
    check('gpu_info: a result, never a thrown schema error', !error && textOf(result).length > 0,
          error ? `threw ${error.code}: ${error.message}` : 'empty text');
}

await expectToolError('error: bench with a wrong argument type', 'bench', { script: 42 }, 'script');
await expectToolError('error: bench of a missing script', 'bench', { script: 'no_such_script.py' },
                      'no_such_script.py');
await expectToolError('error: verify with wrong argument types', 'verify',
                      { baseline: 1, candidate: ['x'], n: 'many' }, 'baseline');
await expectToolError('error: verify of a missing target', 'verify',
                      { baseline: 'nope_baseline.py', candidate: 'nope_candidate.py' }, 'nope_baseline.py');
await expectToolError('error: record of a missing verify result', 'record',
                      { target: 'scale', verify_result: 'missing-verify.json', note: 'n', who: 'w' },
                      'missing-verify.json');
await expectToolError('error: new_target with an unknown dtype', 'new_target',
                      { target: 'other', from: 'torch.nn.functional:relu', shape: '8', dtype: 'fp99' }, 'fp99');
await expectToolError('error: top_kernels of a missing report', 'top_kernels', { path: 'missing-report.csv' },
                      'missing-report.csv');
await expectToolError('error: roofline of an unknown card', 'roofline', { card: 'no-such-card', flops: 1, bytes: 1 },
                      'no-such-card');
await expectToolError('error: disasm of a missing target', 'disasm', { target: 'missing.cubin' }, 'missing.cubin');
await expectToolError('error: torch_trace of a missing script', 'torch_trace', { script: 'missing_trace.py' },
                      'missing_trace.py');
await expectToolError('error: profile with an unknown property', 'profile', { command: ['true'], bogus: 1 }, 'bogus');

// A protocol fault stays one: the SDK throws it with our message.
{
    const { error } = await call('no_such_tool', {});
    check('unknown tool: JSON-RPC -32602 naming the tool', error?.code === -32602 && /no_such_tool/.test(error.message),
          error ? `${error.code}: ${error.message}` : 'no error');
}

await client.ping();
check('ping after the errors', true, '');
await client.close();
console.log(failures === 0 ? 'all passed' : `${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
