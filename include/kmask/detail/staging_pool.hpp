#ifndef KMASK_DETAIL_STAGING_POOL_HPP
#define KMASK_DETAIL_STAGING_POOL_HPP

// Reusable memory for what one call describes to its kernels (descriptors, staged sources, the
// all-valid words of absent masks). Allocating and freeing device memory per call costs more than
// small kernels, and a free synchronises the whole device, so a call leases a buffer from a pool
// and gives it back marked with the point of its own queue after which the buffer is free again.
//
// What the pool guarantees:
//  - a call never waits for another call's queue: a lease takes a buffer whose marker says it is
//    finished, or a new one. Only past `max_buffers` buffers does a call wait, and then only for
//    a buffer last used on its own queue (else it allocates);
//  - a scratch lease (acquire_scratch: words only the call's own kernels touch) takes the buffer its
//    own queue gave back last without asking whether it is finished: that queue runs the earlier
//    call's work before anything the new call enqueues, so the question (a driver call of 1-2 us
//    for each asynchronous counted call) has nothing to decide;
//  - no execution space instance outlives the call: the marker is an event (CUDA) or nothing;
//  - the mutex is held to move a buffer in or out of the free list, never across an allocation,
//    a copy or a wait.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kmask {
namespace detail {

// Enqueues the copy of words [begin, end) of `from` into `to` on `exec`.
template <class ExecSpace, class To, class From>
void copy_words(const ExecSpace& exec, const To& to, const From& from, std::size_t begin, std::size_t end) {
  if (end <= begin) return;
  using pair = Kokkos::pair<std::size_t, std::size_t>;
  Kokkos::deep_copy(exec, Kokkos::subview(to, pair(begin, end)), Kokkos::subview(from, pair(begin, end)));
}

template <class ExecSpace>
class staging_pool {
 public:
  using memory_space  = typename ExecSpace::memory_space;
  using staging_space = typename staging_host_space<ExecSpace>::type;
  // The kernels read host memory directly: the host words are the device words.
  static constexpr bool direct = runs_on_host<ExecSpace>();
  // Buffers (leased or still read by enqueued work) past which a call waits for one last used on
  // its own queue rather than allocate another: bounds the pool when one thread enqueues many calls.
  static constexpr std::size_t max_buffers = 64;
  // Completion questions one lease may ask (see take_finished).
  static constexpr int max_queries = 4;
  // The kernels can write the page-locked host words (CUDA, HIP, SYCL, the host spaces): see
  // lease::result_word.
  static constexpr bool results_in_host_words = Kokkos::SpaceAccessibility<ExecSpace, staging_space>::accessible;
  // Words of lease::zeroed(): a running total and a ticket for each of up to 128 counts (a batch
  // count carried in its launch's arguments).
  static constexpr std::size_t zeroed_words = 256;

  struct buffer {
    Kokkos::View<std::uint64_t*, staging_space> host;   // what the host writes
    Kokkos::View<std::uint64_t*, memory_space> device;  // what the kernels read (empty when direct)
    Kokkos::View<std::uint64_t*, memory_space> zeros;   // zeroed_words words, zero between leases
    completion_marker<ExecSpace> marker;
    std::uintptr_t queue = 0;
    std::size_t host_words() const { return host.extent(0); }
    std::size_t device_words() const { return direct ? host.extent(0) : device.extent(0); }
    bool fits(std::size_t d, std::size_t h) const { return device_words() >= d && host_words() >= h; }
  };

  // One call's exclusive use of a buffer. Given back when destroyed (also when the call throws),
  // marked at the end of everything the call enqueued on `exec` so far.
  class lease {
   public:
    lease() = default;
    lease(lease&& o) noexcept
        : pool_(o.pool_), buf_(std::move(o.buf_)), exec_(std::move(o.exec_)), queue_(o.queue_), fenced_(o.fenced_) {
      o.pool_ = nullptr;
    }
    lease& operator=(lease&&) = delete;
    lease(const lease&)       = delete;
    ~lease() {
      if (pool_ != nullptr && buf_) pool_->give_back(std::move(buf_), exec_, queue_, fenced_);
    }
    // Fences the call's instance: everything it enqueued, this buffer's uses included, is done, so
    // the buffer goes back finished, with no marker to record or ask (a synchronous call's last step).
    void fence() const {
      exec_.fence();
      fenced_ = true;
    }
    std::uint64_t* host() const { return buf_->host.data(); }
    // Where the kernels read word 0.
    std::uint64_t* device() const { return direct ? buf_->host.data() : buf_->device.data(); }
    // Enqueues the copy of words [begin, end) to the device on the call's instance.
    void upload(std::size_t begin, std::size_t end) const {
      fenced_ = false;
      if (!direct) copy_words(exec_, buf_->device, buf_->host, begin, end);
    }
    // Enqueues the copy of words [begin, end) back to the host words.
    void download(std::size_t begin, std::size_t end) const {
      fenced_ = false;
      if (!direct) copy_words(exec_, buf_->host, buf_->device, begin, end);
    }
    // Where the call's kernels write result word k, which read_result(k) gives the host after the
    // call: the page-locked host word itself where the kernels can write it, so nothing is copied
    // back (a copy and its wait on a synchronous call's path), else device word k.
    std::uint64_t* result_word(std::size_t k) const { return results_in_host_words ? host() + k : device() + k; }
    // Fences the call (everything it enqueued) and returns result word k.
    std::uint64_t read_result(std::size_t k) const {
      if (!results_in_host_words) download(k, k + 1);
      fence();
      return host()[k];
    }
    // zeroed_words words of kernel memory that are zero when the lease is taken, so a kernel can
    // keep a running total and a ticket there with nothing uploaded or cleared first. Whatever
    // uses them must leave them zero when its work ends. Made (and cleared on the call's
    // instance) the first time a buffer is asked.
    std::uint64_t* zeroed() const {
      fenced_ = false;
      if (buf_->zeros.data() == nullptr) {
        buf_->zeros = Kokkos::View<std::uint64_t*, memory_space>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmask::staging::zeros"), zeroed_words);
        // A labelled kernel, not deep_copy: Kokkos' fill kernel would run unlabelled inside the call.
        const auto z = buf_->zeros;
        Kokkos::parallel_for("kmask::staging::zeros", Kokkos::RangePolicy<ExecSpace>(exec_, 0, zeroed_words),
                             KOKKOS_LAMBDA(std::size_t i) { z(i) = 0; });
      }
      return buf_->zeros.data();
    }

   private:
    friend class staging_pool;
    lease(staging_pool* p, std::unique_ptr<buffer> b, const ExecSpace& exec, std::uintptr_t queue)
        : pool_(p), buf_(std::move(b)), exec_(exec), queue_(queue) {}
    staging_pool* pool_ = nullptr;
    std::unique_ptr<buffer> buf_;
    ExecSpace exec_;
    std::uintptr_t queue_ = 0;  // queue_identity(exec_), asked once
    mutable bool fenced_ = false;  // fence() was the last thing the call enqueued on exec_ with this buffer
  };

  // A buffer of at least `device_words` words the kernels read, the first `host_words` of which
  // the host writes and uploads (page-locked host memory); the rest is scratch the kernels fill.
  // `label` names its allocations when it has to allocate ("<fn>::descriptors").
  static lease acquire(const ExecSpace& exec, std::size_t device_words, std::size_t host_words,
                       const std::string& label) {
    return take(exec, device_words, host_words, label, false);
  }

  // A lease whose words only the call's kernels touch, through zeroed() and result_word(): the host
  // writes and uploads nothing (read_result reads the result word after the fence). Such a lease
  // may take a buffer still in use by earlier work on the caller's own queue.
  // `device_words` kernel words past word 0 are the call's kernels' to write before they read them.
  static lease acquire_scratch(const ExecSpace& exec, const std::string& label, std::size_t device_words = 1) {
    return take(exec, device_words, 1, label, true);
  }

 private:
  static lease take(const ExecSpace& exec, std::size_t device_words, std::size_t host_words, const std::string& label,
                    bool scratch) {
    staging_pool& p            = instance();
    const std::uintptr_t queue = queue_identity(exec);
    if (direct) host_words = device_words;
    std::unique_ptr<buffer> b;
    {
      std::unique_lock<std::mutex> lock(p.mutex_);
      p.hook_finalize();
      if (scratch && queue != 0) b = p.take_same_queue(queue, device_words, host_words);
      if (!b) b = p.take_finished(device_words, host_words);
      if (!b && p.out_ + p.free_.size() >= max_buffers) b = p.take_own_queue(queue, lock);
      ++p.out_;
    }
    if (!b) b = std::make_unique<buffer>();
    if (!b->fits(device_words, host_words)) {
      try {
        grow(*b, device_words, host_words, label);
      } catch (...) {
        std::lock_guard<std::mutex> lock(p.mutex_);
        --p.out_;
        throw;
      }
    }
    return lease(&p, std::move(b), exec, queue);
  }

  static staging_pool& instance() {
    static staging_pool p;
    return p;
  }

  // Views must not outlive Kokkos: the buffers go at finalize, and come back on demand if Kokkos
  // is initialised again. Called with the mutex held.
  void hook_finalize() {
    if (hooked_) return;
    hooked_ = true;
    Kokkos::push_finalize_hook([] {
      staging_pool& q = instance();
      std::lock_guard<std::mutex> lock(q.mutex_);
      for (auto& b : q.free_) b->marker.wait();
      q.free_.clear();
      q.hooked_ = false;
    });
  }

  // Grows geometrically, so a sequence of growing calls reallocates O(log) times.
  static void grow(buffer& b, std::size_t device_words, std::size_t host_words, const std::string& label) {
    b.marker.wait();  // the old views may still be read by this buffer's last call
    if (b.host_words() < host_words) {
      const std::size_t n = std::max(host_words, 2 * b.host_words());
      b.host              = {};
      b.host              = Kokkos::View<std::uint64_t*, staging_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, direct ? label : label + "::host"), n);
    }
    if (!direct && b.device_words() < device_words) {
      const std::size_t n = std::max(device_words, 2 * b.device_words());
      b.device            = {};
      b.device            = Kokkos::View<std::uint64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
    }
  }

  // The smallest finished buffer that fits, else the largest finished one (the caller grows it).
  // Buffers not yet seen finished are asked, oldest first, at most `max_queries` of them: each
  // question is a driver call made under the mutex, which every caller's lease waits for.
  std::unique_ptr<buffer> take_finished(std::size_t device_words, std::size_t host_words) {
    std::size_t best  = free_.size();
    bool best_fits    = false;
    int queries_left  = max_queries;
    for (std::size_t i = 0; i < free_.size(); ++i) {
      const buffer& b = *free_[i];
      if (!b.marker.known_finished() && (queries_left-- <= 0 || !b.marker.finished())) continue;
      const bool fits = b.fits(device_words, host_words);
      if (best == free_.size() || (fits && !best_fits) ||
          (fits == best_fits && (fits ? b.device_words() < free_[best]->device_words()
                                      : b.device_words() > free_[best]->device_words()))) {
        best      = i;
        best_fits = fits;
      }
    }
    if (best == free_.size()) return nullptr;
    auto b = std::move(free_[best]);
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    return b;
  }

  // For a scratch lease: the fitting buffer given back last on the caller's own queue, not asked
  // (its marker stays as it was: a later take_finished by another queue still asks it).
  std::unique_ptr<buffer> take_same_queue(std::uintptr_t queue, std::size_t device_words, std::size_t host_words) {
    for (std::size_t i = free_.size(); i-- > 0;) {
      if (free_[i]->queue != queue || !free_[i]->fits(device_words, host_words)) continue;
      auto b = std::move(free_[i]);
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
      return b;
    }
    return nullptr;
  }

  // Over the cap: a free buffer last used on the caller's own queue, waited for outside the lock.
  std::unique_ptr<buffer> take_own_queue(std::uintptr_t queue, std::unique_lock<std::mutex>& lock) {
    if (queue == 0) return nullptr;
    for (std::size_t i = 0; i < free_.size(); ++i) {
      if (free_[i]->queue != queue) continue;
      auto b = std::move(free_[i]);
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
      lock.unlock();
      b->marker.wait();
      lock.lock();
      return b;
    }
    return nullptr;
  }

  void give_back(std::unique_ptr<buffer> b, const ExecSpace& exec, std::uintptr_t queue, bool fenced) {
    if (fenced) b->marker.mark_finished();
    else b->marker.record(exec);
    b->queue = queue;
    std::lock_guard<std::mutex> lock(mutex_);
    --out_;
    free_.push_back(std::move(b));
  }

  std::mutex mutex_;
  bool hooked_ = false;
  std::vector<std::unique_ptr<buffer>> free_;
  std::size_t out_ = 0;
};

}  // namespace detail
}  // namespace kmask

#endif
