/// The path of a stroke as it is drawn: the centroid of the fingers down (moved by the motion
/// of the contacts common to consecutive frames, so a finger landing or lifting never makes it
/// jump), in mm from where the first finger landed. Its storage is kept from stroke to stroke:
/// drawing appends, never allocates; when `capacity` points are held every other one is dropped
/// (256 points still show every corner of a shape).
struct StrokePath {
    private(set) var points: [StrokePoint] = []
    private var translation = PixelPoint.zero
    /// Where the fingers are now, when that is closer than `spacing` to the last point kept.
    private var pending: StrokePoint?
    let capacity: Int
    /// A point is kept only this far (mm) from the one before: a panel's noise, added up over
    /// every sample of a slow stroke on a fast panel (a 0.8 mm jitter at 240 Hz), would otherwise
    /// bend the path more than the hand did. On the harder hands of docs/BENCHMARKS.md
    /// ("Strokes"), 1 mm left 89.7 % of such drawings right, 2 mm 98.5 %, 3 mm 99.4 %; the
    /// smallest shape (`stroke_min_size`, 10 mm) still keeps a point every corner.
    static let spacing = 3.0

    init(capacity: Int = 256) {
        self.capacity = max(4, capacity)
        points.reserveCapacity(self.capacity)
    }

    /// A new stroke, at the origin.
    mutating func begin() {
        points.removeAll(keepingCapacity: true)
        translation = .zero
        points.append(StrokePoint(x: 0, y: 0))
        pending = nil
    }

    /// A frame's motion of the centroid (px), at the frame's scale.
    mutating func move(_ delta: PixelPoint, scale: MillimetersPerPixel) {
        guard delta != .zero else { return }
        translation += delta
        let p = StrokePoint(x: translation.x * scale.x, y: translation.y * scale.y)
        if let last = points.last, StrokeShape.distance(last, p) < Self.spacing {
            pending = p
            return
        }
        pending = nil
        if points.count == capacity { thin() }
        points.append(p)
    }

    /// The path with where the fingers lifted (the last point, however close).
    mutating func finish() {
        guard let p = pending else { return }
        pending = nil
        if points.count == capacity { thin() }
        points.append(p)
    }

    /// Every other point dropped (the first and the newest kept), in place.
    private mutating func thin() {
        var kept = 1
        var i = 2
        while i < points.count {
            points[kept] = points[i]
            kept += 1
            i += 2
        }
        if points[kept - 1] != points[points.count - 1] {
            points[kept] = points[points.count - 1]
            kept += 1
        }
        points.removeLast(points.count - kept)
    }

    /// The diagonal (mm) of the box the path fits in.
    var size: Double {
        guard let first = points.first else { return 0 }
        var lo = first, hi = first
        for p in points {
            lo = StrokePoint(x: min(lo.x, p.x), y: min(lo.y, p.y))
            hi = StrokePoint(x: max(hi.x, p.x), y: max(hi.y, p.y))
        }
        return StrokeShape.distance(lo, hi)
    }
}

/// The strokes in a stream of frames, each as a stroke recognizer sees it: one per sequence
/// (the first finger down to the last lift), for tools that learn and test shapes from
/// recordings (`touchgesturectl strokes`).
public struct StrokePaths {
    /// One stroke: its path (mm), the most fingers down, and when it began and ended.
    public struct Stroke: Sendable {
        public var path: [StrokePoint]
        public var fingers: Int
        public var start: Timestamp
        public var end: Timestamp
        /// The diagonal (mm) of the box the path fits in.
        public var size: Double
    }

    private var tracker = ContactTracker()
    private var summary = FrameSummary(time: .zero)
    /// As a recognizer's (its capacity too: the same path, thinned alike).
    private var path = StrokePath()
    private var fingers = 0
    private var start = Timestamp.zero
    private var down = false

    public init() {}

    /// The stroke a frame ends (the one lifting its last finger), if any.
    public mutating func feed(_ frame: TouchFrame) -> Stroke? {
        tracker.update(frame, at: frame.time, view: EveryFinger(), shape: false, into: &summary)
        if !down {
            guard summary.count > 0 else { return nil }
            down = true
            path.begin()
            fingers = summary.count
            start = frame.time
            return nil
        }
        path.move(summary.delta, scale: summary.scale)
        fingers = max(fingers, summary.count)
        guard summary.count == 0 else { return nil }
        down = false
        path.finish()
        return Stroke(path: path.points, fingers: fingers, start: start, end: frame.time, size: path.size)
    }

    private struct EveryFinger: ContactView {
        func includes(_ index: Int, _ contact: Contact) -> Bool { true }
    }
}
