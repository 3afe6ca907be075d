# The helpers bench/run.sh and bench/game.sh share (sourced; they set
# $runs, the number of runs, and $logs, the folder of the raw logs).

now() { date +%s.%N; }
# best_of <label> <setup command> <timed command...>: the fastest of $runs runs, in seconds.
best_of() {
  local label=$1 setup=$2; shift 2
  local best="" t0 t1 dt
  for _ in $(seq "$runs"); do
    eval "$setup"
    t0=$(now)
    "$@" >>"$logs/$label.log" 2>&1 || true
    t1=$(now)
    dt=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc -l)" = 1 ]; then best=$dt; fi
  done
  printf '%.3f\n' "$best"
}
# mibs <bytes> <seconds>: throughput; ratio <a> <b>: a / b.
mibs() { printf '%.1f' "$(echo "$1 / $2 / 1048576" | bc -l)"; }
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

