import Testing
@testable import ImgCache

/// `ProxySettings`: parsing the environment and `--proxy`, and the per-URL `no_proxy` decision.
@Suite("Proxy settings")
struct ProxySettingsTests {
    private typealias Endpoint = ProxySettings.Endpoint

    private func proxy(_ settings: ProxySettings, _ url: String) -> String? {
        settings.proxy(for: url).map { "\($0.host):\($0.port)" }
    }

    // MARK: environment

    @Test func readsHTTPAndHTTPSProxiesSeparately() {
        let settings = ProxySettings.fromEnvironment([
            "http_proxy": "http://plain.example:3128",
            "https_proxy": "http://secure.example:8443/",
        ])
        #expect(settings.httpProxy == Endpoint(host: "plain.example", port: 3128))
        #expect(settings.httpsProxy == Endpoint(host: "secure.example", port: 8443))
        #expect(proxy(settings, "http://img.example.com/a.png") == "plain.example:3128")
        #expect(proxy(settings, "https://img.example.com/a.png") == "secure.example:8443")
    }

    @Test func uppercaseNamesAreReadAndLowercaseWins() {
        let upper = ProxySettings.fromEnvironment([
            "HTTP_PROXY": "http://up:1", "HTTPS_PROXY": "up:2", "NO_PROXY": "a.example",
        ])
        #expect(upper.httpProxy == Endpoint(host: "up", port: 1))
        #expect(upper.httpsProxy == Endpoint(host: "up", port: 2))
        #expect(proxy(upper, "http://a.example/") == nil)

        let both = ProxySettings.fromEnvironment([
            "HTTP_PROXY": "http://up:1", "http_proxy": "http://low:2",
            "NO_PROXY": "up.example", "no_proxy": "low.example",
        ])
        #expect(both.httpProxy == Endpoint(host: "low", port: 2))
        #expect(proxy(both, "http://low.example/") == nil)
        #expect(proxy(both, "http://up.example/") == "low:2")
    }

    @Test func emptyOrUnparsableValuesMeanNoProxy() {
        #expect(ProxySettings.fromEnvironment([:]).isDirect)
        #expect(ProxySettings.fromEnvironment(["http_proxy": "", "HTTP_PROXY": "http://up:1"]).httpProxy
            == Endpoint(host: "up", port: 1))
        let broken = ProxySettings.fromEnvironment(["http_proxy": "socks5://s:1080", "https_proxy": "http://h:notaport"])
        #expect(broken.isDirect)
        #expect(proxy(broken, "http://a.example/") == nil)
    }

    @Test func defaultPortAndCredentialsAndIPv6() {
        let settings = ProxySettings.fromEnvironment([
            "http_proxy": "http://user:p@ss@proxy.example", "https_proxy": "http://[::1]:3128",
        ])
        #expect(settings.httpProxy == Endpoint(host: "proxy.example", port: 80))
        #expect(settings.httpsProxy == Endpoint(host: "::1", port: 3128))
    }

    // MARK: --proxy

    @Test(arguments: [
        ("http://proxy.example:3128", "proxy.example", 3128),
        ("http://Proxy.Example:3128/", "proxy.example", 3128),
        ("proxy.example:8080", "proxy.example", 8080),
        ("http://10.0.0.1", "10.0.0.1", 80),
        ("  http://proxy.example:3128  ", "proxy.example", 3128),
    ])
    func proxyOptionAppliesToBothSchemes(text: String, host: String, port: Int) throws {
        let settings = try #require(ProxySettings(proxy: text))
        #expect(settings.httpProxy == Endpoint(host: host, port: port))
        #expect(settings.httpsProxy == Endpoint(host: host, port: port))
        #expect(proxy(settings, "http://a.example/x.png") == "\(host):\(port)")
        #expect(proxy(settings, "https://a.example/x.png") == "\(host):\(port)")
        // Nothing is exempt, not even loopback.
        #expect(proxy(settings, "http://127.0.0.1:8080/x.png") == "\(host):\(port)")
    }

    @Test(arguments: [
        "", "http://", "https://proxy.example:3128", "socks5://proxy.example:1080", "http://proxy.example:0",
        "http://proxy.example:65536", "http://proxy.example:port", "http://proxy.example:3128/path", "http://pro xy:1",
    ])
    func proxyOptionRejectsWhatIsNotHTTPHostPort(text: String) {
        #expect(ProxySettings(proxy: text) == nil)
    }

    // MARK: no_proxy

    private func withNoProxy(_ list: String) -> ProxySettings {
        ProxySettings.fromEnvironment(["http_proxy": "http://p:1", "https_proxy": "http://p:1", "no_proxy": list])
    }

    @Test func domainEntriesMatchTheDomainAndItsSubdomainsOnly() {
        for entry in ["example.com", ".example.com", "*.example.com"] {
            let settings = withNoProxy(entry)
            #expect(proxy(settings, "http://example.com/a.png") == nil, "\(entry)")
            #expect(proxy(settings, "https://img.example.com/a.png") == nil, "\(entry)")
            #expect(proxy(settings, "http://a.b.example.com:8080/a.png") == nil, "\(entry)")
            #expect(proxy(settings, "http://badexample.com/a.png") == "p:1", "\(entry)")
            #expect(proxy(settings, "http://example.com.evil.net/a.png") == "p:1", "\(entry)")
        }
    }

    @Test func matchingIsCaseInsensitiveAndIgnoresSpacesAndEmptyEntries() {
        let settings = withNoProxy(" Example.COM , ,other.test,")
        #expect(proxy(settings, "http://IMG.example.com/a.png") == nil)
        #expect(proxy(settings, "HTTP://other.TEST/a.png") == nil)
        #expect(proxy(settings, "http://third.test/a.png") == "p:1")
    }

    @Test func starExemptsEverything() {
        let settings = withNoProxy("*")
        #expect(proxy(settings, "http://anything.example/a.png") == nil)
        #expect(proxy(settings, "https://10.1.2.3/a.png") == nil)
    }

    @Test func entriesWithAPortMatchOnlyThatPort() {
        let settings = withNoProxy("example.com:8080,secure.test:443")
        #expect(proxy(settings, "http://example.com:8080/a.png") == nil)
        #expect(proxy(settings, "http://example.com/a.png") == "p:1")
        #expect(proxy(settings, "https://secure.test/a.png") == nil)
        #expect(proxy(settings, "http://secure.test/a.png") == "p:1")
    }

    @Test func loopbackIsExemptOnlyWhenListed() {
        let none = withNoProxy("example.com")
        #expect(proxy(none, "http://localhost:8080/a.png") == "p:1")
        #expect(proxy(none, "http://127.0.0.1/a.png") == "p:1")

        let listed = withNoProxy("localhost,127.0.0.1,[::1]")
        #expect(proxy(listed, "http://localhost:8080/a.png") == nil)
        #expect(proxy(listed, "http://127.0.0.1:5000/a.png") == nil)
        #expect(proxy(listed, "http://[::1]:5000/a.png") == nil)
        #expect(proxy(listed, "http://127.0.0.2/a.png") == "p:1")
    }

    @Test func addressesMatchExactlyNotBySuffix() {
        let settings = withNoProxy("0.0.1,10.0.0.1,::1")
        #expect(proxy(settings, "http://127.0.0.1/a.png") == "p:1")
        #expect(proxy(settings, "http://10.0.0.1/a.png") == nil)
        #expect(proxy(settings, "http://110.0.0.1/a.png") == "p:1")
        #expect(proxy(settings, "http://[::1]/a.png") == nil)
    }

    @Test func urlsThatAreNotHTTPGetNoProxy() {
        let settings = withNoProxy("")
        #expect(proxy(settings, "ftp://example.com/a.png") == nil)
        #expect(proxy(settings, "/relative/a.png") == nil)
        #expect(proxy(settings, "http:///a.png") == nil)
        #expect(proxy(settings, "http://user:pw@example.com:81/a.png?q#f") == "p:1")
    }

    @Test func explicitSettingsAndDirect() {
        #expect(ProxySettings.direct.isDirect)
        #expect(ProxySettings.direct.proxy(for: "http://example.com/") == nil)
        let settings = ProxySettings(httpProxy: Endpoint(host: "p", port: 1), noProxy: ["internal.test"])
        #expect(proxy(settings, "http://a.internal.test/") == nil)
        #expect(proxy(settings, "http://example.com/") == "p:1")
        #expect(proxy(settings, "https://example.com/") == nil)  // no https proxy configured
    }

    // MARK: URLSession

    @Test func connectionProxyDictionaryCarriesProxiesAndExceptions() {
        let settings = ProxySettings(
            httpProxy: Endpoint(host: "p", port: 1), httpsProxy: nil, noProxy: ["example.com", "10.0.0.1:80"])
        let dictionary = settings.connectionProxyDictionary
        #expect(dictionary["HTTPEnable"] as? Int == 1)
        #expect(dictionary["HTTPProxy"] as? String == "p")
        #expect(dictionary["HTTPPort"] as? Int == 1)
        #expect(dictionary["HTTPSEnable"] as? Int == 0)
        #expect(dictionary["ExceptionsList"] as? [String] == ["example.com", "*.example.com", "10.0.0.1"])
    }
}
