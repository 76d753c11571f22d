import Bond

extension EventProducerType {
  /// Observes into `log`: each event as its description, then "end" when the stream ends.
  @discardableResult
  func observe(into log: Recorder<String>) -> any DisposableType {
    observe {
      log.add("\($0)")
    } finished: {
      log.add("end")
    }
  }
}
