import GestureEngine
import TouchFrames

/// Regions' `max_contacts` on the virtual touchscreen (pass-through): a contact landing in a
/// region that shows its most already is taken from the app (never shown, until it lifts), so a
/// browser under it cannot pinch-zoom; the gestures still see every contact. A contact counts in
/// the deepest region with a limit (the file's: a client's region has none) that holds where it
/// landed; a region's limit counts its own contacts, not those of a limited region inside it,
/// nor those landing in an excluded region (`exclude`: an on-screen keyboard's thumbs).
struct ContactLimits {
    /// The contacts shown, each with the region it counts in.
    private var counted: [(id: UInt32, region: Int)] = []
    /// The contacts taken for a limit, or already taken by someone else when they landed (a
    /// system gesture, the pointer): seen, counted nowhere, until they lift.
    private var passed: [UInt32] = []
    /// Contacts taken so far (`stats`, reason `contact_limit`).
    private(set) var taken = 0

    /// The decoder's last frame: the contacts landing past a limit into `out` (the mirror's taken).
    mutating func frame(_ decoder: borrowing FrameDecoder, _ configuration: CompiledConfiguration, into out: inout [UInt32]) {
        let contacts = decoder.frame.contacts
        // Nothing down before and nothing new: nothing to do.
        guard !(counted.isEmpty && passed.isEmpty && contacts.isEmpty) else { return }
        // Lifted: forgotten.
        counted.removeAll { c in !contacts.contains { $0.id == c.id } }
        passed.removeAll { p in !contacts.contains { $0.id == p } }
        // New: not seen before (whenever its id was given: a contact placed late lands now).
        for i in contacts.indices where !passed.contains(contacts[i].id) && !counted.contains(where: { $0.id == contacts[i].id }) {
            let id = contacts[i].id
            // Already kept from the app, or landing in an excluded area (the app's alone).
            if out.contains(id) || configuration.isExcluded(contacts[i].position) {
                passed.append(id)
                continue
            }
            guard let r = Self.limiting(contacts[i].position, configuration), let most = configuration.regions[r].maxContacts else { continue }
            var shown = 0
            for c in counted where c.region == r { shown += 1 }
            if shown < most {
                counted.append((id, r))
            } else {
                passed.append(id)
                out.append(id)
                taken += 1
            }
        }
    }

    /// `ids` are counted nowhere until they lift (the touch that woke the kiosk).
    mutating func pass(_ ids: [UInt32]) {
        for id in ids where !passed.contains(id) { passed.append(id) }
        counted.removeAll { c in ids.contains(c.id) }
    }

    /// A new pipeline (a reload) goes on from `old`: its count, and the contacts it showed, each
    /// counted where it is in the new configuration.
    mutating func continueFrom(_ old: ContactLimits, _ contacts: borrowing FrameList<Contact>, _ configuration: CompiledConfiguration) {
        taken = old.taken
        passed = old.passed
        for c in old.counted {
            guard let i = contacts.indices.first(where: { contacts[$0].id == c.id }) else { continue }
            if let r = Self.limiting(contacts[i].position, configuration) { counted.append((c.id, r)) }
        }
    }

    /// The deepest region with a limit that holds point `p`.
    private static func limiting(_ p: PixelPoint, _ configuration: CompiledConfiguration) -> Int? {
        var best: Int?
        for i in configuration.regions.indices where configuration.regions[i].maxContacts != nil && configuration.regions[i].rect.contains(p) {
            if best.map({ configuration.regions[i].depth >= configuration.regions[$0].depth }) ?? true { best = i }
        }
        return best
    }
}
