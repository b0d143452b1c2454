# Sourced by the scale benchmarks. measure CMD...: runs CMD `runs` times (default 3) under `limit` seconds, and
# prints the median "seconds kib" (wall time and peak memory), "timeout", or "refused" (dtsim's exit status 2: the
# case is not simulated at all, its error in $out/err). The caller sets `out` (a scratch folder) and `limit`.
measure() {
  : > "$out/samples"
  i=0
  while [ "$i" -lt "${runs:-3}" ]; do
    status=0
    timeout "$limit" /usr/bin/time -f "%e %M" -o "$out/usage" "$@" > /dev/null 2> "$out/err" || status=$?
    if [ "$status" = 2 ]; then
      echo refused
      return
    elif [ "$status" != 0 ]; then
      echo timeout
      return
    fi
    cat "$out/usage" >> "$out/samples"
    i=$((i + 1))
  done
  sort -n "$out/samples" | sed -n "$(((${runs:-3} + 1) / 2))p"
}
