/*
 * A stand-in for Windows' bcryptprimitives.dll, which Wine 8 does not have: the Rust-built native
 * packages (libsql, @napi-rs/keyring, rolldown, lightningcss) import ProcessPrng from it, the
 * random-number source Rust's standard library uses on Windows 10+, so without it they fail to
 * load. It fills the buffer from BCryptGenRandom, which Wine 8 implements. Test harness only: on
 * Windows the system's own DLL is there. Built by .ci/windows with mingw-w64 into the Wine prefix.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x10000000 ? 0x10000000 : (ULONG)size;
    if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}
