// Result<T>: a value or an error message, for parsers of untrusted input.
// (C++20 has no std::expected; this is the small subset gobin needs.)
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace gotraced::gobin {

// An error with a human-readable message meant for the operator, e.g.
// "not an ELF file" or "Go 1.17.3: pclntab version unsupported".
struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}       // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & { assert(ok()); return std::get<0>(v_); }
  const T &value() const & { assert(ok()); return std::get<0>(v_); }
  T &&value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }

  // The error message; empty when ok().
  const std::string &error() const {
    static const std::string kEmpty;
    return ok() ? kEmpty : std::get<1>(v_).message;
  }

 private:
  std::variant<T, Error> v_;
};

}  // namespace gotraced::gobin
