// The only file of the engine that imports Foundation.
import Foundation

extension NotificationCenter {
  /// A producer of the notifications named `name` that this center posts (from `object` only,
  /// when given).
  ///
  /// A managed producer (``EventProducer/init(replayLength:producer:)``): it stays alive while it
  /// is observed, so the observation alone is enough; the center's observer is removed when the
  /// producer goes (its last observation disposed and no other reference left).
  ///
  /// ```swift
  /// NotificationCenter.default.bnd_notification(.init("MyNotification"))
  ///   .observe { notification in print("Got \(notification)") }
  ///   .disposeIn(bag)
  /// ```
  /// Notifications are delivered on the posting thread, with the guarantees of ``EventProducer``.
  /// The producer never ends by itself (a center has no last notification); like any producer, it
  /// ends its observations if it is deallocated.
  /// - Parameters:
  ///   - name: the notification name.
  ///   - object: the sender to listen to; `nil` for any sender.
  /// - Returns: a producer of the notifications, with no replay.
  public func bnd_notification(_ name: Notification.Name, object: AnyObject? = nil) -> EventProducer<Notification> {
    EventProducer { sink in
      let forward = NotificationForwarder(sink)
      let token = addObserver(forName: name, object: object, queue: nil) { notification in
        forward.sink(notification)
      }
      let registration = NotificationRegistration(center: self, token: token)
      return BlockDisposable { registration.remove() }
    }
  }
}

/// The producer's sink, carried into the center's `@Sendable` block.
private struct NotificationForwarder: @unchecked Sendable {
  // @unchecked: the sink only calls `EventProducer.next`, which is thread-safe; it holds the
  // producer weakly.
  let sink: (Notification) -> Void
  init(_ sink: @escaping (Notification) -> Void) { self.sink = sink }
}

/// The center and the token `addObserver` returned, carried into the disposal handler.
private struct NotificationRegistration: @unchecked Sendable {
  // @unchecked: the token is an opaque object only handed back to `removeObserver`, which
  // NotificationCenter allows from any thread.
  let center: NotificationCenter
  let token: any NSObjectProtocol
  func remove() { center.removeObserver(token) }
}
