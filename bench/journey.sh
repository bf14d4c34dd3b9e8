#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 21's journey on the GPU machine, through the CLI and then through MCP (bench/journey_mcp.py):
# torch-trace a program nobody tuned (tests/data/capture/transformer_block.py), pick its top kernel
# that is neither a GEMM nor attention by its demangled name, profile it with ncu by that name, read
# its hot instructions from the exported source page alone, make a target from its trace row, write
# a Triton candidate, verify and record, all in a scratch folder (never the repository's results/).
# Run with the bundle unpacked (hotkernel on PATH): bash bench/journey.sh [WORKDIR [LOGDIR]]
# MCP_SITE: a folder with the MCP Python SDK, added to the client's PYTHONPATH only.
# Prints each step's time and the first lines of its output; full outputs go to LOGDIR/journey-*.txt.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/journey-work}
out=${2:-/tmp/journey-logs}
mkdir -p "$out"
rm -rf "$work" && mkdir -p "$work" && cp "$root/tests/data/capture/transformer_block.py" "$work/"
cd "$work" || exit 1
export QT_QPA_PLATFORM=offscreen PYTHONUNBUFFERED=1
summary="$out/journey-summary.txt"
: > "$summary"
step() { # step NAME COMMAND...: runs it, keeps stdout and stderr apart, prints time and status
    local name=$1; shift
    local t0; t0=$(date +%s%N)
    "$@" > "$out/journey-$name.txt" 2> "$out/journey-$name.err"
    local rc=$?
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '%-12s rc=%s %4d.%01d s  %s\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000 / 100)) "$*" | tee -a "$summary"
    head -c 1500 "$out/journey-$name.txt" | sed 's/^/    /'
    [ $rc -ne 0 ] && tail -n 15 "$out/journey-$name.err" | sed 's/^/  ! /'
    echo
    return $rc
}
# The pick: the heaviest op row whose first kernel is not a GEMM or attention (cuBLAS nvjet/gemm,
# CUTLASS, cuDNN SDPA, flash): by its demangled name, as a user reading the table would.
pick() {
    python3 - "$1" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
skip = re.compile(r"nvjet|gemm|cutlass|xmma|sdpa|flash|fmha|attention", re.I)
for row in doc["op_rows"]:
    if row["kernels"] and not skip.search(row["kernels"][0]["name"]):
        op = row["name"].split("::")[-1]
        print(row["row"], op, json.dumps(row["kernels"][0]["name"]))
        break
PY
}

step trace hotkernel --json torch-trace transformer_block.py || exit 1
report=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"])' "$out/journey-trace.txt")
read -r row op kernel < <(pick "$report")
echo "picked row $row ($op), kernel $kernel" | tee -a "$summary"
step profile hotkernel --json profile --tool ncu --kernel-regex "$op" --set full --launch-count 1 \
    --name journey-ncu -- transformer_block.py --steps 1 --layers 1
source_csv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("source_csv",""))' "$out/journey-profile.txt")
details_csv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("summary_csv",""))' "$out/journey-profile.txt")
step rules hotkernel top-kernels "$details_csv" --n 1
step hot hotkernel disasm "$source_csv" --hot 8 --max-lines 5
step new hotkernel new --from-trace "$report" --op "$row" --out-dir target
python3 "$root/bench/journey_mcp.py" --write-candidate "$op" "target/${op}_candidate.py"
# record accepts only a verify of its own process: the CLI verifies and records in one call.
step verify-cli sh -c "hotkernel --json verify target/${op}_baseline.py target/${op}_candidate.py -n 7 --record --note 'Triton $op from the journey (issue 21)' --who 'agent: journey helper' > verify.json; rc=\$?; python3 -c 'import json; d=json.load(open(\"verify.json\")); print(d.get(\"verdict\"), d.get(\"speedup\"), (d.get(\"record\") or {}).get(\"log\"))'; exit \$rc"
ls -la results 2>/dev/null | head -5

# The same journey through MCP, in its own folder.
mcpwork="$work-mcp"
rm -rf "$mcpwork" && mkdir -p "$mcpwork" && cp "$root/tests/data/capture/transformer_block.py" "$mcpwork/"
step mcp env PYTHONPATH="${MCP_SITE:-}" python3 "$root/bench/journey_mcp.py" "$mcpwork"
cat "$summary"
