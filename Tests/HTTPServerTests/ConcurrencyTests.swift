import HTTPServer
import HTTPTestClient
import Testing

@Suite("Concurrency and keep-alive")
struct ConcurrencyTests {
    static let sleepy: Responder = { request in
        try? await Task.sleep(for: .milliseconds(5))
        return .text("answer \(request.query["n"] ?? "")")
    }

    /// `GET /?n=…` for every n below `connections × perConnection`, each kept-alive connection
    /// asking for its own run of n one after another, all connections at once; the answers' texts.
    static func askEveryN(_ client: HTTPTestClient, connections: Int, perConnection: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: [String].self) { group in
            for connectionIndex in 0..<connections {
                group.addTask {
                    let connection = try await client.connect()
                    var texts: [String] = []
                    for requestIndex in 0..<perConnection {
                        let response = try await connection.request(
                            "GET", "/?n=\(connectionIndex * perConnection + requestIndex)")
                        #expect(response.status == 200)
                        #expect(response.header("Connection")?.lowercased() != "close")
                        texts.append(response.text)
                    }
                    return texts
                }
            }
            var all: [String] = []
            for try await texts in group { all += texts }
            return all
        }
    }

    @Test func manyConcurrentRequestsOverKeptAliveConnections() async throws {
        try await withServer(responder: Self.sleepy) { _, client in
            let answers = try await Self.askEveryN(client, connections: 20, perConnection: 10)
            #expect(answers.count == 200)
            #expect(Set(answers) == Set((0..<200).map { "answer \($0)" }))
        }
    }

    /// Counts on an actor: a hop off the request's executor and back.
    actor Counter {
        var count = 0
        func next() -> Int {
            count += 1
            return count
        }
    }

    /// A responder starts on the MHD thread that read its request and stays there until it waits
    /// (`InlineFirstExecutor`). This one answers at once for some requests, after a real wait for
    /// others, and through an actor hop and a child task for others still.
    static func mixed(_ counter: Counter) -> Responder {
        { request in
            let n = Int(request.query["n"] ?? "") ?? 0
            if n % 3 == 0 { _ = await counter.next() }
            if n % 2 == 1 { try? await Task.sleep(for: .milliseconds(2)) }
            async let doubled = n * 2
            return .text("answer \(n) \(await doubled)")
        }
    }

    @Test func answersAtOnceAndAfterWaitsInterleavedOnKeptAliveConnections() async throws {
        let counter = Counter()
        try await withServer(responder: Self.mixed(counter)) { _, client in
            let answers = try await Self.askEveryN(client, connections: 16, perConnection: 12)
            #expect(Set(answers) == Set((0..<192).map { "answer \($0) \($0 * 2)" }))
            #expect(await counter.count == 64)
        }
    }

    @Test func twoRequestsOnOneConnection() async throws {
        try await withServer(responder: Self.sleepy) { _, client in
            let connection = try await client.connect()
            let first = try await connection.request("GET", "/?n=1")
            let second = try await connection.request("POST", "/?n=2", body: Array("x".utf8))
            #expect(first.text == "answer 1")
            #expect(second.text == "answer 2")
        }
    }
}
