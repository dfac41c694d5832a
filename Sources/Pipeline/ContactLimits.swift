import GestureEngine
import TouchFrames

/// Regions' `max_contacts` on the virtual touchscreen (pass-through): a contact landing in a
/// region that shows its most already is taken from the app (never shown, until it lifts), so a
/// browser under it cannot pinch-zoom; the gestures still see every contact. A contact counts in
/// the innermost region with a limit that holds where it landed.
struct ContactLimits {
    /// The contacts shown, each with the region it counts in.
    private var counted: [(id: UInt32, region: Int)] = []
    /// The contacts taken for a limit, until they lift.
    private var hidden: [UInt32] = []
    /// Contacts taken so far (`stats`, reason `contact_limit`).
    private(set) var taken = 0

    /// The decoder's last frame: the contacts landing past a limit into `out` (the mirror's taken).
    mutating func frame(_ decoder: borrowing FrameDecoder, _ configuration: CompiledConfiguration, into out: inout [UInt32]) {
        let contacts = decoder.frame.contacts
        // Lifted: neither counted nor hidden any more.
        counted.removeAll { c in !contacts.contains { $0.id == c.id } }
        hidden.removeAll { h in !contacts.contains { $0.id == h } }
        for i in contacts.indices where decoder.isNewInFrame(contacts[i].id) {
            guard let r = Self.limiting(contacts[i].position, configuration), let most = configuration.regions[r].maxContacts else { continue }
            var shown = 0
            for c in counted where c.region == r { shown += 1 }
            if shown < most {
                counted.append((contacts[i].id, r))
            } else {
                hidden.append(contacts[i].id)
                out.append(contacts[i].id)
                taken += 1
            }
        }
    }

    /// The innermost region with a limit that holds point `p`.
    private static func limiting(_ p: PixelPoint, _ configuration: CompiledConfiguration) -> Int? {
        var r = configuration.hitTest(p)
        while let i = r {
            if configuration.regions[i].maxContacts != nil { return i }
            r = configuration.regions[i].parent
        }
        return nil
    }
}
