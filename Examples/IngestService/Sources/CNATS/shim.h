// The official NATS C client (Debian: libnats-dev), reached by BondJetStream only through this
// module. pkg-config's `libnats` supplies the flags.
#ifndef BOND_CNATS_SHIM_H
#define BOND_CNATS_SHIM_H
#include <nats/nats.h>
#endif
