// `simphant merge OUT SHARD... [--copy] [--json]`: the shard files of one design into
// one file that reads like the one-shot run's (simphant/job/merge.hpp), with the exit
// codes of README "Exit codes".
#include <cstdio>
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "stdout_check.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/output_file.hpp"

namespace simphant::cli {

int merge_command(const MergeCliOptions& o) {
  try {
    const nlohmann::json s = merge_shards(o.merge);
    if (o.json) {
      std::cout << s.dump() << '\n';
    } else {
      std::printf("merged %zu shard%s (%lld instances, %lld frames) into %s: %s, %.3f GB of instance data in %.3f s\n",
                  o.merge.shards.size(), o.merge.shards.size() == 1 ? "" : "s", s.at("instances").get<long long>(),
                  s.at("frames").get<long long>(), o.merge.out.c_str(),
                  o.merge.copy ? "datasets copied" : "virtual datasets over the shards (keep them beside it)",
                  s.at("bytes").get<double>() / 1e9, s.at("seconds").get<double>());
    }
    return finish_stdout(kExitOk);
  } catch (const MergeError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const h5::H5Error& e) {
    std::fprintf(stderr, "error: output: %s\n", e.what());
    return kExitRunFailed;
  } catch (const std::exception& e) {  // OutputBusy, an output folder that cannot be written
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  }
}

}  // namespace simphant::cli
