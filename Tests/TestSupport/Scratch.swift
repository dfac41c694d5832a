import Foundation

/// Scratch directories for tests, all in one folder of this test process that is removed when it
/// exits: a run of `swift test` leaves nothing behind in the temporary directory.
public enum Scratch {
    /// This process's folder, made once and removed at exit.
    public static let root: String = {
        let dir = folder()
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: folder()) }
        return dir
    }()

    private static func folder() -> String { NSTemporaryDirectory() + "touchgestured-tests-\(getpid())" }

    /// A new directory in `root`, named `prefix` and a random number.
    public static func directory(_ prefix: String) -> String {
        let dir = root + "/\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
