/// What the last frame did to one region (`SequenceTable.frames`).
struct RegionFrame {
    /// The frame that last concerned it (`SequenceTable.frameStamp`).
    var stamp: UInt32 = 0
    /// Contacts (palms included) down in it or a region nested in it, after that frame.
    var present = 0
    /// Its summary's place in the buffer `read` filled.
    var slot = 0

    /// Both of a read's results in one write.
    mutating func read(present p: Int, slot i: Int) {
        present = p
        slot = i
    }
}
