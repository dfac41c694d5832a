// touchgestured-region.js: a page's element as a client region of touchgestured.js's connection
// (part of touchgestured.js, served beside it).

/** Calls fn(detail, event) for events of `type` on `target`; returns a function that stops it. */
export function listen(target, type, fn) {
  const handler = (e) => fn(e.detail, e);
  target.addEventListener(type, handler);
  return () => target.removeEventListener(type, handler);
}

/**
 * A DOM element registered as a client region. Its events are the gesture lines of its region
 * (under `gesture`, the kind and the name, as on TouchGestured), `registered` when the daemon took
 * it, and `error` when the daemon refused the page's regions.
 */
export class GestureRegion extends EventTarget {
  constructor(client, element, name, options) {
    super();
    this.client = client;
    this.element = element;
    this.name = name;
    this.options = options;
    this.registered = false;
  }

  on(type, fn) {
    return listen(this, type, fn);
  }

  /** Sends the page's regions again: when they changed (after a change the observers cannot
   * see, such as a CSS transform), or, changed or not, after the daemon refused or dropped them
   * (an `error`), to try again. */
  update() {
    if (this.client._refused) this.client._sentRegions = null;
    this.client.layoutChanged();
  }

  /** Unregisters the region. */
  remove() {
    this.client.regions.delete(this.name);
    this.client._resize?.unobserve(this.element);
    this.client.layoutChanged();
  }

  _setRegistered(yes) {
    if (yes && !this.registered) this.dispatchEvent(new CustomEvent("registered", { detail: this._spec() }));
    this.registered = yes;
  }

  /** The region object for set_regions, or null while the element has no box. */
  _spec() {
    const box = this.element.getBoundingClientRect();
    if (box.width < 1 || box.height < 1) return null;
    const s = this.client.pixelScale;
    const [ox, oy] = this.client.origin;
    const x = Math.round(box.left * s + ox);
    const y = Math.round(box.top * s + oy);
    const spec = {
      name: this.name,
      rect: [x, y, Math.max(1, Math.round((box.left + box.width) * s + ox) - x), Math.max(1, Math.round((box.top + box.height) * s + oy) - y)],
    };
    const o = this.options;
    if (o.gestures || o.gesture) spec.gestures = o.gestures || o.gesture;
    if (o.priority) spec.priority = o.priority;
    if (o.standard_gestures !== undefined) spec.standard_gestures = o.standard_gestures;
    if (o.drag) spec.drag = scaleDrag(o.drag, s);
    return spec;
  }
}

/** Drag constraints in CSS px as the daemon's screen px (bounds, snap points, initial, limit). */
function scaleDrag(drag, s) {
  const out = { ...drag };
  if (drag.initial) out.initial = drag.initial.map((v) => v * s);
  for (const axis of ["x", "y"]) {
    const a = drag[axis];
    if (!a) continue;
    out[axis] = { ...a };
    for (const k of ["min", "max", "limit"]) if (typeof a[k] === "number") out[axis][k] = a[k] * s;
    if (a.snap) out[axis].snap = a.snap.map((v) => v * s);
  }
  return out;
}
