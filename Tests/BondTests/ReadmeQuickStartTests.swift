import Testing
import Bond

/// The README's "Quick start" block, compiled and run, so the README cannot drift from the code.
@Suite struct ReadmeQuickStartTests {
  @Test func quickStart() {
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    // --- README: Quick start ---
    let prices = EventProducer<Int>(replayLength: 1)  // hot, thread-safe, replays the last price
    let bag = DisposeBag()

    prices
      .filter { $0 > 0 }
      .map { $0 * 2 }
      .observe { print("doubled:", $0) }
      .disposeIn(bag)

    prices.next(21)  // prints: doubled: 42

    let captain = Observable("Jim")
    captain.observe { print("Now the captain is \($0).") }  // prints: Now the captain is Jim.
    captain.value = "Spock"  // prints: Now the captain is Spock.

    let email = Observable("")
    let password = Observable("")
    let canLogIn = Observable(false)
    combineLatest(email, password).map { !$0.isEmpty && !$1.isEmpty }.bindTo(canLogIn)
    // --- end ---

    email.value = "kirk@enterprise"
    #expect(canLogIn.value == false)
    password.value = "ncc1701"
    #expect(canLogIn.value == true)
    #expect(printed == ["doubled: 42", "Now the captain is Jim.", "Now the captain is Spock."])
    bag.dispose()
    #expect(prices.observerCount == 0)
  }

  @Test func quickStartEndsAStream() async {
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    // --- README: Quick start (the end) ---
    // A stream can end: the end travels after the last event, through every operator, once.
    let jobs = EventProducer<String>()
    jobs.map { $0.uppercased() }
      .observe {
        print("job", $0)
      } finished: {
        print("all jobs done")
      }
    jobs.next("build")  // prints: job BUILD
    jobs.finish()  // prints: all jobs done

    // `for await` ends when the producer finishes (or is deallocated).
    let feed = EventProducer<Int>()
    let stream = feed.values  // observes from here on
    let total = Task {
      var sum = 0
      for await price in stream { sum += price }
      return sum
    }
    feed.next(20)
    feed.next(22)
    feed.finish()  // await total.value == 42
    // --- end ---

    #expect(printed == ["job BUILD", "all jobs done"])
    #expect(jobs.observerCount == 0)
    #expect(await total.value == 42)
  }
}
