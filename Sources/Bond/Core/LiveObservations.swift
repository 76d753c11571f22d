import Synchronization

/// Observations registered on any producer of the process and not yet ended (disposed, finished,
/// or their producer deallocated). The core owns and counts it, at observe, dispose, the end and
/// deinit only (`next` never touches it); `BondDebug.liveObservationCount` reads it, so the
/// dependency goes one way: Debug on Core.
@usableFromInline
let liveObservations = Atomic<Int>(0)
