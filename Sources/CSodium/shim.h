// The system libsodium (Debian's libsodium-dev, Homebrew's libsodium).
// Nothing is wrapped here: Swift calls libsodium's C API directly.
#include <sodium.h>
