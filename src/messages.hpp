#ifndef KMASK_SRC_MESSAGES_HPP
#define KMASK_SRC_MESSAGES_HPP

// How the compiled checks (src/*_validation.cpp) build and throw their messages: "<fn>: " followed
// by the parts, each written with operator<<. Private to src/.

#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>

// A throw is the rare path of every check: marked cold, the compiler keeps the argument setup
// for its message out of the passing path (most of a check's instructions otherwise).
#if defined(__GNUC__) || defined(__clang__)
#define KMASK_SRC_COLD __attribute__((cold, noinline))
#else
#define KMASK_SRC_COLD
#endif

namespace kmask {
namespace detail {
namespace messages {

template <class... Parts>
std::string message(const char* fn, const Parts&... parts) {
  std::ostringstream os;
  os << fn << ": ";
  (void)std::initializer_list<int>{((os << parts), 0)...};
  return os.str();
}

template <class... Parts>
[[noreturn]] KMASK_SRC_COLD void invalid(const char* fn, const Parts&... parts) {
  throw std::invalid_argument(message(fn, parts...));
}

template <class... Parts>
[[noreturn]] KMASK_SRC_COLD void out_of_range(const char* fn, const Parts&... parts) {
  throw std::out_of_range(message(fn, parts...));
}

}  // namespace messages
}  // namespace detail
}  // namespace kmask

#endif
