import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("The index of URL texts a page repeats")
struct URLTextIndexTests {
    @Test("it answers as a dictionary from text to first index would, removals included")
    func agreesWithADictionary() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["https://cdn.example.com/", "a", "b", ".png", "?w=1", "/img/", "c.jpg", ""]
        for _ in 0..<200 {
            var texts: [String] = []
            var model: [String: Int] = [:]
            // Made for as many texts as it is given, as the rewriter makes it (one place per slot).
            var index = URLTextIndex(count: 300)
            for _ in 0..<300 {
                let text = (0..<Int.random(in: 1...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
                let hash = URLTextIndex.hash(text)
                let earlier = index.earlierIndex(of: text, hash: hash, placing: texts.count, textOf: { texts[$0] })
                #expect(earlier == model[text], "\(text)")
                if earlier == nil {
                    if Bool.random(using: &generator) && Bool.random(using: &generator) {
                        index.remove(texts.count, hash: hash)
                    } else {
                        model[text] = texts.count
                    }
                }
                texts.append(text)
                #expect(index.index(of: text, hash: hash, textOf: { texts[$0] }) == model[text])
            }
        }
    }

    @Test("a table given more texts than it was made for never answers a wrong index, only none")
    func overfullTableIsOnlyForgetful() {
        var index = URLTextIndex(count: 1)
        var texts: [String] = []
        var placed = 0
        for number in 0..<1_000 {
            let text = "https://example.com/\(number).png"
            if index.earlierIndex(of: text, hash: URLTextIndex.hash(text), placing: texts.count, textOf: { texts[$0] }) != nil {
                Issue.record("\(text) is new, yet an earlier index was found")
            }
            texts.append(text)
        }
        for (number, text) in texts.enumerated() {
            let found = index.index(of: text, hash: URLTextIndex.hash(text), textOf: { texts[$0] })
            #expect(found == nil || found == number)
            if found != nil { placed += 1 }
        }
        // 16 places: each text is found where it was placed, and the rest are resolved again.
        #expect(placed == 16)
    }
}
