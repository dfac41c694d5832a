import GestureConfig
import GestureEngine

/// What the engine decides of the panel's contacts, for a mirror (pass-through): the touches a
/// system gesture takes from the app, those a gesture holds back while it may still take them,
/// and whether it can decide anything of them at all (`leavesTheMirror`).
extension DevicePipeline {
    static func holders(_ c: CompiledConfiguration, _ takes: [Bool]) -> [(gesture: Int, bound: Int64)] {
        c.gestures.indices.filter { takes[$0] && c.gestures[$0].spec.delaysTouchesBegan > 0 }.map { ($0, c.gestures[$0].spec.delaysTouchesBegan) }
    }

    static func takesTouches(_ c: CompiledConfiguration, _ actions: ActionTable, passThrough: Bool) -> [Bool] {
        c.gestures.indices.map { g in
            c.gestures[g].spec.cancelsTouches ?? (passThrough && !actions.bound(to: g).isEmpty)
        }
    }

    /// `leavesTheMirror`, for the configuration the engine runs now: in pass-through, no gesture
    /// takes touches (nor holds them), no region limits its contacts, no pointer region claims a
    /// finger. (Stuck contacts the filters end are the decoder's, known before the engine.)
    mutating func noteWhatTheEngineTakes() {
        leavesTheMirror = passThrough && !takesTouches.contains(true) && holders.isEmpty && !limitsContacts && !pointer.active
    }

    /// The contacts a holding gesture may still take now (after the engine ran):
    /// `out.heldContacts`, replacing what it held.
    public func collectHeld(into out: inout PipelineOutput) {
        out.heldContacts.removeAll(keepingCapacity: true)
        out.holdBound = 0
        for h in holders where engine.isPending(h.gesture) {
            for c in engine.contacts(of: h.gesture) where !out.heldContacts.contains(c) {
                out.heldContacts.append(c)
                out.holdBound = max(out.holdBound, h.bound)
            }
        }
    }

    /// A system gesture began (or was recognized) with event `i`: the contacts it follows are
    /// taken from the app (ended on the mirror). Never inlined: inlined in `flush`, the engine
    /// (1,193 bytes) was copied for `contacts(of:)` before the loop on every frame, taken or not.
    @inline(never)
    mutating func takeTouches(of i: Int, into out: inout PipelineOutput) {
        let phase = out.events[i].phase, g = out.events[i].gesture
        guard phase == .began || phase == .recognized else { return }
        out.takenContacts.append(contentsOf: engine.contacts(of: g))
    }
}
