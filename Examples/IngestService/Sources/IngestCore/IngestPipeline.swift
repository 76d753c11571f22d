import Bond
import Dispatch
import Synchronization

/// The pipeline every connection feeds:
///
/// ```text
/// input ─▶ partition(lanes, .backpressure) by key ─▶ lane: running total per key ─▶ merge
///       ─▶ batches(.backpressure) ─▶ map(maxConcurrent: 1) { await writer.write(batch) }
/// ```
///
/// Every stage is bounded with `.backpressure`: a slow store holds the writer, the writer's buffer
/// fills, the batches stage pauses its drain and fills, the lanes pause and fill, and `input` turns
/// not writable (the server then stops reading its sockets).
public final class IngestPipeline: Sendable {
  /// The producer the connections send their readings to (with `next`, from the event loops).
  public let input = EventProducer<Reading>()
  /// The lanes' buffers: events delivered and waiting, times under pressure, and the latency from
  /// `next` to a lane's delivery, sampled one event in 1,024.
  public let laneStatistics = DeliveryStatistics(latencySampleEvery: 1024)
  /// The batches stage's buffer (the same, in lines; latency sampled one line in 1,024).
  public let batchStatistics = DeliveryStatistics(latencySampleEvery: 1024)
  /// The writer stage: batches waiting for the store.
  public let writerStatistics = DeliveryStatistics()
  let partition: Partition<Reading>
  let subscription: any DisposableType
  let completion = Completion()
  let linesWritten = LineCounter()
  /// The lines the connections have sent into `input`.
  public let acceptedCount = Atomic<Int>(0)

  /// Builds the pipeline and starts observing it.
  public convenience init(lanes: Int, laneBuffer: Int, batchMax: Int, batchBuffer: Int, writer: BatchWriter) {
    self.init(lanes: lanes, laneBuffer: laneBuffer, batchMax: batchMax, batchBuffer: batchBuffer) { batch in
      await writer.write(batch)
    }
  }

  /// Builds the pipeline with `write` as its sink (it returns the batch's number of lines once
  /// they are safe: in a store, or published to JetStream by the gateway) and starts observing it.
  public init(
    lanes: Int,
    laneBuffer: Int,
    batchMax: Int,
    batchBuffer: Int,
    write: @escaping @Sendable ([KeyTotal]) async -> Int
  ) {
    partition = input.partition(
      lanes: lanes,
      bufferLimit: laneBuffer,
      whenFull: .backpressure,
      statistics: laneStatistics
    ) { $0.key }
    let totals = partition.lanes.map { lane in
      let sums = LaneTotals()  // one per lane: a lane delivers one event at a time
      return lane.map { reading in sums.add(reading) }
    }
    let completion = self.completion
    let linesWritten = self.linesWritten
    subscription = merge(totals)
      .batches(
        on: DispatchQueue(label: "ingest.batches"),
        maxCount: batchMax,
        bufferLimit: batchBuffer,
        whenFull: .backpressure,
        statistics: batchStatistics
      )
      .map(maxConcurrent: 1, bufferLimit: 2, statistics: writerStatistics, write)
      .observe { count in
        linesWritten.add(count)
      } finished: {
        completion.complete()
      }
  }

  /// The lines the writer has stored so far.
  public var writtenCount: Int { linesWritten.value }

  /// Finishes the input and waits until its end has gone through every stage and the last batch is
  /// in the store.
  public func finishAndDrain() async {
    input.finish()
    await completion.wait()
  }
}

/// A count shared with a closure (an `Atomic` cannot be captured).
final class LineCounter: Sendable {
  private let count = Atomic<Int>(0)

  /// relaxed: a counter, read for the logs; it publishes nothing else.
  func add(_ lines: Int) { count.add(lines, ordering: .relaxed) }

  var value: Int { count.load(ordering: .relaxed) }
}

/// A one-shot signal an async task can wait for.
final class Completion: Sendable {
  private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func complete() {
    let waiters = state.withLock { state in
      state.done = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }  // outside the lock
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state in
        if !state.done { state.waiters.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }
}
