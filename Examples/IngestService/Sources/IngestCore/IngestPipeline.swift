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
  /// The producer the connections send their lines to (with `next`, from the event loops).
  public let input: PipelineInput
  /// The lanes' buffers: events delivered and waiting, times under pressure, and the latency from
  /// `next` to a lane's delivery, sampled one event in 1,024.
  public let laneStatistics: DeliveryStatistics
  /// The batches stage's buffer (the same, in lines; latency sampled one line in 1,024).
  public let batchStatistics: DeliveryStatistics
  /// The writer stage: batches waiting for the store.
  public let writerStatistics: DeliveryStatistics
  let subscription: any DisposableType
  let completion: Completion
  let linesWritten: LineCounter
  /// The lines the connections have sent into `input`.
  public let acceptedCount = Atomic<Int>(0)

  /// Builds the pipeline and starts observing it; with `acknowledged`, its lines carry their
  /// acknowledgement tokens (`--ack`).
  public convenience init(
    lanes: Int,
    laneBuffer: Int,
    batchMax: Int,
    batchBuffer: Int,
    acknowledged: Bool = false,
    writer: BatchWriter
  ) {
    self.init(
      lanes: lanes,
      laneBuffer: laneBuffer,
      batchMax: batchMax,
      batchBuffer: batchBuffer,
      acknowledged: acknowledged
    ) { batch in
      await writer.write(batch)
    }
  }

  /// Builds the pipeline with `write` as its sink (it returns the batch's number of lines once
  /// they are safe: in a store, or published to JetStream by the gateway) and starts observing it;
  /// with `acknowledged`, its lines carry their acknowledgement tokens (`--ack`).
  public init(
    lanes: Int,
    laneBuffer: Int,
    batchMax: Int,
    batchBuffer: Int,
    acknowledged: Bool = false,
    write: @escaping @Sendable ([CheckedReading]) async -> Int
  ) {
    let stages = Stages(
      lanes: lanes,
      laneBuffer: laneBuffer,
      batchMax: batchMax,
      batchBuffer: batchBuffer,
      laneStatistics: DeliveryStatistics(latencySampleEvery: 1024),
      batchStatistics: DeliveryStatistics(latencySampleEvery: 1024),
      writerStatistics: DeliveryStatistics(),
      completion: Completion(),
      linesWritten: LineCounter(),
      write: write
    )
    laneStatistics = stages.laneStatistics
    batchStatistics = stages.batchStatistics
    writerStatistics = stages.writerStatistics
    completion = stages.completion
    linesWritten = stages.linesWritten
    if acknowledged {
      let producer = EventProducer<AcknowledgedReading>()
      input = .acknowledged(producer)
      subscription = stages.observe(producer)
    } else {
      let producer = EventProducer<Reading>()
      input = .plain(producer)
      subscription = stages.observe(producer)
    }
  }

  /// The stages after the input, for either kind of line.
  struct Stages {
    let lanes: Int
    let laneBuffer: Int
    let batchMax: Int
    let batchBuffer: Int
    let laneStatistics: DeliveryStatistics
    let batchStatistics: DeliveryStatistics
    let writerStatistics: DeliveryStatistics
    let completion: Completion
    let linesWritten: LineCounter
    let write: @Sendable ([CheckedReading]) async -> Int

    func observe<Line: IngestLine>(_ input: EventProducer<Line>) -> any DisposableType {
      let partition = input.partition(
        lanes: lanes,
        bufferLimit: laneBuffer,
        whenFull: .backpressure,
        statistics: laneStatistics
      ) { $0.key }
      let totals = partition.lanes.map { lane in
        let sums = LaneTotals()  // one per lane: a lane delivers one event at a time
        return lane.map { line in sums.add(line) }
      }
      let completion = self.completion
      let linesWritten = self.linesWritten
      let subscription = merge(totals)
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
      return CompositeDisposable([partition, subscription])
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

/// The pipeline's input: a producer of ``Reading``, or of ``AcknowledgedReading`` with `--ack`.
public enum PipelineInput: Sendable {
  /// Lines without tokens.
  case plain(EventProducer<Reading>)
  /// Lines with their acknowledgement tokens.
  case acknowledged(EventProducer<AcknowledgedReading>)

  /// Whether the pipeline takes more lines now (every stage below its bound).
  public var isWritable: Bool {
    switch self {
    case .plain(let producer): producer.isWritable
    case .acknowledged(let producer): producer.isWritable
    }
  }

  /// The changes of ``isWritable``.
  public var writability: AnyEventProducer<Bool> {
    switch self {
    case .plain(let producer): producer.writability
    case .acknowledged(let producer): producer.writability
    }
  }

  /// Ends the input: the stages deliver what they hold, then end.
  public func finish() {
    switch self {
    case .plain(let producer): producer.finish()
    case .acknowledged(let producer): producer.finish()
    }
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
