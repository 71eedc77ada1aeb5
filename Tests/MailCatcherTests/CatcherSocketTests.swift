import Foundation
import HTTPTestClient
import Logging
import TestScope
import Testing

@testable import MailCatcher

/// The catcher's sockets against Python's raw sockets and `smtplib`: what a client may do on the
/// wire (pipeline, send overlong lines, connect by the dozen, vanish) and what shutdown does to it.
@Suite(.stopsWhatItStarts) struct CatcherSocketTests {
    /// Python helpers: `connect(port)` gives the socket and a reader, `reply(f)` the next reply's code.
    static let rawClient = """
        import socket, struct, sys
        def connect(port, host='127.0.0.1'):
            s = socket.create_connection((host, port), timeout=30)
            return s, s.makefile('rb')
        def reply(f):
            line = f.readline()
            while line[3:4] == b'-':
                line = f.readline()
            return line[:3].decode()

        """

    @Test func pipelinedCommandsAreAnsweredInOrder() async throws {
        let harness = try await CatcherHarness()
        let script =
            Self.rawClient + """
                s, f = connect(int(sys.argv[1]))
                s.sendall(b'EHLO c\\r\\nMAIL FROM:<a@example.com>\\r\\nRCPT TO:<piped@example.com>\\r\\nDATA\\r\\n'
                          b'Subject: piped\\r\\n\\r\\nbody\\r\\n.\\r\\nNOOP\\r\\nQUIT\\r\\n')
                print(' '.join(reply(f) for _ in range(8)), f.read())
                """
        let output = try await PythonScript.run(script, arguments: [String(harness.port)])
        #expect(output == "220 250 250 250 354 250 250 221 b''\n")
        #expect(try await harness.mailbox.mails(to: "piped@example.com", limit: 10).map(\.subject) == ["piped"])
        await harness.stop()
    }

    @Test func aClientOverTheConnectionLimitGets421AndASlotFreesWhenOneLeaves() async throws {
        let harness = try await CatcherHarness(limits: SMTPLimits(maxConnections: 2))
        let script =
            Self.rawClient + """
                import time
                port = int(sys.argv[1])
                first, second = connect(port), connect(port)
                codes = [reply(first[1]), reply(second[1])]
                third = connect(port)
                codes += [reply(third[1]), repr(third[1].read())]
                first[0].sendall(b'QUIT\\r\\n')
                codes.append(reply(first[1]))
                first[0].close()
                deadline = time.monotonic() + 10
                while True:
                    s, f = connect(port)
                    code = reply(f)
                    if code == '220' or time.monotonic() > deadline:
                        break
                    s.close()
                    time.sleep(0.05)
                codes.append(code)
                print(' '.join(codes))
                """
        let output = try await PythonScript.run(script, arguments: [String(harness.port)])
        #expect(output == "220 220 421 b'' 221 220\n")
        await harness.stop()
    }

    @Test func linesOverOneMebibyteGet500OrFailTheMessageAndTheConnectionGoesOn() async throws {
        let harness = try await CatcherHarness()
        let script =
            Self.rawClient + """
                s, f = connect(int(sys.argv[1]))
                codes = [reply(f)]
                for chunk, replies in [
                    (b'EHLO c\\r\\n', 1),
                    (b'NOOP ' + b'x' * (1 << 20) + b'\\r\\n', 1),
                    (b'NOOP\\r\\n', 1),
                    (b'MAIL FROM:<a@example.com>\\r\\nRCPT TO:<b@example.com>\\r\\nDATA\\r\\n', 3),
                    (b'Subject: long\\r\\n\\r\\n' + b'y' * (2 << 20) + b'\\r\\nshort\\r\\n.\\r\\n', 1),
                    (b'QUIT\\r\\n', 1),
                ]:
                    s.sendall(chunk)
                    codes += [reply(f) for _ in range(replies)]
                print(' '.join(codes))
                """
        let output = try await PythonScript.run(script, arguments: [String(harness.port)])
        #expect(output == "220 250 500 250 250 250 354 552 221\n")
        #expect(try await harness.mailbox.mails(to: nil, limit: 10).isEmpty)
        await harness.stop()
    }

    @Test func dozensOfClientsDeliverAtOnce() async throws {
        let harness = try await CatcherHarness()
        let clients = 32
        let script = """
            import smtplib, sys, threading
            port, count = int(sys.argv[1]), int(sys.argv[2])
            together = threading.Barrier(count)
            failures = []
            def send(index):
                try:
                    with smtplib.SMTP('127.0.0.1', port, timeout=30) as smtp:
                        smtp.ehlo('client%d' % index)
                        together.wait()
                        smtp.sendmail('app@example.com', ['user%d@example.com' % index], 'Subject: n%d\\r\\n\\r\\nhi\\r\\n' % index)
                except Exception as error:
                    failures.append(repr(error))
            threads = [threading.Thread(target=send, args=(index,)) for index in range(count)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print(failures)
            """
        let output = try await PythonScript.run(script, arguments: [String(harness.port), String(clients)])
        #expect(output == "[]\n")
        let mails = try await harness.mailbox.mails(to: nil, limit: 100)
        #expect(Set(mails.map(\.recipient)) == Set((0..<clients).map { "user\($0)@example.com" }))
        await harness.stop()
    }

    @Test func clientsThatVanishMidConversationLeaveTheCatcherServing() async throws {
        let harness = try await CatcherHarness()
        let script =
            Self.rawClient + """
                import smtplib
                port = int(sys.argv[1])
                for sent in [b'', b'EHLO c\\r\\n', b'NOOP\\r\\n' * 5000,
                             b'EHLO c\\r\\nMAIL FROM:<a@example.com>\\r\\nRCPT TO:<b@example.com>\\r\\nDATA\\r\\nSubject: cut\\r\\n\\r\\nhalf a']:
                    s, f = connect(port)
                    s.sendall(sent)
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))  # close with a reset
                    s.close()
                with smtplib.SMTP('127.0.0.1', port, timeout=30) as smtp:
                    smtp.sendmail('a@example.com', ['after@example.com'], 'Subject: after\\r\\n\\r\\nstill here\\r\\n')
                print('sent')
                """
        let output = try await PythonScript.run(script, arguments: [String(harness.port)])
        #expect(output == "sent\n")
        #expect(try await harness.mailbox.mails(to: nil, limit: 10).map(\.recipient) == ["after@example.com"])
        await harness.stop()
    }

    @Test func shutdownMidDataDropsTheMessageClosesTheClientAndStopsListening() async throws {
        let harness = try await CatcherHarness()
        let marker = harness.directory.appendingPathComponent("in-data").path
        let script =
            Self.rawClient + """
                s, f = connect(int(sys.argv[1]))
                codes = [reply(f)]
                for command in [b'EHLO c', b'MAIL FROM:<a@example.com>', b'RCPT TO:<b@example.com>', b'DATA']:
                    s.sendall(command + b'\\r\\n')
                    codes.append(reply(f))
                s.sendall(b'Subject: half\\r\\n\\r\\nthe first half\\r\\n')
                open(sys.argv[2], 'w').close()
                print(' '.join(codes), f.read())
                """
        async let client = PythonScript.run(script, arguments: [String(harness.port), marker])
        try await waitUntil("the client is in DATA", timeout: .seconds(30)) { FileManager.default.fileExists(atPath: marker) }
        let port = harness.port
        let started = ContinuousClock.now
        await harness.catcher.shutdown()
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try await client == "220 250 250 250 354 b''\n")
        #expect(try await harness.mailbox.mails(to: nil, limit: 10).isEmpty)
        let refused = """
            import socket, sys
            try:
                socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=30)
                print('connected')
            except ConnectionRefusedError:
                print('refused')
            """
        #expect(try await PythonScript.run(refused, arguments: [String(port)]) == "refused\n")
        await harness.stop()
    }

    @Test func listensOnIPv6AndReportsTheBoundPort() async throws {
        let harness = try await CatcherHarness(host: "::1")
        #expect(harness.port > 0)
        let script = """
            import smtplib, sys
            with smtplib.SMTP('::1', int(sys.argv[1]), timeout=30) as smtp:
                smtp.sendmail('a@example.com', ['six@example.com'], 'Subject: over IPv6\\r\\n\\r\\nhi\\r\\n')
            print('sent')
            """
        #expect(try await PythonScript.run(script, arguments: [String(harness.port)]) == "sent\n")
        #expect(try await harness.mailbox.mails(to: "six@example.com", limit: 10).map(\.subject) == ["over IPv6"])
        await harness.stop()
    }

    @Test func startingOnATakenPortThrowsTheFailedCall() async throws {
        let harness = try await CatcherHarness()
        let second = MailCatcher(host: "127.0.0.1", port: harness.port, mailer: harness.mailbox, logger: Logger(label: "second"))
        await #expect(throws: SMTPSocketError.systemCall("bind", errno: EADDRINUSE)) { try await second.start() }
        await harness.stop()
    }
}
