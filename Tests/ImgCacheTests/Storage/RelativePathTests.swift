import Testing
@testable import ImgCache
@testable import ImgCacheSupport

@Suite("Paths from one folder to another")
struct RelativePathTests {
    @Test("the path leads from the folder to the target, through .. where they part", arguments: [
        ("Web", "Web/images", "images"),
        ("out", "cache", "../cache"),
        ("/a/b/c", "/a/x", "../../x"),
        ("/a/b", "/a/b", "."),
        ("/a/b/", "/a//b/./c", "c"),
        ("/a/b/../c", "/a/c/d/e", "d/e"),
        ("/", "/x/y", "x/y"),
        ("/x/y", "/", "../.."),
        ("/données/été", "/données/cache é", "../cache é"),
    ] as [(String, String, String)])
    func relative(folder: String, target: String, expected: String) {
        #expect(RelativePath.from(folder: folder, to: target) == expected)
    }
}
