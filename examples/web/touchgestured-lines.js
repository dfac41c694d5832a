// touchgestured-lines.js: the gesture lines touchgestured.js hands to a page's listeners, and
// their units (part of touchgestured.js, served beside it).

/**
 * A gesture line (docs/PROTOCOL.md, "gesture"), its px fields in CSS px.
 * @typedef {object} GestureLine
 * @property {"gesture"} type
 * @property {"tap"|"long_press"|"pan"|"swipe"|"pinch"|"edge_swipe"|"stroke"} gesture the kind
 * @property {string} [name] the configured name, when it differs from the kind (double_tap)
 * @property {"began"|"changed"|"ended"|"cancelled"|"recognized"} phase
 * @property {number} id one gesture's lines share it
 * @property {number} sequence the touch sequence (two hands, two people: two sequences)
 * @property {number} fingers
 * @property {number} time seconds
 * @property {number} x centroid, CSS px from the page's left
 * @property {number} y centroid, CSS px from the page's top
 * @property {string} [region] absent for the screen's own region
 * @property {number} [count] tap: taps in a row
 * @property {number} [dx] pan, edge_swipe: translation since the fingers landed
 * @property {number} [dy]
 * @property {number} [vx] pan: velocity, CSS px/s
 * @property {number} [vy]
 * @property {"horizontal"|"vertical"} [axis] pan: the locked axis
 * @property {{x: number, y: number}} [offset] pan in a region with `drag`: the constrained offset
 * @property {{x: number, y: number}} [target] pan, ended or cancelled: where the content comes to rest
 * @property {string} [direction] swipe
 * @property {number} [velocity] swipe: release speed, CSS px/s
 * @property {number} [scale] pinch
 * @property {number} [rotation] pinch: degrees, clockwise
 * @property {"left"|"right"|"top"|"bottom"} [edge] edge_swipe
 * @property {string} [shape] stroke: the shape drawn
 * @property {number} [score] stroke: 0 to 1
 * @property {boolean} [clockwise] stroke
 */

const PX_FIELDS = ["x", "y", "dx", "dy", "vx", "vy", "velocity"];
const PX_POINTS = ["offset", "target", "consumed"];

/** A line's screen px as CSS px (in place), at `scale` screen px a CSS px from `origin` (screen px of the page's top-left). */
export function toCSS(line, scale, origin) {
  const [ox, oy] = origin;
  for (const f of PX_FIELDS) if (typeof line[f] === "number") line[f] /= scale;
  if (typeof line.x === "number") line.x -= ox / scale;
  if (typeof line.y === "number") line.y -= oy / scale;
  for (const f of PX_POINTS) if (line[f]) line[f] = { x: line[f].x / scale, y: line[f].y / scale };
  return line;
}
