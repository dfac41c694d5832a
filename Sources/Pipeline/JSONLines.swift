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
    public static func touchLine(_ decoder: borrowing FrameDecoder, into out: inout PipelineOutput) {
        guard out.pendingTouch != nil else { return }
        out.writeTouch { w in
            Messages.touch(&w, device: decoder.frame.device, frame: decoder.frame) { decoder.unitPosition(ofContact: $0) }
        }
    }

    /// The lines of the gesture items not yet written, each with its configuration's names
    /// (the pipeline's `GestureLineEncoder`s: the one it runs, and the one before).
    public static func gestureLines(
        _ current: borrowing GestureLineEncoder, previous: borrowing GestureLineEncoder, previousSerial: Int, into out: inout PipelineOutput
    ) {
        guard out.encodedItems < out.items.count else { return }
        out.writeGestures(current, previous, previousSerial: previousSerial)
    }
}
