/// One finger from touch-down to lift. `id` is unique for the contact's whole life and never
/// reused while the engine could still remember it (the frame decoder assigns it; a kernel
/// tracking id is not unique enough).
public struct Contact: Hashable, Sendable {
    public var id: UInt32
    /// Screen position in pixels, after calibration, rotation and output mapping.
    public var position: PixelPoint
    /// `isPalm` and `isLifted` in one byte: the engine asks one question of an ordinary
    /// contact per frame, as it did of the palm flag alone.
    private var flags: UInt8

    /// The panel reports this contact as a palm (ABS_MT_TOOL_TYPE = MT_TOOL_PALM).
    public var isPalm: Bool { flags & 1 != 0 }
    /// The finger has lifted and the chatter filter holds its lift (`chatter_window`): it
    /// counts as down, where it was, and moves nothing (no still finger in the fingers' motion).
    public var isLifted: Bool { flags & 2 != 0 }
    /// Neither a palm nor a held lift.
    var isOrdinary: Bool { flags == 0 }

    public init(id: UInt32, position: PixelPoint, isPalm: Bool = false, isLifted: Bool = false) {
        self.id = id
        self.position = position
        flags = (isPalm ? 1 : 0) | (isLifted ? 2 : 0)
    }
}

/// Everything a device reported between two SYN_REPORTs: every contact that is down, at one time.
public struct TouchFrame: Sendable {
    public var time: Timestamp
    /// Which device the frame came from; a sequence never mixes devices.
    public var device: UInt32
    /// The contacts that are down after this frame. A contact missing from the next frame has
    /// lifted. The decoder refills the list in place every frame (no retain or release a frame).
    public var contacts: FrameList<Contact>
    /// Millimetres per pixel for this device, so thresholds can be physical.
    public var scale: MillimetersPerPixel
    /// Events were lost before this frame (SYN_DROPPED without a resync): the engine cancels the
    /// sequence rather than guess.
    public var discontinuity: Bool

    public init(
        time: Timestamp, device: UInt32 = 0, contacts: [Contact], scale: MillimetersPerPixel,
        discontinuity: Bool = false
    ) {
        self.time = time
        self.device = device
        self.contacts = FrameList(contacts)
        self.scale = scale
        self.discontinuity = discontinuity
    }
}
