// A bottom sheet whose list hands the same stroke on to the sheet (touchgestured-web serves it at
// /sheet): two client regions, the sheet with snap points and the list chained to it
// (`drag.chain`, docs/CONFIG.md "Scroll chaining"). The page moves each element by its own
// region's lines (`offset` while the finger is down, `target` after) and knows nothing of the rule.
import { connect } from "./touchgestured.js";

const $ = (q) => document.querySelector(q);
const items = $("#items");
for (let i = 1; i <= 30; i++) {
  const li = document.createElement("li");
  li.textContent = `Place ${i}`;
  items.append(li);
}

// What the page saw, for the browser test (Tests/web/sheet.py) and anyone curious in DevTools.
// `idle` counts `changed` lines that moved nothing (a chained stroke gives none).
const state = (window.sheetDemo = {
  ready: false, sheet: 250, list: 0, lines: { sheet: 0, places: 0 }, idle: { sheet: 0, places: 0 }, ends: [],
});
const tg = connect();

function place(element, y, settle) {
  element.classList.toggle("settling", settle);
  element.style.transform = `translateY(${y}px)`;
}
place($("#sheet"), state.sheet, false); // half open, as the sheet's `initial`

const SNAP = [0, 250, 500]; // open, half, peeking (CSS px the sheet is moved down)
const sheet = tg.region($("#sheet"), {
  name: "sheet",
  gestures: [{ kind: "pan", name: "drag", axis: "vertical" }],
  drag: { projection: 150, initial: [0, 250], y: { min: 0, max: 500, mode: "rubber_band", factor: 0.3, snap: SNAP } },
});
const list = tg.region($("#list"), {
  name: "places",
  gestures: [{ kind: "pan", name: "scroll", axis: "vertical" }],
  drag: {
    chain: "sheet",
    chain_outer_first: "up",
    projection: 300,
    y: { min: Math.min(0, $("#list").clientHeight - items.scrollHeight), max: 0, mode: "rubber_band", factor: 0.3 },
  },
});


// Ready once the daemon took both regions (they go in one set_regions; `registered` is set
// just after its event).
const ready = () => queueMicrotask(() => (state.ready = sheet.registered && list.registered));
sheet.on("registered", ready);
list.on("registered", ready);

sheet.on("pan", (g) => {
  state.lines.sheet += 1;
  if (g.phase === "changed" && g.consumed.y === 0) state.idle.sheet += 1;
  const done = g.phase === "ended" || g.phase === "cancelled";
  state.sheet = done ? g.target.y : g.offset.y;
  place($("#sheet"), state.sheet, done);
  if (done) state.ends.push(`sheet ${Math.round(g.target.y)}`);
});

list.on("pan", (g) => {
  state.lines.places += 1;
  if (g.phase === "changed" && g.consumed.y === 0) state.idle.places += 1;
  const done = g.phase === "ended" || g.phase === "cancelled";
  state.list = done ? g.target.y : g.offset.y;
  place(items, state.list, done);
  if (done) state.ends.push(`list ${Math.round(g.target.y)}`);
});
