import Benchmark
import GestureConfig
import GestureEngine
import Pipeline
import SheetStroke
import TouchFrames

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

    // The default config, and one whose pan and pinch take up to 10 fingers (with the default,
    // more than 5 fingers fail every recognizer at once and the engine has little left to do).
    var wide = EngineConfiguration.standard()
    for i in wide.regions[0].gestures.indices where [.pan, .pinch, .swipe].contains(wide.regions[0].gestures[i].kind) {
        wide.regions[0].gestures[i].maxFingers = 10
    }
    let configs: [(String, EngineConfiguration)] = [("default", .standard()), ("up to 10 fingers", wide)]

    for (label, config) in configs {
    for contacts in [1, 2, 5, 10] {
        Benchmark("engine frame, \(contacts) contacts, \(label)") { benchmark in
            var engine = Engine(configuration: config)
            var events: [GestureEvent] = []
            events.reserveCapacity(256)
            var frame = TouchFrame(
                time: Timestamp(seconds: 1), contacts: [], scale: MillimetersPerPixel(x: 0.18, y: 0.18))
            frame.contacts = FrameList(capacity: 16)
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

    // Scroll chaining: one finger on a sheet's list moving up and down (a triangle wave of
    // 600 px, so each stroke hands over between list and sheet at their bounds), with the list
    // chained to the sheet and without (the list's pan alone). Goal: no allocation a frame, a
    // few percent at most over the unchained pan.
    for chained in [false, true] {
        Benchmark("engine frame, 1 contact, sheet list \(chained ? "chained" : "unchained")") { benchmark in
            var events: [GestureEvent] = []
            events.reserveCapacity(256)
            var stroke = SheetStroke(SheetStroke.configuration(chained: chained), into: &events)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                stroke.next(into: &events)
                events.removeAll(keepingCapacity: true)
            }
            benchmark.stopMeasurement()
            blackHole(events.count)
        }
    }

    // The daemon's per-frame path without its system calls: evdev events (slot, x, y for each
    // finger, then SYN_REPORT) through the frame decoder, the engine (default config) and the
    // JSON line encoder, as `DevicePipeline` runs it for replay and for each live device.
    let panel = DeviceDescription.multitouchPanel(
        name: "benchmark panel", maxX: 3839, maxY: 2159, slots: 10, resolution: 15)
    for contacts in [1, 5] {
        Benchmark("pipeline frame (decoder + engine + encoder), \(contacts) contacts, default") { benchmark in
            var pipeline = try! DevicePipeline(description: panel, configuration: .standard)
            var out = PipelineOutput()
            var t: Int64 = 1_000_000_000
            func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                pipeline.feed(InputEvent(time: Timestamp(nanoseconds: t), type: type, code: code, value: value), into: &out)
            }
            for i in 0..<contacts {
                ev(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(i))
                ev(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, Int32(i + 1))
                ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, Int32(400 + 300 * i))
                ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 600)
            }
            ev(Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)
            ev(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
            var step: Int32 = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                t += 1_000_000  // 1 kHz
                step = (step + 1) % 1000
                for i in 0..<contacts {
                    ev(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(i))
                    ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, Int32(400 + 300 * i) + step)
                    ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 600 + step / 2)
                }
                ev(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
                blackHole(out.text.bytes.count)
                out.removeAll()
            }
            benchmark.stopMeasurement()
        }
    }
}
