/// How ``ProxySettings`` are handed to `URLSession`.
extension ProxySettings {
    /// The settings as a `URLSessionConfiguration.connectionProxyDictionary` (CFNetwork's keys,
    /// spelled out because the `kCFNetworkProxies…` constants are not on every platform).
    /// CFNetwork's exception list has no ports, so `no_proxy` entries with a port exempt every
    /// port of that host here.
    package var connectionProxyDictionary: [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = [
            "HTTPEnable": httpProxy != nil ? 1 : 0,
            "HTTPSEnable": httpsProxy != nil ? 1 : 0,
        ]
        if let httpProxy {
            dictionary["HTTPProxy"] = httpProxy.host
            dictionary["HTTPPort"] = httpProxy.port
        }
        if let httpsProxy {
            dictionary["HTTPSProxy"] = httpsProxy.host
            dictionary["HTTPSPort"] = httpsProxy.port
        }
        let exceptions = exemptions.flatMap { rule -> [String] in
            switch rule.pattern {
            case .everyHost: ["*"]
            case .address(let address): [address]
            case .domain(let domain): [domain, "*." + domain]
            }
        }
        if !exceptions.isEmpty { dictionary["ExceptionsList"] = exceptions }
        return dictionary
    }

    /// The hosts and domains that go direct, as Network's `ProxyConfiguration.excludedDomains`
    /// takes them (a domain covers its subdomains there).
    package var exceptionDomains: [String] {
        exemptions.map { rule in
            switch rule.pattern {
            case .everyHost: "*"
            case .address(let address): address
            case .domain(let domain): domain
            }
        }
    }
}
