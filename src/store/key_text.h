// KeyText: a key as it may appear in an error message. Keys are any bytes;
// a NUL (the store's reserved array keys start with one) or another control
// byte would cut or garble the message where it is read as a C string (the
// C API's cairn_last_error, Fortran, printf), so those bytes are written as
// \xNN and a backslash as \\.
#pragma once

#include <string>
#include <string_view>

namespace cairn {

inline std::string KeyText(std::string_view key) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(key.size());
  for (unsigned char c : key) {
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace cairn
