#!/usr/bin/env bash
# Instructions per Triple call in dubbo-proxy under callgrind: triple-server <- proxy <- triple-load.
# usage: tri-cg.sh BIN_DIR ENGINE CONNS INFLIGHT PAYLOAD OUT
set -euo pipefail
bin=$1; engine=$2; c=$3; i=$4; p=$5; out=$6
mkdir -p "$out"
tp=$((20000 + RANDOM % 10000)); pp=$((tp + 1))
"$bin/triple-server" ours --listen "127.0.0.1:$tp" --threads 2 >"$out/prov.out" 2>&1 &
prov=$!
sleep 1
valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" "$bin/dubbo-proxy" --listen "127.0.0.1:$pp" --upstream "127.0.0.1:$tp" --admin "" --engine "$engine" >"$out/proxy.out" 2>"$out/proxy.err" &
px=$!
for _ in $(seq 60); do grep -q '^READY' "$out/proxy.out" 2>/dev/null && break; sleep 1; done
"$bin/triple-load" --target "127.0.0.1:$pp" --connections "$c" --inflight "$i" --payload "$p" --duration 3 --warmup 1 >"$out/warm.txt" 2>&1
callgrind_control -z "$px" >/dev/null
"$bin/triple-load" --target "127.0.0.1:$pp" --connections "$c" --inflight "$i" --payload "$p" --duration 8 --warmup 0 >"$out/run.txt" 2>&1 || true
callgrind_control -d "$px" >/dev/null
sleep 1
kill "$px" "$prov" 2>/dev/null; wait 2>/dev/null || true
f=$(ls -t "$out"/cg.* | grep -v '\.[0-9]*-' | head -1)
dump=$(ls -t "$out"/cg.*.1 2>/dev/null | head -1 || true)
[ -n "$dump" ] || dump=$f
ir=$(grep -h '^summary:\|^totals:' "$dump" | head -1 | awk '{print $2}')
calls=$(grep -o 'calls=[0-9]*' "$out/run.txt" | head -1 | cut -d= -f2)
echo "engine=$engine ${c}x${i}/$p calls=$calls Ir=$ir Ir/call=$(( ir / (calls>0?calls:1) ))"
grep RESULT "$out/run.txt"
