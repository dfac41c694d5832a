import Foundation

/// A program of this build run as a user runs it: its exit status, standard output and error.
public enum Command {
    public static func run(_ binary: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        (p.standardOutput, p.standardError) = (out, err)
        try p.run()
        // Both pipes read to their end before the wait (a full pipe would stall the program).
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}
