# shellcheck shell=sh
# The benchmarks' helpers: CPU time, valgrind's counts.

# Process $1's CPU time so far (ns, from schedstat).
cpu_ns() { cut -d' ' -f1 /proc/$1/schedstat; }

cg_total() { sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$1" | head -1; }
