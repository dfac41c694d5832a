// The engine's instructions a frame under callgrind (scripts/count-engine): deterministic where
// the benchmark's wall clock moves ±20 %. The benchmark's `SheetStroke` for 100,000 frames on
// examples/bottom-sheet.toml itself, with the list chained to the sheet as the example has it,
// or with the chain taken out (the list's pan alone). With the sheet open (as the example starts)
// each stroke scrolls the list, then moves the sheet; half open, the sheet takes every move.
//     EngineCount chained|unchained [open|half]
import GestureConfig
import GestureEngine
import SheetStroke

let arguments = Array(CommandLine.arguments.dropFirst())
let chained = arguments.first == "chained"
let half = arguments.dropFirst().first == "half"
var configuration = try ConfigLoader.load(path: "examples/bottom-sheet.toml").engine
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
