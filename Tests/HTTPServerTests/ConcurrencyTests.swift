import HTTPServer
import HTTPTestClient
import Testing

@Suite("Concurrency and keep-alive")
struct ConcurrencyTests {
    static let sleepy: Responder = { request in
        try? await Task.sleep(for: .milliseconds(5))
        return .text("answer \(request.query["n"] ?? "")")
    }

    @Test func manyConcurrentRequestsOverKeptAliveConnections() async throws {
        try await withServer(responder: Self.sleepy) { _, client in
            let answers = try await withThrowingTaskGroup(of: [String].self) { group in
                for connectionIndex in 0..<20 {
                    group.addTask {
                        let connection = try await client.connect()
                        var texts: [String] = []
                        for requestIndex in 0..<10 {
                            let n = connectionIndex * 10 + requestIndex
                            let response = try await connection.request("GET", "/?n=\(n)")
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
            #expect(answers.count == 200)
            #expect(Set(answers) == Set((0..<200).map { "answer \($0)" }))
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
