#!/usr/bin/env bash
# perf record of dubbo-proxy (ENGINE) forwarding tri/64x4/64 to the Java 3.3 Triple-only provider.
set -euo pipefail
engine=$1; out=/tmp/b25-prof-$engine; mkdir -p $out
bin=/work/wt-b25/target/release
jar=/work/wt-b25/interop/dubbo-java/target/dubbo33/dubbo-interop.jar
java -jar $jar provider 41101 --protocol tri --ignore-stdin >$out/prov.out 2>$out/prov.err &
jp=$!
for i in $(seq 120); do grep -q READY $out/prov.out && break; sleep 1; done
$bin/dubbo-proxy --listen 127.0.0.1:41102 --upstream 127.0.0.1:41101 --admin "" --engine $engine >$out/proxy.out 2>$out/proxy.err &
pp=$!
for i in $(seq 30); do grep -q READY $out/proxy.out && break; sleep 0.2; done
$bin/triple-load --mode interface --target 127.0.0.1:41102 --connections 64 --inflight 4 --duration 10 --warmup 0 --payload 64 >/dev/null
$bin/triple-load --mode interface --target 127.0.0.1:41102 --connections 64 --inflight 4 --duration 14 --warmup 0 --payload 64 --label prof > $out/load.txt &
lp=$!
sleep 2
perf record -F 299 --call-graph dwarf,8192 -p $pp -o $out/perf.data -- sleep 8 2> $out/perf-record.err
wait $lp
kill $pp $jp; wait $pp $jp 2>/dev/null || true
perf report -i $out/perf.data --no-children --stdio --percent-limit 1.5 -g none 2>/dev/null > $out/flat.txt
perf report -i $out/perf.data --children --stdio --percent-limit 4 -g caller,0.5,callee,function,percent --max-stack 40 2>/dev/null > $out/children.txt
cat $out/load.txt
