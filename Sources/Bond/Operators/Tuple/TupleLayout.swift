/// The byte offsets of a tuple's elements, computed the way Swift lays a tuple out: each element
/// at the next offset that is a multiple of its alignment, in order (the struct layout of the
/// Swift ABI, which tuples share). `observeTuples` (`combineLatest`, `zip`) checks the result
/// against `MemoryLayout` of the whole tuple before using it.
@usableFromInline
struct TupleLayout {
  /// The end of the last element appended: the tuple's size once all are appended.
  @usableFromInline var size = 0
  /// The largest alignment of the elements appended.
  @usableFromInline var alignment = 1

  @inlinable
  init() {}

  /// Appends an element of type `T`.
  /// - Returns: its offset.
  @inlinable
  mutating func append<T>(_: T.Type) -> Int {
    let elementAlignment = MemoryLayout<T>.alignment
    let offset = (size + elementAlignment - 1) / elementAlignment * elementAlignment
    size = offset + MemoryLayout<T>.size
    alignment = Swift.max(alignment, elementAlignment)
    return offset
  }
}
