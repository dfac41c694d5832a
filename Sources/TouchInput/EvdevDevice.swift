import CEvdev
import GestureEngine
import SystemCalls
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// A libevdev or system call that failed: the call's name and its errno (`isRemoval`: the
/// device went away, an expected event rather than a failure).
public typealias EvdevError = SystemCallError

/// One /dev/input node: opened non-blocking on CLOCK_MONOTONIC, described and grabbed with
/// libevdev, read with plain `read(2)` into a fixed buffer (a wake-up's events in one system
/// call, handed on as one batch: no per-event call through libevdev), and resynchronized after
/// SYN_DROPPED the way the kernel documents: drain the queue, query the state with EVIOCG*
/// ioctls, and hand on a frame that brings every slot to it. No C type leaves this module.
public final class EvdevDevice {
    public let path: String
    public let fd: Int32
    private let dev: OpaquePointer
    public private(set) var description: DeviceDescription
    /// SYN_DROPPED resyncs so far.
    public private(set) var resyncs = 0
    /// The device's physical place as its driver reports it (`phys` in sysfs, e.g.
    /// `usb-0000:00:14.0-1/input0`), if any.
    public let phys: String?
    /// The read buffer, in the kernel's layout (handed on as it is), allocated once.
    private static let capacity = 256
    // Safe: allocated once for this object's life, freed in deinit; reads stay within `capacity`.
    private let raw = UnsafeMutablePointer<KernelInputEvent>.allocate(capacity: EvdevDevice.capacity)
    private let slots: Int

    public init(path: String) throws(EvdevError) {
        self.path = path
        // `KernelInputEvent` is `struct input_event` as this platform lays it out.
        precondition(
            MemoryLayout<KernelInputEvent>.stride == MemoryLayout<input_event>.stride
                && MemoryLayout<KernelInputEvent>.offset(of: \.type) == MemoryLayout<input_event>.offset(of: \.type)
                && MemoryLayout<KernelInputEvent>.offset(of: \.value) == MemoryLayout<input_event>.offset(of: \.value),
            "struct input_event has an unexpected layout")
        let fd: Int32
        switch Posix.open(path, O_RDONLY | O_NONBLOCK) {
        case .success(let d): fd = d.release()  // owned by this device from here (closed in deinit, or below on failure)
        case .failure(let e): throw e
        }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            Posix.close(fd)
            raw.deallocate()
            throw EvdevError("libevdev_new_from_fd(\(path))", -rc)
        }
        self.fd = fd
        self.dev = dev
        _ = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)
        description = Self.describe(dev)
        phys = libevdev_get_phys(dev).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        // The kernel's slots (a protocol A panel has none: its state is in every frame).
        slots = description.touchKind == .multitouch && !description.isProtocolA ? min(description.slotCount, Int(CEV_MAX_SLOTS)) : 0
    }

    deinit {
        libevdev_free(dev)
        Posix.close(fd)
        raw.deallocate()
    }

    /// Exclusive access (no other reader, e.g. libinput, sees the touches).
    public func grab(_ on: Bool) throws(EvdevError) {
        let rc = libevdev_grab(dev, on ? libevdev_grab_mode(rawValue: UInt32(CEV_GRAB)) : libevdev_grab_mode(rawValue: UInt32(CEV_UNGRAB)))
        guard rc == 0 else { throw EvdevError("libevdev_grab", -rc) }
    }

    public enum ReadEnd {
        /// Everything available was read.
        case drained
        /// The device is gone (ENODEV).
        case removed
    }

    /// How one `read(2)` of a device's queue ended (`readBatch`).
    public enum BatchEnd: Equatable {
        /// The queue is empty (a short read, or nothing was there).
        case drained
        /// The buffer filled: more may be waiting.
        case full
        /// The device is gone (ENODEV).
        case removed
        /// SYN_DROPPED: the events before it were handed on, the rest is stale
        /// (`resynchronize` takes the kernel's state instead).
        case dropped
    }

    /// One `read(2)` of `fd` into `buffer`: how many whole events the kernel wrote, or how the
    /// read ended without any (nothing there, the device gone).
    @inline(__always)
    private static func readEvents(
        // Safe: the caller's buffer, alive for the call; the read is bounded by its count.
        _ fd: Int32, into buffer: UnsafeMutableBufferPointer<KernelInputEvent>, _ call: @autoclosure () -> String
    ) throws(EvdevError) -> (count: Int, end: BatchEnd?) {
        // Safe: the buffer's own bytes, at most its count.
        switch Posix.read(fd, into: UnsafeMutableRawBufferPointer(buffer), call()) {
        // 0: the end of the stream (a relay's socket whose writer went); a device never says it.
        case .done(0): return (0, .removed)
        case .done(let n): return (n / MemoryLayout<KernelInputEvent>.stride, nil)
        case .wouldBlock: return (0, .drained)
        case .removed: return (0, .removed)
        case .failed(let e): throw e
        }
    }

    /// The events one `read(2)` of `fd` gets into `buffer`, handed to `deliver` as one batch
    /// (valid during the call only), up to a SYN_DROPPED. Static, over any buffer: the daemon
    /// reads every device into one buffer of its own, with no object to reach per read.
    public static func readBatch(
        // Safe: `buffer` is an `EventReadBuffer`'s, alive for the call; reads are bounded by its count.
        _ fd: Int32, into buffer: UnsafeMutableBufferPointer<KernelInputEvent>, _ call: @autoclosure () -> String,
        deliver: (InputBatch) -> Void
    ) throws(EvdevError) -> BatchEnd {
        let (count, end) = try readEvents(fd, into: buffer, call())
        if let end { return end }
        // Safe: the kernel wrote `count` whole events at the start of the caller's buffer, and
        // only those are read and handed on (for the call only).
        for i in 0..<count where buffer[i].type == Evdev.EV_SYN && buffer[i].code == Evdev.SYN_DROPPED {
            // What follows in this buffer and in the queue is a partial, stale picture.
            // Safe: the first `i` events the kernel wrote, lent to `deliver` for the call only.
            if i > 0 { deliver(InputBatch(kernel: UnsafeBufferPointer(rebasing: buffer[0..<i]))) }
            return .dropped
        }
        // Safe: the events the kernel wrote, lent for the call only.
        if count > 0 { deliver(InputBatch(kernel: UnsafeBufferPointer(rebasing: buffer[0..<count]))) }
        // A short read emptied the queue: no second call just to hear EAGAIN (epoll is
        // level-triggered and wakes the loop again for anything newer).
        return count < buffer.count ? .drained : .full
    }

    /// The same, into a buffer its owner keeps.
    public static func readBatch(
        _ fd: Int32, into buffer: EventReadBuffer, _ call: @autoclosure () -> String, deliver: (InputBatch) -> Void
    ) throws(EvdevError) -> BatchEnd {
        try readBatch(fd, into: buffer.events, call(), deliver: deliver)
    }

    /// The same, into a buffer its owner keeps (one buffer for all devices, one read at a time),
    /// for a reader that decodes the batch itself and meets a SYN_DROPPED as it goes
    /// (`FrameDecoder.lostEvents`): the whole read is handed on unscanned, and `decode` says
    /// whether it stopped at one (then `.dropped`). A read is scanned once, by its decoder.
    public static func readBatch(
        _ fd: Int32, into buffer: EventReadBuffer, _ call: @autoclosure () -> String, decode: (InputBatch) -> Bool
    ) throws(EvdevError) -> BatchEnd {
        let events = buffer.events
        let (count, end) = try readEvents(fd, into: events, call())
        if let end { return end }
        // Safe: the events the kernel wrote, lent for the call only.
        if count > 0 && decode(InputBatch(kernel: UnsafeBufferPointer(rebasing: events[0..<count]))) { return .dropped }
        return count < events.count ? .drained : .full
    }

    /// Reads every available event and hands them to `deliver` in batches (one per `read(2)`,
    /// in order; the buffer is valid during the call only). After SYN_DROPPED, one batch marked
    /// `resynced` brings the state to exactly the kernel's (lifted contacts lift, new ones begin,
    /// no phantom remains), ending with a SYN_REPORT stamped now.
    public func read(deliver: (InputBatch) -> Void) throws(EvdevError) -> ReadEnd {
        // Safe: `raw` holds `capacity` events for the device's life; the kernel writes whole ones.
        let buffer = UnsafeMutableBufferPointer(start: raw, count: Self.capacity)
        while true {
            switch try Self.readBatch(fd, into: buffer, "read(\(path))", deliver: deliver) {
            case .full: continue
            case .drained: return .drained
            case .removed: return .removed
            case .dropped: return try resynchronize(deliver: deliver)
            }
        }
    }

    /// After SYN_DROPPED: drains the queue, then hands on one frame (marked `resynced`) with the
    /// kernel's current state.
    public func resynchronize(deliver: (InputBatch) -> Void) throws(EvdevError) -> ReadEnd {
        resyncs += 1
        // Safe: as in `read`.
        let buffer = UnsafeMutableRawBufferPointer(start: raw, count: Self.capacity * MemoryLayout<KernelInputEvent>.stride)
        drain: while true {
            switch Posix.read(fd, into: buffer, "read(\(path))") {
            case .done(let n) where n > 0: continue
            case .done, .wouldBlock: break drain
            case .removed: return .removed
            case .failed(let e): throw e
            }
        }
        guard let events = try Self.kernelState(fd, slots: slots, path) else { return .removed }
        // Safe: the array is lent for the call; the batch does not outlive it.
        events.withUnsafeBufferPointer { deliver(InputBatch($0, resynced: true)) }
        return .drained
    }

    /// The slots the kernel keeps for this panel (none for a protocol A or single-touch one): what
    /// `kernelState` queries.
    public var stateSlots: Int { slots }

    /// The kernel's current state of the panel on `fd` as events that bring a decoder to it,
    /// stamped now (`stateEvents`); nil: the panel went away. The queue is not drained here.
    public static func kernelState(_ fd: Int32, slots: Int, _ path: String) throws(EvdevError) -> [InputEvent]? {
        var mt = [Int32](repeating: 0, count: 4 * max(slots, 1))
        var st = [Int32](repeating: 0, count: 4)
        switch Posix.retry("EVIOCG* state query (\(path))", errno: .negated, { cev_query_state(fd, Int32(slots), &mt, &st) }) {
        case .success: break
        case .failure(let e) where e.isRemoval: return nil
        case .failure(let e): throw e
        }
        return stateEvents(slots: slots, mt: mt, st: st, time: Timestamp(nanoseconds: Posix.monotonicNanoseconds()))
    }

    /// Where the kernel has each slot (x at 2s, y at 2s + 1: the last position it reported there,
    /// 0 for none yet; a panel without slots: its ABS_X and ABS_Y) and the slot it has selected: what a mirror made now must be given first,
    /// since the panel's next events may rely on them (the kernel drops a value equal to the
    /// last one, and selects no slot it already has).
    public func slotState() throws(EvdevError) -> (positions: [Int32], slot: Int) {
        var mt = [Int32](repeating: 0, count: 4 * max(slots, 1))
        var st = [Int32](repeating: 0, count: 4)
        if case .failure(let e) = Posix.retry("EVIOCG* state query (\(path))", errno: .negated, { cev_query_state(fd, Int32(slots), &mt, &st) }) {
            throw e
        }
        guard slots > 0 else { return ([st[0], st[1]], -1) }  // a single-touch panel's ABS_X, ABS_Y
        var positions = [Int32](repeating: 0, count: 2 * slots)
        for s in 0..<slots {
            positions[2 * s] = mt[slots + s]
            positions[2 * s + 1] = mt[2 * slots + s]
        }
        return (positions, Int(st[3]))
    }

    /// The events that set a decoder to a queried state: every slot's tracking id (and, for a
    /// contact, its position and tool), the single-touch axes and BTN_TOUCH, the current slot,
    /// then SYN_REPORT. `mt` holds `slots` tracking ids, then x, y and tool type; `st` holds
    /// ABS_X, ABS_Y, BTN_TOUCH and ABS_MT_SLOT.
    static func stateEvents(slots: Int, mt: [Int32], st: [Int32], time: Timestamp) -> [InputEvent] {
        var out: [InputEvent] = []
        func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            out.append(InputEvent(time: time, type: type, code: code, value: value))
        }
        for s in 0..<slots {
            ev(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s))
            let id = mt[s]
            ev(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, id)
            guard id >= 0 else { continue }
            ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, mt[slots + s])
            ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, mt[2 * slots + s])
            ev(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, mt[3 * slots + s])
        }
        if slots > 0 { ev(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, st[3]) }
        ev(Evdev.EV_ABS, Evdev.ABS_X, st[0])
        ev(Evdev.EV_ABS, Evdev.ABS_Y, st[1])
        ev(Evdev.EV_KEY, Evdev.BTN_TOUCH, st[2])
        ev(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        return out
    }

    /// The device's identity and capabilities as a `DeviceDescription` (the form evemu uses).
    static func describe(_ dev: OpaquePointer) -> DeviceDescription {
        var d = DeviceDescription(name: libevdev_get_name(dev).map { String(cString: $0) } ?? "")
        d.bustype = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
        d.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        d.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        d.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(dev))
        for p in UInt32(0)..<32 where libevdev_has_property(dev, p) == 1 { d.properties.insert(UInt16(p)) }
        let ranges: [(UInt16, UInt32)] = [(Evdev.EV_SYN, 16), (Evdev.EV_KEY, 0x300), (Evdev.EV_ABS, 0x40)]
        for (type, count) in ranges where libevdev_has_event_type(dev, UInt32(type)) == 1 {
            var set = Set<UInt16>()
            for code in UInt32(0)..<count where libevdev_has_event_code(dev, UInt32(type), code) == 1 {
                set.insert(UInt16(code))
            }
            d.codes[type] = set
        }
        for code in d.codes[Evdev.EV_ABS] ?? [] {
            guard let a = libevdev_get_abs_info(dev, UInt32(code)) else { continue }
            d.axes[code] = AbsAxis(
                minimum: a.pointee.minimum, maximum: a.pointee.maximum, fuzz: a.pointee.fuzz, flat: a.pointee.flat,
                resolution: a.pointee.resolution)
        }
        return d
    }
}
