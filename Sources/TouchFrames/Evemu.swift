import GestureEngine

/// A text file (a recording, a configuration) that cannot be used: where and why. Printed as
/// `FILE:LINE: reason`, the form editors and compilers use.
public struct FileLineError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var reason: String
    public init(file: String, line: Int, reason: String) {
        (self.file, self.line, self.reason) = (file, line, reason)
    }
    public var description: String { "\(file):\(line): \(reason)" }
}

/// A recording that cannot be read.
public typealias RecordingError = FileLineError

public enum Evemu {
    /// Parses an evemu recording. `file` names it in errors. `described`: the device the events
    /// are read as, in place of the file's own description (`--device DESC`), which its slot
    /// events are checked against.
    public static func parse(_ text: String, file: String, describedAs described: DeviceDescription? = nil) throws(RecordingError) -> Recording {
        // A byte order mark, which some Windows editors put first, is no part of the first line
        // (one: a second is the file's own, and refused as any stray character).
        let marked = text.utf8.starts(with: [0xEF, 0xBB, 0xBF])
        return try parseUnmarked(marked ? String(decoding: text.utf8.dropFirst(3), as: UTF8.self) : text, file: file, describedAs: described)
    }

    private static func parseUnmarked(_ text: String, file: String, describedAs described: DeviceDescription?) throws(RecordingError) -> Recording {
        if LibinputRecord.recognizes(text.prefix(256)) {
            var (recording, slotLines) = try LibinputRecord.parse(text, file: file)
            if let described { recording.description = described }
            if let description = recording.description { try checkSlots(slotLines, description, file: file) }
            return recording
        }
        var reader = Reader(file: file)
        var text = text
        let bytes = text.withUTF8 { Array($0) }
        reader.events.reserveCapacity(bytes.count / 28)
        var start = 0
        // The latest event time so far: a recording's events are in time order (a clock set
        // back mid-recording would replay two taps as a double tap, or time running backwards).
        var latest = Int64.min
        var unterminated: Int?
        var leftOut = false
        // Each slot event's line and value, checked against the description once it is whole.
        var slotLines: [(line: Int, slot: Int32)] = []
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            defer { start = end + 1 }
            reader.lineNumber += 1
            if end == bytes.count && end - start >= 2 && bytes[start] == UInt8(ascii: "E") && bytes[start + 1] == UInt8(ascii: ":") {
                unterminated = reader.lineNumber
            }
            // Almost every line is an event in the exact form evemu writes: read it from the
            // bytes. Anything else (comments, description lines, odd spacing, errors) takes the
            // general path.
            // evemu's lines are short (a description's longest, a bitmask, about 300 bytes): a
            // longer one is no recording's, and would be copied whole into its error.
            guard end - start <= Self.lineBytes else { throw reader.fail("a line of \(end - start) bytes; a recording's are \(Self.lineBytes) at most") }
            let before = reader.events.count
            if let e = fastEvent(bytes, start, end) {
                reader.events.append(e)
            } else if unterminated == reader.lineNumber && Self.fieldCount(bytes[(start + 2)..<end]) < 4 {
                // The last event, cut before its value (a cut leaves a prefix of a line: fewer
                // fields, never a bad one): left out, said by the tools.
                leftOut = true
            } else {
                try reader.read(Substring(String(decoding: bytes[start..<end], as: UTF8.self)))
            }
            guard reader.events.count > before, let e = reader.events.last else { continue }
            if e.type == Evdev.EV_ABS && e.code == Evdev.ABS_MT_SLOT { slotLines.append((reader.lineNumber, e.value)) }
            let t = e.time.nanoseconds
            guard t >= latest else {
                throw reader.fail("time goes back to \(Timestamp(nanoseconds: t).seconds) s after \(Timestamp(nanoseconds: latest).seconds) s (events must be in time order)")
            }
            latest = t
        }
        var recording = reader.recording()
        recording.unterminatedLine = unterminated
        recording.unterminatedLeftOut = leftOut
        if let described { recording.description = described }
        if let description = recording.description { try checkSlots(slotLines, description, file: file) }
        return recording
    }

    /// The longest line a recording may hold.
    /// The whitespace-separated fields in `bytes`.
    static func fieldCount(_ bytes: ArraySlice<UInt8>) -> Int {
        var n = 0, inField = false
        for b in bytes {
            let space = b == 0x20 || b == 0x09 || b == 0x0D
            if !space && !inField { n += 1 }
            inField = !space
        }
        return n
    }

    static let lineBytes = 4096
    /// The longest device name a recording may give (no device's is longer: the kernel's uinput
    /// takes 80 bytes, EVIOCGNAME readers 256).
    static let nameBytes = 1024

    /// Each slot event (`lines`) one of the device's slots, and one the decoder reads (the first
    /// `DeviceDescription.maxSlots`): the kernel passes on no other, so such a file was written by
    /// hand or damaged, and its touches would be lost without a word.
    static func checkSlots(_ lines: [(line: Int, slot: Int32)], _ description: DeviceDescription, file: String) throws(RecordingError) {
        guard let slots = description.axes[Evdev.ABS_MT_SLOT] else {
            // The kernel sends no slot a device has none of: read as protocol A, every slot
            // event would be dropped and its contacts run together.
            if let first = lines.first {
                throw RecordingError(file: file, line: first.line, reason: "a slot event (ABS_MT_SLOT), and the device has no slot axis (no 'A: 2f' line): its touches would be misread")
            }
            return
        }
        if let bad = lines.first(where: { $0.slot < slots.minimum || $0.slot > slots.maximum }) {
            throw RecordingError(file: file, line: bad.line, reason: "slot \(bad.slot) is not one of the device's (\(slots.minimum)-\(slots.maximum))")
        }
        if let bad = lines.first(where: { $0.slot >= DeviceDescription.maxSlots }) {
            throw RecordingError(file: file, line: bad.line, reason: "slot \(bad.slot) is past the \(DeviceDescription.maxSlots) slots touchgestured reads (0-\(DeviceDescription.maxSlots - 1))")
        }
    }

    /// The general path: one line at a time into the description and the events.
    private struct Reader {
        let file: String
        var lineNumber = 0
        var desc: DeviceDescription?
        var props: [UInt8] = []
        var masks: [UInt16: [UInt8]] = [:]
        var events: [InputEvent] = []
        /// The longest bitmask a device has (EV_KEY's: KEY_CNT 768 bits): more is no device's,
        /// and its bits' codes would run past 16 bits.
        static let maskBytes = 96

        init(file: String) { self.file = file }

        func fail(_ reason: String) -> RecordingError { RecordingError(file: file, line: lineNumber, reason: reason) }

        mutating func read(_ text: Substring) throws(RecordingError) {
            var line = text
            // A comment runs from '#' to the line's end; a name may hold one ("Panel #2").
            if !line.hasPrefix("N:"), let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            line = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            while let last = line.last, last == " " || last == "\t" || last == "\r" { line = line.dropLast() }
            if line.isEmpty { return }
            guard line.count >= 2, line.dropFirst().first == ":", let tag = line.first else {
                throw fail("expected a line like 'E: 0.000000 0003 0035 100', found '\(line.prefix(40))'")
            }
            let fields = line.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch tag {
            case "E": events.append(try event(fields))
            case "N":
                // A longer one would be copied into every message that names it.
                guard line.utf8.count <= Evemu.nameBytes + 3 else { throw fail("a device name of \(line.utf8.count - 3) bytes; \(Evemu.nameBytes) at most") }
                if desc == nil { desc = DeviceDescription(name: "") }
                desc?.name = String(line.dropFirst(2).drop { $0 == " " })
            case "I":
                let ids = fields.compactMap { UInt16($0, radix: 16) }
                guard fields.count == 4, ids.count == 4 else { throw fail("an id line needs 4 hex fields (bus vendor product version)") }
                if desc == nil { desc = DeviceDescription(name: "") }
                desc?.bustype = ids[0]
                desc?.vendor = ids[1]
                desc?.product = ids[2]
                desc?.version = ids[3]
            case "P":
                let bytes = fields.compactMap { UInt8($0, radix: 16) }
                guard bytes.count == fields.count else { throw fail("a property line holds hex bytes") }
                guard props.count + bytes.count <= Self.maskBytes else { throw fail("the properties run past \(Self.maskBytes) bytes") }
                props += bytes
            case "B":
                let bytes = fields.compactMap { UInt8($0, radix: 16) }
                guard bytes.count == fields.count, bytes.count >= 1 else { throw fail("a bitmask line holds hex bytes") }
                guard (masks[UInt16(bytes[0])]?.count ?? 0) + bytes.count - 1 <= Self.maskBytes else {
                    throw fail("the bitmask of type \(fields[0]) runs past \(Self.maskBytes) bytes (EV_KEY's, the kernel's largest)")
                }
                masks[UInt16(bytes[0]), default: []] += bytes.dropFirst()
            case "A": try axis(fields)
            case "L", "S": return  // LEDs and switches: not ours
            default: throw fail("unknown line type '\(tag):'")
            }
        }

        func event(_ fields: [Substring]) throws(RecordingError) -> InputEvent {
            guard fields.count == 4 else { throw fail("an event needs 4 fields (time type code value), found \(fields.count)") }
            guard let time = parseTime(fields[0]) else { throw fail("bad event time '\(fields[0])' (seconds, 0 to \(Evemu.latestSecond): 12.345678)") }
            guard let type = UInt16(fields[1], radix: 16), type <= Evdev.EV_MAX else {
                throw fail("bad event type '\(fields[1])' (hex, at most 1f)")
            }
            guard let code = UInt16(fields[2], radix: 16), code <= 0x2ff else {
                throw fail("bad event code '\(fields[2])' (hex, at most 2ff)")
            }
            guard let value = Int32(fields[3]) else { throw fail("bad event value '\(fields[3])' (decimal)") }
            return InputEvent(time: time, type: type, code: code, value: value)
        }

        mutating func axis(_ fields: [Substring]) throws(RecordingError) {
            guard fields.count == 5 || fields.count == 6, let code = UInt16(fields[0], radix: 16), code <= Evdev.ABS_MAX else {
                throw fail("an axis line needs: code(hex) min max fuzz flat [resolution]")
            }
            let numbers = fields.dropFirst().compactMap { Int32($0) }
            guard numbers.count == fields.count - 1 else { throw fail("axis values must be decimal integers") }
            guard numbers[0] <= numbers[1] else { throw fail("axis \(fields[0]): minimum \(numbers[0]) above maximum \(numbers[1])") }
            if [Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y].contains(code) && numbers[0] == numbers[1] {
                throw fail("axis \(fields[0]): minimum equals maximum (\(numbers[0])): every position on it would map to one point")
            }
            if desc == nil { desc = DeviceDescription(name: "") }
            guard desc?.axes[code] == nil else { throw fail("axis \(fields[0]) is described twice (a recording describes each axis once)") }
            desc?.axes[code] = AbsAxis(
                minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                resolution: numbers.count > 4 ? numbers[4] : 0)
        }

        /// The events, and the description with its property and code bitmasks as sets.
        func recording() -> Recording {
            guard var d = desc else { return Recording(description: nil, events: events) }
            for (i, byte) in props.enumerated() {
                for bit in 0..<8 where byte & (1 << bit) != 0 { d.properties.insert(UInt16(i * 8 + bit)) }
            }
            for (type, bytes) in masks {
                var set = Set<UInt16>()
                for (i, byte) in bytes.enumerated() {
                    for bit in 0..<8 where byte & (1 << bit) != 0 { set.insert(UInt16(i * 8 + bit)) }
                }
                d.codes[type] = set
            }
            // Axes declared with A: lines are supported even when a B: line for EV_ABS is missing.
            for code in d.axes.keys { d.codes[Evdev.EV_ABS, default: []].insert(code) }
            return Recording(description: d, events: events)
        }
    }

    /// `E: SEC.FRACTION TYPE CODE VALUE` exactly as evemu writes it (single spaces, no comment,
    /// an optional trailing CR), read from the bytes; nil for anything else.
    static func fastEvent(_ b: [UInt8], _ start: Int, _ end: Int) -> InputEvent? {
        var end = end
        if end > start && b[end - 1] == 0x0D { end -= 1 }
        guard end - start >= 14, b[start] == 0x45, b[start + 1] == 0x3A, b[start + 2] == 0x20 else { return nil }
        var i = start + 3
        func decimal(maxDigits: Int) -> (value: Int64, digits: Int)? {
            var v: Int64 = 0
            var n = 0
            while i < end, b[i] >= 0x30, b[i] <= 0x39 {
                guard n < maxDigits else { return nil }
                v = v * 10 + Int64(b[i] - 0x30)
                n += 1
                i += 1
            }
            return n > 0 ? (v, n) : nil
        }
        func hex(maxDigits: Int) -> UInt32? {
            var v: UInt32 = 0
            var n = 0
            while i < end {
                let c = b[i]
                let d: UInt32
                if c >= 0x30 && c <= 0x39 { d = UInt32(c - 0x30) }
                else if c >= 0x61 && c <= 0x66 { d = UInt32(c - 0x61 + 10) }
                else if c >= 0x41 && c <= 0x46 { d = UInt32(c - 0x41 + 10) }
                else { break }
                guard n < maxDigits else { return nil }
                v = v << 4 | d
                n += 1
                i += 1
            }
            return n > 0 ? v : nil
        }
        func space() -> Bool {
            guard i < end, b[i] == 0x20 else { return false }
            i += 1
            return true
        }
        guard let sec = decimal(maxDigits: 10), sec.value < Int64.max / 2_000_000_000, i < end, b[i] == 0x2E else { return nil }
        i += 1
        guard let frac = decimal(maxDigits: 9) else { return nil }
        var nanos = frac.value
        for _ in frac.digits..<9 { nanos *= 10 }
        guard space(), let type = hex(maxDigits: 4), type <= UInt32(Evdev.EV_MAX), space(),
            let code = hex(maxDigits: 4), code <= 0x2ff, space()
        else { return nil }
        var negative = false
        if i < end && b[i] == 0x2D {
            negative = true
            i += 1
        }
        guard let value = decimal(maxDigits: 10), i == end else { return nil }
        let signed = negative ? -value.value : value.value
        guard signed >= Int64(Int32.min), signed <= Int64(Int32.max) else { return nil }
        return InputEvent(
            time: Timestamp(nanoseconds: sec.value * 1_000_000_000 + nanos), type: UInt16(type), code: UInt16(code),
            value: Int32(signed))
    }

    /// "1350644052.895553" → a timestamp; the fraction is decimal (".5" is half a second).
    /// The latest second a recording's time may name (twice it, in ns, still fits an Int64).
    static let latestSecond = Int64.max / 2_000_000_000 - 1

    static func parseTime(_ s: Substring) -> Timestamp? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        // Digits only: "-0.3" is no time (Int64 would read its "-0" as 0 and drop the sign).
        guard parts.count <= 2, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let sec = Int64(parts[0]) else { return nil }
        var nanos: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let nine = String((digits + "000000000").prefix(9))
            nanos = Int64(nine) ?? 0
        }
        guard sec <= latestSecond else { return nil }
        return Timestamp(nanoseconds: sec * 1_000_000_000 + nanos)
    }

    /// Writes a recording in evemu 1.3's format (a description, then events), readable by
    /// `evemu-play` and by `parse`. Times count from the earliest event, or, with
    /// `absoluteTimes`, are the events' own (CLOCK_MONOTONIC for a live device).
    public static func format(_ recording: Recording, absoluteTimes: Bool = false) -> String {
        var out = "# EVEMU 1.3\n"
        if let d = recording.description {
            // A name is the device's word: a control character in it (a hostile USB device's
            // ESC sequence) would steer the terminal this is printed on; it becomes '?'.
            out += "N: " + String(String.UnicodeScalarView(d.name.unicodeScalars.map { v in
                v.value < 0x20 || (0x7F...0x9F).contains(v.value) ? "?" : v
            })) + "\n"
            out += "I: \(hex(d.bustype, 4)) \(hex(d.vendor, 4)) \(hex(d.product, 4)) \(hex(d.version, 4))\n"
            var propBytes = [UInt8](repeating: 0, count: 8)
            for p in d.properties where p < 64 { propBytes[Int(p / 8)] |= 1 << (p % 8) }
            out += "P: " + propBytes.map { hex($0, 2) }.joined(separator: " ") + "\n"
            for type in d.codes.keys.sorted() {
                let codes = d.codes[type]!
                let top = Int(codes.max() ?? 0)
                var bytes = [UInt8](repeating: 0, count: max(8, (top / 64 + 1) * 8))
                for c in codes { bytes[Int(c / 8)] |= 1 << (c % 8) }
                var i = 0
                while i < bytes.count {
                    out += "B: \(hex(UInt8(type), 2)) " + bytes[i..<(i + 8)].map { hex($0, 2) }.joined(separator: " ") + "\n"
                    i += 8
                }
            }
            for code in d.axes.keys.sorted() {
                let a = d.axes[code]!
                out += "A: \(hex(UInt8(code), 2)) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
            }
        }
        // In time order, as every reader (`parse` too) needs it: an event stamped before the one
        // written last (a resync's frame, stamped by the reader after its ioctls, before a packet
        // the kernel stamped during them; a clock set back) is written at that one's time.
        var times: [Int64] = []
        times.reserveCapacity(recording.events.count)
        var latest = Int64.min
        for e in recording.events {
            latest = max(latest, e.time.nanoseconds)
            times.append(latest)
        }
        let start = absoluteTimes ? 0 : times.first ?? 0
        for (e, t) in zip(recording.events, times) {
            let rel = t - start
            let sec = rel / 1_000_000_000
            let usec = (rel % 1_000_000_000) / 1_000
            let frac = String(usec)
            out += "E: \(sec).\(String(repeating: "0", count: 6 - frac.count))\(frac) \(hex(e.type, 4)) \(hex(e.code, 4)) \(e.value)\n"
        }
        return out
    }

    private static func hex<T: BinaryInteger>(_ v: T, _ width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
