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
    /// The decoder's `nextContact` when the stage last looked: contact ids only grow, so a frame
    /// has a new contact when it moved, and the new ones are those from this id on.
    var seenNextContact: UInt32 = 1
    /// The configuration the engine runs, for hit-testing a landing (kept, not passed per frame).
    private var compiled: CompiledConfiguration?
    /// Per pointer region, the sequence (`GestureEvent.sequence`) a finger joined that landed in
    /// a region nested in it that is not the pointer's (a strip for an edge swipe): the region's
    /// gestures do nothing with the pointer in it. And the sequence a finger started that
    /// stopped the region's kinetic tail: its taps click nothing (UIScrollView's rule: a tap that
    /// stops a scroll selects nothing). -1: none (sequences are numbered from 1, and an event
    /// of none carries 0).
    private var foreignSequence: [Int] = []
    private var stoppingSequence: [Int] = []
    /// Some region emulates a pointer (else the stage does nothing, and is never asked to).
    let active: Bool
    /// Pass-through mode: a finger landing in a pointer region is taken from the app.
    let claims: Bool

    init(_ list: [PointerRegion], compiled: CompiledConfiguration, scale: MillimetersPerPixel, passThrough: Bool) {
        emulator = PointerEmulator(mappings: list.map(\.mapping), scale: scale)
        names = list.map(\.name)
        (foreignSequence, stoppingSequence) = (Array(repeating: -1, count: list.count), Array(repeating: -1, count: list.count))
        active = !list.isEmpty
        claims = active && passThrough
        if active { reconfigure(compiled) }
    }

    /// Resolves the regions and roles again for a configuration the engine now runs (region
    /// names are unique in it: a client's region never takes a name of the file's).
    mutating func reconfigure(_ c: CompiledConfiguration) {
        compiled = c
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
        guard let due = emulator.nextDeadline, due <= time else { return }
        let first = out.pointerOps.count
        emulator.advance(to: time, into: &out.pointerOps)
        out.pointerOpsAdded(from: first, names: names)
    }

    /// Event `i` of `out.events` (of the configuration the tables were built for when `current`).
    mutating func handle(_ i: Int, current: Bool, into out: inout PipelineOutput) {
        let g = out.events[i].gesture, sequence = out.events[i].sequence
        var entry = current && g >= 0 && g < roles.count ? roles[g] : nil
        if let p = entry?.region, sequence == foreignSequence[p] { entry = nil }
        if let e = entry, e.role == .tap || e.role == .twoFingerTap, sequence == stoppingSequence[e.region] { entry = nil }
        let first = out.pointerOps.count
        emulator.handle(out.events[i], role: entry?.role, region: entry?.region ?? -1, into: &out.pointerOps)
        out.pointerOpsAdded(from: first, names: names)
    }

    /// A finger just landed (`engine` has read its frame; its events have not reached the
    /// pointer yet). Anywhere but as a palm it stops the kinetic tail; in a region nested in a
    /// pointer region that is not the pointer's, it is the app's and that region's: the pointer
    /// regions around it do nothing with the pointer in the sequence it joined; in a pointer
    /// region whose tail it stopped, its sequence's taps click nothing.
    mutating func mark(_ contact: Contact, engine: borrowing Engine) {
        guard !contact.isPalm else { return }
        let stopping = emulator.tailRegion
        emulator.stopTail()
        // (None in an excluded region: its finger is no gesture's and joins no sequence.)
        guard let compiled, let leaf = compiled.hitTest(contact.position), leaf < pointerRegion.count else { return }
        let p = pointerRegion[leaf]
        if p >= 0 {
            if p == stopping, case let s = engine.sequence(ofRegion: leaf), s > 0 { stoppingSequence[p] = s }
            return
        }
        var r = compiled.regions[leaf].parent
        while let a = r {
            let sequence = engine.sequence(ofRegion: a)
            if pointerRegion[a] >= 0 && sequence > 0 { foreignSequence[pointerRegion[a]] = sequence }
            r = compiled.regions[a].parent
        }
    }

    /// The kinetic tail stops (a touch the daemon swallows to wake the kiosk).
    mutating func stopTail() { emulator.stopTail() }

    /// A finger just landed at `time`, marked (`mark`): in a pointer region it brings the pointer
    /// there and, when claiming, it is the pointer's (the caller cancels its slot before the
    /// mirror shows it): the result. A palm only hides from the app there.
    mutating func landed(_ contact: Contact, time: Timestamp, into out: inout PipelineOutput) -> Bool {
        guard let compiled, let leaf = compiled.hitTest(contact.position), leaf < pointerRegion.count, pointerRegion[leaf] >= 0 else { return false }
        if contact.isPalm { return claims }
        let first = out.pointerOps.count
        _ = emulator.touchDown(inRegion: pointerRegion[leaf], at: contact.position, time: time, into: &out.pointerOps)
        out.pointerOpsAdded(from: first, names: names)
        return claims
    }
}
