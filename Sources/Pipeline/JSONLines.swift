import GestureEngine
import GestureProtocol
import TouchFrames

/// The client-lines consumer's encoding: a device's output written as the protocol's JSON lines
/// (docs/PROTOCOL.md), a frame's `touch` line once the frame is made (its contacts' panel
/// positions are the decoder's then), each gesture event's `gesture` line with the names of the
/// configuration it was recognized under. The pipeline only says what happened
/// (`PipelineOutput`'s items); another protocol would be another consumer beside this one.
public enum JSONLines {
    /// The last frame's `touch` line, if one is wanted: each contact with its screen position
    /// and its place on the panel's own axes (the calibrator's u, v).
    /// `hidden`: the contacts that landed in an excluded region, left out.
    public static func touchLine(_ decoder: borrowing FrameDecoder, hiding hidden: [UInt32], into out: inout PipelineOutput) {
        guard out.pendingTouch != nil else { return }
        out.writeTouch { w in
            Messages.touch(&w, device: decoder.frame.device, frame: decoder.frame, hidden: hidden) { decoder.unitPosition(ofContact: $0) }
        }
    }

    /// The lines of the gesture items not yet written into `out`'s text, in the items' order
    /// (the replay's and `touchgesturectl`'s way: they print `out.lines`). The daemon's fan-out
    /// writes each gesture line itself, as it queues it (`LineEncoders.encode`).
    public static func gestureLines(_ encoders: borrowing LineEncoders, into out: inout PipelineOutput) {
        guard out.encodedItems < out.items.count else { return }
        out.writeGestures(encoders)
    }
}

/// The names of the configuration a device's engine runs, and of the one before (for events
/// emitted just before a switch: the engine switches only between sequences, so one
/// configuration back is all there can be), ready to write gesture lines with.
public struct LineEncoders {
    public private(set) var current: GestureLineEncoder
    public private(set) var previous: GestureLineEncoder
    /// `CompiledConfiguration.serial` of `previous` (-1: none yet).
    public private(set) var previousSerial = -1

    init(_ current: GestureLineEncoder) {
        self.current = current
        previous = current
    }

    /// A new configuration: the current one becomes the one before.
    mutating func switched(to next: GestureLineEncoder, from serial: Int) {
        previous = current
        previousSerial = serial
        current = next
    }

    /// Appends event `e`'s line, with the names of configuration `serial` (the item's origin).
    // Safe: callers pass a pointer into the events lent for their loop, used in this call only.
    public func encode(at e: UnsafePointer<GestureEvent>, configuration serial: Int, into w: inout JSONLineWriter) {
        if serial == previousSerial { previous.encode(at: e, into: &w) } else { current.encode(at: e, into: &w) }
    }
}
