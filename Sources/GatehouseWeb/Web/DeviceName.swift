/// A readable device name from a User-Agent header.
enum DeviceName {
    static func describe(_ userAgent: String) -> String {
        let browsers = [
            ("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"),
            ("curl/", "curl"), ("python", "Python"), ("Go-http-client", "Go")
        ]
        let systems = [
            ("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Mac OS X", "macOS"),
            ("Windows", "Windows"), ("Linux", "Linux")
        ]
        let browser = browsers.first { userAgent.contains($0.0) }?.1
        let system = systems.first { userAgent.contains($0.0) }?.1
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return system
        default: return String(userAgent.prefix(40))
        }
    }
}
