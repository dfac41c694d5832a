#!/bin/sh
# Runs inside a minimal Debian booted with systemd (scripts/deb-check: debootstrap, then
# systemd-nspawn --boot): the package as an admin uses it. /check is the host's folder with the
# .deb; `BOOT ...` lines go to /check/boot.log, the last one `BOOT PASS` or `BOOT FAIL: why`.
exec > /check/boot.log 2>&1
say() { echo "BOOT $*"; }
fail() { say "FAIL: $*"; journalctl --no-pager | grep -i touchgestured | tail -20; exit 1; }
active() {  # waits up to 10 s for a unit to be active
  for _ in $(seq 100); do [ "$(systemctl is-active "$1")" = active ] && return 0; sleep 0.1; done
  return 1
}

apt-get install -y -qq /check/touchgestured_*.deb > /check/apt.log 2>&1 || fail "apt-get install: $(tail -3 /check/apt.log)"
systemctl start touchgestured || fail "systemctl start touchgestured"
active touchgestured || fail "touchgestured.service is $(systemctl is-active touchgestured)"
uid=$(ps -o uid= -p "$(systemctl show -p MainPID --value touchgestured)" | tr -d ' ')
touchgesturectl ping > /dev/null || fail "touchgesturectl ping"
say "systemctl start touchgestured: active (Type=notify: READY sent), runs as uid $uid (its dynamic user), answers ping on its socket"
# Once ready, the unit raises the loop to SCHED_FIFO 10 (ExecStartPost), or says in the journal
# that the kernel refused, and the daemon lives on at the normal policy either way.
prio=""
for _ in $(seq 50); do
  prio=$(touchgesturectl stats | sed -n 's/.*"realtime_priority":\([0-9]*\).*/\1/p')
  [ "$prio" = 10 ] && break
  sleep 0.1
done
if [ "$prio" = 10 ]; then
  say "scheduling: $(chrt -p "$(systemctl show -p MainPID --value touchgestured)" | head -1 | sed 's/.*: //') (stats: realtime_priority 10)"
elif journalctl --no-pager -u touchgestured | grep -q "real-time scheduling refused"; then
  say "scheduling: real time refused by this kernel, said in the journal; realtime_priority ${prio:-?}, the daemon answers ping: $(touchgesturectl ping | cut -c1-9)"
else
  fail "realtime_priority ${prio:-?} and no word of a refusal in the journal"
fi
systemctl reload touchgestured && sleep 0.5 && active touchgestured || fail "systemctl reload touchgestured"
say "systemctl reload touchgestured: still active"
systemctl start touchgestured-web || fail "systemctl start touchgestured-web"
active touchgestured-web || fail "touchgestured-web.service is $(systemctl is-active touchgestured-web)"
for _ in $(seq 50); do curl -sf -o /dev/null http://127.0.0.1:7700/touchgestured.js && break; sleep 0.1; done
code=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:7700/touchgestured.js)
[ "$code" = 200 ] || fail "the bridge's module: HTTP $code"
hello=$(curl -s -N --max-time 2 -H "Connection: Upgrade" -H "Upgrade: websocket" -H "Sec-WebSocket-Version: 13" \
  -H "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" http://127.0.0.1:7700/gestures | tr -c '[:print:]' ' ')
echo "$hello" | grep -q '"type":"hello"' || fail "no hello through the bridge: $hello"
say "systemctl start touchgestured-web: active, serves /touchgestured.js, a WebSocket gets the daemon's hello"
# The metrics unit as node_exporter's package would have it: its user and textfile folder.
useradd --system prometheus && install -d -o prometheus /var/lib/prometheus/node-exporter
systemctl start touchgestured-metrics.service || fail "systemctl start touchgestured-metrics.service"
grep -q '^touchgestured_up 1' /var/lib/prometheus/node-exporter/touchgestured.prom || fail "metrics: $(head -3 /var/lib/prometheus/node-exporter/touchgestured.prom)"
say "systemctl start touchgestured-metrics: touchgestured_up 1 in node_exporter's textfile folder"
apt-get remove -y -qq touchgestured > /check/remove.log 2>&1 || fail "apt-get remove"
[ "$(systemctl is-active touchgestured)" != active ] || fail "touchgestured still active after remove"
[ "$(systemctl is-active touchgestured-web)" != active ] || fail "touchgestured-web still active after remove"
[ -e /etc/touchgestured/touchgestured.toml ] || fail "remove took the config"
[ ! -e /var/lib/prometheus/node-exporter/touchgestured.prom ] || fail "remove left the metrics file"
say "apt-get remove: the daemon and the bridge stopped, the metrics file gone, the config kept"
apt-get purge -y -qq touchgestured > /check/purge.log 2>&1 || fail "apt-get purge"
left=$(find /etc /lib/systemd /lib/udev /usr/bin /usr/lib/sysusers.d /usr/lib/tmpfiles.d /usr/share /run -name '*touchgestured*' 2>/dev/null)
[ -z "$left" ] || fail "purge left: $left"
say "apt-get purge: nothing named touchgestured left in /etc, /lib, /usr or /run"
say PASS
