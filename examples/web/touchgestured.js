// touchgestured.js: touchgestured's gestures in a web page, through touchgestured-web.
// An ES module, no build step, its two parts served beside it. The bridge serves it at /touchgestured.js.
//
//   import { connect } from "/touchgestured.js";
//   const tg = connect();                       // ws://<this page's host>/gestures
//   tg.on("swipe", (g) => console.log(g.direction));
//   const row = tg.region(document.querySelector("#carousel"), {
//     gestures: [{ kind: "pan", axis: "horizontal" }, { kind: "tap" }],
//     drag: { x: { min: -1600, max: 0, mode: "rubber_band", snap: [0, -800, -1600] } },
//   });
//   row.on("pan", (g) => { track.style.transform = `translateX(${g.offset.x}px)`; });
//
// Units: the page is taken to fill the screen from its top-left corner, as a kiosk browser does.
// A region's rectangle is the element's bounding box in CSS px times `scale` (devicePixelRatio by
// default), plus `origin` (screen px of the page's top-left, [0, 0] by default). Positions, distances
// and velocities in the events, and drag bounds and snap points in region options, are in CSS px.
// Lines are as docs/PROTOCOL.md describes them; the module converts their px fields only.

// Its parts, served beside it: a region (touchgestured-region.js), a line and its units (touchgestured-lines.js).
import { GestureRegion, listen } from "./touchgestured-region.js";
import { toCSS } from "./touchgestured-lines.js";

export { GestureRegion };

export const PROTOCOL = 1;

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5000;
/** The module's own events: a gesture configured with one of these names is heard under its kind only. */
const EVENTS = new Set([
  "status", "hello", "screen", "device", "idle", "wake", "touch", "keyboard", "error", "gesture", "registered", "bridge", "reply", "action", "pointer",
]);

/** Connects to the bridge; see TouchGestured for the options. */
export function connect(options = {}) {
  return new TouchGestured(options);
}

/** The default endpoint: the bridge that served this module. */
function defaultURL() {
  const here = new URL(import.meta.url);
  return `${here.protocol === "https:" ? "wss:" : "ws:"}//${here.host}/gestures`;
}

/**
 * A connection to touchgestured through the bridge, reconnecting by itself. Events (listen with
 * `on(type, fn)` or addEventListener; `detail` is the line):
 *   status  {connected, daemon}: the WebSocket is open / the bridge reaches the daemon
 *   hello, device, idle, wake, touch: the daemon's lines of those types
 *   screen: a reload changed the daemon's screen (the regions are sent again)
 *   gesture: every gesture line; also under its kind (tap, long_press, pan, swipe, pinch,
 *            edge_swipe, stroke) and, when the configured name differs (double_tap), under the
 *            name, unless the name is one of these events' (a gesture named "screen" is a tap)
 *   error: an error line that answers no request of this client's (regions_dropped: the regions
 *          are no longer registered; they are sent again at the next layout change, `screen`
 *          line or `update()`), or {code: "unreachable"} when the bridge cannot be reached or
 *          refuses this page (its origin: touchgestured-web --allow-origin), once until it opens
 */
export class TouchGestured extends EventTarget {
  /**
   * @param {object} options
   * @param {string} [options.url] the endpoint (default: /gestures on the module's host)
   * @param {object} [options.subscribe] a `subscribe` request's fields, sent on every hello
   * @param {number} [options.scale] screen px per CSS px (default devicePixelRatio)
   * @param {number[]} [options.origin] screen px of the page's top-left corner (default [0, 0])
   * @param {boolean} [options.reconnect] reconnect when the connection closes (default true)
   */
  constructor(options = {}) {
    super();
    this.url = options.url ?? defaultURL();
    this.subscription = options.subscribe ?? null;
    this.scale = options.scale ?? null;
    this.origin = options.origin ?? [0, 0];
    this.reconnect = options.reconnect ?? true;
    this.connected = false;
    this.daemon = false;
    this.screen = null;
    this.regions = new Map();
    this._pending = new Map();
    this._nextId = 1;
    this._retryMs = FIRST_RETRY_MS;
    this._sentRegions = null;
    this._scheduled = false;
    this._closed = false;
    this._suspended = false;
    this._windowListeners = [];
    this._retryTimer = null;
    this._refused = false;
    this._unreachableSaid = false;
    this._token = Math.random().toString(36).slice(2, 8);
    this._autoNames = 0;
    this._watchLayout();
    this._watchPage();
    this._open();
  }

  on(type, fn) {
    return listen(this, type, fn);
  }

  /** Screen px per CSS px. */
  get pixelScale() {
    return this.scale ?? globalThis.devicePixelRatio ?? 1;
  }

  /** Sends a request; resolves with its reply line, rejects with an Error carrying the error line. */
  request(op, fields = {}) {
    if (!this.connected) return Promise.reject(new Error("touchgestured: not connected"));
    const id = `tg${this._nextId++}`;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      this._ws.send(JSON.stringify({ op, id, ...fields }));
    });
  }

  /** Sets what this page hears (a `subscribe` request's fields), now and after every reconnect. */
  subscribe(fields) {
    this.subscription = fields;
    return this.daemon ? this.request("subscribe", fields) : Promise.resolve(null);
  }

  /**
   * Makes `element` a gesture region: its box, kept up to date, is sent as a client region with
   * these gestures, so the engine arbitrates them with the rest (docs/CONFIG.md, [[region]]).
   * @param {Element} element
   * @param {object} options `gestures` (the [[region.gesture]] objects), `name` (default: the
   *   element's id), `priority`, `drag` (in CSS px), `standard_gestures`
   */
  region(element, options = {}) {
    // Without a name or an id: one no other region of this page or another tab's takes.
    const name = options.name ?? (element.id || `region-${this._token}-${++this._autoNames}`);
    if (this.regions.has(name)) throw new Error(`touchgestured: a region named ${name} exists`);
    const region = new GestureRegion(this, element, name, options);
    this.regions.set(name, region);
    this._resize?.observe(element);
    this.layoutChanged();
    return region;
  }

  /** Sends the regions' boxes again if they moved (called on resize, scroll and by hand). */
  layoutChanged() {
    if (this._scheduled) return;
    this._scheduled = true;
    const later = globalThis.requestAnimationFrame ?? ((f) => setTimeout(f, 16));
    later(() => {
      this._scheduled = false;
      this._sendRegions(false);
    });
  }

  /** Closes the connection for good. */
  close() {
    this._closed = true;
    this._resize?.disconnect();
    clearTimeout(this._retryTimer);
    for (const [type, fn, options] of this._windowListeners) globalThis.removeEventListener?.(type, fn, options);
    this._ws?.close(1000);
  }

  _open() {
    const ws = new WebSocket(this.url);
    this._ws = ws;
    let opened = false;
    ws.onopen = () => {
      if (this._ws !== ws) return;  // (the same for its lines: a socket let go of says nothing more)
      opened = true;
      this._unreachableSaid = false;
      this._retryMs = FIRST_RETRY_MS;
      this._setStatus(true, this.daemon);
    };
    ws.onmessage = (m) => {
      if (this._ws === ws) this._receive(m.data);
    };
    ws.onclose = () => {
      if (this._ws !== ws) return;  // a socket let go of (the page was hidden into the cache)
      this._ws = null;
      this._lost();
      if (!opened && !this._closed && !this._unreachableSaid) {
        // The browser hides why (an HTTP 403 or 503): said once until a connection opens.
        this._unreachableSaid = true;
        const origin = globalThis.location?.origin ?? "ORIGIN";
        const message = `cannot open ${this.url}: the bridge is not running there, is full, or refuses this page's origin (allow it with touchgestured-web --allow-origin ${origin}); the bridge's log says which`;
        this._emit(this, "error", { type: "error", code: "unreachable", message });
      }
      if (this._closed || !this.reconnect) return;
      this._retryTimer = setTimeout(() => {
        this._retryTimer = null;
        this._open();
      }, this._retryMs);
      this._retryMs = Math.min(this._retryMs * 2, LAST_RETRY_MS);
    };
  }

  /** The connection is gone: requests waiting fail, the daemon holds nothing of this page. */
  _lost() {
    for (const p of this._pending.values()) p.reject(new Error("touchgestured: connection closed"));
    this._pending.clear();
    this._sentRegions = null;
    this._setStatus(false, false);
  }

  /**
   * A page kept in the browser's back/forward cache keeps its sockets open: its regions would
   * stay the daemon's (over the next page's, under the same names). Closed when it is hidden
   * into the cache, opened again when it is shown from it.
   */
  _watchPage() {
    const hide = (e) => {
      if (!e.persisted || this._closed) return;
      // Let go at once (the close event may come only once the page is shown again): no retry
      // pending, no request waiting, nothing registered.
      this._suspended = true;
      clearTimeout(this._retryTimer);
      this._retryTimer = null;
      const ws = this._ws;
      this._ws = null;
      // Connected again when shown: as it was (with `reconnect` off, only if it was open).
      this._resume = ws !== null || this.reconnect;
      this._lost();
      ws?.close(1000);
    };
    const show = (e) => {
      if (!e.persisted || this._closed || !this._suspended) return;
      this._suspended = false;
      this._retryMs = FIRST_RETRY_MS;
      if (this._resume) this._open();
    };
    this._listen("pagehide", hide);
    this._listen("pageshow", show);
  }

  /** A window event listener, removed by close(). */
  _listen(type, fn, options) {
    this._windowListeners.push([type, fn, options]);
    globalThis.addEventListener?.(type, fn, options);
  }

  _setStatus(connected, daemon) {
    if (connected === this.connected && daemon === this.daemon) return;
    this.connected = connected;
    this.daemon = daemon;
    // The daemon forgets a client's regions with its connection: registered again on the next hello.
    if (!daemon) for (const r of this.regions.values()) r.registered = false;
    this._emit(this, "status", { connected, daemon });
  }

  _receive(text) {
    let line;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    switch (line.type) {
      case "bridge":
        this._setStatus(true, line.daemon === "up");
        break;
      case "hello":
        this.screen = line.screen;
        this._setStatus(true, true);
        this._emit(this, "hello", line);
        this._restore();
        break;
      case "screen":
        // A reload changed the daemon's screen: positions are in the new one from now on, and
        // the regions are sent again (they may fit it now, or the page's layout followed it).
        this.screen = line.screen;
        this._emit(this, "screen", line);
        this._resend();
        break;
      case "reply":
      case "error":
        this._answer(line);
        break;
      case "gesture":
        this._gesture(toCSS(line, this.pixelScale, this.origin));
        break;
      case "touch":
        for (const c of line.contacts) toCSS(c, this.pixelScale, this.origin);
        this._emit(this, "touch", line);
        break;
      default:
        this._emit(this, line.type, line);
    }
  }

  /** After each hello (a new connection to the daemon): the subscription and regions again. */
  _restore() {
    this._sentRegions = null;
    if (this.subscription) this.request("subscribe", this.subscription).catch((e) => this._emit(this, "error", e.line ?? e));
    this._sendRegions(true);
  }

  _answer(line) {
    const waiting = line.id !== undefined && this._pending.get(line.id);
    if (!waiting) {
      if (line.code === "regions_dropped") {
        // A reload removed this page's regions: none is registered, each is told, and they go
        // again with the next change (a layout change, a screen line, update()).
        this._sentRegions = null;
        this._refused = true;
        for (const r of this.regions.values()) {
          r._setRegistered(false);
          this._emit(r, "error", line);
        }
      }
      this._emit(this, "error", line);
      return;
    }
    this._pending.delete(line.id);
    if (line.type === "reply") waiting.resolve(line);
    else waiting.reject(Object.assign(new Error(`touchgestured: ${line.code}: ${line.message}`), { line }));
  }

  _gesture(line) {
    const targets = [this];
    // A region of this page's the daemon took: a line naming a region another client holds
    // under the same name (this page's refused) is not its.
    const region = this.regions.get(line.region);
    if (region?.registered) targets.push(region);
    for (const t of targets) {
      this._emit(t, "gesture", line);
      this._emit(t, line.gesture, line);
      if (line.name && line.name !== line.gesture && !EVENTS.has(line.name)) this._emit(t, line.name, line);
    }
  }

  _emit(target, type, detail) {
    target.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** The regions sent again at the next frame, changed or not. */
  _resend() {
    this._sentRegions = null;
    this.layoutChanged();
  }

  /** Sends set_regions (or clear_regions) when the regions' boxes or options changed. */
  _sendRegions(force) {
    if (!this.daemon) return;
    const regions = [];
    for (const r of this.regions.values()) {
      const spec = r._spec();
      if (spec) regions.push(spec);
    }
    const text = JSON.stringify(regions);
    if (!force && text === this._sentRegions) return;
    if (this._sentRegions === null && regions.length === 0) return;
    this._sentRegions = text;
    const sent = regions.length ? this.request("set_regions", { regions }) : this.request("clear_regions");
    sent.then(
      () => {
        this._refused = false;
        for (const r of this.regions.values()) r._setRegistered(regions.some((s) => s.name === r.name));
      },
      (e) => {
        // Refused (a name another client holds, off the screen, ...): update() tries again.
        this._refused = true;
        for (const r of this.regions.values()) this._emit(r, "error", e.line ?? e);
        this._emit(this, "error", e.line ?? e);
      },
    );
  }

  _watchLayout() {
    const changed = () => this.layoutChanged();
    if (typeof ResizeObserver === "function") {
      this._resize = new ResizeObserver(changed);
      if (globalThis.document) this._resize.observe(document.documentElement);
    }
    this._listen("resize", changed);
    this._listen("scroll", changed, { capture: true, passive: true });
  }
}

let shared = null;

/** The page's one connection, made on first use with the default options (the default export's). */
export function sharedConnection() {
  shared ??= new TouchGestured();
  return shared;
}

/**
 * The default export, for a page that needs one connection with the default options:
 *   import touchgestured from "/touchgestured.js";
 *   touchgestured.region(element, { gestures: [{ kind: "tap" }], priority: "high" }).on("tap", ...);
 *   touchgestured.on("swipe", (g) => ...);
 */
const touchgestured = {
  connect,
  region: (element, options) => sharedConnection().region(element, options),
  on: (type, fn) => sharedConnection().on(type, fn),
  request: (op, fields) => sharedConnection().request(op, fields),
  subscribe: (fields) => sharedConnection().subscribe(fields),
  get connection() {
    return sharedConnection();
  },
};
export default touchgestured;
