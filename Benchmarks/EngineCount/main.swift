// The engine's instructions a frame under callgrind (scripts/count-engine): deterministic where
// the benchmark's wall clock moves ±20 %. One finger on examples/bottom-sheet.toml's list moving
// in a 300 px triangle wave at 1 kHz for 100,000 frames (each stroke hands over between the list
// and the sheet at their bounds), with the list chained to the sheet as the example has it, or
// with the chain taken out (the list's pan alone). With the sheet open (as the example starts)
// each stroke scrolls the list, then moves the sheet; half open, the sheet takes every move.
//     EngineCount chained|unchained [open|half]
import GestureConfig
import GestureEngine

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
var engine = Engine(configuration: configuration)
var events: [GestureEvent] = []
events.reserveCapacity(256)
var frame = TouchFrame(time: Timestamp(seconds: 1), contacts: [], scale: MillimetersPerPixel(x: 0.18, y: 0.18))
frame.contacts = FrameList(capacity: 4)
frame.contacts.append(Contact(id: 1, position: PixelPoint(x: 960, y: 700)))
engine.handle(frame, into: &events)
var t: Int64 = 1_000_000_000
var lines = 0
for step in 1...100_000 {
    t += 1_000_000
    frame.time = Timestamp(nanoseconds: t)
    let phase = step % 1200
    frame.contacts[0].position = PixelPoint(x: 960, y: 700 + Double(phase < 600 ? phase : 1200 - phase) * 0.5 - 150)
    engine.handle(frame, into: &events)
    lines += events.count
    events.removeAll(keepingCapacity: true)
}
print("\(lines) lines")
