import GestureEngine
import TouchFrames

/// One contact's life on the panel, as the decoder read it: where it was at each frame it was
/// down in (the panel's own units, before any calibration or filter), and when it landed and lifted.
public struct ContactTrack: Sendable {
    public struct Sample: Sendable {
        /// Nanoseconds since the recording's first event.
        public var time: Int64
        public var x: Int32
        public var y: Int32
        /// The frame moved this contact (the kernel sends a position only when it changes).
        public var moved: Bool
    }
    public var samples: [Sample] = []
    public var landed: Int64 { samples.first?.time ?? 0 }
    /// The frame it was gone in (its last sample's when the recording ends first).
    public var lifted: Int64 = 0
    public var duration: Int64 { lifted - landed }
    /// Down when the recording ended.
    public var stillDown = false
}

/// What a recording of a panel holds for the doctor: its axes and size, every contact's track and
/// the times of the panel's reports that moved a contact.
public struct PanelTracks: Sendable {
    public let description: DeviceDescription
    public let x: AbsAxis, y: AbsAxis
    /// Millimetres a unit on each axis, and where that came from.
    public let mmPerUnit: (x: Double, y: Double)
    public let sizeMM: (width: Double, height: Double)
    public let sizeSource: ScreenGeometry.SizeSource
    public private(set) var tracks: [ContactTrack] = []
    /// The panel's reports that moved a contact (nanoseconds since the first event), in order,
    /// told apart from its frames (`ReportGrouping`): a report split in frames under 1 ms apart
    /// is one; two reports stamped alike (a driver that reads two at an interrupt) are two.
    public private(set) var movingReports: [Int64] = []
    /// The recording's length (ns) and its lost-event marks (SYN_DROPPED).
    public private(set) var span: Int64 = 0
    public private(set) var dropped = 0

    /// Reads `events` as the daemon's decoder does (protocol A and B, single-touch), with the
    /// panel's size `widthMM` × `heightMM` (measured on it: over its axes' resolution), else from
    /// a plausible resolution, else the daemon's guess.
    public init?(description: DeviceDescription, events: [InputEvent], widthMM: Double? = nil, heightMM: Double? = nil) {
        var g = GeometryConfiguration()
        (g.widthMM, g.heightMM, g.sizeIsThePanels) = (widthMM, heightMM, true)
        guard var decoder = FrameDecoder(description: description, geometry: g), let axes = description.positionAxes else { return nil }
        decoder.keepsPanel = true
        self.description = description
        (x, y) = axes
        let geometry = decoder.geometry
        sizeMM = geometry.sizeMM
        sizeSource = geometry.sizeSource
        mmPerUnit = (sizeMM.width / Double(Int64(x.maximum) - Int64(x.minimum) + 1), sizeMM.height / Double(Int64(y.maximum) - Int64(y.minimum) + 1))
        let start = events.first?.time.nanoseconds ?? 0
        var open: [UInt32: Int] = [:]  // contact id → its track
        var grouping = ReportGrouping()
        for e in events {
            guard decoder.feed(e) != nil else { continue }
            let t = e.time.nanoseconds - start
            span = t
            var moved = false
            var seen = Set<UInt32>()
            grouping.frame(at: t)
            for c in decoder.panel {
                seen.insert(c.id)
                if open[c.id] == nil {
                    tracks.append(ContactTrack())
                    open[c.id] = tracks.count - 1
                }
                let k = open[c.id]!
                let last = tracks[k].samples.last
                let m = last.map { $0.x != c.x || $0.y != c.y } ?? false
                moved = moved || m
                if let last { grouping.moved(c.id, x: last.x != c.x, y: last.y != c.y) }
                tracks[k].samples.append(.init(time: t, x: c.x, y: c.y, moved: m))
                tracks[k].lifted = t
            }
            for (id, k) in open where !seen.contains(id) {
                tracks[k].lifted = t
                open[id] = nil
            }
            if moved, let report = grouping.report() { movingReports.append(report) }
        }
        // A contact still down when the recording ends was down until its last event.
        let end = (events.last?.time.nanoseconds ?? start) - start
        for (_, k) in open {
            tracks[k].lifted = max(tracks[k].lifted, end)
            tracks[k].stillDown = true
        }
        span = end
        dropped = decoder.droppedCount
    }

    /// A position in mm from the axes' minimum corner.
    public func millimeters(_ x: Int32, _ y: Int32) -> (x: Double, y: Double) {
        (Double(Int64(x) - Int64(self.x.minimum)) * mmPerUnit.x, Double(Int64(y) - Int64(self.y.minimum)) * mmPerUnit.y)
    }
}

/// Tells a panel's reports apart from its frames, frame by frame. Frames under 1 ms apart
/// (no panel reports faster than 1 kHz) are one report, split by its driver (a frame a contact,
/// or the axes in two frames), unless one of them changes an axis of a contact that an earlier
/// frame of the group already changed: that is the next report, stamped alike (a driver that
/// reads two reports at one interrupt stamps both with its time).
struct ReportGrouping {
    /// When the current report's first frame came (ns), and the axes its frames changed, by contact.
    private var start: Int64?
    private var changed: [UInt32: (x: Bool, y: Bool)] = [:]
    /// The current report's time, until a frame of it that moved a contact takes it (`report`).
    private var pending: Int64?
    private var time: Int64 = 0

    /// A frame at `t` (before its contacts' moves). A report not yet taken (its first frames
    /// moved nothing: a pressure alone) goes on to its next frame.
    mutating func frame(at t: Int64) {
        time = t
        if start.map({ t - $0 >= 1_000_000 }) ?? true { begin() }
    }

    /// Contact `id` changed its X or Y in this frame.
    mutating func moved(_ id: UInt32, x: Bool, y: Bool) {
        guard x || y else { return }
        let before = changed[id] ?? (false, false)
        if pending == nil && ((x && before.x) || (y && before.y)) {
            begin()
            return changed[id] = (x, y)
        }
        changed[id] = (before.x || x, before.y || y)
    }

    /// The time of the report this moving frame belongs to, once (nil: taken already).
    mutating func report() -> Int64? {
        defer { pending = nil }
        return pending
    }

    private mutating func begin() {
        start = time
        changed.removeAll(keepingCapacity: true)
        pending = time
    }
}
