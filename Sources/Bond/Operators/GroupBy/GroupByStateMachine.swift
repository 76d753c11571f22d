/// The state of one ``GroupBy`` observation: the open groups by key, each with the tick of its
/// last event (to find the group that has gone longest without one). A pure value, called under
/// the sink's lock; the sink performs its actions after the lock.
///
/// An event after the end, and a second end, can happen (the user's `dispose()` races with the
/// upstream) and are ignored: no transition of this machine is impossible.
@usableFromInline
struct GroupByStateMachine<Key: Hashable, Group> {
  @usableFromInline
  enum State {
    /// Open: `groups` by key.
    case open
    /// Ended (the upstream's end, or disposed): the groups were handed out to be ended.
    case ended
  }

  /// What the sink must do after one input.
  @usableFromInline
  enum Action {
    /// End every group (the upstream's end, or disposed).
    case endGroups([Group])
    /// Send the event into its key's group.
    case send(Group)
    /// End `evicted` (when `maxGroups` were open), deliver the new group, then send the event
    /// into it.
    case newGroup(Group, evicted: Group?)
    /// Nothing (ended).
    case ignore
  }

  @usableFromInline var state: State = .open
  /// The open groups and the tick of each one's last event.
  @usableFromInline var groups: [Key: (group: Group, lastEvent: Int)] = [:]
  /// Counts events, to order the groups by their last one.
  @usableFromInline var tick = 0
  /// At most this many groups open at once.
  @usableFromInline let maxGroups: Int

  @inlinable
  init(maxGroups: Int) {
    self.maxGroups = maxGroups
  }

  /// An event of key `key`; `make` makes the group of a new key.
  @inlinable
  mutating func received(_ key: Key, make: () -> Group) -> Action {
    guard case .open = state else { return .ignore }
    tick &+= 1
    if let index = groups.index(forKey: key) {
      groups.values[index].lastEvent = tick
      return .send(groups.values[index].group)
    }
    var evicted: Group?
    if groups.count >= maxGroups,
      let oldest = groups.min(by: { $0.value.lastEvent < $1.value.lastEvent })
    {
      evicted = groups.removeValue(forKey: oldest.key)?.group
    }
    let group = make()
    groups[key] = (group, tick)
    return .newGroup(group, evicted: evicted)
  }

  /// The upstream ended, or the observation was disposed: end every group (`ignore` when it had
  /// already ended).
  @inlinable
  mutating func ended() -> Action {
    guard case .open = state else { return .ignore }
    state = .ended
    defer { groups = [:] }
    return .endGroups(groups.values.map(\.group))
  }
}

/// What ends the groups of a ``GroupBy`` observation when it is disposed.
@usableFromInline
protocol GroupEnding: AnyObject {
  /// Ends every group; returns whether this call ended the observation.
  @discardableResult
  func endGroups() -> Bool
}

/// The observer of the upstream for one ``GroupBy`` observation: it keeps the groups (each an
/// ``EventProducer``) under a lock, since the disposal may come from another thread than the
/// events; every group is ended, and every event sent, after the lock.
@usableFromInline
final class GroupBySink<Key: Hashable, Event>: GroupEnding, @unchecked Sendable {
  @usableFromInline let machine: LockedState<GroupByStateMachine<Key, EventProducer<Event>>>
  @usableFromInline let key: (Event) -> Key
  @usableFromInline let observer: EventObserver<(key: Key, events: AnyEventProducer<Event>)>

  @inlinable
  init(
    maxGroups: Int,
    key: @escaping (Event) -> Key,
    observer: EventObserver<(key: Key, events: AnyEventProducer<Event>)>
  ) {
    machine = LockedState(GroupByStateMachine(maxGroups: maxGroups))
    self.key = key
    self.observer = observer
  }

  /// One upstream event (never concurrent with another: guarantee 1).
  @inlinable
  func receive(_ event: Event) {
    let key = self.key(event)
    switch machine.withLock({ $0.received(key, make: { EventProducer<Event>() }) }) {
    case .send(let group):
      group.next(event)
    case .newGroup(let group, let evicted):
      evicted?.finish()
      observer.event((key: key, events: AnyEventProducer(group)))
      group.next(event)
    case .endGroups, .ignore:
      break  // an event never ends the groups
    }
  }

  /// Ends every group; returns whether this call ended the observation.
  @inlinable
  @discardableResult
  func endGroups() -> Bool {
    guard case .endGroups(let groups) = machine.withLock({ $0.ended() }) else { return false }
    for group in groups { group.finish() }
    return true
  }

  /// The disposable that ends every group when the observation is disposed.
  @inlinable
  func groupsEnder() -> BlockDisposable {
    // Through a non-generic protocol: the closure captures no metatype of `Key`.
    let sink = UncheckedSendable(self as any GroupEnding)
    return BlockDisposable { sink.value.endGroups() }
  }

  /// The upstream's end: every group ends, then the outer observer's end.
  @inlinable
  func upstreamEnded() {
    if endGroups() { observer.finished?() }
  }
}
