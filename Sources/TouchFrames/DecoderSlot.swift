/// What `FrameDecoder` keeps of one slot of the panel (or of a single-touch panel's one
/// contact): the kernel's values as last reported, and the contact id the decoder gave it.
struct DecoderSlot {
    var trackingID: Int32 = -1
    var contact: UInt32 = 0
    var x: Int32 = 0
    var y: Int32 = 0
    var hasX = false
    var hasY = false
    /// Never used since the panel was opened (`FrameDecoder.seed`): the kernel has it at 0, 0
    /// and sends neither again; a landing with a position on one axis is at 0 on the other.
    var zeroKnown = false
    var isPalm = false
    /// ABS_MT_TOUCH_MAJOR, in the axis's units.
    var major: Int32 = 0
    /// Every multitouch axis as the panel last reported it in the slot (kept as the kernel
    /// keeps a slot's values: a new contact starts from them).
    var axes = PanelAxes()
}
