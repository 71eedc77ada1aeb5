import Testing

@testable import GatehouseWeb

/// A realtime topic read as PocketBase reads it: `?` ends the topic proper, `options` carries the
/// query as JSON (values cast to text), anything unreadable is no options.
@Suite struct PocketBaseTopicTests {
    @Test func aTopicFollowsARecordByItsNameOrItsNameWithOptions() {
        for topic in ["users/abc123def456ghi", "users/abc123def456ghi?options=x", "_pb_users_auth_/abc123def456ghi"] {
            #expect(PocketBaseTopic(topic).record == "abc123def456ghi", "\(topic)")
        }
        for topic in ["users/*", "users", "_pb_users_auth_/*", "_pb_users_auth_?options=%7B%7D", "users?options=x"] {
            #expect(PocketBaseTopic(topic).record == "*", "\(topic)")
        }
        for topic in ["usersx/*", "users/", "@oauth2", "_superusers/*", "x/users/*"] {
            #expect(PocketBaseTopic(topic).record == nil, "\(topic)")
        }
    }

    @Test func optionsGiveTheQueryAsText() {
        let name =
            "users/*?options=%7B%22query%22%3A%7B%22fields%22%3A%22id%2C%20name%22%2C%22page%22%3A2%2C%22x%22%3Atrue%7D%2C%22headers%22%3A%7B%22X-Token%22%3A1%7D%7D"
        #expect(PocketBaseTopic.query(of: name) == ["fields": "id, name", "page": "2", "x": "true"])
        #expect(PocketBaseTopic(name).fields == ["id", "name"] && PocketBaseTopic(name).filter == nil)
        for unreadable in ["users/*?options=%ZZ", "users/*?options=[1]", #"users/*?options={"query":"x"}"#, "users/*"] {
            #expect(PocketBaseTopic.query(of: unreadable).isEmpty, "\(unreadable)")
        }
    }
}
