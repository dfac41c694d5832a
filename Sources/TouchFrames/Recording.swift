import GestureEngine

/// A recording in evemu's text format (1.2/1.3): an optional description (`N:`, `I:`, `P:`,
/// `B:`, `A:` lines) and events (`E: sec.usec type code value`). Type and code are hex, the value
/// is decimal (leading zeros are not octal), the fraction of a second is a decimal fraction.
public struct Recording: Sendable {
    public var description: DeviceDescription?
    public var events: [InputEvent]
    /// The line of a last event with no newline after it (every line a recorder writes ends
    /// with one): the file may have been cut inside it, its value with it ("1" of "1079"); read
    /// as it is, and said by the tools. Nil when the file ends with a newline.
    public var unterminatedLine: Int?
    /// That line was cut before it held a whole event (a field or more missing, or cut to
    /// nothing readable), and was left out.
    public var unterminatedLeftOut = false

    /// What the tools say of an unterminated last line (nil: the file ends with a newline).
    public var unterminatedWarning: String? {
        guard let line = unterminatedLine else { return nil }
        return unterminatedLeftOut
            ? "\(line): the file ends inside this event (no newline, an incomplete event): left out"
            : "\(line): the file ends without a newline after this event: if it was cut short, the event's value may be cut too"
    }

    public init(description: DeviceDescription?, events: [InputEvent]) {
        (self.description, self.events) = (description, events)
    }

    /// The events, and, when the recording ends with contacts still down (a recording cut
    /// short), one more frame at the last event's time that lifts them all: a replay, and each
    /// pass of a looped one, then ends every gesture instead of leaving one begun forever. A
    /// last frame without its SYN_REPORT is ended first (its lifts then count).
    public var eventsLiftedAtEnd: [InputEvent] { eventsLiftedAtEnd(as: description) }

    /// The same, for a recording read as the panel `panel` describes (a recording of events
    /// only, with its description given apart: `--device`).
    public func eventsLiftedAtEnd(as panel: DeviceDescription?) -> [InputEvent] {
        if panel?.isProtocolA == true { return protocolALiftedAtEnd }
        var down: [Int32: Bool] = [:]
        var slot: Int32 = 0
        var touching = false
        // The state as the decoder keeps it: what follows a SYN_DROPPED, up to the next
        // SYN_REPORT, is discarded. `ended`: the last event ended its frame.
        var dropping = false, ended = true
        for e in events {
            if e.type == Evdev.EV_SYN && (e.code == Evdev.SYN_REPORT || e.code == Evdev.SYN_DROPPED) {
                (dropping, ended) = (e.code == Evdev.SYN_DROPPED, e.code == Evdev.SYN_REPORT)
                continue
            }
            ended = false
            if dropping { continue }
            if e.type == Evdev.EV_ABS && e.code == Evdev.ABS_MT_SLOT {
                slot = e.value
            } else if e.type == Evdev.EV_ABS && e.code == Evdev.ABS_MT_TRACKING_ID {
                down[slot] = e.value >= 0
            } else if e.type == Evdev.EV_KEY && e.code == Evdev.BTN_TOUCH {
                touching = e.value != 0
            }
        }
        let stillDown = down.filter(\.value).keys.sorted()
        guard let last = events.last?.time, !stillDown.isEmpty || touching || !ended else { return events }
        // A frame cut short (or a dropped stretch) is ended first: its lifts count, and a lift
        // after it is not taken as part of it.
        var out = events
        if !ended { out.append(InputEvent(time: last, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)) }
        guard !stillDown.isEmpty || touching else { return out }
        for s in stillDown {
            out.append(InputEvent(time: last, type: Evdev.EV_ABS, code: Evdev.ABS_MT_SLOT, value: s))
            out.append(InputEvent(time: last, type: Evdev.EV_ABS, code: Evdev.ABS_MT_TRACKING_ID, value: -1))
        }
        if touching { out.append(InputEvent(time: last, type: Evdev.EV_KEY, code: Evdev.BTN_TOUCH, value: 0)) }
        out.append(InputEvent(time: last, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0))
        return out
    }

    /// A protocol A recording's events, and an empty frame (every contact lifted) when its last
    /// frame had a contact, or ended in lost events (what the decoder kept then is not known here).
    private var protocolALiftedAtEnd: [InputEvent] {
        var placed = false, down = false, ended = true, dropping = false
        for e in events {
            if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT {
                // A dropped stretch ends here, its positions discarded as the decoder does.
                (down, placed, ended, dropping) = (dropping || placed, false, true, false)
            } else if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_DROPPED {
                (dropping, ended) = (true, false)
            } else {
                ended = false
                if !dropping && e.type == Evdev.EV_ABS && (e.code == Evdev.ABS_MT_POSITION_X || e.code == Evdev.ABS_MT_POSITION_Y) {
                    placed = true
                }
            }
        }
        guard let last = events.last?.time, down || placed || dropping else { return events }
        // A frame cut short (or a dropped stretch) is ended first, then the empty one.
        let cut = ended ? [] : [InputEvent(time: last, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)]
        return events + cut + [
            InputEvent(time: last, type: Evdev.EV_SYN, code: Evdev.SYN_MT_REPORT, value: 0),
            InputEvent(time: last, type: Evdev.EV_KEY, code: Evdev.BTN_TOUCH, value: 0),
            InputEvent(time: last, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0),
        ]
    }
}

