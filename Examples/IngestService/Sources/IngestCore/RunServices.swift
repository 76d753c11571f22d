import Foundation
import Logging
import ServiceLifecycle

/// Runs `services` in one `ServiceGroup` until they end, a graceful shutdown on SIGTERM or SIGINT,
/// then exits the process: status 0 when they stopped, 1 when one failed (logged). What both
/// executables of the example (`ingest-server`, `ingest-worker`) end their `main` with.
public func runServicesAndExit(_ services: [any Service], logger: Logger) async -> Never {
  let serviceGroup = ServiceGroup(
    configuration: .init(
      services: services.map { .init(service: $0) },
      gracefulShutdownSignals: [.sigterm, .sigint],
      logger: logger
    )
  )
  do {
    try await serviceGroup.run()
    logger.info("stopped")
    exit(0)
  } catch {
    logger.error("failed", metadata: ["error": "\(String(reflecting: error))"])
    exit(1)
  }
}
