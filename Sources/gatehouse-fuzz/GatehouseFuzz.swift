import Foundation
import FuzzHarnesses

/// `gatehouse-fuzz HARNESS FILE…` runs files through a harness (to reproduce what libFuzzer saved).
/// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`, it is libFuzzer itself: the
/// harness comes from `GATEHOUSE_FUZZ_TARGET` and every argument goes to libFuzzer.
@main
struct GatehouseFuzz {
    static func main() {
        #if FUZZING
            guard harness != nil else {
                print("set GATEHOUSE_FUZZ_TARGET to one of: \(names)")
                exit(2)
            }
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
        #else
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let harness = FuzzHarness(rawValue: name) else {
                print("usage: gatehouse-fuzz \(names) FILE…  (fuzzing itself: make fuzz)")
                exit(2)
            }
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("cannot read \(path)")
                    exit(1)
                }
                harness.run(Array(data))
                print("ok \(path)")
            }
        #endif
    }

    static let names = FuzzHarness.allCases.map(\.rawValue).joined(separator: "|")
}

#if FUZZING
    /// The harness libFuzzer drives, named by `GATEHOUSE_FUZZ_TARGET`.
    private let harness = ProcessInfo.processInfo.environment["GATEHOUSE_FUZZ_TARGET"].flatMap(FuzzHarness.init(rawValue:))

    /// libFuzzer's driver (compiler-rt, linked by `-sanitize=fuzzer`): parses its flags, then calls
    /// `callback` with each input.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    private func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        harness?.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
#endif
