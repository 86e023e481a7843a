#ifndef KMASK_SRC_MESSAGES_HPP
#define KMASK_SRC_MESSAGES_HPP

// How the compiled checks (src/*_validation.cpp) build and throw their messages: "<fn>: " followed
// by the parts, each written with operator<<. Private to src/.

#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>

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
[[noreturn]] void invalid(const char* fn, const Parts&... parts) {
  throw std::invalid_argument(message(fn, parts...));
}

template <class... Parts>
[[noreturn]] void out_of_range(const char* fn, const Parts&... parts) {
  throw std::out_of_range(message(fn, parts...));
}

}  // namespace messages
}  // namespace detail
}  // namespace kmask

#endif
