// The engine's instructions a frame under callgrind (scripts/count-engine): deterministic where
// the benchmark's wall clock moves ±20 %. The benchmark's `SheetStroke` for 100,000 frames on
// examples/bottom-sheet.toml itself, with the list chained to the sheet as the example has it,
// or with the chain taken out (the list's pan alone). With the sheet open (as the example starts)
// each stroke scrolls the list, then moves the sheet; half open, the sheet takes every move.
//     EngineCount chained|unchained [open|half]
// Or 10,000 one-finger Zs of 60 frames each drawn on a region with one stroke gesture matching
// T templates (the Z of examples/strokes/z.toml, named apart), for the cost of a frame while a
// stroke is drawn and of the match at its lift:
//     EngineCount stroke T
import GestureConfig
import GestureEngine
import SheetStroke

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "stroke" {
    strokes(templates: Int(arguments.dropFirst().first ?? "") ?? 16)
} else {
    sheet()
}

/// The sheet workload (see the top of the file).
func sheet() {
    let chained = arguments.first == "chained"
    let half = arguments.dropFirst().first == "half"
    var configuration = try! ConfigLoader.load(path: "examples/bottom-sheet.toml").engine
    if half, let sheet = configuration.regions.firstIndex(where: { $0.name == "sheet" }) {
        configuration.regions[sheet].drag?.initial = PixelPoint(x: 0, y: 300)
    }
    if !chained {
        for r in configuration.regions.indices { configuration.regions[r].drag?.chain = nil }
    }
    var events: [GestureEvent] = []
    events.reserveCapacity(256)
    var stroke = SheetStroke(configuration, into: &events)
    var lines = 0
    for _ in 1...100_000 {
        stroke.next(into: &events)
        lines += events.count
        events.removeAll(keepingCapacity: true)
    }
    print("\(lines) lines")
}

/// The stroke workload (see the top of the file).
func strokes(templates count: Int) {
    let z = try! StrokeFile.read("examples/strokes/z.toml")[0]
    let templates = (0..<count).map { StrokeTemplate(name: "shape\($0)", vector: z.vector) }
    let screen = PixelRect(x: 0, y: 0, width: 1000, height: 1000)
    var engine = Engine(configuration: EngineConfiguration(
        screen: screen, regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.stroke)])], strokes: templates))
    let corners: [(Double, Double)] = [(300, 300), (600, 300), (300, 600), (600, 600)]
    var path: [PixelPoint] = []
    for leg in 0..<3 {
        for k in 0..<20 {
            let u = Double(k) / 20
            let (a, b) = (corners[leg], corners[leg + 1])
            path.append(PixelPoint(x: a.0 + (b.0 - a.0) * u, y: a.1 + (b.1 - a.1) * u))
        }
    }
    var events: [GestureEvent] = []
    events.reserveCapacity(16)
    var time: Int64 = 1_000_000_000
    var recognized = 0
    for _ in 1...10_000 {
        for p in path {
            time += 16_000_000
            engine.handle(TouchFrame(time: Timestamp(nanoseconds: time), contacts: [Contact(id: 1, position: p)], scale: .identity), into: &events)
        }
        time += 16_000_000
        engine.handle(TouchFrame(time: Timestamp(nanoseconds: time), contacts: [], scale: .identity), into: &events)
        recognized += events.count
        events.removeAll(keepingCapacity: true)
        time += 400_000_000
        engine.advance(to: Timestamp(nanoseconds: time), into: &events)
        events.removeAll(keepingCapacity: true)
    }
    print("\(recognized) strokes recognized")
}
