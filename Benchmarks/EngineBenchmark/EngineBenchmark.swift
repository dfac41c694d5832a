import Benchmark
import GestureEngine

/// Engine cost per frame with the built-in default configuration, at 1, 2, 5 and 10 contacts:
/// fingers land once, then every frame moves them all (steady state: pans and pinches active).
/// Goal: ≤ 1 µs per 10-contact frame, 0 allocations per frame.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .instructions],
        warmupIterations: 1000,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    for contacts in [1, 2, 5, 10] {
        Benchmark("engine frame, \(contacts) contacts") { benchmark in
            var engine = Engine(configuration: .standard())
            var events: [GestureEvent] = []
            events.reserveCapacity(256)
            var frame = TouchFrame(
                time: Timestamp(seconds: 1), contacts: [], scale: MillimetersPerPixel(x: 0.18, y: 0.18))
            frame.contacts.reserveCapacity(16)
            for i in 0..<contacts {
                frame.contacts.append(Contact(id: UInt32(i + 1), position: PixelPoint(x: 300 + Double(i) * 100, y: 500)))
            }
            engine.handle(frame, into: &events)
            var t: Int64 = 1_000_000_000
            var step = 0.0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                t += 1_000_000  // 1 kHz
                step += 1
                frame.time = Timestamp(nanoseconds: t)
                // Spread and move: pinch and pan stay active; the drift wraps to stay on screen.
                let d = (step.truncatingRemainder(dividingBy: 400)) * 0.5
                for i in frame.contacts.indices {
                    frame.contacts[i].position = PixelPoint(x: 300 + Double(i) * (100 + d * 0.1) + d, y: 500 + d)
                }
                engine.handle(frame, into: &events)
                events.removeAll(keepingCapacity: true)
            }
            benchmark.stopMeasurement()
            blackHole(events.count)
        }
    }
}
