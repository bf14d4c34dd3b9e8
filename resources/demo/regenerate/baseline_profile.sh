#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call: the demo's baseline profile with inputs made outside the profiled range
# (ncu --profile-from-start off; baseline_profile.py starts the range after making them), exported as
# the details and raw pages the window reads. $OUT: where the CSVs go.
set -u
cd "$(dirname "$0")"  # baseline_profile.py finds the demo's kernels.py here or one folder up
stamp=$(date -u +%Y%m%d-%H%M%S)
name=rmsnorm_baseline-$stamp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu --version | tail -1
timeout 300 ncu --profile-from-start off --set full --import-source yes -f -o "/tmp/$name" python3 baseline_profile.py 1 2>&1 | tail -15
ncu --import "/tmp/$name.ncu-rep" --page details --csv > "$OUT/$name.details.csv"
ncu --import "/tmp/$name.ncu-rep" --page raw --csv > "$OUT/$name.raw.csv"
echo "stamp $stamp"; wc -l "$OUT"/*; cut -c1-400 "$OUT/$name.raw.csv" | head -4
awk -F'","' 'NR>1{print $5}' "$OUT/$name.details.csv" | sort | uniq -c | cut -c1-200
