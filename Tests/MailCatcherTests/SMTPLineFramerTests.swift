import Testing

@testable import MailCatcher

/// The framer alone: line ends, lines split across reads, and the bound on a line's length.
@Suite struct SMTPLineFramerTests {
    private func line(_ text: String) -> SMTPLine { SMTPLine(bytes: Array(text.utf8)) }

    @Test func linesEndInLFAndLoseTheCRBeforeIt() {
        var framer = SMTPLineFramer(maxLineBytes: 64)
        let lines = framer.lines(completedBy: Array("EHLO a\r\nNOOP\nbare\rCR\r\n\r\n".utf8))
        #expect(lines == [line("EHLO a"), line("NOOP"), line("bare\rCR"), line("")])
    }

    @Test func aLineSplitAcrossReadsComesOnceItsLFArrives() {
        var framer = SMTPLineFramer(maxLineBytes: 64)
        for byte in "MAIL FROM:<a@b.c>\r".utf8 { #expect(framer.lines(completedBy: [byte]).isEmpty) }
        #expect(framer.lines(completedBy: Array("\nRC".utf8)) == [line("MAIL FROM:<a@b.c>")])
        #expect(framer.lines(completedBy: Array("PT TO:<d@e.f>\r\n".utf8)) == [line("RCPT TO:<d@e.f>")])
    }

    @Test func aLineOfTheLimitPassesAndOneByteMoreIsOverlong() {
        var framer = SMTPLineFramer(maxLineBytes: 8)
        #expect(framer.lines(completedBy: Array("12345678\r\n".utf8)) == [line("12345678")])
        #expect(
            framer.lines(completedBy: Array("123456789\r\nNOOP\r\n".utf8)) == [SMTPLine(bytes: [], overlong: true), line("NOOP")])
    }

    @Test func anOverlongLineStillArrivingIsReportedOnceAndSkippedToItsLF() {
        var framer = SMTPLineFramer(maxLineBytes: 8)
        #expect(framer.lines(completedBy: Array("0123456789".utf8)) == [SMTPLine(bytes: [], overlong: true)])
        #expect(framer.lines(completedBy: Array("abcdefghijklmnop".utf8)).isEmpty)
        #expect(framer.lines(completedBy: Array("xyz\r\nNOOP\r\n".utf8)) == [line("NOOP")])
    }
}
