/// What the doctor measures of a panel from its tracks (`PanelTracks`): how often it reports, how
/// much a resting finger jitters, and the lies of a cheap panel (bounces, ghosts, stuck contacts,
/// a phantom at a fixed period), with how much of each axis the touches used.
public struct PanelDiagnosis: Sendable {
    /// Reports a second while a finger moves (at rest the kernel sends no frame whose values all
    /// repeat): the typical interval of the shortest ones between frames that moved a contact.
    public var reportRateHz: Double?
    /// The resting noise: the standard deviation of a still finger's position on each axis (mm,
    /// about the mean of each 300 ms stretch it held still), and the two axes' root mean square.
    public var noiseMM: Double?
    public var noiseXMM: Double?
    public var noiseYMM: Double?
    /// Seconds of resting finger the noise was measured on.
    public var restSeconds = 0.0
    /// The kernel's fuzz on the position axes (mm): movement under it never reaches user space.
    public var fuzzMM: Double
    public struct Chatter: Sendable { public var gapSeconds: Double, distanceMM: Double }
    /// A lift and a landing again within `chatterMaxGap` and `chatterMaxDistance`.
    public var chatters: [Chatter] = []
    /// Contacts shorter than `ghostMaxDuration` (seconds each).
    public var ghosts: [Double] = []
    public struct Stuck: Sendable { public var silentSeconds: Double, xMM: Double, yMM: Double }
    /// Contacts that sent nothing for `stuckSilence` or longer while down.
    public var stuck: [Stuck] = []
    public struct Phantom: Sendable { public var xMM: Double, yMM: Double, periodSeconds: Double, count: Int }
    /// Short touches landing at the same place at a fixed period.
    public var phantoms: [Phantom] = []
    /// The part of each axis's range the touches covered (0…1), and whether any went past it.
    public var rangeUsed: (x: Double, y: Double) = (0, 0)
    public var outOfRange = false
    public var touches = 0

    /// The limits each finding is judged by (seconds, mm).
    public static let chatterMaxGap = 0.05
    public static let chatterMaxDistance = 5.0
    public static let ghostMaxDuration = 0.04
    public static let stuckSilence = 5.0
    static let restWindow: Int64 = 300_000_000
    static let ns = 1e9

    public init(_ t: PanelTracks) {
        touches = t.tracks.count
        fuzzMM = (Double(t.x.fuzz) * t.mmPerUnit.x + Double(t.y.fuzz) * t.mmPerUnit.y) / 2
        reportRateHz = Self.reportRate(t.movingFrames)
        measureNoise(t)
        findChatterAndGhosts(t)
        findStuck(t)
        phantoms = Self.phantoms(t)
        measureRange(t)
    }

    /// The typical interval among the shortest between frames that moved a contact: the median of
    /// those under 1.5 times the tenth percentile (a finger at rest sends frames further apart).
    static func reportRate(_ frames: [Int64]) -> Double? {
        let gaps = zip(frames.dropFirst(), frames).map { $0 - $1 }.filter { $0 >= 1_000_000 && $0 <= 200_000_000 }.sorted()
        guard gaps.count >= 5 else { return nil }
        let p10 = gaps[gaps.count / 10]
        let typical = gaps.filter { Double($0) <= 1.5 * Double(p10) }
        return ns / Double(typical[typical.count / 2])
    }

    /// Each track cut into 300 ms stretches (not its first and last 100 ms: a finger landing and
    /// lifting moves); a stretch is still when the means of its halves differ by less than four
    /// standard errors (and 0.5 mm) on both axes. The noise is the spread about each still
    /// stretch's mean, pooled.
    mutating func measureNoise(_ t: PanelTracks) {
        var sum = (x: 0.0, y: 0.0), degrees = 0
        for track in t.tracks {
            let inner = track.samples.filter { $0.time >= track.landed + 100_000_000 && $0.time <= track.lifted - 100_000_000 }
            var i = 0
            while i < inner.count {
                var j = i
                while j < inner.count && inner[j].time - inner[i].time < Self.restWindow { j += 1 }
                let window = inner[i..<j].map { t.millimeters($0.x, $0.y) }
                i = j
                guard window.count >= 8, let spread = Self.stillSpread(window) else { continue }
                sum.x += spread.x
                sum.y += spread.y
                degrees += window.count - 1
                restSeconds += Double(Self.restWindow) / Self.ns
            }
        }
        guard degrees > 0 else { return }
        let (sx, sy) = ((sum.x / Double(degrees)).squareRoot(), (sum.y / Double(degrees)).squareRoot())
        (noiseXMM, noiseYMM, noiseMM) = (sx, sy, ((sx * sx + sy * sy) / 2).squareRoot())
    }

    /// A stretch's sums of squared deviations from its mean, when it held still.
    static func stillSpread(_ w: [(x: Double, y: Double)]) -> (x: Double, y: Double)? {
        let n = Double(w.count), half = w.count / 2
        func mean(_ s: ArraySlice<(x: Double, y: Double)>) -> (x: Double, y: Double) {
            let c = Double(s.count)
            return (s.reduce(0) { $0 + $1.x } / c, s.reduce(0) { $0 + $1.y } / c)
        }
        let m = mean(w[...]), a = mean(w[..<half]), b = mean(w[half...])
        let ss = (x: w.reduce(0) { $0 + ($1.x - m.x) * ($1.x - m.x) }, y: w.reduce(0) { $0 + ($1.y - m.y) * ($1.y - m.y) })
        // The standard error of the difference of the halves' means.
        let se = (x: (ss.x / (n - 1)).squareRoot() * (4 / n).squareRoot(), y: (ss.y / (n - 1)).squareRoot() * (4 / n).squareRoot())
        guard abs(a.x - b.x) <= max(0.5, 4 * se.x), abs(a.y - b.y) <= max(0.5, 4 * se.y) else { return nil }
        guard ss.x / (n - 1) <= 100, ss.y / (n - 1) <= 100 else { return nil }  // 10 mm: no rest
        return ss
    }

    mutating func findChatterAndGhosts(_ t: PanelTracks) {
        let byLanding = t.tracks.sorted { $0.landed < $1.landed }
        for (k, b) in byLanding.enumerated() {
            if !b.stillDown && Double(b.duration) / Self.ns < Self.ghostMaxDuration { ghosts.append(Double(b.duration) / Self.ns) }
            guard let first = b.samples.first else { continue }
            // The lift before this landing, nearest in time, of another contact.
            let before = byLanding[..<k].filter { !$0.stillDown && $0.lifted <= b.landed }.max { $0.lifted < $1.lifted }
            guard let a = before, let last = a.samples.last else { continue }
            let gap = Double(b.landed - a.lifted) / Self.ns
            let p = t.millimeters(last.x, last.y), q = t.millimeters(first.x, first.y)
            let d = ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()
            if gap <= Self.chatterMaxGap && d <= Self.chatterMaxDistance { chatters.append(Chatter(gapSeconds: gap, distanceMM: d)) }
        }
    }

    mutating func findStuck(_ t: PanelTracks) {
        for track in t.tracks {
            var longest: Int64 = 0, since = track.landed
            var place = track.samples.first
            for s in track.samples where s.moved {
                if s.time - since > longest { (longest, place) = (s.time - since, s) }
                since = s.time
            }
            if track.lifted - since > longest { (longest, place) = (track.lifted - since, track.samples.last) }
            guard Double(longest) / Self.ns >= Self.stuckSilence, let p = place else { continue }
            let mm = t.millimeters(p.x, p.y)
            stuck.append(Stuck(silentSeconds: Double(longest) / Self.ns, xMM: mm.x, yMM: mm.y))
        }
    }

    /// Short touches (under half a second) whose landings fall within 5 mm of each other at least
    /// three times, every interval within 10 % of their median, which is a second or more.
    static func phantoms(_ t: PanelTracks) -> [Phantom] {
        var clusters: [(x: Double, y: Double, times: [Int64])] = []
        for track in t.tracks.sorted(by: { $0.landed < $1.landed }) where !track.stillDown && track.duration < 500_000_000 {
            guard let s = track.samples.first else { continue }
            let p = t.millimeters(s.x, s.y)
            if let k = clusters.firstIndex(where: { ($0.x - p.x) * ($0.x - p.x) + ($0.y - p.y) * ($0.y - p.y) <= 25 }) {
                clusters[k].times.append(track.landed)
            } else {
                clusters.append((p.x, p.y, [track.landed]))
            }
        }
        return clusters.compactMap { c in
            guard c.times.count >= 3 else { return nil }
            let gaps = zip(c.times.dropFirst(), c.times).map { Double($0 - $1) / ns }.sorted()
            let median = gaps[gaps.count / 2]
            guard median >= 1, gaps.allSatisfy({ abs($0 - median) <= 0.1 * median }) else { return nil }
            return Phantom(xMM: c.x, yMM: c.y, periodSeconds: median, count: c.times.count)
        }
    }

    mutating func measureRange(_ t: PanelTracks) {
        let all = t.tracks.flatMap(\.samples)
        guard let minX = all.map(\.x).min(), let maxX = all.map(\.x).max(), let minY = all.map(\.y).min(), let maxY = all.map(\.y).max() else { return }
        let spanX = Double(Int64(t.x.maximum) - Int64(t.x.minimum)), spanY = Double(Int64(t.y.maximum) - Int64(t.y.minimum))
        rangeUsed = (min(1, Double(Int64(maxX) - Int64(minX)) / spanX), min(1, Double(Int64(maxY) - Int64(minY)) / spanY))
        outOfRange = minX < t.x.minimum || maxX > t.x.maximum || minY < t.y.minimum || maxY > t.y.maximum
    }
}
