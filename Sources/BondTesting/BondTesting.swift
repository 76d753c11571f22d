/// BondTesting: helpers for testing code built on Bond (``TestScheduler``, virtual time).
@_exported import Bond
