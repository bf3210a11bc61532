#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A TCP socket bound to a free port on 127.0.0.1, for the tests' own small servers and ports:
/// listening with `backlog`, or (nil) bound only, so that connecting to it is refused.
///
/// - Returns: the descriptor, which the caller closes, and the port.
/// - Throws: `POSIXError` with the failing call's `errno`; nothing is left open then.
func loopbackSocket(listeningWithBacklog backlog: Int32?) throws -> (descriptor: Int32, port: Int) {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true)
                && getsockname(fd, $0, &length) == 0
        }
    }
    guard ready else {
        let failure = errno
        close(fd)
        throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EADDRINUSE)
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
