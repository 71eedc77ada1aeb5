import AuthCore
import HTTPServer

extension UserAdministration {
    /// Staff's acts on the environment's backend, for a front-end that does not hold it.
    init(env: PageEnvironment, staff: Staff, request: Request, via: String) {
        self.init(env: env, api: env.backend, staff: staff, request: request, via: via)
    }
}
