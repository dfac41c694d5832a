// The calibration page (touchgestured-web serves it at /calibrate): four targets drawn in the
// kiosk's own browser; each touch is read from the daemon's touch lines (the finger's place on the
// panel's own axes, u and v, which no calibration has touched), the daemon fits the matrix
// (`calibrate`), the page shows each touch's error, and Save keeps it (the daemon's state folder,
// applied at once). Saving needs the rights of the daemon socket's group.
//
// Query: ?device=ID (default: the first panel), ?inset=PERCENT (targets this far in from the
// corners, default 10), ?max_error=MM (default: the daemon's, 6), ?origin=X,Y (screen px of the
// page's top-left corner, when the page does not start at the screen's).
import { connect } from "./touchgestured.js";

const params = new URLSearchParams(location.search);
const inset = Math.min(40, Math.max(0, Number(params.get("inset") ?? 10))) / 100;
const origin = (params.get("origin") ?? "0,0").split(",").map(Number);
const maxError = params.has("max_error") ? Number(params.get("max_error")) : undefined;
const NAMES = ["top left", "top right", "bottom left", "bottom right"];

const $ = (id) => document.getElementById(id);
const tg = connect({ origin, subscribe: { touches: true, gestures: ["tap"] } });

// What the test (and a curious admin, in the console) reads.
const state = (window.calibration = { state: "connecting", device: null, points: [], fit: null, saved: null, error: null });

/** The targets in CSS px (fractions of the viewport) and in screen px (what the daemon fits to). */
function targets() {
  const w = innerWidth, h = innerHeight, s = tg.pixelScale;
  return [[inset, inset], [1 - inset, inset], [inset, 1 - inset], [1 - inset, 1 - inset]].map(([fx, fy]) => ({
    css: [fx * w, fy * h],
    screen: [origin[0] + fx * w * s, origin[1] + fy * h * s],
  }));
}

/** One finger from landing to lift: the median of its places (a finger rolls as it lands). */
const follower = { us: [], vs: [], fingers: 0 };
function median(a) {
  const s = [...a].sort((x, y) => x - y), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function show(progress, result = "", error = false) {
  $("progress").textContent = progress;
  $("result").textContent = result;
  $("result").className = error ? "error" : "";
}

function ask() {
  const i = state.points.length;
  const t = targets()[i];
  Object.assign($("target").style, { left: `${t.css[0]}px`, top: `${t.css[1]}px`, visibility: "visible" });
  $("target").className = "";
  $("buttons").style.visibility = "hidden";
  state.state = "collecting";
  show(`Touch the ${NAMES[i]} target with one finger (${i + 1} of 4)`);
}

function start() {
  state.points = [];
  state.fit = state.saved = state.error = null;
  follower.us = [];
  follower.vs = [];
  follower.fingers = 0;
  ask();
}

/** The panel to calibrate among `devices`: ?device=ID, else the first; calibration starts with it. */
function pick(devices) {
  const wanted = params.has("device") ? Number(params.get("device")) : devices[0]?.id;
  const device = devices.find((d) => d.id === wanted);
  if (!device) {
    state.state = "no device";
    show("No touch panel yet", params.has("device") ? `Waiting for device ${wanted}.` : "Waiting for the daemon to read a touch panel.");
    return;
  }
  state.device = device.id;
  if (state.state === "connecting" || state.state === "no device") start();
}

tg.on("hello", (hello) => pick(hello.devices));
// A panel plugged in (or a replay started) after the page opened.
tg.on("device", (line) => {
  if (line.action === "added" && (state.state === "no device" || state.state === "connecting")) pick([line.device]);
});

tg.on("touch", (line) => {
  if (state.state !== "collecting" || line.device !== state.device) return;
  if (line.contacts.length > 0) {
    follower.fingers = Math.max(follower.fingers, line.contacts.length);
    const c = line.contacts[0];
    if (line.contacts.length === 1 && c.u !== undefined) {
      follower.us.push(c.u);
      follower.vs.push(c.v);
    }
    return;
  }
  const single = follower.fingers === 1 && follower.us.length > 0;
  const u = single ? median(follower.us) : 0, v = single ? median(follower.vs) : 0;
  follower.us = [];
  follower.vs = [];
  follower.fingers = 0;
  if (!single) return show(`One finger at a time: touch the ${NAMES[state.points.length]} target again`);
  const t = targets()[state.points.length];
  state.points.push({ u, v, x: t.screen[0], y: t.screen[1] });
  $("target").className = "done";
  if (state.points.length < 4) return setTimeout(ask, 250);
  fit();
});

function request(save) {
  const fields = { device: state.device, points: state.points, save };
  if (maxError !== undefined) fields.max_error_mm = maxError;
  return tg.request("calibrate", fields);
}

async function fit() {
  state.state = "fitting";
  $("target").style.visibility = "hidden";
  show("Fitting…");
  try {
    const r = await request(false);
    state.fit = r;
    state.state = "fitted";
    const lines = r.residual_mm.map((mm, i) => `${NAMES[i]}: ${mm.toFixed(1)} mm (${r.residual_px[i].toFixed(1)} px) off`);
    show(`Largest error ${r.worst_mm.toFixed(1)} mm. Save it?`, lines.join("\n") + `\ncalibration = [${r.calibration.join(", ")}]`);
    $("buttons").style.visibility = "visible";
  } catch (e) {
    state.state = "refused";
    state.error = e.line?.message ?? String(e);
    show("Calibration refused: touch the targets again", state.error, true);
    $("buttons").style.visibility = "visible";
    $("save").style.visibility = "hidden";
  }
}

async function save() {
  if (state.state !== "fitted") return;
  state.state = "saving";
  show("Saving…", $("result").textContent);
  try {
    const r = await request(true);
    state.saved = r.saved;
    state.state = "saved";
    show("Saved and applied", `Kept in ${r.saved}; touches land where the finger is from now on.`);
    $("buttons").style.visibility = "hidden";
  } catch (e) {
    state.state = "fitted";
    state.error = e.line?.message ?? String(e);
    show("Not saved", state.error, true);
  }
}

function again() {
  if (state.state === "fitted" || state.state === "refused") {
    $("save").style.visibility = "";
    start();
  }
}

// The buttons answer a click (the browser got the touch) and a tap the daemon saw in their box
// (a page whose browser gets no touch, or a kiosk in grab mode); each acts once per state.
$("save").addEventListener("click", save);
$("again").addEventListener("click", again);
tg.region($("save"), { name: "calibrate-save", gestures: [{ kind: "tap", name: "save" }], priority: "high" }).on("tap", save);
tg.region($("again"), { name: "calibrate-again", gestures: [{ kind: "tap", name: "again" }], priority: "high" }).on("tap", again);
tg.on("status", (s) => {
  if (!s.connected || !s.daemon) show("Waiting for touchgestured…");
});
