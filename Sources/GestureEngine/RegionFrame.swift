/// What the last frame did to one region (`SequenceTable.frames`).
struct RegionFrame {
    /// The frame that last concerned it (`SequenceTable.frameStamp`).
    var stamp: UInt32 = 0
    /// Contacts (palms included) down in it or a region nested in it, after that frame.
    var present = 0
    /// Its summary's place in the buffer `read` filled.
    var slot = 0

    /// A read's results in one write (the frame's stamp again: a frame of the same contacts as
    /// the last, in the same path, is stamped here alone).
    mutating func read(present p: Int, slot i: Int, stamp s: UInt32) {
        present = p
        slot = i
        stamp = s
    }
}
