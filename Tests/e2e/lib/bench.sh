# shellcheck shell=sh
# The benchmarks' helpers: CPU time, valgrind's counts.

# Process $1's CPU time so far (ns, from schedstat).
cpu_ns() { cut -d' ' -f1 /proc/$1/schedstat; }

# Process $1's user and system time so far, in clock ticks (`utime stime`, /proc/PID/stat fields
# 14 and 15, counted after the command's closing parenthesis, which a name may contain).
cpu_split() { sed 's/.*) //' /proc/$1/stat | cut -d' ' -f12,13; }

cg_total() { sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$1" | head -1; }
