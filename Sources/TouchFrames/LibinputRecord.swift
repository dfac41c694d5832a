import GestureEngine

/// `libinput record`'s files (YAML, version 1: what libinput's bug reports attach): the first
/// device that is a touchscreen, its description (`name`, `id`, `codes`, `absinfo`,
/// `properties`) and its `evdev` events (`[sec, usec, type, code, value]`), read into the same
/// `Recording` as an evemu file. Read line by line as libinput writes it, not as YAML in general:
/// a line it does not write (the HID descriptor, udev's properties, quirks, libinput's own
/// events) is passed over; a line that should be ours and is not is refused with its number.
enum LibinputRecord {
    /// Does `text` start as a `libinput record` file ("# libinput record", or "version: 1"
    /// first)?
    static func recognizes(_ text: Substring) -> Bool {
        for line in text.split(maxSplits: 3, omittingEmptySubsequences: true, whereSeparator: isLineEnd).prefix(3) {
            let l = line.drop { $0 == " " || $0 == "\t" }
            if l.hasPrefix("# libinput record") || l.hasPrefix("version:") || l.hasPrefix("ndevices:") { return true }
            if !l.hasPrefix("#") { return false }
        }
        return false
    }

    /// A line's end: "\n", or "\r\n" (one Character in Swift, so a split on "\n" alone never
    /// splits a file saved with Windows line ends).
    private static func isLineEnd(_ c: Character) -> Bool { c == "\n" || c == "\r\n" }

    /// One device of the file, as read so far.
    private struct Device {
        var description = DeviceDescription(name: "")
        var events: [InputEvent] = []
        var slotLines: [(line: Int, slot: Int32)] = []
        var isTouchscreen: Bool { description.touchKind != nil }
    }

    private enum Section { case other, codes, absinfo, events, skipped }

    static func parse(_ text: String, file: String) throws(RecordingError) -> (Recording, slotLines: [(line: Int, slot: Int32)]) {
        var devices: [Device] = []
        var section = Section.other
        var lineNumber = 0
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: isLineEnd)
        // A file cut short (a recorder stopped mid-write) ends inside its last line, with no line
        // end after it: an event cut there is left out, as an evemu file's is; any other line
        // cut there is refused, saying so.
        let cutLine = (text.last.map(isLineEnd) ?? true) ? nil : lines.count
        func fail(_ reason: String) -> RecordingError {
            RecordingError(file: file, line: lineNumber, reason: lineNumber == cutLine ? "\(reason) (the file ends inside this line: cut short?)" : reason)
        }
        var cutEventLeftOut = false
        for raw in lines {
            lineNumber += 1
            guard raw.utf8.count <= Evemu.lineBytes else { throw fail("a line of \(raw.utf8.count) bytes; a recording's are \(Evemu.lineBytes) at most") }
            var line = raw.drop { $0 == " " || $0 == "\t" }
            while let last = line.last, last == " " || last == "\t" || last == "\r" { line = line.dropLast() }
            // The name is quoted and may hold a '#'; everywhere else one starts a comment.
            if line.hasPrefix("name:"), !devices.isEmpty {
                let quoted = line.dropFirst(5).drop { $0 == " " }
                guard quoted.utf8.count <= Evemu.nameBytes + 2 else { throw fail("a device name of \(quoted.utf8.count - 2) bytes; \(Evemu.nameBytes) at most") }
                devices[devices.count - 1].description.name = String(quoted.hasPrefix("\"") && quoted.hasSuffix("\"") && quoted.count >= 2 ? quoted.dropFirst().dropLast() : quoted)
                continue
            }
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            while let last = line.last, last == " " || last == "\t" { line = line.dropLast() }
            if line.isEmpty { continue }
            if line.hasPrefix("- node:") {
                devices.append(Device())
                section = .other
                continue
            }
            guard !devices.isEmpty else { continue }  // the file's header: versions, the system
            let k = devices.count - 1
            switch line {
            case "codes:": section = .codes
            case "absinfo:": section = .absinfo
            case "events:", "- evdev:": section = .events
            case "- libinput:", "hid: [", "udev:", "quirks:", "evdev:": section = line == "evdev:" ? .other : .skipped
            default:
                if line.hasPrefix("id:") {
                    let ids = try numbers(line.dropFirst(3), count: 4, fail)
                    guard ids.allSatisfy({ (0...0xFFFF).contains($0) }) else { throw fail("an id is 4 numbers from 0 to 65535") }
                    (devices[k].description.bustype, devices[k].description.vendor) = (UInt16(ids[0]), UInt16(ids[1]))
                    (devices[k].description.product, devices[k].description.version) = (UInt16(ids[2]), UInt16(ids[3]))
                } else if line.hasPrefix("properties:") && section != .skipped {
                    for p in try numbers(line.dropFirst(11), count: nil, fail) where (0..<64).contains(p) {
                        devices[k].description.properties.insert(UInt16(p))
                    }
                } else if section == .events && line.hasPrefix("- [") {
                    guard lineNumber == cutLine else {
                        try event(line.dropFirst(2), into: &devices[k], line: lineNumber, fail)
                        continue
                    }
                    do throws(RecordingError) {
                        try event(line.dropFirst(2), into: &devices[k], line: lineNumber, fail)
                    } catch {
                        cutEventLeftOut = true
                    }
                } else if section == .codes || section == .absinfo, let colon = line.firstIndex(of: ":"), let key = Int(line[..<colon]) {
                    try entry(key, line[line.index(after: colon)...], absinfo: section == .absinfo, into: &devices[k].description, fail)
                }
            }
        }
        guard let device = devices.first(where: \.isTouchscreen) ?? devices.first else {
            throw RecordingError(file: file, line: max(lineNumber, 1), reason: "a libinput record file with no device")
        }
        var recording = Recording(description: device.description, events: device.events)
        if cutEventLeftOut { (recording.unterminatedLine, recording.unterminatedLeftOut) = (cutLine, true) }
        return (recording, device.slotLines)
    }

    /// `[a, b, c]`: integers (`count` of them, when given).
    private static func numbers(_ text: Substring, count: Int?, _ fail: (String) -> RecordingError) throws(RecordingError) -> [Int64] {
        let t = text.drop { $0 == " " }
        guard t.hasPrefix("["), t.hasSuffix("]") else { throw fail("expected a list like [1, 2, 3]") }
        if t.dropFirst().dropLast().allSatisfy({ $0 == " " }) && (count ?? 0) == 0 { return [] }
        let items = t.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false).map { item in
            item.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        }
        let values = items.compactMap { Int64(String($0)) }
        guard values.count == items.count, count.map({ $0 == values.count }) ?? true else {
            throw fail("expected \(count.map { "\($0) " } ?? "")integers in [...]")
        }
        return values
    }

    /// A `codes` line (`TYPE: [CODE, ...]`) or an `absinfo` one (`CODE: [min, max, fuzz, flat, resolution]`).
    private static func entry(
        _ key: Int, _ list: Substring, absinfo: Bool, into d: inout DeviceDescription, _ fail: (String) -> RecordingError
    ) throws(RecordingError) {
        guard absinfo else {
            guard (0...Int(Evdev.EV_MAX)).contains(key) else { throw fail("event type \(key) is no kernel's") }
            let codes = try numbers(list, count: nil, fail)
            guard codes.allSatisfy({ (0...0x2FF).contains($0) }) else { throw fail("an event code past the kernel's (767)") }
            d.codes[UInt16(key), default: []].formUnion(codes.map { UInt16($0) })
            return
        }
        guard (0...Int(Evdev.ABS_MAX)).contains(key) else { throw fail("axis \(key) is no kernel's") }
        let v = try numbers(list, count: 5, fail)
        guard v.allSatisfy({ (Int64(Int32.min)...Int64(Int32.max)).contains($0) }) else { throw fail("axis \(key): a value past 32 bits") }
        guard v[0] <= v[1] else { throw fail("axis \(key): minimum \(v[0]) above maximum \(v[1])") }
        let code = UInt16(key)
        if [Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y].contains(code) && v[0] == v[1] {
            throw fail("axis \(key): minimum equals maximum (\(v[0])): every position on it would map to one point")
        }
        d.axes[code] = AbsAxis(minimum: Int32(v[0]), maximum: Int32(v[1]), fuzz: Int32(v[2]), flat: Int32(v[3]), resolution: Int32(v[4]))
        d.codes[Evdev.EV_ABS, default: []].insert(code)
    }

    /// `[sec, usec, type, code, value]`, in time order.
    private static func event(_ list: Substring, into device: inout Device, line: Int, _ fail: (String) -> RecordingError) throws(RecordingError) {
        let v = try numbers(list, count: 5, fail)
        guard (0...4_000_000_000).contains(v[0]), (0..<1_000_000).contains(v[1]) else { throw fail("bad event time \(v[0]) s \(v[1]) µs") }
        guard (0...Int64(Evdev.EV_MAX)).contains(v[2]), (0...0xFFFF).contains(v[3]) else { throw fail("bad event type or code") }
        guard (Int64(Int32.min)...Int64(Int32.max)).contains(v[4]) else { throw fail("bad event value \(v[4])") }
        let time = Timestamp(nanoseconds: v[0] * 1_000_000_000 + v[1] * 1_000)
        if let last = device.events.last?.time, time < last {
            throw fail("time goes back to \(time.seconds) s after \(last.seconds) s (events must be in time order)")
        }
        let e = InputEvent(time: time, type: UInt16(v[2]), code: UInt16(v[3]), value: Int32(v[4]))
        device.events.append(e)
        if e.type == Evdev.EV_ABS && e.code == Evdev.ABS_MT_SLOT { device.slotLines.append((line, e.value)) }
    }
}
