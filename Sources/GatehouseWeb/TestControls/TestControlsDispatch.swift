import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// The test controls' place in every request while they are on: the request gets its id
/// (`X-Request-Id` as sent, else one made here, always echoed), meets the faults in force
/// (`FaultBoard`: delayed, answered as told in its family's error shape, or let through) unless it
/// is for the test controls themselves, and is written to the request ledger with what it caused.
struct TestControlsDispatch: Sendable {
    let router: Router
    let faults: FaultBoard
    let ledger: RequestLedger
    let wayIn: WayIn
    let clock: @Sendable () -> Date
    /// Makes ids for requests that bring none: this start's random prefix and a count.
    let ids = RequestIDs()

    /// The longest `X-Request-Id` kept as sent; a longer or unprintable one is replaced.
    static let maximumIDLength = 128

    func respond(to request: Request) async -> Response {
        let id = Self.acceptable(request.headers["X-Request-Id"]) ?? ids.next()
        let effects = RequestEffects()
        let started = ContinuousClock.now
        let fault =
            faults.isEmpty || TestFaults.exempt.contains(where: { request.path.hasPrefix($0) })
            ? nil : faults.take(method: request.method, path: request.path)
        var (response, route) = await RequestEffects.$current.withValue(effects) {
            await answer(request, meeting: fault)
        }
        response.headers.replaceOrAdd("X-Request-Id", id)
        let elapsed = ContinuousClock.now - started
        ledger.append(
            RequestLedger.Entry(
                id: id, at: clock(), method: request.method.rawValue, path: request.path, route: route,
                wayIn: wayIn.name(of: request), status: response.status,
                milliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
                fault: fault?.id, effects: effects.effects))
        return response
    }

    /// The route's answer, or the fault's after its delay.
    private func answer(_ request: Request, meeting fault: InjectedFault?) async -> (Response, String?) {
        if let fault {
            if fault.delayMs > 0 { try? await Task.sleep(for: .milliseconds(fault.delayMs)) }
            if let status = fault.status { return (response(for: fault, status: status, request: request), nil) }
        }
        return await router.respondNamingRoute(to: request)
    }

    /// The fault's body, else its family's own error for `status`.
    private func response(for fault: InjectedFault, status: Int, request: Request) -> Response {
        switch fault.body {
        case .string(let text)?:
            return .text(text, status: status)
        case let body?:
            return .json(raw: body.serialized, status: status)
        case nil:
            let message = "Fault injected by Gatehouse's test controls (\(fault.id))"
            if wayIn.isFDI(request) {
                return .json(raw: JSONValue.object(["message": .string(message)]).serialized, status: status)
            }
            return router.rejectionRenderer(status, message, request.rawPath)
        }
    }

    /// `header` when it is 1–128 printable ASCII characters.
    private static func acceptable(_ header: String?) -> String? {
        guard let header, (1...maximumIDLength).contains(header.utf8.count),
            header.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return header
    }
}
