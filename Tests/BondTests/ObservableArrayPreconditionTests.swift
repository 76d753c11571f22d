import Testing
import Bond

/// Bad indices stop the program with a message naming the call, and send nothing.
@Suite struct ObservableArrayPreconditionTests {
  @Test func subscriptGetOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = ObservableArray([1])[1]
    }
    expectMessage(result, "ObservableArray[_:]: index 1 is out of range 0..<1")
  }

  @Test func subscriptSetOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1])[-1] = 0
    }
    expectMessage(result, "ObservableArray[_:]: index -1 is out of range 0..<1")
  }

  @Test func insertOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1]).insert(0, at: 2)
    }
    expectMessage(result, "ObservableArray.insert(_:at:): index 2 is out of range 0...1")
  }

  @Test func insertContentsOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1]).insert(contentsOf: [0], at: -1)
    }
    expectMessage(result, "ObservableArray.insert(contentsOf:at:): index -1 is out of range 0...1")
  }

  @Test func removeAtOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1]).remove(at: 1)
    }
    expectMessage(result, "ObservableArray.remove(at:): index 1 is out of range 0..<1")
  }

  @Test func removeLastOnEmpty() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray<Int>().removeLast()
    }
    expectMessage(result, "ObservableArray.removeLast(): the array is empty")
  }

  @Test func removeSubrangeOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1, 2]).removeSubrange(1..<3)
    }
    expectMessage(result, "ObservableArray.removeSubrange(_:): range 1..<3 is out of range 0..<2")
  }

  @Test func replaceSubrangeOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1, 2]).replaceSubrange(2..<3, with: [0])
    }
    expectMessage(result, "ObservableArray.replaceSubrange(_:with:): range 2..<3 is out of range 0..<2")
  }

  @Test func badIndexInsideABatch() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ObservableArray([1]).performBatchUpdates { $0.remove(at: 5) }
    }
    expectMessage(result, "ObservableArray.remove(at:): index 5 is out of range 0..<1")
  }

  @Test func changesetOfAnOperationThatDoesNotFit() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = ObservableArrayOperation<Int>.remove(range: 0..<3).changeset(oldCount: 2)
    }
    expectMessage(result, "ObservableArrayOperation.changeset(oldCount:)")
  }

  @Test func applyOfAnOperationThatDoesNotFit() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = [1]
      ObservableArrayOperation.insert(elements: [2], fromIndex: 3).apply(to: &array)
    }
    expectMessage(result, "ObservableArrayOperation.apply(to:): insert index 3 is out of range 0...1")
  }

  func expectMessage(_ result: ExitTest.Result?, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let output = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    #expect(output.contains(message), "stderr: \(output)", sourceLocation: sourceLocation)
  }
}
