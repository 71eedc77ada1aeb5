import Testing
@testable import MailCatcher

@Suite struct SMTPReplyTests {
    @Test func multilineRepliesUseDashesUntilTheLastLine() {
        #expect(SMTPReply(250, "a", "b").wire == "250-a\r\n250 b\r\n")
        #expect(SMTPReply(221, "bye").wire == "221 bye\r\n")
    }
}
