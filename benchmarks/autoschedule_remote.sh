#!/bin/bash
# python -m benchmarks.autoschedule's wasm table measured on another machine (issue 29's figures
# come from the GPU machine's 16 idle cores; this one has 2 busy ones):
#   here:  bash benchmarks/autoschedule_remote.sh bundle [NODE]   (NODE: a Node binary or its .xz;
#          default /usr/bin/node) builds the harnesses (PIPELINES, TARGETS: --pipelines, --targets;
#          default the suite and the demos, simd and threads) with --pool-size $POOL (default 16, the
#          workers each threads harness starts) and packs them and Node into $B (git-ignored);
#   there: bash benchmarks/autoschedule_remote.sh run   (from the repository root, $B carried)
#          runs benchmarks/interleave.py one round at a time, the directories reversed every
#          other round, RUNS runs (default "1 2") of ROUNDS rounds (3), each round into
#          $OUT/runR_K.json, so that a run cut short keeps the rounds it finished;
#   here:  python -m benchmarks.autoschedule --node-runs $(ls -v OUT/run1_*.json | paste -sd,)
set -e
B=benchmarks/build/autoschedule_remote
case "$1" in
bundle)
  mkdir -p $B
  python -m benchmarks.autoschedule --build-only --reuse --pool-size "${POOL:-16}" \
    ${PIPELINES:+--pipelines $PIPELINES} ${TARGETS:+--targets $TARGETS} 2>/dev/null | tee $B/build.log | tail -1 | cut -c1-200
  grep -oE "benchmarks/build/[A-Za-z0-9_]+/[A-Za-z0-9_.-]+" $B/build.log > $B/dirs.txt
  (cd benchmarks/build && for d in $(sed 's#benchmarks/build/##' ../../$B/dirs.txt); do
     ls $d/bench.js $d/bench.wasm $d/bench.data $d/bench.worker.js 2>/dev/null || true; done) \
    | tar -C benchmarks/build -cf - -T - | xz -6 > $B/builds.tar.xz
  NODE=${2:-/usr/bin/node}
  case "$NODE" in *.xz) ln -f "$NODE" $B/node.xz 2>/dev/null || cp "$NODE" $B/node.xz ;; *) xz -6 -c "$NODE" > $B/node.xz ;; esac
  ls -la $B ;;
run)
  W=/tmp/autoschedule_remote; mkdir -p $W
  NODE=${NODE:-$W/node}
  [ -x "$NODE" ] || { xz -dc $B/node.xz > $W/node && chmod +x $W/node; }
  tar -C benchmarks/build -xJf $B/builds.tar.xz
  echo '{"type": "commonjs"}' > benchmarks/build/package.json  # Emscripten's JS is CommonJS
  echo "cores $(nproc), node $($NODE --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
  HARGS=${HARGS:-'["--batches", "5", "--min-batch-ms", "10", "--warmup-ms", "30"]'}
  FWD=$(cat $B/dirs.txt)
  REV=$(echo $FWD | tr ' ' '\n' | tac | tr '\n' ' ')
  for r in ${RUNS:-1 2}; do
    s=$(date +%s)
    for k in $(seq 1 "${ROUNDS:-3}"); do
      D=$FWD; [ $((k % 2)) = 0 ] && D=$REV
      python3 benchmarks/interleave.py --node "$NODE" --out "${OUT:-/tmp}/run${r}_$k.json" \
        --rounds 1 --max-busy 0.5 --quiet-timeout 3 --harness-args "$HARGS" $D 2>&1
    done
    echo "run $r: $(( $(date +%s) - s )) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
  done ;;
*) echo "usage: $0 bundle [NODE] | run" >&2; exit 2 ;;
esac
