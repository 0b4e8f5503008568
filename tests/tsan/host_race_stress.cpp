// The ThreadSanitizer stress (docs/checks.md, "Host-side races"): devparity's
// torch-free native code, and the seeded host-race twin, run from many threads
// at once in a binary built with -fsanitize=thread. A data race TSan sees is
// its report and exit status 66; a clean run exits 0.
//
//   host_race_stress SUBJECT [THREADS] [ROUNDS]
//     jpeg               every thread writes baseline JPEGs (shared Huffman and
//                        quantization tables), validates and decodes them strictly
//     fault_lazy_handle  the twin of tests/faults/host_race_faults.h, faulty
//     clean_lazy_handle  its clean twin

#include "harness/jpeg/tables.h"
#include "harness/jpeg/validator.h"
#include "harness/jpeg/writer.h"
#include "tests/faults/host_race_faults.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace devparity;

// One thread's JPEG round trip: a 4:2:0 frame from the thread's seed, written,
// validated (marker walk and strict libjpeg decode), checked for its size.
void jpeg_round_trip(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int16_t> y(4 * 2 * 64), cb(2 * 64), cr(2 * 64);
  for (auto* plane : {&y, &cb, &cr}) {
    for (size_t i = 0; i < plane->size(); i += 64) (*plane)[i] = static_cast<int16_t>(rng() % 200) - 100;
    for (size_t i = 0; i < plane->size(); ++i) {
      if (i % 64 != 0 && rng() % 5 == 0) (*plane)[i] = static_cast<int16_t>(rng() % 9) - 4;
    }
  }
  jpeg::FrameData f;
  f.width = 32;
  f.height = 16;
  f.components = {{1, 2, 2, 0, 0, 4, 2, y.data()}, {2, 1, 1, 1, 1, 2, 1, cb.data()}, {3, 1, 1, 1, 1, 2, 1, cr.data()}};
  const int quality = 50 + static_cast<int>(seed % 50);
  f.quant_tables = {jpeg::scaled_quant_table(jpeg::kLumaQuant, quality),
                    jpeg::scaled_quant_table(jpeg::kChromaQuant, quality)};
  f.optimize_huffman = seed % 2 == 0;
  f.restart_interval = static_cast<int>(seed % 3);
  const auto bytes = jpeg::write_jpeg(f);
  jpeg::Decoded decoded;
  const auto verdict = jpeg::validate(bytes.data(), bytes.size(), {}, &decoded);
  if (verdict.verdict != jpeg::Verdict::kValid || decoded.width != 32 || decoded.height != 16) {
    throw std::runtime_error("a written JPEG did not validate: " + verdict.reason);
  }
}

// Both entry points of the lazily created handle, from every thread.
void handle_users(bool faulty, unsigned seed) {
  const auto* first = seed % 2 == 0 ? faults::decode_handle(faulty) : faults::encode_handle(faulty);
  const auto* second = seed % 2 == 0 ? faults::encode_handle(faulty) : faults::decode_handle(faulty);
  if (first == nullptr || second == nullptr || first->created_by == 0) throw std::runtime_error("no handle");
}

int run(const std::string& subject, int threads, int rounds) {
  std::function<void(unsigned)> work;
  if (subject == "jpeg") {
    work = jpeg_round_trip;
  } else if (subject == "fault_lazy_handle" || subject == "clean_lazy_handle") {
    const bool faulty = subject[0] == 'f';
    work = [faulty](unsigned seed) { handle_users(faulty, seed); };
  } else {
    std::fprintf(stderr, "host_race_stress: unknown subject '%s' (jpeg, fault_lazy_handle, clean_lazy_handle)\n",
                 subject.c_str());
    return 2;
  }
  std::atomic<int> failed{0};
  for (int round = 0; round < rounds; ++round) {
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();  // all start together: the window is widest
        try {
          work(static_cast<unsigned>(round * threads + t));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "host_race_stress: %s\n", e.what());
          failed.fetch_add(1);
        }
      });
    }
    go.store(true);
    for (auto& th : pool) th.join();
    if (subject == "fault_lazy_handle") faults::reset_faulty_handle();
  }
  std::printf("host_race_stress: %s: %d threads x %d rounds, %d failed\n", subject.c_str(), threads, rounds,
              failed.load());
  return failed.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: host_race_stress SUBJECT [THREADS] [ROUNDS]\n");
    return 2;
  }
  const int threads = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 20;
  if (threads < 1 || rounds < 1) {
    std::fprintf(stderr, "host_race_stress: THREADS and ROUNDS must be positive\n");
    return 2;
  }
  return run(argv[1], threads, rounds);
}
