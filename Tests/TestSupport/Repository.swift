/// Paths in the package's checkout, for tests that read files in place (no bundle resources).
public enum Repository {
    /// The package's root: two folders above this file's.
    public static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    /// The recordings and their golden lines.
    public static let fixtures = root + "/Tests/PipelineTests/Fixtures"
}
