import GestureConfig
import GestureEngine
import GestureProtocol
import PointerEmulation
import TouchFrames

/// A device pipeline's part in pointer emulation (`emulate = "pointer"`): which compiled
/// gestures play which role in which pointer region, the emulator that turns their events into
/// pointer ops, and the fingers landing in those regions (they stop a kinetic tail there and,
/// in pass-through mode, are the pointer's: the app never sees them as touches).
struct PointerStage {
    private(set) var emulator: PointerEmulator
    /// The pointer regions' names (ops and lines name their region by index into these).
    let names: [String]
    /// Per compiled gesture: its role and pointer region, if it has one.
    private var roles: [(role: PointerRole, region: Int)?] = []
    /// Per compiled region: its pointer region, or -1.
    private var pointerRegion: [Int] = []
    /// The newest contact seen (-1: none yet): contact ids only grow, so a contact above it has
    /// just landed.
    private var newestContact: Int64 = -1
    /// Pass-through mode: a finger landing in a pointer region is taken from the app.
    let claims: Bool

    /// Nil when no region emulates a pointer.
    init?(_ list: [PointerRegion], compiled: CompiledConfiguration, scale: MillimetersPerPixel, claims: Bool) {
        guard !list.isEmpty else { return nil }
        emulator = PointerEmulator(mappings: list.map(\.mapping), scale: scale)
        names = list.map(\.name)
        self.claims = claims
        reconfigure(compiled)
    }

    /// Resolves the regions and roles again for a configuration the engine now runs (region
    /// names are unique in it: a client's region never takes a name of the file's).
    mutating func reconfigure(_ c: CompiledConfiguration) {
        pointerRegion = c.regions.map { r in names.firstIndex(of: r.name) ?? -1 }
        roles = c.gestures.map { g in
            let p = pointerRegion[g.region]
            guard p >= 0, let role = PointerRole(g.spec) else { return nil }
            return (role, p)
        }
    }

    var nextDeadline: Timestamp? { emulator.nextDeadline }
    var isIdle: Bool { emulator.isIdle }

    /// The kinetic ticks due by `time`.
    mutating func advance(to time: Timestamp, into out: inout PipelineOutput) {
        guard emulator.nextDeadline.map({ $0 <= time }) ?? false else { return }
        let first = out.pointerOps.count
        emulator.advance(to: time, into: &out.pointerOps)
        out.pointerOpsAdded(from: first, names: names)
    }

    /// Event `i` of `out.events` (of the configuration the tables were built for when `current`).
    mutating func handle(_ i: Int, current: Bool, into out: inout PipelineOutput) {
        let g = out.events[i].gesture
        let entry = current && g >= 0 && g < roles.count ? roles[g] : nil
        let first = out.pointerOps.count
        emulator.handle(out.events[i], role: entry?.role, region: entry?.region ?? -1, into: &out.pointerOps)
        out.pointerOpsAdded(from: first, names: names)
    }

    /// The fingers that landed in `frame`: in a pointer region, they stop its tail and, when
    /// claiming, their slots are the pointer's (cancelled before the mirror shows them).
    mutating func landings(_ frame: TouchFrame, _ c: CompiledConfiguration, _ decoder: FrameDecoder, into out: inout PipelineOutput) {
        for contact in frame.contacts where Int64(contact.id) > newestContact {
            newestContact = Int64(contact.id)
            guard let r = c.hitTest(contact.position), r < pointerRegion.count, pointerRegion[r] >= 0 else { continue }
            emulator.touchDown(inRegion: pointerRegion[r])
            if claims, let s = decoder.slot(ofContact: contact.id) { out.cancelledSlots.append(s) }
        }
    }
}
