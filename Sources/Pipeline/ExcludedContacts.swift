import GestureEngine
import TouchFrames

/// The contacts that landed in an excluded region (`exclude`: an on-screen keyboard's keys):
/// left out of `touch` lines as well as gestures, so no client reads what was typed on it.
/// Nothing to do, and no cost, while the configuration has no excluded region and none is down.
public struct ExcludedContacts {
    /// Down now, landed in an excluded region.
    public private(set) var ids: [UInt32] = []
    /// Down now, seen landing (in an excluded region or not).
    private var seen: [UInt32] = []
    /// The configuration has an excluded region (set with each configuration).
    var watching = false
    /// Something to do this frame (asked before the configuration is passed: no copy of it).
    var isActive: Bool { watching || !seen.isEmpty }

    /// A new pipeline (a reload) goes on from `old`: what it left out stays out until it lifts.
    mutating func continueFrom(_ old: ExcludedContacts) { (ids, seen) = (old.ids, old.seen) }

    /// `more` left out of touch lines too until they lift (the touch that woke the kiosk).
    mutating func hide(_ more: [UInt32]) {
        for id in more where !ids.contains(id) {
            ids.append(id)
            if !seen.contains(id) { seen.append(id) }
        }
    }

    /// The decoder's last frame: lifted contacts forgotten, landed ones placed.
    mutating func frame(_ decoder: borrowing FrameDecoder, _ configuration: CompiledConfiguration) {
        let contacts = decoder.frame.contacts
        seen.removeAll { id in !contacts.contains { $0.id == id } }
        ids.removeAll { id in !contacts.contains { $0.id == id } }
        guard watching else { return }
        for i in contacts.indices where !seen.contains(contacts[i].id) {
            seen.append(contacts[i].id)
            if configuration.isExcluded(contacts[i].position) { ids.append(contacts[i].id) }
        }
    }
}
