import BondTesting
import Synchronization
import Testing

/// The concurrency-limited stages given a `DeliveryStatistics`: the events waiting for a worker,
/// the results delivered, the pressures.
@Suite struct ConcurrentMapStatisticsTests {
  /// Transforms held until the test lets them go: the events pile up in the stage's buffer.
  final class Hold: Sendable {
    let released = Atomic<Bool>(false)
    // acquiring/releasing: the release is the only thing published; the transforms poll it.
    func release() { released.store(true, ordering: .releasing) }
    func wait() async {
      while !released.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
    }
  }

  @Test func eachStageCountsItsResultsAndItsWaitingEvents() {
    for kind in ["map", "mapUnordered", "tryMap"] {
      let source = EventProducer<Int>()
      let stats = DeliveryStatistics()
      let hold = Hold()
      let received = Recorder<Int>()
      let observation: any DisposableType
      switch kind {
      case "map":
        observation = source.map(maxConcurrent: 2, bufferLimit: 8, statistics: stats) { value in
          await hold.wait()
          return value
        }
        .observe { received.add($0) }
      case "mapUnordered":
        observation = source.mapUnordered(maxConcurrent: 2, bufferLimit: 8, statistics: stats) { value in
          await hold.wait()
          return value
        }
        .observe { received.add($0) }
      default:
        observation = source.tryMap(maxConcurrent: 2, bufferLimit: 8, statistics: stats) { value in
          await hold.wait()
          return value
        }
        .observe { if case .success(let value) = $0 { received.add(value) } }
      }
      for value in 0..<50 { source.next(value) }
      // At most 2 taken by the workers: the others wait, and the stage came under pressure once.
      #expect(waitUntil { stats.bufferedCount == 48 }, "\(kind): \(stats.bufferedCount) waiting")
      #expect(stats.pressureCount == 1 && stats.deliveredCount == 0, "\(kind)")
      hold.release()
      #expect(waitUntil { stats.deliveredCount == 50 }, "\(kind): \(stats.deliveredCount) delivered")
      #expect(received.items.count == 50 && stats.bufferedCount == 0, "\(kind)")
      #expect(stats.pressureCount == 1 && stats.droppedCount == 0, "\(kind)")
      observation.dispose()
    }
  }

  @Test func aDisposeLetsTheWaitingEventsGo() {
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let hold = Hold()
    let observation = source.map(maxConcurrent: 2, bufferLimit: 64, statistics: stats) { value in
      await hold.wait()
      return value
    }
    .observe { _ in }
    for value in 0..<10 { source.next(value) }
    #expect(waitUntil { stats.bufferedCount == 8 })
    observation.dispose()
    hold.release()
    #expect(stats.bufferedCount == 0 && stats.deliveredCount == 0 && stats.droppedCount == 0)
  }

  @Test func theEndComesAfterTheCount() {
    let source = EventProducer<Int>()
    let stats = DeliveryStatistics()
    let atEnd = Recorder<Int>()
    source.map(maxConcurrent: 4, statistics: stats) { $0 * 2 }
      .observe({ _ in }, finished: { atEnd.add(stats.deliveredCount) })
    for value in 0..<100 { source.next(value) }
    source.finish()
    #expect(waitUntil { atEnd.items == [100] }, "\(atEnd.items)")
  }
}
