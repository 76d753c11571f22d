import Foundation
@testable import Bond

/// Something whose deliveries a test can wait for: idle once no thread holds its delivery rights.
protocol IdleCheckable {
  /// Whether no thread (sender or worker) holds the delivery rights now. An acquiring load: once
  /// it is `true`, what the deliveries wrote is visible to the caller.
  var isIdle: Bool { get }
}

extension EventProducer: IdleCheckable {
  var isIdle: Bool { wip.load(ordering: .acquiring) == 0 }
}

extension Observable: IdleCheckable {
  var isIdle: Bool { producer.isIdle }
}

extension ObservableArray: IdleCheckable {
  var isIdle: Bool { handOffs.load(ordering: .acquiring) == 0 && delivery.isIdle }
}

/// Waits (up to `seconds`) until every one of `producers` is idle at once, twice in a row (a
/// delivery of one may send into another), so that every delivery of work sent before the call
/// has run and what it wrote is visible. For tests whose senders have all returned while a worker
/// may still be delivering (see ``waitUntil(seconds:_:)``).
@discardableResult
func waitUntilIdle(_ producers: any IdleCheckable..., seconds: Double = 30) -> Bool {
  waitUntil(seconds: seconds) {
    producers.allSatisfy(\.isIdle) && producers.allSatisfy(\.isIdle)
  }
}
