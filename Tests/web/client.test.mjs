// The JavaScript client (web/touchgestured.js) against a fake WebSocket, with node's test runner:
//   node --test Tests/web/
// What the page sends (subscribe and set_regions on every hello, rectangles and drag bounds in
// screen px), what it hears (lines in CSS px, by kind and name, to the region's listeners), and
// reconnecting. The test owns the clock: node's mock timers (no real waits, no timing to race).
import assert from "node:assert/strict";
import { mock, test } from "node:test";

mock.timers.enable({ apis: ["setTimeout"] });

const sockets = [];
class FakeWebSocket {
  constructor(url) {
    this.url = url;
    this.sent = [];
    sockets.push(this);
    if (!FakeWebSocket.refusing) queueMicrotask(() => this.onopen?.());
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  close() {
    this.onclose?.();
  }
  receive(line) {
    this.onmessage({ data: JSON.stringify(line) });
  }
}
globalThis.WebSocket = FakeWebSocket;
// The window's events (pagehide, pageshow), dispatched by hand.
const pageListeners = {};
globalThis.addEventListener = (type, fn) => (pageListeners[type] ??= []).push(fn);
const pageEvent = (type, e) => (pageListeners[type] ?? []).forEach((f) => f(e));
globalThis.devicePixelRatio = 2;
globalThis.requestAnimationFrame = (f) => setTimeout(f, 0);

const { connect } = await import("../../web/touchgestured.js");
/** Lets what is queued run: the promise jobs (a socket opening), then the timers due by `ms`
 * from now (a frame's work, a retry), then the jobs those queued. */
async function tick(ms = 0) {
  for (let i = 0; i < 3; i++) await Promise.resolve();
  mock.timers.tick(ms);
  for (let i = 0; i < 3; i++) await Promise.resolve();
}
const element = (left, top, width, height) => ({ getBoundingClientRect: () => ({ left, top, width, height }) });
const hello = { type: "hello", protocol: 1, screen: { width: 2560, height: 1600 } };

/** A client with one tap region named `name`, its socket open and told the daemon's hello. */
async function helloed(name) {
  const tg = connect({ url: "ws://bridge/gestures" });
  tg.region(element(0, 0, 50, 50), { name, gestures: [{ kind: "tap" }] });
  await tick();
  const ws = sockets.at(-1);
  const status = [];
  tg.on("status", (s) => status.push(s.daemon));
  ws.receive(hello);
  await tick();
  return { tg, ws, status };
}

test("regions: sent on hello in screen px, registered on the reply, events in CSS px", async () => {
  const tg = connect({ url: "ws://bridge/gestures", subscribe: { gestures: ["pan", "tap"] } });
  const row = tg.region(element(10, 20, 400, 100), {
    name: "row",
    gestures: [{ kind: "pan", axis: "horizontal" }],
    drag: { projection: 150, x: { min: -300, max: 0, mode: "rubber_band", snap: [0, -300] } },
  });
  await tick();
  const ws = sockets.at(-1);
  assert.equal(ws.url, "ws://bridge/gestures");
  ws.receive({ type: "bridge", daemon: "up" });
  ws.receive(hello);
  await tick();
  const [subscribe, setRegions] = ws.sent;
  assert.deepEqual(subscribe, { op: "subscribe", id: subscribe.id, gestures: ["pan", "tap"] });
  assert.equal(setRegions.op, "set_regions");
  assert.deepEqual(setRegions.regions, [{
    name: "row", rect: [20, 40, 800, 200], gestures: [{ kind: "pan", axis: "horizontal" }],
    drag: { projection: 150, x: { min: -600, max: 0, mode: "rubber_band", snap: [0, -600] } },
  }]);
  let registered = false;
  row.on("registered", () => (registered = true));
  ws.receive({ type: "reply", id: setRegions.id, ok: true, op: "set_regions", regions: ["row"] });
  await tick();
  assert.ok(registered && row.registered);

  const heard = [];
  row.on("pan", (g) => heard.push(["pan", g.x, g.dx, g.offset.x]));
  row.on("slide", (g) => heard.push(["slide", g.phase]));
  tg.on("gesture", (g) => heard.push(["all", g.gesture]));
  ws.receive({ type: "gesture", gesture: "pan", name: "slide", phase: "changed", id: 1, x: 300, y: 80, region: "row", dx: -100, dy: 0, offset: { x: -100, y: 0 } });
  ws.receive({ type: "gesture", gesture: "tap", phase: "recognized", id: 2, x: 10, y: 10, count: 1 });
  assert.deepEqual(heard, [["all", "pan"], ["pan", 150, -50, -50], ["slide", "changed"], ["all", "tap"]]);
  tg.close();
});

test("the daemon away and back: status, requests refused, state sent again", async () => {
  const { tg, ws, status } = await helloed("b");
  ws.receive({ type: "bridge", daemon: "down" });
  assert.deepEqual(status, [true, false]);
  ws.receive({ type: "bridge", daemon: "up" });
  ws.receive(hello);
  await tick();
  assert.equal(ws.sent.filter((m) => m.op === "set_regions").length, 2, "regions again after the new hello");
  const ping = tg.request("ping");
  ws.receive({ type: "error", id: ws.sent.at(-1).id, ok: false, code: "daemon_unavailable", message: "away" });
  await assert.rejects(ping, (e) => e.line.code === "daemon_unavailable");
  tg.close();
});

test("a closed connection is opened again, and the regions follow", async () => {
  const { tg, ws: first } = await helloed("c");
  first.onclose();  // the bridge went away
  assert.equal(tg.connected, false);
  await tick(249);
  assert.equal(sockets.at(-1), first, "no retry before 250 ms");
  await tick(1);  // the first retry: 250 ms
  const second = sockets.at(-1);
  assert.notEqual(second, first);
  second.receive(hello);
  await tick();
  assert.deepEqual(second.sent.map((m) => m.op), ["set_regions"]);
  tg.close();
});

test("the default export: one shared connection to the module's own bridge", async () => {
  const { default: touchgestured } = await import("../../web/touchgestured.js");
  const before = sockets.length;
  const box = touchgestured.region(element(0, 0, 10, 10), { name: "d", gestures: [{ kind: "tap" }], priority: "high" });
  touchgestured.on("tap", () => {});
  assert.equal(sockets.length, before + 1, "region and on share one connection");
  assert.equal(touchgestured.connection.regions.get("d"), box);
  assert.match(sockets.at(-1).url, /^ws:\/\/.*\/gestures$/);
  touchgestured.connection.close();
});

test("regions a reload dropped: no longer registered, each told, sent again with the screen line", async () => {
  const { tg, ws } = await helloed("e");
  const box = tg.regions.get("e");
  ws.receive({ type: "reply", id: ws.sent.at(-1).id, ok: true, op: "set_regions", regions: ["e"] });
  await tick();
  assert.ok(box.registered);
  const told = [];
  box.on("error", (l) => told.push(l.code));
  ws.receive({ type: "error", code: "regions_dropped", message: "they do not fit the reloaded configuration" });
  assert.equal(box.registered, false);
  assert.deepEqual(told, ["regions_dropped"]);
  // Its gestures are no longer its (another client may hold the name now).
  const heard = [];
  box.on("tap", () => heard.push("tap"));
  ws.receive({ type: "gesture", gesture: "tap", phase: "recognized", id: 3, x: 10, y: 10, region: "e" });
  assert.deepEqual(heard, []);
  ws.receive({ type: "screen", screen: { width: 1280, height: 800 } });
  await tick();
  assert.equal(ws.sent.filter((m) => m.op === "set_regions").length, 2, "the same regions again");
  // update() sends them again too, changed or not.
  box.update();
  await tick();
  assert.equal(ws.sent.filter((m) => m.op === "set_regions").length, 3);
  tg.close();
});

test("a gesture named as one of the module's events is heard under its kind only", async () => {
  const { tg, ws } = await helloed("f");
  const heard = [];
  tg.on("screen", () => heard.push("screen"));
  tg.on("tap", () => heard.push("tap"));
  ws.receive({ type: "gesture", gesture: "tap", name: "screen", phase: "recognized", id: 4, x: 1, y: 1 });
  assert.deepEqual(heard, ["tap"]);
  tg.close();
});

test("regions without a name or id get names that never repeat", async () => {
  const tg = connect({ url: "ws://bridge/gestures" });
  const a = tg.region(element(0, 0, 5, 5), {});
  tg.region(element(0, 0, 5, 5), {});
  a.remove();
  const c = tg.region(element(0, 0, 5, 5), {});
  assert.equal(new Set([...tg.regions.keys(), a.name]).size, 3, `${[...tg.regions.keys()]} ${a.name}`);
  assert.match(c.name, /^region-[a-z0-9]+-3$/);
  tg.close();
});

test("a page put in the back/forward cache lets go of its regions, and takes them again when shown", async () => {
  const { tg, ws } = await helloed("g");
  const before = sockets.length;
  pageEvent("pagehide", { persisted: true });
  assert.equal(tg.connected, false);
  await tick(10000);
  assert.equal(sockets.length, before, "no reconnect while hidden");
  pageEvent("pageshow", { persisted: true });
  await tick();
  const again = sockets.at(-1);
  assert.notEqual(again, ws);
  again.receive(hello);
  await tick();
  assert.deepEqual(again.sent.map((m) => m.op), ["set_regions"]);
  tg.close();
});

test("a bridge that cannot be reached (or refuses the page's origin) is said once", async () => {
  FakeWebSocket.refusing = true;
  const tg = connect({ url: "ws://bridge/gestures" });
  const said = [];
  tg.on("error", (l) => said.push(l.code));
  sockets.at(-1).onclose();
  await tick(250);
  sockets.at(-1).onclose();
  assert.deepEqual(said, ["unreachable"]);
  FakeWebSocket.refusing = false;
  await tick(500);
  assert.equal(tg.connected, true);
  tg.close();
});

test("hidden into the cache while retrying: one connection when shown, requests failed at once", async () => {
  const { tg, ws } = await helloed("h");
  const ping = tg.request("ping");
  ws.onclose();  // the bridge went away: a retry is due in 250 ms
  await assert.rejects(ping);
  const again = tg.request("ping");  // not connected
  await assert.rejects(again);
  pageEvent("pagehide", { persisted: true });
  const before = sockets.length;
  await tick(10000);
  assert.equal(sockets.length, before, "the retry was let go with the page");
  pageEvent("pageshow", { persisted: true });
  await tick(10000);
  assert.equal(sockets.length, before + 1, "one connection");
  tg.close();
});

test("a request waiting when the page is hidden fails then, and update() sends nothing unchanged", async () => {
  const { tg, ws } = await helloed("i");
  ws.receive({ type: "reply", id: ws.sent.at(-1).id, ok: true, op: "set_regions", regions: ["i"] });
  await tick();
  tg.regions.get("i").update();
  await tick();
  assert.equal(ws.sent.filter((m) => m.op === "set_regions").length, 1, "nothing changed, nothing sent");
  const ping = tg.request("ping");
  pageEvent("pagehide", { persisted: true });
  await assert.rejects(ping);
  assert.equal(tg.regions.get("i").registered, false);
  pageEvent("pageshow", { persisted: true });
  tg.close();
});
