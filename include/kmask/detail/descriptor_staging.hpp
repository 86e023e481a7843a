#ifndef KMASK_DETAIL_DESCRIPTOR_STAGING_HPP
#define KMASK_DETAIL_DESCRIPTOR_STAGING_HPP

// Reusable buffers for the descriptors of one-shot calls (segmented_binop()). Allocating,
// uploading from pageable memory and freeing descriptor views on every call costs more than the
// kernel for small masks: device allocations and frees synchronise, a pageable copy stages through
// a driver buffer. Here the host writes descriptors straight into page-locked memory kept between
// calls, asynchronous copies move them into device memory kept between calls, and nothing is
// freed until Kokkos::finalize().
//
// Reuse is ordered, not assumed: a call first waits (fence) for the execution space instance the
// previous call enqueued its copy and kernels on, so neither buffer is overwritten while still read.
// One call at a time holds the buffers (a mutex): concurrent host threads queue.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace kmask {
namespace detail {

template <class ExecSpace>
class descriptor_staging {
 public:
  using memory_space  = typename ExecSpace::memory_space;
  using staging_space = typename staging_host_space<ExecSpace>::type;
  // The kernels read host memory directly: nothing to copy.
  static constexpr bool direct = runs_on_host<ExecSpace>();

  // Exclusive use of the buffers for one call, grown to at least `words` 64-bit words.
  class lease {
   public:
    // Where the host writes the descriptors.
    std::uint64_t* host() const { return s_->host_.data(); }
    // Enqueues the copy of words [begin, end) on the call's instance. From the first copy until
    // the next call's fence, the buffers belong to `exec`: words already handed over must not be
    // written again by this call.
    void upload(std::size_t begin, std::size_t end) {
      if (!s_->last_) s_->last_ = std::make_unique<ExecSpace>(exec_);
      if (direct || end <= begin) return;
      using pair = Kokkos::pair<std::size_t, std::size_t>;
      Kokkos::deep_copy(exec_, Kokkos::subview(s_->device_, pair(begin, end)),
                        Kokkos::subview(s_->host_, pair(begin, end)));
    }
    // Where the kernels read the uploaded words.
    const std::uint64_t* device() const { return direct ? s_->host_.data() : s_->device_.data(); }

   private:
    friend class descriptor_staging;
    lease(descriptor_staging& s, const ExecSpace& exec) : s_(&s), lock_(s.mutex_), exec_(exec) {}
    descriptor_staging* s_;
    std::unique_lock<std::mutex> lock_;
    ExecSpace exec_;
  };

  static lease acquire(const ExecSpace& exec, std::size_t words) {
    descriptor_staging& s = instance();
    lease l(s, exec);
    if (s.last_) {
      s.last_->fence();
      s.last_.reset();
    }
    s.reserve(words);
    return l;
  }

 private:
  static descriptor_staging& instance() {
    static descriptor_staging s;
    return s;
  }

  void reserve(std::size_t words) {
    if (host_.extent(0) >= words) return;
    // Grow geometrically so a sequence of growing calls reallocates O(log) times.
    const std::size_t n = std::max<std::size_t>(words, 2 * host_.extent(0));
    host_               = {};
    device_             = {};
    host_ = Kokkos::View<std::uint64_t*, staging_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kmask::descriptor_staging::host")), n);
    if (!direct)
      device_ = Kokkos::View<std::uint64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kmask::descriptor_staging::device")), n);
    if (!finalize_hook_) {
      // Views must not outlive Kokkos; the buffers are recreated if Kokkos is initialised again.
      finalize_hook_ = true;
      Kokkos::push_finalize_hook([this] {
        std::lock_guard<std::mutex> guard(mutex_);
        last_.reset();
        host_          = {};
        device_        = {};
        finalize_hook_ = false;
      });
    }
  }

  std::mutex mutex_;
  Kokkos::View<std::uint64_t*, staging_space> host_;
  Kokkos::View<std::uint64_t*, memory_space> device_;
  std::unique_ptr<ExecSpace> last_;  // the instance the buffers were last handed to
  bool finalize_hook_ = false;
};

}  // namespace detail
}  // namespace kmask

#endif
