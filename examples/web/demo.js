// The example page: a photo carousel that snaps from slide to slide and a list with
// pull-to-refresh, both moved by the engine's drag constraints (offset, rubber band, snap target)
// rather than by the page's own touch handling. Served by touchgestured-web at /.
import { connect } from "./touchgestured.js";

const $ = (q) => document.querySelector(q);
const slides = [...document.querySelectorAll(".slide")];
const dots = [...document.querySelectorAll("#dots i")];
const PULL_TO_REFRESH = 60; // CSS px the list must be pulled down before the lift

// What the page saw, for the browser test (Tests/web) and for anyone curious in DevTools.
const demo = (window.demo = { ready: false, counts: {}, regions: {}, slide: 0, refreshes: 0, status: null });

const tg = connect();

tg.on("status", (s) => {
  demo.status = s;
  if (!s.daemon) for (const r of Object.values(demo.regions)) r.registered = false;
  demo.ready = Object.values(demo.regions).every((r) => r.registered);
  const el = $("#status");
  el.className = `status ${s.daemon ? "up" : "down"}`;
  el.textContent = s.daemon ? "touchgestured" : s.connected ? "daemon away…" : "reconnecting…";
});

tg.on("gesture", (g) => {
  const key = g.name ?? g.gesture;
  demo.counts[key] = (demo.counts[key] ?? 0) + 1;
  if (g.phase === "changed") return;
  const li = document.createElement("li");
  li.textContent = `${g.region ?? "screen"} · ${key} ${g.phase}${g.direction ? " " + g.direction : ""}`;
  $("#log").prepend(li);
  while ($("#log").children.length > 12) $("#log").lastChild.remove();
});

// The carousel: one horizontal pan whose offset the engine keeps within the slides, rubber-banded
// past the first and last, and snapped to a slide (with 150 ms of the release velocity) on release.
function carouselDrag() {
  const width = $("#carousel").clientWidth;
  const snap = slides.map((_, i) => -i * width);
  return { projection: 150, x: { min: snap[snap.length - 1], max: 0, mode: "rubber_band", factor: 0.3, snap } };
}

const carousel = tg.region($("#carousel"), {
  gestures: [{ kind: "pan", name: "slide", axis: "horizontal" }, { kind: "tap", name: "like" }],
  drag: carouselDrag(),
});

function moveTrack(x, settle) {
  $("#track").classList.toggle("settling", settle);
  $("#track").style.transform = `translateX(${x}px)`;
}

carousel.on("pan", (g) => {
  if (g.phase === "began" || g.phase === "changed") return moveTrack(g.offset.x, false);
  moveTrack(g.target.x, true);
  demo.slide = Math.round(-g.target.x / $("#carousel").clientWidth);
  dots.forEach((d, i) => d.classList.toggle("on", i === demo.slide));
});

carousel.on("like", () => slides[demo.slide].classList.toggle("liked"));

// The list: a vertical pan held at 0 both ways by a rubber band that stretches at most 120 px.
// Pulled down far enough and let go: a refresh; the engine's target brings it back to 0.
const feed = tg.region($("#feed"), {
  gestures: [{ kind: "pan", name: "pull", axis: "vertical" }],
  drag: { y: { min: 0, max: 0, mode: "rubber_band_exp", limit: 120 } },
});

function moveList(y, settle) {
  $("#items").classList.toggle("settling", settle);
  $("#items").style.transform = `translateY(${y}px)`;
}

feed.on("pan", (g) => {
  if (g.phase === "began" || g.phase === "changed") {
    $("#pull-text").textContent = g.offset.y >= PULL_TO_REFRESH ? "Release to refresh" : "Pull to refresh";
    return moveList(g.offset.y, false);
  }
  const refresh = g.phase === "ended" && g.offset.y >= PULL_TO_REFRESH;
  moveList(refresh ? 48 : g.target.y, true);
  if (!refresh) return;
  $("#pull-text").textContent = "Refreshing…";
  setTimeout(() => {
    demo.refreshes += 1;
    const li = document.createElement("li");
    li.className = "new";
    li.textContent = `News ${demo.refreshes}: the rooftop is open`;
    $("#items").prepend(li);
    moveList(g.target.y, true);
    $("#pull-text").textContent = "Pull to refresh";
  }, 600);
});

for (const [name, region] of [["carousel", carousel], ["feed", feed]]) {
  demo.regions[name] = { registered: false, registrations: 0, events: 0 };
  region.on("registered", () => {
    demo.regions[name].registered = true;
    demo.regions[name].registrations++;
    demo.ready = Object.values(demo.regions).every((r) => r.registered);
  });
  region.on("gesture", () => demo.regions[name].events++);
  region.on("error", (e) => (demo.regions[name].error = e.message ?? String(e)));
}

// The carousel's bounds and snap points follow its width.
new ResizeObserver(() => {
  carousel.options.drag = carouselDrag();
  carousel.update();
}).observe($("#carousel"));
