import GestureEngine

/// The pipeline's side of pointer emulation: the frame's landings marked before its events drive
/// the pointer (a finger in a region nested in a pointer region, one that stops a kinetic tail),
/// then the pointer brought to them and their claims; a new configuration's roles.
extension DevicePipeline {
    /// The landings of the decoder's last frame (those `pointerLandings` takes next), marked for
    /// the pointer before the frame's events reach it: an event of a gesture that begins in the
    /// very frame a finger landed in a nested strip (or stopped a tail) is already that
    /// sequence's. The frame read where it lies, as `pointerLandings` reads it.
    mutating func pointerMarks() {
        let first = pointer.seenNextContact
        let filtered = decoder.isFiltered
        guard filtered ? decoder.landed : decoder.nextContact != first else { return }
        var i = decoder.frame.contacts.startIndex
        while i < decoder.frame.contacts.endIndex {
            let c = decoder.frame.contacts[i]
            i += 1
            if filtered ? decoder.isNewInFrame(c.id) && !isWaking(c.id) : c.id >= first { pointer.mark(c, engine: engine) }
        }
    }

    /// Fingers that landed in a pointer region (after the engine: the stage's configuration is
    /// then the one the frame ran under); when the pointer claims one, its slot is cancelled.
    /// The frame is the decoder's last, read where it lies (an index loop: iterating the slice,
    /// or passing the frame, retained and copied it every frame), and only when a contact landed.
    mutating func pointerLandings(into out: inout PipelineOutput) {
        let first = pointer.seenNextContact
        // A filtered panel's contact may land for the gestures frames after its id was given
        // (the ghost filter shows it once it lasted): what is new is what the last frame lacked.
        let filtered = decoder.isFiltered
        if filtered ? decoder.landed : decoder.nextContact != first {
            pointer.seenNextContact = decoder.nextContact
            var i = decoder.frame.contacts.startIndex
            while i < decoder.frame.contacts.endIndex {
                let c = decoder.frame.contacts[i]
                i += 1
                let new = filtered ? decoder.isNewInFrame(c.id) && !isWaking(c.id) : c.id >= first
                if new, pointer.landed(c, time: decoder.frame.time, into: &out) { out.takenContacts.append(c.id) }
            }
        }
        nextDeadline = Self.sooner(engine.nextDeadline, pointer.nextDeadline)
    }

    /// The engine runs a new configuration: the pointer regions' roles are resolved for it, or,
    /// when the file's pointer regions changed, pointer emulation starts afresh.
    mutating func reconfigurePointer() {
        if pointer.names == pointerList.map(\.name) && pointer.emulator.mappings == pointerList.map(\.mapping) {
            pointer.reconfigure(engine.configuration)
        } else {
            // Contacts the old stage saw are not new to the new one.
            let seen = pointer.seenNextContact
            pointer = PointerStage(pointerList, compiled: engine.configuration, scale: decoder.geometry.scale, passThrough: passThrough)
            pointer.seenNextContact = seen
        }
        holdsTouches = !holders.isEmpty || pointer.claims
    }
}
