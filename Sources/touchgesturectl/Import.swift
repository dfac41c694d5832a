import ArgumentParser
import GestureConfig
import Pipeline
import SystemCalls

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn another tool's configuration into a touchgestured config.",
        subcommands: [Lisgd.self]
    )

    struct Lisgd: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a config equivalent to a lisgd command line (stdout); what cannot be mapped goes to stderr.",
            discussion: """
                Pass lisgd's own arguments after --, e.g.
                  touchgesturectl import lisgd -- -t 200 -g '1,LR,L,*,R,notify-send back' > touchgestured.toml
                """
        )

        @Argument(parsing: .postTerminator, help: "lisgd's arguments (after --).")
        var arguments: [String] = []

        func run() throws {
            let imported: LisgdImport
            do {
                imported = try LisgdImport(arguments: arguments)
            } catch {
                throw fail("\(error)")
            }
            for note in imported.notes { writeOutput(2, Array("note: \(note)\n".utf8)) }
            writeOutput(1, Array(imported.config.utf8))
        }
    }
}
