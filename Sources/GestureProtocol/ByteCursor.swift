import GestureEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a line's bytes through a pointer into memory the caller sized (the line buffer's spare
/// capacity, `JSONLineWriter.appendBounded`): no capacity or uniqueness check per byte (what
/// `Array.append` pays), and no copy afterwards. Numbers are formatted exactly as `JSONLineWriter`'s
/// `integer` and `fixed` format them; the protocol's lines are the same bytes either way.
struct ByteCursor {
    // Safe: the cursor lives inside one `JSONLineWriter.reserve` call, over the capacity it reserved.
    let base: UnsafeMutablePointer<UInt8>
    var count = 0

    // `count` only grows by what a bounded line writes (`appendBounded`), and digits are written
    // between `count` and `count + 20`: that arithmetic cannot overflow, and is not checked.
    @inline(__always) mutating func byte(_ b: UInt8) {
        base[count] = b
        count &+= 1
    }

    @inline(__always) mutating func raw(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        // `initialize`, not `update`: the same for bytes, without the check for copying onto itself.
        (base + count).initialize(from: s.utf8Start, count: n)
        count &+= n
    }

    // Safe: `b` is a caller's buffer valid for the call; the write is bounded by the reserved capacity.
    mutating func raw(_ b: UnsafeBufferPointer<UInt8>) {
        guard let start = b.baseAddress else { return }
        (base + count).initialize(from: start, count: b.count)
        count &+= b.count
    }

    /// `"s"`, for the protocol's enum names (plain ASCII: nothing to escape).
    mutating func quoted(_ s: String) {
        byte(UInt8(ascii: "\""))
        for b in s.utf8 { byte(b) }
        byte(UInt8(ascii: "\""))
    }

    /// `{"x":X,"y":Y}` with one decimal, as `JSONLineWriter.field(_:_: PixelPoint)` writes it.
    mutating func point(_ p: PixelPoint) {
        raw("{\"x\":")
        tenths(p.x)
        raw(",\"y\":")
        tenths(p.y)
        byte(UInt8(ascii: "}"))
    }

    /// "00" to "99": two digits per division. A literal, so reading it is a constant (a `static let`
    /// array went through a one-time-initialization check on every number).
    private static var pairs: StaticString { "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" }

    /// How many decimal digits `m` has (1...20).
    @inline(__always) static func digitCount(_ m: UInt64) -> Int {
        if m < 10_000 { return m < 10 ? 1 : m < 100 ? 2 : m < 1_000 ? 3 : 4 }
        if m < 100_000_000 { return m < 100_000 ? 5 : m < 1_000_000 ? 6 : m < 10_000_000 ? 7 : 8 }
        var n = 9
        var limit: UInt64 = 1_000_000_000
        while n < 20 && m >= limit {
            n += 1
            limit &*= 10
        }
        return n
    }

    /// The two digits of `r` (0...99) at `i`.
    @inline(__always) func pair(_ r: Int, at i: Int) {
        let pairs = Self.pairs.utf8Start
        base[i] = pairs[2 &* r]
        base[i &+ 1] = pairs[2 &* r &+ 1]
    }

    /// The decimal digits of `m` (no sign), written from the back, two per division. Inlined:
    /// a line has nine numbers, and a call cost a third of writing a short one.
    @inline(__always) mutating func digits(_ m: UInt64) {
        if m < 10 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m))
            return
        }
        let n = Self.digitCount(m)
        let pairs = Self.pairs.utf8Start
        var v = m
        var i = count &+ n
        while v >= 100 {
            let r = Int(truncatingIfNeeded: v % 100)
            v /= 100
            i &-= 2
            base[i] = pairs[2 &* r]
            base[i &+ 1] = pairs[2 &* r &+ 1]
        }
        if v >= 10 {
            let r = Int(truncatingIfNeeded: v)
            base[i &- 2] = pairs[2 &* r]
            base[i &- 1] = pairs[2 &* r &+ 1]
        } else {
            base[i &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
        }
        count &+= n
    }

    @inline(__always) mutating func integer(_ v: Int64) {
        if v < 0 { byte(UInt8(ascii: "-")) }
        digits(v.magnitude)
    }

    /// `Int64(x.rounded())` for |x| < 9e15, without the libm call: the whole part is exact
    /// there, and so is the remainder it leaves, so comparing that with one half rounds exactly
    /// as `rounded()` does (half away from zero).
    @inline(__always) static func roundHalfAwayFromZero(_ x: Double) -> Int64 {
        let whole = Int64(x)
        let rest = x - Double(whole)
        if rest >= 0.5 { return whole &+ 1 }  // |whole| < 9e15: no overflow
        if rest <= -0.5 { return whole &- 1 }
        return whole
    }

    /// `fixed(v, decimals: 1)`, inlined where it is called: positions, translations and
    /// velocities, most of a line's numbers. (NaN and the infinities fail the bound too.)
    @inline(__always) mutating func tenths(_ v: Double) {
        let scaledDouble = v * 10
        guard abs(scaledDouble) < 9e15 else { return huge(v) }
        let scaled = Self.roundHalfAwayFromZero(scaledDouble)
        if scaled < 0 { byte(UInt8(ascii: "-")) }
        let m = scaled.magnitude
        digits(m / 10)
        byte(UInt8(ascii: "."))
        byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10))
    }

    /// A number `fixed` cannot write with its decimals: NaN and infinities as 0, a finite one past
    /// 9e15 in Swift's shortest round-trip form (at most 24 bytes: "-1.7976931348623157e+308").
    @inline(never) mutating func huge(_ v: Double) {
        guard v.isFinite else { return byte(UInt8(ascii: "0")) }
        for b in v.description.utf8 { byte(b) }
    }

    /// `JSONLineWriter.fixed`, byte for byte: exactly `decimals` digits after the point (0...6),
    /// NaN and infinities written as 0, finite magnitudes past 9e15 as `huge` writes them.
    mutating func fixed(_ v: Double, decimals: Int) {
        if decimals == 1 { return tenths(v) }
        let p: Double
        switch decimals {
        case 0: p = 1
        case 2: p = 100
        case 3: p = 1_000
        case 4: p = 10_000
        case 5: p = 100_000
        default: p = 1_000_000
        }
        let scaledDouble = v * p
        guard abs(scaledDouble) < 9e15 else { return huge(v) }
        let scaled = Self.roundHalfAwayFromZero(scaledDouble)
        let m = scaled.magnitude
        let divisor = UInt64(p)
        if scaled < 0 { byte(UInt8(ascii: "-")) }
        digits(m / divisor)
        guard decimals > 0 else { return }
        byte(UInt8(ascii: "."))
        var frac = m % divisor
        var i = count + decimals - 1
        for _ in 0..<decimals {
            base[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: frac % 10)
            frac /= 10
            i -= 1
        }
        count += decimals
    }
}

extension ByteCursor {
    /// A time in seconds with 6 decimals, `fixed(Double(ns) / 1e9, decimals: 6)` byte for byte:
    /// in integers when `ns` is whole microseconds (evdev's timestamps, and the deadlines made
    /// from them), where the two agree for any uptime under 285 years; through `fixed` otherwise.
    mutating func seconds(nanoseconds ns: Int64) {
        // Unsigned from here (checked non-negative): no sign fix-up in each division.
        guard ns >= 0, case let u = UInt64(ns), u % 1000 == 0 else { return fixed(Double(ns) / 1e9, decimals: 6) }
        let us = u / 1000
        digits(us / 1_000_000)
        byte(UInt8(ascii: "."))
        // The six decimals as three pairs.
        let frac = UInt32(truncatingIfNeeded: us % 1_000_000)
        pair(Int(frac / 10_000), at: count)
        pair(Int(frac / 100 % 100), at: count &+ 2)
        pair(Int(frac % 100), at: count &+ 4)
        count &+= 6
    }
}

extension JSONLineWriter {
    /// Appends what `body` writes, at most `maxBytes` (the caller's bound on it), straight into
    /// the buffer's spare capacity (`append(addingCapacity:)`: no scratch, no second copy).
    mutating func appendBounded(maxBytes: Int, _ body: (inout ByteCursor) -> Void) {
        bytes.append(addingCapacity: maxBytes) { span in
            // Safe: the cursor writes at most `maxBytes` bytes from the start of the span's
            // buffer, which holds `maxBytes`; only what it wrote is counted as initialized.
            span.withUnsafeMutableBufferPointer { buf, initialized in
                var c = ByteCursor(base: buf.baseAddress!)
                body(&c)
                precondition(c.count <= maxBytes, "a line overran its bound")
                initialized = c.count
            }
        }
    }
}
