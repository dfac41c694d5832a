import GestureEngine
import Testing

@testable import GestureProtocol

/// `GestureLineEncoder.encode` copies prepared heads and writes numbers through a pointer; its
/// bytes must be those of `encodeByFields`, the line's definition, for every kind, phase, name,
/// region and number (signs, roundings, the widest and the non-finite).
@Suite struct GestureLineTests {
    static let numbers: [Double] = [
        0, -0.0, 0.04, -0.04, 0.05, -0.05, 0.95, 1, -1, 12.345678, -12.345678, 1234.56789, 99999.95,
        8.9e14, -8.9e14, 8.9e15, 1e300, -.infinity, .infinity, .nan, 1e-7, 0.0000005, 3.14159265,
        1e15, -1.2345678901234567e16, -.greatestFiniteMagnitude,
        // Every count of digits a tenth is written with, 2 to 8, and a carry across the point.
        5.5, -99.99, 123.45, -12345.6, 65535.94, 1919.96, 1234567.8,
    ]

    static func configuration() -> CompiledConfiguration {
        let screen = PixelRect(x: 0, y: 0, width: 1000, height: 1000)
        let kinds = GestureKind.allCases
        return CompiledConfiguration(EngineConfiguration(screen: screen, regions: [
            RegionSpec(name: EngineConfiguration.screenRegionName, gestures: kinds.map { GestureSpec($0) }),
            RegionSpec(name: "dock \"left\"\n", rect: PixelRect(x: 0, y: 0, width: 100, height: 100),
                       gestures: kinds.map { GestureSpec($0, name: "\($0.rawValue) in the \\ dock\u{1}") }),
            RegionSpec(name: String(repeating: "long", count: 200), rect: PixelRect(x: 0, y: 0, width: 50, height: 50),
                       gestures: [GestureSpec(.pan, name: String(repeating: "n", count: 300))]),
        ], strokes: ["z \"quoted\" \\", String(repeating: "s", count: 600)].map {
            StrokeTemplate(name: $0, vector: StrokeTemplate.builtIn[0].vector)
        }))
    }

    @Test(arguments: [
        0.49999999999999994, -0.49999999999999994, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.0, -0.0, 1e-300,
        4503599627370495.5, -4503599627370495.5, 8.99e15, -8.99e15, 123456.49999999999, 7.5000000000000009,
    ])
    func rounding_isRoundedHalfAwayFromZero(_ x: Double) {
        #expect(ByteCursor.roundHalfAwayFromZero(x) == Int64(x.rounded()))
    }

    @Test func everyLine_isTheFieldByFieldBytes() {
        let compiled = Self.configuration()
        let encoder = GestureLineEncoder(configuration: compiled)
        let phases: [GesturePhase] = [.began, .changed, .ended, .cancelled, .recognized]
        var checked = 0
        for g in 0...compiled.gestures.count {  // one past the end: an index the encoder has no names for
            let kind = g < compiled.gestures.count ? compiled.gestures[g].spec.kind : .pan
            for (i, v) in Self.numbers.enumerated() {
                let w = Self.numbers[(i * 7 + 3) % Self.numbers.count]
                var e = GestureEvent(kind: kind, phase: phases[i % phases.count], time: Timestamp(nanoseconds: Int64(i) * (i % 2 == 0 ? 1_234_567_000 : 1_234_567_891) + (i == 5 ? 1 << 53 : 0)),
                                     position: PixelPoint(x: v, y: w))
                e.gesture = g
                e.id = i % 3 == 0 ? UInt64.max : UInt64(i)
                e.sequence = i % 4 == 0 ? Int.max : i
                e.fingers = i % 11
                e.count = i % 4
                e.translation = PixelPoint(x: w, y: v)
                e.velocity = PixelPoint(x: -v, y: -w)
                e.axis = [PanAxis.free, .horizontal, .vertical][i % 3]
                e.offset = i % 2 == 0 ? PixelPoint(x: v, y: 1) : nil
                e.target = i % 3 == 0 ? PixelPoint(x: 2, y: w) : nil
                e.direction = i % 4 == 0 ? nil : SwipeDirection.allCases[i % SwipeDirection.allCases.count]
                e.speed = v
                e.scale = w
                e.rotation = v
                e.edge = i % 5 == 0 ? nil : ScreenEdge.allCases[i % ScreenEdge.allCases.count]
                e.shape = i % 5 - 1  // -1 and one past the shapes too
                e.score = w
                e.clockwise = i % 2 == 0
                var fast = JSONLineWriter()
                var slow = JSONLineWriter()
                fast.raw("x")
                slow.raw("x")
                encoder.encode(e, into: &fast)
                encoder.encodeByFields(e, into: &slow)
                #expect(String(decoding: fast.bytes, as: UTF8.self) == String(decoding: slow.bytes, as: UTF8.self))
                checked += 1
            }
        }
        #expect(checked == (Self.configuration().gestures.count + 1) * Self.numbers.count)
    }

    /// A large finite number keeps its value (a drag's `initial = [1e15, 0]` was written as 0).
    @Test func aLargeFiniteNumber_isWrittenWithItsValue() throws {
        var e = GestureEvent(kind: .pan, phase: .changed, time: Timestamp(seconds: 1), position: PixelPoint(x: 1e15, y: -2.5e300))
        e.offset = PixelPoint(x: 1e15, y: 0)
        let encoder = GestureLineEncoder(configuration: Self.configuration())
        var w = JSONLineWriter()
        encoder.encode(e, into: &w)
        let line = String(decoding: w.bytes, as: UTF8.self)
        #expect(line.contains(#""x":1000000000000000.0,"y":-2.5e+300"#), "\(line)")
        #expect(line.contains(#""offset":{"x":1000000000000000.0,"y":0.0}"#), "\(line)")
        let parsed = try parseJSON(w.bytes.dropLast())
        #expect(parsed["offset"]?["x"] == .number(1e15))
    }

    /// The fast path writes a line's numbers into 1024 bytes of stack after a head of at most
    /// 512: the widest tail, every number at its widest, must fit in the rest.
    @Test func theWidestTail_fitsTheFastPathsScratch() {
        var e = GestureEvent(kind: .pan, phase: .changed, time: Timestamp(nanoseconds: Int64.max - 1), position: PixelPoint(x: -.greatestFiniteMagnitude, y: -.greatestFiniteMagnitude))
        e.id = UInt64.max
        e.sequence = Int.min
        e.fingers = Int.min
        e.translation = e.position
        e.velocity = e.position
        e.axis = .horizontal
        e.offset = e.position
        e.target = e.position
        let encoder = GestureLineEncoder(configuration: Self.configuration())
        var w = JSONLineWriter()
        encoder.encodeByFields(e, into: &w)
        let head = #"{"type":"gesture","gesture":"pan","phase":"changed","id":"#.utf8.count
        #expect(w.bytes.count - head <= 512, "a tail of \(w.bytes.count - head) bytes")
    }
}
