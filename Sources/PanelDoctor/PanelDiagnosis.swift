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
    /// Contacts still (within `stuckDistance` of a place) for `stuckSilence` or longer while down.
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
    /// The filters' default `stuck_distance` (mm).
    public static let stuckDistance = 0.5
    static let restWindow: Int64 = 300_000_000
    static let ns = 1e9

    public init(_ t: PanelTracks) {
        touches = t.tracks.count
        fuzzMM = (Double(t.x.fuzz) * t.mmPerUnit.x + Double(t.y.fuzz) * t.mmPerUnit.y) / 2
        reportRateHz = Self.reportRate(t.movingReports)
        let stuckTracks = findStuck(t)
        measureNoise(t, leavingOut: stuckTracks)
        findChatterAndGhosts(t)
        phantoms = Self.phantoms(t, reportInterval: reportRateHz.map { 1 / $0 } ?? 0.05)
        measureRange(t)
    }

    /// The report rate from the reports that moved a contact (`PanelTracks.movingReports`): cut
    /// into runs where a pause (a gap over three times the median gap of 1 ms or more, or 200 ms) ends one, each
    /// run's reports over its span; the fastest run of at least five intervals, preferring those
    /// of 100 ms or more. A finger moving slowly, or resting under the fuzz, skips reports (the
    /// kernel sends none that repeats every value), which only slows its run; a fast swipe moves
    /// every report. Over a run, timestamps that jitter (a late interrupt, a reader stamping
    /// late) even out, where the median of the shortest gaps took the early ones for the rate.
    /// Reports stamped alike or nearly (two read at one interrupt) count, inside a run. Where
    /// the gaps are whole numbers of one interval, faster than every run (`periodFromMultiples`),
    /// that interval's rate.
    static func reportRate(_ reports: [Int64]) -> Double? {
        let gaps = zip(reports.dropFirst(), reports).map { $0 - $1 }
        // The median of the gaps between interrupts (a pair's second report is stamped under
        // 1 ms after its first).
        let sorted = gaps.filter { $0 >= 1_000_000 }.sorted()
        guard gaps.count >= 5, !sorted.isEmpty else { return nil }
        let pause = min(3 * sorted[sorted.count / 2], 200_000_000)
        var runs: [(intervals: Int, span: Int64)] = []
        var current = (intervals: 0, span: Int64(0))
        for gap in gaps {
            if gap > pause {
                runs.append(current)
                current = (0, 0)
            } else {
                current = (current.intervals + 1, current.span + gap)
            }
        }
        runs.append(current)
        let usable = runs.filter { $0.intervals >= 5 && $0.span > 0 }
        let long = usable.filter { $0.span >= 100_000_000 }
        let fromRuns = (long.isEmpty ? usable : long).map { ns * Double($0.intervals) / Double($0.span) }.max()
        // A panel whose fuzz drops most resting reports, with no swipe long enough for a run:
        // its gaps are whole numbers of its interval.
        guard let period = periodFromMultiples(sorted), ns / period > 1.15 * (fromRuns ?? 0) else { return fromRuns }
        return ns / period
    }

    /// The report interval (ns) when the gaps between moving reports (`sorted`, 1 ms or more)
    /// are whole numbers of one, as on a panel whose fuzz drops a resting finger's reports
    /// (the kernel sends none that repeats every value): 33, 67, 100, 33 ms... at 30 Hz, where
    /// every run of reports lies slower than the panel. The interval is taken from the shortest
    /// gaps (those within a quarter of the tenth shortest), then over every gap of one to six
    /// of them within 15 % of a whole number; it counts when at least eight gaps are one
    /// interval and four in five of those up to six intervals are whole numbers of it (jittered
    /// timestamps, or reports stamped in pairs, are not: nil).
    static func periodFromMultiples(_ sorted: [Int64]) -> Double? {
        guard sorted.count >= 10 else { return nil }
        let tenth = Double(sorted[sorted.count / 10])
        let shortest = sorted.filter { abs(Double($0) - tenth) <= 0.25 * tenth }
        guard !shortest.isEmpty else { return nil }
        let first = Double(shortest[shortest.count / 2])
        var (total, intervals, whole, near, ones) = (0.0, 0, 0, 0, 0)
        for gap in sorted where Double(gap) <= 6.5 * first {
            near += 1
            let k = (Double(gap) / first).rounded()
            guard k >= 1 && abs(Double(gap) - k * first) <= 0.15 * first else { continue }
            (total, intervals, whole) = (total + Double(gap), intervals + Int(k), whole + 1)
            if k == 1 { ones += 1 }
        }
        guard ones >= 8, whole * 5 >= near * 4, intervals > 0 else { return nil }
        return total / Double(intervals)
    }

    /// Each track cut into stretches of 300 ms, or of nine of its reports where those take longer
    /// (a 20 Hz panel's 300 ms holds six), not its first and last 100 ms (a finger landing and
    /// lifting moves); a stretch of eight reports or more is a rest when its straight-line trend
    /// is slower than 20 mm/s on both axes and the spread about it under 4 mm. The noise is the
    /// spread about each rest's trend (a slow drift is no noise), pooled. The tracks in
    /// `stuckTracks` (`findStuck`: a contact that flickers by a unit for seconds is no finger)
    /// count only when no other track rested.
    mutating func measureNoise(_ t: PanelTracks, leavingOut stuckTracks: Set<Int>) {
        var rests = Self.rests(t, tracks: t.tracks.indices.filter { !stuckTracks.contains($0) })
        if rests.degrees == 0 { rests = Self.rests(t, tracks: stuckTracks.sorted()) }
        guard rests.degrees > 0 else { return }
        restSeconds = rests.seconds
        let (sx, sy) = ((rests.x / Double(rests.degrees)).squareRoot(), (rests.y / Double(rests.degrees)).squareRoot())
        (noiseXMM, noiseYMM, noiseMM) = (sx, sy, ((sx * sx + sy * sy) / 2).squareRoot())
    }

    /// The rests of `tracks` (`measureNoise`): their summed squared deviations on each axis,
    /// degrees of freedom and seconds.
    static func rests(_ t: PanelTracks, tracks: [Int]) -> (x: Double, y: Double, degrees: Int, seconds: Double) {
        var sums = (x: 0.0, y: 0.0, degrees: 0, seconds: 0.0)
        for k in tracks {
            let track = t.tracks[k]
            let inner = track.samples.filter { $0.time >= track.landed + 100_000_000 && $0.time <= track.lifted - 100_000_000 }
            // Nine of its reports at the track's typical spacing (a resting finger's noise above
            // the fuzz sends every report), at least 300 ms, at most 1.5 s.
            let gaps = zip(inner.dropFirst(), inner).map { $0.time - $1.time }.sorted()
            let median = gaps.isEmpty ? 0 : gaps[gaps.count / 2]
            let window = median >= 1_500_000_000 / 9 ? 1_500_000_000 : max(restWindow, 9 * median)
            var i = 0
            while i < inner.count {
                var j = i
                while j < inner.count && inner[j].time - inner[i].time < window { j += 1 }
                let stretch = inner[i..<j].map { (t: Double($0.time - inner[i].time) / ns, p: t.millimeters($0.x, $0.y)) }
                i = j
                guard stretch.count >= 8, let spread = restSpread(stretch) else { continue }
                sums.x += spread.x
                sums.y += spread.y
                sums.degrees += stretch.count - 2
                sums.seconds += Double(window) / ns
            }
        }
        return sums
    }

    /// A stretch's sums of squared deviations from its least-squares line on each axis, when it
    /// is a rest (the line slower than 20 mm/s, the spread under 4 mm: a finger turning round
    /// within the stretch spreads more).
    static func restSpread(_ w: [(t: Double, p: (x: Double, y: Double))]) -> (x: Double, y: Double)? {
        let n = Double(w.count)
        let mt = w.reduce(0) { $0 + $1.t } / n, mx = w.reduce(0) { $0 + $1.p.x } / n, my = w.reduce(0) { $0 + $1.p.y } / n
        let stt = w.reduce(0) { $0 + ($1.t - mt) * ($1.t - mt) }
        guard stt > 0 else { return nil }
        let bx = w.reduce(0) { $0 + ($1.t - mt) * ($1.p.x - mx) } / stt, by = w.reduce(0) { $0 + ($1.t - mt) * ($1.p.y - my) } / stt
        guard abs(bx) <= 20, abs(by) <= 20 else { return nil }
        func residual(_ v: Double, _ m: Double, _ b: Double, _ t: Double) -> Double { let r = v - m - b * (t - mt); return r * r }
        let ss = (x: w.reduce(0) { $0 + residual($1.p.x, mx, bx, $1.t) }, y: w.reduce(0) { $0 + residual($1.p.y, my, by, $1.t) })
        guard ss.x / (n - 2) <= 16, ss.y / (n - 2) <= 16 else { return nil }  // 4 mm: a turn, no rest
        return ss
    }

    /// Ghosts by their length; a bounce when a contact lands soon after, and close to, the
    /// lift before it in time (tracks walked once in order of landing, the lifts in order).
    mutating func findChatterAndGhosts(_ t: PanelTracks) {
        let byLanding = t.tracks.indices.sorted { t.tracks[$0].landed < t.tracks[$1].landed }
        let byLift = t.tracks.indices.filter { !t.tracks[$0].stillDown }.sorted { t.tracks[$0].lifted < t.tracks[$1].lifted }
        var next = 0, latest: Int?
        for k in byLanding {
            let b = t.tracks[k]
            if !b.stillDown && Double(b.duration) / Self.ns < Self.ghostMaxDuration { ghosts.append(Double(b.duration) / Self.ns) }
            while next < byLift.count && t.tracks[byLift[next]].lifted <= b.landed {
                latest = byLift[next]
                next += 1
            }
            guard let i = latest, i != k, let last = t.tracks[i].samples.last, let first = b.samples.first else { continue }
            let a = t.tracks[i]
            let gap = Double(b.landed - a.lifted) / Self.ns
            let p = t.millimeters(last.x, last.y), q = t.millimeters(first.x, first.y)
            let d = ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()
            if gap <= Self.chatterMaxGap && d <= Self.chatterMaxDistance { chatters.append(Chatter(gapSeconds: gap, distanceMM: d)) }
        }
    }

    /// Contacts still (never past `stuckDistance` from where they came to rest: a stuck contact
    /// flickers by a unit or two, or is silent) for `stuckSilence` or longer, the filter's rule:
    /// each such stretch once (a contact that sticks, moves and sticks again is ended twice by
    /// the filter, and counted twice here). Returns their tracks.
    mutating func findStuck(_ t: PanelTracks) -> Set<Int> {
        // As the filter: at least two units (a coarse panel's unit may be half a millimetre).
        let limit = max(Self.stuckDistance, 2 * max(t.mmPerUnit.x, t.mmPerUnit.y))
        var found = Set<Int>()
        for (k, track) in t.tracks.enumerated() {
            guard var rest = track.samples.first else { continue }
            var since = track.landed
            func still(until end: Int64) {
                guard Double(end - since) / Self.ns >= Self.stuckSilence else { return }
                let mm = t.millimeters(rest.x, rest.y)
                stuck.append(Stuck(silentSeconds: Double(end - since) / Self.ns, xMM: mm.x, yMM: mm.y))
                found.insert(k)
            }
            for s in track.samples {
                let a = t.millimeters(s.x, s.y), b = t.millimeters(rest.x, rest.y)
                guard (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) > limit * limit else { continue }
                still(until: s.time)
                (rest, since) = (s, s.time)
            }
            still(until: track.lifted)
        }
        return found
    }

    /// Short, still touches (under half a second, never 5 mm from where they landed) whose
    /// landings fall within 5 mm of each other at least three times, at a device's timer: each
    /// landing a whole number of periods after the first, within 5 % of one (and one and a half
    /// report intervals, `reportInterval` s, 0.1 s at most: a landing is seen at the next
    /// report), the period 2 s or more. Other touches at that place (a user's tap beside the
    /// phantom) are passed over, fewer than the run's own (`periodicChain`). A person tapping
    /// one spot in a steady rhythm, as the doctor asks, taps faster, and less evenly (a dead zone
    /// suggested under their finger is the worst advice); a swipe moves.
    static func phantoms(_ t: PanelTracks, reportInterval: Double) -> [Phantom] {
        // Clusters found through a grid of 5 mm cells (a landing looks in its cell and the eight
        // around it), so a long recording is not compared touch by touch.
        var clusters: [(x: Double, y: Double, times: [Int64])] = []
        var grid: [Int64: [Int]] = [:]
        func cell(_ x: Double, _ y: Double) -> (Int64, Int64) { (Int64((x / 5).rounded(.down)), Int64((y / 5).rounded(.down))) }
        for track in t.tracks.sorted(by: { $0.landed < $1.landed }) where !track.stillDown && track.duration < 500_000_000 {
            guard let s = track.samples.first else { continue }
            let p = t.millimeters(s.x, s.y)
            let still = track.samples.allSatisfy {
                let q = t.millimeters($0.x, $0.y)
                return (q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y) <= 25
            }
            guard still else { continue }
            let (cx, cy) = cell(p.x, p.y)
            var found: Int?
            search: for gx in (cx - 1)...(cx + 1) {
                for gy in (cy - 1)...(cy + 1) {
                    for k in grid[gx &* 1_000_003 &+ gy] ?? [] where (clusters[k].x - p.x) * (clusters[k].x - p.x) + (clusters[k].y - p.y) * (clusters[k].y - p.y) <= 25 {
                        found = k
                        break search
                    }
                }
            }
            if let k = found {
                clusters[k].times.append(track.landed)
            } else {
                grid[cx &* 1_000_003 &+ cy, default: []].append(clusters.count)
                clusters.append((p.x, p.y, [track.landed]))
            }
        }
        return clusters.compactMap { c in
            guard let chain = periodicChain(Array(c.times.prefix(1_000)), reportInterval: reportInterval) else { return nil }
            let gaps = zip(chain.dropFirst(), chain).map { Double($0 - $1) / ns }.sorted()
            return Phantom(xMM: c.x, yMM: c.y, periodSeconds: gaps[gaps.count / 2], count: chain.count)
        }
    }

    /// The longest run of `times` (ascending, ns) one period apart (`phantoms`): landings
    /// `first + k * period` each within the tolerance, three at least; with other landings at
    /// that place (a user's taps beside it, a ghost), four at least and more than those; nil if
    /// there is none. Each pair of landings 2 s or more apart is tried as a run's first period.
    /// (A user tapping one spot whenever: a few landings line up by chance, most do not.)
    static func periodicChain(_ times: [Int64], reportInterval: Double) -> [Int64]? {
        guard times.count >= 3 else { return nil }
        // The run holds half the landings or more: it starts in the first half.
        let starts = min(times.count, times.count / 2 + 1, 400)
        let slack = 1.5 * min(max(reportInterval, 0), 0.1)
        var best: [Int64] = []
        // Landings a period apart from `i` cannot number more than its span allows: a pair whose
        // run could not be one (more than half the landings, with strays) or beat the best found
        // is not tried (the periods only grow along `j`, the spans shrink along `i`), so a long
        // recording of taps ends in time.
        func most(from i: Int, period: Double) -> Int { Int((Double(times[times.count - 1] - times[i]) / ns + 0.05 * period + slack) / period) + 1 }
        let need = max(3, times.count / 2 + 1)
        for i in 0..<starts {
            if most(from: i, period: max(2 - slack, 0.001)) < max(need, best.count + 1) { break }
            for j in (i + 1)..<times.count {
                let period = Double(times[j] - times[i]) / ns
                guard period + slack >= 2 else { continue }
                if most(from: i, period: period) < max(need, best.count + 1) { break }
                let tolerance = 0.05 * period + slack
                var chain = [times[i], times[j]], k = 2.0
                // Each next landing a whole period after the first (no drift), after the last found.
                while let next = nearest(times, to: Double(times[i]) / ns + k * period, within: tolerance), next > chain[chain.count - 1] {
                    chain.append(next)
                    k += 1
                }
                let strays = times.count - chain.count
                let run = strays == 0 ? chain.count >= 3 : chain.count >= 4 && strays < chain.count
                if run && chain.count > best.count { best = chain }
                if best.count == times.count { return best }
            }
        }
        return best.isEmpty ? nil : best
    }

    /// The time in `times` (ascending, ns) nearest `t` (s), if one lies within `tolerance` s of it.
    static func nearest(_ times: [Int64], to t: Double, within tolerance: Double) -> Int64? {
        var (low, high) = (0, times.count)
        let from = (t - tolerance) * ns  // compared as a Double: a hostile recording's times may be near Int64's end
        while low < high {
            let mid = (low + high) / 2
            if Double(times[mid]) < from { low = mid + 1 } else { high = mid }
        }
        var found: Int64?
        var off = Double.infinity
        var k = low
        while k < times.count && Double(times[k]) / ns <= t + tolerance {
            let d = Swift.abs(Double(times[k]) / ns - t)
            if d < off { (found, off) = (times[k], d) }
            k += 1
        }
        return found
    }

    mutating func measureRange(_ t: PanelTracks) {
        let all = t.tracks.flatMap(\.samples)
        guard let minX = all.map(\.x).min(), let maxX = all.map(\.x).max(), let minY = all.map(\.y).min(), let maxY = all.map(\.y).max() else { return }
        let spanX = Double(Int64(t.x.maximum) - Int64(t.x.minimum)), spanY = Double(Int64(t.y.maximum) - Int64(t.y.minimum))
        rangeUsed = (min(1, Double(Int64(maxX) - Int64(minX)) / spanX), min(1, Double(Int64(maxY) - Int64(minY)) / spanY))
        outOfRange = minX < t.x.minimum || maxX > t.x.maximum || minY < t.y.minimum || maxY > t.y.maximum
    }
}
